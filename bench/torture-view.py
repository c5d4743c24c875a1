#!/usr/bin/env python3
"""Part of bench/torture: CLI writers beside the view server's own edits and reads, for
VIEW_SECONDS. Every CLI move that exited 0 and every page edit answered 200 must be a
revision of the document; prints what was lost and exits 1 if anything was.

    bench/torture-view.py GALLERY WORKDIR IMAGE..."""

import http.client
import json
import os
import subprocess
import sys
import threading
import time

gallery, work, images = sys.argv[1], sys.argv[2], sys.argv[3:]
seconds = float(os.environ.get("VIEW_SECONDS", "60"))
document = os.path.join(work, "view.gallery")
if not os.path.exists(document):  # bench/torture may have grown it already
    subprocess.run([gallery, "new", document], check=True, capture_output=True)
subprocess.run([gallery, "drop", document, *images[:6]], check=True, capture_output=True)
server = subprocess.Popen([gallery, "serve", document], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
url = server.stdout.readline().decode().strip()
host = url.split("//", 1)[1].split("/", 1)[0]
token = url.split("token=", 1)[1]


def request(method, path, body=None):
    connection = http.client.HTTPConnection(host, timeout=30)
    headers = {"Host": host, "Authorization": "Bearer " + token, "Content-Type": "application/json"}
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    data = response.read()
    connection.close()
    return response.status, data


def revision():
    return json.loads(subprocess.run([gallery, "info", "--json", document], capture_output=True, check=True).stdout)[
        "revision"]


doc = json.loads(request("GET", "/api/documents")[1])["documents"][0]["id"]
start = revision()
stop = time.monotonic() + seconds
counts = {"cli": 0, "drops": 0, "page": 0, "reads": 0, "failures": 0}
lock = threading.Lock()


def count(key):
    with lock:
        counts[key] += 1


def cli_moves():
    while time.monotonic() < stop:
        ok = subprocess.run([gallery, "move", document, "1", "--to", "end"], capture_output=True).returncode == 0
        count("cli" if ok else "failures")


def cli_drops():
    for image in images[6:]:
        if time.monotonic() >= stop:
            break
        ok = subprocess.run([gallery, "drop", document, image], capture_output=True).returncode == 0
        count("drops" if ok else "failures")


def page_edits():
    item = json.loads(request("GET", f"/api/documents/{doc}")[1])["items"][-1]["id"]
    action = "trash"
    while time.monotonic() < stop:
        status, _ = request("POST", f"/api/documents/{doc}/{action}", json.dumps({"ids": [item]}))
        if status == 200:
            count("page")
            action = "restore" if action == "trash" else "trash"
        else:
            count("failures")


def page_reads():
    while time.monotonic() < stop:
        request("GET", f"/api/documents/{doc}")
        count("reads")


threads = [threading.Thread(target=f) for f in (cli_moves, cli_moves, cli_drops, page_edits, page_reads)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
server.terminate()
server.wait(30)
# A drop of one image is two saves (placeholders, then the commit), or one when the image
# loaded before the document was open: its history line then starts where it ends (other
# edits may come between the two saves, so the line's span is not the count).
history = json.loads(subprocess.run([gallery, "history", "--json", "--limit", "100000", document],
                                    capture_output=True, check=True).stdout)
drops = [line for line in history if line["first"] > start and line["summary"].startswith("drop:")]
expected = start + counts["cli"] + counts["page"] + sum(1 if line["first"] == line["revision"] else 2 for line in drops)
# A drop that exited 0 with no line in the history is lost whole.
lost = expected - revision() + counts["drops"] - len(drops)
stale = sum(1 for item in json.loads(subprocess.run([gallery, "show", "--json", document], capture_output=True,
                                                    check=True).stdout)["items"] if item["state"] != "ready")
print(f"{'view server beside CLI writers':<44} {seconds:.0f} s: {counts['cli']} CLI moves, {counts['drops']} drops, "
      f"{counts['page']} page edits, {counts['reads']} page reads")
print(f"{'edits lost beside the view server':<44} {lost}")
print(f"{'placeholders left beside the view server':<44} {stale}")
print(f"{'edits refused beside the view server':<44} {counts['failures']}")
sys.exit(1 if lost or stale or counts["failures"] else 0)
