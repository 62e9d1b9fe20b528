"""Any other game through the pages: define its sheet, play it, finish, correct, history and exports."""

from __future__ import annotations

import html
import io
import json
import re
import urllib.parse

import pytest

from companion import store
from companion.games import custom
from tests.conftest import add_players, create_group, form_values, start_play


def sheet_form(name="7 Wonders", rows=(), **fields):
    """The answers of the game form: rows as (name, negative, tie_breaker)."""
    data = {"name": name, "min_players": "2", "max_players": "7", **fields}
    for n, (row, negative, breaks_ties) in enumerate(rows):
        data[f"rows-{n}-name"] = row
        if negative:
            data[f"rows-{n}-negative"] = "y"
        if breaks_ties:
            data[f"rows-{n}-tie_breaker"] = "y"
    return data


WONDERS_ROWS = (("Military", True, False), ("Coins", False, True), ("Science", False, False))


def add_game(client, group_id, **form) -> int:
    """Add a game through its form; returns its id."""
    response = client.post(f"/groups/{group_id}/games/new", data=sheet_form(**form))
    assert response.status_code == 302, response.text
    page = client.get(f"/groups/{group_id}").text
    name = form.get("name", "7 Wonders")
    return int(re.search(rf'/plays/new/custom-(\d+)">{re.escape(name)}<', page).group(1))


@pytest.fixture
def table(client, db):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"), ("Cara", "green"))
    ids = {p.name: p.id for p in store.list_players(db, group_id)}
    return group_id, ids


def version_of(page_text: str) -> str:
    return re.search(r'name="version" type="hidden" value="(\d+)"', page_text).group(1)


def finished_with_ones(client, db, table) -> tuple[int, str, dict[str, str]]:
    """A play of a game with rows, finished with 1 point in each: its id, its correction page, 1s to send."""
    group_id, ids = table
    game_id = add_game(client, group_id, rows=WONDERS_ROWS)
    play_id = start_play(client, group_id, f"custom-{game_id}", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
    tally = client.get(f"/plays/{play_id}/sheet").text
    points = {f"points-{seat}-{row}": "1" for seat in range(2) for row in range(3)}
    finished = client.post(f"/plays/{play_id}/sheet", data={"version": version_of(tally), **points})
    assert finished.status_code == 302
    correct = client.get(f"/plays/{play_id}/correct").text
    ones = {f"seat{seat}-{row}": "1" for seat in range(2) for row in ("Military", "Coins", "Science")}
    return play_id, correct, ones


def test_a_correction_the_sheet_refuses_is_shown_on_the_form_and_stores_nothing(client, db, table):
    play_id, correct, fields = finished_with_ones(client, db, table)
    before = store.play_results(db, play_id)
    # the form takes -5 in any row; the sheet has coins never below 0
    refused = client.post(f"/plays/{play_id}/correct",
                          data={"version": version_of(correct), **fields, "seat0-Coins": "-5"})
    assert refused.status_code == 400
    assert "Anna's Coins must be a whole number from 0 to 9999." in html.unescape(refused.text)
    assert 'value="-5"' in refused.text
    assert store.play_results(db, play_id) == before


def test_a_correction_from_a_stale_page_neither_undoes_the_other_phones_nor_loses_its_own(client, db, table):
    """Sent from a page drawn before another phone's correction, a correction is refused as stale (409)
    before the sheet's rules judge it; the boxes left as drawn come back with the other phone's numbers."""
    play_id, correct, _ = finished_with_ones(client, db, table)
    drawn = form_values(correct)
    assert client.post(f"/plays/{play_id}/correct", data={**drawn, "seat1-Coins": "7"}).status_code == 302
    refused = client.post(f"/plays/{play_id}/correct", data={**drawn, "seat0-Coins": "-5"})
    assert refused.status_code == 409
    again = form_values(refused.text)
    assert (again["seat0-Coins"], again["seat1-Coins"]) == ("-5", "7")
    assert "Another phone changed this (it was 1)." in refused.text
    assert client.post(f"/plays/{play_id}/correct", data=again).status_code == 400  # now the sheet's rules
    assert client.post(f"/plays/{play_id}/correct", data={**again, "seat0-Coins": "2"}).status_code == 302
    assert [r.total for r in sorted(store.play_results(db, play_id), key=lambda r: r.seat)] == [4, 9]


@pytest.mark.parametrize(("typed", "sent_again", "note"), [
    pytest.param(None, "17", "Another phone changed this (it was 12).", id="left-as-drawn"),
    pytest.param("20", "20", "Another phone changed this to 17; what you typed is kept: check it.",
                 id="typed-over"),
])
def test_a_stale_tally_of_totals_comes_back_with_the_points_another_phone_entered(client, db, table, typed,
                                                                                 sent_again, note):
    """A sheet of totals starts from the running scores. Refused as stale because another phone entered
    points meanwhile, its boxes left as drawn take the running scores now, and a box typed in stays."""
    group_id, ids = table
    skat = add_game(client, group_id, name="Skat")
    play_id = start_play(client, group_id, f"custom-{skat}", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
    for seat, points in ((0, 12), (1, 14)):
        client.post(f"/plays/{play_id}/adjust", data={"seat": str(seat), "points": str(points)})
    drawn = form_values(client.get(f"/plays/{play_id}/sheet").text)
    assert (drawn["points-0-0"], drawn["points-1-0"]) == ("12", "14")
    client.post(f"/plays/{play_id}/adjust", data={"seat": "0", "points": "5"})  # as from another phone

    sent = {**drawn, "points-0-0": typed} if typed else drawn
    refused = client.post(f"/plays/{play_id}/sheet", data=sent)
    assert refused.status_code == 409 and "Another phone changed this play" in refused.text
    again = form_values(refused.text)
    assert (again["points-0-0"], again["points-1-0"]) == (sent_again, "14")
    assert note in html.unescape(refused.text)
    assert client.post(f"/plays/{play_id}/sheet", data=again).status_code == 302
    assert [r.total for r in sorted(store.play_results(db, play_id), key=lambda r: r.seat)] == [
        int(sent_again), 14]


def test_a_game_with_rows_is_played_finished_corrected_and_kept(client, db, table):
    group_id, ids = table
    game_id = add_game(client, group_id, rows=WONDERS_ROWS, bgg_id="173346")
    slug = f"custom-{game_id}"
    group_page = client.get(f"/groups/{group_id}").text
    assert "7 Wonders" in group_page and f"/plays/new/{slug}" in group_page

    play_id = start_play(client, group_id, slug, [(ids["Anna"], "red"), (ids["Ben"], "blue"),
                                                   (ids["Cara"], "green")])
    play = store.get_play(db, play_id)
    assert play.game == slug and type(play.options["sheet"]) is int
    play_page = client.get(f"/plays/{play_id}")
    assert play_page.status_code == 200 and "7 Wonders" in play_page.text
    assert f"/plays/{play_id}/sheet" in play_page.text
    # the generic totals page hands over to the game's own sheet
    assert client.get(f"/plays/{play_id}/finish").headers["Location"].endswith(f"/plays/{play_id}/sheet")

    tally = client.get(f"/plays/{play_id}/sheet")
    assert tally.status_code == 200 and "Military" in tally.text and "Coins decides" in tally.text
    data = {"version": version_of(tally.text)}
    for seat, points in enumerate([(-2, 5, 10), (6, 3, 4), (0, 1, 2)]):
        for row, value in enumerate(points):
            data[f"points-{seat}-{row}"] = str(value)
    refused = client.post(f"/plays/{play_id}/sheet", data={**data, "points-1-1": "-1"})
    assert refused.status_code == 400 and "Number must be between 0 and 9999." in refused.text
    assert store.get_play(db, play_id).status == "active"
    response = client.post(f"/plays/{play_id}/sheet", data=data)
    assert response.status_code == 302 and response.headers["Location"].endswith(f"/plays/{play_id}/result")
    results = {r.name: (r.total, r.rank, dict(r.breakdown)) for r in store.play_results(db, play_id)}
    assert results == {"Anna": (13, 1, {"Military": -2, "Coins": 5, "Science": 10}),
                       "Ben": (13, 2, {"Military": 6, "Coins": 3, "Science": 4}),
                       "Cara": (3, 3, {"Military": 0, "Coins": 1, "Science": 2})}
    result_page = client.get(f"/plays/{play_id}/result").text
    assert "Anna wins!" in result_page and "Science" in result_page

    # editing the sheet makes a new version; the play keeps the rows it was scored with
    response = client.post(f"/groups/{group_id}/games/{game_id}",
                           data=sheet_form(rows=(("Military", True, False), ("Coins", False, False),
                                                 ("Guilds", False, False)), bgg_id="173346"))
    assert response.status_code == 302
    correct = client.get(f"/plays/{play_id}/correct")
    assert "Science" in correct.text and "Guilds" not in correct.text
    corrected = [(-2, 5, 10), (6, 6, 4), (0, 1, 2)]
    fields = {f"seat{seat}-{row}": str(value) for seat, points in enumerate(corrected)
              for row, value in zip(("Military", "Coins", "Science"), points, strict=True)}
    response = client.post(f"/plays/{play_id}/correct", data={"version": version_of(correct.text), **fields})
    assert response.status_code == 302
    results = {r.name: (r.total, r.rank) for r in store.play_results(db, play_id)}
    assert results == {"Anna": (13, 2), "Ben": (16, 1), "Cara": (3, 3)}

    # history, its filter, statistics and exports name the game
    assert "7 Wonders" in client.get(f"/groups/{group_id}/history").text
    filtered = client.get(f"/groups/{group_id}/history", query_string={"game": slug})
    assert filtered.status_code == 200 and f"/plays/{play_id}/record" in filtered.text
    stats = client.get(f"/groups/{group_id}/statistics", query_string={"game": slug})
    assert stats.status_code == 200 and "7 Wonders" in stats.text and "Science" in stats.text
    csv_text = client.get(f"/groups/{group_id}/export/plays.csv").text
    assert "7 Wonders" in csv_text and "Science" in csv_text
    xml = client.get(f"/groups/{group_id}/export/bgg-plays.xml").text
    assert '<item name="7 Wonders" objecttype="thing" objectid="173346"' in xml


def test_lowest_wins_cooperative_and_teams_through_the_sheet(client, db, table):
    group_id, ids = table
    seats = [(ids["Anna"], "red"), (ids["Ben"], "blue"), (ids["Cara"], "green")]
    golf = add_game(client, group_id, name="Golf", lowest_wins="y")
    play_id = start_play(client, group_id, f"custom-{golf}", seats)
    client.post(f"/plays/{play_id}/adjust", data={"seat": "2", "points": "-4", "note": ""})
    tally = client.get(f"/plays/{play_id}/sheet").text
    assert 'name="points-2-0" type="text" value="-4"' in tally or 'value="-4"' in tally
    client.post(f"/plays/{play_id}/sheet", data={"version": version_of(tally), "points-0-0": "30",
                                                 "points-1-0": "12", "points-2-0": "-4"})
    assert [(r.name, r.rank) for r in store.play_results(db, play_id)] == [
        ("Cara", 1), ("Ben", 2), ("Anna", 3)]

    pandemic = add_game(client, group_id, name="Pandemic", cooperative="y")
    play_id = start_play(client, group_id, f"custom-{pandemic}", seats)
    tally = client.get(f"/plays/{play_id}/sheet").text
    base = {"version": version_of(tally), "points-0-0": "0", "points-1-0": "0", "points-2-0": "0"}
    missing = client.post(f"/plays/{play_id}/sheet", data=base)
    assert missing.status_code == 400 and "Say whether the table won or lost." in missing.text
    client.post(f"/plays/{play_id}/sheet", data={**base, "won": "no"})
    assert {r.rank for r in store.play_results(db, play_id)} == {2}
    assert "Everyone lost together" in client.get(f"/plays/{play_id}/result").text

    spades = add_game(client, group_id, name="Spades", teams="y")
    play_id = start_play(client, group_id, f"custom-{spades}", seats)
    tally = client.get(f"/plays/{play_id}/sheet").text
    assert "Team of Anna" in tally
    client.post(f"/plays/{play_id}/sheet", data={
        "version": version_of(tally), "points-0-0": "10", "points-1-0": "30", "points-2-0": "25",
        "team-0": "A", "team-1": "B", "team-2": "A"})
    assert {r.name: r.rank for r in store.play_results(db, play_id)} == {"Anna": 1, "Cara": 1, "Ben": 2}
    assert store.final_payload(db, play_id)["teams"] == ["A", "B", "A"]


def row_cells(page: str, name: str) -> list[str]:
    """The cells of the first table row headed by ``name``, as text."""
    for head, row in re.findall(r'<tr><th scope="row">(.*?)</th>(.*?)</tr>', page, re.S):
        if re.sub(r"<[^>]+>", "", head).strip() == name:
            cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
            return [re.sub(r"<[^>]+>|\s+", " ", cell).strip() for cell in cells]
    raise AssertionError(f"no row of {name}")


def test_where_the_lowest_total_wins_the_statistics_call_the_lowest_score_best(client, db, table):
    group_id, ids = table
    golf = add_game(client, group_id, name="Golf", lowest_wins="y")
    for anna, ben in ((30, 41), (28, 35), (44, 33)):
        play_id = start_play(client, group_id, f"custom-{golf}", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
        tally = client.get(f"/plays/{play_id}/sheet").text
        client.post(f"/plays/{play_id}/sheet", data={"version": version_of(tally), "points-0-0": str(anna),
                                                     "points-1-0": str(ben)})
    golf_stats = client.get(f"/groups/{group_id}/statistics", query_string={"game": f"custom-{golf}"}).text
    # plays, wins, win rate, average, best, worst
    assert row_cells(golf_stats, "Anna")[:6] == ["3", "2", "67 %", "34", "28", "44"]
    assert row_cells(golf_stats, "Ben")[:6] == ["3", "1", "33 %", "36.3", "33", "41"]
    every_game = client.get(f"/groups/{group_id}/statistics").text
    assert row_cells(every_game, "Golf")[2:4] == ["28 (Anna)", "44"]
    anna_page = client.get(f"/groups/{group_id}/players/{ids['Anna']}/statistics").text
    assert row_cells(anna_page, "Golf")[4] == "28"


def test_best_and_worst_of_all_games_compare_scores_won_one_way(client, db, table):
    """Golf and Hearts are won by the lowest total, Azul by the highest: a player's best of all games is
    never a worse score than the worst."""
    group_id, ids = table
    golf, hearts = (add_game(client, group_id, name=name, lowest_wins="y") for name in ("Golf", "Hearts"))
    azul = add_game(client, group_id, name="Azul")
    for game, anna, ben in ((golf, 28, 30), (golf, 44, 33), (hearts, 5, 20), (hearts, 20, 12)):
        play_id = start_play(client, group_id, f"custom-{game}", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
        tally = client.get(f"/plays/{play_id}/sheet").text
        client.post(f"/plays/{play_id}/sheet", data={"version": version_of(tally), "points-0-0": str(anna),
                                                     "points-1-0": str(ben)})
    every_game = client.get(f"/groups/{group_id}/statistics").text
    assert row_cells(every_game, "Anna")[4:6] == ["5", "44"]
    assert "Best and worst leave out" not in every_game  # all the games are won one way
    play_id = start_play(client, group_id, f"custom-{azul}", [(ids["Ben"], "blue"), (ids["Cara"], "green")])
    tally = client.get(f"/plays/{play_id}/sheet").text
    client.post(f"/plays/{play_id}/sheet", data={"version": version_of(tally), "points-0-0": "61",
                                                 "points-1-0": "70"})
    every_game = client.get(f"/groups/{group_id}/statistics").text
    assert row_cells(every_game, "Anna")[4:6] == ["5", "44"]
    assert row_cells(every_game, "Ben")[4:6] == ["61", "61"]
    assert "Best and worst leave out the games won by the lowest total" in every_game


def bg_stats_data(client, play_id) -> dict:
    """What the play record's "Send to BG Stats" link hands BG Stats."""
    record = client.get(f"/plays/{play_id}/record").text
    link = html.unescape(re.search(r'href="(https://app\.bgstatsapp\.com/createPlay\.html\?data=[^"]+)"',
                                   record).group(1))
    return json.loads(urllib.parse.unquote(link.split("data=", 1)[1]))


def test_a_play_is_sent_to_bg_stats_as_it_was_scored_after_the_sheet_changed(client, db, table):
    group_id, ids = table
    pandemic = add_game(client, group_id, name="Pandemic", cooperative="y")
    play_id = start_play(client, group_id, f"custom-{pandemic}", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
    tally = client.get(f"/plays/{play_id}/sheet").text
    client.post(f"/plays/{play_id}/sheet",
                data={"version": version_of(tally), "points-0-0": "0", "points-1-0": "0", "won": "no"})
    sent = bg_stats_data(client, play_id)
    made_competitive = client.post(f"/groups/{group_id}/games/{pandemic}", data=sheet_form(name="Pandemic"))
    assert made_competitive.status_code == 302
    assert bg_stats_data(client, play_id) == sent
    assert sent["game"]["cooperative"] is True
    assert [(p["name"], p["winner"]) for p in sent["players"]] == [("Anna", False), ("Ben", False)]


def test_which_way_a_game_is_won_stays_once_it_has_plays(client, db, table):
    """Best and worst scores read every play of a game one way: flipping "lowest wins" under kept plays
    would make a loser's score the best."""
    group_id, ids = table
    golf = add_game(client, group_id, name="Golf")
    assert client.post(f"/groups/{group_id}/games/{golf}",
                       data=sheet_form(name="Golf", lowest_wins="y")).status_code == 302  # no plays yet
    assert client.post(f"/groups/{group_id}/games/{golf}", data=sheet_form(name="Golf")).status_code == 302
    play_id = start_play(client, group_id, f"custom-{golf}", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
    tally = client.get(f"/plays/{play_id}/sheet").text
    client.post(f"/plays/{play_id}/sheet", data={"version": version_of(tally), "points-0-0": "30",
                                                 "points-1-0": "41"})
    versions = db.execute("SELECT COUNT(*) FROM group_game_versions").fetchone()[0]
    response = client.post(f"/groups/{group_id}/games/{golf}",
                           data=sheet_form(name="Golf", lowest_wins="y", max_players="4"))
    assert response.status_code == 400
    assert ("This game has plays won by the highest total, so that stays. For the other way round, add "
            "another game.") in html.unescape(response.text)
    assert db.execute("SELECT COUNT(*) FROM group_game_versions").fetchone()[0] == versions
    assert store.get_group_game(db, group_id, golf).sheet["max_players"] == 7
    stats = client.get(f"/groups/{group_id}/statistics", query_string={"game": f"custom-{golf}"}).text
    assert row_cells(stats, "Ben")[4:6] == ["41", "41"]


def test_a_groups_game_names_its_rows_itself_even_as_a_built_in_game_would(client, db, table):
    group_id, ids = table
    frisbee = add_game(client, group_id, name="Disc golf",
                       rows=(("disc", False, False), ("track", False, False), ("money", False, False)))
    play_id = start_play(client, group_id, f"custom-{frisbee}", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
    tally = client.get(f"/plays/{play_id}/sheet").text
    client.post(f"/plays/{play_id}/sheet", data={"version": version_of(tally), **{
        f"points-{seat}-{row}": "3" for seat in (0, 1) for row in (0, 1, 2)}})
    for url in (f"/plays/{play_id}/result", f"/plays/{play_id}/correct",
                f"/groups/{group_id}/statistics?game=custom-{frisbee}"):
        for language in ("en", "de"):
            page = html.unescape(client.get(url, headers={"Accept-Language": language}).text)
            assert "disc" in page and "track" in page and "money" in page, url
            assert not {"3-VP disc", "Score track", "Money", "3-SP-Scheibe", "Wertungsleiste", "Geld"} & set(
                re.findall(r">\s*([^<>]+?)\s*<", page)), url


def test_a_reopened_play_of_a_groups_game_brings_back_its_tally_as_entered(client, db, table):
    group_id, ids = table
    seats = [(ids["Anna"], "red"), (ids["Ben"], "blue")]
    crew = add_game(client, group_id, name="Crew", rows=(("Missions", False, False), ("Bonus", False, False)),
                    teams="y")
    play_id = start_play(client, group_id, f"custom-{crew}", seats)
    tally = client.get(f"/plays/{play_id}/sheet").text
    entered = {"points-0-0": "20", "points-0-1": "7", "points-1-0": "15", "points-1-1": "9",
               "team-0": "B", "team-1": "A"}
    first = client.post(f"/plays/{play_id}/sheet", data={"version": version_of(tally), **entered})
    assert first.status_code == 302
    undo = client.post(f"/plays/{play_id}/undo", data={"version": store.get_play(db, play_id).version})
    assert undo.status_code == 302
    again = client.get(f"/plays/{play_id}/sheet").text
    shown = dict(re.findall(r'<input[^>]*name="(points-[^"]+)"[^>]*value="([^"]*)"', again))
    teams = re.findall(r'<select[^>]*name="(team-\d)"[^>]*>(.*?)</select>', again, re.S)
    shown |= {name: re.search(r'<option selected value="([^"]*)"', select).group(1) for name, select in teams}
    assert shown == entered
    finished = client.post(f"/plays/{play_id}/sheet", data={"version": version_of(again), **entered})
    assert finished.status_code == 302
    assert [(r.name, r.total, r.rank) for r in store.play_results(db, play_id)] == [("Anna", 27, 1),
                                                                                   ("Ben", 24, 2)]


def test_a_cooperative_loss_lists_nobody_in_second_place_and_titles_are_clean(client, table):
    group_id, ids = table
    pandemic = add_game(client, group_id, name="Pandemic", cooperative="y")
    play_id = start_play(client, group_id, f"custom-{pandemic}", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
    tally = client.get(f"/plays/{play_id}/sheet").text
    client.post(f"/plays/{play_id}/sheet", data={"version": version_of(tally), "points-0-0": "0",
                                                 "points-1-0": "0", "won": "no"})
    for page in (f"/plays/{play_id}/result", f"/plays/{play_id}/record", f"/groups/{group_id}/history",
                 f"/groups/{group_id}"):
        text = html.unescape(client.get(page).text)
        assert "Everyone lost together" in text, page
        assert not re.search(r"\b2\.\s*<", text), page  # no "2." before a name
    result = client.get(f"/plays/{play_id}/result").text
    assert re.search(r"<title>(.*?)</title>", result, re.S).group(1) == "Result · Pandemic"  # no markup


def test_a_solo_cooperative_loss_is_corrected_and_the_correction_undone(client, db, table):
    group_id, ids = table
    solo = add_game(client, group_id, name="Solo", cooperative="y", min_players="1")
    play_id = start_play(client, group_id, f"custom-{solo}", [(ids["Anna"], "red")])
    tally = client.get(f"/plays/{play_id}/sheet").text
    client.post(f"/plays/{play_id}/sheet",
                data={"version": version_of(tally), "points-0-0": "7", "won": "no"})
    lost = [(r.total, r.rank) for r in store.play_results(db, play_id)]
    correct = client.get(f"/plays/{play_id}/correct").text
    response = client.post(f"/plays/{play_id}/correct",
                           data={"version": version_of(correct), "seat0-total": "9"})
    assert response.status_code == 302
    assert [(r.total, r.rank) for r in store.play_results(db, play_id)] == [(9, lost[0][1])]
    undone = client.post(f"/plays/{play_id}/correct/undo", data={"version": store.play_version(db, play_id)})
    assert undone.status_code == 302
    assert [(r.total, r.rank) for r in store.play_results(db, play_id)] == lost == [(7, 2)]


@pytest.mark.parametrize(("form", "message"), [
    (sheet_form(name=""), "Type the game's name."),
    (sheet_form(rows=(("Coins", False, False), ("coins", False, False))),
     "The sheet has two rows called coins."),
    (sheet_form(rows=(("Coins", False, True), ("Wonders", False, True))),
     "Tick at most one row that breaks ties."),
    (sheet_form(min_players="5", max_players="3"),
     "The fewest players must not be more than the most players."),
    (sheet_form(max_players="11"), "Number must be between 1 and 10."),
    (sheet_form(bgg_id="abc"), "Not a valid integer value."),
    (sheet_form(cooperative="y", teams="y"), "choose cooperative or teams"),
    (sheet_form(teams="y", min_players="1"), "A game of teams needs at least 2 players."),
    # rows numbered as no page numbers them: "²" is a digit to str.isdigit(), not to int()
    (sheet_form(**{"rows-²-name": "Coins"}), "Reload the page and try again."),
    (sheet_form(**{f"rows-{'1' * 5000}-name": "Coins"}), "Reload the page and try again."),
])
def test_a_bad_sheet_is_refused_and_nothing_stored(client, db, table, form, message):
    group_id, _ = table
    response = client.post(f"/groups/{group_id}/games/new", data=form)
    assert response.status_code == 400 and message in response.text
    assert store.list_group_games(db, group_id) == []


def test_a_team_game_kept_as_playable_by_one_starts_with_two_seats_at_least(client, db, table):
    """A sheet saved before a game of teams had to allow two players: a play of one could never finish."""
    group_id, ids = table
    game_id = store.add_group_game(db, group_id, "Spades", None,
                                   {"min_players": 1, "max_players": 4, "teams": True})
    url = f"/groups/{group_id}/plays/new/custom-{game_id}"
    assert 'name="seat_1-player"' in client.get(f"{url}?players=1").text
    alone = client.post(url, data={"seat_count": "1", "seat_0-player": str(ids["Anna"]),
                                   "seat_0-colour": "red"})
    assert alone.status_code == 400 and "Pick a player for every seat." in alone.text
    assert store.list_plays(db, group_id, "active") == []
    start_play(client, group_id, f"custom-{game_id}", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
    # a play of one started before then still goes round through the group's backup
    sheet = {custom.SHEET_OPTION: store.get_group_game(db, group_id, game_id).version_id}
    store.start_play(db, group_id, f"custom-{game_id}", [(ids["Anna"], "red")], sheet)
    data = client.get(f"/groups/{group_id}/export/backup.json").data
    imported = client.post("/groups/import", data={"backup": (io.BytesIO(data), "backup.json")},
                           content_type="multipart/form-data")
    assert imported.status_code == 302, imported.text


def test_names_are_unique_in_a_group_and_games_stay_in_their_group(app, client, db, table):
    group_id, _ = table
    game_id = add_game(client, group_id, name="Azul")
    again = client.post(f"/groups/{group_id}/games/new", data=sheet_form(name="azul"))
    assert again.status_code == 400 and "The group already has a game called Azul." in again.text
    other = create_group(client, "Other group")
    assert client.get(f"/groups/{other}/games/{game_id}").status_code == 404
    assert client.get(f"/groups/{other}/plays/new/custom-{game_id}").status_code == 404
    stranger = app.test_client()
    assert stranger.get(f"/groups/{group_id}/games/{game_id}").status_code == 404
    assert client.get(f"/groups/{group_id}/plays/new/custom-99").status_code == 404


@pytest.mark.parametrize(("first", "second"), [
    pytest.param("Azul", "AZUL", id="ascii-capitals"),
    pytest.param("Über Land", "über land", id="non-ascii-capital"),
    pytest.param("Élan", "élan", id="accented-capital"),
    pytest.param("Azul", "Azul\u200b", id="invisible-character"),
    pytest.param("Azul", "\uff21\uff5a\uff55\uff4c", id="full-width-letters"),
])
def test_a_game_name_the_group_has_written_otherwise_is_refused_for_a_new_and_a_renamed_game(
        client, db, first, second):
    """Game names are told apart as player names are (``names.name_key``), not by SQLite's ASCII-only NOCASE:
    otherwise the group's plays are split over two games of one name."""
    group_id = create_group(client)
    add_game(client, group_id, name=first)
    cascadia = add_game(client, group_id, name="Cascadia")
    added = client.post(f"/groups/{group_id}/games/new", data=sheet_form(name=second))
    renamed = client.post(f"/groups/{group_id}/games/{cascadia}", data=sheet_form(name=second))
    for refused in (added, renamed):
        assert refused.status_code == 400
        assert f"The group already has a game called {first}." in html.unescape(refused.text)
    assert [game.name for game in store.list_group_games(db, group_id)] == sorted([first, "Cascadia"])


def test_a_game_without_plays_can_be_removed_one_with_plays_stays(client, db, table):
    group_id, ids = table
    game_id = add_game(client, group_id, name="Azul")
    assert "Remove this game" in client.get(f"/groups/{group_id}/games/{game_id}").text
    start_play(client, group_id, f"custom-{game_id}", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
    assert "Remove this game" not in client.get(f"/groups/{group_id}/games/{game_id}").text
    response = client.post(f"/groups/{group_id}/games/{game_id}/delete")
    assert response.status_code == 302
    assert [g.name for g in store.list_group_games(db, group_id)] == ["Azul"]
    unplayed = add_game(client, group_id, name="Cascadia")
    client.post(f"/groups/{group_id}/games/{unplayed}/delete")
    assert [g.name for g in store.list_group_games(db, group_id)] == ["Azul"]


def import_backup(client, backup: bytes):
    return client.post("/groups/import", data={"backup": (io.BytesIO(backup), "backup.json")},
                       content_type="multipart/form-data")


def test_the_backup_keeps_the_games_their_sheets_and_plays(app, client, db, table):
    group_id, ids = table
    seats = [(ids["Anna"], "red"), (ids["Ben"], "blue")]
    game_id = add_game(client, group_id, rows=WONDERS_ROWS)
    old_play = start_play(client, group_id, f"custom-{game_id}", seats)
    tally = client.get(f"/plays/{old_play}/sheet").text
    client.post(f"/plays/{old_play}/sheet", data={"version": version_of(tally), "points-0-0": "-1",
                                                  "points-0-1": "4", "points-0-2": "3", "points-1-0": "2",
                                                  "points-1-1": "3", "points-1-2": "1"})
    # a sheet that changed its way of winning under kept plays, as one could before that was refused
    store.update_group_game(db, group_id, game_id, "7 Wonders", None,
                            {"rows": [{"name": "Guilds"}], "lowest_wins": True})
    new_play = start_play(client, group_id, f"custom-{game_id}", seats)
    tally = client.get(f"/plays/{new_play}/sheet").text
    client.post(f"/plays/{new_play}/sheet", data={"version": version_of(tally), "points-0-0": "8",
                                                  "points-1-0": "5"})
    backup = client.get(f"/groups/{group_id}/export/backup.json").data
    document = json.loads(backup)
    assert [g["name"] for g in document["games"]] == ["7 Wonders"]
    assert len(document["games"][0]["versions"]) == 2

    phone = app.test_client()
    response = import_backup(phone, backup)
    assert response.status_code == 302, response.text
    copy_id = int(response.headers["Location"].rsplit("/", 1)[1])
    copy = store.dump_group(db, copy_id)
    original = store.dump_group(db, group_id)
    # the same games, sheets and plays; only the ids the plays name them by are new
    assert [(g.name, [sheet for _, sheet in g.versions]) for g in copy.games] == \
        [(g.name, [sheet for _, sheet in g.versions]) for g in original.games]
    new_game = copy.games[0]
    assert [p.game for p in copy.plays] == [f"custom-{new_game.key}"] * 2 != [p.game for p in original.plays]
    assert [p.options["sheet"] for p in copy.plays] == [key for key, _ in new_game.versions]
    assert [p.results for p in copy.plays] == [p.results for p in original.plays]
    # the old play keeps its rows and the sheet's rules of its time: highest won then, lowest wins now
    newer, older = (entry.play_id for entry in store.history(db, copy_id).entries)
    record = phone.get(f"/plays/{older}/record").text
    assert "Science" in record and "Guilds" not in record
    # equal totals, Coins break the tie
    assert {r.name: r.rank for r in store.play_results(db, older)} == {"Anna": 1, "Ben": 2}
    assert {r.name: r.rank for r in store.play_results(db, newer)} == {"Anna": 2, "Ben": 1}
    stats = phone.get(f"/groups/{copy_id}/statistics", query_string={"game": f"custom-{new_game.key}"})
    assert stats.status_code == 200 and "7 Wonders" in stats.text


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.pop("games"), "a game the backup does not describe"),
    (lambda d: d["plays"][0]["options"].update(sheet=999),
     "names a score sheet that 7 Wonders does not have"),
    (lambda d: d["games"][0]["versions"][0]["sheet"].update(max_players=99),
     "The score sheet at games[0].versions[0] is damaged"),
    (lambda d: d["plays"][0]["results"][0]["breakdown"].update(Coins=-1, Military=3),
     "does not fit its score sheet: Anna's Coins must be a whole number from 0 to 9999."),
    # the game's form takes BoardGameGeek ids up to 10^8
    (lambda d: d["games"][0].update(bgg_id=10 ** 8 + 1), "games[0].bgg_id"),
])
def test_a_damaged_game_in_a_backup_is_refused_and_nothing_stored(client, db, table, change, message):
    group_id, ids = table
    game_id = add_game(client, group_id, rows=WONDERS_ROWS)
    play_id = start_play(client, group_id, f"custom-{game_id}", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
    tally = client.get(f"/plays/{play_id}/sheet").text
    client.post(f"/plays/{play_id}/sheet", data={"version": version_of(tally), **{
        f"points-{seat}-{row}": "1" for seat in range(2) for row in range(3)}})
    document = json.loads(client.get(f"/groups/{group_id}/export/backup.json").data)
    change(document)
    groups_before = db.execute("SELECT COUNT(*) FROM groups").fetchone()[0]
    response = import_backup(client, json.dumps(document).encode())
    assert response.status_code == 400 and message in html.unescape(response.text)
    assert db.execute("SELECT COUNT(*) FROM groups").fetchone()[0] == groups_before


def test_a_sheet_says_most_of_a_row_breaks_ties_in_a_lowest_wins_game(app, client, db, table):
    group_id, ids = table
    hearts = add_game(client, group_id, name="Hearts", lowest_wins="y", tie_breaker_wins="most",
                      rows=(("Penalty", False, False), ("Cards", False, True)))
    edit = client.get(f"/groups/{group_id}/games/{hearts}").text
    assert re.search(r'<option selected value="most">|<option value="most" selected>', edit)
    play_id = start_play(client, group_id, f"custom-{hearts}", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
    tally = client.get(f"/plays/{play_id}/sheet").text
    assert "Equal totals: Cards decides, most wins." in tally
    client.post(f"/plays/{play_id}/sheet", data={"version": version_of(tally), "points-0-0": "5",
                                                 "points-0-1": "3", "points-1-0": "6", "points-1-1": "2"})
    assert [(r.name, r.total, r.rank) for r in store.play_results(db, play_id)] == [("Anna", 8, 1),
                                                                                ("Ben", 8, 2)]
    backup = client.get(f"/groups/{group_id}/export/backup.json").data
    assert json.loads(backup)["games"][0]["versions"][-1]["sheet"]["tie_breaker_wins"] == "most"
    response = import_backup(app.test_client(), backup)
    assert response.status_code == 302, response.text
    copy = store.dump_group(db, int(response.headers["Location"].rsplit("/", 1)[1]))
    assert [p.results for p in copy.plays] == [p.results for p in store.dump_group(db, group_id).plays]


@pytest.mark.parametrize(("form", "message"), [
    (sheet_form(name="Game \x01 one"), "A name cannot contain U+0001"),
    (sheet_form(name="Azul \u202e luzA"), "A name cannot contain U+202E"),
    (sheet_form(name="\u200b\u200b"), "A name needs at least one visible character."),
    (sheet_form(name="x" * 61), "A name has 1–60 characters after trimming spaces; this one has 61."),
    (sheet_form(rows=(("Coins \x07", False, False),)), "A name cannot contain U+0007"),
    (sheet_form(rows=(("\u202eCoins", False, False),)), "A name cannot contain U+202E"),
    (sheet_form(rows=(("\u200b", False, False),)), "A name needs at least one visible character."),
    (sheet_form(rows=tuple((f"Row {n}", False, False) for n in range(21))),
     "A score sheet has at most 20 rows; this one has 21."),
    (sheet_form(rows=tuple((f"Row {n}", False, False) for n in range(10_000))),
     "A score sheet has at most 20 rows; this one has 10000."),
])
def test_game_and_row_names_follow_the_rules_of_names(client, db, table, form, message):
    """Every name, a game's and its rows' too, is refused by the one rule with its sentence; nothing is
    cut or dropped silently."""
    group_id, _ = table
    response = client.post(f"/groups/{group_id}/games/new", data=form)
    assert response.status_code == 400 and html.escape(message, quote=False) in response.text
    assert store.list_group_games(db, group_id) == []


def test_a_game_named_as_the_rules_allow_comes_back_from_its_backup(app, client, db, table):
    group_id, _ = table
    name = "  Café  👨‍👩‍👧 Night:   a long game name of fifty-plus chars "
    response = client.post(f"/groups/{group_id}/games/new", data=sheet_form(
        name=name, rows=(("Coins 👨‍👩‍👧", False, False), ("Militär", True, False))))
    assert response.status_code == 302, response.text
    kept = store.list_group_games(db, group_id)[0]
    assert kept.name == " ".join(name.split()) and 40 < len(kept.name) <= 60
    response = import_backup(app.test_client(), client.get(f"/groups/{group_id}/export/backup.json").data)
    assert response.status_code == 302, response.text
    copy = store.dump_group(db, int(response.headers["Location"].rsplit("/", 1)[1]))
    assert [(g.name, g.versions[0][1]["rows"]) for g in copy.games] == [
        (kept.name, [{"name": "Coins 👨‍👩‍👧", "negative": False}, {"name": "Militär", "negative": True}])]
