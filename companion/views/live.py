"""At the table: the live state of a play for other phones, the installable app and its offline page.

Every phone watching a play asks ``state.json`` every couple of seconds whether the play's version
moved on; the page script then reloads the play page's content. The web app manifest and the
service worker make the site installable and give it an offline page.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from flask import Blueprint, Flask, Response, current_app, g, render_template, request, session, url_for
from flask_babel import get_locale
from flask_babel import gettext as _

from companion import store
from companion.games.common import RulesError
from companion.views.groups import invite_qr_svg
from companion.views.plays import table_of
from companion.web.database import get_db

bp = Blueprint("live", __name__)

# The app's colours, as in static/style.css: the light background and the accent of the top bar.
BACKGROUND_COLOUR = "#fbf8f3"
THEME_COLOUR = "#8a3b12"
ICON_SIZES = (192, 512)
MAX_VERSION = 2**53  # what a phone's script can count up to exactly


class QuietResponse(Response):
    """A response that leaves the session cookie alone unless the request changed the session.

    Flask re-sends a permanent session's cookie with every response. A poll or a worker update that
    was asked before a form was sent, and answered after it, would then put back the cookie from
    before the form: the phone would lose the form's message ("Undone.") or a group it just joined.
    """

    def set_cookie(self, key: str, *args, **kwargs) -> None:
        if key == current_app.config["SESSION_COOKIE_NAME"] and not session.modified:
            return
        super().set_cookie(key, *args, **kwargs)


def _json(body: dict, status: int = 200) -> QuietResponse:
    response = QuietResponse(json.dumps(body, ensure_ascii=False), status=status, mimetype="application/json")
    response.headers["Cache-Control"] = "no-store"
    return response


def _since(value: str | None) -> int | None:
    """The version the asking page shows; None when absent; ValueError when not a version."""
    if value is None:
        return None
    if not (value.isascii() and value.isdigit()) or len(value) > 16 or int(value) > MAX_VERSION:
        raise ValueError(value)
    return int(value)


def _scores(play: store.Play) -> list[dict] | None:
    """Each seat's score as the page shows it: running scores in play, final totals once finished.

    None if the stored events no longer fold (the page then shows the rules' message itself).
    """
    if play.status == "finished":
        totals = {r.seat: r.total for r in store.play_results(get_db(), play.id)}
        points = [totals.get(seat.seat, 0) for seat in play.seats]
    else:
        try:
            points = list(table_of(play).running_scores)
        except RulesError:
            return None
    return [{"seat": seat.seat, "name": seat.name, "colour": seat.colour, "points": score}
            for seat, score in zip(play.seats, points, strict=True)]


@bp.get("/plays/<int:play_id>/state.json")
def state(play_id: int):
    """The play's version; when it differs from ``since``, also where to fetch the page and the scores."""
    play = g.play
    try:
        since = _since(request.args.get("since"))
    except ValueError:
        return _json({"error": _("“since” must be the version number the page shows, e.g. since=3.")}, 400)
    body: dict = {"play": play.id, "version": play.version, "status": play.status,
                  "changed": since != play.version}
    if body["changed"]:
        page = "plays.result" if play.status == "finished" else "plays.show"
        body.update(url=url_for(page, play_id=play.id), scores=_scores(play))
    return _json(body)


def _static_fingerprint(folder: str) -> str:
    """A short hash that changes whenever a static file changes, so the worker refreshes its cache."""
    entries = []
    for root, _dirs, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            stat = os.stat(path)
            entries.append((os.path.relpath(path, folder), stat.st_mtime_ns, stat.st_size))
    return hashlib.sha256(repr(sorted(entries)).encode()).hexdigest()[:12]


def _precached() -> list[str]:
    """What the worker stores on installation: the offline page and everything it needs."""
    return [
        url_for("live.offline"),
        url_for("static", filename="style.css"),
        url_for("static", filename="live.js"),
        url_for("static", filename="icon.svg"),
        url_for("static", filename="icons/icon-192.png"),
    ]


@bp.get("/sw.js")
def service_worker():
    """The service worker, at the site root so that it may look after every page.

    Its settings go in front of the script: the cache version follows the static files, so a changed
    style sheet reaches the phones, and the URLs come from the routes.
    """
    static = current_app.static_folder
    settings = {
        "version": _static_fingerprint(static),
        "offline": url_for("live.offline"),
        # shown only if even the offline page is missing from the phone's cache
        "offline_text": _("You are offline: the companion cannot be reached just now."),
        "static": url_for("static", filename=""),
        "precache": _precached(),
    }
    script = Path(static, "sw.js").read_text(encoding="utf-8")
    response = QuietResponse(f"self.COMPANION = {json.dumps(settings)};\n{script}",
                             mimetype="text/javascript")
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/manifest.webmanifest")
def manifest():
    """The web app manifest: the home-screen name, colours and icons, in the phone's language."""
    icons = [
        {"src": url_for("static", filename=f"icons/{kind}-{size}.png"), "sizes": f"{size}x{size}",
         "type": "image/png", "purpose": purpose}
        for kind, purpose in (("icon", "any"), ("maskable", "maskable"))
        for size in ICON_SIZES
    ]
    body = {
        "id": url_for("home.index"),
        "name": _("Game-Night Companion"),
        "short_name": _("Game Night"),
        "description": _("Scores for Carcassonne – Mayflower, Great Western Trail and Gold West on "
                         "every phone at the table."),
        "lang": str(get_locale()),
        "start_url": url_for("home.index"),
        "scope": url_for("home.index"),
        "display": "standalone",
        "background_color": BACKGROUND_COLOUR,
        "theme_color": THEME_COLOUR,
        "icons": icons,
    }
    response = QuietResponse(json.dumps(body, ensure_ascii=False), mimetype="application/manifest+json")
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/offline")
def offline():
    """The page the service worker shows when the companion cannot be reached."""
    return QuietResponse(render_template("offline.html"), mimetype="text/html")


def live_strings() -> dict[str, str]:
    """The sentences the page script shows, translated; ``{count}`` is filled in by the script."""
    return {
        "updated": _("Scores updated."),
        "refresh": _("New entries — tap to refresh"),
        "finished": _("The play is finished — tap to see the result"),
        "lost": _("Connection lost: the scores may be out of date. Trying again…"),
        "gone": _("This play is no longer available on this phone."),
        "offline": _("This phone is offline."),
        "kept": _("Not sent: this phone is offline. Your entry is kept on this phone; "
                  "send it again when you are back online."),
        "send": _("Send again"),
        "discard": _("Discard"),
        "still_offline": _("Still offline. Send it again when this phone is back online."),
        "wider": _("Wider than the screen: swipe the table sideways to see every column."),
    }


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    app.jinja_env.globals.update(qr_svg=invite_qr_svg, live_strings=live_strings)
