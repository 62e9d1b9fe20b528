"""A phone that has not joined a group sees none of it: 404 on every group, play and result URL."""

from __future__ import annotations

import pytest

from companion import store
from companion.store import access
from tests.conftest import add_players, create_group, start_play


@pytest.fixture
def private_group(client, db):
    group_id = create_group(client, "Private")
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = [p.id for p in store.list_players(db, group_id)]
    play_id = start_play(client, group_id, "great-western-trail", [(ids[0], "red"), (ids[1], "blue")])
    finished_id = start_play(client, group_id, "gold-west", [(ids[0], "red"), (ids[1], "blue")])
    client.post(f"/plays/{finished_id}/finish", data={"version": "0", "total_0": "3", "total_1": "4"})
    assert store.get_play(db, finished_id).status == "finished"
    return {"group_id": group_id, "player_id": ids[0], "play_id": play_id, "finished_id": finished_id}


def urls(g):
    gid, pid = g["group_id"], g["play_id"]
    return [
        ("GET", f"/groups/{gid}"), ("POST", f"/groups/{gid}/players"),
        ("GET", f"/groups/{gid}/players/{g['player_id']}"),
        ("POST", f"/groups/{gid}/players/{g['player_id']}"),
        ("GET", f"/groups/{gid}/rename"), ("POST", f"/groups/{gid}/rename"),
        ("GET", f"/groups/{gid}/delete"), ("POST", f"/groups/{gid}/delete"),
        ("GET", f"/groups/{gid}/plays/new/gold-west"), ("POST", f"/groups/{gid}/plays/new/gold-west"),
        ("GET", f"/plays/{pid}"), ("POST", f"/plays/{pid}/adjust"), ("POST", f"/plays/{pid}/undo"),
        ("GET", f"/plays/{pid}/finish"), ("POST", f"/plays/{pid}/finish"),
        ("GET", f"/plays/{pid}/delete"), ("POST", f"/plays/{pid}/delete"),
        ("GET", f"/plays/{g['finished_id']}/result"),
    ]


def test_a_phone_that_did_not_join_gets_404_everywhere(app, db, private_group):
    stranger = app.test_client()
    for method, url in urls(private_group):
        response = stranger.open(url, method=method, data={"name": "X", "version": "0"})
        assert response.status_code == 404, (method, url)
        assert "Private" not in response.text
    assert store.get_play(db, private_group["play_id"]).version == 0
    assert store.get_group(db, private_group["group_id"])


def test_a_member_of_another_group_gets_404_too(app, db, private_group):
    other = app.test_client()
    create_group(other, "Other")
    for method, url in urls(private_group):
        assert other.open(url, method=method).status_code == 404, (method, url)


# --- memberships live on the server: a kept cookie opens nothing it should not ----------------------

def _session_cookie(app, client) -> str:
    return client.get_cookie("session", domain=app.config["SERVER_NAME"]).value


def _phone_with_cookie(app, cookie: str):
    phone = app.test_client()
    phone.set_cookie("session", cookie, domain=app.config["SERVER_NAME"])
    return phone


def test_a_kept_cookie_opens_none_of_the_groups_created_after_its_own_were_deleted(app, db):
    """The takeover: keep a cookie, delete its groups, let others create groups, replay the cookie."""
    attacker = app.test_client()
    own = [create_group(attacker, f"Bait {n}") for n in range(3)]
    kept = _session_cookie(app, attacker)
    for group_id in own:
        assert attacker.post(f"/groups/{group_id}/delete").status_code == 302
    others = app.test_client()
    theirs = []
    for n in range(5):
        group_id = create_group(others, f"Their table {n}")
        add_players(others, group_id, ("Anna", "red"), ("Ben", "blue"))
        ids = [p.id for p in store.list_players(db, group_id)]
        play_id = start_play(others, group_id, "gold-west", [(ids[0], "red"), (ids[1], "blue")])
        finished_id = start_play(others, group_id, "gold-west", [(ids[0], "red"), (ids[1], "blue")])
        others.post(f"/plays/{finished_id}/finish", data={"version": "0", "total_0": "3", "total_1": "4"})
        theirs.append({"group_id": group_id, "player_id": ids[0], "play_id": play_id,
                       "finished_id": finished_id})
    assert not set(own) & {g["group_id"] for g in theirs}, "a group id was handed out twice"
    replay = _phone_with_cookie(app, kept)
    assert "Their table" not in replay.get("/").text
    for group in theirs:
        for method, url in urls(group):
            response = replay.open(url, method=method, data={"name": "Mine now", "version": "0"})
            assert response.status_code == 404, (method, url, response.status_code)
            assert "Their table" not in response.text
        assert replay.post(f"/groups/{group['group_id']}/delete").status_code == 404
        assert store.get_group(db, group["group_id"]).name.startswith("Their table")
    for group_id in own:
        assert replay.get(f"/groups/{group_id}").status_code == 404


def test_a_cookie_of_the_first_versions_with_group_ids_opens_nothing(app, db):
    owner = app.test_client()
    group_id = create_group(owner, "Private")
    old_style = app.test_client()
    with old_style.session_transaction() as session:
        session["groups"] = [group_id]
    assert old_style.get(f"/groups/{group_id}").status_code == 404
    assert "Private" not in old_style.get("/").text


def test_a_membership_opens_only_the_group_it_was_made_for(app, db):
    phone = app.test_client()
    mine = create_group(phone, "Mine")
    other = create_group(app.test_client(), "Other")
    [membership] = store.list_memberships(db, mine)
    # the token is real, but it was made for another group
    assert access.reach(db, [membership.token], other) is None
    assert phone.get(f"/groups/{other}").status_code == 404
    assert phone.get(f"/groups/{mine}").status_code == 200


def test_a_phone_that_left_a_group_cannot_come_back_with_a_copy_of_its_cookie(app, db):
    phone = app.test_client()
    group_id = create_group(phone, "Table")
    kept = _session_cookie(app, phone)
    assert phone.post(f"/groups/{group_id}/leave").status_code == 302
    assert phone.get(f"/groups/{group_id}").status_code == 404
    assert _phone_with_cookie(app, kept).get(f"/groups/{group_id}").status_code == 404
    assert store.list_memberships(db, group_id) == []
    assert store.get_group(db, group_id).name == "Table"


def test_a_phone_holds_a_hundred_groups_and_is_told_clearly_when_it_cannot_hold_more(app, db):
    from companion.web.security import MAX_GROUPS_PER_PHONE

    phone = app.test_client()
    first = create_group(phone, "Group 0")
    for n in range(1, MAX_GROUPS_PER_PHONE):
        create_group(phone, f"Group {n}")
    cookie = phone.get_cookie("session", domain=app.config["SERVER_NAME"])
    # what a browser keeps per cookie: name, value and attributes within 4096 bytes, with room left
    # for the CSRF token and a message after a form
    assert len(cookie.key) + len(cookie.value) < 3500
    refused = phone.post("/groups", data={"name": "One too many"})
    assert refused.status_code == 409
    assert f"already in {MAX_GROUPS_PER_PHONE} groups" in refused.text
    assert db.execute("SELECT COUNT(*) FROM groups WHERE name = 'One too many'").fetchone()[0] == 0
    stranger_group = create_group(app.test_client(), "Elsewhere")
    token = store.get_group(db, stranger_group).token
    joined = phone.post(f"/join/{token}", follow_redirects=True)
    assert f"already in {MAX_GROUPS_PER_PHONE} groups" in joined.text
    assert phone.get(f"/groups/{stranger_group}").status_code == 404
    # nothing was dropped silently: the first group still opens; after leaving one, joining works
    assert phone.get(f"/groups/{first}").status_code == 200
    phone.post(f"/groups/{first}/leave")
    assert phone.post(f"/join/{token}").status_code == 302
    assert phone.get(f"/groups/{stranger_group}").status_code == 200


def test_group_and_play_ids_are_never_handed_out_again(db):
    first = store.create_group(db, "First")
    second = store.create_group(db, "Second")
    anna = store.add_player(db, second.id, "Anna", "red")
    play_id = store.start_play(db, second.id, "gold-west", [(anna, "red")])
    store.delete_play(db, play_id)
    store.delete_group(db, second.id)
    third = store.create_group(db, "Third")
    assert third.id > second.id > first.id
    bea = store.add_player(db, third.id, "Bea", "blue")
    assert store.start_play(db, third.id, "gold-west", [(bea, "blue")]) > play_id


def test_the_migration_keeps_every_row_and_its_statistics(tmp_path):
    """A database from before memberships: ids, plays and the kept statistics come through unchanged."""
    from tests.test_isolation import dump

    path = tmp_path / "old.sqlite3"
    connection = store.connect(path)
    connection.execute("CREATE TABLE migrations (number INTEGER PRIMARY KEY, name TEXT, applied_at TEXT)")
    with store.write_transaction(connection):
        earlier = [m.__name__ for m in store.MIGRATIONS].index("m006_private_groups")
        for number, migration in enumerate(store.MIGRATIONS[:earlier], start=1):
            migration(connection)
            connection.execute("INSERT INTO migrations VALUES (?, ?, '2024-01-01')",
                               [number, migration.__name__])
        for name in ("Old", "Older", "Gone"):
            connection.execute("INSERT INTO groups (name, token, join_code, created_at) "
                               "VALUES (?, ?, ?, '2024-01-01')", [name, f"token-{name}", f"CODE{name[:4]}"])
        connection.execute("DELETE FROM groups WHERE name = 'Gone'")
    anna = store.add_player(connection, 2, "Anna", "red")
    ben = store.add_player(connection, 2, "Ben", "blue")
    play_id = store.start_play(connection, 2, "gold-west", [(anna, "red"), (ben, "blue")])
    # finished as the code of that time did it (today's finish_play writes columns added later)
    with store.write_transaction(connection):
        connection.execute("INSERT INTO events (play_id, seq, kind, payload, created_at) "
                           "VALUES (?, 1, 'final', '{\"totals\": [20, 10]}', '2024-01-02T00:00:00+00:00')",
                           [play_id])
        connection.conn.executemany(
            "INSERT INTO results (play_id, player_id, total, rank, breakdown) VALUES (?, ?, ?, ?, ?)",
            [(play_id, anna, 20, 1, '{"total": 20}'), (play_id, ben, 10, 2, '{"total": 10}')])
        connection.execute("UPDATE plays SET status = 'finished', ended_at = '2024-01-02T00:00:00+00:00', "
                           "version = 1 WHERE id = ?", [play_id])
    before = dump(str(path))
    assert store.migrate(connection) == list(range(earlier + 1, len(store.MIGRATIONS) + 1))
    after = dump(str(path))
    for table in ("seats", "results", "rivalries"):
        assert after[table] == before[table], table
    # the same rows with the same ids, and new columns
    for table in ("groups", "plays", "players", "events", "row_points"):
        assert [row[:len(before[table][0])] for row in after[table]] == before[table], table
    assert connection.execute("PRAGMA foreign_key_check").fetchall() == []
    assert connection.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    # the kept statistics still follow every change
    store.set_play_counted(connection, play_id, False)
    assert connection.execute("SELECT COUNT(*) FROM rivalries WHERE together > 0").fetchone()[0] == 0
    # and from now on an id is used once (an id freed before the migration may come back once: no
    # cookie of that time lets anybody in any more)
    store.delete_group(connection, 1)
    assert store.create_group(connection, "New").id == 3
    assert store.migrate(connection) == []
    connection.close()


def test_the_database_its_journal_files_and_the_secret_key_are_readable_by_their_owner_only(
        tmp_path, monkeypatch):
    import os
    import stat

    from app import create_app

    instance = tmp_path / "instance"
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(instance))
    usual = os.umask(0o022)  # the usual umask: new files readable by everyone unless the site says not
    try:
        app = create_app()
        db = store.connect(app.config["DATABASE"])
        store.migrate(db)
        store.create_group(db, "Private")  # the open connection keeps the -wal and -shm files
        for name in ("config.py", "companion.sqlite3", "companion.sqlite3-wal", "companion.sqlite3-shm"):
            mode = stat.S_IMODE((instance / name).stat().st_mode)
            assert mode & 0o077 == 0, (name, oct(mode))
        assert stat.S_IMODE(instance.stat().st_mode) & 0o077 == 0
        db.close()
        assert os.umask(0o022) == 0o022, "the site put the process's umask back"
    finally:
        os.umask(usual)
