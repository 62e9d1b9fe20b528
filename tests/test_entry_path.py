"""An entry stored before the views run is answered and stored exactly as the views would do it.

Each case is sent twice, to two plays of the same table: once with the fast path in front of the
views and once with it switched off. The answers and what is stored must be the same, whatever the
phone sent: a plain entry, a spelling only the form understands, a bad value, a missing or foreign
CSRF token, HTTPS without a referrer.
"""

from __future__ import annotations

import re

import pytest

from companion import store
from tests.conftest import add_players, create_group, make_app, start_play

TOKEN = re.compile(r'name="csrf_token" type="hidden" value="([^"]+)"')


@pytest.fixture
def table(tmp_path):
    """A group of two with two plays of the same game; CSRF on, as in production."""
    app = make_app(tmp_path)
    client = app.test_client()
    group_id = create_group(client, "Table")
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    db = store.connect(app.config["DATABASE"])
    ids = [p.id for p in store.list_players(db, group_id)]
    plays = [start_play(client, group_id, "gold-west", [(ids[0], "red"), (ids[1], "blue")]) for _ in range(2)]
    app.config["WTF_CSRF_ENABLED"] = True
    token = TOKEN.search(client.get(f"/plays/{plays[0]}").text).group(1)
    yield app, client, db, plays, token
    db.close()


def send(app, client, play_id: int, fast: bool, body: str, **options):
    app.config["FAST_PATH"] = fast
    try:
        return client.post(f"/plays/{play_id}/adjust", data=body,
                           content_type="application/x-www-form-urlencoded", **options)
    finally:
        app.config["FAST_PATH"] = True


def stored(db, play_id: int) -> list[dict]:
    return [dict(event.payload) for event in store.list_events(db, play_id)]


CASES = [  # (what the phone sends, the fields of the form; {token} is the phone's CSRF token)
    ("a plain entry", "seat=1&points=3&note=&csrf_token={token}"),
    ("a negative entry with a note", "seat=0&points=-12&note=Bank+robbed&csrf_token={token}"),
    ("no note field", "seat=0&points=7&csrf_token={token}"),
    ("a note with runs of spaces", "seat=0&points=1&note=++two+++words+&csrf_token={token}"),
    ("a note of 80 letters", "seat=0&points=1&note=" + "x" * 80 + "&csrf_token={token}"),
    ("a note of 81 letters", "seat=0&points=1&note=" + "x" * 81 + "&csrf_token={token}"),
    ("a note in other letters", "seat=0&points=1&note=%C3%BCber+%E2%82%AC&csrf_token={token}"),
    ("a plus sign", "seat=0&points=%2B3&csrf_token={token}"),
    ("the typographic minus", "seat=0&points=%E2%88%922&csrf_token={token}"),
    ("points with spaces", "seat=0&points=+4+&csrf_token={token}"),
    ("points out of range", "seat=0&points=1000&csrf_token={token}"),
    ("no points", "seat=0&points=&csrf_token={token}"),
    ("points that are not a number", "seat=0&points=many&csrf_token={token}"),
    ("a seat the play does not have", "seat=2&points=1&csrf_token={token}"),
    ("a seat that is not a number", "seat=first&points=1&csrf_token={token}"),
    ("a seat written twice", "seat=0&seat=1&points=1&csrf_token={token}"),
    ("a field the form does not have", "seat=0&points=1&colour=red&csrf_token={token}"),
    ("no CSRF token", "seat=0&points=1"),
    ("a forged CSRF token", "seat=0&points=1&csrf_token=forged.token.value"),
    ("a request id", "seat=0&points=2&request_id=0123456789abcdef0123&csrf_token={token}"),
    ("a request id the site does not understand", "seat=0&points=2&request_id=short&csrf_token={token}"),
    ("a body that is not a form", "%ZZseat=0&points=1&csrf_token={token}"),
]


@pytest.mark.parametrize(("case", "body"), CASES, ids=[case for case, _ in CASES])
def test_the_fast_path_answers_and_stores_as_the_views_do(table, case, body):
    app, client, db, (fast_play, views_play), token = table
    body = body.format(token=token)
    request_id = re.search(r"request_id=([^&]*)", body)
    views_body = body.replace(request_id.group(1), request_id.group(1)[::-1]) if request_id else body
    fast = send(app, client, fast_play, True, body)
    views = send(app, client, views_play, False, views_body)
    assert fast.status_code == views.status_code
    assert fast.headers.get("Location", "").replace(str(fast_play), "<play>") == \
        views.headers.get("Location", "").replace(str(views_play), "<play>")
    assert stored(db, fast_play) == stored(db, views_play)
    if fast.status_code >= 400:
        assert stored(db, fast_play) == []  # nothing from a refused request


def test_a_plain_entry_is_answered_with_the_views_very_bytes_without_running_them(table):
    app, client, db, (fast_play, _), token = table
    ran = []
    adjust_view = app.view_functions["plays.adjust"]
    app.view_functions["plays.adjust"] = lambda **args: ran.append(args) or adjust_view(**args)
    body = f"seat=1&points=3&note=&csrf_token={token}"
    views = send(app, client, fast_play, False, body)
    assert len(ran) == 1
    fast = send(app, client, fast_play, True, body)
    assert len(ran) == 1  # stored and answered before the views
    assert (fast.status, fast.get_data()) == (views.status, views.get_data())
    assert sorted(fast.headers.items()) == sorted(views.headers.items())
    assert stored(db, fast_play) == [{"seat": 1, "points": 3, "note": ""}] * 2


def test_an_entry_sent_again_with_its_request_id_is_stored_once(table):
    app, client, db, (play_id, _), token = table
    body = f"seat=0&points=5&request_id=a1b2c3d4e5f6a7b8c9d0&csrf_token={token}"
    assert send(app, client, play_id, True, body).status_code == 302
    again = send(app, client, play_id, True, body)
    assert again.status_code == 303
    assert "Already saved" in client.get(again.headers["Location"], follow_redirects=True).text
    assert stored(db, play_id) == [{"seat": 0, "points": 5, "note": ""}]


def test_another_phones_token_is_refused(table):
    app, client, db, (play_id, _), _token = table
    stranger = app.test_client()
    foreign = TOKEN.search(stranger.get("/").text)
    assert foreign is not None
    refused = send(app, client, play_id, True, f"seat=0&points=1&csrf_token={foreign.group(1)}")
    assert refused.status_code == 400
    assert stored(db, play_id) == []


def test_a_phone_outside_the_group_is_told_the_play_does_not_exist(table):
    app, _client, db, (play_id, _), _token = table
    stranger = app.test_client()
    token = TOKEN.search(stranger.get("/").text).group(1)
    assert send(app, stranger, play_id, True, f"seat=0&points=1&csrf_token={token}").status_code == 404
    assert stored(db, play_id) == []


def test_a_play_in_the_trash_takes_no_entry(table):
    app, client, db, (play_id, _), token = table
    store.trash_play(db, play_id, store.now())
    assert send(app, client, play_id, True, f"seat=0&points=1&csrf_token={token}").status_code == 404
    assert stored(db, play_id) == []


def finish(db, group_id: int, play_id: int) -> None:
    results = [store.ResultInput(0, 30, 1, {"total": 30}), store.ResultInput(1, 20, 2, {"total": 20})]
    store.finish_play(db, play_id, {"totals": [30, 20]}, results)


def revoke_memberships(db, group_id: int, _play_id: int) -> None:
    for membership in store.list_memberships(db, group_id):
        store.delete_membership(db, group_id, membership.id)


CHANGES = [  # what became of the plays or the phone before its entry came
    ("the play finished", finish),
    ("the group in the trash", lambda db, group_id, _play_id: store.trash_group(db, group_id, store.now())),
    ("the phone's membership revoked (an old cookie)", revoke_memberships),
]


@pytest.mark.parametrize(("case", "change"), CHANGES, ids=[case for case, _ in CHANGES])
@pytest.mark.parametrize("points", [4, -4])
def test_an_entry_the_play_no_longer_takes_is_answered_as_the_views_answer_it(table, case, change, points):
    app, client, db, (fast_play, views_play), token = table
    group_id = store.get_play(db, fast_play).group_id
    for play_id in (fast_play, views_play):
        change(db, group_id, play_id)
    body = f"seat=0&points={points}&csrf_token={token}"
    fast = send(app, client, fast_play, True, body)
    views = send(app, client, views_play, False, body)
    assert fast.status_code == views.status_code
    assert fast.headers.get("Location", "").replace(str(fast_play), "<play>") == \
        views.headers.get("Location", "").replace(str(views_play), "<play>")
    kinds = [[event.kind for event in store.list_events(db, play_id)] for play_id in (fast_play, views_play)]
    assert kinds[0] == kinds[1] and "adjust" not in kinds[0]


@pytest.mark.parametrize(("referrer", "status"), [(None, 400), ("https://elsewhere.example/", 400),
                                                   ("https://companion.test/plays/1", 302)])
def test_over_https_the_referrer_must_be_the_site_itself(table, referrer, status):
    app, client, db, (fast_play, views_play), token = table
    headers = {"Referer": referrer} if referrer else {}
    body = f"seat=0&points=1&csrf_token={token}"
    fast = send(app, client, fast_play, True, body, base_url="https://companion.test", headers=headers)
    views = send(app, client, views_play, False, body, base_url="https://companion.test", headers=headers)
    assert fast.status_code == views.status_code == status
    assert stored(db, fast_play) == stored(db, views_play)


@pytest.mark.filterwarnings("ignore:Current server name")
def test_an_address_the_site_does_not_serve_is_answered_by_the_views(table):
    app, client, db, (fast_play, views_play), token = table
    body = f"seat=0&points=1&csrf_token={token}"
    send(app, client, fast_play, True, body)  # the site's own address first: its routing is kept
    fast = send(app, client, fast_play, True, body, base_url="http://elsewhere.test")
    views = send(app, client, views_play, False, body, base_url="http://elsewhere.test")
    assert fast.status_code == views.status_code >= 400
    assert len(stored(db, fast_play)) == 1 and stored(db, views_play) == []
