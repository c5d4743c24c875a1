"""The browser view end to end: the real binary serving real documents to Debian's chromium.
Every edit made on a page is checked with `gallery show --json`, the CLI's own reading."""

import base64
import json
import os
import pathlib
import re
import subprocess
import time
import urllib.parse

import pytest

from conftest import (
    GALLERY, Server, document_id, item_ids, trash_ids, make_image, new_document, open_page, run, server_request, show, tile_ids,
    wait_until)


def ready_tiles(page, count):
    page.wait_for_function(
        "n => document.querySelectorAll('img.tile[data-state=ready]').length === n", arg=count, timeout=30000)


def tile(page, item_id):
    return page.locator(f'img.tile[data-id="{item_id}"]')


def left_of(page, item_id):
    """A point just inside the left edge of a tile: a drop there goes before it."""
    box = tile(page, item_id).bounding_box()
    return {"x": 4, "y": box["height"] / 2}


# ----- Security -----

def test_requests_without_the_token_or_from_elsewhere_are_refused(workspace, images, serve):
    document = new_document(workspace, "a.gallery", images[:2])
    server = serve(document)
    doc = document_id(server, document)

    response, _ = server_request(server, "GET", "/api/documents", bearer=False)
    assert response.status == 403, "no token"
    response, _ = server_request(server, "GET", "/", bearer=False)
    assert response.status == 403, "the page itself needs the token"
    response, _ = server_request(server, "GET", "/api/documents", headers={"Authorization": "Bearer wrong"}, bearer=False)
    assert response.status == 403, "a wrong token"

    # The token in the URL becomes an HttpOnly, SameSite=Strict cookie, and leaves the URL.
    response, _ = server_request(server, "GET", f"/d/{doc}?token={server.token}", bearer=False)
    assert response.status == 303
    assert response.getheader("Location") == f"/d/{doc}"
    cookie = response.getheader("Set-Cookie")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    pair = cookie.split(";")[0]
    response, body = server_request(server, "GET", "/api/documents", headers={"Cookie": pair}, bearer=False)
    assert response.status == 200 and b"a.gallery" in body

    # DNS rebinding: a foreign Host is refused, even with the token.
    response, _ = server_request(server, "GET", "/api/documents", headers={"Host": "evil.example:80", "Cookie": pair})
    assert response.status == 403

    # CSRF: a change needs the page's own Origin (the cookie alone is not enough).
    move = json.dumps({"ids": item_ids(document)[::-1]})
    for origin in [None, "http://evil.example", "null"]:
        headers = {"Cookie": pair, "Content-Type": "application/json"}
        if origin:
            headers["Origin"] = origin
        response, _ = server_request(server, "POST", f"/api/documents/{doc}/trash", body=move, headers=headers, bearer=False)
        assert response.status == 403, origin
    assert len(item_ids(document)) == 2, "nothing was trashed"

    # A strict Content-Security-Policy on every answer.
    response, _ = server_request(server, "GET", "/")
    policy = response.getheader("Content-Security-Policy")
    assert "script-src 'self'" in policy and "default-src 'none'" in policy and "frame-ancestors 'none'" in policy
    assert response.getheader("X-Content-Type-Options") == "nosniff"

    # A body over the limit is refused before it is read to the end.
    headers = {"Cookie": pair, "Content-Type": "application/json", "Origin": server.base}
    response, _ = server_request(server, "POST", f"/api/documents/{doc}/trash", body=b" " * (5 << 20), headers=headers,
                                 bearer=False)
    assert response.status == 413
    # /api/open names a path: for `gallery open` (a bearer token) only, never for a page.
    body = json.dumps({"name": "/etc/passwd"})
    response, _ = server_request(server, "POST", "/api/open", body=body, headers=headers, bearer=False)
    assert response.status == 403

    # Documents are named by the ids the server handed out, never by a path.
    response, _ = server_request(server, "GET", "/api/documents/..%2F..%2Fetc%2Fpasswd")
    assert response.status == 404
    response, _ = server_request(server, "GET", "/assets/..%2F..%2FPackage.swift")
    assert response.status == 404


def test_a_hostile_title_and_source_are_shown_as_text(workspace, images, serve, context):
    hostile = '<img src=x onerror="window.pwned=1">'
    document = new_document(workspace, "h.gallery", images[:1], title=hostile)
    server = serve(document)
    page = open_page(context, server, document_id(server, document))
    ready_tiles(page, 1)
    assert page.locator("#title").text_content() == hostile
    assert page.evaluate("() => window.pwned === undefined")
    assert page.locator("#bar img").count() == 0, "the title made no element"
    page.goto(server.page_url())
    page.wait_for_selector("li.document")
    assert page.locator("li.document .title").first.text_content() == hostile
    assert page.evaluate("() => window.pwned === undefined")
    assert page.errors == []


# ----- Dropping in -----

def test_files_dropped_from_outside_land_where_dropped(workspace, images, serve, context):
    document = new_document(workspace, "d.gallery", images[:3])
    before = item_ids(document)
    server = serve(document)
    page = open_page(context, server, document_id(server, document))
    ready_tiles(page, 3)
    # Two files from a file manager, dropped before the second item.
    page.locator(f'img.tile[data-id="{before[1]}"]').drop(
        {"files": [str(images[4]), str(images[5])]}, position=left_of(page, before[1]))
    ready_tiles(page, 5)
    items = show(document)["items"]
    assert [item["id"] for item in items][0] == before[0]
    assert [item["id"] for item in items][3:] == before[1:]
    assert all(item["state"] == "ready" for item in items)
    assert tile_ids(page) == [item["id"] for item in items], "the page shows what the document holds"
    # Dropped bytes carry no path: they are embedded, named by their content.
    assert items[1]["source"].startswith("urn:sha256:") and items[1]["original"]
    assert page.errors == []


def test_what_is_not_an_image_gets_no_placeholder_and_a_message(workspace, images, serve, context):
    document = new_document(workspace, "n.gallery", images[:1])
    server = serve(document)
    page = open_page(context, server, document_id(server, document))
    ready_tiles(page, 1)
    text = workspace / "notes.jpg"
    text.write_text("not an image at all")
    page.locator("#grid").drop({"files": [str(text)]})
    page.wait_for_selector(".toast.error")
    assert "not an image" in page.locator(".toast.error").first.text_content()
    assert len(item_ids(document)) == 1


def test_links_dropped_from_another_tab_are_downloaded(workspace, images, serve, context, image_server):
    document = new_document(workspace, "u.gallery", images[:1])
    make_image(image_server.folder / "photo.jpg", 400, 300)
    make_image(image_server.folder / "pic.png", 300, 300)
    server = serve(document)
    page = open_page(context, server, document_id(server, document))
    ready_tiles(page, 1)
    page.locator("#grid").drop({"data": {"text/uri-list": f"{image_server.base}/photo.jpg\r\n"}})
    ready_tiles(page, 2)
    # HTML with an <img>, as a browser drags an image, and an image-search result link.
    page.locator("#grid").drop({"data": {"text/html": f'<p>x</p><img src="{image_server.base}/pic.png" alt="">'}})
    ready_tiles(page, 3)
    search = f"https://www.google.com/imgres?imgurl={image_server.base}/photo.jpg&imgrefurl=https://example.org/page"
    page.locator("#grid").drop({"data": {"text/uri-list": search}})
    ready_tiles(page, 4)
    # An image a page holds inline: its data: URI, in a uri-list or as an <img> in HTML.
    make_image(workspace / "inline.png", 200, 100)
    inline = "data:image/png;base64," + base64.b64encode((workspace / "inline.png").read_bytes()).decode()
    page.locator("#grid").drop({"data": {"text/uri-list": inline}})
    ready_tiles(page, 5)
    page.locator("#grid").drop({"data": {"text/html": f'<img src="{inline}">'}})
    ready_tiles(page, 6)
    sources = [item["source"] for item in show(document)["items"]]
    assert sources[1:4] == [f"{image_server.base}/photo.jpg", f"{image_server.base}/pic.png", f"{image_server.base}/photo.jpg"]
    assert show(document)["items"][3]["page"] == "https://example.org/page"
    assert sources[4] == sources[5] and sources[4].startswith("urn:sha256:")
    assert [item["aspectRatio"] for item in show(document)["items"][4:]] == [2, 2]


def test_a_cached_copy_standing_in_for_a_lost_link_is_said_on_the_page(workspace, images, serve, context, image_server):
    make_image(image_server.folder / "kept.jpg", 400, 200)
    link = f"{image_server.base}/kept.jpg"
    # Dropped once (downloaded and cached), then the server no longer has it: 404.
    document = new_document(workspace, "c.gallery", [link])
    (image_server.folder / "kept.jpg").unlink()
    server = serve(document)
    page = open_page(context, server, document_id(server, document))
    ready_tiles(page, 1)
    page.locator("#grid").drop({"data": {"text/uri-list": link + "\r\n"}})
    note = page.locator(".toast.info", has_text="the cached copy stands in")
    note.wait_for(timeout=20000)
    assert link in note.text_content() and "404" in note.text_content()
    ready_tiles(page, 2)
    assert [item["source"] for item in show(document)["items"]] == [link, link]
    assert not page.errors


def test_a_page_cannot_drop_a_local_path(workspace, images, serve, context):
    document = new_document(workspace, "p.gallery", images[:1])
    server = serve(document)
    page = open_page(context, server, document_id(server, document))
    ready_tiles(page, 1)
    page.locator("#grid").drop({"data": {"text/uri-list": f"file://{images[2]}"}})
    page.wait_for_selector(".toast.error")
    assert len(item_ids(document)) == 1


def test_a_stale_placeholder_is_retried_from_its_tile(workspace, images, serve, context, image_server):
    document = new_document(workspace, "stale.gallery", images[:1])
    make_image(image_server.folder / "late.jpg", 300, 300)
    image_server.hold.set()
    # A drop whose download never ends, killed once its placeholder is saved: stale.
    drop = subprocess.Popen([GALLERY, "drop", str(document), f"{image_server.base}/late.jpg"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until(lambda: len(item_ids(document)) == 2, message="the placeholder saved")
    drop.kill()
    drop.wait()
    image_server.hold.clear()
    server = serve(document)
    page = open_page(context, server, document_id(server, document))
    page.wait_for_selector("img.tile[data-state=stale]")
    assert "late.jpg" in page.locator(".tile-caption.stale").text_content(), "where it comes from"
    page.locator(".retry-tile").click()
    ready_tiles(page, 2)
    assert [item["state"] for item in show(document)["items"]] == ["ready", "ready"]


def test_paste_an_image_at_the_selection(workspace, images, serve, context):
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    document = new_document(workspace, "paste.gallery", images[:2])
    a, b = item_ids(document)
    server = serve(document)
    page = open_page(context, server, document_id(server, document))
    ready_tiles(page, 2)

    make_image(workspace / "clip.png", 64, 48)
    data = list((workspace / "clip.png").read_bytes())
    # An image on the clipboard, as a screenshot tool or an image editor puts it there.
    page.evaluate("""async (bytes) => {
        const blob = new Blob([new Uint8Array(bytes)], { type: 'image/png' });
        await navigator.clipboard.write([new ClipboardItem({ 'image/png': blob })]);
    }""", data)
    tile(page, a).click()
    page.keyboard.press("Control+v")
    ready_tiles(page, 3)
    ids = item_ids(document)
    assert ids[0] == a and ids[2] == b, "pasted after the selection"
    assert show(document)["items"][1]["format"] == "png"


# ----- Reordering, trash -----

def test_reorder_one_and_several_items_by_dragging(workspace, images, serve, context):
    document = new_document(workspace, "r.gallery", images[:4])
    a, b, c, d = item_ids(document)
    server = serve(document)
    page = open_page(context, server, document_id(server, document))
    ready_tiles(page, 4)
    tile(page, d).drag_to(tile(page, a), target_position=left_of(page, a))
    wait_until(lambda: item_ids(document) == [d, a, b, c], message="d moved first")
    wait_until(lambda: tile_ids(page) == [d, a, b, c], message="the page follows")
    # Several at once: click d, Ctrl+click b, drag them to the end (past the last tile).
    tile(page, d).click()
    tile(page, b).click(modifiers=["Control"])
    box = tile(page, c).bounding_box()
    tile(page, b).drag_to(tile(page, c), target_position={"x": box["width"] - 2, "y": box["height"] / 2})
    wait_until(lambda: item_ids(document) == [a, c, d, b], message="d and b at the end, in gallery order")
    assert page.errors == []


def test_trash_by_dragging_and_by_delete_key_then_restore(workspace, images, serve, context):
    document = new_document(workspace, "t.gallery", images[:3])
    a, b, c = item_ids(document)
    server = serve(document)
    page = open_page(context, server, document_id(server, document))
    ready_tiles(page, 3)
    tile(page, b).drag_to(page.locator("#trash"))
    wait_until(lambda: item_ids(document) == [a, c], message="b in the trash")
    tile(page, c).click()
    page.keyboard.press("Delete")
    wait_until(lambda: item_ids(document) == [a], message="c in the trash")
    assert trash_ids(document) == [b, c]
    # The trash opens as a panel in view, wherever the grid is scrolled.
    page.evaluate("() => { document.getElementById('main').scrollTop = 10000; }")
    page.locator("#trash").click()
    panel = page.locator("#trash-view").bounding_box()
    viewport = page.viewport_size
    assert panel and panel["y"] >= 0 and panel["y"] + 40 < viewport["height"] and panel["x"] + panel["width"] <= viewport["width"] + 1
    page.locator(f'.trashed li[data-id="{b}"] .restore').click()
    wait_until(lambda: item_ids(document) == [a, b], message="b back where it was")
    # c left from position 2 of [a, c]: it goes back to position 2.
    page.locator(".restore-all").click()
    wait_until(lambda: item_ids(document) == [a, c, b], message="all back")
    assert trash_ids(document) == []


def test_undo_and_redo_from_the_keyboard_share_the_documents_history(workspace, images, serve, context):
    document = new_document(workspace, "u.gallery", images[:3])
    a, b, c = item_ids(document)
    server = serve(document)
    page = open_page(context, server, document_id(server, document))
    ready_tiles(page, 3)
    tile(page, c).click()
    page.keyboard.press("Delete")
    wait_until(lambda: item_ids(document) == [a, b], message="c in the trash")
    page.keyboard.press("Control+z")
    wait_until(lambda: item_ids(document) == [a, b, c], message="the trash undone")
    page.keyboard.press("Control+Shift+z")
    wait_until(lambda: item_ids(document) == [a, b], message="the trash redone")
    # An edit made from the shell is in the same history: the page takes it back.
    run("move", document, b, "--to", "1")
    wait_until(lambda: tile(page, b).bounding_box()["x"] < tile(page, a).bounding_box()["x"], message="the move shown")
    page.keyboard.press("Control+z")
    wait_until(lambda: item_ids(document) == [a, b], message="the shell's move undone")
    history = json.loads(run("history", "--json", document).stdout)
    assert history[0]["summary"] == f"undo of r{history[1]['revision']} (move: 1 item)"
    # Nothing left: the page says so and the document stays as it is.
    for _ in range(6):
        page.keyboard.press("Control+z")
    page.locator(".toast", has_text="nothing to undo").first.wait_for(timeout=20000)
    assert item_ids(document) == []


def test_the_trash_refuses_what_comes_from_elsewhere(workspace, images, serve, context):
    document = new_document(workspace, "f.gallery", images[:1])
    server = serve(document)
    page = open_page(context, server, document_id(server, document))
    ready_tiles(page, 1)
    with pytest.raises(Exception):
        page.locator("#trash").drop({"files": [str(images[3])]}, timeout=3000)
    assert len(item_ids(document)) == 1 and trash_ids(document) == []


# ----- Between documents -----

def capture_drag(page, item_ids_to_select):
    """What a drag from these tiles carries: the page's own dragstart, on a real DataTransfer."""
    return page.evaluate(
        """ids => {
            const tiles = ids.map((id) => document.querySelector(`.tile[data-id="${id}"]`));
            tiles[0].click();
            for (const tile of tiles.slice(1)) tile.dispatchEvent(new MouseEvent('click', { bubbles: true, ctrlKey: true }));
            const transfer = new DataTransfer();
            tiles[0].dispatchEvent(new DragEvent('dragstart', { bubbles: true, dataTransfer: transfer }));
            const carried = {};
            for (const type of transfer.types) carried[type] = transfer.getData(type);
            tiles[0].dispatchEvent(new DragEvent('dragend', { bubbles: true, dataTransfer: transfer }));
            return carried;
        }""", item_ids_to_select)


def drop_carried(page, carried, shift=False):
    """Drops what another window's drag carried onto this page's end, as Chromium delivers it
    (Playwright drags only within one page)."""
    page.evaluate(
        """([carried, shift]) => {
            const grid = document.getElementById('grid');
            const box = grid.getBoundingClientRect();
            const transfer = new DataTransfer();
            for (const [type, value] of Object.entries(carried)) transfer.setData(type, value);
            const at = { bubbles: true, cancelable: true, dataTransfer: transfer, shiftKey: shift,
                         clientX: box.right - 2, clientY: box.bottom - 2 };
            const over = new DragEvent('dragover', at);
            grid.dispatchEvent(over);
            if (!over.defaultPrevented) throw new Error('the page refused the drop');
            grid.dispatchEvent(new DragEvent('drop', at));
        }""", [carried, shift])


def pathname_of(document, item_id):
    """The local file an item was dropped from."""
    item = next(i for i in json.loads(run("show", "--json", document).stdout)["items"] if i["id"] == item_id)
    return pathlib.Path(urllib.parse.unquote(urllib.parse.urlparse(item["source"]).path))


def two_galleries(workspace, images, serve, context, first, second):
    """Two documents of `first` and `second` images, each open in a page of its own."""
    source = new_document(workspace, "source.gallery", images[:first])
    target = new_document(workspace, "target.gallery", images[first:first + second])
    server = serve(workspace)
    one = open_page(context, server, document_id(server, source))
    two = open_page(context, server, document_id(server, target))
    ready_tiles(one, first)
    ready_tiles(two, second)
    return source, target, one, two


def test_drag_between_two_documents_copies_and_with_shift_moves(workspace, images, serve, context):
    source, target, one, two = two_galleries(workspace, images, serve, context, 3, 1)
    a, b, c = item_ids(source)
    carried = capture_drag(one, [a])
    assert "application/x-gallery-items" in carried
    # (DataTransfer types are lower case.)
    # Saved by a file manager under its own name, not its id.
    name = pathname_of(source, a).name
    assert carried["downloadurl"].startswith(f"image/jpeg:{name}:") and f"/originals/{a}" in carried["downloadurl"]
    assert carried["text/uri-list"].startswith("file://")
    drop_carried(two, carried)
    ready_tiles(two, 2)
    copied = show(target)["items"][1]
    original = show(source)["items"][0]
    assert copied["hash"] == original["hash"] and copied["source"] == original["source"]
    assert item_ids(source) == [a, b, c], "a copy leaves the source as it was"

    carried = capture_drag(one, [b, c])
    drop_carried(two, carried, shift=True)
    ready_tiles(two, 4)
    wait_until(lambda: item_ids(source) == [a], message="b and c left the source")
    assert trash_ids(source) == [b, c], "moved out into the source's trash"
    wait_until(lambda: len(tile_ids(one)) == 1, message="the source page follows")


def test_cut_and_paste_moves_between_documents(workspace, images, serve, context):
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    source, target, one, two = two_galleries(workspace, images, serve, context, 2, 1)
    a, b = item_ids(source)
    tile(one, b).click()
    one.keyboard.press("Control+x")
    two.bring_to_front()
    two.locator("#grid").focus()
    two.keyboard.press("Control+v")
    wait_until(lambda: len(item_ids(target)) == 2, message="pasted into the target")
    wait_until(lambda: item_ids(source) == [a], message="cut from the source")


# ----- Keyboard -----

def test_keyboard_moves_the_selection(workspace, images, serve, context):
    document = new_document(workspace, "k.gallery", images[:3])
    a, b, c = item_ids(document)
    server = serve(document)
    page = open_page(context, server, document_id(server, document))
    ready_tiles(page, 3)
    tile(page, a).click()
    page.keyboard.press("ArrowRight")
    assert page.evaluate("() => document.querySelector('img.tile.selected').dataset.id") == b
    page.keyboard.press("Alt+ArrowRight")
    wait_until(lambda: item_ids(document) == [a, c, b], message="b moved right")
    # The next key acts on the order the page shows: wait until it shows the move.
    wait_until(lambda: tile_ids(page) == [a, c, b], message="the page shows b moved right")
    page.keyboard.press("Alt+ArrowLeft")
    wait_until(lambda: tile_ids(page) == [a, b, c] and item_ids(document) == [a, b, c], message="b moved back")
    page.keyboard.press("Enter")
    page.wait_for_selector("#viewer img#large")
    wait_until(lambda: page.evaluate("() => document.getElementById('large').naturalWidth") > 0, message="the original shows")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("() => document.getElementById('large').dataset.id") == c
    page.keyboard.press("Escape")
    assert page.locator("#viewer").count() == 0


# ----- Live -----

def test_edits_made_elsewhere_show_without_a_reload(workspace, images, serve, context):
    document = new_document(workspace, "l.gallery", images[:2])
    a, b = item_ids(document)
    server = serve(document)
    page = open_page(context, server, document_id(server, document))
    ready_tiles(page, 2)
    page.evaluate("() => { window.sameDocument = true; document.getElementById('main').scrollTop = 0; }")
    tile(page, b).click()
    run("drop", document, images[2])
    ready_tiles(page, 3)
    run("move", document, b, "--to", "1")
    wait_until(lambda: tile_ids(page)[0] == b, message="the CLI's move on the page")
    assert page.evaluate("() => window.sameDocument"), "no reload"
    assert page.evaluate("() => document.querySelector('img.tile.selected')?.dataset.id") == b, "selection kept"
    run("trash", document, a)
    wait_until(lambda: a not in tile_ids(page), message="the CLI's trash on the page")


def test_a_document_renamed_or_moved_while_shown_is_followed(workspace, images, serve, context):
    document = new_document(workspace, "before.gallery", images[:3], title="Before")
    a, b, c = item_ids(document)
    server = serve(document)
    page = open_page(context, server, document_id(server, document))
    ready_tiles(page, 3)
    # Renamed by another program: the page shows the new title, its edits land in the file.
    run("rename", document, "after")
    renamed = workspace / "after.gallery"
    page.wait_for_function("() => document.getElementById('title').textContent === 'after'", timeout=20000)
    tile(page, b).click()
    page.keyboard.press("Delete")
    wait_until(lambda: item_ids(renamed) == [a, c], message="the page's trash in the renamed file")
    # Moved to another folder by mv: the same, and the CLI's edits there show on the page.
    elsewhere = workspace / "kept"
    elsewhere.mkdir()
    moved = elsewhere / "moved.gallery"
    subprocess.run(["mv", str(renamed), str(moved)], check=True)
    run("move", moved, c, "--to", "1")
    wait_until(lambda: tile_ids(page) == [c, a], message="the CLI's move in the moved file, on the page")
    page.keyboard.press("Control+z")
    wait_until(lambda: item_ids(moved) == [a, c], message="the page's undo in the moved file")
    assert not document.exists() and not renamed.exists()
    assert not page.errors


def test_two_pages_editing_one_document_lose_nothing(workspace, images, serve, context):
    document = new_document(workspace, "two.gallery", images[:4])
    a, b, c, d = item_ids(document)
    server = serve(document)
    doc = document_id(server, document)
    one = open_page(context, server, doc)
    two = open_page(context, server, doc)
    ready_tiles(one, 4)
    ready_tiles(two, 4)
    # Both at once, from both pages' scripts.
    script = """([doc, action, body]) => fetch(`/api/documents/${doc}/${action}`, {
        method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)}).then(r => r.status)"""
    first = one.evaluate_handle(script, [doc, "trash", {"ids": [a]}])
    second = two.evaluate_handle(script, [doc, "move", {"ids": [d], "before": b}])
    assert first.json_value() == 200 and second.json_value() == 200
    assert item_ids(document) == [d, b, c]
    wait_until(lambda: tile_ids(one) == [d, b, c] and tile_ids(two) == [d, b, c], message="both pages agree")


# ----- Document browser -----

def test_the_document_browser_creates_renames_duplicates_and_deletes(workspace, images, serve, context):
    new_document(workspace, "first.gallery", images[:2], title="First")
    server = serve(workspace)
    page = open_page(context, server)
    page.wait_for_selector("li.document")
    assert "2 items" in page.locator("li.document .counts").first.text_content()
    page.fill("#new-title", "Holiday")
    page.click("#new-document")
    page.wait_for_url("**/d/*")
    assert (workspace / "Holiday.gallery").exists()
    assert show(workspace / "Holiday.gallery")["title"] == "Holiday"
    page.goto(server.page_url())
    # A library: the served folder's section; each card's actions in its menu.
    assert page.locator("section.library h2").first.text_content() == str(workspace)
    card = card_of(page, workspace / "first.gallery")
    assert card.locator(".duplicate").is_hidden()
    card.locator(".more").click()
    card.locator(".duplicate").click()
    wait_until(lambda: (workspace / "first copy.gallery").exists(), message="the copy")
    page.wait_for_selector("li.document >> text=first copy")
    card.locator(".more").click()
    card.locator(".rename").click()
    card.locator(".rename-field").fill("Renamed")
    card.locator(".rename-field").press("Enter")
    wait_until(lambda: (workspace / "Renamed.gallery").exists() and not (workspace / "first.gallery").exists(),
               message="the rename")
    holiday = card_of(page, workspace / "Holiday.gallery")
    holiday.locator(".more").click()
    holiday.locator(".delete").click()
    wait_until(lambda: not (workspace / "Holiday.gallery").exists(), message="moved to the Trash")
    trash = pathlib.Path(workspace / "xdg" / "xdg_data_home" / "Trash" / "files" / "Holiday.gallery")
    assert trash.exists()
    # ...with an Undo that puts it back.
    page.locator(".toast .toast-action", has_text="Undo").click()
    wait_until(lambda: (workspace / "Holiday.gallery").exists() and not trash.exists(), message="put back")
    page.wait_for_selector("li.document >> text=Holiday")
    assert not list((workspace / "xdg" / "xdg_data_home" / "Trash" / "info").glob("Holiday*"))
    # A document made by the CLI appears on the open page without a reload.
    run("new", workspace / "Later.gallery")
    page.wait_for_selector("li.document >> text=Later")


def test_a_folder_named_in_latin1_lists_its_galleries_under_its_own_heading(workspace, images, serve, context):
    # os.fsdecode keeps each byte that is not UTF-8 (surrogateescape): the names are bytes.
    folder = workspace / os.fsdecode(b"alb\xfcm")
    folder.mkdir()
    new_document(folder, os.fsdecode(b"gal\xe9rie.gallery"), images[:1])
    server = serve(folder)
    listing = json.loads(server_request(server, "GET", "/api/documents")[1])
    shown = str(workspace) + "/alb\\xFCm"
    assert listing["folders"] == [shown]
    assert [(document["folder"], document["name"]) for document in listing["documents"]] == [(shown, "gal\\xE9rie.gallery")]
    page = open_page(context, server)
    page.wait_for_selector("li.document")
    library = page.locator("section.library").first
    assert library.locator("h2").text_content() == shown
    assert library.locator("li.document").count() == 1
    assert "1 item" in library.locator("li.document .counts").text_content()
    assert page.locator("section.library").count() == 1, "listed again under the recent ones"
    assert not page.errors


def card_of(page, path):
    return page.locator("li.document", has=page.locator(".path", has_text=re.compile("^" + re.escape(str(path)) + "$")))


# ----- Many items -----

def test_ten_thousand_items_render_only_what_is_on_screen(workspace, images, serve, context):
    one = new_document(workspace, "one.gallery", images[:1])
    big = new_document(workspace, "big.gallery")
    # 10,000 items: one ready item under 10,000 ids, dropped as one payload (the library's
    # own copy path: `gallery drag --type gallery` and `gallery drop -`).
    data = json.loads(run("drag", "--type", "gallery", one, item_ids(one)[0]).stdout)
    alphabet = "abcdefghjkmnpqrstuvwxyz23456789"
    def name(n):
        return "x" + "".join(alphabet[(n // 31 ** k) % 31] for k in range(4))
    entry = data["items"][0]
    data["items"] = [dict(entry, item=dict(entry["item"], id=name(n))) for n in range(10000)]
    run("drop", big, "-", input=json.dumps(data).encode())
    count = len(item_ids(big))
    assert count >= 10000
    server = serve(big)
    page = open_page(context, server, document_id(server, big))
    page.wait_for_selector("img.tile[data-state=ready]")
    rendered = page.locator("img.tile").count()
    assert 0 < rendered < 400, f"{rendered} tiles in the DOM"
    page.evaluate("() => { const m = document.getElementById('main'); m.scrollTop = m.scrollHeight; }")
    last = page.evaluate("() => document.getElementById('grid').style.height")
    page.wait_for_function(
        "n => [...document.querySelectorAll('img.tile')].some((t) => Number(t.dataset.index) === n - 1)", arg=count)
    assert page.locator("img.tile").count() < 400
    assert last != "0px"


# ----- Size -----

def test_tile_size_follows_the_slider_and_is_remembered(workspace, images, serve, context):
    document = new_document(workspace, "z.gallery", images[:3])
    server = serve(document)
    doc = document_id(server, document)
    page = open_page(context, server, doc)
    ready_tiles(page, 3)
    first = item_ids(document)[0]
    height = lambda: tile(page, first).bounding_box()["height"]
    page.locator("#size").fill("100")
    small = height()
    page.locator("#size").fill("300")
    large = height()
    assert large > small * 1.5
    page.keyboard.down("Control")
    page.mouse.move(300, 300)
    page.mouse.wheel(0, 400)
    page.keyboard.up("Control")
    wait_until(lambda: height() < large, message="Ctrl+wheel shrinks the tiles")
    kept = height()
    page.reload()
    ready_tiles(page, 3)
    assert abs(height() - kept) < 1.5


# ----- gallery open -----

def test_open_starts_one_server_and_reuses_it(workspace, images, tmp_path):
    one = new_document(workspace, "o1.gallery", images[:1])
    two = new_document(workspace, "o2.gallery", images[1:2])
    first = run("open", "--print-url", "--idle-exit", "30", one).stdout.decode().strip()
    second = run("open", "--print-url", two).stdout.decode().strip()
    base = lambda url: url.split("/d/")[0]
    try:
        assert first.startswith("http://127.0.0.1:") and "/d/" in first and "token=" in first
        assert base(first) == base(second), "the running server is reused"
        # $BROWSER gets the address.
        opened = tmp_path / "opened"
        script = tmp_path / "browser"
        script.write_text(f"#!/bin/sh\necho \"$1\" > {opened}\n")
        script.chmod(0o755)
        import os
        env = dict(os.environ, BROWSER=str(script))
        run("open", one, env=env)
        wait_until(lambda: opened.exists() and opened.read_text().strip(), message="the browser was started")
        assert base(opened.read_text().strip()) == base(first)
    finally:
        record = json.loads((workspace / "xdg" / "xdg_runtime_dir" / "gallery" / "view.json").read_text())
        subprocess.run(["kill", str(record["pid"])], check=False)


def test_a_server_started_by_open_stops_when_idle(workspace, images):
    document = new_document(workspace, "idle.gallery", images[:1])
    run("open", "--print-url", "--idle-exit", "1", document)
    record_file = workspace / "xdg" / "xdg_runtime_dir" / "gallery" / "view.json"
    pid = json.loads(record_file.read_text())["pid"]
    wait_until(lambda: not pathlib.Path(f"/proc/{pid}").exists() or "Z" in pathlib.Path(f"/proc/{pid}/stat").read_text().split()[2],
               timeout=30, message="the idle server ends")
    wait_until(lambda: not record_file.exists(), timeout=5, message="its record removed")


def test_the_page_lays_out_tiles_as_gallery_sheet_does(workspace, images, serve, context):
    """The collection view and `gallery sheet` share one layout: the same rows, tiles and sizes,
    a panorama and a tall strip capped alike."""
    panorama = workspace / "panorama.png"
    strip = workspace / "strip.png"
    make_image(panorama, width=3000, height=200)
    make_image(strip, width=40, height=600)
    document = new_document(workspace, "s.gallery", images + [panorama, strip])
    server = serve(document)
    page = open_page(context, server, document_id(server, document))
    ready_tiles(page, len(images) + 2)
    for size in ["150", "300", "90"]:
        page.locator("#size").fill(size)
        placed = page.evaluate(
            """() => [...document.querySelectorAll('img.tile')].map((tile) => {
                const [x, y] = tile.style.transform.match(/-?[0-9.]+/g).map(Number);
                return { id: tile.dataset.id, x, y, width: parseFloat(tile.style.width), height: parseFloat(tile.style.height) };
            })""")
        width = page.evaluate("() => document.getElementById('grid').clientWidth")
        sheet = json.loads(run("sheet", "--json", "--width", width + 16, "--row-height", size, document).stdout)
        expected = {t["id"]: {"id": t["id"], "x": t["x"] - 8, "y": t["y"] - 8, "width": t["width"], "height": t["height"]}
                    for t in sheet["tiles"]}
        assert {t["id"]: t for t in placed} == expected, size


def test_an_open_page_keeps_the_server_and_closing_it_lets_it_go(workspace, images, context):
    document = new_document(workspace, "kept.gallery", images[:1])
    address = run("open", "--print-url", "--idle-exit", "2", document).stdout.decode().strip()
    record_file = workspace / "xdg" / "xdg_runtime_dir" / "gallery" / "view.json"
    pid = json.loads(record_file.read_text())["pid"]
    alive = lambda: pathlib.Path(f"/proc/{pid}").exists() and "Z" not in pathlib.Path(f"/proc/{pid}/stat").read_text().split()[2]
    try:
        page = context.new_page()
        page.goto(address)
        ready_tiles(page, 1)
        time.sleep(4)
        assert alive(), "a page is open: the server stays"
        page.close()
        # The server finds the page gone at one of its next pings (every 5 s), then waits 2 s.
        wait_until(lambda: not alive(), timeout=40, interval=0.2, message="the server ends after its last page")
    finally:
        if alive():
            subprocess.run(["kill", str(pid)], check=False)


# ----- Pictures -----

PHOTOS = pathlib.Path("/usr/share/backgrounds/mate/nature")


def test_tiles_are_sharp_at_every_size_on_a_hidpi_screen(workspace, serve, browser):
    """At device pixel ratio 2, at the smallest, default and largest tile sizes, every tile is
    drawn from at least as many pixels as it covers (or all its original has): the thumbnail
    first, then previews of the original at growing sizes, made by the server and cached."""
    photos = [PHOTOS / name for name in ["Garden.jpg", "Storm.jpg", "LadyBird.jpg", "Dune.jpg"]]
    panorama = workspace / "panorama.jpg"
    subprocess.run(["vips", "arrayjoin", " ".join(str(p) for p in photos[:3]), str(panorama)], check=True)
    document = new_document(workspace, "sharp.gallery", photos + [panorama])
    server = serve(document)
    context = browser.new_context(viewport={"width": 1100, "height": 760}, device_scale_factor=2)
    try:
        page = open_page(context, server, document_id(server, document))
        ready_tiles(page, len(photos) + 1)
        items = json.loads(run("show", "--json", document).stdout)["items"]
        dims = {item["id"]: {"width": item["width"], "height": item["height"]} for item in items}
        for size in ["60", "180", "480"]:
            page.locator("#size").fill(size)
            # Each visible tile: the pixels of the image it shows, against what it covers on
            # the screen (its drawn width, before a panorama's crop, times the ratio),
            # bounded by the original's own width.
            measure = """async (dims) => Promise.all([...document.querySelectorAll('img.tile.ready')].map(async (tile) => {
                const box = tile.getBoundingClientRect();
                if (box.bottom < 0 || box.top > innerHeight || !tile.currentSrc) return null;
                const bitmap = await createImageBitmap(await (await fetch(tile.currentSrc)).blob());
                const item = dims[tile.dataset.id];
                const drawn = Math.max(box.width, box.height * item.width / item.height);
                return { id: tile.dataset.id, pixels: bitmap.width, needed: Math.min(item.width, Math.floor(drawn * devicePixelRatio) - 2) };
            }))"""
            def sharp():
                shown = [t for t in page.evaluate(measure, dims) if t]
                return shown and all(t["pixels"] >= t["needed"] for t in shown)
            wait_until(sharp, timeout=60, interval=0.5, message=f"every tile sharp at size {size}")
        assert page.evaluate("() => [...document.querySelectorAll('img.tile.ready')].some((t) => t.currentSrc.includes('/previews/'))")
    finally:
        context.close()


def test_the_large_view_shows_any_format_and_zooms_and_pans(workspace, serve, browser):
    """HEIC and TIFF, which the browser cannot show, get a rendition made from the original
    (at least 1000 pixels); a JPEG shows its original; a double-click zooms to 1:1, a drag
    pans, the wheel zooms around the pointer, 0 fits it again."""
    heic = workspace / "garden.heic"
    tiff = workspace / "storm.tif"
    subprocess.run(["vips", "copy", str(PHOTOS / "Garden.jpg"), f"{heic}[Q=60]"], check=True)
    subprocess.run(["vips", "copy", str(PHOTOS / "Storm.jpg"), str(tiff)], check=True)
    document = new_document(workspace, "large.gallery", [heic, tiff, PHOTOS / "Dune.jpg"])
    heic_id, tiff_id, jpeg_id = item_ids(document)
    server = serve(document)
    context = browser.new_context(viewport={"width": 1100, "height": 760})
    try:
        page = open_page(context, server, document_id(server, document))
        ready_tiles(page, 3)
        tile(page, heic_id).dblclick()
        page.wait_for_selector("#viewer img#large")
        large = "document.getElementById('large')"
        for item_id, shown in [(heic_id, "/previews/"), (tiff_id, "/previews/"), (jpeg_id, "/originals/")]:
            wait_until(lambda: page.evaluate(f"() => {large}.dataset.id") == item_id and page.evaluate(f"() => {large}.complete && {large}.naturalWidth >= 1000"),
                       timeout=30, message=f"{item_id} shows at least 1000 pixels wide")
            assert shown in page.evaluate(f"() => {large}.currentSrc")
            if item_id != jpeg_id:
                page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowLeft")
        wait_until(lambda: page.evaluate(f"() => {large}.dataset.id") == tiff_id and page.evaluate(f"() => {large}.complete"), message="back to the TIFF")
        scale = lambda: page.evaluate(f"() => new DOMMatrix(getComputedStyle({large}).transform).a")
        shift = lambda: page.evaluate(f"() => new DOMMatrix(getComputedStyle({large}).transform).e")
        box = page.locator("#large").bounding_box()
        centre = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.dblclick(*centre)
        assert scale() > 1.5, "a double-click zooms in"
        page.mouse.move(*centre)
        page.mouse.down()
        page.mouse.move(centre[0] + 120, centre[1], steps=4)
        page.mouse.up()
        assert abs(shift() - 120) < 2, "a drag pans the zoomed image"
        page.keyboard.press("0")
        assert scale() == 1 and shift() == 0, "0 fits it again"
        page.mouse.move(box["x"] + 20, box["y"] + 20)
        page.mouse.wheel(0, -300)
        assert scale() > 1 and shift() > 0, "the wheel zooms around the pointer (its corner stays put)"
        page.keyboard.press("Escape")
        assert page.locator("#viewer").count() == 0
    finally:
        context.close()


def test_the_search_field_filters_the_grid_as_you_type(workspace, images, serve, context):
    """The query language of `gallery find` in the page: the grid shows what it matches, a
    bad query is marked and changes nothing, Escape shows every item again, and a change
    made elsewhere is searched again."""
    document = new_document(workspace, "find.gallery", images[:4])
    a, b, c, d = item_ids(document)
    run("tag", document, a, c, "+sea")
    run("rate", document, c, "--stars", "5")
    server = serve(document)
    page = open_page(context, server, document_id(server, document))
    ready_tiles(page, 4)
    page.locator("#search").fill("tag:sea")
    wait_until(lambda: tile_ids(page) == [a, c], message="only the tagged items")
    assert page.locator("#count").text_content().startswith("2 of 4 items")
    page.locator("#search").fill("tag:sea rating>=4")
    wait_until(lambda: tile_ids(page) == [c], message="narrowed")
    page.locator("#search").fill("(tag:sea")
    wait_until(lambda: page.evaluate("() => !document.getElementById('search').checkValidity()"), message="marked")
    assert tile_ids(page) == [c]
    page.locator("#search").fill("tag:sea")
    wait_until(lambda: tile_ids(page) == [a, c], message="the query again")
    run("tag", document, d, "+sea")
    wait_until(lambda: tile_ids(page) == [a, c, d], message="an item tagged elsewhere joins")
    page.locator("#search").press("Escape")
    wait_until(lambda: tile_ids(page) == [a, b, c, d], message="every item again")
    # A bad query cleared leaves no mark behind.
    page.locator("#search").fill("(tag:sea")
    wait_until(lambda: page.evaluate("() => !document.getElementById('search').checkValidity()"), message="marked again")
    page.locator("#search").fill("")
    wait_until(lambda: page.evaluate("() => document.getElementById('search').checkValidity()"), message="the mark gone")


def items_by_id(document):
    return {item["id"]: item for item in show(document)["items"]}


def test_the_info_panel_edits_what_a_person_writes_and_the_keyboard_rates_and_tags(workspace, images, serve, context):
    """The large view's info panel shows the photo's facts and saves a caption, a note,
    stars, a label and tags, each an edit `gallery show` reads and `undo` takes back; in
    the grid, digits rate the selection and t tags it; a tag chip finds its items."""
    document = new_document(workspace, "info.gallery", images[:3])
    a, b, c = item_ids(document)
    run("tag", document, a, "+sea")
    server = serve(document)
    page = open_page(context, server, document_id(server, document))
    ready_tiles(page, 3)
    tile(page, a).dblclick()
    page.wait_for_selector("#viewer img#large")
    if page.locator("#info").is_hidden():
        page.keyboard.press("i")
    assert page.locator("#info dd").first.text_content() == "JPEG"
    page.locator("#info-caption").fill("Sunset at the pier")
    page.locator("#info-caption").press("Enter")
    wait_until(lambda: items_by_id(document)[a].get("caption") == "Sunset at the pier", message="the caption saved")
    wait_until(lambda: page.locator("#viewer .caption").text_content() == "Sunset at the pier", message="the page shows it")
    page.locator("#info-note").fill("first line\nsecond line")
    page.locator("#info-caption").click()  # leaving the note saves it
    wait_until(lambda: items_by_id(document)[a].get("note") == "first line\nsecond line", message="the note saved")
    page.locator('#info .stars button[data-stars="4"]').click()
    wait_until(lambda: items_by_id(document)[a].get("rating") == 4, message="four stars")
    page.locator("#info-label").select_option("green")
    wait_until(lambda: items_by_id(document)[a].get("label") == "green", message="labelled")
    page.locator("#info-tags").fill("holiday/italy, beach")
    page.locator("#info-tags").press("Enter")
    wait_until(lambda: items_by_id(document)[a].get("tags") == ["beach", "holiday/italy", "sea"], message="tagged")
    page.wait_for_selector('#info .chip-remove[aria-label="Remove tag sea"]').click()
    wait_until(lambda: items_by_id(document)[a].get("tags") == ["beach", "holiday/italy"], message="a chip removed")
    # Digits in the large view rate what it shows: the same number again takes the stars away.
    page.locator("#viewer").focus()
    page.keyboard.press("2")
    wait_until(lambda: items_by_id(document)[a].get("rating") == 2, message="two stars from the keyboard")
    wait_until(lambda: page.evaluate(
        """() => [...document.querySelectorAll('#info .stars button')].map((b) => b.getAttribute('aria-pressed')).join()""")
        == "true,true,false,false,false", message="the panel shows two stars")
    page.keyboard.press("2")
    wait_until(lambda: "rating" not in items_by_id(document)[a], message="the stars taken away")
    history = run("history", "--limit", "9", document).stdout.decode()
    assert "caption: 1 item" in history and "tag: -sea, 1 item" in history and "label: green, 1 item" in history
    run("undo", document)
    wait_until(lambda: items_by_id(document)[a].get("rating") == 2, message="undo brings the stars back")
    page.keyboard.press("Escape")
    assert page.locator("#viewer").count() == 0

    # The grid: digits rate the selection, t tags it (a leading - takes a tag away).
    tile(page, b).click()
    tile(page, c).click(modifiers=["Shift"])
    page.keyboard.press("5")
    wait_until(lambda: [items_by_id(document)[i].get("rating") for i in (b, c)] == [5, 5], message="the selection rated")
    page.wait_for_selector(f'.tile-badge[data-for="{b}"]')
    page.keyboard.press("t")
    page.locator("#tagger").fill("beach, -nothing")
    page.locator("#tagger").press("Enter")
    wait_until(lambda: [items_by_id(document)[i].get("tags") for i in (b, c)] == [["beach"], ["beach"]], message="the selection tagged")
    # A tag chip finds the items that carry it.
    tile(page, b).dblclick()
    page.wait_for_selector('#info .chip-tag:text("beach")').click()
    assert page.locator("#viewer").count() == 0
    wait_until(lambda: tile_ids(page) == [a, b, c], message="every item tagged beach")
    page.locator("#search").fill("")
    # Refused with a clear message: stars out of range, a tag that is not one line.
    for body in ({"ids": [a], "rating": 9}, {"ids": [a], "addTags": ["two\nlines"]}, {"ids": [a], "label": "pink"}):
        response, answer = server_request(
            server, "POST", f"/api/documents/{document_id(server, document)}/describe", body=json.dumps(body),
            headers={"Content-Type": "application/json"})
        assert response.status == 400, (body, response.status, answer)
    assert items_by_id(document)[a].get("rating") == 2, "nothing changed"


def test_note_cards_are_written_edited_and_dragged_between_pages(workspace, images, serve, context):
    """A note card written on the page lands after the focused item as a card of text; the
    large view shows it and its info panel edits it; dragged with Shift to another page it
    moves there (the source keeps it in its trash), and undo takes it back; plain text
    dropped on a page becomes a card. Each step is read back with `gallery show`."""
    source = new_document(workspace, "source.gallery", images[:2])
    target = new_document(workspace, "target.gallery", images[2:3])
    server = serve(workspace)
    one = open_page(context, server, document_id(server, source))
    two = open_page(context, server, document_id(server, target))
    ready_tiles(one, 2)
    ready_tiles(two, 1)
    a, b = item_ids(source)
    tile(one, a).click()
    one.keyboard.press("n")
    hostile = "Plan <b>bold</b> & <img src=x onerror=alert(1)>\nsecond line"
    one.locator("#composer-text").fill(hostile)
    one.keyboard.press("Control+Enter")
    wait_until(lambda: len(item_ids(source)) == 3, message="the card saved")
    listed = show(source)["items"]
    card = listed[1]
    assert [listed[0]["id"], listed[2]["id"]] == [a, b], "written after the focused item"
    assert card["state"] == "note" and card["note"] == hostile and card["source"] == ""
    note_tile = one.wait_for_selector(f'.tile.note[data-id="{card["id"]}"]')
    assert note_tile.text_content() == hostile, "its text, as text"
    assert one.evaluate("() => document.querySelector('.tile.note b, .tile.note img') === null")
    assert tile_ids(one) == [a, card["id"], b]
    assert "add a note card" in run("history", "--limit", "1", source).stdout.decode()

    # The large view shows the card; its info panel's note field edits the text.
    note_tile.dblclick()
    one.wait_for_selector("#viewer #large-note:not([hidden])")
    assert one.locator("#large-note").text_content() == hostile
    if one.locator("#info").is_hidden():
        one.keyboard.press("i")
    assert one.locator("#info h2").text_content() == "Note card"
    one.locator("#info-note").fill("Bring the long lens\nand a tripod")
    one.locator("#info-caption").click()  # leaving the field saves it
    wait_until(lambda: items_by_id(source)[card["id"]].get("note") == "Bring the long lens\nand a tripod", message="edited")
    wait_until(lambda: one.locator("#large-note").text_content() == "Bring the long lens\nand a tripod", message="shown")
    one.keyboard.press("Escape")
    wait_until(lambda: one.locator(f'.tile.note[data-id="{card["id"]}"]').text_content().startswith("Bring"),
               message="the tile follows")
    # A card's text is changed, never cleared: 400, and nothing changed.
    response, _ = server_request(
        server, "POST", f"/api/documents/{document_id(server, source)}/describe",
        body=json.dumps({"ids": [card["id"]], "note": ""}), headers={"Content-Type": "application/json"})
    assert response.status == 400
    assert items_by_id(source)[card["id"]]["note"].startswith("Bring")

    # Dragged to the other page with Shift: moved there, into the source's trash.
    carried = capture_drag(one, [card["id"]])
    assert carried["text/plain"] == "Bring the long lens\nand a tripod", "a text editor gets its text"
    drop_carried(two, carried, shift=True)
    wait_until(lambda: len(item_ids(target)) == 2, message="the card arrived")
    arrived = show(target)["items"][1]
    assert arrived["state"] == "note" and arrived["note"] == "Bring the long lens\nand a tripod"
    two.wait_for_selector(f'.tile.note[data-id="{arrived["id"]}"]')
    wait_until(lambda: item_ids(source) == [a, b], message="moved out of the source")
    assert trash_ids(source) == [card["id"]]
    run("undo", target)
    wait_until(lambda: two.locator(".tile.note").count() == 0, message="undo takes it back, and the page follows")

    # Plain text dropped on a page becomes a card where it was dropped (the end here).
    drop_carried(two, {"text/plain": "Dropped words"})
    wait_until(lambda: [i.get("note") for i in show(target)["items"]][-1:] == ["Dropped words"], message="a card of text")
    assert one.errors == [] and two.errors == []


def test_the_sort_menu_reorders_the_gallery_as_one_undoable_edit(workspace, images, serve, context):
    document = new_document(workspace, "sorted.gallery", images[:3])
    a, b, c = item_ids(document)
    run("rate", document, c, "--stars", "5")
    run("rate", document, b, "--stars", "2")
    server = serve(document)
    page = open_page(context, server, document_id(server, document))
    ready_tiles(page, 3)
    page.locator("#sort").select_option("rating")
    wait_until(lambda: item_ids(document) == [c, b, a], message="most stars first")
    wait_until(lambda: tile_ids(page) == [c, b, a], message="the page shows the new order")
    assert "sort: by rating, reversed" in run("history", "--limit", "1", document).stdout.decode()
    page.locator("#grid").focus()
    page.keyboard.press("Control+z")
    wait_until(lambda: item_ids(document) == [a, b, c], message="undone")
