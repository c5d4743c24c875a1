"""bench/view's measurements (run by bench/view, which builds the release binary)."""

import json
import os
import pathlib
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from playwright.sync_api import sync_playwright

GALLERY = os.environ["GALLERY"]
RUNS = int(os.environ.get("RUNS", "7"))
EDITS = int(os.environ.get("EDITS", "40"))
out = pathlib.Path(sys.argv[1])
os.environ["XDG_STATE_HOME"] = str(out / "state")  # the recent list of this run only


def run(*args, input=None):
    return subprocess.run([GALLERY, *map(str, args)], input=input, capture_output=True, check=True).stdout


def say(text):
    print(text, file=sys.stderr, flush=True)


def serve(*paths):
    process = subprocess.Popen([GALLERY, "serve", *map(str, paths)], stdout=subprocess.PIPE)
    select.select([process.stdout], [], [], 60)
    url = process.stdout.readline().decode().strip()
    return process, url


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def gallery_of_ten_thousand(target, seeds_folder, id_prefix):
    """A 10,000-item gallery at `target` made of the images in `seeds_folder`, repeated: one
    drop of each image, then a drag payload of 10,000 items naming them under new ids."""
    seeds = target.with_suffix(".seeds.gallery")
    if seeds.exists():
        seeds.unlink()
    run("new", seeds)
    run("drop", seeds, *sorted(seeds_folder.iterdir()))
    seed_ids = [item["id"] for item in json.loads(run("show", "--json", seeds))["items"]]
    payload = json.loads(run("drag", "--type", "gallery", seeds, *seed_ids))
    alphabet = "abcdefghjkmnpqrstuvwxyz23456789"
    entries = payload["items"]
    payload["items"] = [dict(entries[n % len(entries)], item=dict(entries[n % len(entries)]["item"],
                        id=id_prefix + "".join(alphabet[(n // 31 ** k) % 31] for k in range(4)))) for n in range(10000)]
    run("new", target)
    run("drop", target, "-", input=json.dumps(payload).encode())
    seeds.unlink()


# --- A 10,000-item gallery: photo-like images, each thumbnail its own entry -----------------
big = out / "ten-thousand.gallery"
if not big.exists():
    say("making a 10,000-item gallery...")
    work = pathlib.Path(tempfile.mkdtemp())
    seeds = work / "seeds"
    seeds.mkdir()
    for n in range(20):
        subprocess.run(["vips", "gaussnoise", seeds / f"{n}.jpg", str(400 + 37 * n), str(300 + 23 * (n % 7)),
                        "--mean", str(60 + 8 * n), "--sigma", "40"], check=True)
    gallery_of_ten_thousand(big, seeds, "b")
    shutil.rmtree(work)

results = []
server, url = serve(big)
base = url.split("/d/")[0]
token = url.split("token=")[1]
doc = url.split("/d/")[1].split("?")[0]
try:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/lib/chromium/chromium")
        # --- 1. First tiles and a full first screen ------------------------------------------
        first, full = [], []
        browser.new_context().close()  # chromium warmed up once, outside the timing
        for _ in range(RUNS):
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            page = context.new_page()
            page.goto(url, wait_until="commit")
            page.wait_for_function("() => [...document.querySelectorAll('img.tile')].some((t) => t.complete && t.naturalWidth > 0)",
                                   polling="raf", timeout=60000)
            first.append(page.evaluate("() => performance.now()"))
            page.wait_for_function(
                """() => {
                    const main = document.getElementById('main');
                    const tiles = [...document.querySelectorAll('img.tile')].filter((t) => {
                        const r = t.getBoundingClientRect();
                        return r.bottom > 0 && r.top < main.clientHeight + main.getBoundingClientRect().top;
                    });
                    return tiles.length > 0 && tiles.every((t) => t.complete && t.naturalWidth > 0);
                }""", polling="raf", timeout=60000)
            full.append(page.evaluate("() => performance.now()"))
            tiles = page.locator("img.tile").count()
            context.close()
        results.append(("10,000 items: first tiles (cold)", f"{statistics.median(first):.0f} ms", "target 1000 ms",
                        f"{statistics.median(first) / 1000:.2f}x", f"{RUNS} loads, {tiles} tiles in the DOM"))
        results.append(("10,000 items: first screen laid out and decoded", f"{statistics.median(full):.0f} ms", "target 1000 ms",
                        f"{statistics.median(full) / 1000:.2f}x", f"min {min(full):.0f}, max {max(full):.0f} ms"))

        # --- 3. CLI edit to page ---------------------------------------------------------------
        small = out / "live.gallery"
        if small.exists():
            small.unlink()
        run("new", small)
        ids = [item["id"] for item in json.loads(run("show", "--json", big))["items"][:3]]
        run("drop", small, "-", input=run("drag", "--type", "gallery", big, *ids))
        live_server, live_url = serve(small)
        try:
            context = browser.new_context()
            pages = [context.new_page() for _ in range(2)]
            for page in pages:
                page.goto(live_url)
                page.wait_for_function("() => document.querySelectorAll('img.tile').length === 3")
                # The moment the first tile changes, in the epoch's milliseconds.
                page.evaluate("""() => {
                    window.changes = [];
                    let first = null;
                    new MutationObserver(() => {
                        const tiles = [...document.querySelectorAll('img.tile')].sort((a, b) => a.dataset.index - b.dataset.index);
                        const now = tiles[0]?.dataset.id;
                        if (now && now !== first) { first = now; window.changes.push([now, performance.timeOrigin + performance.now()]); }
                    }).observe(document.getElementById('grid'), { subtree: true, attributes: true, childList: true });
                }""")
            delays, commands = [], []
            for n in range(EDITS):
                order = [item["id"] for item in json.loads(run("show", "--json", small))["items"]]
                moving = order[-1]
                start = time.time()
                run("move", small, moving, "--to", "1")
                saved = time.time()
                commands.append((saved - start) * 1000)
                for page in pages:
                    page.wait_for_function("id => window.changes.some(([first]) => first === id)", arg=moving, timeout=10000)
                    shown = page.evaluate("id => window.changes.filter(([first]) => first === id).pop()[1]", moving)
                    # From the command's start: its own run (start-up, lock, fsync) included.
                    delays.append(shown - start * 1000)
                time.sleep(0.05)
            context.close()
        finally:
            live_server.terminate()
            live_server.wait()
        results.append(("`gallery move` started -> both pages show it, p50", f"{percentile(delays, 50):.0f} ms", "target 300 ms",
                        f"{percentile(delays, 50) / 300:.2f}x", f"{EDITS} edits x 2 pages; `gallery move` alone takes {statistics.median(commands):.0f} ms"))
        results.append(("`gallery move` started -> both pages show it, p95", f"{percentile(delays, 95):.0f} ms", "target 300 ms",
                        f"{percentile(delays, 95) / 300:.2f}x", f"max {max(delays):.0f} ms"))
        browser.close()

    # --- 2. Thumbnails per second: gallery serve vs python3 -m http.server ---------------------
    items = json.loads(run("show", "--json", big))["items"][:2000]
    paths = [f"/api/documents/{doc}/thumbnails/{item['id']}?v={item['hash'][7:31]}" for item in items]
    static = out / "static"
    if static.exists():
        shutil.rmtree(static)
    static.mkdir()
    subprocess.run(["bsdtar", "-xf", str(big), "-C", str(static), *[item["thumbnail"] for item in items]], check=True)
    static_paths = ["/" + item["thumbnail"] for item in items]

    def wrk(target, url_paths, headers=()):
        script = out / "paths.lua"
        script.write_text("paths = {" + ",".join(json.dumps(p) for p in url_paths) + "}\nn = 0\n"
                          "request = function() n = n % #paths + 1; return wrk.format('GET', paths[n]) end\n")
        args = ["wrk", "-t2", "-c16", "-d8s", "-s", str(script)]
        for header in headers:
            args += ["-H", header]
        text = subprocess.run(args + [target], capture_output=True, text=True, check=True).stdout
        line = next(l for l in text.splitlines() if l.startswith("Requests/sec"))
        if "Non-2xx" in text:
            raise SystemExit("wrk saw errors:\n" + text)
        return float(line.split()[1])

    http_server = subprocess.Popen([sys.executable, "-u", "-m", "http.server", "--bind", "127.0.0.1", "0"], cwd=static,
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    select.select([http_server.stdout], [], [], 30)
    port = http_server.stdout.readline().decode().split("port ")[1].split()[0]
    ours, theirs = [], []
    try:
        for _ in range(3):
            ours.append(wrk(base, paths, [f"Authorization: Bearer {token}"]))
            theirs.append(wrk(f"http://127.0.0.1:{port}", static_paths))
    finally:
        http_server.terminate()
    results.append(("thumbnails served per second", f"{statistics.median(ours):.0f}/s",
                    f"python3 -m http.server {statistics.median(theirs):.0f}/s",
                    f"{statistics.median(ours) / statistics.median(theirs):.2f}x", "wrk -t2 -c16 -d8s, 2,000 thumbnails, median of 3"))
finally:
    server.terminate()
    server.wait()

# --- 4. A sharp first screen at device pixel ratio 2, and the preview cache -----------------
# A 10,000-item gallery of real photos whose originals can be read: 400 different crops of
# mate-backgrounds' photos (each its own content, so its own preview), repeated. Served with
# an empty preview cache: the time until every tile on the first screen is drawn from at
# least as many pixels as it covers, cold then warm; then ten screens scrolled, and what
# the preview cache made, served and holds.
photos = sorted(pathlib.Path("/usr/share/backgrounds/mate/nature").glob("*.jpg"))
sharp = out / "sharp-ten-thousand.gallery"
if not sharp.exists():
    say("making a 10,000-item gallery of 400 real photos...")
    crops = out / "crops"
    shutil.rmtree(crops, ignore_errors=True)
    crops.mkdir()
    for n in range(400):
        photo = photos[n % len(photos)]
        width, height = (int(subprocess.run(["vipsheader", "-f", field, str(photo)], capture_output=True, text=True,
                                            check=True).stdout) for field in ("width", "height"))
        w, h = width * 4 // 5, height * 4 // 5
        x, y = (n * 37) % (width - w), (n * 23) % (height - h)
        subprocess.run(["vips", "crop", str(photo), str(crops / f"{n:03d}.jpg[Q=90]"), str(x), str(y), str(w), str(h)],
                       check=True)
    gallery_of_ten_thousand(sharp, crops, "s")
cache = out / "preview-cache"
shutil.rmtree(cache, ignore_errors=True)
os.environ["XDG_CACHE_HOME"] = str(cache)
dims = {item["id"]: (item["width"], item["height"]) for item in json.loads(run("show", "--json", sharp))["items"]}
server, url = serve(sharp)
SHARP = """() => {
    const dims = window.itemSizes;
    const main = document.getElementById('main');
    const bottom = main.clientHeight + main.getBoundingClientRect().top;
    const tiles = [...document.querySelectorAll('img.tile')].filter((t) => {
        const r = t.getBoundingClientRect();
        return r.bottom > 0 && r.top < bottom;
    });
    return tiles.length > 0 && tiles.every((t) => {
        if (!t.complete || !t.naturalWidth || !t.currentSrc) return false;
        const [width, height] = dims[t.dataset.id];
        const r = t.getBoundingClientRect();
        const needed = Math.min(width, Math.max(r.width, r.height * width / height) * devicePixelRatio);
        // The candidate the browser took says its width (w descriptors); the thumbnail's is 256 at most.
        const candidate = (t.srcset.split(', ').find((c) => c.startsWith(t.currentSrc.replace(location.origin, ''))) || '');
        const given = Number((candidate.match(/ ([0-9]+)w$/) || [0, 0])[1]);
        return given >= needed - 2;
    });
}"""
try:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/lib/chromium/chromium")
        browser.new_context().close()
        times = {}
        previews = lambda: list((cache / "gallery" / "previews").glob("*"))
        # The items' sizes, known to the page before it loads (passing them at every poll
        # would cost more than what is measured).
        sizes = ("window.itemSizes = " + json.dumps({k: list(v) for k, v in dims.items()}) + ";"
                 "performance.setResourceTimingBufferSize(1000000);")
        for label in ("cold", "warm"):
            context = browser.new_context(viewport={"width": 1280, "height": 800}, device_scale_factor=2)
            context.add_init_script(sizes)
            page = context.new_page()
            before = len(previews())
            page.goto(url, wait_until="commit")
            page.wait_for_function(SHARP, polling=20, timeout=120000)
            times[label] = page.evaluate("() => performance.now()")
            if label == "warm":
                # Ten screens down, each waited for until sharp.
                for _ in range(10):
                    page.evaluate("() => { const m = document.getElementById('main'); m.scrollTop += m.clientHeight; }")
                    page.wait_for_function(SHARP, polling=20, timeout=120000)
                requested = page.evaluate("() => performance.getEntriesByType('resource').filter((e) => e.name.includes('/previews/')).length")
                hits = requested - (len(previews()) - before)
            context.close()
        files = previews()
        made = len(files)
        held = sum(f.stat().st_size for f in files)
        results.append(("10,000 real photos, DPR 2: first screen sharp, cold", f"{times['cold']:.0f} ms", "target 1500 ms",
                        f"{times['cold'] / 1500:.2f}x", "previews made from the originals on first view"))
        results.append(("10,000 real photos, DPR 2: first screen sharp, warm", f"{times['warm']:.0f} ms", "target 1500 ms",
                        f"{times['warm'] / 1500:.2f}x", "a new page, previews from the cache"))
        results.append(("preview cache after ten screens", f"{made} previews, {held / 1e6:.1f} MB", "",
                        "", f"the warm page: {requested} preview requests, {hits} answered from the cache "
                        f"({100 * hits / max(1, requested):.0f}%: its first screen, which the cold page had made)"))
        browser.close()
finally:
    server.terminate()
    server.wait()

head = ("benchmark", "gallery", "compared with", "ratio", "notes")
widths = [max(len(str(row[i])) for row in results + [head]) for i in range(5)]
line = lambda row: "| " + " | ".join(str(c).ljust(w) for c, w in zip(row, widths)) + " |"
print(line(head))
print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
for row in results:
    print(line(row))
