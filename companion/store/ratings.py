"""Skill ratings: kept per rated play, computed again from the first play a change touched (noted by
the triggers of ``m008_ratings``), with the rules' function that rates one play."""

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from sqlite_utils import Database

from companion.store.errors import grouped, marks
from companion.store.plays import FINAL_EVENT
from companion.store.transactions import write_transaction

OVERALL = ""  # the scope of the rating over every game

Skill = tuple[float, float]  # mu, sigma
# (ratings before, (player, rank, team) per seat, whether the play was cooperative) → ratings after
RatePlay = Callable[[Mapping[int, Skill], Sequence[tuple[int, int, "str | None"]], bool], dict[int, Skill]]


@dataclass(frozen=True)
class PlayerRating:
    player_id: int
    mu: float
    sigma: float
    change: float  # of the shown number (mu - 3 sigma), at the player's latest rated play
    plays: int

    @property
    def shown(self) -> float:
        return self.mu - 3 * self.sigma


@dataclass(frozen=True)
class RatedPlay:
    play_id: int
    ended_at: str
    shown: Mapping[int, float]  # player id → rating after this play


def _plays_since(db: Database, group_id: int, since: str) -> list[tuple[int, str, str, list, object, bool]]:
    """The counted finished plays from ``since`` on, in order, with (seat, player, rank), the teams recorded
    and whether the play was cooperative (its final tally says whether the table ``won``)."""
    plays = db.execute(
        "SELECT id, game, ended_at FROM plays WHERE group_id = ? AND status = 'finished' AND counted = 1 "
        "AND deleted_at IS NULL AND ended_at >= ? ORDER BY ended_at, id", [group_id, since]).fetchall()
    placings = grouped(db.execute(
        "SELECT r.play_id, s.seat, r.player_id, r.rank FROM results r JOIN seats s ON s.play_id = r.play_id "
        "AND s.player_id = r.player_id WHERE r.group_id = ? AND r.counted = 1 AND r.ended_at >= ?",
        [group_id, since]))
    finals = {play_id: (teams and json.loads(teams), won in ("true", "false")) for play_id, teams, won in (
        db.execute("SELECT e.play_id, json_extract(e.payload, '$.teams'), json_type(e.payload, '$.won') FROM "
                   "events e JOIN plays p ON p.id = e.play_id WHERE p.group_id = ? AND p.ended_at >= ? AND "
                   "e.kind = ? AND (json_extract(e.payload, '$.teams') IS NOT NULL OR json_type(e.payload, "
                   "'$.won') IN ('true', 'false'))", [group_id, since, FINAL_EVENT]))}
    return [(play_id, game, ended_at, sorted(placings.get(play_id, [])), *finals.get(play_id, (None, False)))
            for play_id, game, ended_at in plays]


def refresh_ratings(db: Database, group_id: int, rate: RatePlay) -> None:
    """Compute the ratings again from the first play a change touched; nothing to do when none did."""
    if not db.execute("SELECT 1 FROM ratings_stale WHERE group_id = ?", [group_id]).fetchone():
        return  # the usual case: no write lock taken for a page that only reads
    with write_transaction(db):
        stale = db.execute("SELECT since FROM ratings_stale WHERE group_id = ?", [group_id]).fetchone()
        if stale is None:
            return
        since = stale[0]
        db.execute("DELETE FROM ratings WHERE group_id = ? AND ended_at >= ?", [group_id, since])
        known: dict[tuple[str, int], tuple[float, float, int]] = {}

        def before(scope: str, player_id: int) -> tuple[float, float, int] | None:
            if (scope, player_id) not in known:
                known[(scope, player_id)] = db.execute(
                    "SELECT mu, sigma, plays FROM ratings WHERE group_id = ? AND scope = ? AND player_id = ? "
                    "ORDER BY ended_at DESC, play_id DESC LIMIT 1", [group_id, scope, player_id]).fetchone()
            return known[(scope, player_id)]

        rows = []
        for play_id, game, ended_at, placings, teams, cooperative in _plays_since(db, group_id, since):
            team_of = teams if isinstance(teams, list) and len(teams) == len(placings) else [None] * 10
            seated = [(player_id, rank, team_of[n]) for n, (_, player_id, rank) in enumerate(placings)]
            for scope in (OVERALL, game):
                current = {p: before(scope, p)[:2] for p, _, _ in seated if before(scope, p) is not None}
                for player_id, (mu, sigma) in rate(current, seated, cooperative).items():
                    old_mu, old_sigma, plays = before(scope, player_id) or (0.0, 0.0, 0)
                    known[(scope, player_id)] = (mu, sigma, plays + 1)
                    rows.append((group_id, scope, player_id, ended_at, play_id, mu, sigma,
                                 (mu - 3 * sigma) - (old_mu - 3 * old_sigma), plays + 1))
        db.conn.executemany("INSERT INTO ratings (group_id, scope, player_id, ended_at, play_id, mu, sigma, "
                            "change, plays) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        db.execute("DELETE FROM ratings_stale WHERE group_id = ?", [group_id])


def player_ratings(db: Database, group_id: int, scope: str = OVERALL) -> dict[int, PlayerRating]:
    """Each player's rating now (after their latest rated play), by player id."""
    return {row[0]: PlayerRating(*row) for row in db.execute(
        "SELECT p.id, r.mu, r.sigma, r.change, r.plays FROM players p JOIN ratings r ON r.rowid = "
        "(SELECT rowid FROM ratings WHERE group_id = p.group_id AND scope = ? AND player_id = p.id "
        "ORDER BY ended_at DESC, play_id DESC LIMIT 1) WHERE p.group_id = ?", [scope, group_id])}


def rating_history(db: Database, group_id: int, scope: str = OVERALL, limit: int = 24) -> list[RatedPlay]:
    """The ratings after each of the latest ``limit`` rated plays, oldest first."""
    plays = db.execute("SELECT DISTINCT play_id, ended_at FROM ratings WHERE group_id = ? AND scope = ? "
                       "ORDER BY ended_at DESC, play_id DESC LIMIT ?", [group_id, scope, limit]).fetchall()
    shown = grouped(db.execute(
        "SELECT play_id, player_id, mu - 3 * sigma FROM ratings WHERE scope = ? AND play_id IN "
        f"({marks(plays)})", [scope, *(play_id for play_id, _ in plays)]))
    return [RatedPlay(play_id, ended_at, dict(shown.get(play_id, ())))
            for play_id, ended_at in reversed(plays)]
