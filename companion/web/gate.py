"""The one hook that lets a phone onto the pages of a group or a play (``store.access.reach`` decides; the
view finds what it reached on ``g``), or answers 404, not 403: a phone must not learn that a group exists."""

from collections.abc import Callable

from flask import Blueprint, Flask, abort, current_app, g, request
from werkzeug.exceptions import NotFound
from werkzeug.routing import IntegerConverter

from companion.store.access import Restoring, in_trash, reach
from companion.web.database import get_db
from companion.web.security import membership_tokens


def restores(what: Restoring) -> Callable:
    """Mark a view that takes a ``what`` ("group" or "play") out of the trash: the gate lets it reach it."""
    def mark(view: Callable) -> Callable:
        view.restores = what
        return view
    return mark


def open_gate() -> None:
    """Let this phone reach the group or play its address names, or answer 404."""
    group_id, play_id = ((request.view_args or {}).get(name) for name in ("group_id", "play_id"))
    if group_id is None and play_id is None:
        return
    view = current_app.view_functions.get(request.endpoint or "")
    found = reach(get_db(), membership_tokens(), group_id, play_id, getattr(view, "restores", None))
    if found is None:
        trashed = in_trash(get_db(), membership_tokens(), group_id, play_id)
        raise InTrash(*trashed) if trashed else NotFound()
    g.membership, g.group, g.play, g.time_zone = found.membership, found.group, found.play, found.time_zone


class InTrash(NotFound):
    """A member's group or play that another phone deleted: still 404, saying where it went."""

    def __init__(self, what: Restoring, group_id: int) -> None:
        super().__init__()
        self.what, self.group_id = what, group_id


def plays_of(bp: Blueprint, game_slug: str) -> None:
    """The addresses of a game's own blueprint show only plays of that game (404 for another's)."""
    @bp.before_request
    def _of_this_game() -> None:
        if g.get("play") is not None and g.play.game != game_slug:
            abort(404)


class StoredInteger(IntegerConverter):
    """``<int:…>`` in every address: at most SQLite's largest integer (404, not an overflow in the gate)."""

    def __init__(self, map, fixed_digits: int = 0, min: int | None = None, max: int = 2**63 - 1,
                 signed: bool = False) -> None:
        super().__init__(map, fixed_digits, min, max, signed)


def init_app(app: Flask) -> None:
    app.url_map.converters["int"] = StoredInteger  # before the blueprints' rules are added
    app.before_request(open_gate)
