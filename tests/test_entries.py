"""An entry (a running score adjusted, ``POST /plays/<id>/adjust``): what is stored, and what is refused.

Entries go through the views like every other form, with Flask-WTF's CSRF check on, as in
production. Whatever a phone sends is stored as the form reads it or refused with nothing stored.
"""

from __future__ import annotations

import re

import pytest

from companion import store
from tests.conftest import add_players, create_group, make_app, start_play

TOKEN = re.compile(r'name="csrf_token" type="hidden" value="([^"]+)"')


@pytest.fixture
def table(tmp_path):
    """A group of two with a play of Gold West; CSRF on, as in production."""
    app = make_app(tmp_path)
    client = app.test_client()
    group_id = create_group(client, "Table")
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    db = store.connect(app.config["DATABASE"])
    ids = [p.id for p in store.list_players(db, group_id)]
    play_id = start_play(client, group_id, "gold-west", [(ids[0], "red"), (ids[1], "blue")])
    app.config["WTF_CSRF_ENABLED"] = True
    token = TOKEN.search(client.get(f"/plays/{play_id}").text).group(1)
    yield app, client, db, play_id, token
    db.close()


def send(client, play_id: int, body: str, **options):
    return client.post(f"/plays/{play_id}/adjust", data=body,
                       content_type="application/x-www-form-urlencoded", **options)


def stored(db, play_id: int) -> list[dict]:
    return [dict(event.payload) for event in store.list_events(db, play_id)]


def entry(seat: int, points: int, note: str = "") -> dict:
    return {"seat": seat, "points": points, "note": note}


CASES = [  # (what the phone sends, the fields of the form, the answer, what is stored)
    ("a plain entry", "seat=1&points=3&note=&csrf_token={token}", 302, entry(1, 3)),
    ("a negative entry with a note", "seat=0&points=-12&note=Bank+robbed&csrf_token={token}", 302,
     entry(0, -12, "Bank robbed")),
    ("no note field", "seat=0&points=7&csrf_token={token}", 302, entry(0, 7)),
    ("a note with runs of spaces", "seat=0&points=1&note=++two+++words+&csrf_token={token}", 302,
     entry(0, 1, "two words")),
    ("a note of 80 letters", "seat=0&points=1&note=" + "x" * 80 + "&csrf_token={token}", 302,
     entry(0, 1, "x" * 80)),
    ("a note of 81 letters", "seat=0&points=1&note=" + "x" * 81 + "&csrf_token={token}", 400, None),
    ("a note in other letters", "seat=0&points=1&note=%C3%BCber+%E2%82%AC&csrf_token={token}", 302,
     entry(0, 1, "über €")),
    ("a plus sign", "seat=0&points=%2B3&csrf_token={token}", 302, entry(0, 3)),
    ("the typographic minus", "seat=0&points=%E2%88%922&csrf_token={token}", 302, entry(0, -2)),
    ("points with spaces", "seat=0&points=+4+&csrf_token={token}", 302, entry(0, 4)),
    ("points out of range", "seat=0&points=1000&csrf_token={token}", 400, None),
    ("no points", "seat=0&points=&csrf_token={token}", 400, None),
    ("points that are not a number", "seat=0&points=many&csrf_token={token}", 400, None),
    ("a seat the play does not have", "seat=2&points=1&csrf_token={token}", 400, None),
    ("a seat that is not a number", "seat=first&points=1&csrf_token={token}", 400, None),
    ("a seat written twice", "seat=0&seat=1&points=1&csrf_token={token}", 302, entry(0, 1)),
    ("a field the form does not have", "seat=0&points=1&colour=red&csrf_token={token}", 302, entry(0, 1)),
    ("no CSRF token", "seat=0&points=1", 400, None),
    ("a forged CSRF token", "seat=0&points=1&csrf_token=forged.token.value", 400, None),
    ("a request id", "seat=0&points=2&request_id=0123456789abcdef0123&csrf_token={token}", 302, entry(0, 2)),
    ("a request id the site does not understand", "seat=0&points=2&request_id=short&csrf_token={token}",
     400, None),
    ("a body that is not a form", "%ZZseat=0&points=1&csrf_token={token}", 400, None),
]


@pytest.mark.parametrize(("case", "body", "status", "kept"), CASES, ids=[case for case, *_ in CASES])
def test_an_entry_is_stored_as_the_form_reads_it_or_refused_with_nothing_stored(table, case, body, status,
                                                                                 kept):
    _app, client, db, play_id, token = table
    answer = send(client, play_id, body.format(token=token))
    assert answer.status_code == status
    assert stored(db, play_id) == ([kept] if kept else [])
    if status == 302:
        assert answer.headers["Location"].endswith(f"/plays/{play_id}#scoreboard")


@pytest.mark.parametrize("points", [5, -5], ids=["one-statement", "transaction"])
def test_an_entry_sent_again_with_its_request_id_is_stored_once(table, points):
    _app, client, db, play_id, token = table
    body = f"seat=0&points={points}&request_id=a1b2c3d4e5f6a7b8c9d0&csrf_token={token}"
    assert send(client, play_id, body).status_code == 302
    again = send(client, play_id, body)
    assert again.status_code == 303
    assert "Already saved" in client.get(again.headers["Location"], follow_redirects=True).text
    assert stored(db, play_id) == [entry(0, points)]


def test_another_phones_token_is_refused(table):
    app, client, db, play_id, _token = table
    foreign = TOKEN.search(app.test_client().get("/").text).group(1)
    assert send(client, play_id, f"seat=0&points=1&csrf_token={foreign}").status_code == 400
    assert stored(db, play_id) == []


def test_a_phone_outside_the_group_is_told_the_play_does_not_exist(table):
    app, _client, db, play_id, _token = table
    stranger = app.test_client()
    token = TOKEN.search(stranger.get("/").text).group(1)
    assert send(stranger, play_id, f"seat=0&points=1&csrf_token={token}").status_code == 404
    assert send(stranger, play_id + 100, f"seat=0&points=1&csrf_token={token}").status_code == 404
    assert stored(db, play_id) == []


def finish(db, _group_id: int, play_id: int) -> None:
    results = [store.ResultInput(0, 30, 1, {"total": 30}), store.ResultInput(1, 20, 2, {"total": 20})]
    store.finish_play(db, play_id, {"totals": [30, 20]}, results)


def revoke_memberships(db, group_id: int, _play_id: int) -> None:
    for membership in store.list_memberships(db, group_id):
        store.delete_membership(db, group_id, membership.id)


CHANGES = [  # what became of the play or the phone before its entry came, and the answer
    ("the play finished", finish, 409),
    ("the play in the trash", lambda db, _group, play: store.trash_play(db, play, store.now()), 404),
    ("the group in the trash", lambda db, group, _play: store.trash_group(db, group, store.now()), 404),
    ("the phone's membership revoked (an old cookie)", revoke_memberships, 404),
]


@pytest.mark.parametrize(("case", "change", "status"), CHANGES, ids=[case for case, *_ in CHANGES])
@pytest.mark.parametrize("points", [4, -4], ids=["one-statement", "transaction"])
def test_an_entry_the_play_no_longer_takes_stores_nothing(table, case, change, status, points):
    _app, client, db, play_id, token = table
    change(db, store.get_play(db, play_id).group_id, play_id)
    answer = send(client, play_id, f"seat=0&points={points}&csrf_token={token}")
    assert answer.status_code == status
    if status == 409:  # refused, with the way to the result the play has now
        assert f'href="/plays/{play_id}/result"' in answer.text
    assert "adjust" not in [event.kind for event in store.list_events(db, play_id)]


@pytest.mark.parametrize(("referrer", "status"), [(None, 400), ("https://elsewhere.example/", 400),
                                                   ("https://companion.test/plays/1", 302)])
def test_over_https_the_referrer_must_be_the_site_itself(table, referrer, status):
    _app, client, db, play_id, token = table
    headers = {"Referer": referrer} if referrer else {}
    answer = send(client, play_id, f"seat=0&points=1&csrf_token={token}", base_url="https://companion.test",
                  headers=headers)
    assert answer.status_code == status
    assert stored(db, play_id) == ([entry(0, 1)] if status == 302 else [])
