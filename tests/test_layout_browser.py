"""Every page of a group fits a 360-pixel phone: nothing overflows sideways, wide tables scroll in their box.

A group with plays of each game, finished and in progress, is set up through its forms; then the
test walks every page a link leads to, from the home page on, at 360×740.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlparse

import pytest

from tests.conftest import LiveServer, create_group_in_browser, make_app
from tests.test_great_western_trail_web import ANNA_96, PLAIN, changed

pytestmark = pytest.mark.browser

SMALL_PHONE = {"width": 360, "height": 740}
# links that download a file or change the phone's language rather than show a page
SKIPPED = re.compile(r"/export|/backup|\.csv|\.xml|\.json|/static/|/sw\.js|/language|lang=|/manifest")
MOST_PAGES = 150
# boxes whose table is wider than the screen and that do not say so above them
UNHINTED_BOXES = """Array.from(document.querySelectorAll('.scroll')).filter(box =>
    box.scrollWidth > box.clientWidth + 1 &&
    !(box.previousElementSibling && box.previousElementSibling.classList.contains('scroll-hint'))).length"""
# what the walk needs of a page, in one call: its width, the screen's, the unhinted boxes, its links
PAGE_FACTS = f"""[document.documentElement.scrollWidth, window.innerWidth, {UNHINTED_BOXES},
    Array.from(document.querySelectorAll('a[href]'), a => a.getAttribute('href'))]"""


@pytest.fixture
def server(tmp_path):
    # the plays are set up by posting their forms from the phone itself, so without CSRF tokens
    with LiveServer(make_app(tmp_path, SERVER_NAME=None)) as live:
        yield live


def post(page, url: str, form: dict) -> str:
    """Send a form from the phone (its cookies); the address it ended on."""
    response = page.request.post(url, form=form)
    errors = re.findall(r"class=\"(?:flash )?error[^>]*>([^<]*)", response.text())
    assert response.ok, (url, response.status, errors)
    return response.url


def set_up_plays(page, base: str, group_id: int, ids: dict[str, int]) -> None:
    """Plays of every game: finished with their own tallies, and in progress."""
    def start(slug: str, names: list[str], **options) -> str:
        form = {f"seat_{n}-player": str(ids[name]) for n, name in enumerate(names)}
        form["seat_count"] = str(len(names))
        return post(page, f"{base}/groups/{group_id}/plays/new/{slug}", {**form, **options}).split("#")[0]

    three = ["Anna", "Ben", "Cara"]
    # Gold West: a few ledger taps, then the end scoring
    gold = start("gold-west", three)
    for kind, data in (("supply", {"section": "2"}), ("camp", {}), ("investment", {"vp": "9"})):
        post(page, f"{gold}/gold-west/ledger/{kind}", {"seat": "0", "again": "turn once", **data})
    # Ben and Cara end level on 8 VP: the resources left on the supply track decide
    post(page, f"{gold}/gold-west/final-tally", {"version": "3", "p0-largest_group": "5",
                                                  "p1-influence-forest": "3", "p2-largest_group": "4",
                                                  "p2-second_group": "2", "p1-supply_left": "1",
                                                  "p2-supply_left": "3"})
    start("gold-west", three)
    # Great Western Trail: a delivery and three cards (one holds the job-market token, which closes the
    # play), and a play with one card in
    trail = start("great-western-trail", three)
    post(page, f"{trail}/gwt/deliveries", {"seat": "1", "city": "Kansas City", "crest_vp": "-6"})
    for seat, card in enumerate((ANNA_96, changed(PLAIN, cities_vp="-6"),
                                 changed(PLAIN, dollars="15", job_market_token="y"))):
        form = page.request.get(f"{trail}/gwt/final-tally/{seat}").text()
        revision = re.search(r'name="revision" type="hidden" value="(\d+)"', form).group(1)
        post(page, f"{trail}/gwt/final-tally/{seat}", changed(card, revision=revision))
    waiting = start("great-western-trail", ["Anna", "Ben", "Cara", "Dan"])
    post(page, f"{waiting}/gwt/final-tally/0", ANNA_96)
    # Carcassonne – Mayflower: one in progress, one closed with totals
    start("mayflower", three)
    closed = start("mayflower", ["Anna", "Ben"])
    post(page, f"{closed}/finish", {"version": "0", "total_0": "41", "total_1": "38"})


def test_no_page_overflows_a_360_pixel_phone(server, browser):
    # not an emulated mobile: its layout viewport would grow with a page too wide and hide the overflow
    context = browser.new_context(viewport=SMALL_PHONE, locale="en-GB")
    try:
        page = context.new_page()
        create_group_in_browser(page, server.url, "Walk", ("Anna", "red"), ("Ben", "blue"),
                                ("Cara", "green"), ("Dan", "yellow"))
        group_id = int(re.search(r"/groups/(\d+)", page.url).group(1))
        ids = {name: int(re.search(r"/players/(\d+)", page.get_by_role("link", name=f"Edit {name}")
                                   .get_attribute("href")).group(1))
               for name in ("Anna", "Ben", "Cara", "Dan")}
        set_up_plays(page, server.url, group_id, ids)

        seen: set[str] = set()
        queue = [server.url + "/", f"{server.url}/groups/{group_id}"]
        too_wide = []
        while queue and len(seen) < MOST_PAGES:
            url = queue.pop(0)
            if url in seen:
                continue
            seen.add(url)
            response = page.goto(url)
            assert response is not None and response.status < 500, url
            width, screen, unhinted, hrefs = page.evaluate(PAGE_FACTS)
            path = urlparse(page.url).path
            if width > screen:
                too_wide.append(f"{path}: {width}px")
            if unhinted:
                too_wide.append(f"{path}: {unhinted} wide table(s) without the hint that they scroll")
            for href in hrefs:
                link = urljoin(page.url, href).split("#")[0]
                if link.startswith(server.url) and not SKIPPED.search(link) and link not in seen:
                    queue.append(link)
        assert len(seen) > 40  # home, group, new plays, each play, tallies, results, history, statistics …
        assert too_wide == [], "\n".join(too_wide)
    finally:
        context.close()
