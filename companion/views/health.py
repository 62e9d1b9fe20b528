"""``GET /healthz`` for supervisors and monitors: does the database answer, and does its replica keep up?"""

import contextlib
import sqlite3
import time

from flask import Blueprint, current_app, jsonify, request

from companion import config as settings
from companion.store import MIGRATIONS, schema_version
from companion.store import replica as replicas
from companion.store.connection import connect_read_only
from companion.store.migrations import UnknownDatabase, check_known
from companion.web.security import csrf

bp = Blueprint("health", __name__)

_STARTED = "companion.healthz.started"


@bp.record_once
def _remember_the_start(setup) -> None:
    setup.app.extensions[_STARTED] = time.monotonic()


@bp.get("/healthz")
@csrf.exempt
def healthz():
    """200 "ok" when the database opens (never created here) and is up to date, else 503 "unavailable"
    (another program's database or a newer companion's too); no session, so no cookie. A folder replica
    too far behind makes it 503 "degraded" (200 with ``?replica=ignore``, for a proxy that should keep
    sending phones to a site whose replica fails)."""
    try:
        with contextlib.closing(connect_read_only(current_app.config["DATABASE"])) as db:
            version = schema_version(db)
            check_known(db)
    except sqlite3.Error as error:
        return _answer(503, "unavailable", f"The database cannot be opened: {error}.")
    except UnknownDatabase as error:
        return _answer(503, "unavailable", f"The database {error.why}", schema=version)
    if version < len(MIGRATIONS):
        return _answer(503, "unavailable", "The database is not up to date: run `game-night-companion "
                                           "init-db` (or `flask --app app init-db`).", schema=version)
    url = current_app.config.get("COMPANION_REPLICA_URL")
    if not url:
        return _answer(200, "ok", schema=version)
    replica, problem = _replica(url)
    if problem is None:
        return _answer(200, "ok", schema=version, replica=replica)
    code = 200 if request.args.get("replica") == "ignore" else 503
    return _answer(code, "degraded", problem, schema=version, replica=replica)


def _replica(url: str) -> tuple[dict, str | None]:
    """What /healthz says of the replica, and why the site is degraded (None: it is not)."""
    shown = settings.shown_url(url)
    folder = replicas.replica_folder(url)
    if folder is None:  # a bucket or SFTP: nothing here reads how far it is
        return {"url": shown, "state": "unknown", "lag_seconds": None,
                "note": "The lag of this kind of replica is not known here: Litestream's log tells "
                        "whether it copies."}, None
    allowed = current_app.config["COMPANION_REPLICA_MAX_LAG"]  # checked when the site starts
    found = replicas.state(current_app.config["DATABASE"], folder)
    word = "empty" if not found.txid else "held" if found.lag_seconds == 0 else "behind"
    answer = {"url": shown, "state": word, "lag_seconds": found.lag_seconds, "txid": found.txid,
              "max_lag_seconds": allowed}
    running = time.monotonic() - current_app.extensions.get(_STARTED, 0.0)
    if running <= allowed or word == "held":  # Litestream is given as long to copy what it found at start
        return answer, None
    if word == "empty":  # every commit the database holds (at the least, its migrations) is missing
        return answer, (f"The replica has copied nothing in the {running:.0f} s since the site started: "
                        "see Litestream's log (can it write to the replica's folder?).")
    if found.lag_seconds > allowed:
        return answer, (f"The replica is behind by up to {found.lag_seconds:g} s, more than the "
                        f"{allowed:g} s allowed: see Litestream's log (is the replica's folder writable, "
                        "its disk full?).")
    return answer, None


def _answer(status: int, word: str, reason: str | None = None, **details):
    body = {"status": word, **details} | ({"reason": reason} if reason else {})
    return jsonify(body), status, {"Cache-Control": "no-store"}
