"""Two phones at once: one write wins, the other is answered 409 and keeps what its phone typed."""

from __future__ import annotations

import html
import threading
from datetime import UTC, datetime, timedelta

import pytest

from companion import store
from companion.views.common import timestamp
from companion.web.security import MAX_GROUPS_PER_PHONE, configure_cookies
from tests.conftest import add_players, create_group, start_play
from tests.test_isolation import build_sample_group, drawn_form, form_of, forms_on

STALE = "Another phone changed this play since you opened it"


@pytest.fixture
def two_phones(app):
    """A sample group with an active play of every game, and two phones in it."""
    first = app.test_client()
    group = build_sample_group(app, first, "Contention", ("Anna", "Ben"))
    second = app.test_client()
    assert second.post(f"/join/{group.token}").status_code == 302
    return group, first, second


def results_of(db, play_id: int) -> list[int]:
    return [result.total for result in store.play_results(db, play_id)]


# (play of the sample group, its final tally page, what the phones type: the first, then the second)
TALLIES = {
    "totals only": ("gold-west", "/plays/{id}/finish",
                    {"total_0": "12", "total_1": "14"}, {"total_0": "41", "total_1": "37"}),
    "Gold West": ("gold-west", "/plays/{id}/gold-west/final-tally",
                  {"p0-wanted": "1", "confirmed": "y"}, {"p0-wanted": "11", "confirmed": "y"}),
    "Mayflower": ("mayflower", "/plays/{id}/mayflower/final-tally", {}, {}),
    "custom game": ("custom-1", "/plays/{id}/sheet",
                    {"points-0-0": "12", "points-1-0": "14"}, {"points-0-0": "41", "points-1-0": "37"}),
}


@pytest.mark.parametrize("game, page, first_typed, second_typed", TALLIES.values(), ids=TALLIES)
def test_a_final_tally_sent_after_another_phone_finished_is_409_with_its_numbers_kept(
        two_phones, db, game, page, first_typed, second_typed):
    group, first, second = two_phones
    play_id = group.active[game]
    page = page.format(id=play_id)
    seen_by_second = drawn_form(second, page)
    finished = first.post(page, data={**drawn_form(first, page), **first_typed})
    assert finished.status_code == 302, finished.text
    stored = results_of(db, play_id)
    version = store.get_play(db, play_id).version

    late = second.post(page, data={**seen_by_second, **second_typed})
    assert late.status_code == 409
    assert STALE in late.text
    for value in second_typed.values():
        if value != "y":
            assert f'value="{value}"' in late.text
    assert results_of(db, play_id) == stored
    assert store.get_play(db, play_id).version == version


def card_fields(phone, page: str) -> dict[str, list[str]]:
    """A card's fields as its send button sends them (not the button asking for more rows).

    Every row gets a number, 0 if empty, except the cattle cards (the cattle VP stand for them).
    """
    return {name: [value or ("" if name[:-1] == "cattle_" else "0") for value in values]
            for name, values in drawn_form(phone, page).items() if name != "more_objectives"}


def test_a_card_handed_in_after_another_phone_finished_is_409_with_its_numbers_kept(two_phones, db):
    group, first, second = two_phones
    play_id = group.active["great-western-trail"]
    cards = [f"/plays/{play_id}/gwt/final-tally/{seat}" for seat in (0, 1)]

    def typed(phone, card: str) -> dict[str, list[str]]:
        """The card as drawn, the objective rows left empty and the workers counted (a new card leaves
        them empty)."""
        return {**{name: values for name, values in card_fields(phone, card).items()
                   if not name.startswith("objective_") or name == "objective_rows"},
                "cowboys": "1", "craftsmen": "1", "engineers": "1"}

    seen_by_second = typed(second, cards[1])
    for seat, card in enumerate(cards):
        # one player holds the job-market token: the game ended with it
        token = {"job_market_token": "y"} if seat == 0 else {}
        assert first.post(card, data={**typed(first, card), "dollars": "4", **token}).status_code == 302
    assert store.get_play(db, play_id).status == "finished"
    stored = results_of(db, play_id)

    late = second.post(cards[1], data={**seen_by_second, "dollars": "47"})
    assert late.status_code == 409
    assert 'value="47"' in late.text
    assert results_of(db, play_id) == stored


@pytest.fixture
def table(client, db):
    group_id = create_group(client, "Race")
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = [p.id for p in store.list_players(db, group_id)]
    return group_id, [(ids[0], "red"), (ids[1], "blue")]


def test_of_two_tallies_sent_at_once_exactly_one_is_stored_and_the_other_keeps_its_numbers(
        app, client, db, table):
    group_id, seats = table
    token = store.get_group(db, group_id).token
    phones = [app.test_client(), app.test_client()]
    for phone in phones:
        assert phone.post(f"/join/{token}").status_code == 302
    typed = [{"total_0": "31", "total_1": "12"}, {"total_0": "9", "total_1": "52"}]
    for _ in range(8):  # the two requests meet at different points of their way each time
        play_id = start_play(client, group_id, "gold-west", seats)
        page = f"/plays/{play_id}/finish"
        forms = [{**drawn_form(phone, page), **numbers}
                 for phone, numbers in zip(phones, typed, strict=True)]
        both_ready = threading.Barrier(2)
        answers: list = [None, None]

        def send(n: int, page=page, forms=forms, both_ready=both_ready, answers=answers) -> None:
            both_ready.wait()
            answers[n] = phones[n].post(page, data=forms[n])

        threads = [threading.Thread(target=send, args=(n,)) for n in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(answer.status_code for answer in answers) == [302, 409]
        winner = next(n for n in (0, 1) if answers[n].status_code == 302)
        loser = answers[1 - winner]
        assert sorted(results_of(db, play_id)) == sorted(int(value) for value in typed[winner].values())
        assert STALE in loser.text
        assert all(f'value="{value}"' in loser.text for value in typed[1 - winner].values())
        assert len([e for e in store.list_events(db, play_id) if e.kind == store.FINAL_EVENT]) == 1


def note_version_on(phone, page: str) -> str:
    """The note's version in the note form of ``page`` as ``phone`` sees it."""
    [form] = [f for f in forms_on(phone.get(page).text, page) if f.action.endswith("/notes")]
    return form.fields["version"][0]


@pytest.mark.parametrize("finished", [False, True], ids=["during the play", "after it"])
def test_a_note_saved_from_an_outdated_page_is_409_with_the_typed_text_kept(two_phones, db, finished):
    group, first, second = two_phones
    play_id = (group.finished if finished else group.active)["gold-west"]
    page = f"/plays/{play_id}/record" if finished else f"/plays/{play_id}"
    seen_by_second = note_version_on(second, page)
    saved = first.post(f"/plays/{play_id}/notes", data={"note": "Anna's first win", "variant": "Trading Post",
                                                        "version": note_version_on(first, page)})
    assert saved.status_code == 302
    late = second.post(f"/plays/{play_id}/notes", data={"note": "Ben <3 the docks", "variant": "Basic",
                                                        "version": seen_by_second})
    assert late.status_code == 409
    assert STALE in late.text
    # the note saved meanwhile and what this phone typed, ready to be sent again
    assert "Anna&#39;s first win" in late.text and "Trading Post" in late.text
    assert "Ben &lt;3 the docks</textarea>" in late.text and 'value="Basic"' in late.text
    options = store.get_play(db, play_id).options
    assert (options["note"], options["variant"]) == ("Anna's first win", "Trading Post")
    [again] = [f for f in forms_on(late.text, page) if f.action.endswith("/notes")]
    assert second.post(again.action, data=again.fields).status_code == 302
    assert store.get_play(db, play_id).options["note"] == "Ben <3 the docks"


def test_a_note_is_not_refused_because_points_were_entered_meanwhile(two_phones, db):
    group, first, second = two_phones
    play_id = group.active["gold-west"]
    seen = note_version_on(second, f"/plays/{play_id}")
    entry = first.post(f"/plays/{play_id}/adjust", data={"seat": "0", "points": "2", "note": ""})
    assert entry.status_code == 302
    saved = second.post(f"/plays/{play_id}/notes",
                        data={"note": "close game", "variant": "", "version": seen})
    assert saved.status_code == 302
    assert store.get_play(db, play_id).options["note"] == "close game"


# --- the group's export settings -----------------------------------------------------------------

SETTINGS_STALE = "Another phone changed these settings since you opened the page, so nothing was saved."


@pytest.mark.parametrize(("first_sets", "second_types", "note", "both"), [
    pytest.param({"time_zone": "Europe/Berlin"}, {"location": "Anna's kitchen"},
                 "Another phone changed this (it was –).",
                 store.GroupSettings("Europe/Berlin", "Anna's kitchen", {}), id="time zone, then the place"),
    pytest.param({"bgg_gold_west": "139562"}, {"time_zone": "Europe/Vienna"},
                 "Another phone changed this (it was –).",
                 store.GroupSettings("Europe/Vienna", "", {"gold-west": 139562}),
                 id="a game's id, then the time zone"),
    pytest.param({"location": "Community hall"}, {"location": "Anna's kitchen"},
                 "Another phone changed this to Community hall; what you typed is kept: check it.",
                 store.GroupSettings(None, "Anna's kitchen", {}), id="the place, twice"),
])
def test_settings_saved_from_an_outdated_page_are_409_with_the_typed_values_kept(
        two_phones, db, first_sets, second_types, note, both):
    group, first, second = two_phones
    page = f"/groups/{group.group_id}/settings"
    seen_by_first, seen_by_second = drawn_form(first, page), drawn_form(second, page)
    assert first.post(page, data={**seen_by_first, **first_sets}).status_code == 302
    saved_by_first = store.group_settings(db, group.group_id)
    late = second.post(page, data={**seen_by_second, **second_types})
    assert late.status_code == 409
    assert SETTINGS_STALE in html.unescape(late.text) and note in html.unescape(late.text)
    assert store.group_settings(db, group.group_id) == saved_by_first
    # what this phone typed, and the other phone's change in the boxes it left alone: sent again, both count
    again = form_of(late.text, page)
    changed = {**first_sets, **second_types}
    assert {name: again[name] for name in changed} == {name: [value] for name, value in changed.items()}
    assert second.post(page, data=again).status_code == 302
    assert store.group_settings(db, group.group_id) == both


def test_a_group_renamed_from_a_page_drawn_before_another_phone_renamed_it_is_409_with_the_name_kept(
        two_phones, db):
    group, first, second = two_phones
    page = f"/groups/{group.group_id}/rename"
    seen_by_first, seen_by_second = drawn_form(first, page), drawn_form(second, page)
    assert first.post(page, data={**seen_by_first, "name": "Freitagsrunde"}).status_code == 302
    late = second.post(page, data={**seen_by_second, "name": "Friday night club"})
    assert late.status_code == 409
    assert "Another phone renamed Contention to Freitagsrunde since this page was opened" in late.text
    assert 'value="Friday night club"' in late.text  # what this phone typed, ready to be sent again
    assert store.get_group(db, group.group_id).name == "Freitagsrunde"
    [again] = [f for f in forms_on(late.text, page) if f.action.endswith("/rename")]
    assert second.post(again.action, data=again.fields).status_code == 302
    assert store.get_group(db, group.group_id).name == "Friday night club"
    # a page from before the form carried the name it showed: taken as it comes
    assert first.post(page, data={"name": "Tuesday club"}).status_code == 302
    assert store.get_group(db, group.group_id).name == "Tuesday club"


# --- join codes: guessers cannot lock out a phone that has the right code -------------------------


def behind_a_proxy(app) -> None:
    app.config["COMPANION_BEHIND_PROXY"] = True
    configure_cookies(app)


def phone_at(app, address: str):
    phone = app.test_client()
    phone.environ_base["REMOTE_ADDR"] = address
    return phone


def guess_wrong(phone, times: int = 1, **headers: str) -> list[int]:
    return [phone.post("/join", data={"code": "WRQNGCDE"}, headers=headers).status_code for _ in range(times)]


def test_a_hundred_wrong_codes_from_twelve_addresses_do_not_keep_a_thirteenth_from_joining(app, client, db):
    group = store.get_group(db, create_group(client, "Guessed at"))
    answers = [status for n in range(100) for status in guess_wrong(phone_at(app, f"198.51.100.{n % 12}"))]
    assert answers == [400] * 100  # every one checked: each address stays within its own limit
    newcomer = phone_at(app, "203.0.113.13")
    joined = newcomer.post("/join", data={"code": group.join_code})
    assert joined.status_code == 302
    assert newcomer.get(f"/groups/{group.id}").status_code == 200


def test_behind_a_proxy_forwarded_addresses_do_not_lock_the_right_code_either(app, client, db):
    behind_a_proxy(app)
    group = store.get_group(db, create_group(client, "Behind Caddy"))
    proxy = phone_at(app, "127.0.0.1")
    for n in range(app.config["JOIN_FAILURES_ALLOWED_IN_ALL"] + 20):
        guess_wrong(proxy, **{"X-Forwarded-For": f"198.51.100.{n % 250}"})
    joined = proxy.post("/join", data={"code": group.join_code},
                        headers={"X-Forwarded-For": "203.0.113.13"})
    assert joined.status_code == 302


def test_a_forged_forwarded_address_from_past_the_proxy_is_counted_against_the_sender(app, client, db):
    behind_a_proxy(app)
    group = store.get_group(db, create_group(client, "Past the proxy"))
    sender = phone_at(app, "203.0.113.66")
    allowed = app.config["JOIN_FAILURES_ALLOWED"]
    answers = [guess_wrong(sender, **{"X-Forwarded-For": f"198.51.100.{n}"})[0] for n in range(allowed + 3)]
    assert answers == [400] * allowed + [429] * 3
    # … and locks nobody else out
    assert phone_at(app, "203.0.113.67").post("/join", data={"code": group.join_code}).status_code == 302


def test_the_addresses_of_one_ipv6_network_are_counted_together(app, client, db):
    group = store.get_group(db, create_group(client, "IPv6"))
    allowed = app.config["JOIN_FAILURES_ALLOWED"]
    for n in range(allowed):
        assert guess_wrong(phone_at(app, f"2001:db8:0:ab{n:02x}::1")) == [400]
    same_network = phone_at(app, "2001:db8:0:abff::7")
    assert same_network.post("/join", data={"code": group.join_code}).status_code == 429
    next_network = phone_at(app, "2001:db8:0:ac00::7")
    assert next_network.post("/join", data={"code": group.join_code}).status_code == 302


# --- a phone at its limit of groups ---------------------------------------------------------------


def delete_group(phone, group_id: int) -> None:
    assert phone.post(f"/groups/{group_id}/delete").status_code == 302


def test_a_phone_at_its_limit_makes_room_by_leaving_the_group_deleted_longest_ago(app, db):
    phone = app.test_client()
    groups = [create_group(phone, f"Group {n}") for n in range(MAX_GROUPS_PER_PHONE)]
    other = app.test_client()
    assert other.post(f"/join/{store.get_group(db, groups[1]).token}").status_code == 302
    for days_ago, group_id in zip((3, 2, 1), groups[1:4], strict=True):  # Group 1 deleted longest ago
        delete_group(phone, group_id)
        deleted_at = timestamp(datetime.now(UTC) - timedelta(days=days_ago))
        db.execute("UPDATE groups SET deleted_at = ? WHERE id = ?", [deleted_at, group_id])
    created = phone.post("/groups", data={"name": "One more"})
    assert created.status_code == 302
    shown = phone.get(created.headers["Location"]).text
    assert "To make room, this phone left the deleted group Group 1." in shown
    trash = phone.get("/").text.split('id="trash-h"')[1]
    assert "Group 2" in trash and "Group 3" in trash and "Group 1" not in trash
    # the other phone still has the deleted group and can restore it
    assert other.post(f"/groups/{groups[1]}/restore").status_code == 302
    assert other.get(f"/groups/{groups[1]}").status_code == 200
    assert phone.get(f"/groups/{groups[1]}").status_code == 404


def test_a_phone_whose_groups_it_sees_fill_its_cookie_is_still_refused(app, db):
    phone = app.test_client()
    for n in range(MAX_GROUPS_PER_PHONE):
        create_group(phone, f"Group {n}")
    refused = phone.post("/groups", data={"name": "One too many"})
    assert refused.status_code == 409


def test_a_phone_can_leave_a_deleted_group_from_its_home_page(app, client, db):
    group_id = create_group(client, "Gone")
    other = app.test_client()
    assert other.post(f"/join/{store.get_group(db, group_id).token}").status_code == 302
    delete_group(client, group_id)
    [leave] = [f for f in forms_on(client.get("/").text, "/") if f.action.endswith("/leave-deleted")]
    assert client.post(leave.action, data=leave.fields).status_code == 302
    assert 'id="trash-h"' not in client.get("/").text
    assert client.post(f"/groups/{group_id}/restore").status_code == 404
    assert 'id="trash-h"' in other.get("/").text  # the other phone keeps it


def test_a_group_outside_the_trash_is_not_left_without_its_confirmation(client, db):
    group_id = create_group(client, "Still here")
    assert client.post(f"/groups/{group_id}/leave-deleted").status_code == 404
    assert client.get(f"/groups/{group_id}").status_code == 200
