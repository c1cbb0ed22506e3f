"""The installed README renders with its pictures and links: every image it shows (Markdown
![alt](path), ![alt][ref] with its [ref]: path line, and HTML <img src="path">, outside code
blocks) names a relative path that resolves, from the installed README's folder, to a whole PNG
or an SVG file inside ROOT (the install prefix, or the unpacked .deb); every relative link
resolves to an installed file inside ROOT, and the .md pages it links to (docs/) are checked the
same way in turn. One line per broken link; exit 1.
Usage: check_doc_images.py INSTALLED_README ROOT"""
import os
import re
import sys

if len(sys.argv) != 3:
    sys.exit("usage: check_doc_images.py INSTALLED_README ROOT")
readme, root = (os.path.realpath(a) for a in sys.argv[1:])
if not os.path.isfile(readme):
    sys.exit(f"FAIL: no installed README at {readme}")
errors = []
n_images = n_links = 0


def check_page(page, queue):
    global n_images, n_links
    text = open(page, encoding="utf-8").read()
    prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    refs = dict(re.findall(r"^ {0,3}\[([^\]]+)\]: *<?([^\s>]+)>?", prose, flags=re.M))

    targets = []
    inline = re.findall(r"!\[(?:[^\]\\]|\\.)*\]\(\s*<?([^\s)>]+)>?(?:\s+\"[^\"]*\")?\s*\)", prose)
    targets += inline
    for ref in re.findall(r"!\[(?:[^\]\\]|\\.)*\]\[([^\]]*)\]", prose):
        targets.append(refs.get(ref, f"(undefined reference [{ref}])"))
    targets += re.findall(r"<img\b[^>]*\bsrc=[\"']([^\"']+)[\"']", prose, flags=re.I)

    # Every "![" of the prose was read as an image (a form the patterns above miss fails here).
    shown = prose.count("![")
    if shown != len(targets) - len(re.findall(r"<img\b", prose, flags=re.I)):
        errors.append(f"{shown} '![' in the README but {len(targets)} image links read")
    if not targets and page == readme:
        errors.append("the installed README shows no image (expected the screenshots)")
    for t in targets:
        if re.match(r"^[a-z][a-z0-9+.-]*:", t, flags=re.I) or t.startswith("/"):
            errors.append(f"{t}: not a relative path (an installed README cannot show it offline)")
            continue
        path = os.path.realpath(os.path.join(os.path.dirname(page), t.split("#")[0]))
        if os.path.commonpath([path, root]) != root:
            errors.append(f"{t}: resolves to {path}, outside {root}")
        elif not os.path.isfile(path):
            errors.append(f"{t}: no installed file {path}")
        else:
            head = open(path, "rb").read(8)
            if t.endswith(".png") and head != b"\x89PNG\r\n\x1a\n":
                errors.append(f"{t}: {path} is not a PNG")
            elif t.endswith(".svg") and b"<svg" not in open(path, "rb").read(4096):
                errors.append(f"{t}: {path} is not an SVG")
    n_images += len(targets)
    links = re.findall(r"(?<!!)\[(?:[^\]\\]|\\.)*\]\(\s*<?([^\s)>]+)>?(?:\s+\"[^\"]*\")?\s*\)", prose)
    n_links += len(links)
    for t in links:
        if re.match(r"^[a-z][a-z0-9+.-]*:", t, flags=re.I) or t.startswith("#"):
            continue
        path = os.path.realpath(os.path.join(os.path.dirname(page), t.split("#")[0]))
        if os.path.commonpath([path, root]) != root or not os.path.exists(path):
            errors.append(f"{os.path.relpath(page, root)}: link {t}: no installed file {path}")
        elif path.endswith(".md"):
            queue.append(path)


queue, seen = [readme], set()
while queue:
    page = queue.pop()
    if page not in seen:
        seen.add(page)
        check_page(page, queue)
for e in errors:
    print("FAIL: installed documentation:", e)
if errors:
    sys.exit(1)
print(f"ok: the installed README and its {len(seen) - 1} linked pages: {n_images} images and "
      f"{n_links} links resolve under {root}")
