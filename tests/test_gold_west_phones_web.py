"""Gold West on several phones at once: a tap from a page drawn before another phone entered the same for
the same player is asked about, not stored twice, and so is one whose tile another phone's entry took
meanwhile; this phone's own taps and taps with nothing entered since are one tap as before."""

from __future__ import annotations

import html
import re

import pytest

from companion import store
from companion.games import gold_west
from companion.games.common import PlaySetup, Seat
from tests.test_gold_west_web import new_play, table, tap

ANNA, BEN = 0, 1


@pytest.fixture
def anna_ben(client, db) -> int:
    return new_play(client, db, "Anna", "Ben")


def second_phone(app, db, play_id):
    """Another phone of the group, shared by the table until it says whose it is."""
    phone = app.test_client()
    group_id = store.get_play(db, play_id).group_id
    assert phone.post(f"/join/{store.get_group(db, group_id).token}").status_code == 302
    return phone


def text(response_or_page) -> str:
    """A page as a person reads it: entities resolved, runs of space folded."""
    page = getattr(response_or_page, "text", response_or_page)
    return re.sub(r"\s+", " ", html.unescape(page))


def hidden_fields(form: str) -> dict[str, str]:
    return {name: html.unescape(value) for name, value in
            re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', form) if name != "csrf_token"}


def tap_on(phone, page: str, kind: str, seat: int, **chosen):
    """The tap a phone sends from the ``page`` it shows: the form of ``kind`` for ``seat`` with all it
    carries, and the button's value (``section``, ``terrain`` …) plus ``chosen`` extras (a request id); of
    several such forms (one per shipping bonus), the one with the button chosen."""
    forms = re.findall(rf'<form method="post" action="(/plays/\d+/gold-west/ledger/{kind})">(.*?)</form>',
                       page, re.S)
    [(action, fields)] = [(action, fields) for action, fields in forms
                          if hidden_fields(fields).get("seat") == str(seat)
                          and all(f'<button name="{name}" value="{value}"' in fields
                                  for name, value in chosen.items() if f'<button name="{name}"' in fields)]
    sent = hidden_fields(fields)
    assert sent.get("drawn_at", "").isdigit(), "the tap says which version of the play its page showed"
    return phone.post(action, data={**sent, **chosen})


def answer(response, label: str):
    """The one-tap answer of the page's question that reads ``label``: (address, its fields)."""
    forms = re.findall(r'<form method="post" action="([^"]+)" class="gw-inline">(.*?)</form>', response.text,
                       re.S)
    [(action, fields)] = [(action, fields) for action, fields in forms if label in fields]
    return action, hidden_fields(fields)


def events(db, play_id) -> list[tuple[str, dict]]:
    return [(e.kind, dict(e.payload)) for e in store.list_events(db, play_id)]


def play_page(phone, play_id) -> str:
    response = phone.get(f"/plays/{play_id}")
    assert response.status_code == 200
    return response.text


ASKED_SUPPLY = ("Another phone entered a supply-track section for Anna since this page was drawn. "
                "Record this tap as well?")
ASKED_CAMP = "Another phone entered a camp for Anna since this page was drawn. Record this tap as well?"


# --------------------------------------------------------------------------------------------------
# The same tap on two phones


def test_every_tap_form_carries_the_version_its_page_was_drawn_at(client, db, anna_ben):
    tap(client, anna_ben, "supply", seat="0", section="2")
    page = play_page(client, anna_ben)
    forms = re.findall(r'<form method="post" action="/plays/\d+/gold-west/ledger/\w+">(.*?)</form>', page,
                       re.S)
    assert len(forms) > 10
    assert {hidden_fields(form).get("drawn_at") for form in forms} == {"1"}


def tapped_on_two_phones(app, client, db, play_id: int, kind: str, **fields: str):
    """The same tap for Anna on the shared phone, then on a second phone whose page was drawn before it:
    that phone and its answer."""
    other = second_phone(app, db, play_id)
    shared, also_shown = play_page(client, play_id), play_page(other, play_id)
    assert tap_on(client, shared, kind, ANNA, **fields).status_code == 302
    return other, tap_on(other, also_shown, kind, ANNA, **fields)


def test_the_same_supply_tap_on_two_phones_is_asked_and_stored_once(app, client, db, anna_ben):
    _other, response = tapped_on_two_phones(app, client, db, anna_ben, "supply", section="3")
    assert response.status_code == 409
    assert ASKED_SUPPLY in text(response) and "Nothing was recorded yet." in text(response)
    assert events(db, anna_ben) == [("supply", {"seat": ANNA, "section": 3})]
    assert table(db, anna_ben).scores == (3, 0)
    # the way back: the play as it is, Anna's 3 once
    assert f'href="/plays/{anna_ben}#gw-ledger">Cancel</a>' in response.text
    assert table(db, anna_ben).scores == (3, 0)


def test_yes_records_the_tap_asked_about_in_one_tap(app, client, db, anna_ben):
    other, asked = tapped_on_two_phones(app, client, db, anna_ben, "supply", section="3")
    action, fields = answer(asked, "Yes, record it")
    # as of the page asking; the answer is also one to "out of turn?" and "again this turn?"
    assert fields == {"seat": "0", "again": "once turn", "drawn_at": "1", "section": "3"}
    assert other.post(action, data=fields).status_code == 302
    assert events(db, anna_ben) == [("supply", {"seat": ANNA, "section": 3})] * 2
    assert table(db, anna_ben).scores == (6, 0)


@pytest.mark.parametrize(("kind", "terrain"), [
    pytest.param("camp", "silver", id="her-camp-again"),
    pytest.param("settlement", "silver", id="a-settlement-for-the-turn-her-camp-ended"),
])
def test_a_players_own_phone_asks_before_a_second_copy_of_her_camp(app, client, db, anna_ben, kind, terrain):
    annas = second_phone(app, db, anna_ben)
    assert annas.post(f"/plays/{anna_ben}/phone-player", data={"phone-player": "0"}).status_code == 302
    on_annas = play_page(annas, anna_ben)
    assert tap_on(client, play_page(client, anna_ben), "camp", ANNA, terrain="silver").status_code == 302
    response = tap_on(annas, on_annas, kind, ANNA, terrain=terrain)  # drawn before the shared phone's camp
    assert response.status_code == 409
    assert ASKED_CAMP in text(response)
    assert events(db, anna_ben) == [("camp", {"seat": ANNA, "terrain": "silver"})]
    assert table(db, anna_ben).camps_placed == (1, 0)
    action, fields = answer(response, "Yes, record it")
    assert fields["again"] == "once turn" and fields["terrain"] == terrain
    assert annas.post(action, data=fields).status_code == 302
    assert table(db, anna_ben).camps_placed == (2, 0)


def test_the_same_camp_on_two_shared_phones_is_asked_once_not_as_out_of_turn(app, client, db, anna_ben):
    other, response = tapped_on_two_phones(app, client, db, anna_ben, "camp", terrain="gold")
    assert response.status_code == 409
    assert ASKED_CAMP in text(response) and "It is Ben's turn" not in text(response)
    action, fields = answer(response, "Yes, record it")
    assert other.post(action, data=fields).status_code == 302  # one answer, no second question
    assert [kind for kind, _ in events(db, anna_ben)] == ["camp", "camp"]


def test_a_yes_to_an_older_question_asks_about_what_another_phone_entered_since(app, client, db, anna_ben):
    """A "yes" answers the question as its page showed the play: Ben's supply entered on the shared phone
    while the second phone asked "Ben again?" is asked about, not recorded twice without a word."""
    other = second_phone(app, db, anna_ben)
    asked = tap_on(other, play_page(other, anna_ben), "supply", BEN, section="2")
    assert asked.status_code == 409 and "It is Anna's turn. Ben again?" in text(asked)
    assert tap(client, anna_ben, "supply", seat="1", section="2").status_code == 302  # meanwhile
    action, fields = answer(asked, "Yes, for Ben")
    again = other.post(action, data=fields)
    assert again.status_code == 409
    assert ("Another phone entered a supply-track section for Ben since this page was drawn. Record this tap "
            "as well?") in text(again)
    assert events(db, anna_ben) == [("supply", {"seat": BEN, "section": 2})]
    action, fields = answer(again, "Yes, record it")
    assert other.post(action, data=fields).status_code == 302
    assert events(db, anna_ben) == [("supply", {"seat": BEN, "section": 2})] * 2


def test_a_yes_to_out_of_turn_still_asks_about_a_second_placement_this_turn(client, db):
    """Each question is answered on its own: "Cara again?" out of turn does not also say yes to a second
    mining token of Cara's in her turn."""
    play_id = new_play(client, db, "Anna", "Ben", "Cara")
    for kind, seat, data in (("supply", "2", {"section": "1"}), ("camp", "0", {})):
        assert tap(client, play_id, kind, seat=seat, **data).status_code == 302
    asked = tap(client, play_id, "supply", again=False, seat="2", section="3")
    assert asked.status_code == 409 and "It is Ben's turn. Cara again?" in text(asked)
    action, fields = answer(asked, "Yes, for Cara")
    again = client.post(action, data=fields)
    assert again.status_code == 409
    assert ("Cara has put a mining token's resources on the supply track this turn already. "
            "Again?") in text(again)
    assert len(events(db, play_id)) == 2
    action, fields = answer(again, "Yes, record it")
    assert fields["again"] == "once turn"
    assert client.post(action, data=fields).status_code == 302
    assert events(db, play_id)[-1] == ("supply", {"seat": 2, "section": 3})


@pytest.mark.parametrize(("kind", "chosen", "shown", "asked", "stored"), [
    pytest.param("shipping_bonus", {"metal": "gold"}, "Bonus · +9",
                 "Anna took the gold shipping bonus tile of +9 since this page was drawn. "
                 "Record Ben's bonus for +6?", 6, id="the-first-gold-bonus-tile"),
    pytest.param("investment", {"vp": "5"}, "Invest (+3 tile)",
                 "Anna took the +3 investment tile since this page was drawn. "
                 "Record Ben's investment with the +2 tile?", 5 + 2, id="the-highest-investment-tile"),
])
def test_a_tap_whose_tile_another_phone_took_since_is_asked_at_the_tile_it_takes_now(
        app, client, db, anna_ben, kind, chosen, shown, asked, stored):
    """Ben's own phone shows his tap's tile; the shared phone enters the same for Anna, who takes that tile.
    Ben's tap from the older page says so and stores nothing; one "yes" records it with the next tile."""
    bens = second_phone(app, db, anna_ben)
    assert bens.post(f"/plays/{anna_ben}/phone-player", data={"phone-player": "1"}).status_code == 302
    on_bens = play_page(bens, anna_ben)
    assert shown in text(on_bens)
    assert tap_on(client, play_page(client, anna_ben), kind, ANNA, **chosen).status_code == 302
    anna_got = table(db, anna_ben).scores[ANNA]

    response = tap_on(bens, on_bens, kind, BEN, **chosen)
    assert response.status_code == 409
    assert asked in text(response) and "Nothing was recorded yet." in text(response)
    assert len(events(db, anna_ben)) == 1
    action, fields = answer(response, "Yes, record it")
    assert bens.post(action, data=fields).status_code == 302  # one answer, no second question
    assert table(db, anna_ben).scores == (anna_got, stored)


@pytest.mark.parametrize("again", ["y", "turn maybe", "once once turn x"])
def test_a_tap_answering_a_question_no_page_asks_is_refused(client, db, anna_ben, again):
    response = client.post(f"/plays/{anna_ben}/gold-west/ledger/supply",
                           data={"seat": "1", "section": "2", "again": again})
    assert response.status_code == 400 and "Reload the page and try again." in text(response)
    assert events(db, anna_ben) == []


# --------------------------------------------------------------------------------------------------
# One tap per event as before


def test_this_phones_own_taps_sent_in_order_are_not_asked_about(app, client, db, anna_ben):
    """Taps a phone kept while offline were all drawn at one version; sent in order, none is another
    phone's entry, and what another phone entered for Ben meanwhile is no question for Anna's."""
    kept = play_page(client, anna_ben)
    other = second_phone(app, db, anna_ben)
    meanwhile = tap_on(other, play_page(other, anna_ben), "supply", BEN, section="2", again="turn")
    assert meanwhile.status_code == 302
    queue = [("supply", ANNA, {"section": "3"}), ("boomtown_1x1", ANNA, {}),
             ("camp", ANNA, {"terrain": "gold"}), ("investment", BEN, {"vp": "7"}),
             ("camp", BEN, {"terrain": "copper"}), ("camp", ANNA, {"terrain": "forest"})]
    for number, (kind, seat, data) in enumerate(queue):
        response = tap_on(client, kept, kind, seat, request_id=f"kept-offline-{number}-0000", **data)
        assert response.status_code == 302, text(response)
    assert events(db, anna_ben)[1:] == [
        ("supply", {"seat": ANNA, "section": 3}), ("boomtown_1x1", {"seat": ANNA}),
        ("camp", {"seat": ANNA, "terrain": "gold"}), ("investment", {"seat": BEN, "vp": 7}),
        ("camp", {"seat": BEN, "terrain": "copper"}), ("camp", {"seat": ANNA, "terrain": "forest"})]
    assert table(db, anna_ben).scores == (3 + 4, 2 + 7 + 3)


@pytest.mark.parametrize("meanwhile", [
    pytest.param(None, id="nothing-entered-since"),
    pytest.param(("supply", BEN, {"section": "3", "again": "turn"}), id="another-players-supply"),
    pytest.param(("investment", ANNA, {"vp": "5"}), id="another-kind-of-entry-for-anna"),
])
def test_a_tap_with_nothing_the_same_entered_since_is_one_tap(app, client, db, anna_ben, meanwhile):
    other = second_phone(app, db, anna_ben)
    # the first round, before the page was drawn
    for kind, seat, data in (("supply", ANNA, {"section": "2"}), ("camp", ANNA, {"terrain": "gold"}),
                             ("camp", BEN, {"terrain": "gold"})):
        assert tap_on(other, play_page(other, anna_ben), kind, seat, **data).status_code == 302
    page = play_page(client, anna_ben)
    if meanwhile:
        kind, seat, data = meanwhile
        assert tap_on(other, play_page(other, anna_ben), kind, seat, **data).status_code == 302
    assert tap_on(client, page, "supply", ANNA, section="2").status_code == 302
    assert events(db, anna_ben).count(("supply", {"seat": ANNA, "section": 2})) == 2


def test_a_tap_without_a_version_is_stored_as_before(client, db, anna_ben):
    """A page from before the forms carried a version (kept offline over an update) taps as it did."""
    assert tap(client, anna_ben, "supply", again=False, seat="0", section="3").status_code == 302
    assert tap(client, anna_ben, "boomtown_1x1", again=False, seat="0").status_code == 302
    assert table(db, anna_ben).scores == (3 + 4, 0)


def test_a_tap_with_a_broken_version_is_refused(client, db, anna_ben):
    response = tap(client, anna_ben, "supply", seat="0", section="3", drawn_at="²")
    assert response.status_code == 400 and "Reload the page and try again" in text(response)
    assert events(db, anna_ben) == []


# --------------------------------------------------------------------------------------------------
# The rule


SETUP = PlaySetup("gold-west", (Seat("Anna", "red"), Seat("Ben", "blue")), {})
HERE, THERE = 7, 8  # this phone's id and another's


@pytest.mark.parametrize(("since", "kind", "asked"), [
    pytest.param([("supply", {"seat": 0, "section": 3}, 1, THERE)], "supply", "supply", id="supply-twice"),
    pytest.param([("supply", {"seat": 0, "section": 3}, 1, None)], "supply", "supply",
                 id="a-phone-not-known-is-another"),
    pytest.param([("loot", {"seat": 0}, 1, THERE)], "camp", "loot", id="the-turns-build-step"),
    pytest.param([("boomtown", {"seat": 0, "office": "mayor"}, 1, THERE)], "boomtown_1x1", "boomtown",
                 id="boomtown"),
    pytest.param([("camp", {"seat": 0}, 1, THERE), ("supply", {"seat": 0, "section": 1}, 2, HERE)],
                 "settlement", "camp", id="own-entries-after-another-phones"),
    pytest.param([("supply", {"seat": 0, "section": 3}, 1, HERE)], "supply", None, id="this-phones-own"),
    pytest.param([("supply", {"seat": 1, "section": 3}, 1, THERE)], "supply", None, id="another-seat"),
    pytest.param([("investment", {"seat": 0, "vp": 5}, 1, THERE)], "supply", None, id="another-entry"),
    pytest.param([("adjust", {"seat": 0, "points": 3}, 1, THERE)], "supply", None,
                 id="not-a-ledger-event"),
])
def test_what_counts_as_the_same_entry_since_the_page_was_drawn(since, kind, asked):
    state = gold_west.initial_state(SETUP)
    before = [("supply", {"seat": 0, "section": 3}, 0, THERE)]  # entered before the page was drawn
    if asked is None:
        gold_west.check_entered_since(state, before + since, 0, HERE, kind, {"seat": 0})
        return
    with pytest.raises(gold_west.EnteredByAnotherPhone) as question:
        gold_west.check_entered_since(state, before + since, 0, HERE, kind, {"seat": 0})
    assert (question.value.seat, question.value.kind) == (0, asked)
    assert "Anna" in question.value.message and "since this page was drawn" in question.value.message


def test_a_tap_without_a_version_is_never_asked_about():
    state = gold_west.initial_state(SETUP)
    gold_west.check_entered_since(state, [("supply", {"seat": 0, "section": 3}, 1, THERE)], None, HERE,
                                  "supply", {"seat": 0, "section": 3})


THREE = PlaySetup("gold-west", (Seat("Anna", "red"), Seat("Ben", "blue"), Seat("Cara", "green")), {})
ANNA_GOLD = ("shipping_bonus", {"seat": 0, "metal": "gold"})
BEN_GOLD = ("shipping_bonus", {"seat": 1, "metal": "gold"})
CARA_GOLD = ("shipping_bonus", {"seat": 2, "metal": "gold"})
ANNAS_INVESTMENT = ("investment", {"seat": 0, "vp": 5})
BENS_INVESTMENT = ("investment", {"seat": 1, "vp": 7})
CARAS_INVESTMENT = ("investment", {"seat": 2, "vp": 5})


@pytest.mark.parametrize(("before", "since", "tap", "asked"), [
    pytest.param([], [(ANNA_GOLD, THERE)], BEN_GOLD,
                 "Anna took the gold shipping bonus tile of +9 since this page was drawn. "
                 "Record Ben's bonus for +6?", id="the-bonus-tile-shown"),
    pytest.param([], [(ANNAS_INVESTMENT, THERE)], BENS_INVESTMENT,
                 "Anna took the +4 investment tile since this page was drawn. "
                 "Record Ben's investment with the +3 tile?", id="the-investment-tile-shown"),
    pytest.param([], [(ANNAS_INVESTMENT, HERE), (CARAS_INVESTMENT, THERE)], BENS_INVESTMENT,
                 "Cara took the +3 investment tile since this page was drawn. "
                 "Record Ben's investment with the +2 tile?", id="the-tile-this-phones-own-entry-left"),
    pytest.param([ANNAS_INVESTMENT], [(ANNAS_INVESTMENT, THERE), (CARAS_INVESTMENT, None)], BENS_INVESTMENT,
                 "Anna took the +3 investment tile since this page was drawn. "
                 "Record Ben's investment with the +1 tile?", id="several-taken-the-oldest-took-it"),
    pytest.param([ANNAS_INVESTMENT], [(CARAS_INVESTMENT, THERE), (ANNAS_INVESTMENT, THERE),
                                      (CARAS_INVESTMENT, THERE)], BENS_INVESTMENT,
                 "Cara took the +3 investment tile since this page was drawn. "
                 "Record Ben's investment without a tile?", id="the-last-investment-tile"),
    pytest.param([], [(ANNA_GOLD, HERE)], BEN_GOLD, None, id="this-phones-own-entry"),
    pytest.param([ANNA_GOLD], [], BEN_GOLD, None, id="taken-before-the-page-was-drawn"),
    pytest.param([], [(("shipping_bonus", {"seat": 0, "metal": "silver"}), THERE)], BEN_GOLD, None,
                 id="another-metals-tile"),
    pytest.param([], [(ANNA_GOLD, THERE), (CARA_GOLD, THERE)], BEN_GOLD, None,
                 id="no-bonus-tile-left-the-table-refuses"),
    pytest.param([], [(ANNA_GOLD, THERE)], BENS_INVESTMENT, None, id="another-kind-of-tile"),
])
def test_which_tiles_taken_since_the_page_was_drawn_are_asked_about(before, since, tap, asked):
    entries = [(kind, payload, 0, THERE) for kind, payload in before]
    entries += [(kind, payload, version, phone) for version, ((kind, payload), phone) in enumerate(since, 1)]
    state = gold_west.initial_state(THREE)
    for kind, payload, _version, _phone in entries:
        state = gold_west.apply_event(state, kind, payload)
    kind, payload = tap
    if asked is None:
        gold_west.check_entered_since(state, entries, 0, HERE, kind, payload)
        return
    with pytest.raises(gold_west.TileTakenSince) as question:
        gold_west.check_entered_since(state, entries, 0, HERE, kind, payload)
    assert (question.value.seat, question.value.message) == (1, asked)
