"""The race and the winners' chart fit a 360-pixel phone, drawn for a long play and long names."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from companion import store
from tests.conftest import LiveServer, create_group_in_browser, make_app
from tests.test_score_charts import MAYFLOWER_ROWS, finish_play

pytestmark = pytest.mark.browser

SMALL_PHONE = {"width": 360, "height": 740}
NAMES = ("Maximiliane Alexandra", "Ben", "Cara", "Dan")


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path, SERVER_NAME=None)


def test_the_charts_fit_a_360_pixel_phone(app, browser):
    context = browser.new_context(viewport=SMALL_PHONE, locale="en-GB")
    db = store.connect(app.config["DATABASE"])
    try:
        with LiveServer(app) as server:
            page = context.new_page()
            colours = ("red", "blue", "green", "yellow")
            create_group_in_browser(page, server.url, "Long night", *zip(NAMES, colours, strict=True))
            group_id = int(re.search(r"/groups/(\d+)", page.url).group(1))
            ids = {p.name: p.id for p in store.list_players(db, group_id)}
            # 60 entries that each score: more than the chart has room for dots
            entries = [("adjust", {"seat": n % 4, "points": 1 + n % 7}) for n in range(60)]
            for number in range(3):
                table = [(name, tuple((n + seat + number) % 9 for n in range(len(MAYFLOWER_ROWS))))
                         for seat, name in enumerate(NAMES)]
                play_id = finish_play(db, group_id, ids, table, events=entries)
            for url, chart in ((f"/plays/{play_id}/result", "#race-chart"),
                               (f"/groups/{group_id}/statistics?game=mayflower", "#winners-chart")):
                page.goto(server.url + url)
                expect(page.locator(chart)).to_be_visible()
                box = page.locator(chart).bounding_box()
                assert box["x"] >= 0 and box["x"] + box["width"] <= SMALL_PHONE["width"], (url, box)
                width, screen = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
                assert width <= screen, (url, width)
            expect(page.locator("#winners-table tbody tr")).to_have_count(len(MAYFLOWER_ROWS))
    finally:
        db.close()
        context.close()
