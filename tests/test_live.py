"""One play, many phones: the state.json poll, simultaneous entries, and the play's share section."""

from __future__ import annotations

import html
import re
import threading

import pytest
import segno

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


@pytest.mark.parametrize("change", ["rename", "time-zone"])
def test_a_renamed_player_or_another_time_zone_brings_the_play_page_up_to_date(app, client, db, table,
                                                                               change):
    """The play page shows its players' names and times on the group's clock: changed on another phone, the
    poll says so, with the new names, as after an entry. Another group's play stays as it is."""
    play_id, group_id = table["play_id"], table["group_id"]
    other_group = app.test_client()
    other_id = create_group(other_group, "Other table")
    add_players(other_group, other_id, ("Anna", "red"), ("Cara", "blue"))
    others = start_play(other_group, other_id, "gold-west",
                        [(player.id, player.colour) for player in store.list_players(db, other_id)])
    other = second_phone(app, table["group"])
    if change == "rename":
        anna = store.list_players(db, group_id)[0]
        edit = other.get(f"/groups/{group_id}/players/{anna.id}").text
        shown = html.unescape(re.search(r'name="shown"[^>]*value="([^"]*)"', edit).group(1))
        sent = other.post(f"/groups/{group_id}/players/{anna.id}",
                          data={"name": "Anne", "colour": "red", "shown": shown})
    else:
        sent = other.post(f"/groups/{group_id}/settings", data={"time_zone": "Europe/Berlin", "location": ""})
    assert sent.status_code == 302
    answer = state(client, play_id, 0).json
    assert answer["changed"] is True and answer["version"] == 1
    assert [score["name"] for score in answer["scores"]] == ["Anne" if change == "rename" else "Anna", "Ben"]
    assert state(other_group, others, 0).json["changed"] is False
    # a form drawn before the change is stale, like one drawn before another phone's entry
    stale = client.post(f"/plays/{play_id}/undo", data={"version": "0"})
    assert stale.status_code == 409


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
    assert qr_images(share) == [f"/plays/{play_id}/link.svg", f"/groups/{group.id}/invite.svg"]
    assert f'alt="QR code of http://companion.test/plays/{play_id}"' in share
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
    assert f'alt="QR code of http://companion.test/join/{new.token}"' in share


# --- the QR codes: an image of their own each, kept by the phone ----------------------------------------

def qr_images(page: str) -> list[str]:
    """The addresses of the QR code images on a page, without their version."""
    return [src.split("?")[0] for src in re.findall(r'<figure class="qr"><img src="([^"]+)"', page)]


def qr_address(client, page: str, path: str) -> str:
    """The address of the image of the QR code the page shows at ``path``, version and all."""
    return html.unescape(re.search(rf'<img src="({re.escape(path)}\?[^"]+)"', client.get(page).text).group(1))


def modules(svg: str) -> set[tuple[int, int]]:
    """The dark modules of an SVG QR code: the path draws each row's runs of them as lines."""
    x = y = 0.0
    dark = set()
    lines = re.search(r' d="([^"]+)"/></svg>', svg)[1]
    for command, a, b in re.findall(r"([Mmh])(-?[\d.]+)(?: (-?[\d.]+))?", lines):
        if command == "h":
            dark |= {(int(x) + step, int(y)) for step in range(int(a))}
            x += float(a)
        else:
            x, y = (float(a), float(b)) if command == "M" else (x + float(a), y + float(b))
    return dark


def encodes(svg: str, url: str) -> bool:
    matrix = segno.make(url, error="m").matrix
    return modules(svg) == {(col + 4, row + 4) for row, line in enumerate(matrix)  # 4: the quiet zone
                            for col, on in enumerate(line) if on}


@pytest.mark.parametrize(("page", "path", "link"), [
    ("/plays/{play}", "/plays/{play}/link.svg", "/plays/{play}"),
    ("/plays/{play}", "/groups/{group}/invite.svg", "/join/{token}"),
    ("/groups/{group}", "/groups/{group}/invite.svg", "/join/{token}"),
])
def test_a_qr_code_is_an_image_only_phones_of_the_group_get(app, client, table, page, path, link):
    names = {"play": table["play_id"], "group": table["group_id"], "token": table["group"].token}
    page, path, link = (text.format(**names) for text in (page, path, link))
    address = qr_address(client, page, path)
    image = client.get(address)
    assert image.status_code == 200 and image.mimetype == "image/svg+xml"
    assert image.headers["Cache-Control"] == "private, max-age=604800"
    assert encodes(image.text, f"http://companion.test{link}")
    stranger = app.test_client()
    other_group = app.test_client()
    create_group(other_group, "Other table")
    for phone in (stranger, other_group):
        assert phone.get(address).status_code == 404


@pytest.mark.parametrize("encoding", ["", "gzip"])
def test_a_qr_code_the_phone_keeps_is_not_sent_again(client, table, encoding):
    address = qr_address(client, f"/groups/{table['group_id']}", f"/groups/{table['group_id']}/invite.svg")
    first = client.get(address, headers={"Accept-Encoding": encoding})
    assert first.headers.get("Content-Encoding", "") == encoding
    again = client.get(address, headers={"Accept-Encoding": encoding, "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    assert again.headers["ETag"] == first.headers["ETag"]


def test_a_new_invite_is_a_new_qr_code_at_once(client, db, table):
    group_id, old = table["group_id"], table["group"]
    group_page, path = f"/groups/{group_id}", f"/groups/{group_id}/invite.svg"
    old_address = qr_address(client, group_page, path)
    kept = client.get(old_address).headers["ETag"]
    assert client.post(f"/groups/{group_id}/invite/new").status_code == 302
    new = store.get_group(db, group_id)
    new_address = qr_address(client, group_page, path)
    assert new_address != old_address  # the phone's browser does not show the old code it keeps
    assert qr_address(client, f"/plays/{table['play_id']}", path) == new_address
    image = client.get(new_address, headers={"If-None-Match": kept})
    assert image.status_code == 200 and image.headers["ETag"] != kept
    assert encodes(image.text, f"http://companion.test/join/{new.token}")
    assert not encodes(image.text, f"http://companion.test/join/{old.token}")
