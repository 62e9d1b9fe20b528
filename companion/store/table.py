"""At the table and after it: changing a play's options (timer, first player, note), logging a past play."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlite_utils import Database

from companion.store.errors import NotFound
from companion.store.plays import FINAL_EVENT, ResultInput
from companion.store.transactions import write_transaction


def change_play_options(db: Database, play_id: int,
                        change: Callable[[Mapping[str, Any]], Mapping[str, Any]]) -> int:
    """Replace the play's options with ``change(options)``; returns the play's new version.

    ``change`` sees the options with the write lock held (two phones tapping the timer at once see
    each other's tap) and may refuse by raising. Every phone notices the new version.
    """
    with write_transaction(db):
        row = db.execute("SELECT options, version FROM plays WHERE id = ?", [play_id]).fetchone()
        if row is None:
            raise NotFound("play")
        options = dict(change(json.loads(row[0])))
        db.execute("UPDATE plays SET options = ?, version = version + 1 WHERE id = ?",
                   [json.dumps(options), play_id])
        return row[1] + 1


def log_past_play(db: Database, group_id: int, game: str, seats: Sequence[tuple[int, str]],
                  options: Mapping[str, Any], payload: Mapping[str, Any], results: Sequence[ResultInput],
                  started_at: str, ended_at: str) -> int:
    """Keep a play that was played earlier, finished, in one transaction; returns its id."""
    with write_transaction(db):
        for player_id, _ in seats:
            if not db.execute("SELECT 1 FROM players WHERE id = ? AND group_id = ?",
                              [player_id, group_id]).fetchone():
                raise NotFound("player")
        return insert_finished_play(db, group_id, game, seats, options, payload, results, started_at,
                                    ended_at)


def insert_finished_play(db: Database, group_id: int, game: str, seats: Sequence[tuple[int, str]],
                         options: Mapping[str, Any], payload: Mapping[str, Any],
                         results: Sequence[ResultInput], started_at: str, ended_at: str,
                         counted: bool = True) -> int:
    """Insert a finished play with its final tally and results; call it inside a write transaction."""
    play_id = db.execute(
        "INSERT INTO plays (group_id, game, options, counted, started_at, first_ended_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [group_id, game, json.dumps(dict(options)), int(counted), started_at, ended_at]).lastrowid
    seat_players = [player_id for player_id, _ in seats]
    db.conn.executemany("INSERT INTO seats (play_id, seat, player_id, colour) VALUES (?, ?, ?, ?)",
                        [(play_id, n, player_id, colour) for n, (player_id, colour) in enumerate(seats)])
    db.execute("INSERT INTO events (play_id, seq, kind, payload, created_at) VALUES (?, 1, ?, ?, ?)",
               [play_id, FINAL_EVENT, json.dumps(dict(payload)), ended_at])
    # finished before the results go in: their triggers copy the play's end into the statistics
    db.execute("UPDATE plays SET status = 'finished', ended_at = ?, version = 1 WHERE id = ?",
               [ended_at, play_id])
    db.conn.executemany(
        "INSERT INTO results (play_id, player_id, total, rank, breakdown) VALUES (?, ?, ?, ?, ?)",
        [(play_id, seat_players[r.seat], r.total, r.rank, json.dumps(dict(r.breakdown)))
         for r in results])
    return play_id
