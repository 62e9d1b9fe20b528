"""The play page is rendered once per version of the play; every answer has its own CSRF token."""

from __future__ import annotations

import re

from companion import store
from companion.page_cache import TOKEN_PLACEHOLDER
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
    assert TOKEN_PLACEHOLDER not in first and TOKEN_PLACEHOLDER not in second
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
    for host in ("192.168.1.20:5000", "gamenight.local"):
        client.set_cookie("session", session, domain=host.split(":")[0])
        page = client.get(f"/plays/{play_id}", base_url=f"http://{host}").text
        assert f"http://{host}/plays/{play_id}" in page
