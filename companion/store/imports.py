"""Finished plays brought in from another app (a BG Stats export), added to an existing group."""

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlite_utils import Database

from companion.names import name_key
from companion.store.errors import StoreError
from companion.store.groups import check_free_name, insert_player, remove_plays
from companion.store.plays import FINAL_EVENT, ResultInput, insert_finished_play
from companion.store.transactions import write_in_steps, write_transaction


@dataclass(frozen=True)
class ImportedPlay:
    """A finished play as another app recorded it: seats name the group's players."""

    game: str
    options: Mapping[str, Any]
    counted: bool
    started_at: str
    ended_at: str
    seats: tuple[tuple[str, str], ...]  # (player name, colour) in seat order
    final_payload: Mapping[str, Any]  # the final tally's event: totals and where the play came from
    results: tuple[ResultInput, ...]


def import_plays(db: Database, group_id: int, new_players: Sequence[tuple[str, str]],
                 plays: Sequence[ImportedPlay]) -> None:
    """Add the new players (name, colour) and the finished plays, whose seats name the group's players
    (by ``name_key``): all of it, or nothing if a new name is taken or a seat names nobody. The plays go
    in in steps (``write_in_steps``), removed if the import fails (not if the process ends: the file
    imported again adds the rest, as plays the history has are left out)."""
    with write_transaction(db):
        added = []
        for name, colour in new_players:
            check_free_name(db, group_id, name)
            added.append(insert_player(db, group_id, name, colour))
        ids = {name_key(name): player_id for player_id, name in db.execute(
            "SELECT id, name FROM players WHERE group_id = ?", [group_id]).fetchall()}
        missing = [name for play in plays for name, _ in play.seats if name_key(name) not in ids]
        if missing:
            raise StoreError("The group has no player called %(name)s.", name=missing[0])
    written: list[int] = []
    try:
        write_in_steps(db, plays, lambda play: insert_finished_play(
            db, group_id, play.game, [(ids[name_key(name)], colour) for name, colour in play.seats],
            play.options, play.final_payload, play.results, play.started_at, play.ended_at, play.counted),
            written)
    except BaseException:
        remove_plays(db, written)
        with write_transaction(db):
            db.conn.executemany("DELETE FROM players WHERE id = ?", [(player_id,) for player_id in added])
        raise


# A reopened play (its final tally undone, to be finished again) is still the group's: its tally is kept in
# plays.reopened_tally while the final event is gone.
_REOPENED = "p.status = 'active' AND p.reopened_tally IS NOT NULL"


def imported_play_keys(db: Database, group_id: int, field: str) -> set[str]:
    """The values the group's final tallies keep under ``field`` (the other app's ids of imported plays),
    reopened plays' included."""
    path = "$." + field
    rows = db.execute("SELECT json_extract(e.payload, ?) FROM events e JOIN plays p ON p.id = e.play_id "
                      "WHERE p.group_id = ? AND e.kind = ? AND json_extract(e.payload, ?) IS NOT NULL "
                      "UNION SELECT json_extract(p.reopened_tally, ?) FROM plays p WHERE p.group_id = ? "
                      f"AND {_REOPENED} AND json_extract(p.reopened_tally, ?) IS NOT NULL",
                      [path, group_id, FINAL_EVENT, path, path, group_id, path])
    return {str(key) for (key,) in rows}


def finished_play_players(db: Database, group_id: int) -> list[tuple[str, str, dict[str, int | None]]]:
    """(game, start, each player's name → total) of every finished play in the group's history, the trash
    included (a play restored from it must not come in twice), and of every reopened one (no totals: its
    results wait for the final tally again)."""
    rows = db.execute(
        "SELECT p.game, p.started_at, json_group_object(pl.name, r.total) FROM plays p "
        "JOIN seats s ON s.play_id = p.id JOIN players pl ON pl.id = s.player_id "
        "LEFT JOIN results r ON r.play_id = p.id AND r.player_id = s.player_id "
        f"WHERE p.group_id = ? AND (p.status = 'finished' OR {_REOPENED}) GROUP BY p.id",
        [group_id]).fetchall()
    return [(game, started_at, json.loads(totals)) for game, started_at, totals in rows]
