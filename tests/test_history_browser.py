"""On a phone: the history, the statistics with their charts and numbers, correcting a play."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from companion import store

pytestmark = pytest.mark.browser

GW = ("track", "largest_group", "offices", "wanted", "influence")


def gw(track: int) -> dict[str, int]:
    return {"track": track, "largest_group": 6, "offices": 4, "wanted": -1, "influence": 8}


@pytest.fixture
def group_on_phone(live_server, phone, tmp_path):
    """A group created on the phone, with three players and a few finished plays stored behind it."""
    page = phone.new_page()
    page.goto(live_server.url + "/")
    page.get_by_label("Group name").fill("Friday night")
    page.get_by_role("button", name="Create group").click()
    expect(page.get_by_role("heading", name="Friday night")).to_be_visible()
    group_id = int(re.search(r"/groups/(\d+)", page.url).group(1))
    db = store.connect(tmp_path / "companion.sqlite3")
    ids = [store.add_player(db, group_id, name, colour)
           for name, colour in (("Anna", "red"), ("Ben", "blue"), ("Cara", "white"))]
    for tracks in ((30, 22, 18), (25, 31, 19), (40, 12, 26), (28, 28, 10)):
        seats = list(zip(ids, ("red", "blue", "white"), strict=True))
        play_id = store.start_play(db, group_id, "gold-west", seats)
        totals = [t + 17 for t in tracks]
        ranks = [1 + sum(other > total for other in totals) for total in totals]
        store.finish_play(db, play_id, {}, [store.ResultInput(seat, total, rank, gw(track))
                                            for seat, (track, total, rank)
                                            in enumerate(zip(tracks, totals, ranks, strict=True))])
    play_id = store.start_play(db, group_id, "mayflower", [(ids[0], "red"), (ids[1], "blue")])
    store.finish_play(db, play_id, {}, [store.ResultInput(0, 9, 2, {"total": 9}),
                                        store.ResultInput(1, 14, 1, {"total": 14})])
    db.close()
    page.reload()
    return page, play_id


def test_statistics_on_a_phone_show_charts_and_numbers(group_on_phone):
    page, _ = group_on_phone
    page.get_by_role("link", name="History and statistics").click()
    expect(page.get_by_role("heading", name="History", exact=True)).to_be_visible()
    expect(page.locator("ul.cards > li")).to_have_count(5)

    tabs = page.get_by_role("navigation", name="History and statistics")
    tabs.get_by_role("link", name="Statistics").click()
    expect(page.get_by_role("heading", name="Statistics", exact=True)).to_be_visible()
    wins = page.get_by_role("img", name=re.compile(r"^Wins per player"))
    expect(wins).to_be_visible()
    expect(wins).to_have_accessible_description(re.compile("Anna 3, Ben 3, Cara 0"))
    players = page.locator("#players-table")
    expect(players.get_by_role("row", name=re.compile("Anna"))).to_contain_text("60 %")
    head_to_head = page.locator("#h2h-table")
    expect(head_to_head.get_by_role("row", name=re.compile("^Anna"))).to_contain_text("2 of 5")  # one tie
    expect(head_to_head.get_by_role("row", name=re.compile("^Ben"))).to_contain_text("3 of 4")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390

    page.get_by_role("navigation", name="Game").get_by_role("link", name="Gold West").click()
    expect(page.get_by_role("img", name=re.compile(r"^Scores over time"))).to_be_visible()
    breakdown = page.get_by_role("img", name=re.compile(r"^Where the points come from"))
    expect(breakdown).to_be_visible()
    box = breakdown.bounding_box()
    assert box["width"] <= 390 and box["height"] > 50  # drawn to fit the phone, not squashed
    track = page.locator("#breakdown-table").get_by_role("row", name=re.compile("Score track"))
    expect(track).to_contain_text("30.8")  # Anna: (30 + 25 + 40 + 28) / 4
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_correcting_a_play_and_leaving_it_out_on_a_phone(group_on_phone, tmp_path):
    page, play_id = group_on_phone
    page.get_by_role("link", name="History and statistics").click()
    page.get_by_role("link", name="Carcassonne – Mayflower").click()
    expect(page.get_by_text("Ben", exact=False).first).to_be_visible()
    page.get_by_role("link", name="Correct the scores").click()
    page.get_by_role("group", name="Anna").get_by_label("Total").fill("20")
    page.get_by_role("button", name="Save the correction").click()
    expect(page.get_by_text("Corrected. The totals and ranks were computed again.")).to_be_visible()
    expect(page.locator("ol.ranking li").first).to_contain_text("Anna")

    page.get_by_role("button", name="Leave out of the statistics").click()
    expect(page.get_by_text("This play no longer counts in the statistics.")).to_be_visible()
    page.get_by_role("button", name="Undo the last correction").click()
    expect(page.locator("ol.ranking li").first).to_contain_text("Ben")
    db = store.connect(tmp_path / "companion.sqlite3")
    assert not store.play_counted(db, play_id)
    assert [(r.name, r.total) for r in store.play_results(db, play_id)] == [("Ben", 14), ("Anna", 9)]
    db.close()
