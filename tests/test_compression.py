"""Text answers are gzipped for clients that accept it; the bytes are the same once unpacked."""

from __future__ import annotations

import gzip
import os
import re
from pathlib import Path

import pytest

# A form's CSRF token is signed with the second it was made in: two answers a second apart differ there.
CSRF_TOKEN = re.compile(rb'(name="csrf_token" type="hidden" value=")[^"]+')


def without_token(page: bytes) -> bytes:
    return CSRF_TOKEN.sub(rb"\1", page)


def test_a_page_is_gzipped_when_accepted(client):
    plain = client.get("/")
    packed = client.get("/", headers={"Accept-Encoding": "gzip, deflate"})
    assert plain.status_code == packed.status_code == 200
    assert "Content-Encoding" not in plain.headers
    assert packed.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed.headers["Vary"]
    assert CSRF_TOKEN.search(plain.data)
    assert without_token(gzip.decompress(packed.data)) == without_token(plain.data)
    assert len(packed.data) < len(plain.data)


def test_small_binary_and_api_answers_are_left_alone(client):
    api = client.get("/api/v1/openapi.json", headers={"Accept-Encoding": "gzip"})
    assert api.status_code == 200 and "Content-Encoding" not in api.headers
    small = client.get("/static/icon.svg", headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in small.headers
    png = client.get("/static/icons/icon-192.png", headers={"Accept-Encoding": "gzip"})
    assert png.status_code == 200 and "Content-Encoding" not in png.headers


@pytest.mark.parametrize("path", ["/static/style.css", "/static/live.js"])
def test_an_unchanged_static_file_is_not_sent_again(client, path):
    first = client.get(path, headers={"Accept-Encoding": "gzip"})
    assert first.headers["Content-Encoding"] == "gzip" and first.get_etag()[0].endswith("-gzip")
    again = client.get(path, headers={"Accept-Encoding": "gzip", "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    assert again.headers["ETag"] == first.headers["ETag"]
    # a phone that kept the plain copy revalidates it just as well
    plain = client.get(path)
    assert client.get(path, headers={"If-None-Match": plain.headers["ETag"]}).status_code == 304


def test_a_static_file_is_compressed_once(client, monkeypatch):
    from companion.web import compression

    calls = []
    real = compression.compress
    monkeypatch.setattr(compression, "compress",
                        lambda body, *level: calls.append(body) or real(body, *level))
    bodies = {client.get("/static/style.css", headers={"Accept-Encoding": "gzip"}).data for _ in range(3)}
    assert len(bodies) == 1 and len(calls) == 1


@pytest.fixture
def sheet(app, tmp_path) -> Path:
    """A style sheet in a static folder of its own, which the test may edit."""
    folder = tmp_path / "files"
    folder.mkdir()
    app.static_folder = str(folder)
    sheet = folder / "sheet.css"
    sheet.write_text("body { color: red; }\n" * 100)
    return sheet


def edit_later(file: Path, text: str) -> None:
    """Edit ``file`` as a later edit would, even on a file system with coarse times."""
    file.write_text(text)
    later = file.stat().st_mtime + 5
    os.utime(file, (later, later))


def test_a_changed_static_file_is_compressed_again(client, sheet):
    first = client.get("/static/sheet.css", headers={"Accept-Encoding": "gzip"})
    edit_later(sheet, "body { color: blue; }\n" * 100)
    second = client.get("/static/sheet.css", headers={"Accept-Encoding": "gzip",
                                                      "If-None-Match": first.headers["ETag"]})
    assert second.status_code == 200 and second.headers["ETag"] != first.headers["ETag"]
    assert b"blue" in gzip.decompress(second.data)


@pytest.mark.parametrize(("accept", "packed"), [
    ("gzip", True),
    ("GZIP;q=0.5", True),
    ("deflate, *", True),
    ("gzip;q=0", False),
    ("gzip;q=0.0, deflate", False),
    ("*;q=0", False),
    ("gzip;q=0, *", False),
    ("identity", False),
    ("br", False),
    ("gzip;q=nonsense", False),
])
def test_the_phones_accept_encoding_is_honoured(client, accept, packed):
    for path in ("/", "/static/style.css"):
        response = client.get(path, headers={"Accept-Encoding": accept})
        assert response.status_code == 200
        assert (response.headers.get("Content-Encoding") == "gzip") is packed, path


@pytest.mark.parametrize("path", ["/static/style.css", "/static/live.js", "/static/sw.js"])
def test_a_static_text_file_is_sent_as_written_and_gzipped_minified(app, client, path):
    """Plain, a script or style sheet comes as written; gzipped, without its comments and indentation."""
    written = Path(app.static_folder, path.removeprefix("/static/")).read_bytes()
    plain = client.get(path)
    assert plain.status_code == 200 and plain.data == written
    packed = client.get(path, headers={"Accept-Encoding": "gzip"})
    assert packed.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in packed.headers["Vary"]
    unpacked = gzip.decompress(packed.data)
    assert b"\n  " not in unpacked and b"// " not in unpacked  # no indentation, no comments
    assert len(unpacked) < len(written) and len(packed.data) < len(written) / 2


def test_a_vendored_script_keeps_its_licence_when_minified(client):
    packed = client.get("/static/vendor/nosleep.min.js", headers={"Accept-Encoding": "gzip"})
    script = gzip.decompress(packed.data)
    assert script.startswith(b"/*! NoSleep.js") and b"MIT License" in script


def test_a_static_file_is_answered_before_flask_and_a_changed_file_at_once(app, client, sheet):
    from tests.test_page_cache import views_run

    gzipped = {"Accept-Encoding": "gzip"}
    first = client.get("/static/sheet.css", headers=gzipped)
    revalidated = client.get("/static/sheet.css", headers={**gzipped, "If-None-Match": first.headers["ETag"]})
    seen = views_run(app)
    again = client.get("/static/sheet.css", headers=gzipped)
    still = client.get("/static/sheet.css", headers={**gzipped, "If-None-Match": first.headers["ETag"]})
    assert seen == []  # both answered from what was kept: Flask did not run
    assert (again.status_code, again.data, again.headers) == (200, first.data, first.headers)
    assert still.status_code == revalidated.status_code == 304
    assert still.headers["ETag"] == revalidated.headers["ETag"]
    plain = client.get("/static/sheet.css")  # another encoding: another answer, by Flask
    assert "Content-Encoding" not in plain.headers and seen == ["/static/sheet.css"]
    edit_later(sheet, "body { color: blue; }\n" * 100)
    changed = client.get("/static/sheet.css", headers={**gzipped, "If-None-Match": first.headers["ETag"]})
    assert changed.status_code == 200 and b"blue" in gzip.decompress(changed.data)
    assert client.get("/static/missing.css").status_code == 404
    assert client.get("/static/../app.py").status_code == 404
    assert client.get("/static/sheet.css%00.txt").status_code == 404  # a name no file can have
