"""Gold West's screens: start options, the in-play ledger, the final tally and the result page."""

from __future__ import annotations

import html
import re

import pytest

from companion import store
from companion.games import gold_west
from companion.games.common import FINAL_EVENT, PlaySetup, Seat
from companion.games.table import fold
from tests.conftest import add_players, create_group, errors_on, form_values, make_app, start_play

OFFICES = ["saloon", "mayor", "docks", "frontier"]


def new_play(client, db, *names, offices=OFFICES, **options) -> int:
    group_id = create_group(client)
    colours = ("red", "blue", "green", "yellow")
    add_players(client, group_id, *zip(names, colours, strict=False))
    ids = {p.name: p.id for p in store.list_players(db, group_id)}
    seats = [(ids[name], colour) for name, colour in zip(names, colours, strict=False)]
    return start_play(client, group_id, "gold-west", seats, **{"options-offices": offices, **options})


def tap(client, play_id, kind, again=True, **data):
    """One ledger tap; ``again`` answers "yes" to the questions about turns before they are asked."""
    if again:
        data["again"] = "turn once"
    return client.post(f"/plays/{play_id}/gold-west/ledger/{kind}", data=data)


def table(db, play_id) -> gold_west.PlayState:
    """The table state the stored events give."""
    play = store.get_play(db, play_id)
    setup = PlaySetup(play.game, tuple(Seat(s.name, s.colour) for s in play.seats), play.options)
    return fold(setup, ((e.kind, e.payload) for e in store.list_events(db, play_id))).game_state


@pytest.fixture
def anna_ben(client, db) -> int:
    return new_play(client, db, "Anna", "Ben")


# --------------------------------------------------------------------------------------------------
# Starting a play


def test_new_play_page_shows_camps_per_player_and_the_offices(client, db):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    page = client.get(f"/groups/{group_id}/plays/new/gold-west").text
    assert "12 with 2 players" in page and "12 with 3 players" in page and "10 with 4 players" in page
    assert page.count('name="options-offices"') == 12
    assert "2 per investment card you own" in page
    assert 'name="options-trading_post"' in page


def test_starting_stores_the_offices_dealt_and_trading_post(client, db):
    play_id = new_play(client, db, "Anna", "Ben", "Cara", "Dan", **{"options-trading_post": "y"})
    play = store.get_play(db, play_id)
    assert play.options == {"offices": OFFICES, "trading_post": True}
    page = client.get(f"/plays/{play_id}").text
    assert "10 camps per player" in page
    assert "Offices in play: Saloon, Mayor, Docks, Frontier." in page
    assert "BoomTown 1×1 (resource)" in page


@pytest.mark.parametrize(
    "offices",
    [pytest.param(["saloon", "mayor", "docks"], id="three"),
     pytest.param(["saloon", "mayor", "docks", "deeds", "depot"], id="five"),
     pytest.param(["saloon", "mayor", "docks", "bank"], id="unknown-office")],
)
def test_starting_with_other_than_four_offices_is_refused(client, db, offices):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = [p.id for p in store.list_players(db, group_id)]
    response = client.post(f"/groups/{group_id}/plays/new/gold-west", data={
        "seat_0-player": ids[0], "seat_0-colour": "red", "seat_1-player": ids[1], "seat_1-colour": "blue",
        "options-offices": offices})
    assert response.status_code == 400
    text = html.unescape(response.text)
    assert "Tick the 4 offices that were dealt" in text or "'bank' is not a valid choice" in text
    assert store.list_plays(db, group_id, "active") == []


# --------------------------------------------------------------------------------------------------
# The ledger


@pytest.mark.parametrize(
    ("kind", "data", "payload", "scores"),
    [
        pytest.param("camp", {"seat": "1"}, {"seat": 1}, (0, 0), id="camp"),
        pytest.param("loot", {"seat": "0"}, {"seat": 0}, (-1, 0), id="loot"),
        pytest.param("supply", {"seat": "1", "section": "3"}, {"seat": 1, "section": 3}, (0, 3), id="supply"),
        pytest.param("investment", {"seat": "0", "vp": "8"}, {"seat": 0, "vp": 8}, (8 + 3, 0),
                     id="investment-with-the-top-bonus-tile"),
        pytest.param("boomtown_1x1", {"seat": "1"}, {"seat": 1}, (0, 4), id="boomtown-1x1"),
        pytest.param("shipping_line", {"seat": "0", "step": "silver-1"},
                     {"seat": 0, "metal": "silver", "line": 1}, (2, 0), id="shipping-line"),
        pytest.param("shipping_bonus", {"seat": "1", "metal": "copper"}, {"seat": 1, "metal": "copper"},
                     (0, 7), id="shipping-bonus"),
    ],
)
def test_each_tap_stores_one_event_and_moves_the_score(client, db, anna_ben, kind, data, payload, scores):
    response = tap(client, anna_ben, kind, **data)
    assert response.status_code == 302
    assert response.headers["Location"].endswith(f"/plays/{anna_ben}#gw-ledger")
    [event] = store.list_events(db, anna_ben)
    assert (event.kind, event.payload) == (kind, payload)
    assert table(db, anna_ben).scores == scores


def test_loot_puts_a_camp_in_the_wanted_area_and_counts_the_turn(client, db, anna_ben):
    tap(client, anna_ben, "camp", seat="0")
    tap(client, anna_ben, "loot", seat="1")
    state = table(db, anna_ben)
    assert (state.wanted, state.camps_left, state.round_number, state.next_seat) == ((0, 1), (11, 11), 2, 0)
    page = client.get(f"/plays/{anna_ben}").text
    assert "Round 2 of 12" in page and "next to place a camp: Anna" in page
    assert "Ben looted: a camp to the Wanted area" in page


def test_investment_bonus_tiles_go_in_purchase_order_and_the_page_shows_those_left(client, db, anna_ben):
    page = client.get(f"/plays/{anna_ben}").text
    assert re.search(r"Investment bonus tiles left:\s*<b>3, 2, 1</b>", page)
    assert "Invest (+3 tile)" in page
    tap(client, anna_ben, "investment", seat="1", vp="6")
    tap(client, anna_ben, "investment", seat="0", vp="9")
    state = table(db, anna_ben)
    assert state.investment_tiles == ((2,), (3,))
    assert state.scores == (11, 9)
    page = client.get(f"/plays/{anna_ben}").text
    assert re.search(r"Investment bonus tiles left:\s*<b>1</b>", page)
    assert "Invest (+1 tile)" in page


def test_shipping_bonuses_taken_are_shown_and_no_longer_offered(client, db, anna_ben):
    tap(client, anna_ben, "shipping_bonus", seat="0", metal="gold")
    tap(client, anna_ben, "shipping_bonus", seat="1", metal="gold")
    page = client.get(f"/plays/{anna_ben}").text
    assert re.search(r"Gold bonus:\s*Anna \(9\), Ben \(6\)\s*all taken", page)
    assert 'value="gold" aria-label="Gold bonus' not in page and 'aria-label="Silver bonus (+8)"' in page
    assert table(db, anna_ben).scores == (9, 6)


def seat_row(page: str, seat: int) -> str:
    """One seat's ledger row (open or folded) on the play page."""
    return re.search(rf'id="gw-seat-{seat}".*?</(section|details)>', page, re.S).group(0)


def test_the_last_turn_is_announced_and_camps_are_refused(client, db, anna_ben):
    for _ in range(12):
        for seat in ("0", "1"):
            assert tap(client, anna_ben, "camp", seat=seat).status_code == 302
    page = client.get(f"/plays/{anna_ben}").text
    assert "Last turn!" in page and "without the Build/Loot step" in page
    assert 'aria-label="Camp in' not in page and "Supply section" not in seat_row(page, 0)
    # Ben's last camp ended the round: its mining token may still go on the supply track
    assert "Supply section" in seat_row(page, 1)
    response = tap(client, anna_ben, "loot", seat="0")
    assert response.status_code == 409
    assert "Anna has placed all 12 camps" in html.unescape(response.text)
    assert len(store.list_events(db, anna_ben)) == 24


def test_with_the_trading_post_the_last_turn_offers_the_supply_track_for_the_1x1_resource(client, db):
    play_id = new_play(client, db, "Anna", "Ben", **{"options-trading_post": "y"})
    for _ in range(12):
        for seat in ("0", "1"):
            assert tap(client, play_id, "camp", seat=seat).status_code == 302
    assert tap(client, play_id, "boomtown_1x1", again=False, seat="0").status_code == 302
    page = client.get(f"/plays/{play_id}").text
    assert "Last turn!" in page and 'aria-label="Camp in' not in page
    assert "enter that as a supply event" in html.unescape(page)
    # the resource from the 1×1 space goes on the supply track: a button, and no question
    assert 'aria-label="Supply section 2"' in page
    assert tap(client, play_id, "supply", again=False, seat="0", section="2").status_code == 302
    assert table(db, play_id).scores == (2, 0)


def test_the_last_camps_mining_token_can_still_be_put_on_the_supply_track(client, db, anna_ben):
    """The rulebook puts the mining token's resources on the supply track after the camp, the last one too."""
    for _ in range(11):
        for seat in ("0", "1"):
            assert tap(client, anna_ben, "camp", again=False, seat=seat).status_code == 302
    assert tap(client, anna_ben, "camp", again=False, seat="0").status_code == 302  # Anna's 12th camp
    assert 'aria-label="Supply section 3"' in seat_row(client.get(f"/plays/{anna_ben}").text, 0)
    assert tap(client, anna_ben, "supply", again=False, seat="0", section="3").status_code == 302
    assert table(db, anna_ben).scores == (3, 0)
    # that was her last mining token: no more supply track for her
    assert "Supply section" not in seat_row(client.get(f"/plays/{anna_ben}").text, 0)


def ledger_order(page: str) -> list[str]:
    """The seats' ledger rows in the order the page shows them, and which of them are open."""
    rows = re.findall(r'<(section|details) class="card gw-seat[^"]*" id="gw-seat-(\d)"', page)
    return [("open " if tag == "section" else "closed ") + seat for tag, seat in rows]


def test_the_current_players_row_comes_first_and_the_next_comes_up_after_camp_or_loot(client, db):
    play_id = new_play(client, db, "Anna", "Ben", "Cara")
    assert ledger_order(client.get(f"/plays/{play_id}").text) == ["open 0", "closed 1", "closed 2"]
    assert tap(client, play_id, "supply", again=False, seat="0", section="1").status_code == 302
    assert tap(client, play_id, "camp", again=False, seat="0").status_code == 302
    assert ledger_order(client.get(f"/plays/{play_id}").text) == ["open 1", "closed 2", "closed 0"]
    assert tap(client, play_id, "loot", again=False, seat="1").status_code == 302
    assert ledger_order(client.get(f"/plays/{play_id}").text) == ["open 2", "closed 0", "closed 1"]


def test_a_tap_out_of_turn_asks_once_and_stores_nothing_until_answered(client, db, anna_ben):
    tap(client, anna_ben, "camp", again=False, seat="0")
    response = tap(client, anna_ben, "investment", again=False, seat="0", vp="9")
    assert response.status_code == 409
    assert "It is Ben's turn. Anna again?" in html.unescape(response.text)
    assert [e.kind for e in store.list_events(db, anna_ben)] == ["camp"]
    # the answer "yes" carries the tap's own choice
    yes = re.search(r'<form[^>]*>(?:(?!</form>).)*Yes, for Anna', response.text, re.S).group(0)
    assert 'name="vp" value="9"' in yes and 'name="again" value="turn"' in yes
    assert tap(client, anna_ben, "investment", seat="0", vp="9").status_code == 302
    # asked once: Anna's next entry in Ben's turn is stored at once, and Ben's own as well
    assert tap(client, anna_ben, "boomtown_1x1", again=False, seat="0").status_code == 302
    assert tap(client, anna_ben, "supply", again=False, seat="1", section="2").status_code == 302
    assert [(e.kind, e.payload["seat"]) for e in store.list_events(db, anna_ben)] == [
        ("camp", 0), ("investment", 0), ("boomtown_1x1", 0), ("supply", 1)]


def test_the_mining_token_after_the_camp_in_the_rulebooks_order_is_not_asked_about(client, db, anna_ben):
    assert tap(client, anna_ben, "camp", again=False, seat="0").status_code == 302
    assert tap(client, anna_ben, "supply", again=False, seat="0", section="3").status_code == 302
    assert table(db, anna_ben).scores == (3, 0)
    # one token a turn, before or after the camp
    response = tap(client, anna_ben, "supply", again=False, seat="0", section="1")
    assert response.status_code == 409
    assert "Anna has put a mining token's resources on the supply track this turn already" in html.unescape(
        response.text)
    # Ben's entry starts his turn: Anna's supply track is hers again only in her next one
    assert tap(client, anna_ben, "supply", again=False, seat="1", section="2").status_code == 302
    response = tap(client, anna_ben, "supply", again=False, seat="0", section="1")
    assert response.status_code == 409 and "It is Ben's turn. Anna again?" in html.unescape(response.text)
    assert [(e.kind, e.payload["seat"]) for e in store.list_events(db, anna_ben)] == [
        ("camp", 0), ("supply", 0), ("supply", 1)]


def test_the_out_of_turn_question_can_record_for_the_player_whose_turn_it_is(client, db, anna_ben):
    response = tap(client, anna_ben, "investment", again=False, seat="1", vp="9")
    no = re.search(r'<form[^>]*>(?:(?!</form>).)*No, for Anna', response.text, re.S).group(0)
    assert 'name="seat" value="0"' in no and 'name="vp" value="9"' in no and "again" not in no
    assert tap(client, anna_ben, "investment", again=False, seat="0", vp="9").status_code == 302
    assert table(db, anna_ben).scores == (9 + 3, 0)


def test_in_the_last_turn_every_player_enters_without_being_asked(client, db, anna_ben):
    for _ in range(12):
        for seat in ("0", "1"):
            tap(client, anna_ben, "camp", again=False, seat=seat)
    assert ledger_order(client.get(f"/plays/{anna_ben}").text) == ["open 0", "open 1"]
    assert tap(client, anna_ben, "boomtown_1x1", again=False, seat="1").status_code == 302
    assert tap(client, anna_ben, "investment", again=False, seat="0", vp="5").status_code == 302


def test_each_choice_is_its_own_button_so_nothing_is_picked_by_default(client, anna_ben):
    page = client.get(f"/plays/{anna_ben}").text
    assert "<select" not in page[page.index('id="gw-ledger"'):page.index('id="gw-correct"')]
    for section in range(4):
        assert f'<button name="section" value="{section}"' in page
    for vp in range(5, 16):
        assert f'<button name="vp" value="{vp}"' in page
    assert '<button name="step" value="gold-1" aria-label="Gold line 1 (+2)">' in page
    assert '<button name="metal" value="copper" aria-label="Copper bonus (+7)">' in page


def test_undo_takes_back_the_last_tap(client, db, anna_ben):
    tap(client, anna_ben, "supply", seat="0", section="2")
    tap(client, anna_ben, "boomtown_1x1", seat="1")
    version = store.get_play(db, anna_ben).version
    assert client.post(f"/plays/{anna_ben}/undo", data={"version": str(version)}).status_code == 302
    assert [e.kind for e in store.list_events(db, anna_ben)] == ["supply"]
    assert table(db, anna_ben).scores == (2, 0)


@pytest.mark.parametrize(
    ("kind", "data", "status"),
    [
        pytest.param("camp", {"seat": "2"}, 400, id="seat-not-at-the-table"),
        pytest.param("camp", {"seat": "Anna"}, 400, id="seat-not-a-number"),
        pytest.param("camp", {}, 400, id="seat-missing"),
        pytest.param("supply", {"seat": "0", "section": "4"}, 400, id="supply-section-4"),
        pytest.param("supply", {"seat": "0"}, 400, id="supply-section-missing"),
        pytest.param("investment", {"seat": "0", "vp": "4"}, 400, id="investment-too-cheap"),
        pytest.param("shipping_line", {"seat": "0", "step": "gold-3"}, 400, id="no-third-points-line"),
        pytest.param("shipping_bonus", {"seat": "0", "metal": "wood"}, 400, id="no-wood-track"),
        pytest.param("build", {"seat": "0"}, 404, id="unknown-kind"),
    ],
)
def test_bad_taps_are_refused_and_store_nothing(client, db, anna_ben, kind, data, status):
    response = tap(client, anna_ben, kind, **data)
    assert response.status_code == status
    assert store.list_events(db, anna_ben) == []
    assert store.get_play(db, anna_ben).version == 0


def test_a_tap_the_table_does_not_allow_is_explained(client, db, anna_ben):
    tap(client, anna_ben, "shipping_line", seat="1", step="copper-1")
    response = tap(client, anna_ben, "shipping_line", seat="1", step="copper-1")
    assert response.status_code == 409
    assert "Ben has already passed points line 1 of the copper track" in response.text
    assert len(store.list_events(db, anna_ben)) == 1


def test_a_second_points_line_before_the_first_is_refused(client, db, anna_ben):
    refused = tap(client, anna_ben, "shipping_line", seat="1", step="copper-2")
    assert refused.status_code == 409
    assert "passes points line 1 of its track before line 2" in refused.text
    assert store.list_events(db, anna_ben) == []
    assert '<button name="step" value="copper-2"' not in client.get(f"/plays/{anna_ben}").text
    tap(client, anna_ben, "shipping_line", seat="1", step="copper-1")
    assert tap(client, anna_ben, "shipping_line", seat="1", step="copper-2").status_code == 302
    assert table(db, anna_ben).scores == (0, 5)


@pytest.mark.parametrize(("first", "second", "question"), [
    (("investment", {"vp": "8"}), ("investment", {"vp": "9"}),
     "Anna has bought an investment card this turn already. Another one?"),
    (("boomtown_1x1", {}), ("boomtown", {"office": "mayor"}),
     "Anna has been to BoomTown this turn already. Again?"),
    (("supply", {"section": "3"}), ("supply", {"section": "2"}),
     "Anna has put a mining token's resources on the supply track this turn already. Again?"),
])
def test_a_second_investment_or_boomtown_in_one_turn_is_asked_about(client, db, anna_ben, first, second,
                                                                     question):
    tap(client, anna_ben, first[0], again=False, seat="0", **first[1])
    asked = tap(client, anna_ben, second[0], again=False, seat="0", **second[1])
    assert asked.status_code == 409
    assert question in html.unescape(asked.text) and "Nothing was recorded yet." in asked.text
    assert len(store.list_events(db, anna_ben)) == 1
    # "Yes, record it" sends the same tap again, meant
    answer = re.search(r'<form method="post" action="([^"]+)" class="gw-inline">(.*?)</form>', asked.text,
                       re.S)
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', answer.group(2)))
    assert "Yes, record it" in answer.group(2) and fields["again"] == "once"
    assert client.post(answer.group(1), data=fields).status_code == 302
    assert [(e.kind, e.payload["seat"]) for e in store.list_events(db, anna_ben)] == [
        (first[0], 0), (second[0], 0)]
    # her camp ends her turn; in her next one she may invest or go to BoomTown again unasked
    for seat in ("0", "1"):
        assert tap(client, anna_ben, "camp", again=False, seat=seat).status_code == 302
    assert tap(client, anna_ben, second[0], again=False, seat="0", **second[1]).status_code == 302


def test_the_ledger_belongs_to_gold_west_plays_only(client, db):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = [p.id for p in store.list_players(db, group_id)]
    play_id = start_play(client, group_id, "mayflower", [(ids[0], "red"), (ids[1], "blue")])
    assert tap(client, play_id, "camp", seat="0").status_code == 404
    assert client.get(f"/plays/{play_id}/gold-west/final-tally").status_code == 404
    assert store.list_events(db, play_id) == []


def test_a_tap_without_the_csrf_token_is_refused(tmp_path):
    client = make_app(tmp_path, WTF_CSRF_ENABLED=True).test_client()

    def token() -> str:
        return re.search(r'name="csrf_token"[^>]*value="([^"]+)"', client.get("/").text).group(1)

    group = client.post("/groups", data={"name": "Friday", "csrf_token": token()})
    group_id = int(group.headers["Location"].rsplit("/", 1)[1])
    for name, colour in (("Anna", "red"), ("Ben", "blue")):
        client.post(f"/groups/{group_id}/players",
                    data={"name": name, "colour": colour, "csrf_token": token()})
    db = store.connect(tmp_path / "companion.sqlite3")
    ids = [p.id for p in store.list_players(db, group_id)]
    started = client.post(f"/groups/{group_id}/plays/new/gold-west", data={
        "seat_0-player": ids[0], "seat_0-colour": "red", "seat_1-player": ids[1], "seat_1-colour": "blue",
        "csrf_token": token()})
    play_id = int(started.headers["Location"].rsplit("/", 1)[1])
    response = tap(client, play_id, "camp", seat="0")
    assert response.status_code == 400
    assert "The form had expired" in response.text
    assert store.list_events(db, play_id) == []
    assert tap(client, play_id, "camp", seat="0", csrf_token=token()).status_code == 302
    assert [e.kind for e in store.list_events(db, play_id)] == ["camp"]
    db.close()


def test_names_are_escaped_in_the_ledger(client, db):
    play_id = new_play(client, db, "<b>Anna</b>", "Ben")
    tap(client, play_id, "camp", seat="0")
    page = client.get(f"/plays/{play_id}").text
    assert "<b>Anna</b>" not in page
    assert "&lt;b&gt;Anna&lt;/b&gt; placed a camp" in page


# --------------------------------------------------------------------------------------------------
# Privacy


def test_a_phone_that_did_not_join_gets_404_on_the_gold_west_screens(app, client, db, anna_ben):
    stranger = app.test_client()
    other_group = app.test_client()
    create_group(other_group, "Other")
    for outsider in (stranger, other_group):
        for kind in gold_west.EVENT_KINDS:
            response = outsider.post(f"/plays/{anna_ben}/gold-west/ledger/{kind}", data={"seat": "0"})
            assert response.status_code == 404, kind
        assert outsider.get(f"/plays/{anna_ben}/gold-west/final-tally").status_code == 404
        assert outsider.post(f"/plays/{anna_ben}/gold-west/final-tally",
                             data={"confirmed": "y", "version": "0"}).status_code == 404
    assert store.list_events(db, anna_ben) == []
    assert store.get_play(db, anna_ben).status == "active"


# --------------------------------------------------------------------------------------------------
# The final tally and the result


def input_value(page: str, name: str) -> str:
    tag = re.search(rf'<input[^>]*\bname="{re.escape(name)}"[^>]*>', page).group(0)
    return re.search(r'\bvalue="([^"]*)"', tag).group(1)


def field_names(page: str) -> set[str]:
    return set(re.findall(r'<input[^>]*\bname="([^"]+)"', page))


def test_final_tally_is_prefilled_from_the_ledger(client, db, anna_ben):
    tap(client, anna_ben, "loot", seat="0")
    tap(client, anna_ben, "investment", seat="0", vp="7")
    tap(client, anna_ben, "shipping_bonus", seat="1", metal="silver")
    tap(client, anna_ben, "boomtown_1x1", seat="1")
    client.post(f"/plays/{anna_ben}/adjust", data={"seat": "1", "points": "2", "note": "knocked marker"})
    page = client.get(f"/plays/{anna_ben}/gold-west/final-tally").text
    assert input_value(page, "version") == "5"
    assert [input_value(page, f"p0-{name}") for name in ("track_vp", "wanted",
                                                         "investments")] == ["9", "1", "1"]
    assert [input_value(page, f"p1-{name}") for name in ("track_vp", "shipping_bonus_tiles",
                                                         "boomtown_1x1_tokens")] == ["14", "1", "1"]


def test_final_tally_asks_only_for_the_offices_dealt_and_their_counts(client, db, anna_ben):
    names = field_names(client.get(f"/plays/{anna_ben}/gold-west/final-tally").text)
    offices = {name.split("-")[1] for name in names if name.startswith("p0-office_")}
    assert offices == {f"office_{key}" for key in OFFICES}
    assert {"p0-office_frontier-count", "p0-office_docks-camps", "p0-office_docks-settlements"} <= names
    assert not {"p0-office_saloon-count", "p0-office_mayor-count", "p0-office_frontier-camps"} & names
    assert {"p0-influence-forest", "p1-settlements-copper", "p1-mining_tokens-gold", "p0-second_group",
            "p0-supply_left", "p1-boomtown_1x1_tokens"} <= names


def test_final_tally_asks_for_every_office_when_none_were_recorded(client, db):
    play_id = new_play(client, db, "Anna", "Ben", offices=[])
    names = field_names(client.get(f"/plays/{play_id}/gold-west/final-tally").text)
    assert {name.split("-")[1] for name in names if name.startswith("p1-office_")} == {
        f"office_{key}" for key in gold_west.OFFICE_KEYS}


def test_worked_example_7_through_the_final_tally(client, db):
    play_id = new_play(client, db, "Anna", "Ben", "Cara", offices=["saloon", "mayor", "deeds", "depot"])
    tap(client, play_id, "boomtown_1x1", seat="1")  # Ben: one of his 3 BoomTown tokens, +4 on the track
    response = client.post(f"/plays/{play_id}/gold-west/final-tally", data={
        "confirmed": "y", "version": "1",
        "p0-track_vp": "41", "p0-largest_group": "5", "p0-investments": "3", "p0-office_saloon-tokens": "1",
        "p0-influence-forest": "5", "p0-wanted": "2",
        "p1-track_vp": "50", "p1-largest_group": "4", "p1-office_mayor-tokens": "1",
        "p1-boomtown_1x1_tokens": "2", "p1-influence-forest": "3", "p1-wanted": "1",
    })
    assert response.status_code == 302
    assert response.headers["Location"].endswith(f"/plays/{play_id}/result")
    results = store.play_results(db, play_id)
    assert [(r.name, r.total, r.rank) for r in results] == [("Ben", 65, 1), ("Anna", 63, 2), ("Cara", 0, 3)]
    assert results[1].breakdown == {"track": 41, "largest_group": 10, "offices": 6, "wanted": -2,
                                    "influence": 8}
    final = store.list_events(db, play_id)[-1]
    assert final.kind == FINAL_EVENT
    assert final.payload["players"][1]["offices"] == [
        {"office": "mayor", "tokens": 1, "count": 0, "camps": 0, "settlements": 0}]
    assert final.payload["players"][1]["boomtown_1x1_tokens"] == 2
    assert store.get_play(db, play_id).status == "finished"


def test_result_page_explains_majorities_and_tie_breaks(client, db):
    play_id = new_play(client, db, "Anna", "Ben", "Cara")
    response = client.post(f"/plays/{play_id}/gold-west/final-tally", data={
        "confirmed": "y", "version": "0",
        "p0-track_vp": "30", "p0-influence-gold": "3", "p0-influence-forest": "2", "p0-supply_left": "2",
        "p1-track_vp": "24", "p1-influence-gold": "3", "p1-influence-forest": "2", "p1-wanted": "2",
        "p1-settlements-forest": "1", "p1-largest_group": "1",  # Ben's settlement: a group of 1, +2
        "p2-track_vp": "37", "p2-influence-gold": "1", "p2-influence-forest": "2", "p2-supply_left": "1",
    })
    assert response.status_code == 302
    assert [(r.name, r.total, r.rank) for r in store.play_results(db, play_id)] == [
        ("Anna", 39, 1), ("Cara", 39, 2), ("Ben", 39, 3)]
    page = html.unescape(client.get(f"/plays/{play_id}/result").text)
    majorities = re.sub(r"\s+", " ", page[page.index('id="gw-majorities"'):])
    assert ('<th scope="row">Gold <small class="muted">9 / 5</small></th> '
            '<td>Anna <b>7</b>, Ben <b>7</b></td> <td>–</td>') in majorities
    assert "Gold: Anna and Ben share 1st: 9 + 5 = 14, 7 each; no 2nd place." in page
    assert ("Forest: Ben 1st (8); Anna and Cara share 2nd: 4, 2 each (Ben is ahead of Anna on settlements, "
            "1 against 0; Ben is ahead of Cara on settlements, 1 against 0).") in page
    assert ("Anna, Ben and Cara tied on 39 VP; by fewest camps in the Wanted area (Anna 0, Ben 2, Cara 0), "
            "then most resources left on the supply track (Anna 2, Cara 1): Anna 1st; Cara 2nd; "
            "Ben 3rd.") in page
    assert page.count("tied on 39 VP") == 1  # one explanation of the tie, not one from each player's side


def test_result_recomputes_with_the_names_of_today(client, db, anna_ben):
    client.post(f"/plays/{anna_ben}/gold-west/final-tally", data={
        "confirmed": "y", "version": "0", "p0-influence-copper": "2", "p1-influence-copper": "1"})
    play = store.get_play(db, anna_ben)
    store.update_player(db, play.group_id, play.seats[0].player_id, "Annabel", "red")
    page = html.unescape(client.get(f"/plays/{anna_ben}/result").text)
    assert "Copper: Annabel holds the majority and takes the 2nd-place value (7)." in page


def test_a_broken_rule_is_shown_at_the_players_card_and_nothing_is_stored(client, db, anna_ben):
    response = client.post(f"/plays/{anna_ben}/gold-west/final-tally", data={
        "confirmed": "y", "version": "0", "p1-largest_group": "3", "p1-second_group": "5",
        "p1-track_vp": "20"})
    assert response.status_code == 400
    card = re.search(r'<fieldset class="card gw-tally invalid" id="gw-tally-1">.*?</legend>\s*'
                     r'<p[^>]*>(.*?)</p>', response.text, re.S)
    assert card and "second-largest group (5) cannot be larger than the largest group (3)" in card.group(1)
    assert '<fieldset class="card gw-tally" id="gw-tally-0">' in response.text  # Anna's card is fine
    assert input_value(response.text, "p1-track_vp") == "20"  # what was typed stays
    assert store.get_play(db, anna_ben).status == "active"
    assert store.list_events(db, anna_ben) == []
    assert store.play_results(db, anna_ben) == ()


@pytest.mark.parametrize(
    ("field", "value"),
    [pytest.param("p0-wanted", "-1", id="negative"), pytest.param("p0-influence-gold", "lots", id="text"),
     pytest.param("p1-office_mayor-tokens", "3", id="three-tokens-on-an-office"),
     pytest.param("p0-wanted", "9" * 309, id="too-many-digits"),
     pytest.param("version", "x", id="no-version")],
)
def test_bad_numbers_are_form_errors_and_store_nothing(client, db, anna_ben, field, value):
    response = client.post(f"/plays/{anna_ben}/gold-west/final-tally", data={"confirmed": "y", "version": "0",
                                                                             field: value})
    assert response.status_code == 400
    assert 'class="error"' in response.text
    assert store.get_play(db, anna_ben).status == "active"
    assert store.list_events(db, anna_ben) == []


# Anna and Ben level on VP and Wanted camps: the resources left on the supply track the table types
LEVEL_SUPPLY = {"p0-supply_left": "2", "p1-supply_left": "2"}


def test_an_emptied_box_counts_as_zero(client, db, anna_ben):
    tap(client, anna_ben, "supply", seat="0", section="3")
    # level on 0 VP and Wanted camps: the table types the resources left that decide
    response = client.post(f"/plays/{anna_ben}/gold-west/final-tally",
                           data={"confirmed": "y", "version": "1", "p0-track_vp": "", **LEVEL_SUPPLY})
    assert response.status_code == 302
    assert {r.name: r.total for r in store.play_results(db, anna_ben)} == {"Anna": 0, "Ben": 0}


def test_a_stale_final_tally_is_refused_with_the_current_version(client, db, anna_ben):
    page = client.get(f"/plays/{anna_ben}/gold-west/final-tally").text
    tap(client, anna_ben, "supply", seat="0", section="3")  # another phone, meanwhile
    response = client.post(f"/plays/{anna_ben}/gold-west/final-tally",
                           data={"confirmed": "y", "version": input_value(page, "version"),
                                 "p0-track_vp": "0", **LEVEL_SUPPLY})
    assert response.status_code == 409
    assert "Another phone changed this play" in response.text
    assert input_value(response.text, "version") == "1"
    assert store.get_play(db, anna_ben).status == "active"


def changed_marks(page: str) -> dict[str, str]:
    """The boxes a stale form brought up to date or asks to check, with what the page says by them."""
    return {name: html.unescape(note) for name, note in re.findall(
        r'<input[^>]*\bname="([^"]+)"[^>]*>\s*<p class="changed">([^<]*)</p>', page)}


def test_a_stale_final_tally_takes_the_ledgers_new_numbers_and_keeps_what_was_typed(client, db, anna_ben):
    sent = {**form_values(client.get(f"/plays/{anna_ben}/gold-west/final-tally").text), "confirmed": "y",
            "p0-largest_group": "5", "p1-largest_group": "4", "p1-track_vp": "3"}
    tap(client, anna_ben, "loot", seat="0")  # another phone, meanwhile
    tap(client, anna_ben, "investment", seat="1", vp="7")
    refused = client.post(f"/plays/{anna_ben}/gold-west/final-tally", data=sent)
    assert refused.status_code == 409 and "Another phone changed this play" in refused.text

    fresh = form_values(client.get(f"/plays/{anna_ben}/gold-west/final-tally").text)
    assert fresh["p0-wanted"] == "1" and fresh["p1-track_vp"] != "0"
    assert changed_marks(refused.text) == {
        "p0-track_vp": "Another phone changed this (it was 0).",
        "p0-wanted": "Another phone changed this (it was 0).",
        "p1-investments": "Another phone changed this (it was 0).",
        "p1-track_vp": f"Another phone changed this to {fresh['p1-track_vp']}; what you typed is kept: "
                       "check it."}
    again = form_values(refused.text)
    shown = ("p0-track_vp", "p0-wanted", "p1-track_vp", "p0-largest_group")
    assert {name: again[name] for name in shown} == {
        "p0-track_vp": fresh["p0-track_vp"], "p0-wanted": "1", "p1-track_vp": "3", "p0-largest_group": "5"}
    assert again["version"] == fresh["version"] == str(store.get_play(db, anna_ben).version)

    assert client.post(f"/plays/{anna_ben}/gold-west/final-tally", data=again).status_code == 302
    players = store.final_payload(db, anna_ben)["players"]
    assert [(p["track_vp"], p["wanted"], p["investments"]) for p in players] == [
        (int(fresh["p0-track_vp"]), 1, 0), (3, 0, 1)]


def test_a_finished_play_sends_the_tally_and_the_ledger_to_the_result(client, db, anna_ben):
    client.post(f"/plays/{anna_ben}/gold-west/final-tally", data={"confirmed": "y", "version": "0",
                                                                  **LEVEL_SUPPLY})
    assert store.get_play(db, anna_ben).status == "finished"
    response = client.get(f"/plays/{anna_ben}/gold-west/final-tally")
    assert response.status_code == 302 and response.headers["Location"].endswith("/result")
    # a tap after the end is refused, with the way to the result
    response = tap(client, anna_ben, "camp", seat="0")
    assert response.status_code == 409 and f'href="/plays/{anna_ben}/result"' in response.text
    assert [e.kind for e in store.list_events(db, anna_ben)] == [FINAL_EVENT]


def test_the_play_page_links_to_the_gold_west_final_tally(client, anna_ben):
    assert f'href="/plays/{anna_ben}/gold-west/final-tally"' in client.get(f"/plays/{anna_ben}").text


def test_a_play_closed_with_plain_totals_shows_no_majorities(client, db, anna_ben):
    client.post(f"/plays/{anna_ben}/finish", data={"version": "0", "total_0": "3", "total_1": "4"})
    page = client.get(f"/plays/{anna_ben}/result")
    assert page.status_code == 200 and "Ben wins!" in page.text
    assert "Terrain majorities" not in page.text


def totals_form(client, play_id, **typed) -> dict[str, str]:
    """The totals-only form as a phone sends it back, with ``typed`` filled in."""
    return {**form_values(client.get(f"/plays/{play_id}/finish").text), **typed}


def test_totals_tied_on_points_and_wanted_ask_the_resources_left_and_keep_them(client, db):
    play_id = new_play(client, db, "Anna", "Ben", "Cara")
    tied = totals_form(client, play_id, total_0="40", total_1="40", total_2="30")
    assert [tied[f"wanted_{seat}"] for seat in range(3)] == ["0", "0", "0"]  # as the ledger counted them
    response = client.post(f"/plays/{play_id}/finish", data=tied)
    assert response.status_code == 400 and errors_on(response.text) == [
        "Anna and Ben are tied on 40 VP and on camps in the Wanted area (0 each): the resources left on the "
        "supply track decide. Enter them for Anna and Ben."]
    assert '<details class="card" open>' in response.text and 'name="supply_left_0"' in response.text
    assert store.get_play(db, play_id).status == "active"

    assert client.post(f"/plays/{play_id}/finish",
                       data={**tied, "supply_left_0": "1", "supply_left_1": "3"}).status_code == 302
    ranks = [(r.name, r.rank) for r in store.play_results(db, play_id)]
    assert ranks == [("Ben", 1), ("Anna", 2), ("Cara", 3)]
    result = html.unescape(client.get(f"/plays/{play_id}/result").text)
    assert "Ben wins!" in result and "Terrain majorities" not in result
    assert ("Anna and Ben tied on 40 VP; by most resources left on the supply track (Anna 1, Ben 3): "
            "Ben 1st; Anna 2nd.") in result

    # reopened, the form comes back as it was sent
    client.post(f"/plays/{play_id}/undo", data={"version": str(store.get_play(db, play_id).version)})
    values = totals_form(client, play_id)
    assert [values[f"supply_left_{seat}"] for seat in range(3)] == ["1", "3", ""]
    assert [values[f"total_{seat}"] for seat in range(3)] == ["40", "40", "30"]

    # a correction into a tie the typed resources left do not cover asks to reopen the play
    assert client.post(f"/plays/{play_id}/finish", data=values).status_code == 302
    version = store.get_play(db, play_id).version
    response = client.post(f"/plays/{play_id}/correct", data={"version": str(version), "seat0-total": "40",
                                                               "seat1-total": "35", "seat2-total": "40"})
    assert response.status_code == 400 and "the final tally has none for Cara" in html.unescape(response.text)
    assert store.get_play(db, play_id).version == version


@pytest.mark.parametrize(("loot", "typed", "expected"), [
    (True, {}, [("Ben", 1), ("Anna", 2)]),
    (False, {"wanted_1": "2"}, [("Anna", 1), ("Ben", 2)]),
    (False, {"supply_left_0": "2", "supply_left_1": "2"}, [("Anna", 1), ("Ben", 1)]),
], ids=["the-ledgers-wanted", "wanted-typed", "still-tied-shared"])
def test_totals_tied_on_points_are_ranked_by_the_wanted_camps_then_the_resources_left(client, db, anna_ben,
                                                                                     loot, typed, expected):
    if loot:
        tap(client, anna_ben, "loot", seat="0")
    data = totals_form(client, anna_ben, total_0="40", total_1="40", **typed)
    assert client.post(f"/plays/{anna_ben}/finish", data=data).status_code == 302
    assert [(r.name, r.rank) for r in store.play_results(db, anna_ben)] == expected


def test_stale_typed_totals_take_the_ledgers_new_wanted_camps(client, db, anna_ben):
    sent = totals_form(client, anna_ben, total_0="40", total_1="40")
    assert [sent["wanted_0"], sent["wanted_1"]] == ["0", "0"]
    tap(client, anna_ben, "loot", seat="0")  # another phone, meanwhile: Anna's camp goes to the Wanted area
    refused = client.post(f"/plays/{anna_ben}/finish", data=sent)
    assert refused.status_code == 409 and '<details class="card" open>' in refused.text
    assert changed_marks(refused.text) == {"wanted_0": "Another phone changed this (it was 0)."}
    again = form_values(refused.text)
    assert [again["wanted_0"], again["wanted_1"], again["total_0"]] == ["1", "0", "40"]
    assert client.post(f"/plays/{anna_ben}/finish", data=again).status_code == 302
    assert [(r.name, r.rank) for r in store.play_results(db, anna_ben)] == [("Ben", 1), ("Anna", 2)]


@pytest.mark.parametrize("drawn", ["", "not json", "[" * 50_000, '{"wanted_0": 0}', '["wanted_0"]'])
def test_a_stale_form_drawn_with_anything_keeps_every_box_as_sent(client, db, anna_ben, drawn):
    sent = totals_form(client, anna_ben, total_0="40", total_1="38", drawn=drawn)
    tap(client, anna_ben, "loot", seat="0")
    refused = client.post(f"/plays/{anna_ben}/finish", data=sent)
    assert refused.status_code == 409 and "(it was" not in refused.text  # no box brought up to date
    assert form_values(refused.text)["wanted_0"] == "0"
    assert store.get_play(db, anna_ben).status == "active"


def test_reopening_brings_back_the_whole_tally_and_one_fix_is_one_change(client, db, anna_ben):
    tap(client, anna_ben, "investment", seat="0", vp="7")
    entered = {"confirmed": "y", "version": "1", "p0-largest_group": "5", "p0-office_saloon-tokens": "1",
               "p0-influence-forest": "4", "p0-supply_left": "2", "p1-office_frontier-tokens": "2",
               "p1-office_frontier-count": "3", "p1-influence-gold": "3", "p1-largest_group": "4"}
    assert client.post(f"/plays/{anna_ben}/gold-west/final-tally", data=entered).status_code == 302
    first = store.get_play(db, anna_ben)
    assert client.post(f"/plays/{anna_ben}/undo", data={"version": str(first.version)}).status_code == 302

    page = client.get(f"/plays/{anna_ben}/gold-west/final-tally").text
    values = form_values(page)
    for name, value in entered.items():
        if name not in ("version", "confirmed"):
            assert values[name] == value, name
    assert values["p0-track_vp"] == "10"  # 7 + the 3 bonus tile, from the ledger as before
    values["p1-largest_group"] = "6"  # the typo
    values["confirmed"] = "y"  # no camp was placed: the page asked once already
    assert client.post(f"/plays/{anna_ben}/gold-west/final-tally", data=values).status_code == 302
    again = store.get_play(db, anna_ben)
    assert again.ended_at == first.ended_at
    payload = store.final_payload(db, anna_ben)["players"]
    assert payload[1]["largest_group"] == 6 and payload[1]["offices"][0]["count"] == 3
    assert payload[0]["offices"][0] == {"office": "saloon", "tokens": 1, "count": 0, "camps": 0,
                                        "settlements": 0}


def test_a_reopened_play_whose_ledger_changed_starts_from_the_new_ledger_and_the_rows_typed(client, db,
                                                                                           anna_ben):
    client.post(f"/plays/{anna_ben}/gold-west/final-tally",
                data={"confirmed": "y", "version": "0", "p0-largest_group": "5", "p0-track_vp": "0"})
    client.post(f"/plays/{anna_ben}/undo", data={"version": "1"})
    tap(client, anna_ben, "boomtown_1x1", seat="0")  # forgotten during play
    values = form_values(client.get(f"/plays/{anna_ben}/gold-west/final-tally").text)
    assert (values["p0-track_vp"], values["p0-largest_group"]) == ("4", "5")


# --------------------------------------------------------------------------------------------------
# What only the board shows starts empty: sent as shown, the tally asks for it rather than scoring 0


def card_errors(page: str, seat: int) -> list[str]:
    """The rules' messages shown at the top of one player's card of the final tally."""
    card = page[page.index(f'id="gw-tally-{seat}"'):]
    return errors_on(card[card.index("</legend>"):card.index('<div class="gw-pair">')])


def top_errors(page: str) -> list[str]:
    """The messages above the players' cards."""
    return errors_on(page[page.index("<form"):page.index('id="gw-tally-0"')])


def sent_as_shown(client, play_id: int, **typed: str):
    """The final tally as the page fills it in, with what the table typed (``p0-largest_group``...)."""
    values = form_values(client.get(f"/plays/{play_id}/gold-west/final-tally").text)
    return client.post(f"/plays/{play_id}/gold-west/final-tally", data={**values, "confirmed": "y", **typed})


OFFICES_THAT_COUNT = ["sheriff", "docks", "frontier", "surveyor"]


@pytest.mark.parametrize(
    ("office", "typed", "points"),
    [
        pytest.param("sheriff", {"count": "3"}, 3, id="sheriff"),
        pytest.param("sheriff", {"count": "0"}, 0, id="sheriff-0-typed"),
        pytest.param("frontier", {"count": "4"}, 4, id="frontier"),
        pytest.param("surveyor", {"count": "2"}, 2, id="surveyor"),
        pytest.param("docks", {"camps": "1", "settlements": "2"}, 5, id="docks"),
        pytest.param("docks", {"camps": "0", "settlements": "0"}, 0, id="docks-0-typed"),
    ],
)
def test_what_an_office_counts_on_the_map_starts_empty_and_is_asked_for(client, db, office, typed, points):
    play_id = new_play(client, db, "Anna", "Ben", offices=OFFICES_THAT_COUNT)
    assert tap(client, play_id, "boomtown", seat="0", office=office).status_code == 302
    page = client.get(f"/plays/{play_id}/gold-west/final-tally").text
    assert input_value(page, f"p0-office_{office}-tokens") == "1"
    assert [input_value(page, f"p0-office_{office}-{name}") for name in typed] == [""] * len(typed)
    ben_ahead = {"p1-track_vp": "20"}  # no tie to break

    refused = sent_as_shown(client, play_id, **ben_ahead)
    assert refused.status_code == 400
    label = gold_west.OFFICES_BY_KEY[office].label
    [message] = card_errors(refused.text, 0)
    assert "Anna" in message and label in message and message.startswith("Enter ")
    assert card_errors(refused.text, 1) == []
    assert store.get_play(db, play_id).status == "active" and len(store.list_events(db, play_id)) == 1

    # one box of the two is not enough
    if len(typed) == 2:
        first = next(iter(typed))
        response = sent_as_shown(client, play_id, **ben_ahead, **{f"p0-office_{office}-{first}": "1"})
        assert response.status_code == 400 and card_errors(response.text, 0) == [message]

    response = sent_as_shown(client, play_id, **ben_ahead,
                             **{f"p0-office_{office}-{name}": value for name, value in typed.items()})
    assert response.status_code == 302
    [claim] = store.final_payload(db, play_id)["players"][0]["offices"]
    assert claim["office"] == office and {name: claim[name] for name in typed} == {
        name: int(value) for name, value in typed.items()}
    assert store.play_results(db, play_id)[1].breakdown["offices"] == points


@pytest.mark.parametrize(("office", "typed"), [
    pytest.param("frontier", {"count": "50"}, id="frontier-50-for-40"),
    pytest.param("docks", {"camps": "7", "settlements": "6"}, id="docks-13-buildings"),
])
def test_an_office_counting_more_buildings_than_a_player_has_is_refused(client, db, office, typed):
    play_id = new_play(client, db, "Anna", "Ben", offices=OFFICES_THAT_COUNT)
    assert tap(client, play_id, "boomtown", seat="0", office=office).status_code == 302
    response = sent_as_shown(client, play_id, **{"p1-track_vp": "20"},
                             **{f"p0-office_{office}-{name}": value for name, value in typed.items()})
    assert response.status_code == 400
    [message] = card_errors(response.text, 0)
    assert message.startswith("Anna has at most 12 buildings on the map (12 camps with 2 players, 0 of them "
                              "Wanted), but the ")
    assert store.get_play(db, play_id).status == "active" and len(store.list_events(db, play_id)) == 1


def test_a_token_added_in_the_tally_asks_for_the_count_too(client, db):
    play_id = new_play(client, db, "Anna", "Ben", offices=OFFICES_THAT_COUNT)
    response = sent_as_shown(client, play_id, **{"p1-office_sheriff-tokens": "1", "p0-track_vp": "9"})
    assert response.status_code == 400
    assert card_errors(response.text, 1) == [
        "Enter how many the Sheriff office counts for Ben (1 per building touching an opponent's building): "
        "Ben has tokens on it."]
    # a count without tokens asks nothing
    assert sent_as_shown(client, play_id, **{"p0-track_vp": "9"}).status_code == 302


@pytest.mark.parametrize(
    ("largest", "status", "message"),
    [
        pytest.param(None, 400, "Enter how many buildings are in Anna's largest group: Anna has buildings on "
                                "the map.", id="left-empty"),
        pytest.param("  ", 400, "Enter how many buildings are in Anna's largest group: Anna has buildings on "
                                "the map.", id="spaces"),
        pytest.param("0", 400, "Anna's largest group cannot be 0: the mining tokens and settlements show 2 "
                               "buildings, so it has at least 1.", id="0-typed"),
        pytest.param("2", 302, None, id="typed"),
    ],
)
def test_the_largest_group_starts_empty_and_is_asked_for_a_player_with_buildings(client, db, anna_ben,
                                                                                 largest, status, message):
    tap(client, anna_ben, "camp", seat="0", terrain="gold")
    tap(client, anna_ben, "settlement", seat="0", terrain="silver")
    tap(client, anna_ben, "loot", seat="1")  # Ben: no building on the map
    page = client.get(f"/plays/{anna_ben}/gold-west/final-tally").text
    assert [input_value(page, f"p{seat}-{name}") for seat in (0, 1)
            for name in ("largest_group", "second_group")] == ["", "", "", ""]
    typed = {} if largest is None else {"p0-largest_group": largest}
    response = sent_as_shown(client, anna_ben, **typed)
    assert response.status_code == status
    if message:
        assert card_errors(response.text, 0) == [message] and card_errors(response.text, 1) == []
        assert store.get_play(db, anna_ben).status == "active"
    else:
        # Ben's boxes were left empty: he has no buildings, so no group, and nothing is made up for him
        assert [r.breakdown["largest_group"] for r in store.play_results(db, anna_ben)] == [4, 0]
        stored = store.final_payload(db, anna_ben)["players"]
        assert [(p["largest_group"], p["second_group"]) for p in stored] == [(2, None), (None, None)]


@pytest.mark.parametrize(("second", "status"), [(None, 400), ("0", 302), ("2", 302)],
                         ids=["left-empty", "0-typed", "typed"])
def test_the_second_largest_group_is_asked_for_a_player_on_the_depot(client, db, second, status):
    play_id = new_play(client, db, "Anna", "Ben", offices=["depot", "saloon", "mayor", "docks"])
    tap(client, play_id, "boomtown", seat="1", office="depot")
    typed = {"p1-largest_group": "3", "p1-track_vp": "1"}
    if second is not None:
        typed["p1-second_group"] = second
    response = sent_as_shown(client, play_id, **typed)
    assert response.status_code == status
    if status == 400:
        assert card_errors(response.text, 1) == [
            "Enter how many buildings are in Ben's second-largest group (0 if there is none): Ben has tokens "
            "on the Depot office, which counts them."]
    else:
        assert store.play_results(db, play_id)[0].breakdown["offices"] == 2 * int(second)


def test_every_number_missing_is_shown_at_once_at_its_players_card(client, db):
    play_id = new_play(client, db, "Anna", "Ben", "Cara", offices=OFFICES_THAT_COUNT)
    for kind, seat, data in (("camp", "0", {"terrain": "forest"}), ("boomtown", "0", {"office": "frontier"}),
                             ("boomtown", "1", {"office": "docks"}), ("supply", "2", {"section": "3"})):
        assert tap(client, play_id, kind, seat=seat, **data).status_code == 302
    response = sent_as_shown(client, play_id)
    assert response.status_code == 400
    assert card_errors(response.text, 0) == [
        "Enter how many buildings are in Anna's largest group: Anna has buildings on the map.",
        "Enter how many the Frontier office counts for Anna (1 per building touching the board edge): Anna "
        "has tokens on it."]
    assert card_errors(response.text, 1) == [
        "Enter Ben's camps and settlements touching water for the Docks office: Ben has tokens on it."]
    assert card_errors(response.text, 2) == []


TIED = {"p0-track_vp": "12", "p1-track_vp": "12"}  # Anna and Ben level on VP, no camp in the Wanted area


@pytest.mark.parametrize(
    ("supply", "message"),
    [
        pytest.param({}, "Enter them for Anna and Ben.", id="both-empty"),
        pytest.param({"p0-supply_left": "3"}, "Enter them for Ben.", id="one-typed"),
        pytest.param({"p0-supply_left": "", "p1-supply_left": "0"}, "Enter them for Anna.", id="one-emptied"),
    ],
)
def test_a_tie_the_resources_left_decide_asks_for_them(client, db, anna_ben, supply, message):
    tap(client, anna_ben, "camp", seat="0")
    page = client.get(f"/plays/{anna_ben}/gold-west/final-tally").text
    assert [input_value(page, f"p{seat}-supply_left") for seat in (0, 1)] == ["", ""]
    response = sent_as_shown(client, anna_ben, **TIED, **supply)
    assert response.status_code == 400
    assert top_errors(response.text) == [
        "Anna and Ben are tied on 12 VP and on camps in the Wanted area (0 each): the resources left on the "
        f"supply track decide. {message}"]
    assert input_value(response.text, "p0-track_vp") == "12"  # what was typed stays
    assert store.get_play(db, anna_ben).status == "active" and store.play_results(db, anna_ben) == ()


@pytest.mark.parametrize(
    ("supply", "ranks", "note"),
    [
        pytest.param(("1", "3"), [("Ben", 1), ("Anna", 2)],
                     "Anna and Ben tied on 12 VP; by most resources left on the supply track (Anna 1, "
                     "Ben 3): Ben 1st; Anna 2nd.", id="decided"),
        pytest.param(("0", "0"), [("Anna", 1), ("Ben", 1)], None, id="0-typed-for-both-shares"),
    ],
)
def test_a_tie_is_ranked_by_the_resources_left_typed(client, db, anna_ben, supply, ranks, note):
    tap(client, anna_ben, "camp", seat="0")
    typed = {"p0-supply_left": supply[0], "p1-supply_left": supply[1]}
    response = sent_as_shown(client, anna_ben, **TIED, **typed)
    assert response.status_code == 302
    assert [(r.name, r.rank) for r in store.play_results(db, anna_ben)] == ranks
    page = html.unescape(client.get(f"/plays/{anna_ben}/result").text)
    assert (note in page) if note else ("tied on 12 VP" not in page)


def test_resources_left_no_tie_needs_stay_empty_and_come_back_empty(client, db, anna_ben):
    tap(client, anna_ben, "camp", seat="0")
    response = sent_as_shown(client, anna_ben, **{"p0-track_vp": "12", "p1-track_vp": "11"})
    assert response.status_code == 302
    assert [p["supply_left"] for p in store.final_payload(db, anna_ben)["players"]] == [None, None]
    assert "Anna wins!" in client.get(f"/plays/{anna_ben}/result").text
    version = store.get_play(db, anna_ben).version
    assert client.post(f"/plays/{anna_ben}/undo", data={"version": str(version)}).status_code == 302
    page = client.get(f"/plays/{anna_ben}/gold-west/final-tally").text
    assert [input_value(page, f"p{seat}-supply_left") for seat in (0, 1)] == ["", ""]
    assert input_value(page, "p0-track_vp") == "12"


def test_the_tally_sent_as_the_ledger_fills_it_scores_nothing_the_table_did_not_give(client, db):
    """The reviewer's case: tokens on counting offices, camps, and a tie, sent without typing the board."""
    play_id = new_play(client, db, "Anna", "Ben", offices=["sheriff", "frontier", "mayor", "saloon"])
    for seat, terrain in ((0, "gold"), (1, "silver"), (0, "gold"), (1, "silver")):
        assert tap(client, play_id, "camp", seat=str(seat), terrain=terrain).status_code == 302
    tap(client, play_id, "boomtown", seat="0", office="sheriff")
    tap(client, play_id, "boomtown", seat="1", office="frontier")
    refused = sent_as_shown(client, play_id)
    assert refused.status_code == 400
    assert [len(card_errors(refused.text, seat)) for seat in (0, 1)] == [2, 2]  # largest group and count
    board = {"p0-largest_group": "2", "p1-largest_group": "2", "p0-office_sheriff-count": "2",
             "p1-office_frontier-count": "1"}
    # Anna 4 + 2 + 5 (gold, 2 players), Ben 4 + 1 + 6 (silver): level on 11 VP and on Wanted camps
    tied = sent_as_shown(client, play_id, **board)
    assert tied.status_code == 400 and "Enter them for Anna and Ben." in top_errors(tied.text)[0]
    assert sent_as_shown(client, play_id, **board, **{"p0-supply_left": "2", "p1-supply_left": "1"}
                         ).status_code == 302
    assert [(r.name, r.total, r.rank) for r in store.play_results(db, play_id)] == [("Anna", 11, 1),
                                                                                    ("Ben", 11, 2)]
    assert [p["offices"][0]["count"] for p in store.final_payload(db, play_id)["players"]] == [2, 1]
