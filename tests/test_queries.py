"""Pages that many phones open ask the database a fixed number of questions, however long the history."""

from __future__ import annotations

from companion import store
from companion.web.database import get_db
from tests.conftest import add_players, create_group


def finish(db, group_id: int, seats, scores) -> int:
    play_id = store.start_play(db, group_id, "gold-west", seats)
    ranks = [1 + sum(other > score for other in scores) for score in scores]
    results = [store.ResultInput(seat, score, rank, {"total": score})
               for seat, (score, rank) in enumerate(zip(scores, ranks, strict=True))]
    store.finish_play(db, play_id, {}, results)
    return play_id


def statements(app, client, path: str) -> list[str]:
    """The SQL statements one request runs on this thread's connection."""
    client.get(path)  # opens the connection and shows any pending message
    with app.app_context():
        connection = get_db().conn
    seen: list[str] = []
    connection.set_trace_callback(seen.append)
    try:
        response = client.get(path)
    finally:
        connection.set_trace_callback(None)
    assert response.status_code == 200
    return seen


def test_the_group_page_asks_as_many_queries_whatever_the_number_of_plays(app, client, db):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"), ("Cara", "green"))
    anna, ben, cara = (p.id for p in store.list_players(db, group_id))
    game_id = store.add_group_game(db, group_id, "Azul", None, {"rows": []})
    app.config["READ_CACHE"] = False  # the views' own queries (on a miss the read cache asks them)
    counted = []
    for finished in (1, 25):
        while len(store.recent_finished(db, group_id, 100)) < finished:
            finish(db, group_id, [(anna, "red"), (ben, "blue"), (cara, "green")], [10, 12, 11])
            store.start_play(db, group_id, f"custom-{game_id}", [(anna, "red"), (cara, "green")])
            deleted = store.start_play(db, group_id, "mayflower", [(ben, "blue"), (cara, "green")])
            store.trash_play(db, deleted, store.now())
        store.start_play(db, group_id, "gold-west", [(ben, "blue"), (cara, "green")])
        counted.append(len(statements(app, client, f"/groups/{group_id}")))
    # the membership with the group, its players, its plays with their seats and results (those in
    # its trash too), its own games, and the phones in it
    assert counted[0] == counted[1] <= 5
    app.config["READ_CACHE"] = True
    client.get(f"/groups/{group_id}")  # kept
    assert len(statements(app, client, f"/groups/{group_id}")) == 1  # the membership with the version


def test_the_group_plays_come_with_their_seats_and_results(db):
    group = store.create_group(db, "Club")
    anna, ben = store.add_player(db, group.id, "Anna", "red"), store.add_player(db, group.id, "Ben", "blue")
    first = finish(db, group.id, [(anna, "red"), (ben, "blue")], [10, 20])
    second = finish(db, group.id, [(ben, "blue"), (anna, "red")], [7, 7])
    going_on = store.start_play(db, group.id, "mayflower", [(anna, "red"), (ben, "blue")])
    deleted = [store.start_play(db, group.id, "gold-west", [(ben, "blue"), (anna, "red")]) for _ in range(2)]
    for play_id, day in zip(deleted, ("2026-01-02", "2026-01-03"), strict=True):
        store.trash_play(db, play_id, f"{day}T00:00:00+00:00")
    plays = store.group_plays(db, group.id)
    assert plays.active == [store.get_play(db, going_on)]
    assert [f.play for f in plays.recent] == [store.get_play(db, second), store.get_play(db, first)]
    assert [f.results for f in plays.recent] == [store.play_results(db, second),
                                                 store.play_results(db, first)]
    assert plays.active == store.list_plays(db, group.id, "active")
    assert [(t.play.id, [s.name for s in t.play.seats], t.deleted_at) for t in plays.trashed] == [
        (deleted[1], ["Ben", "Anna"], "2026-01-03T00:00:00+00:00"),
        (deleted[0], ["Ben", "Anna"], "2026-01-02T00:00:00+00:00")]


def test_a_play_page_and_its_poll_ask_the_gate_once(app, client, db):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    anna, ben = (p.id for p in store.list_players(db, group_id))
    play_id = store.start_play(db, group_id, "gold-west", [(anna, "red"), (ben, "blue")])
    client.post(f"/plays/{play_id}/adjust", data={"seat": "0", "points": "3"})
    app.config["READ_CACHE"] = False
    page, poll = f"/plays/{play_id}", f"/plays/{play_id}/state.json?since=0"
    # the gate (membership, group, play and seats in one), the newest entries, the table's snapshot
    # and its newer entries, the group's own games
    assert len(statements(app, client, page)) <= 5
    # the gate, and the scores of the table
    assert len(statements(app, client, poll)) <= 4
    membership_checks = [sql for sql in statements(app, client, page) if "memberships" in sql]
    assert len(membership_checks) == 1
    app.config["READ_CACHE"] = True
    for kept in (page, f"/plays/{play_id}/state.json?since={store.get_play(db, play_id).version}"):
        client.get(kept)  # the views answer, and their answer is kept
        assert len(statements(app, client, kept)) == 1  # the gate, with the version stamps
