"""Gold West's ledger records the board: terrain buttons, BoomTown offices, the majorities today, and the
end scoring prefilled from it with every correction kept."""

from __future__ import annotations

import html
import re

import pytest

from companion import store
from companion.exchange import backup
from companion.forms import COLOURS
from companion.games import GAMES
from companion.games.common import FINAL_EVENT
from tests.test_gold_west_phones_web import second_phone
from tests.test_gold_west_web import form_values, new_play, table, tap


def text(response_or_page) -> str:
    """A page as a person reads it: entities resolved, runs of space folded."""
    page = getattr(response_or_page, "text", response_or_page)
    return re.sub(r"\s+", " ", html.unescape(page))


@pytest.fixture
def anna_ben_cara(client, db) -> int:
    return new_play(client, db, "Anna", "Ben", "Cara")


# --------------------------------------------------------------------------------------------------
# The ledger's taps


@pytest.mark.parametrize(("kind", "data", "payload", "logged"), [
    pytest.param("camp", {"seat": "1", "terrain": "silver"}, {"seat": 1, "terrain": "silver"},
                 "Ben placed a camp in silver", id="camp-with-its-terrain"),
    pytest.param("settlement", {"seat": "0", "terrain": "forest"}, {"seat": 0, "terrain": "forest"},
                 "Anna built a settlement in forest", id="settlement"),
    pytest.param("boomtown", {"seat": "2", "office": "frontier"}, {"seat": 2, "office": "frontier"},
                 "Cara put an influence token on the Frontier office", id="boomtown-office"),
    pytest.param("camp", {"seat": "0"}, {"seat": 0}, "Anna placed a camp",
                 id="camp-from-a-page-before-terrains"),
])
def test_a_board_tap_stores_one_event_and_is_logged(client, db, anna_ben_cara, kind, data, payload, logged):
    assert tap(client, anna_ben_cara, kind, **data).status_code == 302
    [event] = store.list_events(db, anna_ben_cara)
    assert (event.kind, event.payload) == (kind, payload)
    assert logged in text(client.get(f"/plays/{anna_ben_cara}"))


@pytest.mark.parametrize(("kind", "data", "status", "says"), [
    pytest.param("settlement", {"seat": "0"}, 400, "does not fit this play", id="settlement-without-terrain"),
    pytest.param("camp", {"seat": "0", "terrain": "wood"}, 400, "does not fit this play", id="no-wood"),
    pytest.param("boomtown", {"seat": "0", "office": "bank"}, 400, "does not fit this play",
                 id="unknown-office"),
    pytest.param("boomtown", {"seat": "0", "office": "deeds"}, 409, "The Deeds office is not open",
                 id="office-not-dealt"),
])
def test_bad_board_taps_are_refused_and_store_nothing(client, db, anna_ben_cara, kind, data, status, says):
    response = tap(client, anna_ben_cara, kind, **data)
    assert response.status_code == status
    assert says in text(response)
    assert store.list_events(db, anna_ben_cara) == []


def test_the_out_of_turn_question_carries_the_terrain(client, db, anna_ben_cara):
    response = tap(client, anna_ben_cara, "settlement", again=False, seat="1", terrain="gold")
    assert response.status_code == 409
    yes = re.search(r'<form[^>]*>(?:(?!</form>).)*Yes, for Ben', response.text, re.S).group(0)
    assert 'name="terrain" value="gold"' in yes and 'name="again" value="turn"' in yes
    assert store.list_events(db, anna_ben_cara) == []
    assert tap(client, anna_ben_cara, "settlement", seat="1", terrain="gold").status_code == 302
    assert table(db, anna_ben_cara).buildings == ((), (("gold", True),), ())


def test_the_page_offers_a_button_per_terrain_and_per_open_office(client, anna_ben_cara):
    page = client.get(f"/plays/{anna_ben_cara}").text
    for what in ("Camp", "Settlement"):
        for terrain in ("Forest", "Gold", "Silver", "Copper"):
            assert f'aria-label="{what} in {terrain}">{terrain}</button>' in page
    assert page.count('<button name="office" value="mayor">Mayor</button>') == 3  # one per seat
    tap(client, anna_ben_cara, "boomtown", seat="0", office="mayor")
    tap(client, anna_ben_cara, "boomtown", seat="1", office="mayor")
    page = client.get(f"/plays/{anna_ben_cara}").text
    assert 'value="mayor"' not in page and page.count('value="saloon">Saloon</button>') == 3


def test_the_majorities_today_say_who_leads_and_by_how_much(client, db, anna_ben_cara):
    for kind, seat, terrain in (("settlement", 0, "gold"), ("camp", 1, "gold"), ("camp", 2, "gold"),
                                ("camp", 0, "forest"), ("camp", 1, "forest"), ("camp", 2, "copper")):
        tap(client, anna_ben_cara, kind, seat=str(seat), terrain=terrain)
    page = text(client.get(f"/plays/{anna_ben_cara}"))
    rows = dict(re.findall(r'<tr><th scope="row">(\w+) <small class="muted">[\d/]+</small></th> (.*?)</tr>',
                           page[page.index('id="gw-majorities-today"'):]))
    cells = {terrain: " ".join(re.sub(r"<[^>]+>", " ", row).split()) for terrain, row in rows.items()}
    assert cells == {
        "Forest": "Anna, Ben 1 tied –",
        "Gold": "Anna 2 +1 Ben, Cara 1 tied",
        "Silver": "– –",
        "Copper": "Cara 1 +1 –",
    }


def test_camps_entered_before_terrains_are_named_apart(client, db, anna_ben_cara):
    tap(client, anna_ben_cara, "camp", seat="0")
    tap(client, anna_ben_cara, "camp", seat="1", terrain="gold")
    page = text(client.get(f"/plays/{anna_ben_cara}"))
    assert "Camps entered without their terrain are not counted: 1." in page


def test_a_stale_investment_tap_after_more_cards_than_tiles_asks_about_the_tile(app, client, db):
    """A page drawn before another phone entered 7 investment cards for Ben, 2 players and 3 tiles: Anna's
    tap from it is asked about the tile it showed (and stores nothing), not a server error."""
    play_id = new_play(client, db, "Anna", "Ben")
    other = second_phone(app, db, play_id)
    for _ in range(7):
        assert tap(other, play_id, "investment", seat="1", vp="5").status_code == 302
    response = tap(client, play_id, "investment", seat="0", vp="5", drawn_at="0")
    assert response.status_code == 409
    assert ("Ben took the +3 investment tile since this page was drawn. "
            "Record Anna's investment without a tile?") in text(response)
    assert len(store.list_events(db, play_id)) == 7


# --------------------------------------------------------------------------------------------------
# The end scoring, prefilled


def prefilled(client, play_id, *names) -> list[str]:
    """The values these fields of the final tally open with."""
    values = form_values(client.get(f"/plays/{play_id}/gold-west/final-tally").text)
    return [values[name] for name in names]


def finish(client, play_id, **typed):
    values = form_values(client.get(f"/plays/{play_id}/gold-west/final-tally").text)
    return client.post(f"/plays/{play_id}/gold-west/final-tally", data={**values, "confirmed": "y", **typed})


def test_the_end_scoring_opens_with_the_board_the_ledger_knows(client, db, anna_ben_cara):
    for kind, seat, data in (("settlement", 0, {"terrain": "gold"}), ("camp", 1, {"terrain": "silver"}),
                             ("boomtown", 1, {"office": "mayor"}), ("boomtown", 1, {"office": "mayor"}),
                             ("boomtown", 2, {"office": "frontier"}), ("investment", 2, {"vp": "5"})):
        tap(client, anna_ben_cara, kind, seat=str(seat), **data)
    page = client.get(f"/plays/{anna_ben_cara}/gold-west/final-tally").text
    values = form_values(page)
    gold = [values[f"p0-{row}-gold"] for row in ("influence", "settlements", "mining_tokens")]
    assert gold == ["2", "1", "1"]
    assert (values["p1-influence-silver"], values["p1-office_mayor-tokens"]) == ("1", "2")
    # what Frontier counts on the map the ledger cannot know: its box starts empty
    assert (values["p2-office_frontier-tokens"], values["p2-office_frontier-count"]) == ("1", "")
    # asked first: the groups and the resources left, and the investments of whoever has none recorded
    cara = page[page.index('id="gw-tally-2"'):]
    assert cara.index('name="p2-supply_left"') < cara.index("From the ledger:")
    assert cara.index("From the ledger:") < cara.index('name="p2-investments"')
    anna = page[page.index('id="gw-tally-0"'):page.index('id="gw-tally-1"')]
    assert anna.index('name="p0-investments"') < anna.index("From the ledger:")


def test_a_correction_is_stored_and_kept_when_the_ledger_changes(client, db, anna_ben_cara):
    tap(client, anna_ben_cara, "camp", seat="0", terrain="silver")
    response = finish(client, anna_ben_cara, **{"p0-influence-silver": "2", "p0-track_vp": "3",
                                                "p0-largest_group": "1", "p1-supply_left": "0",
                                                "p2-supply_left": "1"})
    assert response.status_code == 302
    final = store.list_events(db, anna_ben_cara)[-1]
    assert final.kind == FINAL_EVENT
    assert final.payload["corrections"] == [{"influence.silver": 1, "track_vp": 3}, {}, {}]
    # reopened, the tally comes back as entered
    version = store.get_play(db, anna_ben_cara).version
    client.post(f"/plays/{anna_ben_cara}/undo", data={"version": str(version)})
    typed = ("p0-influence-silver", "p0-track_vp", "p0-largest_group")
    assert prefilled(client, anna_ben_cara, *typed) == ["2", "3", "1"]
    # a camp and points forgotten during play: the new ledger, and the corrections over it
    tap(client, anna_ben_cara, "camp", seat="0", terrain="silver")
    tap(client, anna_ben_cara, "supply", seat="0", section="2")
    assert prefilled(client, anna_ben_cara, *typed, "p0-mining_tokens-silver") == ["3", "5", "1", "2"]


def test_a_tally_stored_before_corrections_keeps_its_terrains_when_reopened(client, db, anna_ben_cara):
    tap(client, anna_ben_cara, "camp", seat="0")
    players = [{"influence": {"gold": 3}, "mining_tokens": {"gold": 1}, "largest_group": 1}, {}, {}]
    store.finish_play(db, anna_ben_cara, {"players": players},
                      [store.ResultInput(seat, 0, seat + 1, {}) for seat in range(3)])
    version = store.get_play(db, anna_ben_cara).version
    client.post(f"/plays/{anna_ben_cara}/undo", data={"version": str(version)})
    tap(client, anna_ben_cara, "boomtown_1x1", seat="0")
    assert prefilled(client, anna_ben_cara, "p0-influence-gold", "p0-mining_tokens-gold",
                     "p0-track_vp") == ["3", "1", "4"]


def test_old_and_new_ledger_events_come_back_from_a_backup(client, db, anna_ben_cara):
    for kind, data in (("camp", {"seat": "0"}), ("settlement", {"seat": "1", "terrain": "copper"}),
                       ("boomtown", {"seat": "2", "office": "saloon"})):
        tap(client, anna_ben_cara, kind, **data)
    group_id = store.get_play(db, anna_ben_cara).group_id
    restored = store.restore_group(db, backup.parse_backup(
        backup.backup_json(store.dump_group(db, group_id), store.now()).encode(), GAMES, COLOURS))
    [copy_id] = [p.id for p in store.list_plays(db, restored.id, "active")]
    copy_, original = table(db, copy_id), table(db, anna_ben_cara)
    assert (copy_.buildings, copy_.office_tokens) == (original.buildings, original.office_tokens)
    assert copy_.buildings_without_terrain == 1


@pytest.mark.parametrize("stored", [
    pytest.param("typed-now", id="numbers-no-tie-needed-left-empty"),
    pytest.param("old", id="stored-before-the-groups-were-asked"),
])
def test_a_finished_tally_comes_back_from_a_backup_with_what_was_left_empty(client, db, anna_ben_cara,
                                                                           stored):
    tap(client, anna_ben_cara, "camp", seat="0", terrain="gold")
    tap(client, anna_ben_cara, "camp", seat="1", terrain="forest")
    if stored == "typed-now":
        assert finish(client, anna_ben_cara, **{"p0-largest_group": "1", "p1-largest_group": "1",
                                                "p0-track_vp": "3"}).status_code == 302
    else:  # as the page sent it when it filled in 0: a largest group of 0 beside a building is kept
        players = [{"mining_tokens": {"gold": 1}, "influence": {"gold": 1}, "largest_group": 0,
                    "supply_left": 0}, {"mining_tokens": {"forest": 1}, "influence": {"forest": 1}}, {}]
        store.finish_play(db, anna_ben_cara, {"players": players},
                          [store.ResultInput(seat, total, rank, {"track": 0, "largest_group": 0, "offices": 0,
                                                                 "wanted": 0, "influence": total})
                           for seat, total, rank in ((0, 9, 1), (1, 8, 2), (2, 0, 3))])
    before = [(r.name, r.total, r.rank) for r in store.play_results(db, anna_ben_cara)]
    group_id = store.get_play(db, anna_ben_cara).group_id
    restored = store.restore_group(db, backup.parse_backup(
        backup.backup_json(store.dump_group(db, group_id), store.now()).encode(), GAMES, COLOURS))
    [copy_id] = [p.id for p in store.list_plays(db, restored.id, "finished")]
    assert [(r.name, r.total, r.rank) for r in store.play_results(db, copy_id)] == before
    assert store.final_payload(db, copy_id) == store.final_payload(db, anna_ben_cara)
    # the result page scores the stored tally again (the copy's is the same): its majorities show
    assert "Gold: Anna 1st (9)" in text(client.get(f"/plays/{anna_ben_cara}/result"))
