"""What several views need: the database, the current group or play, and form errors."""

from __future__ import annotations

from flask import abort, current_app, flash, redirect, url_for
from flask_babel import gettext
from werkzeug.wrappers import Response

from companion import store
from companion.database import get_db
from companion.games.common import FinalResult, Message, PlaySetup, RulesError, Seat, Term
from companion.labels import TERMS
from companion.security import require_member


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


def translated(message: RulesError | str) -> str:
    """A rules error (or a rules Message) in the reader's language, its values filled in.

    The template is looked up in the catalogue; values that are messages themselves or game words
    (Term) are translated too. Text without a template, or a translation that does not fit its values,
    stays the English sentence.
    """
    sentence = message.message if isinstance(message, RulesError) else message
    if not isinstance(sentence, Message):
        return str(sentence)
    values = {name: _shown(value) for name, value in sentence.params.items()}
    try:
        return gettext(sentence.template, **values)
    except (KeyError, ValueError, TypeError):
        return str(sentence)


def _shown(value: object) -> object:
    if isinstance(value, Message):
        return translated(value)
    if isinstance(value, Term):
        return str(TERMS.get(value, value))
    return value


def flash_rules_error(error: RulesError) -> None:
    flash(translated(error), "error")


def game_blueprint_name(game_slug: str) -> str:
    """The blueprint of a game's own screens is named after its slug: ``great_western_trail``."""
    return game_slug.replace("-", "_")


def final_tally_url(play: store.Play) -> str:
    """The game's own final tally if it has one, else the generic total per player."""
    endpoint = f"{game_blueprint_name(play.game)}.final_tally"
    if endpoint in current_app.view_functions:
        return url_for(endpoint, play_id=play.id)
    return url_for("plays.finish", play_id=play.id)
