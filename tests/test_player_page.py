"""A player's page: plays, wins, win rate, average and best per game, rating and head to head."""

from __future__ import annotations

import re

from companion import store
from tests.conftest import add_players, create_group
from tests.test_ratings import log


def test_a_players_page_shows_their_record_per_game_rating_and_rivals(app, client, db):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"), ("Cara", "green"), ("Dan", "black"))
    ids = {p.name: p.id for p in store.list_players(db, group_id)}
    log(client, group_id, "gold-west", "2024-01-01", (ids["Anna"], 50), (ids["Ben"], 40))
    log(client, group_id, "gold-west", "2024-01-02", (ids["Anna"], 30), (ids["Ben"], 44))
    log(client, group_id, "great-western-trail", "2024-01-03", (ids["Anna"], 90), (ids["Cara"], 70))
    stats = client.get(f"/groups/{group_id}/statistics").text
    assert f"/groups/{group_id}/players/{ids['Anna']}/statistics" in stats

    page = client.get(f"/groups/{group_id}/players/{ids['Anna']}/statistics")
    assert page.status_code == 200
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page.text))
    assert "Plays 3 Wins 2 Win rate 67 %" in text
    assert "Gold West 2 1 50 % 40 50" in text and "Great Western Trail 1 1 100 % 90 90" in text
    assert "against Ben: ahead in 1 of 2 plays, behind in 1" in text
    assert "against Cara: ahead in 1 of 1 play, behind in 0" in text
    assert "Rating" in text

    assert "Dan has no counted finished plays yet." in client.get(
        f"/groups/{group_id}/players/{ids['Dan']}/statistics").text
    other = create_group(client, "Other")
    assert client.get(f"/groups/{other}/players/{ids['Anna']}/statistics").status_code == 404
    assert app.test_client().get(f"/groups/{group_id}/players/{ids['Anna']}/statistics").status_code == 404
