"""Writers of the database: many at once all get stored, in order, and a failed one lets go.

Each writer alternates the two ways an entry is stored: in one statement (``write_one_statement``),
and in a transaction that takes the write lock at once (an entry checked against the table). Both
wait for the lock in SQLite's busy handler; the write-ahead log stays short.
"""

from __future__ import annotations

import multiprocessing
import sqlite3
import threading
from pathlib import Path

import pytest
from sqlite_utils import Database

from companion import store
from companion.games.common import Seat
from companion.games.table import ADJUST
from tests.test_concurrency import game_without_options

WAIT_SECONDS = 600  # a bound that keeps a stuck test from hanging, never an expectation
THREADS = 4
ENTRIES_PER_WRITER = 15


@pytest.fixture
def database(tmp_path: Path) -> tuple[Path, int]:
    """A database with a group of two players and an active play; its path and the play's id."""
    path = tmp_path / "companion.sqlite3"
    db = store.connect(path)
    store.migrate(db)
    group = store.create_group(db, "Busy table")
    seats = (Seat("Anna", "red"), Seat("Ben", "blue"))
    players = [store.add_player(db, group.id, seat.name, seat.colour) for seat in seats]
    play_id = store.start_play(db, group.id, game_without_options(seats),
                               [(player, seat.colour) for player, seat in zip(players, seats, strict=True)])
    db.close()
    return path, play_id


def nothing_to_check(_log: store.EventLog) -> None:
    """A check that accepts every entry: the entry is written in a transaction."""


def write_entries(path: Path, play_id: int, writer: str, start: threading.Barrier | None = None) -> None:
    """One phone's entries on the writer's own connection: one statement, a transaction, and so on."""
    db = store.connect(path)
    try:
        if start is not None:
            start.wait(WAIT_SECONDS)
        for number in range(ENTRIES_PER_WRITER):
            store.append_event(db, play_id, ADJUST, {"seat": 0, "points": 1, "note": f"{writer} {number}"},
                               check=nothing_to_check if number % 2 else None)
    finally:
        db.close()


def threads_writing(path: Path, play_id: int, prefix: str, start: threading.Barrier | None = None) -> None:
    start = start or threading.Barrier(THREADS)
    threads = [threading.Thread(target=write_entries, args=(path, play_id, f"{prefix}{n}", start))
               for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT_SECONDS)


def stored_notes(path: Path, play_id: int) -> list[str]:
    db = store.connect(path)
    try:
        events = store.list_events(db, play_id)
        assert [event.seq for event in events] == list(range(1, len(events) + 1))  # no gaps, no repeats
        # each event brought the play a version of its own, and the play is at the last one
        assert [event.version for event in events] == list(range(1, len(events) + 1))
        assert store.get_play(db, play_id).version == len(events)
        return [event.payload["note"] for event in events]
    finally:
        db.close()


def assert_every_writer_stored_in_order(notes: list[str], writers: list[str]) -> None:
    for writer in writers:
        assert [note for note in notes if note.split()[0] == writer] == [
            f"{writer} {number}" for number in range(ENTRIES_PER_WRITER)]
    assert len(notes) == len(writers) * ENTRIES_PER_WRITER


def test_threads_writing_at_once_are_all_stored_in_the_order_each_wrote(database):
    path, play_id = database
    threads_writing(path, play_id, "thread")
    notes = stored_notes(path, play_id)
    assert_every_writer_stored_in_order(notes, [f"thread{n}" for n in range(THREADS)])


def test_processes_writing_at_once_are_all_stored_in_the_order_each_wrote(database):
    path, play_id = database
    context = multiprocessing.get_context("fork")  # like the server's workers
    start = context.Barrier(2 * THREADS)
    workers = [context.Process(target=threads_writing, args=(path, play_id, f"p{n}-", start))
               for n in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(WAIT_SECONDS)
        assert worker.exitcode == 0
    notes = stored_notes(path, play_id)
    assert_every_writer_stored_in_order(notes, [f"p{p}-{n}" for p in range(2) for n in range(THREADS)])


def test_a_write_that_fails_lets_the_next_writer_in(database):
    path, play_id = database
    db = store.connect(path)
    with pytest.raises(ValueError), store.write_transaction(db):
        db.execute("UPDATE plays SET version = version + 100 WHERE id = ?", [play_id])
        raise ValueError("a check refused the write")
    other = threading.Thread(target=write_entries, args=(path, play_id, "after"))
    other.start()
    other.join(WAIT_SECONDS)
    assert not other.is_alive()
    assert stored_notes(path, play_id) == [f"after {number}" for number in range(ENTRIES_PER_WRITER)]
    assert store.get_play(db, play_id).version == ENTRIES_PER_WRITER  # nothing of the failed write
    db.close()


def test_an_entry_that_finds_the_write_lock_taken_is_stored_once_it_is_free(database):
    path, play_id = database
    other_program = sqlite3.connect(path, isolation_level=None)  # a command run by hand, say
    other_program.execute("BEGIN IMMEDIATE")
    writer = threading.Thread(target=write_entries, args=(path, play_id, "waiting"))
    writer.start()
    assert stored_notes(path, play_id) == []  # nothing gets in while the lock is taken
    other_program.execute("COMMIT")
    writer.join(WAIT_SECONDS)
    assert stored_notes(path, play_id) == [f"waiting {number}" for number in range(ENTRIES_PER_WRITER)]
    other_program.close()


def test_an_entry_gives_up_after_the_busy_timeout_and_stores_nothing(database, monkeypatch):
    path, play_id = database
    other_program = sqlite3.connect(path, isolation_level=None)
    other_program.execute("BEGIN IMMEDIATE")
    monkeypatch.setattr(store.connection, "BUSY_TIMEOUT_SECONDS", 0)
    db = store.connect(path)
    for check in (None, nothing_to_check):  # in one statement, and in a transaction
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            store.append_event(db, play_id, ADJUST, {"seat": 0, "points": 1, "note": ""}, check=check)
    other_program.execute("ROLLBACK")
    assert stored_notes(path, play_id) == []
    db.close()
    other_program.close()


def test_the_log_is_copied_into_the_database_file_after_the_writes_not_during_them(database, monkeypatch):
    path, _play_id = database
    monkeypatch.setattr(store.transactions, "CHECKPOINT_EVERY", 3)
    db = store.connect(path)
    db.execute("CREATE TABLE notes (text TEXT)")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the database file now holds everything

    def write_until_copied() -> int:
        """Write notes until the database file grows; how many writes that took."""
        size = path.stat().st_size
        for writes in range(1, 10):
            with store.write_transaction(db):
                db.execute("INSERT INTO notes VALUES (?)", ["x" * 20_000])
            if path.stat().st_size > size:
                return writes
        return 0

    assert 1 <= write_until_copied() <= 3  # the count began with the writes before this test's
    assert write_until_copied() == 3
    assert write_until_copied() == 3
    db.close()


@pytest.mark.parametrize(("replicated", "copied"), [(False, True), (True, False)])
def test_a_replicated_database_leaves_its_log_to_litestream(database, monkeypatch, replicated, copied):
    """With a replica, Litestream copies the log and checkpoints it; the site's own copy would race it."""
    path, _play_id = database
    monkeypatch.setattr(store.transactions, "CHECKPOINT_EVERY", 1)
    db = store.ThreadConnections(str(path), replicated=replicated).get()
    db.execute("CREATE TABLE notes (text TEXT)")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the database file now holds everything
    size = path.stat().st_size
    for _ in range(3):
        with store.write_transaction(db):
            db.execute("INSERT INTO notes VALUES (?)", ["x" * 20_000])
    assert (path.stat().st_size > size) is copied
    db.close()


@pytest.fixture
def short_log(monkeypatch) -> None:
    """A log looked at every 10 commits and started afresh past 20 pages, so that a test fills it soon."""
    monkeypatch.setattr(store.transactions, "CHECKPOINT_EVERY", 10)
    monkeypatch.setattr(store.transactions, "LOG_RESTART_PAGES", 20)


@pytest.mark.usefixtures("short_log")
def test_the_write_ahead_log_is_started_afresh_under_readers_that_never_stop(database, monkeypatch):
    """A phone reads the play between every two entries, so some reader is always in the log: a
    checkpoint that waits for no one never lets the log start afresh, and it would grow without end."""
    path, play_id = database
    db = store.connect(path)
    reader = sqlite3.connect(path, isolation_level=None)

    def read_again() -> None:
        if reader.in_transaction:
            reader.execute("COMMIT")
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM events").fetchone()

    restart_log = store.transactions.restart_log

    def restart_log_once_the_reader_is_done(db: Database) -> None:
        if reader.in_transaction:
            reader.execute("COMMIT")  # the reading phone's request ends while the restart waits
        restart_log(db)

    monkeypatch.setattr(store.transactions, "restart_log", restart_log_once_the_reader_is_done)
    for number in range(200):
        read_again()
        store.append_event(db, play_id, ADJUST, {"seat": 0, "points": 1, "note": str(number)})
    if reader.in_transaction:
        reader.execute("COMMIT")
    pages_in_log = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1]
    # 200 entries write some 600 pages; a log started afresh holds those since it last was
    assert 0 < pages_in_log <= 20 + 10 * 4
    assert len(store.list_events(db, play_id)) == 200
    reader.close()
    db.close()


def test_entries_during_a_long_read_are_stored_and_the_log_starts_afresh_after_it(database, short_log):
    path, play_id = database
    db = store.connect(path)
    backup = sqlite3.connect(path, isolation_level=None)  # a backup reading all the while
    backup.execute("BEGIN")
    backup.execute("SELECT count(*) FROM events").fetchone()
    for number in range(60):
        store.append_event(db, play_id, ADJUST, {"seat": 0, "points": 1, "note": str(number)})
    assert len(store.list_events(db, play_id)) == 60
    assert db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1] > 60  # not started afresh
    backup.execute("COMMIT")
    for number in range(11):  # up to the next checkpoint, and a writer after it starts the log afresh
        store.append_event(db, play_id, ADJUST, {"seat": 0, "points": 1, "note": str(number)})
    assert db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1] <= 10 * 4  # the writes since
    backup.close()
    db.close()


def test_a_long_read_of_a_snapshot_leaves_the_log_free_to_start_afresh(database, short_log):
    """A backup reads a copy of the database, so the entries meanwhile do not keep the log growing."""
    path, play_id = database
    db = store.connect(path)
    for number in range(5):
        store.append_event(db, play_id, ADJUST, {"seat": 0, "points": 1, "note": str(number)})
    with store.snapshot(db) as copy:
        copy.execute("BEGIN")  # the backup's read, all the while
        assert copy.execute("SELECT count(*) FROM events").fetchone()[0] == 5
        for number in range(60):
            store.append_event(db, play_id, ADJUST, {"seat": 0, "points": 1, "note": str(number)})
        assert db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1] <= 10 * 4  # started afresh
        assert copy.execute("SELECT count(*) FROM events").fetchone()[0] == 5  # the copy as it was
        copy.execute("COMMIT")
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            copy.execute("DELETE FROM events")
    assert len(store.list_events(db, play_id)) == 65
    assert [p.name for p in path.parent.iterdir() if p.name.startswith(".snapshot-")] == []  # removed
    db.close()
