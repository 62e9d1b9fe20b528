"""Text answers are gzipped for clients that accept it; the bytes are the same once unpacked."""

from __future__ import annotations

import gzip

import pytest


@pytest.mark.parametrize("path", ["/", "/static/style.css", "/static/live.js"])
def test_text_is_gzipped_when_accepted(client, path):
    plain = client.get(path)
    packed = client.get(path, headers={"Accept-Encoding": "gzip, deflate"})
    assert plain.status_code == packed.status_code == 200
    assert "Content-Encoding" not in plain.headers
    assert packed.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed.headers["Vary"]
    assert gzip.decompress(packed.data) == plain.data
    assert len(packed.data) < len(plain.data)


def test_small_binary_and_api_answers_are_left_alone(client):
    api = client.get("/api/v1/openapi.json", headers={"Accept-Encoding": "gzip"})
    assert api.status_code == 200 and "Content-Encoding" not in api.headers
    small = client.get("/static/icon.svg", headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in small.headers
    png = client.get("/static/icons/icon-192.png", headers={"Accept-Encoding": "gzip"})
    assert png.status_code == 200 and "Content-Encoding" not in png.headers
