"""CLI writers beside the view server's own edits and reads: every edit that exits 0 (or that
the server answers 200) is in the document's history. No browser: the page's API, as the
page calls it, with the bearer token."""

import json
import subprocess
import threading
import time

from conftest import GALLERY, document_id, make_image, new_document, run, server_request, wait_until


def revision(document):
    return json.loads(run("info", "--json", document).stdout)["revision"]


def test_cli_moves_and_drops_beside_page_moves_lose_nothing(workspace, images, serve):
    document = new_document(workspace, "Shared.gallery", images)
    server = serve(document)
    doc = document_id(server, document)
    start = revision(document)
    stop = time.monotonic() + 12
    counts = {"cli": 0, "cli_drops": 0, "page": 0, "reads": 0}
    failures = []
    dropped = []

    def cli_moves():
        while time.monotonic() < stop:
            result = subprocess.run([GALLERY, "move", str(document), "1", "--to", "end"], capture_output=True)
            if result.returncode == 0:
                counts["cli"] += 1
            else:
                failures.append(("cli move", result.returncode, result.stderr.decode(errors="replace")))

    def cli_drops():
        # Each drop saves placeholders and then commits (or commits in one save what loaded
        # while another writer held the document): saves that must all stay.
        for image in images[:4]:
            if time.monotonic() >= stop:
                break
            result = subprocess.run([GALLERY, "drop", "--json", str(document), str(image)], capture_output=True)
            if result.returncode == 0:
                counts["cli_drops"] += 1
                dropped.extend(item["id"] for item in json.loads(result.stdout))
            else:
                failures.append(("cli drop", result.returncode, result.stderr.decode(errors="replace")))

    def page_edits():
        # The page trashes and restores one item in turn: each request surely changes the
        # document (a page move could find its items already in place after the CLI's).
        item = json.loads(server_request(server, "GET", f"/api/documents/{doc}")[1])["items"][-1]["id"]
        action = "trash"
        while time.monotonic() < stop:
            body = json.dumps({"ids": [item]})
            response, data = server_request(
                server, "POST", f"/api/documents/{doc}/{action}", body=body,
                headers={"Content-Type": "application/json"})
            if response.status == 200:
                counts["page"] += 1
                action = "restore" if action == "trash" else "trash"
            else:
                failures.append(("page " + action, response.status, data.decode(errors="replace")))

    def page_reads():
        while time.monotonic() < stop:
            server_request(server, "GET", f"/api/documents/{doc}")
            counts["reads"] += 1

    threads = [threading.Thread(target=f) for f in (cli_moves, cli_moves, cli_drops, page_edits, page_reads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert not failures, failures
    assert counts["cli"] > 20 and counts["page"] > 20, counts
    history = json.loads(run("history", "--json", "--limit", "100000", document).stdout)
    # One line per operation: a drop's placeholder save and commit are one.
    lines = [line for line in history if line["first"] > start]
    assert len(lines) == counts["cli"] + counts["page"] + counts["cli_drops"]
    # A drop of one image is two saves (placeholders, then the commit), or one when the
    # image loaded before the document was open (another writer held it): its line then
    # starts where it ends. Other edits may come between the two saves.
    drop_saves = [1 if line["first"] == line["revision"] else 2 for line in lines if line["summary"].startswith("drop:")]
    assert len(drop_saves) == counts["cli_drops"], lines
    expected = start + counts["cli"] + counts["page"] + sum(drop_saves)
    assert revision(document) == expected, counts
    listing = show(document)
    by_id = {item["id"]: item for item in listing["items"]}
    for id in dropped:
        assert by_id[id]["state"] == "ready", by_id[id]
    run("check", document)


def show(document):
    return json.loads(run("show", "--json", document).stdout)


def test_a_shutdown_during_page_retries_and_drops_never_takes_an_item_away(workspace, images, serve, image_server):
    """SIGTERM or SIGINT while the server loads a retried item (a download it is waiting
    for) or a page's drop: every item is as it was (failed, stale) or as loaded, never gone."""
    import random
    import signal

    make_image(image_server.folder / "late.jpg", 300, 300)
    document = new_document(workspace, "Retried.gallery", images[:2])
    # A failed item: its download 404s, kept as failed.
    run("drop", "--keep-failed", document, f"{image_server.base}/missing.jpg", check=False)
    (image_server.folder / "late.jpg").rename(image_server.folder / "missing.jpg")
    failed = [item["id"] for item in show(document)["items"] if item["state"] == "failed"]
    assert len(failed) == 1
    rounds = random.Random(7)
    for round, sig in enumerate([signal.SIGTERM, signal.SIGINT, signal.SIGTERM, signal.SIGINT]):
        before = {item["id"] for item in show(document)["items"]}
        image_server.hold.set()
        server = serve(document)
        doc = document_id(server, document)
        headers = {"Content-Type": "application/json"}
        ids = [item["id"] for item in show(document)["items"] if item["state"] != "ready"]
        response, _ = server_request(server, "POST", f"/api/documents/{doc}/retry", json.dumps({"ids": ids}), headers)
        assert response.status == 202
        response, _ = server_request(
            server, "POST", f"/api/documents/{doc}/drop", json.dumps({"uris": [f"{image_server.base}/missing.jpg"]}),
            headers)
        assert response.status in (200, 202), response.status
        # The retry's placeholder is saved, then the download waits; sometimes it is let go.
        wait_until(lambda: any(item["state"] == "placeholder" for item in show(document)["items"]))
        if round % 2:
            image_server.hold.clear()
        time.sleep(rounds.uniform(0, 0.3))
        server.process.send_signal(sig)
        assert server.process.wait(30) == 0, server.process.stderr.read().decode(errors="replace")
        image_server.hold.clear()
        after = show(document)["items"]
        assert before <= {item["id"] for item in after}, f"round {round}: an item was taken away"
        for item in after:
            assert item["state"] in ("ready", "failed") or item["display"] == "stale", item
        run("check", "--fix", document, check=False)
