"""The view server under load: uploads are read as they arrive and refused at the per-file
limit before their bytes come; idle and slow connections are closed, and many of them do
not stop the server from answering. No browser: sockets and the page's API."""

import socket
import struct
import time

from conftest import document_id, new_document, server_request


def resident_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def connect(server):
    host, port = server.host.rsplit(":", 1)
    return socket.create_connection((host, int(port)), timeout=30)


def test_an_oversized_upload_is_refused_at_its_length_not_received(workspace, images, serve):
    document = new_document(workspace, "Uploads.gallery", images[:1])
    server = serve(document)
    doc = document_id(server, document)
    before = resident_kib(server.process.pid)
    claimed = 600 << 20
    name = b"huge.jpg"
    frame = struct.pack(">I", len(name)) + name + struct.pack(">I", claimed)
    head = (
        f"POST /api/documents/{doc}/drop HTTP/1.1\r\nHost: {server.host}\r\n"
        f"Authorization: Bearer {server.token}\r\nContent-Type: application/x-gallery-upload\r\n"
        f"Content-Length: {len(frame) + claimed}\r\n\r\n").encode()
    sock = connect(server)
    sock.sendall(head + frame + b"\xff" * 65536)
    # The answer comes with almost nothing of the file sent.
    sock.settimeout(10)
    answer = sock.recv(4096)
    assert answer.startswith(b"HTTP/1.1 400"), answer[:200]
    assert b"larger than" in answer
    sock.close()
    # Six at once: still refused at their lengths, and the server did not grow by their size.
    socks = []
    for _ in range(6):
        s = connect(server)
        s.sendall(head + frame + b"\x00" * (1 << 20))
        socks.append(s)
    for s in socks:
        s.settimeout(10)
        assert s.recv(4096).startswith(b"HTTP/1.1 400")
        s.close()
    assert resident_kib(server.process.pid) - before < 100 * 1024, "the server held uploads it refused"


def test_idle_connections_do_not_stop_the_server_and_are_closed(workspace, images, serve):
    document = new_document(workspace, "Idle.gallery", images[:1])
    server = serve(document)
    idle = [connect(server) for _ in range(1100)]
    slow = connect(server)
    slow.sendall(f"GET /api/documents HTTP/1.1\r\nHost: {server.host}\r\n".encode())  # a head that never ends
    started = time.monotonic()
    response, data = server_request(server, "GET", "/api/documents")
    assert response.status == 200
    assert time.monotonic() - started < 5, "answered only after idle connections closed"
    # Idle ones, and the one whose head never ended, are closed by the server.
    deadline = time.monotonic() + 30
    for s in idle[:20] + [slow]:
        s.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            assert s.recv(1) == b""
        except ConnectionResetError:
            pass
    assert time.monotonic() - started < 25
    for s in idle:
        s.close()
    response, _ = server_request(server, "GET", "/api/documents")
    assert response.status == 200


def test_a_full_disk_is_507_and_the_document_unchanged(workspace, images, serve):
    import json
    import subprocess

    disk = workspace / "disk"
    disk.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(disk)], check=True)
    try:
        document = new_document(disk, "Full.gallery", images[:2])
        server = serve(document)
        doc = document_id(server, document)
        free = int(subprocess.run(["df", "--output=avail", "-B1", str(disk)], capture_output=True, text=True,
                                  check=True).stdout.split()[-1])
        (disk / "filler").write_bytes(b"\0" * free)
        before = document.read_bytes()
        ids = [item["id"] for item in json.loads(server_request(server, "GET", f"/api/documents/{doc}")[1])["items"]]
        response, data = server_request(
            server, "POST", f"/api/documents/{doc}/trash", json.dumps({"ids": ids[:1]}),
            {"Content-Type": "application/json"})
        assert response.status == 507, (response.status, data)
        assert b"No space left on device" in data
        assert document.read_bytes() == before
        server.stop()
    finally:
        subprocess.run(["umount", "-l", str(disk)], check=False)
