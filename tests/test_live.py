"""One play, many phones: the state.json poll, simultaneous entries, and the play's share section."""

from __future__ import annotations

import html
import re
import threading

import pytest

from companion import store
from tests.conftest import add_players, create_group, start_play


@pytest.fixture
def table(app, client, db):
    """A group with Anna and Ben and a play of Gold West; ``client`` is a phone of the group."""
    group_id = create_group(client, "Friday night")
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = [p.id for p in store.list_players(db, group_id)]
    play_id = start_play(client, group_id, "gold-west", [(ids[0], "red"), (ids[1], "blue")])
    return {"group_id": group_id, "play_id": play_id, "group": store.get_group(db, group_id)}


def second_phone(app, group):
    phone = app.test_client()
    assert phone.post("/join", data={"code": group.join_code}).status_code == 302
    return phone


def state(client, play_id, since=None):
    query = "" if since is None else f"?since={since}"
    return client.get(f"/plays/{play_id}/state.json{query}")


def test_the_state_is_only_for_phones_of_the_group(app, client, table):
    play_id = table["play_id"]
    stranger = app.test_client()
    other_group = app.test_client()
    create_group(other_group, "Other table")
    for phone in (stranger, other_group):
        for since in (None, 0, 5):
            response = state(phone, play_id, since)
            assert response.status_code == 404
            assert "Anna" not in response.text and "Friday" not in response.text
    assert state(client, play_id + 100).status_code == 404


def test_an_unchanged_play_answers_only_its_version(client, table):
    response = state(client, table["play_id"], 0)
    assert response.status_code == 200 and response.mimetype == "application/json"
    assert response.headers["Cache-Control"] == "no-store"
    assert response.json == {"play": table["play_id"], "version": 0, "status": "active", "changed": False}


def test_a_change_by_another_phone_comes_with_the_page_and_the_scores(app, client, db, table):
    play_id = table["play_id"]
    other = second_phone(app, table["group"])
    assert other.post(f"/plays/{play_id}/adjust", data={"seat": "1", "points": "4"}).status_code == 302
    assert other.post(f"/plays/{play_id}/adjust", data={"seat": "0", "points": "-2"}).status_code == 302

    answer = state(client, play_id, 0).json
    assert answer["changed"] is True and answer["version"] == 2 and answer["status"] == "active"
    assert answer["url"] == f"/plays/{play_id}"
    assert answer["scores"] == [
        {"seat": 0, "name": "Anna", "colour": "red", "points": -2},
        {"seat": 1, "name": "Ben", "colour": "blue", "points": 4},
    ]
    assert state(client, play_id, 2).json["changed"] is False

    # an undo moves the version on too, although the log is shorter again
    assert other.post(f"/plays/{play_id}/undo", data={"version": "2"}).status_code == 302
    answer = state(client, play_id, 2).json
    assert answer["version"] == 3 and [s["points"] for s in answer["scores"]] == [0, 4]


@pytest.mark.parametrize("since, changed", [
    pytest.param(None, True, id="no-version-yet"),
    pytest.param(0, True, id="behind"),
    pytest.param(1, False, id="current"),
    pytest.param(7, True, id="ahead-of-a-restored-database"),
])
def test_changed_means_the_page_shows_another_version(client, table, since, changed):
    client.post(f"/plays/{table['play_id']}/adjust", data={"seat": "0", "points": "3"})
    answer = state(client, table["play_id"], since).json
    assert answer["version"] == 1 and answer["changed"] is changed
    assert ("scores" in answer) is changed and ("url" in answer) is changed


@pytest.mark.parametrize("since", ["abc", "-1", "1.5", "", "%203", "0x10", "99999999999999999999", "²"])
def test_a_since_that_is_not_a_version_is_a_clear_400(client, table, since):
    response = client.get(f"/plays/{table['play_id']}/state.json?since={since}")
    assert response.status_code == 400
    assert "version number" in response.json["error"]


def test_a_finished_play_points_to_its_result_with_the_final_totals(client, table):
    play_id = table["play_id"]
    client.post(f"/plays/{play_id}/finish", data={"version": "0", "total_0": "61", "total_1": "65"})
    answer = state(client, play_id, 0).json
    assert answer["status"] == "finished" and answer["url"] == f"/plays/{play_id}/result"
    assert [(s["name"], s["points"]) for s in answer["scores"]] == [("Anna", 61), ("Ben", 65)]


def test_a_deleted_play_is_gone_for_the_poll(client, table):
    play_id = table["play_id"]
    assert client.post(f"/plays/{play_id}/delete").status_code == 302
    assert state(client, play_id, 0).status_code == 404


def test_polling_never_sends_back_the_session_cookie(client, table):
    """An answer that arrives after a form's answer must not put back the cookie from before it."""
    assert client.get("/").headers.get("Set-Cookie")  # pages refresh the phone's cookie
    for path in (f"/plays/{table['play_id']}/state.json?since=0", "/sw.js", "/manifest.webmanifest"):
        assert "Set-Cookie" not in client.get(path).headers, path


def test_two_phones_entering_at_the_same_moment_lose_nothing(app, client, db, table):
    play_id = table["play_id"]
    phones = [client, second_phone(app, table["group"])]
    entries_per_phone = 15
    start = threading.Barrier(len(phones))
    statuses: list[int] = []

    def enter(phone, seat):
        start.wait()
        for _ in range(entries_per_phone):
            statuses.append(phone.post(f"/plays/{play_id}/adjust",
                                       data={"seat": str(seat), "points": "2"}).status_code)

    threads = [threading.Thread(target=enter, args=(phone, seat)) for seat, phone in enumerate(phones)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert statuses == [302] * (2 * entries_per_phone)
    events = store.list_events(db, play_id)
    assert [e.seq for e in events] == list(range(1, 2 * entries_per_phone + 1))
    answer = state(client, play_id, 0).json
    assert answer["version"] == 2 * entries_per_phone
    assert [s["points"] for s in answer["scores"]] == [2 * entries_per_phone] * 2


def test_a_stale_undo_is_refused_and_the_page_follows_the_current_version(app, client, db, table):
    play_id = table["play_id"]
    other = second_phone(app, table["group"])
    client.post(f"/plays/{play_id}/adjust", data={"seat": "0", "points": "3"})
    other.post(f"/plays/{play_id}/adjust", data={"seat": "1", "points": "5"})
    refused = client.post(f"/plays/{play_id}/undo", data={"version": "1"})
    assert refused.status_code == 409
    assert "Another phone changed this play" in html.unescape(refused.text)
    assert 'data-version="2"' in refused.text  # the page now polls from the current state on
    assert len(store.list_events(db, play_id)) == 2


def test_the_play_page_offers_itself_to_other_phones(client, table):
    play_id, group = table["play_id"], table["group"]
    page = client.get(f"/plays/{play_id}").text
    live = re.search(r'<div id="play-live" ([^>]*)>', page).group(1)
    assert f'data-play-id="{play_id}"' in live and 'data-version="0"' in live
    assert f'data-state-url="/plays/{play_id}/state.json"' in live

    share = page[page.index('<details class="share"'):page.index("</details>")]
    assert share.count("<svg") == 2  # the play's code and the group's invite
    assert f'value="http://companion.test/plays/{play_id}"' in share
    assert f'value="http://companion.test/join/{group.token}"' in share
    assert f"{group.join_code[:4]}-{group.join_code[4:]}" in share
    assert '<label for="play-link">' in share and '<label for="play-invite-link">' in share
    # the share section stays put while the play's part of the page is reloaded
    assert page.index("</details>") < page.index('<div id="play-live"')


def test_the_play_page_shows_the_new_invite_after_a_new_invite(app, client, db, table):
    play_id, old = table["play_id"], table["group"]
    for _ in range(2):  # the first may carry a message; the second is kept for the next request
        assert old.token in client.get(f"/plays/{play_id}").text
    assert client.post(f"/groups/{old.id}/invite/new", follow_redirects=True).status_code == 200
    new = store.get_group(db, old.id)
    share = client.get(f"/plays/{play_id}").text
    share = share[share.index('<details class="share"'):share.index("</details>")]
    assert f'value="http://companion.test/join/{new.token}"' in share
    assert f"{new.join_code[:4]}-{new.join_code[4:]}" in share
    assert old.token not in share and f"{old.join_code[:4]}-{old.join_code[4:]}" not in share
    with app.test_request_context():
        from companion.views.groups import invite_qr_svg
        assert invite_qr_svg(f"http://companion.test/join/{new.token}") in share
