"""Pages that many phones open ask the database a fixed number of questions, however long the history."""

from __future__ import annotations

import pytest

from companion import store
from companion.database import get_db
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


@pytest.mark.parametrize("finished", [1, 25])
def test_the_group_page_asks_at_most_five_queries(app, client, db, finished):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"), ("Cara", "green"))
    anna, ben, cara = (p.id for p in store.list_players(db, group_id))
    for n in range(finished):
        finish(db, group_id, [(anna, "red"), (ben, "blue"), (cara, "green")], [10 + n, 12, 11])
    for _ in range(3):
        store.start_play(db, group_id, "gold-west", [(ben, "blue"), (cara, "green")])
    assert len(statements(app, client, f"/groups/{group_id}")) <= 5


def test_the_group_plays_come_with_their_seats_and_results(db):
    group = store.create_group(db, "Club")
    anna, ben = store.add_player(db, group.id, "Anna", "red"), store.add_player(db, group.id, "Ben", "blue")
    first = finish(db, group.id, [(anna, "red"), (ben, "blue")], [10, 20])
    second = finish(db, group.id, [(ben, "blue"), (anna, "red")], [7, 7])
    going_on = store.start_play(db, group.id, "mayflower", [(anna, "red"), (ben, "blue")])
    active, recent = store.group_plays(db, group.id)
    assert active == [store.get_play(db, going_on)]
    assert [f.play for f in recent] == [store.get_play(db, second), store.get_play(db, first)]
    assert [f.results for f in recent] == [store.play_results(db, second), store.play_results(db, first)]
    assert active == store.list_plays(db, group.id, "active")
