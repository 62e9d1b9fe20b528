"""Backups up to the size the import page states, with CSRF on as in production."""

from __future__ import annotations

import dataclasses
import io
import re

import pytest

from companion import store
from companion.exchange import backup
from companion.forms import COLOURS
from companion.games import GAMES
from companion.store import ArchivedEvent, ArchivedPlay, ArchivedPlayer, ArchivedResult, ArchivedSeat
from tests.conftest import make_app

NAMES = ("Anna", "Ben", "Cara", "Dmitri")


def large_archive(plays: int) -> store.GroupArchive:
    """A group with ``plays`` finished Great Western Trail plays closed with the totals."""
    players = tuple(ArchivedPlayer(name, colour, "2024-01-01T18:00:00+00:00", uid=f"{n:032x}")
                    for n, (name, colour) in enumerate(zip(NAMES, ("red", "blue", "green", "yellow"),
                                                           strict=True)))
    archived = []
    for n in range(plays):
        seated = [n % 4, (n + 1) % 4, (n + 2) % 4]
        totals = [40 + n % 23, 55 + n % 17, 47 + n % 31]
        ranks = [1 + sum(other > total for other in totals) for total in totals]
        day = f"2024-{1 + n % 12:02d}-{1 + n % 28:02d}"
        archived.append(ArchivedPlay(
            game="great-western-trail", options={"edition": 1 + n % 2}, status="finished",
            counted=n % 10 != 0, started_at=f"{day}T19:00:00+00:00",
            ended_at=f"{day}T21:{n % 60:02d}:00+00:00", version=1,
            seats=tuple(ArchivedSeat(p, players[p].colour) for p in seated),
            events=(ArchivedEvent(1, "final", {"totals": totals}, f"{day}T21:{n % 60:02d}:00+00:00"),),
            results=tuple(ArchivedResult(p, total, rank, {"total": total})
                          for p, total, rank in zip(seated, totals, ranks, strict=True)),
            uid=f"{10_000 + n:032x}",
        ))
    return store.GroupArchive("Club night", players, tuple(archived))


def csrf_token(client) -> str:
    page = client.get("/groups/import")
    return re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page.text).group(1)


def import_through_the_page(client, data: bytes):
    return client.post("/groups/import", data={"csrf_token": csrf_token(client),
                                               "backup": (io.BytesIO(data), "backup.json")},
                       content_type="multipart/form-data")


def imported_group_id(answer) -> int:
    assert answer.status_code == 302, answer.text
    return int(re.search(r"/groups/(\d+)", answer.location).group(1))


def test_a_1500_play_backup_goes_round_through_the_import_page(tmp_path):
    app = make_app(tmp_path, WTF_CSRF_ENABLED=True)
    db = store.connect(app.config["DATABASE"])
    client = app.test_client()
    archive = large_archive(1500)
    first = imported_group_id(import_through_the_page(
        client, backup.backup_json(archive, "2024-12-31T12:00:00+00:00").encode()))
    assert store.dump_group(db, first) == archive

    data = client.get(f"/groups/{first}/export/backup.json").data
    assert len(data) > 3 * app.config["MAX_CONTENT_LENGTH"]  # far beyond any other request
    second = imported_group_id(import_through_the_page(client, data))

    assert second != first and store.dump_group(db, second) == archive
    assert client.get(f"/groups/{second}/statistics").status_code == 200
    assert client.get(f"/groups/{second}/history").status_code == 200


def test_a_backup_over_the_stated_limit_is_refused_with_413_and_stores_nothing(tmp_path):
    app = make_app(tmp_path, WTF_CSRF_ENABLED=True, BACKUP_MAX_BYTES=600 * 1024)
    db = store.connect(app.config["DATABASE"])
    client = app.test_client()
    too_big = b'{"format": "' + b"x" * app.config["BACKUP_MAX_BYTES"] + b'"}'
    answer = import_through_the_page(client, too_big)
    assert answer.status_code == 413 and "more data than the companion accepts" in answer.text
    assert db.execute("SELECT COUNT(*) FROM groups").fetchone()[0] == 0


def test_other_forms_keep_the_site_wide_limit(tmp_path):
    app = make_app(tmp_path, WTF_CSRF_ENABLED=True)
    client = app.test_client()
    too_long = "x" * app.config["MAX_CONTENT_LENGTH"]
    answer = client.post("/groups", data={"csrf_token": csrf_token(client), "name": too_long})
    assert answer.status_code == 413


def test_the_import_page_states_the_limit_in_megabytes(tmp_path):
    app = make_app(tmp_path, BACKUP_MAX_BYTES=32 * 1024 * 1024)
    assert "at most 32 MB" in app.test_client().get("/groups/import").text


def test_a_backup_file_is_read_from_its_stream_even_with_a_byte_order_mark():
    archive = large_archive(3)
    text = backup.backup_json(archive, "2024-12-31T12:00:00+00:00").encode()
    assert backup.parse_backup(io.BytesIO(b"\xef\xbb\xbf" + text), GAMES, COLOURS) == archive


def test_times_an_earlier_import_kept_without_offset_are_put_in_utc(tmp_path):
    """Before the import checked times, a backup could bring stamps without a UTC offset (which broke the
    statistics page at 25 plays of a game) or with another offset; the migration puts them in UTC."""
    path = tmp_path / "old.sqlite3"
    connection = store.connect(path)
    connection.execute("CREATE TABLE migrations (number INTEGER PRIMARY KEY, name TEXT, applied_at TEXT)")
    earlier = [m.__name__ for m in store.MIGRATIONS].index("m009_times_in_utc")
    with store.write_transaction(connection):
        for number, migration in enumerate(store.MIGRATIONS[:earlier], start=1):
            migration(connection)
            connection.execute("INSERT INTO migrations VALUES (?, ?, '2024-01-01')",
                               [number, migration.__name__])
    archive = large_archive(30)
    # a third of the plays without offsets, a third in summer time, a third as the companion writes them
    mixed = [dataclasses.replace(play, started_at=play.started_at[:19],
                                 ended_at=play.ended_at[:19].replace("T21:", "T23:") + "+02:00",
                                 events=tuple(dataclasses.replace(e, created_at=e.created_at[:19])
                                              for e in play.events))
             if n % 3 == 0 else
             dataclasses.replace(play, ended_at=play.ended_at[:19] + "Z") if n % 3 == 1 else play
             for n, play in enumerate(archive.plays)]
    group = store.restore_group(connection, dataclasses.replace(archive, plays=tuple(mixed)))

    assert store.migrate(connection) == list(range(earlier + 1, len(store.MIGRATIONS) + 1))

    migrated = store.dump_group(connection, group.id)
    assert migrated.plays == archive.plays  # 23:mm+02:00 is 21:mm UTC
    left = connection.execute("SELECT COUNT(*) FROM results WHERE ended_at NOT LIKE '%+00:00'").fetchone()[0]
    assert left == 0
    stats = store.statistics(connection, group.id, "great-western-trail")
    assert sum(p.plays for p in stats.players) == sum(len(p.seats) for p in archive.plays if p.counted)


def test_a_large_import_writes_in_short_steps_and_a_failed_one_leaves_nothing(app, db, monkeypatch):
    """Other groups' writers get the lock between steps; the group shows only once complete."""
    from companion.store import archive as archive_module

    monkeypatch.setattr(store.transactions, "STEP_SECONDS", 0)  # a play per step
    other = db.execute("SELECT COUNT(*) FROM groups").fetchone()[0]
    written = archive_module._restore_play
    steps: list[tuple[int, int]] = []

    def watched(db_, group_id, play, player_ids, renames):
        # seen from outside the import: committed steps exist, but the group is in the trash
        steps.append(db.execute("SELECT COUNT(*) FROM groups WHERE deleted_at IS NULL").fetchone()[0])
        if len(steps) == 30:
            raise RuntimeError("the import was cut off")
        written(db_, group_id, play, player_ids, renames)

    monkeypatch.setattr(archive_module, "_restore_play", watched)
    with pytest.raises(RuntimeError):
        store.restore_group(db, large_archive(40))
    assert set(steps) == {other}
    assert db.execute("SELECT COUNT(*) FROM groups").fetchone()[0] == other
    assert db.execute("SELECT COUNT(*) FROM plays").fetchone()[0] == 0

    monkeypatch.setattr(archive_module, "_restore_play", written)
    archive = large_archive(40)
    group = store.restore_group(db, archive)
    assert store.dump_group(db, group.id) == archive
    assert db.execute("SELECT deleted_at FROM groups WHERE id = ?", [group.id]).fetchone()[0] is None
