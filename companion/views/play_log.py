"""A play's whole event log, a page of entries at a time: the play page shows only the newest."""

from __future__ import annotations

from flask import Blueprint, abort, g, render_template, request

from companion import store
from companion.views.catalogue import get_game
from companion.web.database import get_db

bp = Blueprint("play_log", __name__)

LOG_PAGE = 100  # entries per page of the log


@bp.get("/plays/<int:play_id>/log")
def show(play_id: int):
    """The newest entries of the play's log, or those before entry ``before`` (its number)."""
    play = g.play
    before = request.args.get("before")
    if before is not None and not (before.isascii() and before.isdigit() and 1 < int(before) < 2**53):
        abort(400)
    events = store.newest_events(get_db(), play.id, LOG_PAGE, int(before) if before else None)
    return render_template("play_log.html", play=play, game=get_game(play.game),
                           group=g.group, events=events)
