"""Plays: their seats, options, append-only event logs and final results, and plays logged afterwards."""

import json
import sqlite3
from collections import UserList
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cached_property
from typing import Any

from sqlite_utils import Database

from companion.store.errors import NotFound, StaleVersion, StoreError, found, grouped, marks
from companion.store.request_ids import expected_request, request_noted, seen_request
from companion.store.transactions import execute_write, now, write_one_statement, write_transaction

# The event that closes a play: its payload is the final tally (the rules read it by the same kind).
FINAL_EVENT = "final"
# A finished play's tally corrected afterwards: its payload holds per seat the new breakdowns, totals and
# ranks, and under "previous" the results it replaced, so that undoing it puts them back exactly.
CORRECTION_EVENT = "correction"


@dataclass(frozen=True)
class SeatRow:
    seat: int
    player_id: int
    name: str
    colour: str


@dataclass(frozen=True)
class Play:
    id: int
    group_id: int
    game: str
    options: Mapping[str, Any]
    status: str  # "active" or "finished"
    started_at: str
    ended_at: str | None
    version: int
    seats: tuple[SeatRow, ...]


@dataclass(frozen=True)
class Event:
    seq: int
    kind: str
    payload: Mapping[str, Any]
    created_at: str
    # the play's version this event brought; versions only grow, so an event put back at the same
    # place after an undo has another one (0 for events stored before versions were kept per event)
    version: int = 0
    membership_id: int | None = None  # the phone it came from, when it came with a request id


@dataclass(frozen=True)
class ResultRow:
    player_id: int
    name: str
    seat: int
    total: int
    rank: int
    breakdown: Mapping[str, int]


@dataclass(frozen=True)
class ResultInput:
    """One seat's final score as the rules computed it."""

    seat: int
    total: int
    rank: int
    breakdown: Mapping[str, int]


@dataclass(frozen=True)
class FinishedPlay:
    play: Play
    results: tuple[ResultRow, ...]


@dataclass(frozen=True)
class TrashedPlay:
    play: Play
    deleted_at: str


@dataclass(frozen=True)
class GroupPlays:
    """The plays a group's page lists, each list most recent first."""

    active: list[Play]
    recent: list[FinishedPlay]
    trashed: list[TrashedPlay]


@dataclass(frozen=True)
class ReopenedTally:
    """The final tally of a reopened play, as it was entered before the play was reopened."""

    payload: Mapping[str, Any]
    changed_since: bool  # the play has changed since it was reopened (an entry added, say)
    kinds_since: frozenset[str]  # the kinds of the entries made since
    # an entry undone since (or a change the entries do not account for, taken as one): what it had done
    # to the table is gone from the log
    undone_since: bool


_PLAY_COLUMNS = "id, group_id, game, options, status, started_at, ended_at, version"
_EVENT_COLUMNS = "seq, kind, payload, created_at, version, membership_id"
_LATEST_ORDER = ("WHERE group_id = ? AND status = ? AND deleted_at IS NULL "
                 "ORDER BY COALESCE(ended_at, started_at) DESC, id DESC LIMIT ?")
_LISTED = f"SELECT {_PLAY_COLUMNS}, deleted_at FROM plays {_LATEST_ORDER}"
_TRASHED = f"SELECT {_PLAY_COLUMNS}, deleted_at FROM plays WHERE group_id = ? AND deleted_at IS NOT NULL"
# An event appended in one statement: the next seq, the play's next version (``m015``: the event brings
# it), and the phone it came from with a request id (``events.membership_id``) while it is in the group
_APPEND = ("INSERT INTO events (play_id, seq, kind, payload, created_at, version, request_id, membership_id) "
           "SELECT id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE play_id = p.id), ?, ?, ?, "
           "version + 1, ?, (SELECT id FROM memberships WHERE id = ?) FROM plays p WHERE id = ?")


# --- plays ------------------------------------------------------------------------------------------

def check_players(db: Database, group_id: int, seats: Sequence[tuple[int, str]]) -> None:
    """NotFound unless every seat's (player id, colour) names a player of the group."""
    for player_id, _ in seats:
        if not db.execute("SELECT 1 FROM players WHERE id = ? AND group_id = ?",
                          [player_id, group_id]).fetchone():
            raise NotFound("player")


def insert_seats(db: Database, play_id: int, seats: Sequence[tuple[int, str]]) -> None:
    """The play's seats as (player id, colour) in turn order, inside a write transaction."""
    db.conn.executemany("INSERT INTO seats (play_id, seat, player_id, colour) VALUES (?, ?, ?, ?)",
                        [(play_id, seat, *player_and_colour) for seat, player_and_colour in enumerate(seats)])


def start_play(db: Database, group_id: int, game: str, seats: Sequence[tuple[int, str]],
               options: Mapping[str, Any] | None = None) -> int:
    """Start a play with ``seats`` as (player id, colour) in turn order; returns the play id."""
    with write_transaction(db):
        check_players(db, group_id, seats)
        play_id = db["plays"].insert({"group_id": group_id, "game": game, "started_at": now(),
                                      "options": json.dumps(dict(options or {}))}).last_pk
        insert_seats(db, play_id, seats)
    return play_id


def _play_of(row: tuple, seats: tuple[SeatRow, ...]) -> Play:
    play_id, group_id, game, options, status, started_at, ended_at, version = row
    return Play(play_id, group_id, game, json.loads(options), status, started_at, ended_at, version, seats)


def _plays(db: Database, rows: Sequence[tuple]) -> list[Play]:
    """The plays of these rows with their seats, read in one query."""
    seats = grouped(db.execute(
        "SELECT s.play_id, s.seat, s.player_id, p.name, s.colour FROM seats s JOIN players p ON p.id = "
        f"s.player_id WHERE s.play_id IN ({marks(rows)}) ORDER BY s.play_id, s.seat",
        [row[0] for row in rows]), SeatRow)
    return [_play_of(row, tuple(seats.get(row[0], ()))) for row in rows]


def get_play(db: Database, play_id: int) -> Play:
    """The play, unless it or its group is in the trash (then NotFound, as for a play that does not exist)."""
    row = db.execute(
        f"SELECT {_PLAY_COLUMNS} FROM plays WHERE id = ? AND deleted_at IS NULL AND EXISTS "
        "(SELECT 1 FROM groups g WHERE g.id = plays.group_id AND g.deleted_at IS NULL)", [play_id]).fetchone()
    return _plays(db, [found(row, "play")])[0]


def list_plays(db: Database, group_id: int, status: str, limit: int = 20) -> list[Play]:
    """Plays of a group with this status (outside the trash), most recent first."""
    return _plays(db, db.execute(f"SELECT {_PLAY_COLUMNS} FROM plays {_LATEST_ORDER}",
                                 [group_id, status, limit]).fetchall())


def group_plays(db: Database, group_id: int, active_limit: int = 20, finished_limit: int = 10,
                with_trash: bool = True) -> GroupPlays:
    """The group's active, latest finished and (``with_trash``) trashed plays, with results, in one query."""
    selects = [_LISTED, _LISTED, *([_TRASHED] if with_trash else [])]
    params = [group_id, "active", active_limit, group_id, "finished", finished_limit,
              *([group_id] if with_trash else [])]
    rows = db.execute(
        "SELECT listed.*, s.seat, s.player_id, pl.name, s.colour, r.total, r.rank, r.breakdown FROM ("
        + " UNION ALL ".join(f"SELECT * FROM ({select})" for select in selects) + ") AS listed "
        "LEFT JOIN seats s ON s.play_id = listed.id LEFT JOIN players pl ON pl.id = s.player_id "
        "LEFT JOIN results r ON r.play_id = s.play_id AND r.player_id = s.player_id ORDER BY "
        "COALESCE(listed.deleted_at, listed.ended_at, listed.started_at) DESC, listed.id DESC, s.seat",
        params).fetchall()
    width = len(_PLAY_COLUMNS.split(","))
    by_id: dict[int, tuple[tuple, str | None, list[SeatRow], list[ResultRow]]] = {}
    for row in rows:
        _play_row, _deleted_at, seats, results = by_id.setdefault(row[0], (row[:width], row[width], [], []))
        seat, player_id, name, colour, total, rank, breakdown = row[width + 1:]
        if seat is None:
            continue  # a play without seats
        seats.append(SeatRow(seat, player_id, name, colour))
        if rank is not None:
            results.append(ResultRow(player_id, name, seat, total, rank, json.loads(breakdown)))
    plays = [(_play_of(play, tuple(seats)), deleted_at, results)
             for play, deleted_at, seats, results in by_id.values()]
    return GroupPlays(
        active=[play for play, deleted_at, _ in plays if not deleted_at and play.status == "active"],
        recent=[FinishedPlay(play, tuple(sorted(results, key=lambda r: (r.rank, r.seat))))
                for play, deleted_at, results in plays if not deleted_at and play.status == "finished"],
        trashed=[TrashedPlay(play, deleted_at) for play, deleted_at, _ in plays if deleted_at])


def recent_finished(db: Database, group_id: int, limit: int = 10) -> list[FinishedPlay]:
    """The group's most recently finished plays with their results."""
    return group_plays(db, group_id, 0, limit, with_trash=False).recent


def delete_play(db: Database, play_id: int) -> None:
    """Delete a play for good, with its events and results."""
    execute_write(db, "DELETE FROM plays WHERE id = ?", [play_id])


def trash_play(db: Database, play_id: int, at: str) -> None:
    """Move a play to its group's trash: it leaves every page, the history, statistics and exports."""
    # naming ended_at lets the ratings' trigger note that they must be computed again from this play
    execute_write(db, "UPDATE plays SET deleted_at = ?, ended_at = ended_at WHERE id = ? "
                  "AND deleted_at IS NULL", [at, play_id])


def restore_trashed_play(db: Database, group_id: int, play_id: int) -> None:
    """Take the group's play out of the trash; NotFound (nothing written) if the trash has no such play."""
    with write_transaction(db):
        if not db.execute("UPDATE plays SET deleted_at = NULL, ended_at = ended_at WHERE id = ? AND "
                          "group_id = ? AND deleted_at IS NOT NULL", [play_id, group_id]).rowcount:
            raise NotFound("play")


# --- the event log -----------------------------------------------------------------------------------

def _event(row: tuple) -> Event:
    seq, kind, payload, created_at, version, membership_id = row
    return Event(seq, kind, json.loads(payload), created_at, version, membership_id)


def list_events(db: Database, play_id: int, after_seq: int = 0) -> list[Event]:
    """The play's events after ``after_seq``, in order."""
    return [_event(row) for row in db.execute(
        f"SELECT {_EVENT_COLUMNS} FROM events WHERE play_id = ? AND seq > ? ORDER BY seq",
        [play_id, after_seq])]


def newest_events(db: Database, play_id: int, count: int, before_seq: int | None = None) -> list[Event]:
    """The play's newest ``count`` events (of those before event ``before_seq``, if given), in order."""
    rows = db.execute(f"SELECT {_EVENT_COLUMNS} FROM events WHERE play_id = ? AND seq < ? ORDER BY seq DESC "
                      "LIMIT ?", [play_id, 2**63 - 1 if before_seq is None else before_seq, count]).fetchall()
    return [_event(row) for row in reversed(rows)]


def _current_version(db: Database, play_id: int, expected: int | None = None) -> tuple[int, str]:
    """The play's version (each change to its log grows it) and status; StaleVersion if not ``expected``."""
    row = db.execute("SELECT version, status FROM plays WHERE id = ?", [play_id]).fetchone()
    version, status = found(row, "play")
    check_version(version, expected)
    return version, status


def check_version(version: int, expected: int | None) -> None:
    if expected is not None and expected != version:
        raise StaleVersion("Another phone changed this play since you opened it. Here is the current state: "
                           "check it and try again.")


def play_version(db: Database, play_id: int) -> int:
    return _current_version(db, play_id)[0]


def check_play_version(db: Database, play_id: int, expected: int) -> None:
    """Refuse (StaleVersion) a change drawn from a version of the play that another phone changed since."""
    _current_version(db, play_id, expected)


class EventLog(UserList[Event]):
    """A play's event log as of ``version``, read when first used (a check may need only the version)."""

    def __init__(self, db: Database, play_id: int, version: int) -> None:
        self.db, self.play_id, self.version = db, play_id, version

    @cached_property
    def data(self) -> list[Event]:  # type: ignore[override]
        return list_events(self.db, self.play_id)


def _insert_event(db: Database, play_id: int, kind: str, payload: Mapping[str, Any],
                  stamp: str | None = None) -> None:
    """Append an event to the play's log inside a write (whose transaction notes the request id)."""
    request = expected_request(db)
    db.execute(_APPEND, [kind, json.dumps(dict(payload)), stamp or now(), None,
                         request and request.membership_id, play_id])


def append_to_active_play(db: Database, play_id: int, kind: str, payload: Mapping[str, Any]) -> int | None:
    """Append an event to the play if it is going on, in one statement that also notes the request id
    expected: the event's row id, or None; ``RepeatedRequest`` if the phone sent the request id before."""
    request = expected_request(db)
    try:
        appended = write_one_statement(
            db, f"{_APPEND} AND status = 'active' AND deleted_at IS NULL "
            "AND (SELECT deleted_at FROM groups WHERE id = p.group_id) IS NULL",
            [kind, json.dumps(dict(payload)), now(), request and request.value,
             request and request.membership_id, play_id])
    except sqlite3.IntegrityError:
        repeated = request and seen_request(db, request)
        if not repeated:
            raise
        raise repeated from None  # the request id was noted before: this event is in already
    if appended.rowcount != 1:
        return None
    if request is not None:
        request_noted(db, request)
    return appended.lastrowid


def append_event(db: Database, play_id: int, kind: str, payload: Mapping[str, Any],
                 check: Callable[[EventLog], None] | None = None, expected_version: int | None = None) -> int:
    """Append an event to an active play; returns the play's new version. ``check`` sees the log under
    the write lock (two phones entering at once cannot both pass a stale check) and may refuse."""
    if check is None and expected_version is None:
        rowid = append_to_active_play(db, play_id, kind, payload)
        if rowid is not None:  # its version is read after the write: the lock is held no longer
            return db.execute("SELECT version FROM events WHERE rowid = ?", [rowid]).fetchone()[0]
        # not stored: the play is finished or gone, and the checks below say which
    with write_transaction(db):
        version, status = _current_version(db, play_id, expected_version)
        if status != "active":
            raise StoreError("This play is finished. Undo the final tally to change it.")
        if check is not None:
            check(EventLog(db, play_id, version))
        _insert_event(db, play_id, kind, payload)
        return version + 1


def undo_last_event(db: Database, play_id: int, expected_version: int | None = None) -> Event | None:
    """Remove the play's last event and return it (None if there was none). Undoing the final tally
    reopens the play and drops its results; undoing a correction puts back the results it replaced."""
    with write_transaction(db):
        version, _ = _current_version(db, play_id, expected_version)
        event = next(iter(newest_events(db, play_id, 1)), None)
        if event is None:
            return None
        db.execute("DELETE FROM events WHERE play_id = ? AND seq = ?", [play_id, event.seq])
        if event.kind == FINAL_EVENT:
            db.execute("DELETE FROM results WHERE play_id = ?", [play_id])
            # the tally and the end time are kept: finishing again starts from them
            db.execute("UPDATE plays SET status = 'active', first_ended_at = COALESCE(first_ended_at, "
                       "ended_at), ended_at = NULL, reopened_tally = ?, reopened_at_version = ? WHERE id = ?",
                       [json.dumps(dict(event.payload)), version + 1, play_id])
        elif event.kind == CORRECTION_EVENT:
            _restore_results(db, play_id, event.payload.get("previous"))
        db.execute("UPDATE plays SET version = version + 1 WHERE id = ?", [play_id])
        return event


# --- results -----------------------------------------------------------------------------------------

def _seat_players(db: Database, play_id: int) -> dict[int, int]:
    return dict(db.execute("SELECT seat, player_id FROM seats WHERE play_id = ?", [play_id]).fetchall())


def write_results(db: Database, play_id: int, seat_players: Mapping[int, int] | Sequence[int],
                  results: Sequence[ResultInput]) -> None:
    """Replace the play's results, inside a write transaction; ``seat_players``: seat → player id."""
    db.execute("DELETE FROM results WHERE play_id = ?", [play_id])
    db.conn.executemany(
        "INSERT INTO results (play_id, player_id, total, rank, breakdown) VALUES (?, ?, ?, ?, ?)",
        [(play_id, seat_players[r.seat], r.total, r.rank, json.dumps(dict(r.breakdown))) for r in results])


def finish_play(db: Database, play_id: int, payload: Mapping[str, Any], results: Sequence[ResultInput],
                expected_version: int | None = None,
                options_at_end: Callable[[Mapping[str, Any], datetime], Mapping[str, Any]] | None = None,
                ) -> None:
    """Record the final tally as the play's last event, store the results and close the play (its options
    becoming ``options_at_end(options, the end)``)."""
    with write_transaction(db):
        if _current_version(db, play_id, expected_version)[1] != "active":
            raise StoreError("This play is already finished.")
        stamp = now()
        # a play finished again after being reopened keeps the date it was first finished on
        first, options = db.execute("SELECT first_ended_at, options FROM plays WHERE id = ?",
                                    [play_id]).fetchone()
        if options_at_end is not None:
            options = json.dumps(dict(options_at_end(json.loads(options), datetime.fromisoformat(stamp))))
        _insert_event(db, play_id, FINAL_EVENT, payload, stamp)
        write_results(db, play_id, _seat_players(db, play_id), results)
        db.execute("UPDATE plays SET status = 'finished', ended_at = ?, options = ?, reopened_tally = NULL, "
                   "reopened_at_version = NULL WHERE id = ?", [first or stamp, options, play_id])


def reopened_tally(db: Database, play_id: int) -> ReopenedTally | None:
    """The tally the play's undone final event held, if it was reopened and not finished since."""
    row = db.execute("SELECT reopened_tally, version, reopened_at_version FROM plays WHERE id = ? "
                     "AND status = 'active' AND reopened_tally IS NOT NULL", [play_id]).fetchone()
    if row is None:
        return None
    tally, version, reopened_at = row
    kinds = [kind for (kind,) in db.execute("SELECT kind FROM events WHERE play_id = ? AND version > ?",
                                            [play_id, reopened_at])]
    # each entry and each undo grows the version by one; the changes only the page shows move
    # reopened_at_version along while nothing else came since (m023)
    undone = reopened_at is None or version - reopened_at > len(kinds)
    return ReopenedTally(json.loads(tally), version != reopened_at, frozenset(kinds), undone)


def play_results(db: Database, play_id: int) -> tuple[ResultRow, ...]:
    """The final scores of a finished play, by rank then seat."""
    rows = db.execute("SELECT r.player_id, p.name, s.seat, r.total, r.rank, r.breakdown FROM results r "
                      "JOIN players p ON p.id = r.player_id JOIN seats s ON s.play_id = r.play_id "
                      "AND s.player_id = r.player_id WHERE r.play_id = ? ORDER BY r.rank, s.seat",
                      [play_id]).fetchall()
    return tuple(ResultRow(*row[:5], json.loads(row[5])) for row in rows)


def _is_points(value: object) -> bool:
    return type(value) is int and -(10 ** 6) <= value <= 10 ** 6


def _stored_results(entries: object, seat_players: Mapping[int, int]) -> list[ResultInput] | None:
    """The results kept in a correction event, or None if they do not fit the play's seats."""
    if not isinstance(entries, list) or len(entries) != len(seat_players):
        return None
    results = []
    for entry in entries:
        if not isinstance(entry, dict):
            return None
        seat, total, rank, breakdown = (entry.get(key) for key in ("seat", "total", "rank", "breakdown"))
        # rank 2 of one seat: a cooperative game lost by a single player
        if (type(seat) is not int or seat not in seat_players or not _is_points(total)
                or type(rank) is not int or not 1 <= rank <= max(len(seat_players), 2)
                or not isinstance(breakdown, dict)
                or not all(isinstance(k, str) and _is_points(v) for k, v in breakdown.items())):
            return None
        results.append(ResultInput(seat, total, rank, breakdown))
    return results if len({r.seat for r in results}) == len(results) else None


def _restore_results(db: Database, play_id: int, previous: object) -> None:
    seat_players = _seat_players(db, play_id)
    results = _stored_results(previous, seat_players)
    if results is None:
        raise StoreError("This correction does not say which scores it replaced, so it cannot be undone. "
                         "Correct the scores again instead.")
    write_results(db, play_id, seat_players, results)


def correct_results(db: Database, play_id: int, results: Sequence[ResultInput],
                    expected_version: int | None = None) -> int:
    """Replace a finished play's results with a corrected tally (a correction event); its new version."""
    with write_transaction(db):
        version, status = _current_version(db, play_id, expected_version)
        if status != "finished":
            raise StoreError("Only a finished play can be corrected; finish this one with the final tally.")
        seat_players = _seat_players(db, play_id)
        by_seat = sorted(results, key=lambda r: r.seat)
        if [r.seat for r in by_seat] != sorted(seat_players):
            raise StoreError("A correction needs the scores of every player at the table.")
        previous = sorted(play_results(db, play_id), key=lambda r: r.seat)
        payload = {"breakdowns": [dict(r.breakdown) for r in by_seat], "totals": [r.total for r in by_seat],
                   "ranks": [r.rank for r in by_seat],
                   "previous": [{"seat": r.seat, "total": r.total, "rank": r.rank, "breakdown": r.breakdown}
                                for r in previous]}
        _insert_event(db, play_id, CORRECTION_EVENT, payload)
        write_results(db, play_id, seat_players, by_seat)
        return version + 1


def final_payload(db: Database, play_id: int) -> Mapping[str, Any] | None:
    """The payload of the play's final event (the tally the results came from), if it has one."""
    row = db.execute("SELECT payload FROM events WHERE play_id = ? AND kind = ? ORDER BY seq DESC LIMIT 1",
                     [play_id, FINAL_EVENT]).fetchone()
    return json.loads(row[0]) if row else None


def play_counted(db: Database, play_id: int) -> bool:
    """Whether the play counts in the group's statistics."""
    return bool(found(db.execute("SELECT counted FROM plays WHERE id = ?", [play_id]).fetchone(), "play")[0])


def set_play_counted(db: Database, play_id: int, counted: bool) -> None:
    """Count a finished play in the statistics, or leave it out (a teaching game, a test run)."""
    with write_transaction(db):
        if _current_version(db, play_id)[1] != "finished":
            raise StoreError("Only a finished play can be left out of the statistics.")
        db.execute("UPDATE plays SET counted = ? WHERE id = ?", [counted, play_id])


# --- options at the table, and plays logged afterwards -----------------------------------------------

# The play's note and variant carry a revision of their own in its options: the play's version moves
# with every entry, and a note typed while the others score must not be refused for that.
NOTE_REVISION = "note_revision"


def change_play_options(db: Database, play_id: int, change: Callable[[Mapping[str, Any]], Mapping[str, Any]],
                        *, while_active: bool = False) -> int:
    """Replace the play's options with ``change(options)``, which sees them under the write lock (two
    phones tapping the timer at once see each other's tap) and may refuse; returns the new version.
    ``while_active``: refused (stale) once the play is finished, as a phone's page may show it going on."""
    with write_transaction(db):
        options, version, status = found(db.execute("SELECT options, version, status FROM plays WHERE id = ?",
                                                    [play_id]).fetchone(), "play")
        if while_active and status != "active":
            raise StaleVersion("This play is finished. Undo the final tally to change it.")
        options = dict(change(json.loads(options)))
        # a reopened play's kept tally still fits its log: the options are not part of it
        db.execute("UPDATE plays SET options = ?, version = version + 1, reopened_at_version = CASE "
                   "WHEN reopened_at_version = version THEN version + 1 ELSE reopened_at_version END "
                   "WHERE id = ?", [json.dumps(options), play_id])
        return version + 1


def note_revision(options: Mapping[str, Any]) -> int:
    """How often the play's note and variant were saved (0 for a play whose note was never saved)."""
    revision = options.get(NOTE_REVISION, 0)
    return revision if type(revision) is int and revision >= 0 else 0


def save_play_note(db: Database, play_id: int, fields: Mapping[str, str], expected_revision: int) -> int:
    """Store the play's note and variant (``fields``) as typed on a page showing ``expected_revision``
    (StaleVersion if another phone saved the note since); returns the new revision."""
    def change(options: Mapping[str, Any]) -> dict[str, Any]:
        revision = note_revision(options)
        check_version(revision, expected_revision)
        return {**options, **fields, NOTE_REVISION: revision + 1}

    change_play_options(db, play_id, change)
    return expected_revision + 1


def log_past_play(db: Database, group_id: int, game: str, seats: Sequence[tuple[int, str]],
                  options: Mapping[str, Any], payload: Mapping[str, Any], results: Sequence[ResultInput],
                  started_at: str, ended_at: str, check: Callable[[Database], None] | None = None) -> int:
    """Keep an earlier play, finished, in one transaction; its id. ``check`` runs first, under the lock."""
    with write_transaction(db):
        if check is not None:
            check(db)
        check_players(db, group_id, seats)
        return insert_finished_play(db, group_id, game, seats, options, payload, results, started_at,
                                    ended_at)


def insert_finished_play(db: Database, group_id: int, game: str, seats: Sequence[tuple[int, str]],
                         options: Mapping[str, Any], payload: Mapping[str, Any],
                         results: Sequence[ResultInput], started_at: str, ended_at: str,
                         counted: bool = True) -> int:
    """Insert a finished play with its final tally and results; call it inside a write transaction."""
    play_id = db["plays"].insert({"group_id": group_id, "game": game, "options": json.dumps(dict(options)),
                                  "counted": int(counted), "started_at": started_at,
                                  "first_ended_at": ended_at}).last_pk
    insert_seats(db, play_id, seats)
    db.execute("INSERT INTO events (play_id, seq, kind, payload, created_at) VALUES (?, 1, ?, ?, ?)",
               [play_id, FINAL_EVENT, json.dumps(dict(payload)), ended_at])
    # finished before the results go in: their triggers copy the play's end into the statistics
    db.execute("UPDATE plays SET status = 'finished', ended_at = ?, version = 1 WHERE id = ?",
               [ended_at, play_id])
    write_results(db, play_id, [player_id for player_id, _ in seats], results)
    return play_id
