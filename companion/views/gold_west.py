"""Gold West's own screens: the in-play ledger (one tap per scoring event) and the final tally."""

from collections.abc import Mapping, Sequence
from dataclasses import replace
from types import SimpleNamespace

from flask import Blueprint, Flask, abort, g, render_template, request
from flask_babel import gettext as _

from companion import store
from companion.forms import DrawnForm, refused_tap
from companion.forms.gold_west import final_tally_form, ledger_form
from companion.games import get_game, gold_west
from companion.games.common import FINAL_EVENT, RulesError
from companion.games.table import TableState, apply
from companion.messages import Refused
from companion.views import common
from companion.views.phone_player import phone_seat
from companion.views.plays import render_play, table_of
from companion.web.database import get_db
from companion.web.gate import plays_of
from companion.web.i18n import translated

bp = Blueprint("gold_west", __name__, url_prefix="/plays/<int:play_id>/gold-west")
plays_of(bp, gold_west.GAME.slug)

# What the Gold West pages show besides a play's own numbers: facts of the rules, not the whole module.
FACTS = SimpleNamespace(**{name: getattr(gold_west, name) for name in (
    "SUPPLY_SECTION_NUMBERS", "LOOT_POINTS", "INVESTMENT_VALUES", "METALS", "BOOMTOWN_1X1_POINTS",
    "OFFICES_BY_KEY", "OFFICES_DEALT", "TERRAINS", "EVENT_KINDS", "CAMPS_BY_PLAYER_COUNT")})


@bp.post("/ledger/<kind>")
def record(play_id: int, kind: str):
    """One tap of the ledger: a scoring event (or a camp placed) for one seat."""
    play = g.play
    form = ledger_form(kind, len(play.seats)) or abort(404)
    if not form.validate_on_submit():
        common.flash_rules_error(RulesError(refused_tap()))
        return render_play(play, status=400)
    payload, confirmed = form.payload(), form.confirmed

    def check(events: list[store.Event]) -> None:
        table = table_of(play, events)
        # the same tap on two phones (or its tile taken by another), asked first: it is also why such a tap
        # comes out of turn; a tap answered "yes" comes with the version of the page that asked, so only what
        # was entered since is asked about
        gold_west.check_entered_since(
            table.game_state, [(e.kind, e.payload, e.version, e.membership_id) for e in events],
            form.drawn, g.membership.id, kind, payload)
        entered = [(e.kind, e.payload) for e in events]
        # a player's own phone enters that player's points whatever the turn
        if not gold_west.OutOfTurn.answers <= confirmed and phone_seat(play) != payload["seat"]:
            gold_west.check_turn(table.game_state, entered, payload["seat"], kind)
        if not gold_west.AgainThisTurn.answers <= confirmed:
            gold_west.check_once_a_turn(table.game_state, kind, payload["seat"])
        gold_west.check_line_order(table.game_state, kind, payload)
        apply(table, kind, payload)

    try:
        store.append_event(get_db(), play.id, kind, payload, check=check)
    except gold_west.OutOfTurn as question:
        seat, turn = play.seats[question.seat].name, play.seats[question.turn].name
        return _ask(play, kind, _("It is %(turn)s's turn. %(name)s again?", turn=turn, name=seat),
                    confirmed | question.answers, [(question.seat, _("Yes, for %(name)s", name=seat), True),
                                                   (question.turn, _("No, for %(name)s", name=turn), False)])
    except (gold_west.EnteredByAnotherPhone, gold_west.TileTakenSince, gold_west.AgainThisTurn) as question:
        return _ask(play, kind, translated(question), confirmed | question.answers,
                    [(question.seat, _("Yes, record it"), True)])
    except Refused as error:
        common.flash_rules_error(error)
        return render_play(store.get_play(get_db(), play.id), status=409)
    return common.to_play(play.id, "gw-ledger")


def _ask(play: store.Play, kind: str, question: str, confirmed: frozenset[str],
         answers: list[tuple[int, str, bool]]):
    """The play page asking about a tap before it is recorded: each answer (seat, label, whether it is
    meant as tapped, then with the questions ``confirmed``) sends the tap again for that seat, as of the
    page that asks (its version)."""
    now = store.get_play(get_db(), play.id)
    fields = [(k, v) for k, v in request.form.items(multi=True)
              if k not in ("csrf_token", "seat", "again", "drawn_at")] + [("drawn_at", str(now.version))]
    return render_play(now, status=409, ask={"kind": kind, "question": question, "answers": answers,
                                             "fields": fields, "confirmed": " ".join(sorted(confirmed))})


@bp.route("/final-tally", methods=["GET", "POST"])
@common.tally_page
def final_tally(play_id: int):
    """The end scoring, row by row per player, started from the ledger; scored by the rules."""
    play = g.play
    form, table, ledger = drawn_tally(play, common.sent_form())
    status = 200
    if request.method == "POST" and not form.validate_on_submit():
        status = 400
    # a stale tally is refused when it is stored; asking "really finish?" first would hide that
    elif request.method == "POST" and (form.version_number != play.version
                                       or not form.ask_before_finishing(table.game_state)):
        tallies = form.tallies(ledger)
        if common.finish_tally(play, form, lambda: (gold_west.tally_payload(tallies, ledger),
                                                    gold_west.final_result(tallies, entered_now=True)),
                               lambda now: drawn_tally(now)[0]):
            return common.to_result(play.id)
        status = 400
    return render_template("games/gold-west/final_tally.html", play=play, game=get_game(play.game),
                           form=form, state=table.game_state), status


def drawn_tally(play: store.Play, formdata=None
                ) -> tuple[DrawnForm, TableState, Sequence[gold_west.PlayerTally]]:
    """The final tally of the play as sent, or else drawn from its table as it is now; the table and its
    ledger."""
    table = table_of(play)
    ledger = gold_west.tallies_from_play(table.game_state, table.adjustments)
    form = final_tally_form(tally_start(play, ledger), gold_west.offices_in_play(table.game_state.offices),
                            formdata=formdata)
    if formdata is None:
        form.version.data = str(play.version)
    return form, table, ledger


def tally_start(play: store.Play, ledger: Sequence[gold_west.PlayerTally]) -> Sequence[gold_west.PlayerTally]:
    """The ledger's numbers, or a reopened play's tally (the ledger changed since: its corrections kept)."""
    kept = store.reopened_tally(get_db(), play.id)
    if kept is None:
        return ledger
    try:
        entered = gold_west.tallies_from_payload(kept.payload, [seat.name for seat in play.seats])
        gold_west.final_result(entered, stored=True)
    except RulesError:  # closed with totals only, or values only a hand-edited backup holds
        return ledger
    if not kept.changed_since:
        return entered
    return gold_west.tallies_kept(ledger, entered, kept.payload.get("corrections"))


class ShownMajority(gold_west.TerrainMajority):
    """A terrain majority whose sentence comes in the reader's language."""

    def describe(self, names: Sequence[str]) -> str:
        return translated(super().describe(names))


def final_outcome(play: store.Play) -> gold_west.GoldWestResult | None:
    """The finished play's result derived from its tally, in the reader's language; typed totals (their
    scores as stored, corrected or not) come without majorities."""
    events = store.list_events(get_db(), play.id)
    final = next((event.payload for event in reversed(events) if event.kind == FINAL_EVENT), None)
    names = [seat.name for seat in play.seats]
    try:
        if isinstance(final, Mapping) and "totals" in final:  # ranked as stored: corrected, say
            totals = [r.total for r in sorted(store.play_results(get_db(), play.id), key=lambda r: r.seat)]
            result = gold_west.typed_totals_result(table_of(play, events).game_state, final, names, totals)
        elif final is not None and events[-1].kind == FINAL_EVENT:  # not corrected since: majorities hold
            result = gold_west.result_from_payload(final, names)
        else:
            return None
    except Refused:
        return None
    return replace(result, majorities=tuple(ShownMajority(**vars(shown)) for shown in result.majorities),
                   tie_break_notes={name: translated(note) for name, note in result.tie_break_notes.items()})


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    # the play and result pages' Gold West partials get the rules' own numbers from these
    app.jinja_env.globals.update(gold_west_facts=FACTS, gold_west_ledger=gold_west.ledger_screen,
                                 gold_west_outcome=final_outcome)
