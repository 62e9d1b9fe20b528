"""Folding a play's event log into its table state, whatever the game."""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.games import RULES, GameRules
from companion.games.common import (
    ADJUST,
    FINAL_EVENT,
    FinalResult,
    PlaySetup,
    RulesError,
    rank_players,
    seat_index,
)

ADJUST_LIMIT = 999


@dataclass(frozen=True)
class TableState:
    """A play at the table: its game's ``PlayState`` (None for a group's own game) plus manual adjustments."""

    setup: PlaySetup
    game_state: Any
    adjustments: tuple[int, ...]  # per seat

    @property
    def rules(self) -> GameRules | None:
        return RULES.get(self.setup.game)

    @property
    def running_scores(self) -> tuple[int, ...]:
        base = (self.rules.running_scores(self.game_state) if self.game_state is not None and self.rules
                else (0,) * len(self.setup.seats))
        return tuple(b + a for b, a in zip(base, self.adjustments, strict=True))


def initial_table(setup: PlaySetup) -> TableState:
    rules = RULES.get(setup.game)
    return TableState(setup, rules.initial_state(setup) if rules else None, (0,) * len(setup.seats))


def adjustment(payload: Mapping[str, Any], setup: PlaySetup) -> tuple[int, int]:
    seat = seat_index(payload, len(setup.seats))
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


def accepted_on_every_table(setup: PlaySetup, kind: str, payload: Mapping[str, Any]) -> bool:
    """Whether every table of the play accepts this event, so it can be stored without folding the log:
    a correction that adds points is one (no track has an upper end). RulesError for one no table accepts."""
    return kind == ADJUST and adjustment(payload, setup)[1] > 0


def apply(table: TableState, kind: str, payload: Mapping[str, Any]) -> TableState:
    if not isinstance(payload, Mapping):
        raise RulesError("An event needs a set of named values.")
    if kind == ADJUST:
        seat, points = adjustment(payload, table.setup)
        lowest = table.rules.LOWEST_SCORE if table.rules else None
        # only taking points away reaches the lowest score its game's track shows (Mayflower: 0)
        if points < 0 and lowest is not None and (score := table.running_scores[seat]) + points < lowest:
            # the score as a number, not "%(score)d points": a message has no plural form for "1 point"
            raise RulesError("%(name)s's score is %(score)d; a correction of %(points)s would take it "
                             "below %(lowest)d.", "points", name=table.setup.seats[seat].name, score=score,
                             points=f"{points:+d}", lowest=lowest)
        adjustments = list(table.adjustments)
        adjustments[seat] += points
        return TableState(table.setup, table.game_state, tuple(adjustments))
    rules = table.rules
    if rules is None:
        raise RulesError("%(kind)s is not something that happens in this game.", kind=repr(kind))
    return TableState(table.setup, rules.apply_event(table.game_state, kind, payload), table.adjustments)


def fold(setup: PlaySetup, events: Iterable[tuple[str, Mapping[str, Any]]]) -> TableState:
    """Replay the events from the start of the play up to its final tally, if it has one."""
    table = initial_table(setup)
    for kind, payload in events:
        if kind == FINAL_EVENT:  # the final tally is kept as results; corrections of them may follow
            break
        table = apply(table, kind, payload)
    return table


def score_race(setup: PlaySetup,
               events: Iterable[tuple[str, Mapping[str, Any]]]) -> list[tuple[int, tuple[int, ...]]]:
    """(entry number, running scores) at the start (entry 0) and after each entry that changed a score."""
    table = initial_table(setup)
    race = [(0, table.running_scores)]
    for number, (kind, payload) in enumerate(events, start=1):
        if kind == FINAL_EVENT:
            break
        table = apply(table, kind, payload)
        if table.running_scores != race[-1][1]:
            race.append((number, table.running_scores))
    return race


def check_final_tally(table: TableState, final_payload: Mapping[str, Any]) -> None:
    """Refuse a final tally the rules do not allow (a play closed with totals only has none to check)."""
    if table.rules is None or not isinstance(final_payload, Mapping) or "totals" in final_payload:
        return
    table.rules.check_final_tally(table.game_state, final_payload, [seat.name for seat in table.setup.seats])


def ranked_tally(game: str, rows: Sequence[str], breakdowns: Sequence[tuple[str, Mapping[str, int]]],
                 final_payload: Mapping[str, Any] | None, table: TableState | None = None) -> FinalResult:
    """A tally ranked: totals as the row sums, with the game's tie-breakers (``final_tie_breakers``)."""
    rules = RULES.get(game)
    state = table.game_state if table is not None else None
    tie_breakers = rules.final_tie_breakers(state, final_payload, len(breakdowns)) if rules else None
    return rank_players(game, rows, breakdowns, tie_breakers)


def corrected_tally(game: str, rows: Sequence[str], breakdowns: Sequence[tuple[str, Mapping[str, int]]],
                    final_payload: Mapping[str, Any] | None, table: TableState | None = None) -> FinalResult:
    """``ranked_tally`` of a finished play's corrected rows, which its game's rules may refuse."""
    rules = RULES.get(game)
    if rules:
        rules.check_corrected_tally(table.game_state if table is not None else None, final_payload,
                                    [name for name, _ in breakdowns],
                                    [breakdown for _, breakdown in breakdowns])
    return ranked_tally(game, rows, breakdowns, final_payload, table)
