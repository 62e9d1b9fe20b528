"""A phone that has not joined a group sees none of it: 404 on every group, play and result URL."""

from __future__ import annotations

import pytest

from companion import store
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
    assert store.groups_by_ids(db, [private_group["group_id"]])


def test_a_member_of_another_group_gets_404_too(app, db, private_group):
    other = app.test_client()
    create_group(other, "Other")
    for method, url in urls(private_group):
        assert other.open(url, method=method).status_code == 404, (method, url)
