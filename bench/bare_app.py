"""A bare Flask app serving fixed bytes: the yardstick the companion's pages are measured against.

``BENCH_PAGES`` names a folder of ``<name>.html`` files; ``/<name>`` answers the file's bytes.
"""

from __future__ import annotations

import os
from pathlib import Path

from flask import Flask, Response

app = Flask(__name__)
_pages = {path.stem: path.read_bytes() for path in Path(os.environ["BENCH_PAGES"]).glob("*.html")}


@app.get("/<name>")
def page(name: str) -> Response:
    return Response(_pages[name], mimetype="text/html")
