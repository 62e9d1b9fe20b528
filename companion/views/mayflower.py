"""Carcassonne – Mayflower's screens: the map strip, the settlers, the table's actions, the final tally."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import takewhile
from types import SimpleNamespace

from flask import Blueprint, Flask, g, render_template, request
from flask_babel import gettext

from companion import store
from companion.forms import COLOURS, SiteForm
from companion.forms import mayflower as forms
from companion.games import get_game, mayflower
from companion.games.common import FINAL_EVENT, FinalResult
from companion.games.table import TableState, apply
from companion.messages import Message, Refused
from companion.views import common
from companion.views.phone_player import phone_seat
from companion.views.plays import render_play, table_of
from companion.views.tables import app_tables
from companion.web.database import get_db
from companion.web.gate import plays_of
from companion.web.i18n import translated

bp = Blueprint("mayflower", __name__, url_prefix="/plays/<int:play_id>/mayflower")
plays_of(bp, mayflower.GAME.slug)

WORDS = SimpleNamespace(roles=forms.ROLE_NAMES, letters=forms.ROLE_LETTERS, role_buttons=forms.ROLE_BUTTONS,
                        kinds=forms.KIND_NAMES, surveyors=forms.SURVEYOR_NAMES,
                        surveyor_marks=forms.SURVEYOR_MARKS, role_order=mayflower.ROLES, colours=COLOURS,
                        final_sizes=mayflower.FINAL_SIZES, size_labels=forms.SIZE_LABELS)
TABLE_ANCHOR = "mf-table"  # after every entry the page opens on the turn, the strip and the actions


class TurnMovedOn(Refused):
    """An entry for the player whose turn it was when the page was drawn; another phone ended that turn."""

    def __init__(self, ended: int, turn: int, kind: str) -> None:
        super().__init__(Message("Another phone entered a turn since this page was drawn."), "seat")
        self.ended, self.turn, self.kind = ended, turn, kind


@dataclass(frozen=True)
class SeatView:
    """One player at the table: score on the track, settlers on the map and in the supply."""

    seat: int
    name: str
    colour: str
    mark: mayflower.TrackMark
    on_map: tuple[mayflower.Settler, ...]
    in_supply: int


@dataclass(frozen=True)
class StripColumn:
    """One column of the map strip, west to east: its surveyors and settlers."""

    number: int
    surveyors: tuple[str, ...]
    settlers: tuple[mayflower.Settler, ...]
    beyond: bool  # the column just west of the map, where the next tile may reach

    @property
    def coast(self) -> bool:
        return self.number == 0


@dataclass(frozen=True)
class FeatureReport:
    """One scored feature of a completion, with its settlers looked up (returned ones with bonus)."""

    scoring: mayflower.FeatureScoring
    returned: tuple[tuple[mayflower.Settler, int], ...]
    evicted: tuple[mayflower.Settler, ...]


@dataclass(frozen=True)
class Preview:
    """What Score would do with the completion form as filled, or why the rules or the form refuse it."""

    report: tuple[FeatureReport, ...] = ()
    points: tuple[int, ...] = ()
    west_question: int | None = None  # the column whose "is there a tile west of it?" the last move waits on
    refused: tuple[str, ...] = ()


@dataclass(frozen=True)
class Screen:
    """What the Mayflower part of the play page shows, and its forms."""

    state: mayflower.PlayState
    seats: tuple[SeatView, ...]
    columns: tuple[StripColumn, ...]
    summary: str
    report: tuple[FeatureReport, ...]
    pickable: tuple[mayflower.Settler, ...]
    place: SiteForm
    complete: SiteForm
    west_edge_form: SiteForm
    no_settler: SiteForm | None = None
    leaving: frozenset[str] = frozenset()  # ids of the settlers the next scoring's eviction sends home
    preview: Preview | None = None
    turn_moved: TurnMovedOn | None = None  # a placement held back: whose turn ended since the page was drawn


def _names(play: store.Play) -> list[str]:
    return [seat.name for seat in play.seats]


def map_summary(state: mayflower.PlayState, names: list[str]) -> str:
    """The strip in words, for screen readers: the surveyors, then each player's settlers."""
    sentences = [gettext("Surveyors in columns %(north)d and %(south)d.", north=state.surveyors.north,
                         south=state.surveyors.south)]
    for seat, name in enumerate(names):
        placed = [gettext("%(role)s in column %(column)d", role=forms.ROLE_NAMES[s.role], column=s.column)
                  for s in state.on_map(seat)]
        sentences.append(gettext("%(name)s: %(settlers)s.", name=name, settlers=", ".join(placed)) if placed
                         else gettext("%(name)s: no settler on the map.", name=name))
    return " ".join(sentences)


def strip_columns(state: mayflower.PlayState) -> tuple[StripColumn, ...]:
    """The map's columns from the one a new tile may reach (west) to the coast (east, column 0)."""
    reach = min(state.west_edge + 1, mayflower.MAX_COLUMN)
    by_seat = sorted(state.settlers, key=lambda s: s.seat)
    return tuple(StripColumn(column, tuple(name for name in mayflower.SURVEYOR_NAMES
                                           if getattr(state.surveyors, name) == column),
                             tuple(s for s in by_seat if s.column == column), column > state.west_edge)
                 for column in range(reach, -1, -1))


def feature_reports(state: mayflower.PlayState,
                    scorings: Sequence[mayflower.FeatureScoring] | None = None) -> tuple[FeatureReport, ...]:
    """The scorings (else the last completion's), with the settlers they name looked up."""
    return tuple(FeatureReport(r, tuple(zip(map(state.settler, r.returned), r.settler_bonus, strict=True)),
                               tuple(map(state.settler, r.evicted)))
                 for r in (state.last_scoring if scorings is None else scorings))


def completion_preview(state: mayflower.PlayState, form) -> Preview | None:
    """What Score would do with the completion form as filled; None before anything is tapped."""
    if not form.used_entries():
        return None
    if not form.validate():
        return Preview(refused=tuple(_error_messages(form.errors)))
    try:
        scorings, points, column = mayflower.preview_completion(state, form.payload())
    except Refused as error:
        return Preview(refused=(translated(error),))
    return Preview(feature_reports(state, scorings), points, column)


def _error_messages(errors) -> list[str]:
    """The messages of a form's nested ``errors``, in order."""
    return [message for value in errors.values()
            for message in (_error_messages(value) if isinstance(value, Mapping) else value)]


def scoring_history(play: store.Play, events: Sequence[store.Event]) -> dict[int, tuple[FeatureReport, ...]]:
    """Each completion among ``events`` by ``seq``, with what it scored (kept per request)."""
    key = (play.id, play.version, tuple(e.seq for e in events[:1]), len(events))
    cached = getattr(g, "mayflower_history", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    history: dict[int, tuple[FeatureReport, ...]] = {}
    if events:
        table = app_tables().table_before(get_db(), play, common.play_setup(play), events[0].seq)
        # the final tally ends the play: the corrections after it change results, not the map
        for event in takewhile(lambda e: e.kind != FINAL_EVENT, events):
            table = apply(table, event.kind, event.payload)
            if event.kind == "complete":
                history[event.seq] = feature_reports(table.game_state)
    g.mayflower_history = (key, history)
    return history


def play_screen(play: store.Play, table: TableState, given: Mapping[str, SiteForm] | None = None) -> Screen:
    """The state, strip, turn and report of a play, with its forms (the ones given keep their errors)."""
    state: mayflower.PlayState = table.game_state
    names, given = _names(play), given or {}
    complete = given.get("complete") or forms.complete_form(state.settlers, names, formdata=None)
    own = phone_seat(play)
    turn = mayflower.next_turn(state) if own is None else own
    place = given.get("place") or forms.place_form(names, turn, formdata=None)
    none = given.get("no_settler") or forms.no_settler_form(names, mayflower.next_turn(state), formdata=None)
    west_edge = given.get("west_edge") or forms.west_edge_form(state.west_edge, formdata=None)
    # a refused completion can be sent again as it is now; a turn ended since is asked about
    for form in (complete, place, none, west_edge):
        form.version.data = str(play.version)
    marks = mayflower.track_marks(table.running_scores)
    seats = tuple(SeatView(s.seat, s.name, s.colour, marks[s.seat], state.on_map(s.seat),
                           state.in_supply(s.seat)) for s in play.seats)
    return Screen(
        state=state, seats=seats, columns=strip_columns(state), summary=map_summary(state, names),
        report=feature_reports(state), leaving=frozenset(s.id for s in mayflower.next_evictions(state)),
        preview=completion_preview(state, complete) if "complete" in given and not complete.errors else None,
        pickable=tuple(forms.pickable_settlers(state.settlers)), place=place, complete=complete,
        no_settler=none, turn_moved=getattr(place, "turn_moved", None) or getattr(none, "turn_moved", None),
        west_edge_form=west_edge)


def _record(play: store.Play, kind: str, form, guard=None, stale_first: bool = False):
    """Store the form's event if the rules and the ``guard`` allow it; ``stale_first``: a page another phone
    outdated is refused before its boxes are checked against the play as it is now."""
    try:
        if stale_first and form.version_is_valid():
            store.check_play_version(get_db(), play.id, form.version_number)
        if not form.validate_on_submit():
            return render_play(play, status=400, mayflower_forms={kind: form})
        _append(play, kind, form.payload(), guard, getattr(form, "version_number", None))
    except Refused as error:
        if isinstance(error, TurnMovedOn):
            form.turn_moved = error  # the page asks whom the entry is for
        else:
            form.show_rules_error(error)
        status = 400 if isinstance(error, mayflower.WestQuestion) else 409
        return render_play(store.get_play(get_db(), play.id), status=status, mayflower_forms={kind: form})
    return common.to_play(play.id, TABLE_ANCHOR)


def _append(play: store.Play, kind: str, payload: dict, guard, expected_version: int | None) -> None:
    """Store the event if the rules and the ``guard`` (seeing the stored log) allow it."""
    def check(events) -> None:
        if guard is not None:
            guard(events, payload)
        table = table_of(play, events)
        apply(table, kind, payload)
        # the table answers what the rules must not assume (whether tiles lie further west)
        mayflower.check_entry(table.game_state, kind, payload)

    store.append_event(get_db(), play.id, kind, payload, check=check, expected_version=expected_version)


def turn_guard(play: store.Play, form, explicit: bool, own: bool = False):
    """A check settling whose turn an entry is when the turn shown has ended since: ended by another phone,
    the page asks (``TurnMovedOn``); by this phone's own entries (an offline queue), it is the turn now. A
    player's ``own`` phone is asked only when another phone entered that turn; a player picked is as sent."""
    def guard(events, payload: dict) -> None:
        drawn = int(form.version.data) if form.version.data else None  # read once the form is valid
        if explicit or drawn is None or events.version == drawn:
            return
        since = [e for e in events if e.version > drawn]
        others = [(e.kind, e.payload) for e in since if e.membership_id != g.membership.id]
        seat = payload["seat"]

        def turn_now() -> int:
            return mayflower.next_turn(table_of(play, events).game_state)

        # another phone entered the turn shown: asked even when the turn came round to that player again
        if seat in mayflower.turns_taken(others):
            kind = next(k for k, data in reversed(others)
                        if k in mayflower.TURN_EVENTS and data.get("seat") == seat)
            raise TurnMovedOn(seat, seat if own else turn_now(), kind)
        if own:
            return
        ended = mayflower.turn_taken_since(others)
        mine = [(e.kind, e.payload) for e in since if e.membership_id == g.membership.id]
        if ended is None and seat not in mayflower.turns_taken(mine):
            return
        turn = turn_now()
        if ended is None:
            payload["seat"] = turn
        elif seat != turn:
            raise TurnMovedOn(ended, turn, next(k for k, _ in reversed(others) if k in mayflower.TURN_EVENTS))

    return guard


@bp.post("/place")
def place(play_id: int):
    play = g.play
    form = forms.place_form(_names(play))
    own = phone_seat(play)
    if own is not None and not form.pick.data and form.seat.raw_data is None:
        form.seat.data = own  # this phone's role buttons are its player's
    return _record(play, "place", form, guard=turn_guard(play, form, bool(form.pick.data), own is not None))


@bp.post("/no-settler")
def no_settler(play_id: int):
    play = g.play
    form = forms.no_settler_form(_names(play))
    return _record(play, mayflower.NO_SETTLER, form, guard=turn_guard(play, form, False))


@bp.post("/complete")
def complete(play_id: int):
    play = g.play
    # settler ids are reused: those ticked on an outdated page may name other settlers now
    return _record(play, "complete", forms.complete_form(table_of(play).game_state.settlers, _names(play)),
                   stale_first=True)


@bp.get("/preview")
def preview(play_id: int):
    """What Score would do with the completion form as it is filled (its fields in the query)."""
    play = g.play
    state = table_of(play).game_state
    form = forms.complete_form(state.settlers, _names(play), formdata=request.args)
    shown = completion_preview(state, form)
    return render_template("games/mayflower/_preview.html", play=play, preview=shown, words=WORDS), (
        400 if shown and shown.refused else 200)


@bp.post("/west-edge")
def west_edge(play_id: int):
    play = g.play
    return _record(play, "west_edge", forms.west_edge_form(table_of(play).game_state.west_edge))


def _scored(play: store.Play, form, table: TableState) -> tuple[dict, FinalResult]:
    """The final tally as tapped, with its result."""
    # an outdated page misses settlers placed since: say so rather than that they are left out
    store.check_play_version(get_db(), play.id, form.version_number)
    tally = mayflower.settle_final_features(_names(play), table.running_scores, form.slots, form.features())
    return tally.payload(), tally.result


def _another_feature(play: store.Play, form, table: TableState) -> bool:
    """Keep the feature just tapped and start the next; False, with the reason on the form, if refused."""
    features = form.features()
    on_them = {settler_id for feature in features for settler_id in feature.get("settlers", [])}
    try:
        # settler ids are reused: tapped on an outdated page, they may name another phone's settlers
        store.check_play_version(get_db(), play.id, form.version_number)
        mayflower.settle_final_features(_names(play), table.running_scores,
                                        [slot for slot in form.slots if slot.settler.id in on_them], features)
    except Refused as error:
        common.refuse_on_form(form, play, error)
        return False
    form.keep(features)
    return True


@bp.route("/final-tally", methods=["GET", "POST"])
@common.tally_page
def final_tally(play_id: int):
    """Tap the settlers of one unfinished feature, its size, "and another feature"; then the ranked result."""
    play = g.play
    table = table_of(play)
    form = forms.final_tally_form(mayflower.final_slots(table.game_state), formdata=common.sent_form())
    status = 200
    if request.method == "GET":
        form.version.data = str(play.version)
        # a reopened play's final tally comes back as it was entered, unless the map changed since or the
        # table asked to start the features again (?again=1) to enter one anew; settler ids are reused
        # after an undo, so an undone entry counts as a change to the map
        kept = None if request.args.get("again") == "1" else store.reopened_tally(get_db(), play.id)
        if kept is not None and not kept.undone_since and kept.kinds_since <= mayflower.MAP_KEEPING_KINDS:
            form.keep(mayflower.final_features_of(kept.payload))
    elif not form.validate_on_submit():
        status = 400
    elif form.more.data and form.current() is not None:
        status = 200 if _another_feature(play, form, table) else 400
    elif common.finish_tally(play, form, lambda: _scored(play, form, table)):
        return common.to_result(play.id)
    else:
        status = 400
    # sent on, the page keeps the version it was drawn at (a stale refusal above gave it the current one)
    return render_template("games/mayflower/final_tally.html", play=play, game=get_game(play.game), form=form,
                           marks=mayflower.track_marks(table.running_scores), words=WORDS), status


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    # The play page renders the Mayflower partial with the generic context; these give it the rest.
    app.jinja_env.globals.update(mayflower_screen=play_screen, mayflower_words=WORDS,
                                 mayflower_history=scoring_history)
