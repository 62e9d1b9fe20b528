"""Every page of a play is safe to fix: reopening keeps the tally and the date, nothing is finished
with totals nobody typed, a stale form keeps what was typed, and the finished play's pages follow it."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta

import pytest

from companion import store
from companion.games import table_tools as tools
from tests.conftest import add_players, create_group, form_values, start_play
from tests.test_mayflower_web import (
    ANNA,
    EXAMPLE_6,
    EXAMPLE_6_FEATURES,
    PLAYERS,
    complete,
    enter_features,
    place,
    play_steps,
    set_west_edge,
    tally_page,
    tally_tap,
    text_of,
)
from tests.test_mayflower_web import new_play as new_mayflower_play


@pytest.fixture
def play_id(client, db) -> int:
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = [p.id for p in store.list_players(db, group_id)]
    return start_play(client, group_id, "mayflower", [(ids[0], "red"), (ids[1], "blue")])


def totals_on(page: str) -> list[str]:
    """The totals the form shows, per seat ("" for an empty box)."""
    tags = [re.search(rf'<input[^>]*name="total_{seat}"[^>]*>', page).group(0) for seat in (0, 1)]
    return [(re.search(r'value="([^"]*)"', tag) or re.match("()", "")).group(1) for tag in tags]


def test_totals_only_starts_empty_and_cannot_be_finished_untyped(client, db, play_id):
    client.post(f"/plays/{play_id}/adjust", data={"seat": "0", "points": "12"})
    page = client.get(f"/plays/{play_id}/finish").text
    assert totals_on(page) == ["", ""]
    response = client.post(f"/plays/{play_id}/finish", data={"version": "1"})
    assert response.status_code == 400
    assert "Enter Anna&#39;s total." in response.text or "Enter Anna's total." in response.text
    assert store.get_play(db, play_id).status == "active"


def test_reopening_brings_back_the_totals_and_finishing_again_keeps_the_date(client, db, play_id):
    assert client.post(f"/plays/{play_id}/finish",
                       data={"version": "0", "total_0": "40", "total_1": "38"}).status_code == 302
    first = store.get_play(db, play_id)
    client.post(f"/plays/{play_id}/undo", data={"version": str(first.version)})
    assert store.get_play(db, play_id).status == "active"
    page = client.get(f"/plays/{play_id}/finish").text
    assert totals_on(page) == ["40", "38"]
    version = store.get_play(db, play_id).version
    assert client.post(f"/plays/{play_id}/finish",
                       data={"version": str(version), "total_0": "40", "total_1": "41"}).status_code == 302
    again = store.get_play(db, play_id)
    assert again.ended_at == first.ended_at
    assert [(r.name, r.total) for r in store.play_results(db, play_id)] == [("Ben", 41), ("Anna", 40)]
    # finished, the kept tally is gone: reopening once more brings back the new one
    client.post(f"/plays/{play_id}/undo", data={"version": str(again.version)})
    assert totals_on(client.get(f"/plays/{play_id}/finish").text) == ["40", "41"]


def test_the_timer_stops_with_the_play_and_counts_what_is_played_after_reopening(client, db, play_id):
    """Half an hour played and finished; reopened, the timer waits at 30 minutes however long the play
    sat finished; resumed for ten minutes more and finished again, it was played for 40 minutes."""
    def running_for(minutes: int) -> None:
        def backdated(options):
            elapsed = options.get(tools.TIMER, {}).get("elapsed", 0)
            since = datetime.now(UTC) - timedelta(minutes=minutes)
            return {**options, tools.TIMER: {"elapsed": elapsed, "since": since.isoformat()}}
        store.change_play_options(db, play_id, backdated)

    def finish(totals) -> None:
        data = {"version": str(store.get_play(db, play_id).version), "total_0": totals[0],
                "total_1": totals[1]}
        assert client.post(f"/plays/{play_id}/finish", data=data).status_code == 302

    running_for(30)
    finish(("40", "38"))
    client.post(f"/plays/{play_id}/undo", data={"version": str(store.get_play(db, play_id).version)})
    page = client.get(f"/plays/{play_id}").text
    assert re.search(r"paused at (29:5|30:0)\d", page) and 'value="resume"' in page
    assert client.post(f"/plays/{play_id}/timer", data={"action": "resume"}).status_code == 302
    running_for(10)
    finish(("40", "41"))
    assert re.search(r"Played for (39:5|40:0)\d", client.get(f"/plays/{play_id}/record").text)


def test_a_correction_sent_after_another_phone_reopened_the_play_says_it_was_not_saved(client, db, play_id):
    assert client.post(f"/plays/{play_id}/finish",
                       data={"version": "0", "total_0": "40", "total_1": "38"}).status_code == 302
    finished = store.get_play(db, play_id)
    assert client.get(f"/plays/{play_id}/correct").status_code == 200  # drawn, then another phone reopens
    client.post(f"/plays/{play_id}/undo", data={"version": str(finished.version)})
    response = client.post(f"/plays/{play_id}/correct",
                           data={"version": str(finished.version), "seat0-total": "44",
                                 "seat1-total": "38"})
    assert response.status_code == 409
    text = html.unescape(response.text)
    assert "Another phone reopened this play, so the correction was not saved." in text
    reopened = store.get_play(db, play_id)
    assert reopened.status == "active" and store.list_events(db, play_id) == []


def test_a_correction_sent_after_another_phone_finished_the_play_again_with_other_rows_is_a_409(client, db,
                                                                                               play_id):
    """Drawn with a total per player; meanwhile the play was reopened and finished with the features'
    rows: refused as stale (not judged by boxes the page never had), the form shows the rows as they are."""
    assert client.post(f"/plays/{play_id}/finish",
                       data={"version": "0", "total_0": "40", "total_1": "38"}).status_code == 302
    drawn = form_values(client.get(f"/plays/{play_id}/correct").text)
    client.post(f"/plays/{play_id}/undo", data={"version": str(store.get_play(db, play_id).version)})
    store.finish_play(db, play_id, {}, [store.ResultInput(seat, total, seat + 1,
                                                          {"roads": total - 10, "farms": 10})
                                        for seat, total in enumerate((50, 30))])
    response = client.post(f"/plays/{play_id}/correct", data={**drawn, "seat0-total": "45"})
    assert response.status_code == 409
    assert "Another phone changed this play" in response.text
    assert "Enter Anna" not in html.unescape(response.text)
    assert [r.total for r in store.play_results(db, play_id)] == [50, 30]
    redrawn = form_values(response.text)
    assert {name: redrawn[name] for name in redrawn if name.startswith("seat")} == {
        "seat0-roads": "40", "seat0-farms": "10", "seat1-roads": "20", "seat1-farms": "10"}
    assert client.post(f"/plays/{play_id}/correct", data={**redrawn, "seat0-roads": "45"}).status_code == 302
    assert [r.total for r in store.play_results(db, play_id)] == [55, 30]


def test_a_stale_totals_form_keeps_what_was_typed(client, db, play_id):
    client.post(f"/plays/{play_id}/adjust", data={"seat": "1", "points": "3"})
    response = client.post(f"/plays/{play_id}/finish",
                           data={"version": "0", "total_0": "17", "total_1": "23"})
    assert response.status_code == 409
    assert "Another phone changed this play" in response.text
    assert totals_on(response.text) == ["17", "23"]
    assert 'name="version" type="hidden" value="1"' in response.text
    assert store.get_play(db, play_id).status == "active"


def test_the_result_and_history_pages_follow_the_play(client, db, play_id):
    client.post(f"/plays/{play_id}/finish", data={"version": "0", "total_0": "40", "total_1": "38"})
    version = store.get_play(db, play_id).version
    for url in (f"/plays/{play_id}/result", f"/plays/{play_id}/record"):
        page = client.get(url).text
        assert f'data-play-id="{play_id}" data-version="{version}" data-live-finished' in page, url
        assert f'data-state-url="/plays/{play_id}/state.json"' in page, url


def _timer_and_note(client, db, play_id: int) -> None:
    assert client.post(f"/plays/{play_id}/timer", data={"action": "start"}).status_code == 302
    saved = client.post(f"/plays/{play_id}/notes", data={"note": "rematch", "variant": "", "version": "0"})
    assert saved.status_code == 302
    assert store.get_play(db, play_id).options["note"] == "rematch"


def _a_player_renamed(client, db, play_id: int) -> None:
    play = store.get_play(db, play_id)
    seat = play.seats[1]
    renamed = {"name": f"{seat.name}edikt", "colour": seat.colour, "shown": f"{seat.colour} {seat.name}"}
    assert client.post(f"/groups/{play.group_id}/players/{seat.player_id}", data=renamed).status_code == 302


def _the_time_zone_set(client, db, play_id: int) -> None:
    group_id = store.get_play(db, play_id).group_id
    assert client.post(f"/groups/{group_id}/settings",
                       data={"time_zone": "Europe/Berlin", "location": ""}).status_code == 302


# What changes a reopened play's page (and its version) but not its map: the final tally still fits
_NOT_THE_MAP = (_timer_and_note, _a_player_renamed, _the_time_zone_set)


def _reopened_mayflower_tally(client, db, meanwhile):
    """Example 6 finished, reopened, then ``meanwhile``: the play, its tally page and words, the names."""
    play_id = new_mayflower_play(client, db, PLAYERS[:2])
    play_steps(client, db, play_id, EXAMPLE_6)
    assert enter_features(client, play_id, EXAMPLE_6_FEATURES).status_code == 302
    client.post(f"/plays/{play_id}/undo", data={"version": str(store.get_play(db, play_id).version)})
    reopened = store.get_play(db, play_id).version
    meanwhile(client, db, play_id)
    assert store.get_play(db, play_id).version > reopened  # the pages drawn before are stale
    anna, ben = (seat.name for seat in store.get_play(db, play_id).seats)
    page = tally_page(client, play_id)[0]
    return play_id, page, text_of(page.text), anna, ben


@pytest.mark.parametrize("meanwhile", _NOT_THE_MAP, ids=lambda change: change.__name__.strip("_"))
def test_a_reopened_mayflower_tally_comes_back_as_entered(client, db, meanwhile):
    play_id, page, words, anna, ben = _reopened_mayflower_tally(client, db, meanwhile)
    assert f"city · Tiles 3 · Flags 1: {anna} (sheriff, 2)" in words
    assert f"farm · Filled spaces around it (0–7) 5: {ben} (farmer, 3)" in words
    trappers = f"{anna} (trapper, 4), {ben} (trapper, 2), {anna} (trapper, 1), {ben} (trapper, 1)"
    assert f"plain · Animals 3: {trappers}" in words
    # every settler is on a feature again: one tap shows the result
    response = client.post(f"/plays/{play_id}/mayflower/final-tally", data={
        "version": str(store.get_play(db, play_id).version),
        "kept": [html.unescape(k) for k in re.findall(r'name="kept" value="([^"]*)"', page.text)]})
    assert response.status_code == 302


def _a_point_added(client, db, play_id: int) -> None:
    assert client.post(f"/plays/{play_id}/adjust", data={"seat": "1", "points": "2"}).status_code == 302


def _the_west_edge_set(client, db, play_id: int) -> None:
    assert set_west_edge(client, db, play_id, 5).status_code == 302


def _a_settler_placed(client, db, play_id: int) -> None:
    assert place(client, play_id, ANNA, "bandit", 3).status_code == 302


def _a_city_completed(client, db, play_id: int) -> None:
    assert complete(client, db, play_id, {"kind": "city", "tiles": 2, "settlers": [(ANNA, "sheriff", 2)]},
                    ).status_code == 302


def _the_last_settler_undone(client, db, play_id: int) -> None:
    version = str(store.get_play(db, play_id).version)
    assert client.post(f"/plays/{play_id}/undo", data={"version": version}).status_code == 302


@pytest.mark.parametrize(("meanwhile", "kept"), [
    (_a_point_added, True),  # a forgotten point: the map is as it was
    (_the_west_edge_set, True),  # where the map ends: no tile laid, nobody moved
    (_a_settler_placed, False),
    (_a_city_completed, False),
    # settler ids are reused: a settler placed again in its place would take the undone one's id
    (_the_last_settler_undone, False),
], ids=lambda change: change.__name__.strip("_") if callable(change) else None)
def test_a_reopened_mayflower_tally_is_kept_until_the_map_changes(client, db, meanwhile, kept):
    _, _, words, anna, ben = _reopened_mayflower_tally(client, db, meanwhile)
    assert ("Features entered" in words) is kept
    assert (f"farm · Filled spaces around it (0–7) 5: {ben} (farmer, 3)" in words) is kept
    assert (f"city · Tiles 3 · Flags 1: {anna} (sheriff, 2)" in words) is kept


@pytest.mark.parametrize("reopened", [True, False], ids=["reopened", "never-finished"])
def test_start_the_features_again_enters_every_feature_anew(client, db, reopened):
    """To fix one size (Ben's farm had 4 filled spaces, not 5) the table starts the features again: on a
    reopened play as on one never finished, the page then names the first feature with none entered."""
    play_id = new_mayflower_play(client, db, PLAYERS[:2])
    play_steps(client, db, play_id, EXAMPLE_6)
    if reopened:
        assert enter_features(client, play_id, EXAMPLE_6_FEATURES).status_code == 302
        client.post(f"/plays/{play_id}/undo", data={"version": str(store.get_play(db, play_id).version)})
        page = tally_page(client, play_id)[0].text
    else:
        page = enter_features(client, play_id, EXAMPLE_6_FEATURES[:2], finish=False).text
    assert "Features entered" in text_of(page)
    link = re.search(r'<a href="([^"]*)">Start the features again</a>', page).group(1)
    response = client.get(html.unescape(link))
    assert response.status_code == 200
    words = text_of(response.text)
    assert "Features entered" not in words and "Feature 1: the city with Anna's sheriff in column 2" in words
    assert 'name="kept"' not in response.text
    fixed = [EXAMPLE_6_FEATURES[0], (["1-1"], {"neighbours": 4}), EXAMPLE_6_FEATURES[2]]
    for number, (settlers, sizes) in enumerate(fixed, start=1):
        response = tally_tap(client, play_id, response.text, settlers, more=number < len(fixed), **sizes)
    assert response.status_code == 302
    farm = next(f for f in store.final_payload(db, play_id)["features"] if f["kind"] == "farm")
    assert farm["neighbours"] == 4


@pytest.mark.parametrize("meanwhile", _NOT_THE_MAP, ids=lambda change: change.__name__.strip("_"))
def test_a_reopened_gold_west_tally_comes_back_as_entered(client, db, meanwhile):
    """A tally kept before its corrections of the ledger were (an older release, a backup): only while the
    ledger is as it was does its track come back as typed rather than as the ledger counts it."""
    from tests.test_gold_west_web import new_play, tap

    play_id = new_play(client, db, "Anna", "Ben")
    tap(client, play_id, "investment", seat="0", vp="7")  # 10 on the track with the bonus tile
    players = [{"track_vp": 12, "largest_group": 5, "influence": {"forest": 4}}, {"largest_group": 4}]
    store.finish_play(db, play_id, {"players": players},
                      [store.ResultInput(seat, 0, seat + 1, {}) for seat in range(2)])
    client.post(f"/plays/{play_id}/undo", data={"version": str(store.get_play(db, play_id).version)})
    meanwhile(client, db, play_id)
    values = form_values(client.get(f"/plays/{play_id}/gold-west/final-tally").text)
    typed = ("p0-track_vp", "p0-largest_group", "p0-influence-forest", "p1-largest_group")
    assert [values[name] for name in typed] == ["12", "5", "4", "4"]


def _points_for_anna(client, db, play_id: int) -> None:
    assert client.post(f"/plays/{play_id}/adjust", data={"seat": "0", "points": "5"}).status_code == 302


def _bens_points_undone(client, db, play_id: int) -> None:
    undone = client.post(f"/plays/{play_id}/undo", data={"version": str(store.get_play(db, play_id).version)})
    assert undone.status_code == 302 and store.get_play(db, play_id).status == "active"


def _nothing(client, db, play_id: int) -> None:
    pass


KEPT_BEFORE = "kept before"  # a tally kept before the running scores it was entered at were (a backup)


@pytest.mark.parametrize(("anna_typed", "meanwhile", "shown", "note"), [
    pytest.param(None, _points_for_anna, ["17", "14"], None, id="points-entered-since"),
    pytest.param("20", _points_for_anna, ["25", "14"], None, id="points-entered-since-a-typed-total"),
    pytest.param("20", _nothing, ["20", "14"], None, id="nothing-entered-since"),
    pytest.param(None, _bens_points_undone, ["12", "0"], None, id="an-entry-undone-since"),
    pytest.param(KEPT_BEFORE, _points_for_anna, ["17", "14"],
                 "Points were entered since the play was reopened: this is the running score now (the tally "
                 "had 12).", id="a-tally-kept-without-its-running-scores"),
])
def test_a_reopened_tally_of_totals_counts_the_points_entered_since(client, db, anna_typed, meanwhile, shown,
                                                                   note):
    """A group game scored as one total per player, finished at 12 : 14 and reopened: what is entered (or
    undone) on the play page since counts on top of the totals as they were typed. Where the running
    scores the tally was entered at are not known, it starts from the running scores now, saying so."""
    from tests.test_custom_games_web import add_game

    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = [p.id for p in store.list_players(db, group_id)]
    play_id = start_play(client, group_id, f"custom-{add_game(client, group_id, name='Skat')}",
                         [(ids[0], "red"), (ids[1], "blue")])
    for seat, points in ((0, 12), (1, 14)):
        client.post(f"/plays/{play_id}/adjust", data={"seat": str(seat), "points": str(points)})
    if anna_typed == KEPT_BEFORE:
        store.finish_play(db, play_id, {"breakdowns": [{"total": 12}, {"total": 14}]},
                          [store.ResultInput(seat, total, 2 - seat, {"total": total})
                           for seat, total in enumerate((12, 14))])
    else:
        drawn = form_values(client.get(f"/plays/{play_id}/sheet").text)
        sent = {**drawn, "points-0-0": anna_typed} if anna_typed else drawn
        assert client.post(f"/plays/{play_id}/sheet", data=sent).status_code == 302
    client.post(f"/plays/{play_id}/undo", data={"version": str(store.get_play(db, play_id).version)})
    meanwhile(client, db, play_id)

    page = client.get(f"/plays/{play_id}/sheet").text
    values = form_values(page)
    assert [values["points-0-0"], values["points-1-0"]] == shown
    notes = re.findall(r'<p class="changed">([^<]*)</p>', page)
    assert [html.unescape(text) for text in notes] == ([note] if note else [])
    assert client.post(f"/plays/{play_id}/sheet", data=values).status_code == 302
    assert [r.total for r in sorted(store.play_results(db, play_id), key=lambda r: r.seat)] == list(
        map(int, shown))
