"""What several views need: the database, the current group or play, and form errors."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from flask import abort, current_app, flash, redirect, url_for
from werkzeug.wrappers import Response

from companion import store
from companion.database import get_db
from companion.games import custom
from companion.games.common import FinalResult, PlaySetup, Seat
from companion.i18n import translated
from companion.messages import Refused
from companion.security import require_member


def utc_now() -> datetime:
    """The current time in UTC; a test may set ``CLOCK`` in the config to a function to move it."""
    clock = current_app.config.get("CLOCK")
    return clock() if clock else datetime.now(UTC)


def timestamp(moment: datetime) -> str:
    """A time as the store keeps it: ISO 8601 in UTC, to the second."""
    return moment.astimezone(UTC).replace(microsecond=0).isoformat()


def purge_old_trash() -> None:
    """Delete for good what has been in a trash for longer than it is kept (cheap when nothing is due)."""
    store.purge_trash(get_db(), timestamp(utc_now() - timedelta(days=store.TRASH_DAYS)))


def member_group(group_id: int) -> store.Group:
    """The group, if this phone has joined it; 404 otherwise."""
    require_member(group_id)
    try:
        return store.get_group(get_db(), group_id)
    except store.NotFound:
        abort(404)


def member_play(play_id: int) -> store.Play:
    """The play, if this phone has joined its group; 404 otherwise."""
    try:
        play = store.get_play(get_db(), play_id)
    except store.NotFound:
        abort(404)
    require_member(play.group_id)
    return play


def member_play_of(play_id: int, game_slug: str) -> store.Play:
    """The play, if this phone joined its group and it is a play of that game; 404 otherwise."""
    play = member_play(play_id)
    if play.game != game_slug:
        abort(404)
    return play


def result_inputs(result: FinalResult) -> list[store.ResultInput]:
    """The rules' final result as the rows the store keeps, in seat order."""
    return [store.ResultInput(seat, player.total, player.rank, player.breakdown)
            for seat, player in enumerate(result.players)]


def play_setup(play: store.Play) -> PlaySetup:
    return PlaySetup(game=play.game, seats=tuple(Seat(s.name, s.colour) for s in play.seats),
                     options=play.options)


def to_play(play_id: int, anchor: str | None = None) -> Response:
    return redirect(url_for("plays.show", play_id=play_id, _anchor=anchor))


def flash_rules_error(error: Refused) -> None:
    flash(translated(error), "error")


def game_blueprint_name(game_slug: str) -> str:
    """The blueprint of a game's own screens is named after its slug: ``great_western_trail``."""
    return game_slug.replace("-", "_")


def final_tally_url(play: store.Play) -> str:
    """The game's own final tally if it has one, else the generic total per player."""
    if custom.game_id_of(play.game) is not None:
        return url_for("custom_games.final_tally", play_id=play.id)
    endpoint = f"{game_blueprint_name(play.game)}.final_tally"
    if endpoint in current_app.view_functions:
        return url_for(endpoint, play_id=play.id)
    return url_for("plays.finish", play_id=play.id)
