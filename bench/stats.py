"""How fast the statistics page renders for a group with 10 000 and 100 000 finished plays.

``stats_rows(seconds_budget)`` gives the rows of the project's benchmark table; run this file on its
own to print them. The budget (design notes): at most 20 ms at 100 000 plays, and
at most ×2 from 10 000 to 100 000.
"""

from __future__ import annotations

import json
import os
import random
import statistics as stats
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app import create_app  # noqa: E402
from companion import store  # noqa: E402
from companion.games import GAMES  # noqa: E402
from companion.games.common import FINAL_EVENT, competition_ranks  # noqa: E402

Row = tuple[str, str, str]  # measure, value, note

SIZES = (10_000, 100_000)
BUDGET_MS = 20.0
BUDGET_PLAYS = 100_000
PLAYERS = (("Anna", "red"), ("Ben", "blue"), ("Cara", "green"), ("Dan", "yellow"), ("Eva", "purple"),
           ("Finn", "orange"))
GAME_WEIGHTS = {"great-western-trail": 5, "gold-west": 3, "mayflower": 2}
UNCOUNTED_SHARE = 0.02  # a few teaching games left out of the statistics


def _breakdown(rng: random.Random, rows: tuple[str, ...]) -> dict[str, int]:
    return {row: rng.randint(-3, 20) for row in rows}


def generated_database(path: Path, plays: int, seed: int = 1) -> int:
    """A database at ``path`` with one group of six and ``plays`` finished plays; returns the group's id.

    The plays go in with bulk inserts into the first migration's tables; then the later migrations
    run, as on an installation upgraded with its history already in it, and fill the statistics'
    copies and running sums in one pass each instead of row by row through the triggers.
    """
    rng = random.Random(seed)
    db = store.connect(path)
    # a throwaway database: no need to wait for the disk, and room in memory for building the indexes
    db.execute("PRAGMA synchronous = OFF")
    db.execute("PRAGMA cache_size = -262144")
    db.execute("CREATE TABLE migrations (number INTEGER PRIMARY KEY, name TEXT, applied_at TEXT)")
    with store.write_transaction(db):
        store.MIGRATIONS[0](db)
        db.execute("INSERT INTO migrations VALUES (1, ?, ?)", [store.MIGRATIONS[0].__name__.lstrip("_"),
                                                                 store.now()])
    # the group and its players as the first migration's tables hold them (the store writes today's)
    with store.write_transaction(db):
        group_id = db.execute(
            "INSERT INTO groups (name, token, join_code, created_at) VALUES (?, ?, ?, ?)",
            [f"{plays} plays", f"token-{seed}", f"CODE{seed:04d}", store.now()]).lastrowid
        player_ids = [db.execute(
            "INSERT INTO players (group_id, name, colour, created_at) VALUES (?, ?, ?, ?)",
            [group_id, name, colour, store.now()]).lastrowid for name, colour in PLAYERS]
    colour_of = dict(zip(player_ids, (colour for _, colour in PLAYERS), strict=True))
    games = list(GAME_WEIGHTS)
    weights = list(GAME_WEIGHTS.values())
    start = datetime(2015, 1, 1, 19, 0, tzinfo=UTC)
    play_rows, seat_rows, event_rows, result_rows = [], [], [], []
    for play_id in range(1, plays + 1):
        game = rng.choices(games, weights)[0]
        info = GAMES[game]
        table = rng.sample(player_ids, rng.randint(max(2, info.min_players), min(4, info.max_players)))
        ended = start + timedelta(hours=3 * play_id + rng.randint(0, 2))
        ended_at = ended.isoformat()
        counted = 0 if rng.random() < UNCOUNTED_SHARE else 1
        play_rows.append((play_id, group_id, game, "{}", "finished", counted,
                          (ended - timedelta(minutes=90)).isoformat(), ended_at, 1))
        breakdowns = [_breakdown(rng, info.rows) for _ in table]
        totals = [sum(b.values()) for b in breakdowns]
        ranks = competition_ranks([(total,) for total in totals])
        for seat, player_id in enumerate(table):
            seat_rows.append((play_id, seat, player_id, colour_of[player_id]))
            result_rows.append((play_id, player_id, totals[seat], ranks[seat], json.dumps(breakdowns[seat])))
        event_rows.append((play_id, 1, FINAL_EVENT, json.dumps({"totals": totals}), ended_at))
    with store.write_transaction(db):
        db.conn.executemany("INSERT INTO plays (id, group_id, game, options, status, counted, started_at, "
                            "ended_at, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", play_rows)
        db.conn.executemany("INSERT INTO seats (play_id, seat, player_id, colour) VALUES (?, ?, ?, ?)",
                            seat_rows)
        db.conn.executemany("INSERT INTO events (play_id, seq, kind, payload, created_at) "
                            "VALUES (?, ?, ?, ?, ?)", event_rows)
        db.conn.executemany("INSERT INTO results (play_id, player_id, total, rank, breakdown) "
                            "VALUES (?, ?, ?, ?, ?)", result_rows)
    store.migrate(db)
    db.close()
    return group_id


def median_ms(work: Callable[[], object], seconds: float, at_least: int = 5) -> tuple[float, float, int]:
    """Median wall and CPU time of ``work`` in ms, repeated for about ``seconds`` (at least a few times).

    The CPU time shows what the page itself costs when other processes compete for the machine.
    """
    wall: list[float] = []
    cpu: list[float] = []
    deadline = time.perf_counter() + seconds
    while len(wall) < at_least or time.perf_counter() < deadline:
        began, began_cpu = time.perf_counter(), time.process_time()
        work()
        wall.append((time.perf_counter() - began) * 1000)
        cpu.append((time.process_time() - began_cpu) * 1000)
    return stats.median(wall), stats.median(cpu), len(wall)


def page_timer(folder: Path, plays: int) -> dict[str, Callable[[], object]]:
    """Renders of the statistics page (all games, and the most played game) through the test client."""
    app = create_app({"TESTING": True, "SECRET_KEY": "benchmark", "WTF_CSRF_ENABLED": False,
                      "DATABASE": str(folder / "companion.sqlite3"), "SERVER_NAME": "companion.test"})
    group_id = generated_database(Path(app.config["DATABASE"]), plays)
    client = app.test_client()
    # the phone joins through the invite link, as a player would
    client.post("/join/token-1", data={})

    def render(query: str) -> Callable[[], object]:
        def get() -> None:
            response = client.get(f"/groups/{group_id}/statistics{query}")
            if response.status_code != 200:
                raise RuntimeError(f"the statistics page answered {response.status_code}")
        return get

    return {"all games": render(""), "Great Western Trail": render("?game=great-western-trail")}


def stats_rows(seconds_budget: float) -> list[Row]:
    """Median render time of the statistics page per group size, and its growth from 10 000 to 100 000.

    ``seconds_budget`` is the time spent rendering, shared by all measurements; building the three
    databases comes on top (about a minute for the largest). Each note gives the CPU time too, and the
    machine's load: on a busy machine the wall-clock time is mostly waiting for a processor.
    """
    rows: list[Row] = []
    medians: dict[tuple[int, str], tuple[float, float]] = {}
    per_measure = seconds_budget / (len(SIZES) * 2)
    for plays in SIZES:
        with tempfile.TemporaryDirectory() as tmp:
            for label, render in page_timer(Path(tmp), plays).items():
                render()  # the first request opens files and compiles templates
                ms, cpu_ms, count = median_ms(render, per_measure)
                medians[plays, label] = (ms, cpu_ms)
                note = f"median of {count}; CPU {cpu_ms:.1f} ms; load {os.getloadavg()[0]:.1f}"
                if plays == BUDGET_PLAYS:
                    verdict = "within" if ms < BUDGET_MS else "OVER"
                    note += f"; {verdict} the {BUDGET_MS:.0f} ms budget"
                rows.append((f"statistics page, {plays:,} plays, {label}: ms", f"{ms:.1f}", note))
    for label in ("all games", "Great Western Trail"):
        (small, small_cpu), (large, large_cpu) = medians[SIZES[0], label], medians[SIZES[-1], label]
        rows.append((f"statistics page growth 10,000 → 100,000 plays, {label}", f"×{large / small:.1f}",
                     f"for 10× the plays; CPU ×{large_cpu / small_cpu:.1f}; target ≤ ×2: "
                     f"{'within' if large / small <= 2 else 'OVER'}"))
    return rows


if __name__ == "__main__":
    for row in [("measure", "value", "note"), *stats_rows(float(sys.argv[1]) if len(sys.argv) > 1 else 6.0)]:
        print(" | ".join(row))
