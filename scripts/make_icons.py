"""Draw the home-screen icons (static/icons/*.png) from the star of static/icon.svg, in pure Python.

``python scripts/make_icons.py`` writes icon-192/512 (a rounded tile, as the SVG) and maskable-192/512
(a full-bleed tile with the star inside the safe zone that launchers may cut to a circle). The PNGs
are committed; run this again only when the design changes.
"""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

ICONS = Path(__file__).resolve().parent.parent / "static" / "icons"
TILE = (0x8A, 0x3B, 0x12)  # --accent of the light theme
STAR = (0xFB, 0xF8, 0xF3)  # --bg of the light theme
SAMPLES = 4  # sub-scanlines per pixel row, for smooth edges

# static/icon.svg's star on its 64 × 64 canvas, as absolute points
STAR_POINTS = [(32, 10), (38.5, 23.2), (53, 25.3), (42.5, 35.5), (45, 50), (32, 43.2), (19, 50),
               (21.5, 35.5), (11, 25.3), (25.5, 23.2)]

Polygon = list[tuple[float, float]]


def rounded_square(size: float, radius: float) -> Polygon:
    """The outline of a square with rounded corners, the arcs as short straight pieces."""
    points: Polygon = []
    corners = ((size - radius, radius, -90), (size - radius, size - radius, 0),
               (radius, size - radius, 90), (radius, radius, 180))
    for cx, cy, start in corners:
        for step in range(17):
            angle = math.radians(start + step * 90 / 16)
            points.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
    return points


def coverage(polygon: Polygon, size: int) -> list[list[float]]:
    """How much of each pixel the polygon covers (0 to 1), by scanlines with exact horizontal spans."""
    cover = [[0.0] * size for _ in range(size)]
    edges = list(zip(polygon, polygon[1:] + polygon[:1], strict=True))
    for row in range(size):
        line = cover[row]
        for sample in range(SAMPLES):
            y = row + (sample + 0.5) / SAMPLES
            crossings = sorted(
                x0 + (y - y0) * (x1 - x0) / (y1 - y0)
                for (x0, y0), (x1, y1) in edges
                if (y0 <= y < y1) or (y1 <= y < y0)
            )
            for left, right in zip(crossings[::2], crossings[1::2], strict=True):
                left, right = max(left, 0.0), min(right, float(size))
                first, last = int(left), min(int(right), size - 1)
                for x in range(first, last + 1):
                    span = min(right, x + 1) - max(left, x)
                    if span > 0:
                        line[x] += span / SAMPLES
    return cover


def scaled(points: Polygon, factor: float, dx: float = 0.0, dy: float = 0.0) -> Polygon:
    return [(x * factor + dx, y * factor + dy) for x, y in points]


def _filtered(rows: list[bytes], step: int, kind: int) -> bytes:
    """The rows with one PNG row filter (0 none, 1 sub, 2 up, 4 Paeth), each behind its filter byte."""
    out, previous = bytearray(), bytes(len(rows[0]))
    for row in rows:
        out.append(kind)
        for i, value in enumerate(row):
            left = row[i - step] if i >= step else 0
            up, up_left = previous[i], (previous[i - step] if i >= step else 0)
            if kind == 4:
                guess = left + up - up_left
                nearest = min((abs(guess - left), 0, left), (abs(guess - up), 1, up),
                              (abs(guess - up_left), 2, up_left))[2]
            else:
                nearest = (0, left, up)[kind]
            out.append((value - nearest) & 0xFF)
        previous = row
    return bytes(out)


def png(size: int, pixels: bytes) -> bytes:
    """The smallest lossless PNG of ``size`` × ``size`` RGBA pixels that a few plain encodings give.

    An icon has few colours (the tile, the star and their blended edges): as a palette with
    transparency it takes a third of the bytes of 8-bit RGBA, which phones download on the first visit.
    """
    stride = size * 4
    rows = [pixels[y * stride:(y + 1) * stride] for y in range(size)]

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    def packed(data: bytes) -> bytes:
        tries = []
        for strategy in (zlib.Z_DEFAULT_STRATEGY, zlib.Z_FILTERED):
            packer = zlib.compressobj(9, zlib.DEFLATED, 15, 9, strategy)
            tries.append(packer.compress(data) + packer.flush())
        return min(tries, key=len)

    candidates = [chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0))
                  + chunk(b"IDAT", packed(_filtered(rows, 4, kind))) for kind in (0, 1, 2, 4)]
    colours = sorted({pixels[i:i + 4] for i in range(0, len(pixels), 4)}, key=lambda c: (c[3] == 255, c))
    if len(colours) <= 256:  # the translucent colours first: the transparency chunk stops at the last
        index = {colour: number for number, colour in enumerate(colours)}
        indexed = [bytes(index[row[x:x + 4]] for x in range(0, stride, 4)) for row in rows]
        head = (chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 3, 0, 0, 0))
                + chunk(b"PLTE", b"".join(colour[:3] for colour in colours))
                + chunk(b"tRNS", bytes(colour[3] for colour in colours if colour[3] < 255)))
        candidates += [head + chunk(b"IDAT", packed(_filtered(indexed, 1, kind))) for kind in (0, 1, 2, 4)]
    return b"\x89PNG\r\n\x1a\n" + min(candidates, key=len) + chunk(b"IEND", b"")


def draw(size: int, maskable: bool) -> bytes:
    """The icon: the star on the tile; a maskable icon fills the square and keeps the star central."""
    if maskable:
        tile = [(0.0, 0.0), (float(size), 0.0), (float(size), float(size)), (0.0, float(size))]
        # the star spans 42 × 40 units around (32, 30); inside the central 80 % circle it takes 60 %
        factor = size * 0.6 / 42
        star = scaled(STAR_POINTS, factor, size / 2 - 32 * factor, size / 2 - 30 * factor)
    else:
        tile = rounded_square(float(size), size * 14 / 64)
        star = scaled(STAR_POINTS, size / 64)
    tile_cover, star_cover = coverage(tile, size), coverage(star, size)
    out = bytearray()
    for y in range(size):
        for x in range(size):
            alpha = min(tile_cover[y][x], 1.0)
            mix = min(star_cover[y][x], 1.0)
            colour = [round(t + (s - t) * mix) for t, s in zip(TILE, STAR, strict=True)]
            out += bytes((*colour, round(alpha * 255)))
    return png(size, bytes(out))


def main() -> None:
    ICONS.mkdir(parents=True, exist_ok=True)
    for size in (192, 512):
        (ICONS / f"icon-{size}.png").write_bytes(draw(size, maskable=False))
        (ICONS / f"maskable-{size}.png").write_bytes(draw(size, maskable=True))
    print(f"Wrote the icons to {ICONS}")


if __name__ == "__main__":
    main()
