"""README.md renders with its pictures in a clone: every image it shows is a file of the
repository and a whole PNG (signature, chunk CRCs, IHDR, the pixel data inflating to the size the
header gives), every relative link names a file or folder of the repository, no link or text
points outside it (../, DESIGN.md: a user's clone has neither), and every #anchor names a heading
(GitHub's rule: lower case, punctuation dropped, spaces to hyphens).
Usage: check_readme_links.py [README.md]"""
import os
import re
import struct
import sys
import zlib

readme = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                         os.path.join(os.path.dirname(__file__), "..", "..", "README.md"))
root = os.path.dirname(readme)
text = open(readme, encoding="utf-8").read()
errors = []
MAX_IMAGE_BYTES = 200_000  # the pictures are for the page: moderate sizes keep the clone small

# Code blocks hold commands and Python, not links; the checks read the prose around them.
prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def slug(heading):
    s = re.sub(r"`", "", heading.strip().lower())
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


anchors = set()
for h in re.findall(r"^#{1,6} +(.+?) *#*$", prose, flags=re.M):
    s, n = slug(h), 0
    while (s if n == 0 else f"{s}-{n}") in anchors:
        n += 1
    anchors.add(s if n == 0 else f"{s}-{n}")


def check_png(path, shown):
    data = open(path, "rb").read()
    if len(data) > MAX_IMAGE_BYTES:
        errors.append(f"{shown}: {len(data)} bytes, above {MAX_IMAGE_BYTES}")
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        errors.append(f"{shown}: not a PNG (no PNG signature)")
        return
    pos, idat, ihdr, end = 8, b"", None, False
    while pos + 12 <= len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        (crc,) = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n] or b"\0\0\0\0")
        if len(body) != n or zlib.crc32(kind + body) != crc:
            errors.append(f"{shown}: chunk {kind!r} at byte {pos} is cut or fails its CRC")
            return
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            end = True
            break
        pos += 12 + n
    if ihdr is None or not end or not idat:
        errors.append(f"{shown}: a PNG without IHDR, IDAT or IEND")
        return
    w, h, depth, colour, _, _, interlace = ihdr
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(colour)
    if not (w and h and channels and depth in (8, 16) and interlace == 0):
        errors.append(f"{shown}: IHDR {ihdr}: expected a non-interlaced 8/16-bit image")
        return
    try:
        raw = zlib.decompress(idat)
    except zlib.error as e:
        errors.append(f"{shown}: the pixel data does not inflate ({e})")
        return
    want = h * (1 + w * channels * depth // 8)
    if len(raw) != want:
        errors.append(f"{shown}: {len(raw)} bytes of pixel data, {want} expected for {w} x {h}")


def check_target(target, image):
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, flags=re.I):  # https:, mailto:
        if image:
            errors.append(f"image {target}: a URL; the README's pictures are files of the repository")
        return
    path, _, fragment = target.partition("#")
    if not path:
        if fragment not in anchors:
            errors.append(f"link #{fragment}: no heading has this anchor")
        return
    full = os.path.normpath(os.path.join(root, path))
    if os.path.isabs(path) or os.path.relpath(full, root).startswith(".."):
        errors.append(f"link {target}: outside the repository")
        return
    if not os.path.exists(full):
        errors.append(f"link {target}: no such file in the repository")
    elif image:
        if not path.lower().endswith(".png"):
            errors.append(f"image {target}: expected a .png")
        else:
            check_png(full, f"image {target}")


images = re.findall(r"!\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", prose)
images += re.findall(r"<img\b[^>]*\bsrc=\"([^\"]+)\"", prose)
links = re.findall(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", prose)
links += re.findall(r"<a\b[^>]*\bhref=\"([^\"]+)\"", prose)
for target in images:
    check_target(target, True)
for target in links:
    check_target(target, False)
if not images:
    errors.append("README.md shows no picture")
# Outside references in words: a path climbing out of the checkout, or the design notes that
# live outside the repository.
for pattern, what in ((r"(?<![\w.])\.\./", "a path outside the repository (../)"),
                      (r"\bDESIGN\.md\b", "DESIGN.md, which is not in the repository")):
    for m in re.finditer(pattern, text):
        line = text.count("\n", 0, m.start()) + 1
        errors.append(f"README.md:{line}: {what}")

for e in errors:
    print(f"README.md: {e}" if not e.startswith("README.md") else e)
if errors:
    sys.exit(1)
print(f"README.md: {len(images)} pictures (whole PNGs), {len(links)} links and "
      f"{len(anchors)} headings checked; nothing points outside the repository")
