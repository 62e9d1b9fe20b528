"""Installable and readable: the manifest, the icons, the service worker, the offline page, contrast."""

from __future__ import annotations

import json
import re
import struct
import zlib
from pathlib import Path

import pytest

from companion.views.live import _static_fingerprint
from scripts.make_icons import draw

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "static"


def png_facts(data: bytes) -> tuple[int, int, int, bytes]:
    """Width, height, colour type and the first row of pixels (RGBA) of an 8-bit RGBA or palette PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height, depth, colour_type = struct.unpack(">IIBB", data[16:26])
    assert depth == 8 and colour_type in (3, 6)  # palette (with transparency) or RGBA
    chunks: dict[bytes, bytes] = {}
    position = 8
    while position < len(data):
        (length,) = struct.unpack(">I", data[position:position + 4])
        kind = data[position + 4:position + 8]
        chunks[kind] = chunks.get(kind, b"") + data[position + 8:position + 8 + length]
        position += length + 12
    step = 4 if colour_type == 6 else 1
    raw = zlib.decompress(chunks[b"IDAT"])
    kind, row = raw[0], bytearray(raw[1:1 + width * step])
    for i in range(len(row)):  # the first row's filters: none, sub, up (nothing above), average, Paeth
        left = row[i - step] if i >= step else 0
        row[i] = (row[i] + (0, left, 0, left // 2, left)[kind]) & 0xFF
    if colour_type == 3:
        palette, alphas = chunks[b"PLTE"], chunks.get(b"tRNS", b"")
        row = bytearray(b"".join(palette[3 * n:3 * n + 3] + bytes([alphas[n] if n < len(alphas) else 255])
                                 for n in row))
    return width, height, colour_type, bytes(row)


def test_the_manifest_makes_the_site_installable(client):
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200 and response.mimetype == "application/manifest+json"
    manifest = json.loads(response.data)
    assert manifest["name"] == "Game-Night Companion" and manifest["short_name"] == "Game Night"
    assert manifest["start_url"] == "/" and manifest["scope"] == "/"
    assert manifest["display"] == "standalone"
    assert manifest["theme_color"] == "#8a3b12" and manifest["background_color"] == "#fbf8f3"
    sizes = {(icon["sizes"], icon["purpose"]) for icon in manifest["icons"]}
    assert sizes == {("192x192", "any"), ("512x512", "any"), ("192x192", "maskable"), ("512x512", "maskable")}
    for icon in manifest["icons"]:
        image = client.get(icon["src"])
        assert image.status_code == 200 and image.mimetype == "image/png", icon["src"]
        width, height, colour_type, _ = png_facts(image.data)
        assert f"{width}x{height}" == icon["sizes"] and colour_type in (3, 6)  # with transparency


@pytest.mark.parametrize("name, corner_alpha", [
    pytest.param("icon-192.png", 0, id="rounded-tile-has-transparent-corners"),
    pytest.param("maskable-192.png", 255, id="maskable-fills-the-square"),
])
def test_the_icons_are_the_ones_the_script_draws(name, corner_alpha):
    committed = (STATIC / "icons" / name).read_bytes()
    assert committed == draw(192, maskable=name.startswith("maskable"))
    _, _, _, first_row = png_facts(committed)
    assert first_row[3] == corner_alpha


def test_every_page_links_the_manifest_the_theme_colour_and_the_script(client):
    page = client.get("/").text
    assert '<link rel="manifest" href="/manifest.webmanifest">' in page
    for scheme in ("light", "dark"):
        theme = (r'<meta name="theme-color" content="#[0-9a-f]{6}" '
                 rf'media="\(prefers-color-scheme: {scheme}\)">')
        assert re.search(theme, page), scheme
    script = re.search(r"<script ([^>]*)></script>", page).group(1)
    assert 'src="/static/live.js"' in script and "defer" in script and 'data-sw="/sw.js"' in script
    assert 'data-poll-ms="1500"' in script  # a play page asks every 1.5 s unless LIVE_POLL_MS says otherwise
    strings = json.loads(re.search(r"data-strings='([^']*)'", script).group(1))
    assert strings["refresh"] == "New entries — tap to refresh"
    queue = json.loads(re.search(r"data-queue-strings='([^']*)'", script).group(1))
    assert "{count}" in queue["waiting_many"]
    assert "<script>" not in page and " style=" not in page  # the security policy forbids both


def test_the_service_worker_looks_after_the_whole_site(client):
    response = client.get("/sw.js")
    assert response.status_code == 200 and response.mimetype == "text/javascript"
    assert response.headers["Cache-Control"] == "no-cache"
    first_line, script = response.text.split("\n", 1)
    settings = json.loads(first_line.removeprefix("self.COMPANION = ").removesuffix(";"))
    assert settings["offline"] == "/offline" and settings["static"] == "/static/"
    assert script == (STATIC / "sw.js").read_text()
    assert "/offline" in settings["precache"] and "/static/style.css" in settings["precache"]
    for url in settings["precache"]:
        assert client.get(url).status_code == 200, url


def test_the_cache_version_follows_the_static_files(tmp_path):
    (tmp_path / "style.css").write_text("body { color: black; }")
    before = _static_fingerprint(str(tmp_path))
    assert _static_fingerprint(str(tmp_path)) == before
    (tmp_path / "style.css").write_text("body { color: navy; }")
    assert _static_fingerprint(str(tmp_path)) != before


def test_the_offline_page_says_what_happened_and_what_to_do(client):
    response = client.get("/offline")
    assert response.status_code == 200
    assert "You are offline" in response.text and "Try again" in response.text
    assert 'data-offline-page="/offline"' in response.text
    assert 'href="/"' in response.text


# --- contrast of the colours in static/style.css, light and dark -----------------------------------

def theme_colours() -> dict[str, dict[str, str]]:
    """The custom properties of both themes; the dark theme inherits what it does not change."""
    css = (STATIC / "style.css").read_text()
    light: dict[str, str] = {}
    dark: dict[str, str] = {}
    pattern = r"(@media \(prefers-color-scheme: dark\)\s*\{\s*)?:root\s*\{([^}]*)\}"
    for match in re.finditer(pattern, css):
        target = dark if match.group(1) else light
        target.update(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{3,6})\b", match.group(2)))
    return {"light": light, "dark": {**light, **dark}}


def luminance(colour: str) -> float:
    digits = colour.lstrip("#")
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    channels = [int(digits[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(first: str, second: str) -> float:
    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


TEXT = 4.5  # WCAG AA for text
NON_TEXT = 3.0  # WCAG AA for a field's outline and the focus ring
PAIRS = [
    ("fg", "bg", TEXT), ("fg", "card", TEXT), ("muted", "bg", TEXT), ("muted", "card", TEXT),
    ("accent", "bg", TEXT), ("accent", "card", TEXT), ("accent-fg", "accent", TEXT),
    ("danger", "bg", TEXT), ("danger", "card", TEXT), ("ok", "bg", TEXT), ("ok", "card", TEXT),
    ("field-line", "bg", NON_TEXT), ("field-line", "card", NON_TEXT),
    ("focus", "bg", NON_TEXT), ("focus", "card", NON_TEXT),
]


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("foreground, background, needed", [
    pytest.param(*pair, id=f"{pair[0]}-on-{pair[1]}") for pair in PAIRS
])
def test_colours_are_readable_in_both_themes(theme, foreground, background, needed):
    colours = theme_colours()[theme]
    ratio = contrast(colours[foreground], colours[background])
    assert ratio >= needed, f"{theme}: --{foreground} on --{background} is {ratio:.2f}:1"
