"""The read cache: pages kept per version of what they show, per phone; every change shows at once."""

from __future__ import annotations

import json
import re

from flask import request, request_started

from companion import store
from tests.conftest import add_players, create_group, make_app, start_play


def token_of(html: str) -> str:
    return re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html).group(1)


def test_a_cached_play_page_shows_new_entries_and_fresh_tokens(tmp_path):
    app = make_app(tmp_path, WTF_CSRF_ENABLED=True)
    phone, other_phone = app.test_client(), app.test_client()
    db = store.connect(app.config["DATABASE"])
    group = store.create_group(db, "Club")
    anna = store.add_player(db, group.id, "Anna", "red")
    ben = store.add_player(db, group.id, "Ben", "blue")
    play_id = store.start_play(db, group.id, "mayflower", [(anna, "red"), (ben, "blue")])
    for client in (phone, other_phone):
        home = client.get("/")
        client.post("/join", data={"code": group.join_code, "csrf_token": token_of(home.text)})

    first = phone.get(f"/plays/{play_id}").text
    second = other_phone.get(f"/plays/{play_id}").text
    assert token_of(first) != token_of(second)  # each phone gets the token of its own session
    assert first.replace(token_of(first), "") == second.replace(token_of(second), "")

    # the token from the cached page is accepted
    entry = {"seat": "1", "points": "7", "note": "Bonus", "csrf_token": token_of(second)}
    response = other_phone.post(f"/plays/{play_id}/adjust", data=entry)
    assert response.status_code == 302
    again = phone.get(f"/plays/{play_id}").text
    assert "Bonus" in again and "Bonus" not in first

    store.update_player(db, group.id, ben, "Benedikt", "blue")  # the version stays, the seats change
    assert "Benedikt" in phone.get(f"/plays/{play_id}").text


def test_a_page_with_a_message_is_not_kept(client, db):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = [p.id for p in store.list_players(db, group_id)]
    play_id = start_play(client, group_id, "gold-west", [(ids[0], "red"), (ids[1], "blue")])
    client.post(f"/plays/{play_id}/adjust", data={"seat": "0", "points": "2"})
    client.post(f"/plays/{play_id}/undo", data={"version": "1"})
    assert "Undone." in client.get(f"/plays/{play_id}").text
    assert "Undone." not in client.get(f"/plays/{play_id}").text


def test_each_app_keeps_its_own_pages(tmp_path):
    texts = []
    for name in ("one", "two"):
        folder = tmp_path / name
        folder.mkdir()
        app = make_app(folder)
        client = app.test_client()
        # two sites with the same ids and versions, but different entries
        group_id = create_group(client, "Club")
        add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
        db = store.connect(app.config["DATABASE"])
        ids = [p.id for p in store.list_players(db, group_id)]
        play_id = start_play(client, group_id, "gold-west", [(ids[0], "red"), (ids[1], "blue")])
        client.post(f"/plays/{play_id}/adjust", data={"seat": "0", "points": "1", "note": f"Entry {name}"})
        client.get(f"/plays/{play_id}")
        texts.append(client.get(f"/plays/{play_id}").text)
    assert "Entry one" in texts[0] and "Entry two" in texts[1]


def test_links_for_other_phones_use_the_address_this_phone_used(tmp_path):
    app = make_app(tmp_path, SERVER_NAME=None)  # a laptop reached by its LAN address and by name
    client = app.test_client()
    db = store.connect(app.config["DATABASE"])
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = [p.id for p in store.list_players(db, group_id)]
    play_id = start_play(client, group_id, "gold-west", [(ids[0], "red"), (ids[1], "blue")])
    client.get(f"/groups/{group_id}")  # shows the pending messages, so the play page can be cached
    session = client.get_cookie("session").value
    # two names of this machine: each page links to the name its phone used, though the page is cached
    for host in ("127.0.0.1:5000", "localhost:5000"):
        client.set_cookie("session", session, domain=host.split(":")[0])
        page = client.get(f"/plays/{play_id}", base_url=f"http://{host}").text
        assert f"http://{host}/plays/{play_id}" in page
    # a name that is not this machine's (a forged Host header) is never handed on to other phones
    client.set_cookie("session", session, domain="gamenight.example")
    page = client.get(f"/plays/{play_id}", base_url="http://gamenight.example").text
    assert "gamenight.example" not in page


# --- answered in front of the views -----------------------------------------------------------------

def table_with_a_play(client, db) -> tuple[int, int]:
    """A group with two players and a Gold West play, made through the pages; (group id, play id)."""
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = [p.id for p in store.list_players(db, group_id)]
    play_id = start_play(client, group_id, "gold-west", [(ids[0], "red"), (ids[1], "blue")])
    client.get(f"/groups/{group_id}")  # shows the pending messages
    return group_id, play_id


class ViewsRun(list):
    """The paths Flask handled from now on (the read cache answers without it)."""

    def __init__(self, app) -> None:
        super().__init__()
        request_started.connect(self.started, app)

    def started(self, _sender, **_extra) -> None:
        self.append(request.path)


def views_run(app) -> list[str]:
    return ViewsRun(app)


def test_an_unchanged_poll_is_answered_before_the_views_with_their_kept_bytes(app, client, db):
    _, play_id = table_with_a_play(client, db)
    version = store.get_play(db, play_id).version
    poll = f"/plays/{play_id}/state.json?since={version}"
    app.config["READ_CACHE"] = False
    slow = client.get(poll)
    app.config["READ_CACHE"] = True
    client.get(poll)  # the views answer, and their answer is kept
    seen = views_run(app)
    fast = client.get(poll)
    assert seen == []
    assert (fast.status_code, fast.data) == (slow.status_code, slow.data) == (200, fast.data)
    assert json.loads(fast.data)["changed"] is False
    assert sorted(fast.headers.items()) == sorted(slow.headers.items())


def test_the_next_poll_sees_a_change_and_the_next_page_shows_it(app, client, db):
    group_id, play_id = table_with_a_play(client, db)
    version = store.get_play(db, play_id).version
    first = client.get(f"/plays/{play_id}").text
    assert client.get(f"/plays/{play_id}").text == first  # kept
    # another phone's entry (another process's connection)
    store.append_event(db, play_id, "adjust", {"seat": 1, "points": 4, "note": "Gold rush"})
    poll = json.loads(client.get(f"/plays/{play_id}/state.json?since={version}").data)
    assert poll["changed"] is True and poll["version"] == version + 1
    assert "Gold rush" in client.get(f"/plays/{play_id}").text
    # a change that leaves the play's version alone: a player renamed
    store.update_player(db, group_id, store.get_play(db, play_id).seats[1].player_id, "Benedikt", "blue")
    assert "Benedikt" in client.get(f"/plays/{play_id}").text


def test_a_kept_page_is_served_without_the_views_per_phone(app, client, db):
    _, play_id = table_with_a_play(client, db)
    first = client.get(f"/plays/{play_id}", headers={"Accept-Encoding": "gzip"})
    seen = views_run(app)
    again = client.get(f"/plays/{play_id}", headers={"Accept-Encoding": "gzip"})
    assert seen == [] and again.data == first.data and again.headers["Content-Encoding"] == "gzip"
    plain = client.get(f"/plays/{play_id}")  # another encoding is another page
    assert "Content-Encoding" not in plain.headers and seen == [f"/plays/{play_id}"]
    stranger = app.test_client()  # no membership: the views answer, with 404
    assert stranger.get(f"/plays/{play_id}").status_code == 404
    assert stranger.get(f"/plays/{play_id}/state.json?since=0").status_code == 404


def test_a_removed_phone_gets_404_on_its_next_request(app, client, db):
    group_id, play_id = table_with_a_play(client, db)
    version = store.get_play(db, play_id).version
    for _ in range(2):  # the second answers are the read cache's
        assert client.get(f"/plays/{play_id}").status_code == 200
        assert client.get(f"/plays/{play_id}/state.json?since={version}").status_code == 200
    membership = db.execute("SELECT id FROM memberships WHERE group_id = ?", [group_id]).fetchone()[0]
    store.delete_membership(db, group_id, membership)
    assert client.get(f"/plays/{play_id}").status_code == 404
    assert client.get(f"/plays/{play_id}/state.json?since={version}").status_code == 404


def test_a_forged_cookie_is_not_let_in(app, client, db):
    _, play_id = table_with_a_play(client, db)
    cookie = client.get_cookie("session", domain="companion.test").value
    client.get(f"/plays/{play_id}")
    forged = app.test_client()
    forged.set_cookie("session", cookie[:-3] + ("AAA" if not cookie.endswith("AAA") else "BBB"),
                      domain="companion.test")
    assert forged.get(f"/plays/{play_id}").status_code == 404


def test_the_caches_forget_the_least_recently_used_first():
    from companion.web.lru import Lru

    kept = Lru(2)
    kept.put("Anna's page", 1)
    kept.put("Ben's page", 2)
    assert kept.get("Anna's page") == 1  # read: now the most recently used
    kept.put("Cara's page", 3)
    assert [kept.get(key) for key in ("Anna's page", "Ben's page", "Cara's page")] == [1, None, 3]


def test_a_cache_item_is_changed_from_what_is_kept_or_left_as_it_is():
    from companion.web.lru import Lru

    kept = Lru(2)
    kept.change("table", lambda item: None if item is None else item + 1)  # nothing kept: nothing put
    assert kept.get("table") is None
    kept.put("table", 1)
    kept.change("table", lambda item: item + 1)
    assert kept.get("table") == 2
    kept.change("table", lambda item: None)  # None leaves the kept item as it was
    assert kept.get("table") == 2
