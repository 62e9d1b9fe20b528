"""The history pages: filters, a play's page, corrections and their undo, counting, statistics, privacy."""

from __future__ import annotations

import html
import json
import re

import pytest

from companion import store
from tests.conftest import add_players, create_group, errors_on, form_values, start_play
from tests.test_custom_games_web import add_game, finished_with_ones, version_of
from tests.test_i18n import GERMAN

GW_ROWS = ("track", "largest_group", "offices", "wanted", "influence")


def gw(track: int, wanted: int = 0) -> dict[str, int]:
    return {"track": track, "largest_group": 6, "offices": 4, "wanted": -wanted, "influence": 8}


def finish(db, group_id, game, seats, breakdowns, ranks, payload=None, day=None) -> int:
    """A finished play: ``seats`` as (player id, colour), results given; optionally on ``day`` of May 2024."""
    play_id = store.start_play(db, group_id, game, seats)
    store.finish_play(db, play_id, payload or {}, [
        store.ResultInput(seat, sum(b.values()), rank, b)
        for seat, (b, rank) in enumerate(zip(breakdowns, ranks, strict=True))])
    if day is not None:
        with store.write_transaction(db):
            db.execute("UPDATE plays SET ended_at = ? WHERE id = ?",
                       [f"2024-05-{day:02d}T21:30:00+00:00", play_id])
    return play_id


@pytest.fixture
def table(client, db):
    group_id = create_group(client, "Friday night")
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"), ("Cara", "green"))
    ids = {p.name: p.id for p in store.list_players(db, group_id)}
    return group_id, ids


@pytest.fixture
def evening(db, table):
    """Three plays on three days: Gold West (1 May), Mayflower (2 May), Gold West with Cara (3 May)."""
    group_id, ids = table
    a, b, c = ids["Anna"], ids["Ben"], ids["Cara"]
    tally = {"players": [{"wanted": 1, "supply_left": 0}, {"wanted": 0, "supply_left": 3}]}
    plays = {
        "gold": finish(db, group_id, "gold-west", [(a, "red"), (b, "blue")], [gw(30), gw(20)], [1, 2],
                       payload=tally, day=1),
        "mayflower": finish(db, group_id, "mayflower", [(b, "blue"), (c, "green")],
                            [{"total": 9}, {"total": 4}], [1, 2], day=2),
        "cara": finish(db, group_id, "gold-west", [(c, "green"), (a, "red")], [gw(12), gw(25)], [2, 1],
                       day=3),
    }
    return group_id, ids, plays


def listed_play_ids(page) -> list[int]:
    return [int(n) for n in re.findall(r'href="/plays/(\d+)/record"', page.text)]


# --- the list and its filter -----------------------------------------------------------------------

def test_history_lists_every_finished_play_newest_first(client, db, evening):
    group_id, ids, plays = evening
    active = store.start_play(db, group_id, "mayflower", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
    page = client.get(f"/groups/{group_id}/history")
    assert page.status_code == 200
    assert listed_play_ids(page) == [plays["cara"], plays["mayflower"], plays["gold"]]
    assert active not in listed_play_ids(page)
    assert "Plays 1–3 of 3, newest first." in page.text


@pytest.mark.parametrize(("query", "expected"), [
    ("game=gold-west", ["cara", "gold"]),
    ("game=mayflower", ["mayflower"]),
    ("player=Cara", ["cara", "mayflower"]),
    ("player=Anna&game=gold-west", ["cara", "gold"]),
    ("since=2024-05-02", ["cara", "mayflower"]),
    ("until=2024-05-02", ["mayflower", "gold"]),
    ("since=2024-05-02&until=2024-05-02", ["mayflower"]),
    ("since=2024-06-01", []),
    ("game=&player=&since=&until=", ["cara", "mayflower", "gold"]),
    ("since=%20%20&until=%20", ["cara", "mayflower", "gold"]),
], ids=["game", "other game", "player", "player and game", "since", "until", "one day", "none", "empty",
        "blank days"])
def test_history_filters(client, evening, query, expected):
    group_id, ids, plays = evening
    query = re.sub(r"player=(\w+)", lambda m: f"player={ids[m.group(1)]}", query)
    page = client.get(f"/groups/{group_id}/history?{query}")
    assert page.status_code == 200
    assert listed_play_ids(page) == [plays[name] for name in expected]
    if not expected:
        assert "No finished plays match." in page.text


@pytest.mark.parametrize(("query", "message"), [
    ("game=chess", "Pick one from the list."),
    ("player=99999", "Pick one from the list."),
    ("player=anna", "Pick one from the list."),
    ("since=2024-13-01", "Use a date like 2024-05-31."),
    ("until=yesterday", "Use a date like 2024-05-31."),
    ("since=2024-05-03&until=2024-05-01", "The last day is before the first day."),
    ("page=two", "Not a valid integer value."),
    ("page=0", "Number must be between 1 and 100000."),
    ("until=9999-12-31", "Give a day between the years 1900 and 9000."),
    ("since=0001-01-01", "Give a day between the years 1900 and 9000."),
], ids=["unknown game", "unknown player", "player not a number", "no such month", "no date", "reversed",
        "page not a number", "page zero", "the calendar's last day", "the calendar's first day"])
def test_bad_filter_values_are_a_clear_400(client, evening, query, message):
    group_id, _, _ = evening
    page = client.get(f"/groups/{group_id}/history?{query}")
    assert page.status_code == 400
    assert message in html.unescape(page.text)
    assert listed_play_ids(page) == []


def test_history_pages_through_many_plays(client, db, table):
    group_id, ids = table
    for n in range(store.HISTORY_PAGE_SIZE + 5):
        finish(db, group_id, "mayflower", [(ids["Anna"], "red"), (ids["Ben"], "blue")],
               [{"total": n}, {"total": 1}], [1 if n > 1 else 2, 2 if n > 1 else 1])
    first = client.get(f"/groups/{group_id}/history?game=mayflower")
    assert len(listed_play_ids(first)) == store.HISTORY_PAGE_SIZE and "Older plays" in first.text
    older = re.search(r'href="([^"]+)" rel="next"|rel="next" href="([^"]+)"', first.text)
    url = html.unescape(older.group(1) or older.group(2))
    assert "game=mayflower" in url and "page=2" in url
    second = client.get(url)
    assert len(listed_play_ids(second)) == 5
    assert "Newer plays" in second.text and "Older plays" not in second.text
    assert not set(listed_play_ids(first)) & set(listed_play_ids(second))


# --- a play's page, counting, deleting -----------------------------------------------------------

def test_a_plays_page_shows_its_breakdown_and_what_can_be_done(client, evening):
    _, _, plays = evening
    page = client.get(f"/plays/{plays['gold']}/record")
    assert page.status_code == 200
    assert "Score track" in page.text and "<b>48</b>" in page.text  # Anna: 30 + 6 + 4 + 0 + 8
    assert f"/plays/{plays['gold']}/result" in page.text and f"/plays/{plays['gold']}/delete" in page.text
    assert 'href="https://app.bgstatsapp.com/createPlay.html?data=' in page.text


def test_an_active_play_has_no_record_page_yet(client, db, table):
    group_id, ids = table
    play_id = store.start_play(db, group_id, "mayflower", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
    assert client.get(f"/plays/{play_id}/record").headers["Location"].endswith(f"/plays/{play_id}")


def test_leaving_a_play_out_of_the_statistics_and_back(client, db, evening):
    group_id, _, plays = evening
    response = client.post(f"/plays/{plays['mayflower']}/counted", data={"counted": "0"})
    assert response.status_code == 302
    assert response.headers["Location"].endswith(f"/plays/{plays['mayflower']}/record")
    assert store.play_counted(db, plays["mayflower"]) is False
    assert store.statistics(db, group_id).plays == 2
    assert "not counted" in client.get(f"/groups/{group_id}/history").text
    assert "Count in the statistics again" in client.get(f"/plays/{plays['mayflower']}/record").text
    client.post(f"/plays/{plays['mayflower']}/counted", data={"counted": "1"})
    assert store.play_counted(db, plays["mayflower"]) is True and store.statistics(db, group_id).plays == 3


def test_a_bad_counted_value_changes_nothing(client, db, evening):
    _, _, plays = evening
    response = client.post(f"/plays/{plays['gold']}/counted", data={"counted": "maybe"})
    assert response.status_code == 400 and "Reload the page and try again." in response.text
    assert store.play_counted(db, plays["gold"]) is True


def test_deleting_a_play_goes_through_the_confirmation(client, db, evening):
    group_id, _, plays = evening
    assert "Delete the play" in client.get(f"/plays/{plays['gold']}/delete").text
    assert client.post(f"/plays/{plays['gold']}/delete").status_code == 302
    assert plays["gold"] not in listed_play_ids(client.get(f"/groups/{group_id}/history"))


# --- correcting a tally ------------------------------------------------------------------------------

def correction_data(version: int, breakdowns: list[dict[str, int]]) -> dict[str, str]:
    data = {"version": str(version)}
    for seat, breakdown in enumerate(breakdowns):
        data.update({f"seat{seat}-{row}": str(points) for row, points in breakdown.items()})
    return data


def test_the_correction_form_starts_from_the_stored_breakdown(client, db, evening):
    _, _, plays = evening
    page = client.get(f"/plays/{plays['gold']}/correct")
    assert page.status_code == 200
    assert 'name="seat0-track"' in page.text and 'value="30"' in page.text
    assert 'name="seat1-influence"' in page.text
    assert f'name="version" type="hidden" value="{store.get_play(db, plays["gold"]).version}"' in page.text


def test_a_correction_recomputes_totals_and_ranks_and_is_logged(client, db, evening):
    _, _, plays = evening
    play = store.get_play(db, plays["gold"])
    response = client.post(f"/plays/{play.id}/correct",
                           data=correction_data(play.version, [gw(30), gw(33)]))
    assert response.status_code == 302 and response.headers["Location"].endswith(f"/plays/{play.id}/record")
    assert [(r.name, r.total, r.rank) for r in store.play_results(db, play.id)] == [
        ("Ben", 51, 1), ("Anna", 48, 2)]
    events = store.list_events(db, play.id)
    assert [e.kind for e in events] == ["final", "correction"]
    assert events[-1].payload["breakdowns"] == [gw(30), gw(33)]
    assert events[-1].payload["previous"][1] == {"seat": 1, "total": 38, "rank": 2, "breakdown": gw(20)}
    assert "Scores corrected on" in client.get(f"/plays/{play.id}/record").text


@pytest.mark.parametrize(("anna", "ben", "expected"), [
    # equal totals: fewer Wanted camps wins (Ben has 0, Anna 1, as the final tally recorded)
    ({"track": 30}, {"track": 30}, [("Ben", 48, 1), ("Anna", 48, 2)]),
    ({"track": 31}, {"track": 30}, [("Anna", 49, 1), ("Ben", 48, 2)]),
], ids=["tie broken by wanted camps", "no tie"])
def test_gold_west_corrections_keep_the_tie_breakers_of_the_final_tally(client, db, evening, anna, ben,
                                                                        expected):
    _, _, plays = evening
    play = store.get_play(db, plays["gold"])
    data = correction_data(play.version, [{**gw(0), **anna}, {**gw(0), **ben}])
    assert client.post(f"/plays/{play.id}/correct", data=data).status_code == 302
    assert [(r.name, r.total, r.rank) for r in store.play_results(db, play.id)] == expected


@pytest.mark.parametrize(("payload", "expected"), [
    # the final tally recorded resources left for both: they rank the new tie
    ({"players": [{"wanted": 0, "supply_left": 1}, {"wanted": 0, "supply_left": 2}]},
     [("Ben", 48, 1), ("Anna", 48, 2)]),
    # Anna's were never entered (no tie needed them then): 0 would rank her second unseen
    ({"players": [{"wanted": 0, "supply_left": None}, {"wanted": 0, "supply_left": 2}]},
     "Anna and Ben would be tied on 48 VP and on camps in the Wanted area (0 each): the resources left on "
     "the supply track decide, and the final tally has none for Anna. Reopen the play (undo the final "
     "tally) to enter them."),
    # imported from BG Stats, which keeps no tie-breakers: the winner it marks ranks the tie
    ({"totals": [48, 38], "winners": [0], "imported_from": "BG Stats"}, [("Anna", 48, 1), ("Ben", 48, 2)]),
    ({"totals": [48, 38], "imported_from": "BG Stats"},
     "Anna and Ben would be tied on 48 VP and on camps in the Wanted area (0 each): the resources left on "
     "the supply track decide, and the final tally has none for Anna and Ben. Reopen the play (undo the "
     "final tally) to enter them."),
], ids=["entered", "never entered", "imported with a winner", "imported without"])
def test_a_gold_west_correction_into_a_tie_needs_the_resources_left(client, db, table, payload, expected):
    group_id, ids = table
    play_id = finish(db, group_id, "gold-west", [(ids["Anna"], "red"), (ids["Ben"], "blue")],
                     [gw(30), gw(20)], [1, 2], payload=payload)
    play = store.get_play(db, play_id)
    response = client.post(f"/plays/{play_id}/correct", data=correction_data(play.version, [gw(30), gw(30)]))
    if isinstance(expected, str):
        assert response.status_code == 400 and expected in html.unescape(response.text)
        assert [(r.name, r.total, r.rank) for r in store.play_results(db, play_id)] == [
            ("Anna", 48, 1), ("Ben", 38, 2)]
        assert [e.kind for e in store.list_events(db, play_id)] == ["final"]
    else:
        assert response.status_code == 302
        assert [(r.name, r.total, r.rank) for r in store.play_results(db, play_id)] == expected


GWT_PAD = {"money": 4, "buildings": 10, "cities": -6, "stations": 5, "hazards": 6, "cattle": 20,
           "objectives": 7, "station_masters": 3, "workers": 8, "disc": 3, "job_market": 0}


@pytest.mark.parametrize(("ben", "language", "says"), [
    ({"job_market": 2}, "en", "Only one player holds the job-market token, not Anna and Ben."),
    ({"money": -1}, "en", "Ben: the row “Money” cannot be below 0."),
    ({"money": -1}, "de", "Ben: Die Zeile „Geld“ kann nicht unter 0 liegen."),
], ids=["a-second-token-holder", "negative-money", "negative-money-in-german"])
def test_a_great_western_trail_correction_no_cards_could_give_is_refused(client, db, table, ben, language,
                                                                        says):
    group_id, ids = table
    pads = [{**GWT_PAD, "job_market": 2}, GWT_PAD]
    play_id = finish(db, group_id, "great-western-trail", [(ids["Anna"], "red"), (ids["Ben"], "blue")],
                     pads, [1, 2])
    version = store.get_play(db, play_id).version
    response = client.post(f"/plays/{play_id}/correct", data=correction_data(version, [pads[0], {
        **GWT_PAD, **ben}]), headers={"Accept-Language": language})
    assert response.status_code == 400 and says in html.unescape(response.text)
    assert [e.kind for e in store.list_events(db, play_id)] == ["final"]
    # the token moved to Ben, as a correction may
    response = client.post(f"/plays/{play_id}/correct", data=correction_data(version, [GWT_PAD, pads[0]]))
    assert response.status_code == 302
    assert [(r.name, r.rank) for r in store.play_results(db, play_id)] == [("Ben", 1), ("Anna", 2)]


# Worked example 7 of the Gold West rules: Anna 63, Ben 65
GW_ANNA = {"track": 41, "largest_group": 10, "offices": 6, "wanted": -2, "influence": 8}
GW_BEN = {"track": 50, "largest_group": 8, "offices": 3, "wanted": 0, "influence": 4}


@pytest.mark.parametrize(("anna", "language", "says"), [
    ({"wanted": 2}, "en", "Anna: the row “Wanted” is a penalty and cannot be above 0."),
    ({"largest_group": 11}, "en",
     "Anna: the row “Largest group” scores 2 VP per building, 0 or more, not 11."),
    ({"influence": -8}, "en", "Anna: the row “Influence” cannot be below 0."),
    ({"offices": -6}, "de", "Anna: Die Zeile „BoomTown-Büros“ kann nicht unter 0 liegen."),
], ids=["a-wanted-bonus", "an-odd-largest-group", "negative-influence", "negative-offices-in-german"])
def test_a_gold_west_correction_no_end_scoring_could_give_is_refused(client, db, table, anna, language, says):
    group_id, ids = table
    play_id = finish(db, group_id, "gold-west", [(ids["Anna"], "red"), (ids["Ben"], "blue")],
                     [GW_ANNA, GW_BEN], [2, 1])
    version = store.get_play(db, play_id).version
    response = client.post(f"/plays/{play_id}/correct",
                           data=correction_data(version, [{**GW_ANNA, **anna}, GW_BEN]),
                           headers={"Accept-Language": language})
    assert response.status_code == 400 and says in html.unescape(response.text)
    assert [e.kind for e in store.list_events(db, play_id)] == ["final"]
    # a penalty of one camp less is a Wanted row some tally gives: stored, and Anna's track ahead wins
    response = client.post(f"/plays/{play_id}/correct", data=correction_data(version, [
        {**GW_ANNA, "track": 44, "wanted": -1}, GW_BEN]))
    assert response.status_code == 302
    assert [(r.name, r.total, r.rank) for r in store.play_results(db, play_id)] == [("Anna", 67, 1),
                                                                                     ("Ben", 65, 2)]


def test_a_tie_without_recorded_tie_breakers_is_shared(client, db, evening):
    _, _, plays = evening
    play = store.get_play(db, plays["cara"])  # finished without a Gold West tally payload
    assert client.post(f"/plays/{play.id}/correct", data=correction_data(play.version, [gw(20), gw(20)])
                       ).status_code == 302
    assert [r.rank for r in store.play_results(db, play.id)] == [1, 1]


@pytest.mark.parametrize(("field", "value", "message"), [
    ("seat0-track", "", "Enter Anna's points for Score track."),
    ("seat1-offices", "lots", "Not a valid integer value."),
    ("seat0-wanted", "-1000", "Number must be between -999 and 999."),
], ids=["empty", "not a number", "too far"])
def test_a_bad_correction_is_shown_next_to_the_field_and_stores_nothing(client, db, evening, field, value,
                                                                       message):
    _, _, plays = evening
    play = store.get_play(db, plays["gold"])
    data = {**correction_data(play.version, [gw(30), gw(20)]), field: value}
    response = client.post(f"/plays/{play.id}/correct", data=data)
    assert response.status_code == 400 and message in html.unescape(response.text)
    assert [e.kind for e in store.list_events(db, play.id)] == ["final"]


def finished_for_correction(client, db, table, kind: str) -> int:
    """A finished play of Anna (seat 0) and Ben whose tally is of ``kind``: its id."""
    group_id, ids = table
    seats = [(ids["Anna"], "red"), (ids["Ben"], "blue")]
    if kind == "own game's rows":
        return finished_with_ones(client, db, table)[0]
    if kind == "own game's totals":
        play_id = start_play(client, group_id, f"custom-{add_game(client, group_id, name='Canasta')}", seats)
        totals = {"version": version_of(client.get(f"/plays/{play_id}/sheet").text),
                  "points-0-0": "5120", "points-1-0": "3400"}
        assert client.post(f"/plays/{play_id}/sheet", data=totals).status_code == 302
        return play_id
    if kind == "typed totals":
        return finish(db, group_id, "mayflower", seats, [{"total": 900}, {"total": 400}], [1, 2])
    return finish(db, group_id, "gold-west", seats, [gw(30), gw(20)], [1, 2])


@pytest.mark.parametrize(("kind", "sent", "message"), [
    ("own game's totals", {"seat1-total": "3450"}, None),  # a sheet holds up to 9999 per row
    ("own game's totals", {"seat1-total": "-9999"}, None),
    ("own game's totals", {"seat1-total": "10000"}, "Number must be between -9999 and 9999."),
    ("own game's rows", {"seat0-Science": "5000"}, None),
    ("own game's rows", {"seat0-Science": "6000", "seat0-Military": "6000"},
     "Anna's total must be from -9999 to 9999."),  # the sheet's rules: the total holds no more
    ("own game's rows", {"seat0-Coins": "-5"}, "Anna's Coins must be a whole number from 0 to 9999."),
    ("typed totals", {"seat0-total": "5120"}, None),  # as the totals typed at the end of play allow
    ("typed totals", {"seat0-total": "10000"}, "Number must be between -999 and 9999."),
    ("typed totals", {"seat0-total": "-1000"}, "Number must be between -999 and 9999."),
    ("rows", {"seat0-track": "999"}, None),
    ("rows", {"seat0-track": "1000"}, "Number must be between -999 and 999."),  # as the final tally allows
], ids=["own-total-in-thousands", "own-total-lowest", "own-total-too-high", "own-row-in-thousands",
        "own-rows-total-too-high", "own-row-below-0", "typed-total-in-thousands", "typed-total-too-high",
        "typed-total-too-low", "row-highest", "row-too-high"])
def test_a_correction_takes_the_points_the_plays_tally_could_hold(client, db, table, kind, sent, message):
    play_id = finished_for_correction(client, db, table, kind)
    before = store.play_results(db, play_id)
    drawn = form_values(client.get(f"/plays/{play_id}/correct").text)
    response = client.post(f"/plays/{play_id}/correct", data={**drawn, **sent})
    if message is None:
        assert response.status_code == 302, errors_on(response.text)
        corrected = {f"seat{r.seat}-{row}": str(points) for r in store.play_results(db, play_id)
                     for row, points in r.breakdown.items()}
        assert corrected | sent == corrected
    else:
        assert response.status_code == 400 and message in html.unescape(response.text)
        assert store.play_results(db, play_id) == before


@pytest.mark.parametrize("version", ["abc", "-1", "9" * 4301])
@pytest.mark.parametrize("page", ["correct", "finish"])
def test_a_hand_made_form_with_a_broken_version_says_to_reload_the_page(client, db, evening, page, version):
    group_id, ids, plays = evening
    play_id = plays["gold"] if page == "correct" else store.start_play(
        db, group_id, "mayflower", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
    events = store.list_events(db, play_id)
    response = client.post(f"/plays/{play_id}/{page}", data={
        "version": version, "seat0-track": "33", "total_0": "3", "total_1": "4"})
    assert response.status_code == 400
    assert "Reload the page and try again." in errors_on(response.text)
    assert store.list_events(db, play_id) == events


def test_a_correction_from_a_stale_page_is_refused_and_keeps_what_was_typed(client, db, evening):
    _, _, plays = evening
    play = store.get_play(db, plays["gold"])
    client.post(f"/plays/{play.id}/counted", data={"counted": "1"})  # no version change
    client.post(f"/plays/{play.id}/correct", data=correction_data(play.version, [gw(31), gw(20)]))
    response = client.post(f"/plays/{play.id}/correct", data=correction_data(play.version, [gw(1), gw(20)]))
    assert response.status_code == 409
    assert "Another phone changed this play" in response.text
    assert [r.total for r in store.play_results(db, play.id)] == [49, 38]
    # the typed 1 is still on the form, which now carries the current version: sending it again works
    assert re.search(r'name="seat0-track"[^>]*value="1"', response.text)
    now = store.get_play(db, play.id).version
    assert f'name="version" type="hidden" value="{now}"' in response.text
    again = client.post(f"/plays/{play.id}/correct", data=correction_data(now, [gw(1), gw(20)]))
    assert again.status_code == 302


@pytest.mark.parametrize(("button", "data", "message"), [
    ("counted", {"counted": "0"}, "Another phone reopened this play, so the statistics were not changed."),
    ("correct/undo", {}, "Another phone reopened this play, so no correction was undone."),
], ids=["leave out of the statistics", "undo the last correction"])
def test_a_button_of_the_plays_page_sent_after_another_phone_reopened_it_is_refused_with_409(
        client, db, evening, button, data, message):
    """Not a redirect to the play: the phone's offline queue would count that as sent."""
    _, _, plays = evening
    play = store.get_play(db, plays["gold"])
    client.post(f"/plays/{play.id}/correct", data=correction_data(play.version, [gw(10), gw(20)]))
    drawn = store.get_play(db, play.id).version  # the play's page with "Undo the last correction"
    for _ in range(2):  # another phone undoes the correction, then the final tally
        client.post(f"/plays/{play.id}/undo", data={"version": str(store.get_play(db, play.id).version)})
    reopened = store.get_play(db, play.id)
    assert reopened.status == "active"
    response = client.post(f"/plays/{play.id}/{button}", data={"version": str(drawn), **data})
    assert response.status_code == 409 and message in html.unescape(response.text)
    assert store.get_play(db, play.id).version == reopened.version and store.play_counted(db, play.id)


def test_undoing_a_correction_restores_the_scores(client, db, evening):
    _, _, plays = evening
    play = store.get_play(db, plays["gold"])
    client.post(f"/plays/{play.id}/correct", data=correction_data(play.version, [gw(10), gw(20)]))
    corrected = store.get_play(db, play.id)
    assert "Undo the correction" in client.get(f"/plays/{play.id}/result").text
    response = client.post(f"/plays/{play.id}/correct/undo", data={"version": str(corrected.version)})
    assert response.status_code == 302
    assert [(r.name, r.total, r.rank) for r in store.play_results(db, play.id)] == [
        ("Anna", 48, 1), ("Ben", 38, 2)]
    assert [e.kind for e in store.list_events(db, play.id)] == ["final"]
    assert store.get_play(db, play.id).status == "finished"
    assert "Reopen the play" in client.get(f"/plays/{play.id}/result").text
    again = client.post(f"/plays/{play.id}/correct/undo",
                        data={"version": str(store.get_play(db, play.id).version)})
    assert again.status_code == 409 and "There is no correction to undo." in again.text
    assert store.get_play(db, play.id).status == "finished"


@pytest.mark.parametrize("payload", [
    {}, {"previous": "scores"}, {"previous": [{"seat": 0}]},
    {"previous": [{"seat": [0], "total": 1, "rank": 1, "breakdown": {}}, {"seat": 1, "total": 1, "rank": 1,
                                                                           "breakdown": {}}]},
    {"previous": [{"seat": 0, "total": 1, "rank": 1, "breakdown": {"track": "1"}},
                  {"seat": 1, "total": 1, "rank": 1, "breakdown": {}}]},
    {"previous": [{"seat": 0, "total": 1, "rank": 1, "breakdown": {}}] * 2},
], ids=["nothing", "not a list", "no scores", "a seat that is a list", "points as text", "one seat twice"])
def test_a_correction_that_does_not_say_what_it_replaced_cannot_be_undone(db, evening, payload):
    _, _, plays = evening
    with store.write_transaction(db):
        db.execute("INSERT INTO events (play_id, seq, kind, payload, created_at) "
                   "VALUES (?, 2, 'correction', ?, '2024-05-01T22:00:00+00:00')",
                   [plays["gold"], json.dumps(payload)])
    with pytest.raises(store.StoreError, match="Correct the scores again instead"):
        store.undo_last_event(db, plays["gold"])
    assert [e.kind for e in store.list_events(db, plays["gold"])] == ["final", "correction"]


# --- statistics --------------------------------------------------------------------------------------

def test_statistics_page_has_charts_with_text_alternatives_and_tables(client, evening):
    group_id, _, _ = evening
    page = client.get(f"/groups/{group_id}/statistics")
    assert page.status_code == 200
    assert re.search(r'<svg class="chart bars" id="wins-chart"[^>]* role="img" '
                     r'aria-labelledby="wins-chart-title" aria-describedby="wins-chart-desc">', page.text)
    assert '<title id="wins-chart-title">Wins per player</title>' in page.text
    assert "Anna 2, Ben 1, Cara 0" in page.text  # the description lists the numbers
    assert 'id="players-table"' in page.text and 'id="h2h-table"' in page.text
    main = page.text[page.text.index("<main"):page.text.index("</main>")]
    assert " style=" not in main and "<script" not in main  # no inline styles, no script needed


def test_statistics_of_one_game_show_scores_over_time_and_where_points_come_from(client, evening):
    group_id, _, _ = evening
    page = client.get(f"/groups/{group_id}/statistics?game=gold-west")
    assert page.status_code == 200
    assert 'id="scores-chart"' in page.text and 'id="breakdown-chart"' in page.text
    assert "<polyline" in page.text and 'class="part part-0"' in page.text
    table = page.text[page.text.index('id="breakdown-table"'):]
    assert "Score track" in table and "27.5" in table  # Anna's track: (30 + 25) / 2


def test_rating_changes_are_written_with_a_german_decimal_comma(client, evening):
    group_id, ids, _ = evening
    page = client.get(f"/groups/{group_id}/statistics", headers=GERMAN).text
    ratings = page[page.index('id="ratings-table"'):]
    ratings = ratings[:ratings.index("</table>")]
    # the column before the count of plays
    changes = re.findall(r'<td class="num">([^<]*)</td><td class="num">\d+</td></tr>', ratings)
    assert len(changes) == 3 and all(re.fullmatch(r"[+-]\d+(,\d)?", change) for change in changes), changes
    assert any("," in change for change in changes), changes
    player = client.get(f"/groups/{group_id}/players/{ids['Anna']}/statistics", headers=GERMAN).text
    assert re.search(r"<dd>-?\d+(,\d)? \([+-]\d+,\d\)</dd>", player), player


def test_the_breakdown_chart_writes_averages_with_a_german_decimal_comma(client, evening):
    group_id, _, _ = evening
    page = client.get(f"/groups/{group_id}/statistics?game=gold-west", headers=GERMAN).text
    chart = page[page.index('id="breakdown-chart"'):]
    titles = [html.unescape(t) for t in re.findall(r"<title>([^<]*)</title>", chart[:chart.index("</svg>")])]
    assert "Wertungsleiste: 27,5" in titles, titles  # Anna's track: (30 + 25) / 2


def test_statistics_for_an_unknown_game_is_a_clear_400(client, evening):
    group_id, _, _ = evening
    page = client.get(f"/groups/{group_id}/statistics?game=chess")
    assert page.status_code == 400 and "There is no such game" in page.text


def test_statistics_of_a_group_without_plays(client, table):
    group_id, _ = table
    page = client.get(f"/groups/{group_id}/statistics")
    assert page.status_code == 200 and "No counted finished plays yet." in page.text


def test_the_group_page_links_to_history_and_statistics(client, table):
    group_id, _ = table
    assert f'href="/groups/{group_id}/history"' in client.get(f"/groups/{group_id}").text


# --- privacy -----------------------------------------------------------------------------------------

def history_urls(group_id: int, play_id: int) -> list[tuple[str, str]]:
    return [
        ("GET", f"/groups/{group_id}/history"), ("GET", f"/groups/{group_id}/statistics"),
        ("GET", f"/groups/{group_id}/export/plays.csv"), ("GET", f"/groups/{group_id}/export/backup.json"),
        ("GET", f"/groups/{group_id}/export/bgg-plays.xml"),
        ("GET", f"/plays/{play_id}/record"), ("GET", f"/plays/{play_id}/correct"),
        ("POST", f"/plays/{play_id}/correct"), ("POST", f"/plays/{play_id}/correct/undo"),
        ("POST", f"/plays/{play_id}/counted"),
    ]


def test_a_phone_that_did_not_join_gets_404_on_every_history_page(app, db, evening):
    group_id, _, plays = evening
    stranger = app.test_client()
    member_elsewhere = app.test_client()
    create_group(member_elsewhere, "Other")
    version = store.get_play(db, plays["gold"]).version
    for client in (stranger, member_elsewhere):
        for method, url in history_urls(group_id, plays["gold"]):
            response = client.open(url, method=method, data={"version": str(version), "counted": "0",
                                                             **correction_data(version, [gw(1), gw(2)])})
            assert response.status_code == 404, (method, url)
            assert "Friday night" not in response.text and "Anna" not in response.text
    assert store.play_counted(db, plays["gold"]) and len(store.list_events(db, plays["gold"])) == 1
