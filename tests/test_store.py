"""The storage functions, without Flask."""

from __future__ import annotations

import re

import pytest

from companion import store
from companion.games.common import FINAL_EVENT, RulesError


@pytest.fixture
def db(tmp_path):
    connection = store.connect(tmp_path / "store.sqlite3")
    store.migrate(connection)
    yield connection
    connection.close()


@pytest.fixture
def play(db):
    group = store.create_group(db, "Club")
    anna = store.add_player(db, group.id, "Anna", "red")
    ben = store.add_player(db, group.id, "Ben", "blue")
    return store.get_play(db, store.start_play(db, group.id, "gold-west", [(anna, "red"), (ben, "blue")]))


def test_migrations_run_once(db):
    assert store.migrate(db) == []
    assert store.schema_version(db) == len(store.MIGRATIONS)


def test_connection_settings(db):
    assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert db.execute("PRAGMA busy_timeout").fetchone()[0] == store.BUSY_TIMEOUT_SECONDS * 1000
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_groups_get_unguessable_tokens_and_readable_codes(db):
    first, second = store.create_group(db, "A"), store.create_group(db, "B")
    assert first.token != second.token and len(first.token) >= 32
    assert len(first.join_code) == store.JOIN_CODE_LENGTH
    assert set(first.join_code) <= set(store.JOIN_CODE_ALPHABET)
    assert store.group_by_token(db, second.token) == second


def test_a_deleted_group_is_found_no_more(db):
    kept, gone = store.create_group(db, "Kept"), store.create_group(db, "Gone")
    store.delete_group(db, gone.id)
    assert store.get_group(db, kept.id) == kept
    with pytest.raises(store.NotFound):
        store.get_group(db, gone.id)


def test_player_names_are_unique_per_group_ignoring_case(db):
    group, other = store.create_group(db, "A"), store.create_group(db, "B")
    anna = store.add_player(db, group.id, "Anna", "red")
    with pytest.raises(store.DuplicateName):
        store.add_player(db, group.id, "ANNA", "blue")
    store.add_player(db, other.id, "Anna", "red")  # another group may have its own Anna
    store.update_player(db, group.id, anna, "Anna", "green")  # keeping one's own name is fine
    assert store.get_player(db, group.id, anna).colour == "green"
    with pytest.raises(store.NotFound):
        store.get_player(db, other.id, anna)


def test_event_log_append_undo_and_versions(db, play):
    assert store.append_event(db, play.id, "supply", {"seat": 0, "section": 2}) == 1
    assert store.append_event(db, play.id, "loot", {"seat": 1}) == 2
    assert [e.seq for e in store.list_events(db, play.id)] == [1, 2]
    assert [e.kind for e in store.list_events(db, play.id, after_seq=1)] == ["loot"]
    undone = store.undo_last_event(db, play.id, expected_version=2)
    assert undone.kind == "loot" and undone.payload == {"seat": 1}
    # the version keeps counting up, so a phone that saw version 2 knows it is behind
    assert store.get_play(db, play.id).version == 3
    assert store.append_event(db, play.id, "loot", {"seat": 0}) == 4
    assert [e.seq for e in store.list_events(db, play.id)] == [1, 2]


@pytest.mark.parametrize(("count", "before", "seqs"), [
    (3, None, [3, 4, 5]),
    (10, None, [1, 2, 3, 4, 5]),
    (2, 4, [2, 3]),
    (5, 2, [1]),
    (5, 1, []),
])
def test_the_newest_events_come_in_order(db, play, count, before, seqs):
    for seat in range(5):
        store.append_event(db, play.id, "loot", {"seat": seat % 2})
    assert [e.seq for e in store.newest_events(db, play.id, count, before)] == seqs


def test_stale_edits_are_refused(db, play):
    store.append_event(db, play.id, "loot", {"seat": 0})
    with pytest.raises(store.StaleVersion):
        store.undo_last_event(db, play.id, expected_version=0)
    with pytest.raises(store.StaleVersion):
        store.append_event(db, play.id, "loot", {"seat": 0}, expected_version=0)
    assert len(store.list_events(db, play.id)) == 1


def test_a_refused_check_stores_nothing(db, play):
    def refuse(events):
        raise RulesError("not now")

    with pytest.raises(RulesError):
        store.append_event(db, play.id, "loot", {"seat": 0}, check=refuse)
    assert store.list_events(db, play.id) == []
    assert store.get_play(db, play.id).version == 0


def test_finish_stores_results_and_undo_reopens(db, play):
    store.finish_play(db, play.id, {"totals": [10, 12]}, [
        store.ResultInput(0, 10, 2, {"total": 10}), store.ResultInput(1, 12, 1, {"total": 12})])
    finished = store.get_play(db, play.id)
    assert finished.status == "finished" and finished.ended_at
    ranked = [(r.name, r.total, r.rank) for r in store.play_results(db, play.id)]
    assert ranked == [("Ben", 12, 1), ("Anna", 10, 2)]
    with pytest.raises(store.StoreError, match="This play is finished"):
        store.append_event(db, play.id, "loot", {"seat": 0})
    assert [f.play.id for f in store.recent_finished(db, play.group_id)] == [play.id]
    assert store.undo_last_event(db, play.id).kind == "final"
    reopened = store.get_play(db, play.id)
    assert reopened.status == "active" and reopened.ended_at is None
    assert store.play_results(db, play.id) == ()


def test_a_change_only_the_play_page_shows_leaves_a_reopened_tally_as_current_as_it_was(db, play):
    """A seated player renamed grows the play's version (its pages drawn before are stale) but not its
    log: the kept tally still fits it until an entry is made."""
    anna = play.seats[0].player_id

    def renamed(name: str) -> bool:
        version = store.get_play(db, play.id).version
        store.update_player(db, play.group_id, anna, name, "red")
        assert store.get_play(db, play.id).version == version + 1
        return store.reopened_tally(db, play.id).changed_since

    _finished(db, play)
    store.undo_last_event(db, play.id)
    assert renamed("Anne") is False
    store.append_event(db, play.id, "loot", {"seat": 0})
    assert renamed("Anna") is True


def test_deleting_a_group_removes_everything_of_it(db, play):
    store.append_event(db, play.id, "loot", {"seat": 0})
    store.delete_group(db, play.group_id)
    for table in ("groups", "players", "plays", "seats", "events", "results"):
        assert db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 0, table


def test_start_play_refuses_players_of_another_group(db):
    group, other = store.create_group(db, "A"), store.create_group(db, "B")
    stranger = store.add_player(db, other.id, "Zed", "red")
    with pytest.raises(store.NotFound):
        store.start_play(db, group.id, "gold-west", [(stranger, "red")])
    assert db.execute("SELECT COUNT(*) FROM plays").fetchone()[0] == 0


def _player(db, group_id: int, name: str) -> int:
    return store.add_player(db, group_id, name, "red")


def _game(db, group_id: int, name: str) -> int:
    return store.add_group_game(db, group_id, name, None, {"rows": []})


def _sheet_version(db, group_id: int, name: str) -> int:
    return store.get_group_game(db, group_id, _game(db, group_id, name)).version_id


def _delete_game_of_version(db, group_id: int, version_id: int) -> None:
    game_id = db.execute("SELECT game_id FROM group_game_versions WHERE id = ?", [version_id]).fetchone()[0]
    store.delete_group_game(db, group_id, game_id)


# What a page names by id and a phone can delete: how one is added, and the deletion
_DELETED_BY_ID = {
    "player": (_player, store.delete_player),
    "group game": (_game, store.delete_group_game),
    "score sheet version": (_sheet_version, _delete_game_of_version),
}


@pytest.mark.parametrize(("add", "delete"), _DELETED_BY_ID.values(), ids=_DELETED_BY_ID)
def test_the_id_of_something_deleted_is_never_handed_out_again(db, add, delete):
    """A page drawn before the deletion still names the id: it must never reach what was added since."""
    group = store.create_group(db, "Club")
    add(db, group.id, "Kept")
    deleted = add(db, group.id, "Gone")
    delete(db, group.id, deleted)
    assert add(db, group.id, "New") > deleted


def test_join_failures_are_counted_per_client_and_window(db):
    db["join_failures"].insert_all([{"client": "10.0.0.1", "at": at} for at in (100.0, 200.0, 300.0)]
                                   + [{"client": "10.0.0.2", "at": 300.0}])
    assert store.count_join_failures(db, "10.0.0.1", since=150.0) == 2
    assert store.count_join_failures(db, "10.0.0.2", since=0.0) == 1


def test_the_store_closes_a_play_with_the_event_the_rules_read_as_final():
    assert store.FINAL_EVENT == FINAL_EVENT


def _in_trash(db, play):
    store.trash_play(db, play.id, store.now())


def _group_in_trash(db, play):
    store.trash_group(db, play.group_id, store.now())


def _finished(db, play):
    store.finish_play(db, play.id, {"totals": [1, 2]}, [
        store.ResultInput(0, 1, 2, {"total": 1}), store.ResultInput(1, 2, 1, {"total": 2})])


@pytest.mark.parametrize("change", [_in_trash, _group_in_trash, _finished], ids=lambda c: c.__name__)
def test_an_entry_finds_no_play_that_is_not_going_on(db, play, change):
    change(db, play)
    entry = {"seat": 0, "points": 3, "note": ""}
    assert store.append_to_active_play(db, play.id, "adjust", entry) is None
    assert "adjust" not in [event.kind for event in store.list_events(db, play.id)]


def test_an_entry_in_one_statement_notes_its_request_id_for_the_phone_that_sent_it(db, play):
    """The same id from the same phone is refused; from another phone of the group it is another entry."""
    phones = [store.create_membership(db, play.group_id) for _ in range(2)]
    entry = {"seat": 0, "points": 3, "note": ""}

    def send(phone: store.Membership) -> int | None:
        store.expect_request(db, store.RequestId("same-id-from-phones", phone.id, play.id))
        try:
            return store.append_to_active_play(db, play.id, "adjust", entry)
        finally:
            store.expect_request(db, None)

    assert send(phones[0]) is not None
    with pytest.raises(store.RepeatedRequest):
        send(phones[0])
    assert send(phones[1]) is not None
    assert db.execute("SELECT membership_id FROM events ORDER BY seq").fetchall() == [(phones[0].id,),
                                                                                      (phones[1].id,)]
    assert store.get_play(db, play.id).version == 2


def _schema(db) -> list[tuple]:
    return db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").fetchall()


@pytest.fixture
def older(tmp_path):
    """A database of an older release, ``older(applied)``: made by the first ``applied`` migrations."""
    connection = store.connect(tmp_path / "older.sqlite3")

    def made_by(applied: int):
        connection.execute("CREATE TABLE migrations (number INTEGER PRIMARY KEY, name TEXT, applied_at TEXT)")
        for number, migration in enumerate(store.MIGRATIONS[:applied], start=1):
            migration(connection)
            connection.execute("INSERT INTO migrations VALUES (?, ?, ?)",
                               [number, migration.__name__, store.now()])
        return connection
    yield made_by
    connection.close()


@pytest.mark.parametrize("applied", range(1, len(store.MIGRATIONS)))
def test_a_database_brought_up_to_date_has_the_schema_of_a_new_one(db, older, applied):
    """A database made by the first ``applied`` migrations (of an older release) and upgraded."""
    upgraded = older(applied)
    assert store.migrate(upgraded) == list(range(applied + 1, len(store.MIGRATIONS) + 1))
    assert _schema(upgraded) == _schema(db)


def _rows(db) -> dict[str, list[tuple]]:
    tables = [name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                             "AND name NOT IN ('sqlite_sequence', 'migrations')")]
    return {table: db.execute(f'SELECT * FROM "{table}" ORDER BY rowid').fetchall() for table in tables}


_IDS_NEVER_REUSED = 22  # m022: players, group games and their sheet versions rebuilt with AUTOINCREMENT
_REBUILT = ("players", "group_games", "group_game_versions")


def _with_autoincrement(definition: str) -> str:
    """A table's definition as the rebuild stores it: its name quoted, its id AUTOINCREMENT."""
    definition = re.sub(r"^CREATE TABLE (\w+)", r'CREATE TABLE "\1"', definition)
    return definition.replace("id INTEGER PRIMARY KEY,", "id INTEGER PRIMARY KEY AUTOINCREMENT,")


def test_the_tables_rebuilt_for_ids_never_reused_keep_their_rows_keys_indexes_and_triggers(older):
    db = older(_IDS_NEVER_REUSED - 1)
    group = store.create_group(db, "Club")
    anna, ben = (store.add_player(db, group.id, name, colour) for name, colour in (("Anna", "red"),
                                                                                    ("Ben", "blue")))
    store.start_play(db, group.id, "gold-west", [(anna, "red"), (ben, "blue")])
    store.add_group_game(db, group.id, "Azul", None, {"rows": []})
    schema, rows = _schema(db), _rows(db)

    db.execute("PRAGMA foreign_keys = OFF")  # as ``migrate`` runs it
    store.MIGRATIONS[_IDS_NEVER_REUSED - 1](db)
    db.execute("PRAGMA foreign_keys = ON")
    assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    rebuilt = {("table", name) for name in _REBUILT}
    assert _schema(db) == [(kind, name, table, _with_autoincrement(sql) if (kind, name) in rebuilt else sql)
                           for kind, name, table, sql in schema]
    assert _rows(db) == rows
    # the other tables' keys still point at the rebuilt one, and its triggers fire
    cara = store.add_player(db, group.id, "Cara", "green")
    phone = store.create_membership(db, group.id)
    db.execute("UPDATE memberships SET player_id = ? WHERE id = ?", [cara, phone.id])
    store.delete_player(db, group.id, cara)
    assert db.execute("SELECT player_id FROM memberships WHERE id = ?", [phone.id]).fetchone() == (None,)
    group_version = "SELECT version FROM groups WHERE id = ?"
    version = db.execute(group_version, [group.id]).fetchone()[0]
    dora = store.add_player(db, group.id, "Dora", "green")
    assert dora > cara and db.execute(group_version, [group.id]).fetchone()[0] == version + 1
    assert db.execute("SELECT uid IS NOT NULL FROM players WHERE id = ?", [dora]).fetchone() == (1,)
