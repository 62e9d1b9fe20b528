"""Great Western Trail screens: delivered herds, and the final tally as one card per player (each its own
event, filled in on the player's phone; the card that completes the set closes the play)."""

from flask import Blueprint, abort, flash, g, redirect, render_template, request, url_for
from flask_babel import gettext as _

from companion import store
from companion.forms import VersionedForm
from companion.forms.great_western_trail import CardForm, card_form, delivery_form
from companion.games import great_western_trail as gwt
from companion.games.table import apply
from companion.messages import Refused
from companion.views import common
from companion.views.plays import render_play, table_of
from companion.web.database import get_db
from companion.web.gate import plays_of
from companion.web.i18n import translated

bp = Blueprint("great_western_trail", __name__, url_prefix="/plays/<int:play_id>/gwt")
plays_of(bp, gwt.GAME.slug)


@bp.app_template_global("great_western_trail_delivery_form")
def next_delivery_form(play: store.Play, state: gwt.PlayState):
    """The play page's delivery form, on the seat the rules expect to deliver next."""
    return delivery_form([seat.name for seat in play.seats], turn=state.next_seat)


def to_overview(play: store.Play):
    return redirect(url_for("great_western_trail.final_tally", play_id=play.id))


@bp.post("/deliveries")
def deliver(play_id: int):
    play = g.play
    form = delivery_form([seat.name for seat in play.seats], request.form)
    if not form.validate_on_submit():
        return render_play(play, status=400, delivery_form=form)
    payload = form.payload()

    def check(events: list[store.Event]) -> None:
        table = table_of(play, events)
        gwt.check_second_disc(table.game_state, payload, confirmed=form.again.data)
        apply(table, gwt.DELIVERY_EVENT, payload)

    try:
        store.append_event(get_db(), play.id, gwt.DELIVERY_EVENT, payload, check=check)
    except gwt.SecondDisc as question:
        form.again.data = question.answer  # the same tap again records it
        form.form_errors.append(translated(question))
        return render_play(store.get_play(get_db(), play.id), status=409, delivery_form=form)
    except Refused as error:
        common.flash_rules_error(error)
        return render_play(store.get_play(get_db(), play.id), status=409, delivery_form=form)
    for sentence in gwt.cards_behind_deliveries(table_of(play).game_state):
        flash(translated(sentence), "error")
    return common.to_play(play.id, "deliveries")


@bp.get("/final-tally")
@common.tally_page
def final_tally(play_id: int):
    """Which cards are in, what each is worth on its own, and what keeps the cards from a result."""
    play = g.play
    state = table_of(play).game_state
    return render_template("games/great-western-trail/final_tally.html", play=play, game=gwt.GAME,
                           group=g.group, state=state,
                           conflicts=[translated(sentence) for sentence in gwt.card_conflicts(state)])


@bp.route("/final-tally/<int:seat>", methods=["GET", "POST"])
@common.tally_page
def card(play_id: int, seat: int):
    """One player's card, row by row; sending it hands it in (and may complete the set)."""
    play = g.play
    if not 0 <= seat < len(play.seats):
        abort(404)
    state = table_of(play).game_state
    form = card_form(state, seat, common.sent_form())
    if request.method == "POST" and not form.wants_more_rows:
        if form.validate_on_submit():
            return hand_in(play, seat, form)
        return render_card(play, state, seat, form, 400)
    return render_card(play, state, seat, form)


@bp.post("/final-tally/result")
def finish(play_id: int):
    """Show the result of cards that are all in (after the final tally was undone, say)."""
    play = g.play
    form = VersionedForm()
    if not form.validate_on_submit():
        common.reload_and_try_again()
        return to_overview(play)
    return close_play(play, table_of(play).game_state, form.version_number)


def render_card(play: store.Play, state: gwt.PlayState, seat: int, form: CardForm, status: int = 200):
    return render_template("games/great-western-trail/card.html", play=play, game=gwt.GAME, state=state,
                           seat=seat, name=play.seats[seat].name, form=form, saved=state.cards[seat],
                           deliveries=[d for d in state.deliveries if d.seat == seat]), status


def hand_in(play: store.Play, seat: int, form: CardForm):
    """Store the card unless it repeats the saved one or was filled in on an outdated view of it."""
    payload = form.payload(seat)

    def check(events: list[store.Event]) -> None:
        gwt.check_new_card(table_of(play, events).game_state, payload, form.revision_number)

    try:
        version = store.append_event(get_db(), play.id, gwt.CARD_EVENT, payload, check=check)
    except gwt.RepeatedCard as error:
        flash(translated(error))
        return to_overview(play)
    except Refused as error:
        return refuse_card(play, seat, form, error)
    return close_play(play, table_of(play).game_state, version, announce=play.seats[seat].name)


def refuse_card(play: store.Play, seat: int, form: CardForm, error: Refused):
    """The card again with the player's entries and why it was not stored, its view brought up to date."""
    play = store.get_play(get_db(), play.id)
    state = table_of(play).game_state
    name = error.path.split("[", 1)[0].split(".", 1)[0]  # "building_tiles[1]" is the building_tiles field
    if name in form and not isinstance(error, gwt.StaleCard):
        form[name].errors = [*form[name].errors, translated(error)]
    else:
        form.form_errors.append(translated(error))
    form.revision.data = str(gwt.card_revision(state, seat))
    stale = isinstance(error, gwt.StaleCard) or play.status == "finished"
    return render_card(play, state, seat, form, 409 if stale else 400)


def close_play(play: store.Play, state: gwt.PlayState, version: int, announce: str | None = None):
    """Finish the play if every card is in and the cards agree, else say what is still needed; a change
    since ``version`` (that ``state`` was read at) makes it fail as stale, not store an outdated result."""
    if announce is not None:
        flash(_("%(name)s's card is in.", name=announce))
    if not state.all_cards_in:
        return to_overview(play)
    try:
        common.finish_play(play.id, gwt.final_tally_input(state), gwt.result_from_cards(state), version)
    except store.StaleVersion as error:
        # another phone changed the play meanwhile; the overview shows where it stands now. From the
        # finish button that is a stale edit (409); after a card, the card is in and only the result waits.
        if announce is None:
            common.note_stale(error)
        return to_overview(play)
    except Refused:
        return to_overview(play)  # which lists the missing cards or how the cards disagree
    return common.to_result(play.id)
