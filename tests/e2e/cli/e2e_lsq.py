"""End to end for the lsq workload: a cube and a design matrix written by numpy -> simscope
--headless -> the .npy outputs read back by numpy and compared with numpy.linalg.lstsq per pixel
(float64), the original underdetermined case against pinv, Tikhonov against its closed form,
run.json (status counts, warnings), view.png; and bad inputs (M mismatch, non-finite A, a 2-D
cube, a cube of the wrong dtype, ...): non-zero exit, one line naming the problem, no outputs.
Usage: e2e_lsq.py SIMSCOPE"""
import json
import os
import sys

import numpy as np

from simscope_test_util import Checker, read_png, run, scratch

simscope = sys.argv[1]
c = Checker()
rng = np.random.default_rng(11)


def lstsq_maps(A, b, lam=0.0):
    """Per-pixel float64 reference: solution (N,H,W), RMS residual, count, status, cond."""
    M, H, W = b.shape
    N = A.shape[1]
    X = np.full((N, H, W), np.nan)
    R = np.full((H, W), np.nan)
    C = np.zeros((H, W), np.int32)
    S = np.full((H, W), 3, np.uint8)
    K = np.full((H, W), np.nan)
    for h in range(H):
        for w in range(W):
            o = ~np.isnan(b[:, h, w])
            m = int(o.sum())
            C[h, w] = m
            if m == 0:
                continue
            Ap, bp = A[o], b[o, h, w]
            if lam > 0:
                x = np.linalg.solve(Ap.T @ Ap + lam * np.eye(N), Ap.T @ bp)
            else:
                x = np.linalg.lstsq(Ap, bp, rcond=None)[0]
            X[:, h, w] = x
            R[h, w] = np.sqrt(np.mean((Ap @ x - bp) ** 2))
            S[h, w] = 1 if m < N else (2 if np.linalg.matrix_rank(Ap) < N else 0)
            K[h, w] = np.linalg.cond(Ap)
    return X, R, C, S, K


def rel_err(got, ref):
    """Largest per-pixel |x - ref| / |ref| over pixels with a solution."""
    num = np.sqrt(np.nansum((got - ref) ** 2, axis=0))
    den = np.sqrt(np.nansum(ref ** 2, axis=0))
    ok = ~np.isnan(ref[0])
    return float(np.max(num[ok] / den[ok]))


def headless(out, *sets, extra=()):
    args = ["--headless", "--workload", "lsq", "--backend", "cpu", "--out-dir", out, *extra]
    for s in sets:
        args += ["--set", s]
    return run(simscope, *args)


# ---- 1. a float64 cube with gaps, A as .npy --------------------------------------------------
M, N, H, W = 24, 6, 9, 11
A = rng.standard_normal((M, N))
b = np.einsum("mn,nhw->mhw", A, rng.standard_normal((N, H, W))) + 0.05 * rng.standard_normal((M, H, W))
b[rng.random(b.shape) < 0.25] = np.nan
b[:, 0, 0] = np.nan            # all missing
b[4:, 0, 1] = np.nan           # 4 observed rows < N
d = scratch("e2e_lsq")
np.save(os.path.join(d, "cube.npy"), b)
np.save(os.path.join(d, "A.npy"), A)
out = os.path.join(d, "out")
p = headless(out, f"data.file={d}/cube.npy", f"design.file={d}/A.npy", "view=status")
c.check(p.returncode == 0, f"headless lsq run exits 0 ({p.returncode}: {p.stderr.strip()[-300:]})")
if p.returncode == 0:
    X, R, C, S, K = lstsq_maps(A, b)
    x = np.load(os.path.join(out, "solution.npy"))
    c.check(x.dtype == np.float64 and x.shape == (N, H, W), f"solution.npy float64 in fp64 (N,H,W) {x.shape}")
    c.check(rel_err(x, X) <= 1e-12, f"solution vs numpy lstsq: {rel_err(x, X):.2e} <= 1e-12 (fp64, end to end: README)")
    res = np.load(os.path.join(out, "residual.npy"))
    ok = ~np.isnan(R)
    c.check(res.shape == (H, W) and np.allclose(res[ok], R[ok], rtol=1e-4, atol=1e-6), "residual.npy = RMS over observed rows")
    cnt = np.load(os.path.join(out, "count.npy"))
    c.check(cnt.dtype == np.int32 and np.array_equal(cnt, C), "count.npy int32 = observed rows")
    st = np.load(os.path.join(out, "status.npy"))
    c.check(st.dtype == np.uint8 and np.array_equal(st, S), f"status.npy uint8 codes match ({np.bincount(st.ravel(), minlength=4)})")
    c.check(st[0, 0] == 3 and np.isnan(x[:, 0, 0]).all() and np.isnan(res[0, 0]), "all-missing pixel: status 3, NaN solution and residual")
    c.check(st[0, 1] == 1 and np.allclose(x[:, 0, 1], X[:, 0, 1], rtol=1e-5, atol=1e-6), "4-row pixel: status 1, minimum-norm solution")
    cond = np.load(os.path.join(out, "condition.npy"))
    ratio = cond[ok] / K[ok]
    # README: Cholesky pixels 0.5x..sqrt(N)x, auto's downdate pixels 0.5x..cond2(G) s^(1/4)x
    # (G = A^T A, s missing rows); which path a pixel took is not exported: the larger bound.
    hi = np.maximum(np.sqrt(N), np.linalg.cond(A.T @ A) * (M - C[ok]) ** 0.25) * (1 + 1e-4)
    c.check(bool(np.all((ratio >= 0.5) & (ratio <= hi))), f"condition.npy estimates numpy's cond within README's bounds (ratio {ratio.min():.2f}..{ratio.max():.2f})")
    man = json.load(open(os.path.join(out, "run.json")))
    st_counts = [int(man["stats"][k]) for k in ("status_ok", "status_underdetermined", "status_rank_deficient", "status_all_missing")]
    c.check(st_counts == list(np.bincount(S.ravel(), minlength=4)), f"run.json counts each status {st_counts}")
    warn = " ".join(man["warnings"])
    c.check("underdetermined" in warn and "minimum-norm" in warn and "no observation" in warn,
            "run.json warns about underdetermined and all-missing pixels")
    c.check(all(w in p.stderr for w in ("underdetermined", "no observation")), "the warnings are on stderr too")
    c.check([o["name"] for o in man["outputs"]] == ["solution", "residual", "count", "status", "condition"], "run.json lists the five outputs")
    img, text = read_png(os.path.join(out, "view.png"))
    colours = len(np.unique(img.reshape(-1, img.shape[2])[:, :3], axis=0))
    c.check(img.shape[:2] == (832, 1024) and colours > 4, f"view.png of the status map ({colours} colours)")
    c.check("view=status" in text.get("simscope.params", ""), "view.png carries the parameters")

# ---- 2. float32 cube, CSV design, fp32 and every method ----------------------------------------
b32 = b.astype(np.float32)
np.save(os.path.join(d, "cube32.npy"), b32)
with open(os.path.join(d, "A.csv"), "w") as f:
    f.write(",".join(f"a{k}" for k in range(N)) + "\n")
    for row in A:
        f.write(",".join(repr(float(v)) for v in row) + "\n")
X32, *_ = lstsq_maps(A, b32.astype(np.float64))
for method in ("auto", "normal", "qr", "svd"):
    out = os.path.join(d, "out32_" + method)
    p = headless(out, f"data.file={d}/cube32.npy", f"design.file={d}/A.csv", "precision=fp32", f"method={method}", extra=["--no-image"])
    if p.returncode != 0:
        c.check(False, f"fp32 {method}: exit {p.returncode} {p.stderr.strip()[-200:]}")
        continue
    x = np.load(os.path.join(out, "solution.npy")).astype(np.float64)
    e = rel_err(x, X32)
    c.check(e <= 1e-3, f"float32 cube, CSV A, fp32 {method}: {e:.2e} <= 1e-3")

# ---- 3. the original underdetermined case: A (50, 100), no gaps --------------------------------
A2 = rng.standard_normal((50, 100))
b2 = rng.standard_normal((50, 6, 7))
np.save(os.path.join(d, "A2.npy"), A2)
np.save(os.path.join(d, "b2.npy"), b2)
out = os.path.join(d, "out_under")
p = headless(out, f"data.file={d}/b2.npy", f"design.file={d}/A2.npy", "view=residual")
c.check(p.returncode == 0, f"underdetermined run exits 0 ({p.stderr.strip()[-200:]})")
if p.returncode == 0:
    x = np.load(os.path.join(out, "solution.npy")).astype(np.float64)
    ref = np.tensordot(np.linalg.pinv(A2), b2, axes=1)
    c.check(rel_err(x, ref) <= 1e-12, f"A (50,100): solution = pinv(A) b ({rel_err(x, ref):.2e} <= 1e-12, fp64)")
    st = np.load(os.path.join(out, "status.npy"))
    c.check(bool(np.all(st == 1)), "A (50,100): every pixel status 1")
    c.check(float(np.max(np.load(os.path.join(out, "residual.npy")))) < 1e-5, "A (50,100): residual ~ 0")
    man = json.load(open(os.path.join(out, "run.json")))
    c.check(int(man["stats"]["status_underdetermined"]) == 42 and int(man["stats"]["design_rank"]) == 50,
            "run.json: 42 underdetermined pixels, rank 50")
    c.check(any("minimum-norm" in w for w in man["warnings"]), "run.json says the solutions are minimum-norm")

# ---- 4. Tikhonov -------------------------------------------------------------------------------
out = os.path.join(d, "out_tik")
p = headless(out, f"data.file={d}/cube.npy", f"design.file={d}/A.npy", "lambda=2.5", extra=["--no-image"])
if p.returncode == 0:
    Xt, *_ = lstsq_maps(A, b, lam=2.5)
    x = np.load(os.path.join(out, "solution.npy")).astype(np.float64)
    c.check(rel_err(x, Xt) <= 1e-12, f"lambda 2.5 (fp64, <= 1e-12): closed form (A^T A + lambda I)^-1 A^T b ({rel_err(x, Xt):.2e})")
    man = json.load(open(os.path.join(out, "run.json")))
    c.check(any("Tikhonov" in w for w in man["warnings"]), "lambda > 0: the underdetermined warning names Tikhonov")
else:
    c.check(False, f"lambda run exits 0 ({p.stderr.strip()[-200:]})")

# ---- 5. the synthetic default and a coarse GUI-style run -------------------------------------
out = os.path.join(d, "out_synth")
p = headless(out, "synth.height=40", "synth.width=30", "synth.observations=30", "synth.unknowns=5", "view=condition")
c.check(p.returncode == 0 and os.path.exists(os.path.join(out, "view.png")), "synthetic default runs")

# ---- 5b. data.mask: a bool .npy, True where observed, as NaN at the False entries -------------
d = scratch("e2e_lsq_mask")
np.save(os.path.join(d, "A.npy"), A)
full = np.einsum("mn,nhw->mhw", A, rng.standard_normal((N, H, W)))
observed = rng.random(full.shape) >= 0.3
observed[:, 2, 3] = False                      # a pixel with nothing observed
np.save(os.path.join(d, "full.npy"), full)
np.save(os.path.join(d, "observed.npy"), observed)
np.save(os.path.join(d, "observed_u8.npy"), observed.astype(np.uint8))
gapped = np.where(observed, full, np.nan)
np.save(os.path.join(d, "gapped.npy"), gapped)
runs = {}
for name, sets in (("mask", [f"data.file={d}/full.npy", f"data.mask={d}/observed.npy"]),
                   ("mask_u8", [f"data.file={d}/full.npy", f"data.mask={d}/observed_u8.npy"]),
                   ("nan", [f"data.file={d}/gapped.npy"])):
    out = os.path.join(d, "out_" + name)
    p = headless(out, *sets, f"design.file={d}/A.npy", extra=["--no-image"])
    c.check(p.returncode == 0, f"data.mask ({name}): exit 0 ({p.stderr.strip()[-300:]})")
    runs[name] = out if p.returncode == 0 else None
if all(runs.values()):
    for f in ("solution.npy", "residual.npy", "count.npy", "status.npy"):
        a, m8, n = (np.load(os.path.join(runs[k], f)) for k in ("mask", "mask_u8", "nan"))
        c.check(a.tobytes() == n.tobytes() and m8.tobytes() == n.tobytes(),
                f"data.mask: {f} bit-identical to the cube with NaN at the masked entries")
    X, R, C, S, K = lstsq_maps(A, gapped)
    c.check(rel_err(np.load(os.path.join(runs["mask"], "solution.npy")), X) <= 1e-12,
            "data.mask: solution vs numpy lstsq on the observed rows <= 1e-12")
    cnt = np.load(os.path.join(runs["mask"], "count.npy"))
    c.check(bool((cnt == observed.sum(0)).all()), "data.mask: count.npy = the mask's observed rows")
np.save(os.path.join(d, "mask_shape.npy"), observed[:, :, :-1])
np.save(os.path.join(d, "mask_two.npy"), observed.astype(np.int64) * 2)
np.save(os.path.join(d, "mask_float.npy"), observed.astype(np.float64))
for label, f, words in (("mask shape", "mask_shape.npy", ["data.mask", "expected the cube's (M, H, W) = (24, 9, 11)"]),
                        ("mask values", "mask_two.npy", ["data.mask", "neither 0 nor 1"]),
                        ("mask dtype", "mask_float.npy", ["data.mask", "float64", "bool"])):
    p = headless(os.path.join(d, "bad_" + label.replace(" ", "_")), f"data.file={d}/full.npy",
                 f"design.file={d}/A.npy", f"data.mask={d}/{f}", extra=["--no-image"])
    lines = [l for l in p.stderr.strip().splitlines() if l.strip()]
    msg = lines[-1] if lines else ""
    c.check(p.returncode in (1, 2) and all(w in msg for w in words),
            f"{label}: refused in one line naming it: {msg!r}")
p = headless(os.path.join(d, "mask_synth"), "synth.height=6", "synth.width=5",
             f"data.mask={d}/observed.npy", extra=["--no-image"])
c.check(p.returncode == 0 and "data.mask is not used" in p.stderr,
        f"data.mask with a synthetic cube: a warning that it is not used ({p.stderr.strip()[-200:]})")

# ---- 6. bad inputs -----------------------------------------------------------------------------
d = scratch("e2e_lsq_bad")
np.save(os.path.join(d, "cube.npy"), b)
np.save(os.path.join(d, "A.npy"), A)
np.save(os.path.join(d, "A_short.npy"), rng.standard_normal((M - 1, N)))
A_nan = A.copy()
A_nan[3, 2] = np.nan
np.save(os.path.join(d, "A_nan.npy"), A_nan)
A_inf = A.copy()
A_inf[5, 1] = np.inf
np.save(os.path.join(d, "A_inf.npy"), A_inf)
np.save(os.path.join(d, "cube2d.npy"), rng.standard_normal((M, H * W)))
np.save(os.path.join(d, "cube_int.npy"), np.ones((M, H, W), np.int32))
np.save(os.path.join(d, "cube_i8.npy"), np.ones((M, H, W), np.int8))
cases = [
    ("M mismatch", [f"data.file={d}/cube.npy", f"design.file={d}/A_short.npy"], ["M = 24", "23 rows"]),
    ("NaN in A", [f"data.file={d}/cube.npy", f"design.file={d}/A_nan.npy"], ["A[3, 2]", "nan"]),
    ("Inf in A", [f"data.file={d}/cube.npy", f"design.file={d}/A_inf.npy"], ["A[5, 1]", "inf"]),
    ("2-D cube", [f"data.file={d}/cube2d.npy", f"design.file={d}/A.npy"], ["cube2d.npy", "(M, H, W)"]),
    ("int32 cube", [f"data.file={d}/cube_int.npy", f"design.file={d}/A.npy"], ["int32", "float32 or float64"]),
    ("int8 cube", [f"data.file={d}/cube_i8.npy", f"design.file={d}/A.npy"], ["int8"]),
    ("cube without A", [f"data.file={d}/cube.npy"], ["design.file"]),
    ("missing cube", [f"data.file={d}/nope.npy", f"design.file={d}/A.npy"], ["nope.npy"]),
    ("negative lambda", ["lambda=-1"], ["lambda"]),
    ("bad method", ["method=lu"], ["method"]),
]
for label, sets, words in cases:
    out = os.path.join(d, "bad_" + label.replace(" ", "_"))
    os.makedirs(out, exist_ok=True)
    marker = os.path.join(out, "solution.npy")
    with open(marker, "wb") as f:
        f.write(b"earlier result")
    p = headless(out, *sets)
    lines = [l for l in p.stderr.strip().splitlines() if l.strip()]
    msg = lines[-1] if lines else ""
    c.check(p.returncode in (1, 2), f"{label}: simscope's own error status 1 or 2 (got {p.returncode})")
    c.check(all(w.lower() in msg.lower() for w in words), f"{label}: message names the problem: {msg!r}")
    c.check(len([l for l in lines if "error" in l.lower()]) == 1, f"{label}: one error line")
    c.check(sorted(os.listdir(out)) == ["solution.npy"] and open(marker, "rb").read() == b"earlier result",
            f"{label}: no partial outputs")
    fresh = out + "_fresh"
    p2 = headless(fresh, *sets)
    c.check(p2.returncode in (1, 2) and not os.path.exists(fresh), f"{label}: no output directory created")

# One output directory, two workloads in turn: it describes the last run only (the field's .npy
# files that the first run.json listed go; a file of the user's stays).
d = scratch("e2e_lsq_reuse")
user_file = os.path.join(d, "notes.npy")
p = run(simscope, "--headless", "--backend", "cpu", "--out-dir", d, "--set", "grid.size=16")
with open(user_file, "wb") as f:
    f.write(b"mine")
p2 = run(simscope, "--headless", "--backend", "cpu", "--workload", "lsq", "--out-dir", d,
         "--set", "synth.height=8", "--set", "synth.width=8")
listed = {o["file"] for o in json.load(open(os.path.join(d, "run.json")))["outputs"]}
npys = {f for f in os.listdir(d) if f.endswith(".npy")}
c.check(p.returncode == 0 and p2.returncode == 0 and npys == listed | {"notes.npy"},
        f"reused directory holds the lsq outputs and the user's file only: {sorted(npys)}")
c.done()
