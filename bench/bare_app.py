"""A bare Flask app answering fixed bytes: the yardstick the companion's answers are measured against.

``BENCH_ANSWERS`` names a folder of recorded answers: ``<n>.head`` holds (method, path, status, headers)
and ``<n>.body`` the body as the companion sent it (compressed if it was). The bare app answers the
same method and path (query included) with the same status, headers and bytes.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

from flask import Flask, Response, request

app = Flask(__name__)
_answers: dict[tuple[str, str], tuple[int, list[tuple[str, str]], bytes]] = {}
for head in Path(os.environ["BENCH_ANSWERS"]).glob("*.head"):
    method, path, status, headers = ast.literal_eval(head.read_text())
    _answers[method, path] = (status, headers, head.with_suffix(".body").read_bytes())


@app.route("/<path:anything>", methods=["GET", "POST"])
def recorded(anything: str) -> Response:
    status, headers, body = _answers[request.method, request.full_path.rstrip("?")]
    return Response(body, status=status, headers=headers)
