"""Gzip for text answers, so that a page with its stylesheet and script stays small on a phone."""

from __future__ import annotations

import gzip

from flask import Flask, Response, request

# Pages and the files they load. Not the JSON API: its answers are small, and its clients (scripts,
# test tools calling the app directly) should not have to unpack them.
COMPRESSIBLE = ("text/", "application/javascript", "application/manifest+json", "image/svg+xml")
MIN_SIZE = 512  # below this the gzip header costs more than it saves


def gzip_response(response: Response) -> Response:
    """Compress the body when the client accepts gzip and the body is text worth compressing."""
    if (
        "gzip" not in request.headers.get("Accept-Encoding", "").lower()
        or response.status_code < 200 or response.status_code in (204, 206, 304)
        or "Content-Encoding" in response.headers
        or not (response.mimetype or "").startswith(COMPRESSIBLE)
    ):
        return response
    response.direct_passthrough = False  # static files: read the file so it can be compressed
    body = response.get_data()
    if len(body) < MIN_SIZE:
        return response
    response.set_data(gzip.compress(body, compresslevel=6))
    response.headers["Content-Encoding"] = "gzip"
    response.vary.add("Accept-Encoding")
    if response.get_etag()[0]:
        # the same file compressed is another representation: keep validators distinct
        etag, weak = response.get_etag()
        response.set_etag(etag + "-gzip", weak=weak)
    return response


def init_app(app: Flask) -> None:
    app.after_request(gzip_response)
