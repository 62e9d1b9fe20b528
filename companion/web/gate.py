"""The one hook that lets a phone onto the pages of a group or a play (``store.access.reach`` decides; the
view finds what it reached on ``g``), or answers 404, not 403: a phone must not learn that a group exists.
Only a member learns that it went to the trash, or that a write it sends again was stored before."""

from collections.abc import Callable

from flask import Blueprint, Flask, abort, current_app, g, request, url_for
from werkzeug.exceptions import NotFound
from werkzeug.routing import IntegerConverter

from companion.store.access import Restoring, in_trash, reach
from companion.store.groups import existing_tokens
from companion.store.request_ids import RepeatedRequest, RequestId, seen_request
from companion.web.database import get_db
from companion.web.security import membership_tokens


def restores(what: Restoring) -> Callable:
    """Mark a view that takes a ``what`` ("group" or "play") out of the trash: the gate lets it reach it."""
    def mark(view: Callable) -> Callable:
        view.restores = what
        return view
    return mark


def leaves(view: Callable) -> Callable:
    """Mark a view that takes this phone out of its group: sent again once it did (a double tap, a resend
    after a lost answer), the phone has no membership left to reach the group with (``LeftBefore``)."""
    view.leaves = True
    return view


class LeftBefore(Exception):  # a situation the view's blueprint answers, not a failure
    """A phone's "Leave" for a group it cannot reach, from a cookie holding a membership that is gone."""


def open_gate() -> None:
    """Let this phone reach the group or play its address names, or answer 404."""
    group_id, play_id = ((request.view_args or {}).get(name) for name in ("group_id", "play_id"))
    if group_id is None and play_id is None:
        return
    view = current_app.view_functions.get(request.endpoint or "")
    found = reach(get_db(), membership_tokens(), group_id, play_id, getattr(view, "restores", None))
    if found is None:
        trashed = in_trash(get_db(), membership_tokens(), group_id, play_id)
        if trashed is None:
            if getattr(view, "leaves", False) and request.method == "POST" and _holds_a_lost_membership():
                raise LeftBefore()
            raise NotFound()
        trash = InTrash(trashed.what, trashed.group_id)
        raise _sent_before(trashed.membership_id, play_id, trash) or trash
    g.membership, g.group, g.play, g.time_zone = found.membership, found.group, found.play, found.time_zone


class InTrash(NotFound):
    """A member's group or play that another phone deleted: still 404, saying where it went."""

    def __init__(self, what: Restoring, group_id: int) -> None:
        super().__init__()
        self.what, self.group_id = what, group_id

    @property
    def page(self) -> str:
        """Where its phones find it: the group page's trash for a play, the home page for a group."""
        if self.what == "play":
            return url_for("groups.show", group_id=self.group_id, _anchor="trash")
        return url_for("home.index")


class SentBeforeTrash(RepeatedRequest):
    """A write a member's phone sends again (its answer lost), stored before what it went to was deleted
    (its own "Delete", say): already saved, and the phone goes to the trash it is in now."""

    def __init__(self, seen: RepeatedRequest, trash: InTrash) -> None:
        super().__init__(seen.group_id, seen.play_id)
        self.page = trash.page


def _sent_before(membership_id: int, play_id: int | None, trash: InTrash) -> SentBeforeTrash | None:
    """The answer to a POST whose request id this member's phone had stored for the group or play."""
    request_id = request.form.get("request_id") if request.method == "POST" else None
    if request_id is None:
        return None
    seen = seen_request(get_db(), RequestId(request_id, membership_id, play_id))
    return SentBeforeTrash(seen, trash) if seen else None


def _holds_a_lost_membership() -> bool:
    """Whether the cookie holds a membership that is gone (the phone left, or was removed): whatever the
    group asked about, so the answer tells no phone whether that group exists."""
    tokens = membership_tokens()
    return len(existing_tokens(get_db(), tokens)) < len(tokens)


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
