"""Gzip for text answers, so that a page with its stylesheet and script stays small on a phone. A static
file, minified (the files keep their comments for their readers), is compressed once per version (the read
cache keeps it) and has its own ETag (the file's with ``-gzip``, so a phone revalidating it gets 304)."""

import functools
import gzip

import rcssmin
import rjsmin
from flask import Flask, Response, request

# Pages and the files they load. Not the JSON API: its answers are small, and its clients should not have
# to unpack them.
COMPRESSIBLE = ("text/", "application/javascript", "application/manifest+json", "image/svg+xml")
MIN_SIZE = 512  # below this the gzip header costs more than it saves
LEVEL = 6
STATIC_LEVEL = 9  # a static file is compressed once per version (the read cache): the smallest pays
GZIP_TAG = "-gzip"


# "/*! …": a licence stays with its code
_jsmin = functools.partial(rjsmin.jsmin, keep_bang_comments=True)
MINIFIERS = {"text/css": functools.partial(rcssmin.cssmin, keep_bang_comments=True),
             "text/javascript": _jsmin, "application/javascript": _jsmin}


def compress(body: bytes, level: int = LEVEL) -> bytes:
    # mtime=0: the same bytes give the same compressed bytes (and cached copies stay comparable)
    return gzip.compress(body, compresslevel=level, mtime=0)


def _static_response(response: Response) -> Response:
    """A static file: 304 if the phone has its compressed copy already, else that copy."""
    etag, weak = response.get_etag()
    if not etag or (response.content_length is not None and response.content_length < MIN_SIZE):
        return response
    gzip_etag = etag + GZIP_TAG
    response.direct_passthrough = False  # the file is read to compress it
    if request.if_none_match.contains_weak(gzip_etag):
        body = b""
        response.status_code = 304  # werkzeug drops the body headers of a 304
    else:
        body = compress(MINIFIERS.get(response.mimetype or "", bytes)(response.get_data()), STATIC_LEVEL)
        response.headers["Content-Encoding"] = "gzip"
    response.close()  # the file, opened for a full answer
    response.set_data(body)
    response.set_etag(gzip_etag, weak=weak)
    return response


def gzip_response(response: Response) -> Response:
    if request.endpoint == "static":
        # "inline; filename=…": what a browser does with a file it loads for a page anyway, on every file
        response.headers.pop("Content-Disposition", None)
    if not (200 <= response.status_code < 300 and response.status_code not in (204, 206)
            and "Content-Encoding" not in response.headers
            and (response.mimetype or "").startswith(COMPRESSIBLE)):
        return response
    response.vary.add("Accept-Encoding")
    if not request.accept_encodings["gzip"]:  # its quality, "*" included; 0: not accepted
        return response
    if request.endpoint == "static":
        return _static_response(response)
    response.direct_passthrough = False
    body = response.get_data()
    if len(body) < MIN_SIZE:
        return response
    response.set_data(compress(body))
    response.headers["Content-Encoding"] = "gzip"
    etag, weak = response.get_etag()
    if etag and not weak:  # compressed, the same answer is another representation: a strong validator differs
        response.set_etag(etag + GZIP_TAG)
    return response


def init_app(app: Flask) -> None:
    app.after_request(gzip_response)
