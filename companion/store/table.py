"""At the table and after it: changing a play's options (timer, first player, note), logging a past play."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlite_utils import Database

from companion.store import plays
from companion.store.errors import found
from companion.store.transactions import write_transaction

# The play's note and variant carry a revision of their own in its options: the play's version moves
# with every entry, and a note typed while the others score must not be refused for that.
NOTE_REVISION = "note_revision"


def change_play_options(db: Database, play_id: int,
                        change: Callable[[Mapping[str, Any]], Mapping[str, Any]]) -> int:
    """Replace the play's options with ``change(options)``, which sees them under the write lock (two
    phones tapping the timer at once see each other's tap) and may refuse; returns the new version."""
    with write_transaction(db):
        row = found(db.execute("SELECT options, version FROM plays WHERE id = ?", [play_id]).fetchone(),
                    "play")
        options = dict(change(json.loads(row[0])))
        # a reopened play's kept tally still fits its log: the options are not part of it
        db.execute("UPDATE plays SET options = ?, version = version + 1, reopened_at_version = CASE "
                   "WHEN reopened_at_version = version THEN version + 1 ELSE reopened_at_version END "
                   "WHERE id = ?", [json.dumps(options), play_id])
        return row[1] + 1


def note_revision(options: Mapping[str, Any]) -> int:
    """How often the play's note and variant were saved (0 for a play whose note was never saved)."""
    revision = options.get(NOTE_REVISION, 0)
    return revision if type(revision) is int and revision >= 0 else 0


def save_play_note(db: Database, play_id: int, fields: Mapping[str, str], expected_revision: int) -> int:
    """Store the play's note and variant (``fields``) as typed on a page showing ``expected_revision``;
    StaleVersion if another phone saved the note since (checked under the write lock). The new revision."""
    def change(options: Mapping[str, Any]) -> dict[str, Any]:
        revision = note_revision(options)
        plays.check_version(revision, expected_revision)
        return {**options, **fields, NOTE_REVISION: revision + 1}

    change_play_options(db, play_id, change)
    return expected_revision + 1


def log_past_play(db: Database, group_id: int, game: str, seats: Sequence[tuple[int, str]],
                  options: Mapping[str, Any], payload: Mapping[str, Any],
                  results: Sequence[plays.ResultInput], started_at: str, ended_at: str) -> int:
    """Keep a play that was played earlier, finished, in one transaction; returns its id."""
    with write_transaction(db):
        plays.check_players(db, group_id, seats)
        return insert_finished_play(db, group_id, game, seats, options, payload, results, started_at,
                                    ended_at)


def insert_finished_play(db: Database, group_id: int, game: str, seats: Sequence[tuple[int, str]],
                         options: Mapping[str, Any], payload: Mapping[str, Any],
                         results: Sequence[plays.ResultInput], started_at: str, ended_at: str,
                         counted: bool = True) -> int:
    """Insert a finished play with its final tally and results; call it inside a write transaction."""
    play_id = db.execute(
        "INSERT INTO plays (group_id, game, options, counted, started_at, first_ended_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [group_id, game, json.dumps(dict(options)), int(counted), started_at, ended_at]).lastrowid
    plays.insert_seats(db, play_id, seats)
    db.execute("INSERT INTO events (play_id, seq, kind, payload, created_at) VALUES (?, 1, ?, ?, ?)",
               [play_id, plays.FINAL_EVENT, json.dumps(dict(payload)), ended_at])
    # finished before the results go in: their triggers copy the play's end into the statistics
    db.execute("UPDATE plays SET status = 'finished', ended_at = ?, version = 1 WHERE id = ?",
               [ended_at, play_id])
    plays.write_results(db, play_id, [player_id for player_id, _ in seats], results)
    return play_id
