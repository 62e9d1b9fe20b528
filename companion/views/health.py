"""``GET /healthz`` for process supervisors and load balancers: does the database answer, and how far
behind is its replica?"""

from __future__ import annotations

import contextlib
import sqlite3

from flask import Blueprint, current_app, jsonify

from companion import config as settings
from companion.store import MIGRATIONS, schema_version
from companion.store import replica as replicas
from companion.store.connection import connect_read_only
from companion.web.security import csrf

bp = Blueprint("health", __name__)


@bp.get("/healthz")
@csrf.exempt
def healthz():
    """200 ``{"status": "ok"}`` when the database opens (never created here) and is up to date, else 503
    with the reason; no session, so no cookie. With a replica, its URL and for a folder ``lag_seconds``,
    how far at most it is behind (0: it holds every commit; null: nothing copied yet, or not known)."""
    try:
        with contextlib.closing(connect_read_only(current_app.config["DATABASE"])) as db:
            version = schema_version(db)
    except sqlite3.Error as error:
        return _answer(503, "unavailable", f"The database cannot be opened: {error}.")
    if version < len(MIGRATIONS):
        return _answer(503, "unavailable", "The database is not up to date: run `game-night-companion "
                                           "init-db` (or `flask --app app init-db`).", schema=version)
    return _answer(200, "ok", schema=version, **_replica())


def _replica() -> dict:
    url = current_app.config.get("COMPANION_REPLICA_URL")
    if not url:
        return {}
    folder = replicas.replica_folder(url)
    answer = {"url": settings.shown_url(url), "lag_seconds": None}
    if folder is not None:
        found = replicas.state(current_app.config["DATABASE"], folder)
        answer |= {"lag_seconds": found.lag_seconds, "txid": found.txid}
    return {"replica": answer}


def _answer(status: int, word: str, reason: str | None = None, **details):
    body = {"status": word, **details} | ({"reason": reason} if reason else {})
    return jsonify(body), status, {"Cache-Control": "no-store"}
