"""Fixtures of the browser tests: the real `gallery` binary, documents made with it from
images that libvips makes at test time, a real server (`gallery serve`) on 127.0.0.1, and
Debian's chromium driven by Playwright."""

import http.server
import json
import os
import pathlib
import select
import shutil
import subprocess
import threading
import time

import pytest
from playwright.sync_api import sync_playwright

ROOT = pathlib.Path(__file__).resolve().parents[2]
GALLERY = os.environ.get("GALLERY") or str(ROOT / ".build" / "debug" / "gallery")
CHROMIUM = os.environ.get("CHROMIUM") or "/usr/lib/chromium/chromium"


def run(*args, input=None, env=None, check=True, timeout=120):
    """Runs gallery (or a program) and returns its completed process."""
    command = [GALLERY, *map(str, args)] if not str(args[0]).startswith("/") else list(map(str, args))
    result = subprocess.run(command, input=input, capture_output=True, env=env, timeout=timeout)
    if check and result.returncode != 0:
        raise AssertionError(f"{command} exited {result.returncode}: {result.stderr.decode(errors='replace')}")
    return result


def show(document):
    """The document as `gallery show --json` reads it."""
    return json.loads(run("show", "--json", document).stdout)


def trash_ids(document):
    """The ids in the document's trash, as `gallery trash --list --json` reads them."""
    return [entry["item"]["id"] for entry in json.loads(run("trash", "--list", "--json", document).stdout)]


def item_ids(document):
    return [item["id"] for item in show(document)["items"]]


def make_image(path, width=320, height=200, mean=128):
    """A real image, made by libvips (each call's noise differs, so hashes differ)."""
    subprocess.run(
        ["vips", "gaussnoise", str(path), str(width), str(height), "--mean", str(mean), "--sigma", "50"],
        check=True, timeout=60)
    return pathlib.Path(path)


def wait_until(predicate, timeout=20, interval=0.05, message="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {message}")


class Server:
    """`gallery serve` in the foreground, as a user or a unit runs it."""

    def __init__(self, *paths, env=None, extra=()):
        self.process = subprocess.Popen(
            [GALLERY, "serve", *map(str, paths), *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        ready, _, _ = select.select([self.process.stdout], [], [], 60)
        if not ready:
            self.process.kill()
            raise AssertionError("gallery serve did not announce its address within 60 s")
        self.url = self.process.stdout.readline().decode().strip()
        if not self.url.startswith("http://"):
            self.process.kill()
            raise AssertionError(f"gallery serve said {self.url!r}: {self.process.stderr.read().decode()}")
        self.base = self.url.split("/", 3)
        self.base = "/".join(self.base[:3])
        self.token = self.url.split("token=", 1)[1]
        self.host = self.base.split("//", 1)[1]

    def page_url(self, document_id=None):
        return f"{self.base}/d/{document_id}?token={self.token}" if document_id else f"{self.base}/?token={self.token}"

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        return self.process.returncode


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    """A folder of its own, with its own XDG folders so no test sees another's recent documents."""
    for name in ["XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_RUNTIME_DIR"]:
        folder = tmp_path / "xdg" / name.lower()
        folder.mkdir(parents=True, mode=0o700)
        monkeypatch.setenv(name, str(folder))
    return tmp_path


@pytest.fixture
def images(workspace):
    folder = workspace / "images"
    folder.mkdir()
    return [make_image(folder / f"image-{n}.jpg", 320 + 40 * n, 200, 60 + 30 * n) for n in range(6)]


def new_document(folder, name, sources=(), title=None):
    path = pathlib.Path(folder) / name
    run("new", path, *(["--title", title] if title else []))
    if sources:
        run("drop", path, *sources)
    return path


@pytest.fixture
def serve():
    servers = []

    def start(*paths, **options):
        server = Server(*paths, **options)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        yield browser
        browser.close()


@pytest.fixture
def context(browser):
    context = browser.new_context(viewport={"width": 1100, "height": 760})
    yield context
    context.close()


class PageErrors:
    def __init__(self, page):
        self.errors = []
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("dialog", lambda dialog: (self.errors.append(f"dialog: {dialog.message}"), dialog.dismiss()))


def open_page(context, server, document_id=None):
    page = context.new_page()
    page.errors = PageErrors(page).errors
    page.goto(server.page_url(document_id))
    return page


def document_id(server, path):
    """The id the server gave a document, from its list (as the page finds it)."""
    request = server_request(server, "GET", "/api/documents")
    for document in json.loads(request[1])["documents"]:
        if document["folder"] + "/" + document["name"] == str(path):
            return document["id"]
    raise AssertionError(f"{path} is not listed")


def server_request(server, method, path, body=None, headers=None, bearer=True):
    """One raw request, with full control of Host, Origin and cookies (http.client)."""
    import http.client

    connection = http.client.HTTPConnection(server.host, timeout=30)
    all_headers = {"Host": server.host}
    if bearer:
        all_headers["Authorization"] = "Bearer " + server.token
    all_headers.update(headers or {})
    connection.request(method, path, body=body, headers=all_headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response, data


def tile_ids(page):
    """The items on the page, in the order the page lays them out."""
    return page.evaluate(
        """() => [...document.querySelectorAll('.tile')]
              .sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index))
              .map((tile) => tile.dataset.id)""")


@pytest.fixture
def image_server(workspace):
    """A real HTTP server on 127.0.0.1 serving a folder of images."""
    folder = workspace / "web"
    folder.mkdir()
    hold = threading.Event()

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(folder), **kwargs)

        def do_GET(self):
            # While `hold` is set, answers wait: a download that never ends.
            while hold.is_set():
                time.sleep(0.05)
            try:
                super().do_GET()
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    server.folder = folder
    server.hold = hold
    server.base = f"http://127.0.0.1:{server.server_address[1]}"
    yield server
    hold.clear()
    server.shutdown()
    server.server_close()
