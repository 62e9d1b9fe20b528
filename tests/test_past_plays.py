"""Log a past play: any game, entered afterwards with its day, length and scores."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime

import pytest

from companion import store
from companion.games import table_tools as tools
from tests.conftest import add_players, create_group
from tests.test_custom_games_web import WONDERS_ROWS, add_game


@pytest.fixture
def group(client, db):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"), ("Cara", "green"))
    return group_id, {p.name: p.id for p in store.list_players(db, group_id)}


def seats(ids, *names, width):
    """The seat fields: the named players, then nobody up to ``width`` seats."""
    chosen = [ids[name] for name in names] + [0] * (width - len(names))
    return {f"player-{n}": str(pid) for n, pid in enumerate(chosen)}


def test_a_past_play_with_totals_is_kept_with_its_day_and_length(client, db, group):
    group_id, ids = group
    page = client.get(f"/groups/{group_id}/plays/past/great-western-trail")
    assert page.status_code == 200 and "Log a past play of Great Western Trail" in page.text
    response = client.post(f"/groups/{group_id}/plays/past/great-western-trail", data={
        "ended_on": "2024-03-02", "ended_at": "22:15", "minutes": "95", "variant": "Rails to the North",
        **seats(ids, "Ben", "Anna", width=4), "points-0-0": "88", "points-1-0": "91"})
    assert response.status_code == 302, response.text
    play_id = int(response.headers["Location"].rsplit("/", 2)[1])
    play = store.get_play(db, play_id)
    assert (play.status, play.ended_at, play.started_at) == (
        "finished", "2024-03-02T22:15:00+00:00", "2024-03-02T20:40:00+00:00")
    assert [s.name for s in play.seats] == ["Ben", "Anna"]
    assert tools.duration_seconds(play.options, play.ended_at, datetime.now(UTC)) == 95 * 60
    assert play.options[tools.VARIANT] == "Rails to the North"
    assert [(r.name, r.total, r.rank, dict(r.breakdown)) for r in store.play_results(db, play_id)] == [
        ("Anna", 91, 1, {"total": 91}), ("Ben", 88, 2, {"total": 88})]
    assert "Played for 1:35:00." in client.get(f"/plays/{play_id}/record").text
    # the statistics count it like any play
    assert "Anna" in client.get(f"/groups/{group_id}/statistics").text


def test_one_of_the_three_row_by_row_and_a_group_game_with_its_sheet(client, db, group):
    group_id, ids = group
    page = client.get(f"/groups/{group_id}/plays/past/gold-west", query_string={"rows": "1"})
    assert "BoomTown offices" in page.text
    rows = ("track", "largest_group", "offices", "wanted", "influence")
    points = {"Anna": (40, 4, 6, -2, 10), "Cara": (38, 6, 9, 0, 4)}
    data = {"ended_on": "2024-03-02", **seats(ids, "Anna", "Cara", width=4)}
    for seat, name in enumerate(points):
        data.update({f"points-{seat}-{n}": str(v) for n, v in enumerate(points[name])})
    response = client.post(f"/groups/{group_id}/plays/past/gold-west?rows=1", data=data)
    assert response.status_code == 302, response.text
    play_id = int(response.headers["Location"].rsplit("/", 2)[1])
    assert {r.name: (r.total, r.rank, tuple(r.breakdown[k] for k in rows))
            for r in store.play_results(db, play_id)} == {"Anna": (58, 1, points["Anna"]),
                                                           "Cara": (57, 2, points["Cara"])}

    game_id = add_game(client, group_id, rows=WONDERS_ROWS)
    data = {"ended_on": "2024-03-03", **seats(ids, "Anna", "Ben", "Cara", width=7)}
    for seat, values in enumerate([(1, 2, 3), (0, 6, 0), (-3, 1, 1)]):
        data.update({f"points-{seat}-{n}": str(v) for n, v in enumerate(values)})
    response = client.post(f"/groups/{group_id}/plays/past/custom-{game_id}", data=data)
    assert response.status_code == 302, response.text
    play_id = int(response.headers["Location"].rsplit("/", 2)[1])
    play = store.get_play(db, play_id)
    assert play.game == f"custom-{game_id}" and type(play.options["sheet"]) is int
    assert {r.name: (r.total, r.rank) for r in store.play_results(db, play_id)} == {
        "Anna": (6, 2), "Ben": (6, 1), "Cara": (-1, 3)}  # Coins break the tie


@pytest.mark.parametrize(("typed", "expected"), [
    ({}, "Anna and Ben are tied on 50 VP and on camps in the Wanted area (0 each): the resources left on "
         "the supply track decide. Enter them for Anna and Ben."),
    ({"wanted-0": "1"}, [("Ben", 1), ("Anna", 2), ("Cara", 3)]),
    ({"supply_left-0": "4", "supply_left-1": "2"}, [("Anna", 1), ("Ben", 2), ("Cara", 3)]),
    ({"supply_left-0": "2", "supply_left-1": "2"}, [("Anna", 1), ("Ben", 1), ("Cara", 3)]),
], ids=["asked", "fewer-wanted-camps", "more-resources-left", "still-tied"])
def test_a_past_gold_west_play_tied_on_points_is_ranked_by_its_tie_breakers(client, db, group, typed,
                                                                          expected):
    group_id, ids = group
    page = client.get(f"/groups/{group_id}/plays/past/gold-west").text
    assert 'name="wanted-0"' in page and 'name="supply_left-3"' in page
    data = {"ended_on": "2024-03-02", **seats(ids, "Anna", "Ben", "Cara", width=4), "points-0-0": "50",
            "points-1-0": "50", "points-2-0": "41", **typed}
    response = client.post(f"/groups/{group_id}/plays/past/gold-west", data=data)
    if isinstance(expected, str):
        assert response.status_code == 400 and expected in html.unescape(response.text)
        assert " open>" in response.text and store.history(db, group_id).total == 0
        return
    assert response.status_code == 302, response.text
    play_id = int(response.headers["Location"].rsplit("/", 2)[1])
    assert [(r.name, r.rank) for r in store.play_results(db, play_id)] == expected
    result = client.get(f"/plays/{play_id}/result")
    assert result.status_code == 200 and ("Tie-breaks" in result.text) == (expected[0][1] != expected[1][1])


@pytest.mark.parametrize(("change", "message"), [
    ({"ended_on": ""}, "Give the day it was played."),
    ({"ended_on": "2024-02-30"}, "Use a date like 2024-05-31."),
    ({"ended_on": "2999-01-01"}, "That day has not come yet."),
    ({"ended_at": "25:00"}, "Use a time like 21:30."),
    ({"minutes": "-5"}, "Number must be between 0 and 10080."),
    ({"points-1-0": ""}, "Enter the points for Points without breakdown."),
    ({"player-0": "0", "player-1": "0"}, "This game is played by 1 to 4 players."),
    ({"player-1": "1"}, "Each player can take only one seat."),
    ({"player-1": "999"}, "Not a valid choice."),
])
def test_a_bad_past_play_is_refused_and_nothing_stored(client, db, group, change, message):
    group_id, ids = group
    data = {"ended_on": "2024-03-02", **seats(ids, "Anna", "Ben", width=4), "points-0-0": "5",
            "points-1-0": "6", **change}
    response = client.post(f"/groups/{group_id}/plays/past/great-western-trail", data=data)
    assert response.status_code == 400 and message in response.text.replace("&#39;", "'")
    assert store.history(db, group_id).total == 0


GWT = ("great-western-trail", "?rows=1")  # by the scoring pad's rows: money … disc, job-market token
GOLD_WEST = ("gold-west", "?rows=1")  # track, largest group, BoomTown offices, Wanted, influence
GWT_ROWS = (1, 2, 3, 4, 5, 6, 7, 0, 4, 0, 0)


@pytest.mark.parametrize(("game", "points", "message"), [
    # what the game's rules refuse, as a correction of the play would
    (GWT, [(*GWT_ROWS[:9], 3, 2), (*GWT_ROWS[:9], 0, 2)],
     "Only one player holds the job-market token, not Anna and Ben."),
    (GWT, [(*GWT_ROWS[:9], 5, 0), GWT_ROWS], "Anna: the 3-VP disc scores 3 or nothing, not 5."),
    (GOLD_WEST, [(40, 6, -5, 0, 10), (38, 6, 9, 0, 4)],
     "Anna: the row “BoomTown offices” cannot be below 0."),
    (GOLD_WEST, [(40, 6, 5, 0, 10), (30, 6, 9, 4, 4)],
     "Ben: the row “Wanted” is a penalty and cannot be above 0."),
    # tied without tie-breakers: asked for them on this form, not told to reopen the play
    (GOLD_WEST, [(40, 6, 5, 0, 10), (40, 6, 5, 0, 10)], "Enter them for Anna and Ben."),
    # no more than a correction of it may hold: a row of one of the three, a total typed
    (GWT, [(1000, *GWT_ROWS[1:]), GWT_ROWS], "Number must be between -999 and 999."),
    (("gold-west", ""), [(-1000,), (5,)], "Number must be between -999 and 9999."),
], ids=["token-held-twice", "disc-worth-5", "offices-below-0", "wanted-above-0", "tie", "row-over-999",
        "total-below-999"])
def test_a_past_play_is_refused_with_points_a_correction_of_it_would_refuse(client, db, group, game, points,
                                                                           message):
    group_id, ids = group
    data = {"ended_on": "2024-03-02", **seats(ids, "Anna", "Ben", width=4)}
    for seat, values in enumerate(points):
        data.update({f"points-{seat}-{n}": str(v) for n, v in enumerate(values)})
    response = client.post(f"/groups/{group_id}/plays/past/{game[0]}{game[1]}", data=data)
    assert response.status_code == 400 and message in html.unescape(response.text)
    assert store.history(db, group_id).total == 0


def test_another_groups_game_cannot_be_logged(client, group):
    group_id, _ = group
    other = create_group(client, "Other")
    game_id = add_game(client, other, name="Azul")
    assert client.get(f"/groups/{group_id}/plays/past/custom-{game_id}").status_code == 404
    assert client.get(f"/groups/{group_id}/plays/past/chess").status_code == 404


@pytest.mark.parametrize(("zone", "ended_at", "stored", "label"), [
    # no time given: 21:00 on that day on the group's clocks
    ("Asia/Tokyo", "", "2024-03-02T12:00:00+00:00", "Finished at (Asia/Tokyo time, optional)"),
    ("Europe/Berlin", "", "2024-03-02T20:00:00+00:00", "Finished at (Europe/Berlin time, optional)"),
    ("Europe/Berlin", "23:50", "2024-03-02T22:50:00+00:00", "Finished at (Europe/Berlin time, optional)"),
    ("America/Los_Angeles", "00:30", "2024-03-02T08:30:00+00:00",
     "Finished at (America/Los_Angeles time, optional)"),
])
def test_a_past_play_is_kept_on_the_day_and_time_of_the_groups_clocks(client, db, group, zone, ended_at,
                                                                       stored, label):
    group_id, ids = group
    store.save_group_settings(db, group_id, store.GroupSettings(zone, "", {}))
    page = client.get(f"/groups/{group_id}/plays/past/great-western-trail")
    assert label in page.text and "UTC" not in page.text
    response = client.post(f"/groups/{group_id}/plays/past/great-western-trail", data={
        "ended_on": "2024-03-02", "ended_at": ended_at, **seats(ids, "Ben", "Anna", width=4),
        "points-0-0": "88", "points-1-0": "91"})
    assert response.status_code == 302, response.text
    play = store.get_play(db, int(response.headers["Location"].rsplit("/", 2)[1]))
    assert play.ended_at == stored
    # the exports show the day it was played
    assert 'date="2024-03-02"' in client.get(f"/groups/{group_id}/export/bgg-plays.xml").text
    assert ",2024-03-02 " in client.get(f"/groups/{group_id}/export/plays.csv").text


def preselected(page: str) -> list[str]:
    """The player each seat of the past-play form starts with ("— nobody —" for an empty seat)."""
    selects = re.findall(r'<select[^>]*name="player-\d".*?</select>', page, re.S)
    return [html.unescape(re.search(r"<option selected[^>]*>([^<]*)</option>", select).group(1))
            for select in selects]


def test_a_past_play_starts_with_the_players_asked_for_or_last_time(client, db, group):
    group_id, ids = group
    add_players(client, group_id, ("Dan", "yellow"))
    url = f"/groups/{group_id}/plays/past/great-western-trail"
    nobody = "— nobody —"
    assert preselected(client.get(url).text) == ["Anna", "Ben", "Cara", "Dan"]
    # three played: one tap on "3" leaves the fourth seat empty, and three totals keep the play
    page = client.get(url).text
    assert f'href="{url}?players=3"' in page
    three = client.get(f"{url}?players=3").text
    assert preselected(three) == ["Anna", "Ben", "Cara", nobody]
    response = client.post(url, data={"ended_on": "2024-03-02", "ended_at": "22:15",
                                      **seats(ids, "Anna", "Ben", "Cara", width=4),
                                      "points-0-0": "70", "points-1-0": "81", "points-2-0": "64"})
    assert response.status_code == 302, response.text
    assert [s.name for s in store.list_plays(db, group_id, "finished")[0].seats] == ["Anna", "Ben", "Cara"]
    # the next past play of the game starts with the same three
    assert preselected(client.get(url).text) == ["Anna", "Ben", "Cara", nobody]
    assert preselected(client.get(f"{url}?players=2").text) == ["Anna", "Ben", nobody, nobody]
    assert preselected(client.get(f"{url}?players=9").text) == ["Anna", "Ben", "Cara", "Dan"]
