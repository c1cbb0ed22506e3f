"""README.md and the pages of docs/ render with their pictures and links, in a clone and installed:
every image is a file of the repository and a whole PNG (signature, chunk CRCs, IHDR, the pixel
data inflating to the size the header gives); every relative link names a file or folder that
is installed with the documentation (README.md, docs/, resources/screenshots/: what
cmake/SimscopeInstall.cmake puts in share/doc/simscope/, so the links resolve there too); every
#anchor names a heading of the page it points into (GitHub's rule: lower case, punctuation
dropped, spaces to hyphens); every page of docs/ is reachable from README.md; README.md stays
short (at most README_MAX_BYTES) and no text of it points outside the repository (../,
DESIGN.md: a user's clone has neither).
Usage: check_readme_links.py [README.md]"""
import os
import re
import struct
import sys
import zlib

readme = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                         os.path.join(os.path.dirname(__file__), "..", "..", "README.md"))
root = os.path.dirname(readme)
errors = []
MAX_IMAGE_BYTES = 200_000  # the pictures are for the page: moderate sizes keep the clone small
README_MAX_BYTES = 15_000  # what it is, pictures, two commands, first runs, install, links
INSTALLED = ("README.md", "docs" + os.sep, os.path.join("resources", "screenshots") + os.sep)


def slug(heading):
    s = re.sub(r"`", "", heading.strip().lower())
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def prose_of(text):
    # Code blocks hold commands and Python, not links; the checks read the prose around them.
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


_anchors = {}


def anchors_of(path):
    if path not in _anchors:
        found = set()
        prose = prose_of(open(path, encoding="utf-8").read())
        for h in re.findall(r"^#{1,6} +(.+?) *#*$", prose, flags=re.M):
            s, n = slug(h), 0
            while (s if n == 0 else f"{s}-{n}") in found:
                n += 1
            found.add(s if n == 0 else f"{s}-{n}")
        _anchors[path] = found
    return _anchors[path]


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


def check_page(page, linked):
    """Checks one page's images and links; adds the .md pages it links to `linked`."""
    shown_page = os.path.relpath(page, root)
    prose = prose_of(open(page, encoding="utf-8").read())
    images = re.findall(r"!\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", prose)
    images += re.findall(r"<img\b[^>]*\bsrc=\"([^\"]+)\"", prose)
    links = re.findall(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", prose)
    links += re.findall(r"<a\b[^>]*\bhref=\"([^\"]+)\"", prose)
    for target, image in [(t, True) for t in images] + [(t, False) for t in links]:
        where = f"{shown_page}: {'image' if image else 'link'} {target}"
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, flags=re.I):  # https:, mailto:
            if image:
                errors.append(f"{where}: a URL; the pictures are files of the repository")
            continue
        path, _, fragment = target.partition("#")
        full = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        inside = os.path.relpath(full, root)
        if os.path.isabs(path) or inside.startswith(".."):
            errors.append(f"{where}: outside the repository")
            continue
        if not os.path.exists(full):
            errors.append(f"{where}: no such file in the repository")
            continue
        if not (inside == "README.md" or (inside + os.sep).startswith(INSTALLED[1:]) or
                inside + os.sep in INSTALLED[1:]):
            errors.append(f"{where}: {inside} is not installed with the documentation "
                          "(README.md, docs/, resources/screenshots/): the installed copy "
                          "would not resolve it; write the path as code instead")
        if fragment and full.endswith(".md") and fragment not in anchors_of(full):
            errors.append(f"{where}: no heading of {inside} has the anchor #{fragment}")
        if image:
            if not path.lower().endswith(".png"):
                errors.append(f"{where}: expected a .png")
            else:
                check_png(full, where)
        elif full.endswith(".md"):
            linked.add(full)
    return len(images), len(links)


size = os.path.getsize(readme)
if size > README_MAX_BYTES:
    errors.append(f"README.md: {size} bytes, above {README_MAX_BYTES}: move the detail into docs/")
pages = [readme] + sorted(
    os.path.join(d, f) for d, _, fs in os.walk(os.path.join(root, "docs")) for f in fs
    if f.endswith(".md"))
n_images = n_links = 0
reached, seen, todo = set(), set(), [readme]
while todo:  # every page reachable from README.md, each checked once
    page = todo.pop()
    if page in seen:
        continue
    seen.add(page)
    linked = set()
    i, l = check_page(page, linked)
    n_images, n_links = n_images + i, n_links + l
    todo += sorted(linked - seen)
for page in pages:
    if page not in seen:
        errors.append(f"{os.path.relpath(page, root)}: no page links to it (from README.md on)")
        check_page(page, set())
if n_images == 0 or not re.search(r"!\[", prose_of(open(readme, encoding="utf-8").read())):
    errors.append("README.md shows no picture")
# Outside references in README's words: a path climbing out of the checkout, or the design notes
# that live outside the repository.
text = open(readme, encoding="utf-8").read()
for pattern, what in ((r"(?<![\w.])\.\./", "a path outside the repository (../)"),
                      (r"\bDESIGN\.md\b", "DESIGN.md, which is not in the repository")):
    for page in pages:
        body = open(page, encoding="utf-8").read()
        if page != readme:  # the pages link up to README.md with ../; their words must not
            body = prose_of(body)
            body = re.sub(r"\]\([^)]*\)", "]()", body)
            if pattern.startswith("(?<!"):
                continue
        for m in re.finditer(pattern, body):
            line = body.count("\n", 0, m.start()) + 1
            errors.append(f"{os.path.relpath(page, root)}:{line}: {what}")

for e in errors:
    print(e)
if errors:
    sys.exit(1)
print(f"README.md ({size} bytes) and {len(pages) - 1} pages of docs/: {n_images} pictures "
      f"(whole PNGs) and {n_links} links checked, every page reachable from README.md; nothing "
      "points outside what is installed")
