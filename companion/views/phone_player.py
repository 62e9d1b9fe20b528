"""Whose phone it is ("This is Anna's phone", kept with the membership; off by default): it enters its
player's settlers and ledger points whatever the turn; a shared phone follows the turn."""

from flask import Blueprint, flash, g
from flask_babel import lazy_gettext as _l

from companion import store
from companion.forms import PhonePlayerForm, choices, refused_tap
from companion.views import common
from companion.views.plays import render_play
from companion.web.database import get_db

bp = Blueprint("phone_player", __name__, url_prefix="/plays/<int:play_id>")

SHARED = ""  # the choice of a phone the table passes round


@bp.app_template_global()
def phone_player_form(play: store.Play, **bind) -> PhonePlayerForm:
    """The form with the play's players to pick from and the phone's player picked."""
    seat = phone_seat(play)
    form = PhonePlayerForm(prefix="phone", data={"player": SHARED if seat is None else str(seat)}, **bind)
    form.player.choices = choices([(SHARED, _l("Shared by the table")),
                                   *((str(s.seat), s.name) for s in play.seats)])
    return form


@bp.app_template_global()
def phone_seat(play: store.Play) -> int | None:
    """The seat of the phone's player in ``play`` (None: a shared phone, or its player does not play)."""
    found = g.get("membership")  # the gate's, on every page of a play
    if found is None or found.player_id is None:
        return None
    return next((seat.seat for seat in play.seats if seat.player_id == found.player_id), None)


@bp.post("/phone-player")
def set_player(play_id: int):
    play = g.play
    form = phone_player_form(play)
    if not form.validate_on_submit():
        flash(refused_tap(), "error")  # the menu offers only the play's players: a stale page
        return render_play(play, status=400)
    player_id = None if form.player.data == SHARED else play.seats[int(form.player.data)].player_id
    store.set_phone_player(get_db(), g.membership.id, player_id)
    return common.to_play(play.id)
