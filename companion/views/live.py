"""A play's live state for other phones; the manifest and service worker that make the site installable."""

import hashlib
import json
from pathlib import Path

from flask import Blueprint, Response, current_app, g, render_template, request, url_for
from flask_babel import get_locale
from flask_babel import gettext as _

from companion import store
from companion.games.common import RulesError
from companion.views.plays import table_of
from companion.web.database import get_db

bp = Blueprint("live", __name__)

# The app's colours, as in static/style.css: the light background and the accent of the top bar.
BACKGROUND_COLOUR = "#fbf8f3"
THEME_COLOUR = "#8a3b12"
ICON_SIZES = (192, 512)
MAX_VERSION = 2**53  # what a phone's script can count up to exactly


def _answer(body: str | dict, mimetype: str, status: int = 200, cache: str = "no-cache") -> Response:
    if isinstance(body, dict):
        body = json.dumps(body, ensure_ascii=False)
    return Response(body, status, {"Cache-Control": cache}, mimetype=mimetype)


def _scores(play: store.Play) -> list[dict] | None:
    """Each seat's score as the page shows it; None if the events no longer fold (the page says why)."""
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
    since = request.args.get("since")
    if since is not None and not (since.isascii() and since.isdigit() and len(since) <= 16
                                  and int(since) <= MAX_VERSION):
        return _answer({"error": _("“since” must be the version number the page shows, e.g. since=3.")},
                       "application/json", 400, "no-store")
    body: dict = {"play": play.id, "version": play.version, "status": play.status,
                  "changed": since is None or int(since) != play.version}
    if body["changed"]:
        page = "plays.result" if play.status == "finished" else "plays.show"
        body.update(url=url_for(page, play_id=play.id), scores=_scores(play))
    return _answer(body, "application/json", cache="no-store")


def _static_fingerprint(folder: str) -> str:
    """A short hash that changes whenever a static file changes, so the worker refreshes its cache."""
    stats = {str(path.relative_to(folder)): path.stat() for path in Path(folder).rglob("*") if path.is_file()}
    entries = sorted((name, stat.st_mtime_ns, stat.st_size) for name, stat in stats.items())
    return hashlib.sha256(repr(entries).encode()).hexdigest()[:12]


@bp.get("/sw.js")
def service_worker():
    """The service worker, at the site root to look after every page, its settings in front of the script."""
    static = current_app.static_folder
    settings = {
        "version": _static_fingerprint(static),
        "offline": url_for("live.offline"),
        # shown only if even the offline page is missing from the phone's cache
        "offline_text": _("You are offline: the companion cannot be reached just now."),
        "static": url_for("static", filename=""),
        # what the worker stores on installation: the offline page and everything it needs
        "precache": [url_for("live.offline"), *(url_for("static", filename=name) for name in (
            "style.css", "live.js", "icon.svg", "icons/icon-192.png"))],
    }
    script = Path(static, "sw.js").read_text(encoding="utf-8")
    return _answer(f"self.COMPANION = {json.dumps(settings)};\n{script}", "text/javascript")


@bp.get("/manifest.webmanifest")
def manifest():
    """The web app manifest: the home-screen name, colours and icons, in the phone's language."""
    home = url_for("home.index")
    return _answer({
        "id": home, "name": _("Game-Night Companion"), "short_name": _("Game Night"),
        "description": _("Scores for Carcassonne – Mayflower, Great Western Trail and Gold West on "
                         "every phone at the table."),
        "lang": str(get_locale()), "start_url": home, "scope": home, "display": "standalone",
        "background_color": BACKGROUND_COLOUR, "theme_color": THEME_COLOUR,
        "icons": [{"src": url_for("static", filename=f"icons/{kind}-{size}.png"), "sizes": f"{size}x{size}",
                   "type": "image/png", "purpose": purpose}
                  for kind, purpose in (("icon", "any"), ("maskable", "maskable")) for size in ICON_SIZES],
    }, "application/manifest+json")


@bp.get("/offline")
def offline():
    """The page the service worker shows when the companion cannot be reached."""
    return render_template("offline.html")

