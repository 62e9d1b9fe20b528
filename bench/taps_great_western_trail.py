"""Great Western Trail's two reference plays on one phone per seat: every player fills in their own card.

During play each delivered herd is noted on the delivering player's phone: the form starts on the
player after the last delivery's, so the player is a tap only when someone delivers out of that
order; then the city, the crest VP (left empty for Kansas City and San Francisco, whose crests the
rules fix) and Record. The scoreboard must show every player's cities row as the reference game
expects. At the end each player opens the final tally on their own phone, fills in their card
(only what differs from what the card already shows: the VP totals, the objective cards, the
station masters held, the workers, the disc and the token) and hands it in. The last card brings
every phone to the result, which must show each total and the winner. The line reports the most
taps one player needed for their card, over both plays.
"""

from __future__ import annotations

from bench.taps import Counter, Mismatch, Phone, Session
from bench.taps_pages import expect_result, expect_scoreboard

GAME_NAME = "Great Western Trail"
COLOURS = ("red", "blue", "green", "yellow")
EDITION_LABELS = {1: "1st edition (2016)", 2: "2nd edition (2021)"}
VP_TOTALS = ("dollars", "buildings_vp", "cities_vp", "stations_vp", "hazards_vp", "cattle_vp")


def play(session: Session) -> str:
    """Play both reference plays, each in a group of its own; return the line."""
    return line(*play_all(session))


def play_all(session: Session) -> tuple[list[int], list[int]]:
    """Both reference plays from setup to result: each player's card taps and each delivery's taps."""
    game = session.reference("great-western-trail")
    card_taps: list[int] = []
    delivery_taps: list[int] = []
    for number, reference in enumerate(game["plays"], start=1):
        try:
            cards, deliveries = play_one(session, reference, f"Trail night {number}")
        except Mismatch as error:
            raise Mismatch(f"play {number} ({reference['title']}): {error}") from error
        card_taps += cards
        delivery_taps += deliveries
    return card_taps, delivery_taps


def line(card_taps: list[int], delivery_taps: list[int]) -> str:
    """``taps great-western-trail: <max per player> per player (...)``."""
    per_delivery = sum(delivery_taps) / len(delivery_taps) if delivery_taps else 0.0
    return (f"taps great-western-trail: {max(card_taps)} per player (cards; {len(delivery_taps)} deliveries "
            f"at {per_delivery:.1f} taps each)")


def play_one(session: Session, reference: dict, group_name: str) -> tuple[list[int], list[int]]:
    """One reference play from setup to result; returns each player's card taps and each delivery's taps."""
    players = reference["players"]
    phones = [session.new_phone(Counter()) for _ in players]
    group_url = session.create_group(phones[0], group_name, list(zip(players, COLOURS, strict=False)))
    for phone in phones[1:]:
        session.join(phone, phones[0])
    play_url = start_play(phones[0], group_url, reference["edition"])
    for phone in phones[1:]:
        phone.goto(play_url)
    delivered = 0
    for number, step in enumerate(reference["steps"], start=1):
        try:
            if step["action"] == "delivery":
                phone = phones[step["seat"]]
                with phone.action("delivery", scrolls=False):
                    deliver(phone, delivered, step)
                delivered += 1
                expect_scoreboard(phone, players, step["expect"]["cities_vp_after"], "cities row")
            elif step["action"] == "final":
                for seat, phone in enumerate(phones):
                    with phone.action("card", scrolls=False):
                        hand_in_card(phone, seat, players[seat], step["players"][seat], delivered + seat)
                expect_result(phones, players, step["expect"])
            else:
                raise Mismatch(f"unknown action {step['action']!r}")
        except Mismatch as error:
            raise Mismatch(f"step {number} ({step['action']}): {error}") from error
    return ([sum(phone.counter.entries("card")) for phone in phones],
            [taps for phone in phones for taps in phone.counter.entries("delivery")])


def start_play(phone: Phone, group_url: str, edition: int) -> str:
    """The new play of that edition, every player of the group seated (not counted); its address."""
    page = phone.page
    page.goto(group_url)
    page.get_by_role("link", name=GAME_NAME).click()
    page.get_by_label(EDITION_LABELS[edition]).check()
    page.get_by_role("button", name="Start the play").click()
    page.wait_for_url("**/plays/*")
    return page.url.split("#")[0]


def deliver(phone: Phone, delivered: int, step: dict) -> None:
    """One delivery: the player (if the form starts on another), the city, the crest VP, and Record.

    The crest VP is left empty where the rules fix it (the form's hint says so). The phone first
    shows the table as it is (its page follows the other phones' entries by itself, as it would
    while the phone lies on the table): ``delivered`` deliveries in the log, whose newest entries it
    lists numbered from the newest.
    """
    from playwright.sync_api import expect as playwright_expect

    from companion.games.great_western_trail import per_disc_crest

    log = phone.page.locator("#log ol.log")
    if delivered:
        playwright_expect(log).to_have_attribute("start", str(delivered))
    else:
        playwright_expect(log).to_have_count(0)
    form = phone.page.locator("form.gwt-delivery")
    player = form.locator(f'input[name="seat"][value="{step["seat"]}"]')
    if not player.is_checked():
        phone.check(player)
    phone.fill(form.locator('[name="city"]'), step["city"])
    if per_disc_crest(step["city"]) is None:  # the form's hint: the crests the rules fix are left empty
        phone.fill(form.locator('[name="crest_vp"]'), str(step["crest_vp"]))
    phone.submit(form.get_by_role("button", name="Record the delivery"))


def hand_in_card(phone: Phone, seat: int, name: str, player: dict, entries: int) -> None:
    """From the play page: All cards, the player's card, what differs from it, Hand in.

    The page first shows the table as it is, its log ``entries`` long (the deliveries and the cards
    handed in before): a card handed in on another phone lengthens the log and moves the link down,
    and a tap while the page takes that in could miss it.
    """
    from playwright.sync_api import expect as playwright_expect

    page = phone.page
    playwright_expect(page.locator("#log ol.log")).to_have_attribute("start", str(entries))
    phone.submit(page.get_by_role("link", name="Final tally"))
    phone.submit(page.get_by_role("link", name=f"Fill in {name}'s card"))
    card = page.locator("form.gwt-card")

    def fill(field: str, value: int) -> None:
        box = card.locator(f'[name="{field}"]')
        if box.input_value() != str(value):
            phone.fill(box, str(value))

    def tick(field: str, value: str | None = None) -> None:
        box = card.locator(f'input[name="{field}"]' + (f'[value="{value}"]' if value else ""))
        if not box.is_checked():
            phone.check(box)

    totals = {"dollars": player["dollars"], "buildings_vp": player["buildings_vp"],
              "cities_vp": player["cities_vp"], "stations_vp": player["stations_vp"],
              "hazards_vp": player["hazards_vp"], "cattle_vp": player["cattle_vp"]}
    for field in VP_TOTALS:
        fill(field, totals[field])
    for row, objective in enumerate(player["objectives"]):
        fill(f"objective_{row}_vp", objective["vp"])
        if objective["fulfilled"]:
            tick(f"objective_{row}_fulfilled")  # a fulfilled card's penalty does not count
        else:
            fill(f"objective_{row}_penalty", objective["penalty"])
    if player["station_masters"]:
        phone.tap(card.get_by_text("Tick the station masters you hold"))
        for key in player["station_masters"]:
            tick("station_masters", key)
            count = card.locator(f'[name="{counted_by(key)}"]') if counted_by(key) else None
            if count is not None and count.count():
                fill(counted_by(key), player[counted_by(key)])
    for row, count in player["workers"].items():
        fill(row, count)
    for flag in ("disc_cleared", "job_market_token"):
        if player[flag]:
            tick(flag)
    phone.submit(card.get_by_role("button", name=f"Hand in {name}'s card"))


def counted_by(master: str) -> str | None:
    """The count a station master asks the card for, if any."""
    from companion.games.great_western_trail import STATION_MASTER_BY_KEY

    return STATION_MASTER_BY_KEY[master].counts or None
