"""Skill ratings: the same numbers as openskill's own, kept per play, computed again after changes."""

from __future__ import annotations

import io
import re

import pytest
from openskill.models import PlackettLuce

from companion import store
from companion.games import ratings
from tests.conftest import add_players, create_group
from tests.test_custom_games_web import add_game
from tests.test_group_time_zone import set_zone

MODEL = PlackettLuce()


def log(client, group_id, game, day, *seated, **extra):
    """Log a finished play of totals: ``seated`` are (player id, points), in seat order."""
    data = {"ended_on": day, **extra}
    width = 4 if not game.startswith("custom-") else 6
    for seat in range(width):
        player, points = seated[seat] if seat < len(seated) else (0, None)
        data[f"player-{seat}"] = str(player)
        if points is not None:
            data[f"points-{seat}-0"] = str(points)
    response = client.post(f"/groups/{group_id}/plays/past/{game}", data=data)
    assert response.status_code == 302, response.text
    return int(response.headers["Location"].rsplit("/", 2)[1])


@pytest.fixture
def group(client, db):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"), ("Cara", "green"), ("Dan", "yellow"))
    return group_id, {p.name: p.id for p in store.list_players(db, group_id)}


def refreshed(db, group_id, scope=ratings.OVERALL):
    store.refresh_ratings(db, group_id, ratings.rate_play)
    return store.player_ratings(db, group_id, scope)


def close(rating, expected):
    return rating.mu == pytest.approx(expected.mu) and rating.sigma == pytest.approx(expected.sigma)


def test_ratings_are_openskills_own_per_game_and_overall_with_ties(client, db, group):
    group_id, ids = group
    anna, ben, cara = ids["Anna"], ids["Ben"], ids["Cara"]
    # Ben and Cara tied on points, Wanted camps and resources left
    log(client, group_id, "gold-west", "2024-01-01", (anna, 50), (ben, 40), (cara, 40),
        **{"supply_left-1": "2", "supply_left-2": "2"})
    log(client, group_id, "great-western-trail", "2024-01-02", (ben, 90), (cara, 70))
    log(client, group_id, "gold-west", "2024-01-03", (cara, 60), (anna, 55))

    a, b, c = MODEL.rating(), MODEL.rating(), MODEL.rating()
    [[a], [b], [c]] = MODEL.rate([[a], [b], [c]], ranks=[1, 2, 2])  # Ben and Cara tie
    gw_a, gw_b, gw_c = a, b, c
    [[b], [c]] = MODEL.rate([[b], [c]], ranks=[1, 2])
    [[c], [a]] = MODEL.rate([[c], [a]], ranks=[1, 2])
    [[gw_c], [gw_a]] = MODEL.rate([[gw_c], [gw_a]], ranks=[1, 2])

    overall = refreshed(db, group_id)
    assert close(overall[anna], a) and close(overall[ben], b) and close(overall[cara], c)
    assert overall[cara].plays == 3 and ids["Dan"] not in overall
    gold_west = refreshed(db, group_id, "gold-west")
    assert close(gold_west[anna], gw_a) and close(gold_west[ben], gw_b) and close(gold_west[cara], gw_c)
    # the change at Anna's latest Gold West play: from her rating after the first play to now
    first_a = MODEL.rate([[MODEL.rating()], [MODEL.rating()], [MODEL.rating()]], ranks=[1, 2, 2])[0][0]
    assert gold_west[anna].change == pytest.approx(gw_a.ordinal() - first_a.ordinal())
    page = client.get(f"/groups/{group_id}/statistics").text
    shown = f"{a.ordinal():.1f}".removesuffix(".0")
    assert "Ratings" in page and f">{shown}<" in page and "ratings-chart" in page


@pytest.mark.parametrize(("language", "days"), [
    ("en", ["Mar 2, 2024", "Mar 9, 2024"]),
    ("de", ["02.03.2024", "09.03.2024"]),
])
def test_the_ratings_chart_dates_each_play_on_the_groups_day_in_the_readers_language(client, db, group,
                                                                                       language, days):
    """Played until 00:30 in Berlin, a play is one of that day (still the day before in UTC)."""
    group_id, ids = group
    set_zone(client, group_id, "Europe/Berlin")
    for day in ("2024-03-02", "2024-03-09"):
        log(client, group_id, "great-western-trail", day, (ids["Anna"], 88), (ids["Ben"], 91),
            ended_at="00:30")
    page = client.get(f"/groups/{group_id}/statistics", headers={"Accept-Language": language}).text
    chart = re.search(r'<svg class="chart [^"]*" id="ratings-chart".*?</svg>', page, re.S).group(0)
    assert re.findall(r'<text class="date [a-z]+"[^>]*>([^<]*)</text>', chart) == days


def spades(client, group_id, ids, *plays: tuple[int, int, int, int]) -> int:
    """A game of teams (Anna and Cara against Ben and Dan) and its plays, one a day; returns its id."""
    game_id = add_game(client, group_id, name="Spades", teams="y")
    order = [ids[name] for name in ("Anna", "Ben", "Cara", "Dan")]
    data = {"team-0": "A", "team-1": "B", "team-2": "A", "team-3": "B"}
    for day, points in enumerate(plays, start=1):
        log(client, group_id, f"custom-{game_id}", f"2024-01-0{day}", *zip(order, points, strict=True),
            **data)
    return game_id


def test_teams_are_rated_as_teams(client, db, group):
    group_id, ids = group
    game_id = spades(client, group_id, ids, (10, 30, 25, 10))
    anna, ben, cara, dan = (MODEL.rating() for _ in range(4))
    [[anna, cara], [ben, dan]] = MODEL.rate([[anna, cara], [ben, dan]], ranks=[2, 1])
    current = refreshed(db, group_id, f"custom-{game_id}")
    assert close(current[ids["Anna"]], anna) and close(current[ids["Dan"]], dan)


def test_a_cooperative_play_leaves_the_ratings_as_they_are(client, db, group):
    group_id, ids = group
    game_id = add_game(client, group_id, name="Pandemic", cooperative="y")
    log(client, group_id, f"custom-{game_id}", "2024-01-01", (ids["Anna"], 0), (ids["Ben"], 0), won="yes")
    assert refreshed(db, group_id) == {}


@pytest.mark.parametrize("won", ["yes", "no"])
def test_a_cooperative_play_won_or_lost_leaves_the_ratings_as_they_are(client, db, group, won):
    group_id, ids = group
    game_id = add_game(client, group_id, name="Hanabi", cooperative="y")
    log(client, group_id, f"custom-{game_id}", "2024-01-01", (ids["Anna"], 12), (ids["Ben"], 12),
        (ids["Cara"], 12), won=won)
    assert refreshed(db, group_id) == {}


def test_a_competitive_draw_of_everybody_is_rated_as_openskill_rates_it(client, db, group):
    group_id, ids = group
    anna, ben, cara = ids["Anna"], ids["Ben"], ids["Cara"]
    golf = add_game(client, group_id, name="Golf", lowest_wins="y")
    # ratings apart first, so that the draw moves the means and not only the uncertainty
    log(client, group_id, "great-western-trail", "2024-01-01", (anna, 90), (ben, 70), (cara, 50))
    log(client, group_id, f"custom-{golf}", "2024-01-02", (anna, 5), (ben, 5), (cara, 5))
    log(client, group_id, "gold-west", "2024-01-03", (ben, 80), (cara, 80),
        **{"supply_left-0": "1", "supply_left-1": "1"})  # a full tie
    a, b, c = MODEL.rating(), MODEL.rating(), MODEL.rating()
    [[a], [b], [c]] = MODEL.rate([[a], [b], [c]], ranks=[1, 2, 3])
    before_draw = b
    [[a], [b], [c]] = MODEL.rate([[a], [b], [c]], ranks=[1, 1, 1])  # 5/5/5: everybody shares 1st
    [[b], [c]] = MODEL.rate([[b], [c]], ranks=[1, 1])  # a 2-player draw
    overall = refreshed(db, group_id)
    assert close(overall[anna], a) and close(overall[ben], b) and close(overall[cara], c)
    assert overall[ben].plays == 3 and overall[ben].mu != pytest.approx(before_draw.mu)


def test_a_draw_between_teams_is_rated_as_openskill_rates_it(client, db, group):
    group_id, ids = group
    game_id = spades(client, group_id, ids, (10, 30, 25, 10), (10, 10, 10, 10))  # then 20–20
    anna, ben, cara, dan = (MODEL.rating() for _ in range(4))
    [[anna, cara], [ben, dan]] = MODEL.rate([[anna, cara], [ben, dan]], ranks=[2, 1])
    [[anna, cara], [ben, dan]] = MODEL.rate([[anna, cara], [ben, dan]], ranks=[1, 1])
    current = refreshed(db, group_id, f"custom-{game_id}")
    assert all(close(current[ids[name]], expected) for name, expected in
               (("Anna", anna), ("Ben", ben), ("Cara", cara), ("Dan", dan)))
    assert current[ids["Anna"]].plays == 2


@pytest.mark.parametrize(("placings", "cooperative"), [
    pytest.param([(1, 1, None)], False, id="one-player-alone"),
    pytest.param([(1, 1, "A"), (2, 1, "A")], False, id="one-team-alone"),
    pytest.param([(1, 1, None), (2, 1, None)], True, id="cooperative"),
])
def test_a_play_without_anybody_to_beat_rates_nobody(placings, cooperative):
    assert ratings.rate_play({}, placings, cooperative) == {}


def test_ratings_are_computed_again_after_a_change_to_an_earlier_play(client, db, group):
    group_id, ids = group
    anna, ben = ids["Anna"], ids["Ben"]
    first = log(client, group_id, "gold-west", "2024-01-01", (anna, 50), (ben, 40))
    log(client, group_id, "gold-west", "2024-01-05", (anna, 30), (ben, 40))
    before = refreshed(db, group_id)

    # leaving out the first play: only the second counts
    client.post(f"/plays/{first}/counted", data={"counted": "0"})
    a, b = MODEL.rating(), MODEL.rating()
    [[b], [a]] = MODEL.rate([[b], [a]], ranks=[1, 2])
    after = refreshed(db, group_id)
    assert close(after[anna], a) and close(after[ben], b) and after[anna].plays == 1
    assert not close(before[anna], a)

    # deleted: the same; counted again and an earlier play logged later: replayed in time order
    client.post(f"/plays/{first}/counted", data={"counted": "1"})
    log(client, group_id, "gold-west", "2023-12-24", (anna, 10), (ben, 20))
    a, b = MODEL.rating(), MODEL.rating()
    for ranks in ([2, 1], [1, 2], [2, 1]):
        [[a], [b]] = MODEL.rate([[a], [b]], ranks=ranks)
    again = refreshed(db, group_id)
    assert close(again[anna], a) and close(again[ben], b) and again[ben].plays == 3
    client.post(f"/plays/{first}/delete")
    a, b = MODEL.rating(), MODEL.rating()
    for ranks in ([2, 1], [2, 1]):
        [[a], [b]] = MODEL.rate([[a], [b]], ranks=ranks)
    deleted = refreshed(db, group_id)
    assert close(deleted[anna], a) and close(deleted[ben], b)
    assert deleted[anna].change == pytest.approx(a.ordinal() - (deleted[anna].shown - deleted[anna].change))


def test_an_imported_group_gets_the_same_ratings(app, client, db, group):
    group_id, ids = group
    log(client, group_id, "gold-west", "2024-01-01", (ids["Anna"], 50), (ids["Ben"], 40))
    backup = client.get(f"/groups/{group_id}/export/backup.json").data
    response = client.post("/groups/import", data={"backup": (io.BytesIO(backup), "backup.json")},
                           content_type="multipart/form-data")
    copy_id = int(response.headers["Location"].rsplit("/", 1)[1])
    original = {store.get_player(db, group_id, pid).name: r.shown
                for pid, r in refreshed(db, group_id).items()}
    copied = {store.get_player(db, copy_id, pid).name: r.shown for pid, r in refreshed(db, copy_id).items()}
    assert copied == original and set(copied) == {"Anna", "Ben"}
