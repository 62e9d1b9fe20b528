"""Types and helpers shared by the game rules: results, ranking, errors."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from companion.messages import Message, Refused

# The event that closes a play: its payload is the final tally the results were computed from.
FINAL_EVENT = "final"

# "adjust" corrects a running score by hand (a marker knocked off the track, a forgotten point);
# every game accepts it, so the game modules never see it (``table`` folds it).
ADJUST = "adjust"

# The years a play's times may name: far from the calendar's ends, so that a time zone or a play's
# length added to them stays a date, and every play kept can go round through a backup.
FIRST_YEAR, LAST_YEAR = 1900, 9000

# What "trimming spaces" removes from a player's name; spelled out because str.strip() also
# removes control characters that a JSON client would count as part of the name.
NAME_SPACE = " \t\n\r\f\v"


def chained(joint: Message, parts: Sequence[str]) -> str:
    """``parts`` joined pairwise by ``joint``, nested so that a part that is a Message is translated too."""
    joined = parts[0]
    for part in parts[1:]:
        joined = Message(joint.template, earlier=joined, later=part)
    return joined


def listed(names: Sequence[str], commas: bool = True) -> str:
    """``Anna, Ben and Cara`` (``Anna and Ben and Cara`` without ``commas``), with a translatable "and"."""
    if len(names) <= 1:
        return names[0] if names else ""
    head = chained(Message("%(earlier)s, %(later)s"), names[:-1]) if commas else listed(names[:-1], False)
    return Message("%(names)s and %(name)s", names=head, name=names[-1])


class RulesError(Refused):
    """A request or table state that the rules do not allow (see :class:`Refused` for the message)."""


class UnknownGame(RulesError):
    """A game slug the companion does not serve."""


@dataclass(frozen=True)
class GameInfo:
    """What the companion knows about a game before any rules run."""

    slug: str
    name: str
    min_players: int
    max_players: int
    rows: tuple[str, ...]  # breakdown keys of the final score, in the scoring pad's order
    bgg_id: int | None = None  # BoardGameGeek's id, where known
    lowest_wins: bool = False
    cooperative: bool = False  # everybody wins or loses together


@dataclass(frozen=True)
class PlayerResult:
    """One player's final score: total, competition rank and points per row."""

    name: str
    total: int
    rank: int
    breakdown: Mapping[str, int]

    def to_json(self) -> dict:
        return {"name": self.name, "total": self.total, "rank": self.rank, "breakdown": dict(self.breakdown)}


@dataclass(frozen=True)
class FinalResult:
    """The final scores of one play; ``players`` keeps the order they were given in."""

    game: str
    players: tuple[PlayerResult, ...]
    # Why a tie on points was broken, per player name (for the result page); empty when none was.
    tie_break_notes: Mapping[str, str] = field(default_factory=dict)

    @property
    def winners(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players if p.rank == 1)

    def to_json(self) -> dict:
        return {"game": self.game, "players": [p.to_json() for p in self.players],
                "winners": list(self.winners)}


def competition_ranks(keys: Sequence[tuple[int, ...]]) -> list[int]:
    """Rank by key, larger first, equal keys sharing a rank: ``[(5,), (5,), (3,)]`` → ``[1, 1, 3]``."""
    return [1 + sum(other > key for other in keys) for key in keys]


def rank_players(game: str, rows: Sequence[str], breakdowns: Sequence[tuple[str, Mapping[str, int]]],
                 tie_breakers: Sequence[tuple[int, ...]] | None = None) -> FinalResult:
    """Total each player's breakdown and rank them; ``tie_breakers`` (larger is better) break equal points."""
    extra = tie_breakers or [()] * len(breakdowns)
    full = []
    for name, breakdown in breakdowns:
        if set(breakdown) != set(rows):
            raise RulesError("breakdown rows %(given)s are not %(rows)s", given=sorted(breakdown),
                             rows=list(rows))
        full.append((name, {row: int(breakdown[row]) for row in rows}))
    totals = [sum(points.values()) for _, points in full]
    ranks = competition_ranks([(total, *tb) for total, tb in zip(totals, extra, strict=True)])
    return FinalResult(game, tuple(PlayerResult(name, total, rank, points)
                                   for (name, points), total, rank in zip(full, totals, ranks, strict=True)))


# What the registry asks of a game whose ties are shared: nothing breaks one, so no tally lacks a tie-breaker
# (None as the tie-breakers, nothing to refuse for want of one), and typed totals ask nothing besides.
def no_tie_breakers(*_: object) -> None:
    pass


def nothing_asked_for_ties(_state: object) -> tuple[()]:
    return ()


def winners_and_others(row_points: Mapping[str, tuple[int, int]], results: int,
                       wins: int) -> dict[str, tuple[float | None, float | None]]:
    """Per breakdown row, a winner's average points and everyone else's (None where there were none),
    from each row's points (everyone's, the winners') over ``results`` results, ``wins`` of them won."""
    others = results - wins
    return {row: (won / wins if wins else None, (points - won) / others if others else None)
            for row, (points, won) in row_points.items()}


def whole_number(value: object, path: str, low: int, high: int, what: str) -> int:
    """``value``, a whole number from ``low`` to ``high`` (JSON's 5.0 and true are not whole numbers)."""
    if type(value) is not int or not low <= value <= high:
        raise RulesError("%(what)s must be a whole number from %(low)d to %(high)d.", path, what=what,
                         low=low, high=high)
    return value


@dataclass(frozen=True)
class Seat:
    name: str
    colour: str


@dataclass(frozen=True)
class PlaySetup:
    """What is fixed when a play starts: the game, the seats in turn order and the game's options."""

    game: str
    seats: tuple[Seat, ...]
    options: Mapping[str, object] = field(default_factory=dict)


def seat_index(payload: Mapping[str, object], seats: int) -> int:
    seat = payload.get("seat")
    if type(seat) is not int or not 0 <= seat < seats:
        raise RulesError("Pick one of the players at the table.", "seat")
    return seat
