"""Any other game: a score sheet the group defines once (a total per player, or named rows), and how its
plays are ranked. The sheet is versioned data: a play is scored with the version it was started with."""

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

from companion.games import common
from companion.games.common import FinalResult, GameInfo, PlayerResult, RulesError
from companion.names import NameProblem, clean_name

SLUG_PREFIX = "custom-"
SHEET_OPTION = "sheet"  # a play's option: the id of the sheet version it is scored with
TOTAL_ROW = "total"  # the breakdown of a sheet without rows: one total per player
RUNNING_SCORES = "running_scores"  # a sheet of totals' final tally: the running scores it was entered at
MAX_ROWS = 20
ROW_NAME_MAX = 30
GAME_NAME_MAX = 60
PLAYERS_LIMIT = 10  # the most seats a play has
POINTS_LIMIT = 9999  # per row and per total
TEAM_NAMES = ("A", "B", "C", "D", "E")
# the rank everybody gets when a cooperative game beats them: nobody is first, nobody is ahead
COOPERATIVE_LOSS_RANK = 2
# Which way a tie-breaker row counts: "most" or "fewest" wins; a sheet without one counts it like the total.
TIE_BREAKER_WINS = ("most", "fewest")

_SLUG = re.compile(r"custom-([1-9][0-9]{0,17})")


def slug_for(game_id: int) -> str:
    return f"{SLUG_PREFIX}{game_id}"


def game_id_of(slug: str) -> int | None:
    """The group game's id in a ``custom-<id>`` slug; None for any other slug."""
    match = _SLUG.fullmatch(slug) if isinstance(slug, str) else None
    return int(match.group(1)) if match else None


@dataclass(frozen=True)
class SheetRow:
    name: str
    negative: bool = False  # may the row's points go below zero?


@dataclass(frozen=True)
class ScoreSheet:
    """How a game is scored and ranked: one version of a group game's definition."""

    min_players: int = 1
    max_players: int = 6
    rows: tuple[SheetRow, ...] = ()  # empty: a total per player
    tie_breaker: str | None = None  # the name of the row that decides equal totals
    lowest_wins: bool = False
    cooperative: bool = False  # everybody wins or everybody loses together
    teams: bool = False  # players play in teams; a team's members share its rank
    # "most" or "fewest" of the tie-breaker row wins; None: like the total (fewest where lowest wins)
    tie_breaker_wins: str | None = None

    @property
    def row_keys(self) -> tuple[str, ...]:
        return tuple(row.name for row in self.rows) or (TOTAL_ROW,)

    def to_json(self) -> dict[str, Any]:
        data = {**asdict(self), "rows": [asdict(row) for row in self.rows]}
        if not self.tie_breaker_wins:  # written only when chosen: a sheet saved before the choice stays equal
            del data["tie_breaker_wins"]
        return data

    @property
    def most_breaks_ties(self) -> bool:
        return self.tie_breaker_wins == "most" if self.tie_breaker_wins is not None else not self.lowest_wins


def clean_row_name(value: object, path: str) -> str:
    """A row's name as typed, trimmed and inner spaces folded, within the rules of names."""
    if not isinstance(value, str):
        raise RulesError("A row name is text of 1 to %(limit)d characters.", path, limit=ROW_NAME_MAX)
    try:
        clean_name(value, path, ROW_NAME_MAX)
    except NameProblem as problem:
        raise RulesError(problem.message, path) from None
    # kept as it was written (not re-normalised): the plays' breakdowns name the row by this text
    return " ".join(value.strip(common.NAME_SPACE).split())


def _flag(data: Mapping[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if type(value) is not bool:
        raise RulesError("%(key)s must be true or false.", key, key=key)
    return value


def _count(data: Mapping[str, Any], key: str, default: int) -> int:
    value = data.get(key, default)
    if type(value) is not int or not 1 <= value <= PLAYERS_LIMIT:
        raise RulesError("%(key)s must be a whole number from 1 to %(limit)d.", key, key=key,
                         limit=PLAYERS_LIMIT)
    return value


def parse_sheet(data: object) -> ScoreSheet:
    """A score sheet from its JSON form (a form's answers, a stored version, a backup), checked."""
    if not isinstance(data, Mapping):
        raise RulesError("A score sheet needs a set of named values.")
    if unknown := sorted(set(data) - {field.name for field in fields(ScoreSheet)}):
        raise RulesError("A score sheet has no field %(field)s.", unknown[0], field=unknown[0])
    low, high = _count(data, "min_players", 1), _count(data, "max_players", 6)
    if low > high:
        raise RulesError("The fewest players must not be more than the most players.", "min_players")
    raw_rows = data.get("rows", [])
    if not isinstance(raw_rows, list) or len(raw_rows) > MAX_ROWS:
        raise RulesError("A score sheet has at most %(limit)d rows.", "rows", limit=MAX_ROWS)
    rows: list[SheetRow] = []
    for n, raw in enumerate(raw_rows):
        if not isinstance(raw, Mapping) or set(raw) - {"name", "negative"}:
            raise RulesError("Each row needs a name and may say whether it can go below zero.", f"rows[{n}]")
        name = clean_row_name(raw.get("name"), f"rows[{n}].name")
        if name.casefold() == TOTAL_ROW:
            raise RulesError("A row cannot be called %(name)s: the total is the sum of the rows.",
                             f"rows[{n}].name", name=name)
        if any(row.name.casefold() == name.casefold() for row in rows):
            raise RulesError("The sheet has two rows called %(name)s.", f"rows[{n}].name", name=name)
        rows.append(SheetRow(name, _flag(raw, "negative")))
    tie_breaker = data.get("tie_breaker")
    if tie_breaker is not None and tie_breaker not in {row.name for row in rows}:
        raise RulesError("The tie-breaker must be one of the sheet's rows.", "tie_breaker")
    # absent in sheets saved before the choice existed: the row counts like the total, as it did then
    wins = data.get("tie_breaker_wins")
    if wins is not None and wins not in TIE_BREAKER_WINS:
        raise RulesError("Say whether most or fewest of the tie-breaker row wins.", "tie_breaker_wins")
    if wins is not None and tie_breaker is None:
        raise RulesError("Pick the row that breaks ties before saying which way it counts.",
                         "tie_breaker_wins")
    cooperative, teams = _flag(data, "cooperative"), _flag(data, "teams")
    if cooperative and teams:
        raise RulesError("A cooperative game has one team already: choose cooperative or teams.", "teams")
    if teams and high < 2:
        raise RulesError("A game of teams needs at least 2 players.", "max_players")
    return ScoreSheet(low, high, tuple(rows), tie_breaker, _flag(data, "lowest_wins"), cooperative, teams,
                      wins)


def check_new_sheet(sheet: ScoreSheet) -> None:
    """What a sheet saved now must meet besides what ``parse_sheet`` checks of every sheet, kept ones too."""
    # two teams need two players; kept sheets may still say 1 (``game_info`` seats 2 at least)
    if sheet.teams and sheet.min_players < 2:
        raise RulesError("A game of teams needs at least 2 players.", "min_players")


def check_sheet_change(old: ScoreSheet, new: ScoreSheet, plays: int) -> None:
    """Which way a game is won stays once it has plays: the statistics counted and read them that way."""
    if plays and new.lowest_wins != old.lowest_wins:
        if old.lowest_wins:
            raise RulesError("This game has plays won by the lowest total, so that stays. For the other "
                             "way round, add another game.", "lowest_wins")
        raise RulesError("This game has plays won by the highest total, so that stays. For the other way "
                         "round, add another game.", "lowest_wins")


def game_info(game_id: int, name: str, sheet: ScoreSheet, bgg_id: int | None = None) -> GameInfo:
    # a play of teams starts with two seats at least: one could never be finished (a sheet saved before
    # check_new_sheet may allow one player)
    fewest = max(sheet.min_players, 2) if sheet.teams else sheet.min_players
    return GameInfo(slug=slug_for(game_id), name=name, min_players=fewest,
                    max_players=sheet.max_players, rows=sheet.row_keys, bgg_id=bgg_id,
                    lowest_wins=sheet.lowest_wins, cooperative=sheet.cooperative)


def _points(value: object, name: str, row: str, negative: bool) -> int:
    low = -POINTS_LIMIT if negative else 0
    if type(value) is not int or not low <= value <= POINTS_LIMIT:
        raise RulesError("%(name)s's %(row)s must be a whole number from %(low)d to %(high)d.", row,
                         name=name, row=row, low=low, high=POINTS_LIMIT)
    return value


def checked_breakdown(sheet: ScoreSheet, name: str, breakdown: Mapping[str, Any]) -> dict[str, int]:
    """One player's points per row of ``sheet``; a missing, extra or out-of-range row is refused."""
    if set(breakdown) != set(sheet.row_keys):
        raise RulesError("%(name)s's score needs exactly the rows %(rows)s.", name=name,
                         rows=", ".join(sheet.row_keys))
    if not sheet.rows:  # the total may be negative: the rows behind it are unknown
        return {TOTAL_ROW: _points(breakdown[TOTAL_ROW], name, TOTAL_ROW, True)}
    checked = {row.name: _points(breakdown[row.name], name, row.name, row.negative) for row in sheet.rows}
    if abs(sum(checked.values())) > POINTS_LIMIT:
        raise RulesError("%(name)s's total must be from %(low)d to %(high)d.", name=name,
                         low=-POINTS_LIMIT, high=POINTS_LIMIT)
    return checked


def rank_sheet(slug: str, sheet: ScoreSheet, scores: Sequence[tuple[str, Mapping[str, Any]]],
               teams: Sequence[str] | None = None, won: bool | None = None) -> FinalResult:
    """Total each player's rows (``scores`` in seat order) and rank the table as ``sheet`` says: equal keys
    share a rank (1, 1, 3), team members their team's; a cooperative game ranks all 1 or 2."""
    if not sheet.min_players <= len(scores) <= sheet.max_players:
        raise RulesError("This game is played by %(min)d to %(max)d players.", "players",
                         min=sheet.min_players, max=sheet.max_players)
    breakdowns = [checked_breakdown(sheet, name, breakdown) for name, breakdown in scores]
    totals = [sum(b.values()) for b in breakdowns]
    sign = -1 if sheet.lowest_wins else 1
    # the tie-breaker row counts as the sheet says, else like the total (less is better where lowest wins)
    breaker_sign = 1 if sheet.most_breaks_ties else -1
    keys = [(sign * total, breaker_sign * b[sheet.tie_breaker] if sheet.tie_breaker else 0)
            for total, b in zip(totals, breakdowns, strict=True)]
    if sheet.cooperative:
        if type(won) is not bool:
            raise RulesError("Say whether the table won or lost.", "won")
        ranks = [1 if won else COOPERATIVE_LOSS_RANK] * len(scores)
    elif sheet.teams:
        if teams is None or len(teams) != len(scores) or any(team not in TEAM_NAMES for team in teams):
            raise RulesError("Put every player into a team.", "teams")
        order = sorted(set(teams))
        if len(order) < 2:
            raise RulesError("A game of teams needs at least two teams.", "teams")
        team_keys = [tuple(map(sum, zip(*(k for k, t in zip(keys, teams, strict=True) if t == team),
                                        strict=True))) for team in order]
        team_rank = dict(zip(order, common.competition_ranks(team_keys), strict=True))
        ranks = [team_rank[team] for team in teams]
    else:
        ranks = common.competition_ranks(keys)
    notes = {name: f"{sheet.tie_breaker}: {b[sheet.tie_breaker]}"
             for (name, _), total, b in zip(scores, totals, breakdowns, strict=True)
             if sheet.tie_breaker and not sheet.cooperative and totals.count(total) > 1}
    results = (PlayerResult(name, total, rank, b)
               for (name, _), total, rank, b in zip(scores, totals, ranks, breakdowns, strict=True))
    return FinalResult(slug, tuple(results), notes)


def default_teams(count: int) -> list[str]:
    """Seats alternating between two teams (A, B, A, B …): partners sit across the table."""
    return [TEAM_NAMES[seat % 2] for seat in range(count)]


def outcome_from_payload(payload: Mapping[str, Any] | None,
                         count: int) -> tuple[list[str] | None, bool | None]:
    """The teams and the cooperative outcome a final tally recorded (None where it recorded none)."""
    payload = payload if isinstance(payload, Mapping) else {}
    teams, won = payload.get("teams"), payload.get("won")
    if not (isinstance(teams, list) and len(teams) == count and all(isinstance(t, str) for t in teams)):
        teams = None
    return teams, won if type(won) is bool else None


def totals_since(kept: Sequence[Mapping[str, Any]], then: object, now: Sequence[int]) -> list[int] | None:
    """Where a reopened sheet of totals starts once its log changed: each kept total plus what the player's
    running score gained since (``then``: the running scores the tally was entered at). None where those
    are not known: a tally kept before they were, or entered afterwards."""
    totals = [breakdown.get(TOTAL_ROW) for breakdown in kept]
    if not (_whole_numbers(totals, len(now)) and _whole_numbers(then, len(now))):
        return None
    return [total + score - was for total, was, score in zip(totals, then, now, strict=True)]


def _whole_numbers(values: object, count: int) -> bool:
    return isinstance(values, list) and len(values) == count and all(type(value) is int for value in values)
