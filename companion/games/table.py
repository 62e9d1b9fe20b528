"""Folding a play's event log into its table state, whatever the game."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from companion.games import gold_west, great_western_trail, mayflower
from companion.games.common import FINAL_EVENT, FinalResult, PlaySetup, RulesError, rank_players, seat_index

# "adjust" corrects a running score by hand (a marker knocked off the track, a forgotten point);
# every game accepts it, so the game modules never see it.
ADJUST = "adjust"
ADJUST_LIMIT = 999

_MODULES: dict[str, ModuleType] = {
    module.GAME.slug: module for module in (mayflower, great_western_trail, gold_west)
}


@dataclass(frozen=True)
class TableState:
    """A play's state: the game's own state (None for a game without one) plus manual adjustments."""

    setup: PlaySetup
    game_state: Any
    adjustments: tuple[int, ...]  # per seat

    @property
    def running_scores(self) -> tuple[int, ...]:
        module = _MODULES.get(self.setup.game)
        if self.game_state is not None and hasattr(module, "running_scores"):
            base = module.running_scores(self.game_state)
        else:
            base = (0,) * len(self.setup.seats)
        return tuple(b + a for b, a in zip(base, self.adjustments, strict=True))


def _module_with_state(game: str) -> ModuleType | None:
    module = _MODULES.get(game)
    return module if module is not None and hasattr(module, "initial_state") else None


def initial_table(setup: PlaySetup) -> TableState:
    module = _module_with_state(setup.game)
    return TableState(setup, module.initial_state(setup) if module else None, (0,) * len(setup.seats))


def adjustment(payload: Mapping[str, Any], setup: PlaySetup) -> tuple[int, int]:
    """The seat and points of an ``adjust`` event, checked."""
    seat = seat_index(payload, setup)
    points = payload.get("points")
    if type(points) is not int or not -ADJUST_LIMIT <= points <= ADJUST_LIMIT:
        raise RulesError("Points must be a whole number from -%(limit)d to %(limit)d.", "points",
                         limit=ADJUST_LIMIT)
    if points == 0:
        raise RulesError("A correction of 0 changes nothing: enter the points to add or to take away.",
                         "points")
    note = payload.get("note", "")
    if not isinstance(note, str) or len(note) > 80:
        raise RulesError("The note must be text of at most 80 characters.", "note")
    return seat, points


def _check_lowest_score(table: TableState, seat: int, points: int) -> None:
    """Refuse a correction that takes a score below the lowest its game's track shows (Mayflower: 0)."""
    lowest = getattr(_MODULES.get(table.setup.game), "LOWEST_SCORE", None)
    score = table.running_scores[seat]
    if lowest is not None and score + points < lowest:
        raise RulesError("%(name)s has %(score)d points; a correction of %(points)s would take them below "
                         "%(lowest)d.", "points", name=table.setup.seats[seat].name, score=score,
                         points=f"{points:+d}", lowest=lowest)


def accepted_on_every_table(setup: PlaySetup, kind: str, payload: Mapping[str, Any]) -> bool:
    """Whether the rules accept this event on every table of the play, whatever its log holds.

    A correction that adds points is such an event: no track has an upper end, and the lowest score
    a track shows (Mayflower's 0) is only reached by taking points away, which ``apply`` checks on the
    way into every stored log. Such an event can be stored without folding the log into a table.
    Raises RulesError for a correction that no table accepts.
    """
    if kind != ADJUST:
        return False
    adjustment(payload, setup)
    return adds_points(kind, payload)


def adds_points(kind: str, payload: Mapping[str, Any]) -> bool:
    """Whether the event is a correction that adds points. One whose seat is one of the play's and
    whose points and note the form allows is accepted on every table (``accepted_on_every_table``),
    so it needs no look at the table."""
    points = payload.get("points")
    return kind == ADJUST and type(points) is int and points > 0


def apply(table: TableState, kind: str, payload: Mapping[str, Any]) -> TableState:
    """The table after one more event; raises RulesError for an event the table does not allow."""
    if not isinstance(payload, Mapping):
        raise RulesError("An event needs a set of named values.")
    if kind == ADJUST:
        seat, points = adjustment(payload, table.setup)
        if points < 0:  # only taking points away reaches the lowest score (``accepted_on_every_table``)
            _check_lowest_score(table, seat, points)
        adjustments = list(table.adjustments)
        adjustments[seat] += points
        return TableState(table.setup, table.game_state, tuple(adjustments))
    module = _module_with_state(table.setup.game)
    if module is None:
        raise RulesError("%(kind)s is not something that happens in this game.", kind=repr(kind))
    return TableState(table.setup, module.apply_event(table.game_state, kind, payload), table.adjustments)


def advance(table: TableState, events: Iterable[tuple[str, Mapping[str, Any]]]) -> TableState:
    """The table after the events that follow it in the log, up to the final tally if one comes."""
    for kind, payload in events:
        if kind == FINAL_EVENT:  # the final tally is kept as results; corrections of them may follow
            break
        table = apply(table, kind, payload)
    return table


def fold(setup: PlaySetup, events: Iterable[tuple[str, Mapping[str, Any]]]) -> TableState:
    """Replay the events from the start of the play up to its final tally, if it has one."""
    return advance(initial_table(setup), events)


def check_final_tally(table: TableState, final_payload: Mapping[str, Any]) -> None:
    """Refuse a finished play's final tally that the rules do not allow (what an imported play must pass).

    A play closed with totals only has no tally of its game's rows to check.
    """
    names = [seat.name for seat in table.setup.seats]
    game = table.setup.game
    if not isinstance(final_payload, Mapping) or "totals" in final_payload:
        return
    if game == gold_west.GAME.slug:
        gold_west.result_from_payload(final_payload, names)
    elif game == mayflower.GAME.slug:
        mayflower.result_from_payload(final_payload, names)
    elif game == great_western_trail.GAME.slug and table.game_state.all_cards_in:
        great_western_trail.result_from_cards(table.game_state)


def ranked_tally(game: str, rows: Sequence[str], breakdowns: Sequence[tuple[str, Mapping[str, int]]],
                 final_payload: Mapping[str, Any] | None, table: TableState | None = None) -> FinalResult:
    """A tally ranked: totals as the row sums, with the game's tie-breakers.

    Gold West's come from its final tally where it recorded them, else from the table state: closed with
    totals only, the ledger still knows each player's Wanted camps.
    """
    tie_breakers = None
    if game == gold_west.GAME.slug:
        if table is not None and table.game_state is not None:
            tie_breakers = gold_west.tie_breakers(table.game_state, final_payload)
        elif final_payload is not None:
            tie_breakers = gold_west.tie_breakers_from_payload(final_payload, len(breakdowns))
    return rank_players(game, rows, breakdowns, tie_breakers)
