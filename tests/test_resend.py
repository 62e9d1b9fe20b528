"""A write sent twice is stored once (request ids), and every stale edit is answered 409."""

from __future__ import annotations

import io
import re
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from companion import store
from companion.store import archive as archive_store
from companion.store.request_ids import forget_old_requests
from companion.web.security import MAX_GROUPS_PER_PHONE
from tests.conftest import add_players, create_group, start_play
from tests.test_isolation import build_sample_group, crawl

STALE = "Another phone changed this play since you opened it"


@pytest.fixture
def table(client, db):
    group_id = create_group(client, "Table")
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = [p.id for p in store.list_players(db, group_id)]
    return start_play(client, group_id, "gold-west", [(ids[0], "red"), (ids[1], "blue")])


def entry(request_id: str | None = None, **fields) -> dict[str, str]:
    data = {"seat": "0", "points": "3", "note": "sent twice", **fields}
    if request_id is not None:
        data["request_id"] = request_id
    return data


# an entry adding points is stored in one statement; one taking points away is checked in a transaction
WAYS_OF_STORING = pytest.mark.parametrize("points", ["3", "-3"], ids=["one-statement", "transaction"])


@WAYS_OF_STORING
def test_a_write_sent_again_after_a_lost_answer_is_stored_once(client, db, table, points):
    first = client.post(f"/plays/{table}/adjust", data=entry("a1b2c3d4e5f6a7b8c9d0", points=points))
    assert first.status_code == 302
    again = client.post(f"/plays/{table}/adjust", data=entry("a1b2c3d4e5f6a7b8c9d0", points=points))
    assert again.status_code == 303
    assert again.headers["Location"].endswith(f"/plays/{table}")
    assert "Already saved" in client.get(again.headers["Location"], follow_redirects=True).text
    assert [e.payload["note"] for e in store.list_events(db, table)] == ["sent twice"]
    # another request id is another entry
    other = client.post(f"/plays/{table}/adjust", data=entry("ffffeeeeddddccccbbbb", points=points))
    assert other.status_code == 302
    assert len(store.list_events(db, table)) == 2
    assert store.get_play(db, table).version == 2


@pytest.mark.parametrize(("game", "action", "fields"), [
    ("gold-west", "adjust", {"seat": "0", "points": "5", "note": "kept offline"}),
    ("gold-west", "gold-west/ledger/camp", {"seat": "0", "again": "turn once"}),
    ("mayflower", "mayflower/place", {"place-seat": "0", "place-role": "bandit", "place-column": "1"}),
    ("mayflower", "mayflower/no-settler", {"place-seat": "0"}),
])
def test_an_entry_for_a_play_another_phone_finished_is_a_409_and_stores_nothing(client, db, game, action,
                                                                                fields):
    group_id = create_group(client, "Table")
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = [p.id for p in store.list_players(db, group_id)]
    play_id = start_play(client, group_id, game, [(ids[0], "red"), (ids[1], "blue")])
    store.finish_play(db, play_id, {"totals": [1, 2]},
                      [store.ResultInput(0, 1, 2, {"total": 1}), store.ResultInput(1, 2, 1, {"total": 2})])
    # sent from an offline queue: its script keeps an entry refused with a 409, and drops one answered 302
    refused = client.post(f"/plays/{play_id}/{action}", data={**fields, "request_id": "queued0000000000001"})
    assert refused.status_code == 409
    assert "This play is finished. Undo the final tally to change it." in refused.text
    assert f'href="/plays/{play_id}/result"' in refused.text
    assert [e.kind for e in store.list_events(db, play_id)] == ["final"]


def test_a_refused_write_does_not_use_up_its_request_id(client, db, table):
    client.post(f"/plays/{table}/adjust", data=entry())
    stale = client.post(f"/plays/{table}/undo", data={"version": "0", "request_id": "0123456789abcdef0123"})
    assert stale.status_code == 409
    assert len(store.list_events(db, table)) == 1
    fresh = client.post(f"/plays/{table}/undo", data={"version": "1", "request_id": "0123456789abcdef0123"})
    assert fresh.status_code == 302
    assert store.list_events(db, table) == []


def seen_request_ids(db) -> list[str]:
    return [value for (value,) in db.execute("SELECT request_id FROM seen_requests")]


@pytest.mark.parametrize(("action", "fields", "meanwhile", "status", "question"), [
    pytest.param("gold-west/final-tally", {"version": "0", "p0-largest_group": "6"}, None, 200,
                 "No camp has been placed yet", id="a-final-tally-in-the-first-round"),
    pytest.param("gold-west/ledger/camp", {"seat": "0", "terrain": "silver", "drawn_at": "0"},
                 ("camp", {"seat": 0, "terrain": "gold"}), 409,
                 "Another phone entered a camp for Anna since this page was drawn. Record this tap as well?",
                 id="a-tap-another-phone-entered-meanwhile"),
])
def test_an_entry_the_companion_asks_about_asks_again_when_sent_again(client, db, table, action, fields,
                                                                      meanwhile, status, question):
    """Nothing is stored before the answer: the offline queue (static/live.js) shows the question it reads
    from data-question, and opens the page asking it by sending the entry again under its request id."""
    if meanwhile:
        store.append_event(db, table, *meanwhile)
    events = store.list_events(db, table)
    sent = {**fields, "request_id": "asked-000000000000001"}
    for _ in range(2):
        asked = client.post(f"/plays/{table}/{action}", data=sent)
        assert asked.status_code == status
        assert re.search(r"<[^>]* data-question>([^<]*)<", asked.text).group(1).startswith(question)
        assert store.list_events(db, table) == events and seen_request_ids(db) == []


def test_a_refused_restore_does_not_use_up_its_request_id(client, db, table):
    """A phone's restore sent after another phone had restored the play, and again once it is back in the
    trash: the second try restores it, not "Already saved"."""
    group_id = store.get_play(db, table).group_id
    restore = {"request_id": "restore-play-00000001"}
    refused = client.post(f"/groups/{group_id}/trash/plays/{table}/restore", data=restore)
    assert refused.status_code == 302 and "Another phone restored it already." in client.get("/").text
    assert seen_request_ids(db) == []
    store.trash_play(db, table, store.now())
    restored = client.post(f"/groups/{group_id}/trash/plays/{table}/restore", data=restore)
    assert restored.status_code == 302
    assert store.list_plays(db, group_id, "active")[0].id == table


def test_tidying_the_trash_does_not_use_up_the_request_id_of_a_refused_restore(client, db, table):
    """A restore first clears out what has been in the trash too long; that write is not the phone's."""
    group_id = store.get_play(db, table).group_id
    seats = [(player.id, player.colour) for player in store.list_players(db, group_id)]
    other = start_play(client, group_id, "gold-west", seats)
    store.trash_play(db, other, (datetime.now(UTC) - timedelta(days=store.TRASH_DAYS + 1)).isoformat())
    # restoring a play that is not in the trash, while another is due to go for good
    refused = client.post(f"/groups/{group_id}/trash/plays/{table}/restore",
                          data={"request_id": "tidy-the-trash-00001"})
    assert refused.status_code == 302  # to the play, already out of the trash
    assert seen_request_ids(db) == []
    with pytest.raises(store.NotFound):
        store.get_play(db, other)  # the tidying up did clear it out for good


def test_a_request_id_the_companion_does_not_understand_is_refused(client, db, table):
    for bad in ("short", "x" * 65, "has spaces in it here", "ünïcödé-ünïcödé-ünï"):
        refused = client.post(f"/plays/{table}/adjust", data=entry(bad))
        assert refused.status_code == 400 and "request id" in refused.text, bad
    assert store.list_events(db, table) == []


def at_once(app, write: Callable, repeated: type[Exception]) -> list[str]:
    """What two server threads (their own connections) doing ``write(db)`` at the same moment came to:
    "stored", or "repeated" when ``write`` raised ``repeated``."""
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def run() -> None:
        db = store.connect(app.config["DATABASE"])
        try:
            write(db, start)
            outcomes.append("stored")
        except repeated:
            outcomes.append("repeated")
        finally:
            db.close()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
        assert not thread.is_alive()
    return sorted(outcomes)


@WAYS_OF_STORING
def test_two_copies_sent_at_once_are_stored_once(app, db, table, points):
    phone = store.list_memberships(db, store.get_play(db, table).group_id)[0]

    def write(db, start: threading.Barrier) -> None:
        store.expect_request(db, store.RequestId("same-request-id-0001", phone.id, table))
        start.wait(120)
        store.append_event(db, table, "adjust", {"seat": 0, "points": int(points), "note": "once"},
                           check=None if int(points) > 0 else lambda _log: None)

    assert at_once(app, write, store.RepeatedRequest) == ["repeated", "stored"]
    assert [e.payload["note"] for e in store.list_events(db, table)] == ["once"]


@WAYS_OF_STORING
def test_the_same_request_id_from_another_phone_is_another_entry(app, client, db, table, points):
    other_phone = app.test_client()
    group = store.get_group(db, store.get_play(db, table).group_id)
    assert other_phone.post(f"/join/{group.token}").status_code == 302
    for phone in (client, other_phone):
        sent = phone.post(f"/plays/{table}/adjust", data=entry("same-id-on-two-phones", points=points))
        assert sent.status_code == 302
    again = other_phone.post(f"/plays/{table}/adjust", data=entry("same-id-on-two-phones", points=points))
    assert again.status_code == 303
    assert len(store.list_events(db, table)) == 2


@pytest.mark.parametrize("where", ["play", "group"])
def test_the_same_request_id_in_another_group_is_another_write(client, db, table, where):
    """An id first used in one group, sent by a phone to another group, is stored there as usual."""
    other_group = create_group(client, "Other table")
    add_players(client, other_group, ("Cleo", "red"), ("Dan", "blue"))
    ids = [p.id for p in store.list_players(db, other_group)]
    other_play = start_play(client, other_group, "gold-west", [(ids[0], "red"), (ids[1], "blue")])
    assert client.post(f"/plays/{table}/adjust", data=entry("used-in-both-groups")).status_code == 302
    if where == "play":
        answer = client.post(f"/plays/{other_play}/adjust", data=entry("used-in-both-groups"))
        assert answer.status_code == 302
        assert [e.payload["note"] for e in store.list_events(db, other_play)] == ["sent twice"]
    else:
        new_play = {"seat_0-player": str(ids[0]), "seat_0-colour": "red", "seat_1-player": str(ids[1]),
                    "seat_1-colour": "blue", "request_id": "used-in-both-groups"}
        answer = client.post(f"/groups/{other_group}/plays/new/gold-west", data=new_play)
        assert answer.status_code == 302
        assert len(store.list_plays(db, other_group, "active")) == 2


def test_a_new_play_sent_twice_starts_one_play(client, db):
    group_id = create_group(client, "Table")
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = [p.id for p in store.list_players(db, group_id)]
    data = {"seat_0-player": str(ids[0]), "seat_0-colour": "red", "seat_1-player": str(ids[1]),
            "seat_1-colour": "blue", "request_id": "new-play-request-000001"}
    assert client.post(f"/groups/{group_id}/plays/new/gold-west", data=data).status_code == 302
    again = client.post(f"/groups/{group_id}/plays/new/gold-west", data=data)
    assert again.status_code == 303 and again.headers["Location"].endswith(f"/groups/{group_id}")
    assert len(store.list_plays(db, group_id, "active")) == 1


def groups_named(db, name: str) -> list[int]:
    return [group_id for (group_id,) in db.execute("SELECT id FROM groups WHERE name = ?", [name])]


@pytest.mark.parametrize("first_answer", ["arrived", "lost"])
def test_a_new_group_sent_twice_makes_one_group(app, client, db, first_answer):
    """A second tap on "Create the group", or the offline queue sending it again: one group. A phone
    whose first answer was lost never got the cookie that lets it in: the second answer gives it."""
    own_group = create_group(client, "Own table")
    cookie = client.get_cookie("session", domain=app.config["SERVER_NAME"]).value
    data = {"name": "Friday night", "request_id": "create-group-request-0001"}
    assert client.post("/groups", data=data).status_code == 302
    phone = client
    if first_answer == "lost":  # the phone as it was before the first answer
        phone = app.test_client()
        phone.set_cookie("session", cookie, domain=app.config["SERVER_NAME"])
    again = phone.post("/groups", data=data)
    [group_id] = groups_named(db, "Friday night")
    assert again.status_code == 303 and again.headers["Location"] == f"/groups/{group_id}"
    assert "Already saved" in phone.get(again.headers["Location"]).text
    assert phone.get(f"/groups/{own_group}").status_code == 200
    assert len(store.list_memberships(db, group_id)) == 1
    assert phone.post("/groups", data={**data, "request_id": "create-group-request-0002"}).status_code == 302
    assert len(groups_named(db, "Friday night")) == 2  # another id: another group


def test_a_new_group_with_a_request_id_the_companion_does_not_understand_is_refused(client, db):
    refused = client.post("/groups", data={"name": "Friday night", "request_id": "short"})
    assert refused.status_code == 400 and "request id" in refused.text
    assert groups_named(db, "Friday night") == []


def test_two_copies_of_a_new_group_sent_at_once_make_one_group(app, db):
    def create(db, start: threading.Barrier) -> None:
        start.wait(120)
        store.create_group_on_phone(db, "Friday night", "create-group-at-once-01")

    assert at_once(app, create, store.RepeatedCreation) == ["repeated", "stored"]
    assert len(groups_named(db, "Friday night")) == 1


def import_backup(phone, backup: bytes, request_id: str):
    return phone.post("/groups/import", content_type="multipart/form-data",
                      data={"backup": (io.BytesIO(backup), "backup.json"), "request_id": request_id})


@pytest.mark.parametrize("first_answer", ["arrived", "lost"])
def test_a_backup_import_sent_twice_makes_one_group(app, client, db, first_answer):
    """A second tap while the file uploads, or the form sent again after a lost answer: imported once,
    and a phone whose first answer was lost gets the imported group with the second."""
    group_id = create_group(client, "Backed up")
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    backup = client.get(f"/groups/{group_id}/export/backup.json").data
    phone = app.test_client()
    assert import_backup(phone, backup, "import-backup-request-01").status_code == 302
    [imported] = [other for other in groups_named(db, "Backed up") if other != group_id]
    if first_answer == "lost":  # the phone as it was before the first answer: without the group's cookie
        phone = app.test_client()
    again = import_backup(phone, backup, "import-backup-request-01")
    assert groups_named(db, "Backed up") == [group_id, imported]
    assert again.status_code == 303 and again.headers["Location"] == f"/groups/{imported}"
    assert "Already saved" in phone.get(again.headers["Location"]).text
    assert len(store.list_memberships(db, imported)) == 1
    assert import_backup(phone, backup, "import-backup-request-02").status_code == 302
    assert len(groups_named(db, "Backed up")) == 3  # another id: another import


def test_two_copies_of_a_backup_import_sent_at_once_import_it_once(app, client, db):
    group_id = create_group(client, "Backed up")
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    archive = store.dump_group(db, group_id)

    def restore(db, start: threading.Barrier) -> None:
        start.wait(120)
        store.restore_group_on_phone(db, archive, "import-backup-at-once-01")

    assert at_once(app, restore, store.RepeatedCreation) == ["repeated", "stored"]
    assert len(groups_named(db, "Backed up")) == 2  # the original and one import


def test_a_failed_backup_import_does_not_use_up_its_request_id(client, db, table, monkeypatch):
    """An import broken off after its first write removes what it wrote, the noted request id with it:
    the same form sent again imports the backup."""
    group_id = store.get_play(db, table).group_id
    archive = store.dump_group(db, group_id)

    def broken(*_args) -> None:
        raise store.StoreError("The disk is full.")

    with monkeypatch.context() as patched:
        patched.setattr(archive_store, "_restore_play", broken)
        with pytest.raises(store.StoreError):
            store.restore_group_on_phone(db, archive, "import-failed-midway-01")
    assert groups_named(db, "Table") == [group_id]
    restored = store.restore_group_on_phone(db, archive, "import-failed-midway-01")
    assert groups_named(db, "Table") == [group_id, restored.group_id]


def join_form(db, group_id: int, how: str) -> tuple[str, dict[str, str]]:
    """Where a phone sends "Join" and what it sends, by invite link or by join code."""
    group = store.get_group(db, group_id)
    return {"invite link": (f"/join/{group.token}", {}),
            "join code": ("/join", {"code": group.join_code})}[how]


def phone_ids(db, group_id: int) -> list[int]:
    return [membership.id for membership in store.list_memberships(db, group_id)]


@pytest.mark.parametrize("first_answer", ["arrived", "lost"])
@pytest.mark.parametrize("how", ["invite link", "join code"])
def test_a_join_sent_twice_makes_one_membership(app, client, db, how, first_answer):
    """A double tap on "Join", or the offline queue sending it again after a lost answer: the group's
    phone list gains one phone, not a "Phone 3" nobody holds; a phone whose first answer was lost gets
    the membership with the second. A phone in the group joining again is let in as before."""
    group_id = create_group(client, "Friday night")
    address, data = join_form(db, group_id, how)
    sent = {**data, "request_id": "join-the-group-000001"}
    phone = app.test_client()
    assert phone.post(address, data=sent).status_code == 302
    joined = phone_ids(db, group_id)
    if first_answer == "lost":  # the phone as it was before the first answer: without the group's cookie
        phone = app.test_client()
    again = phone.post(address, data=sent)
    assert again.status_code == 303 and again.headers["Location"] == f"/groups/{group_id}"
    page = phone.get(again.headers["Location"])
    assert page.status_code == 200 and "Already saved" in page.text
    assert phone_ids(db, group_id) == joined
    rejoined = phone.post(address, data={**data, "request_id": "join-the-group-000002"})
    assert rejoined.status_code == 302
    assert "You joined Friday night." in phone.get(rejoined.headers["Location"]).text
    assert phone_ids(db, group_id) == joined


def test_a_join_sent_again_to_a_phone_whose_cookie_filled_up_since_says_so(app, client, db):
    group_id = create_group(client, "Friday night")
    address, data = join_form(db, group_id, "invite link")
    sent = {**data, "request_id": "join-the-group-000001"}
    assert app.test_client().post(address, data=sent).status_code == 302  # its answer lost on the way
    phone = app.test_client()
    for n in range(MAX_GROUPS_PER_PHONE):
        create_group(phone, f"Group {n}")
    again = phone.post(address, data=sent)
    assert again.status_code == 409
    assert f"This phone is already in {MAX_GROUPS_PER_PHONE} groups" in again.text
    assert phone.get(f"/groups/{group_id}").status_code == 404


# what happened between a join and the copy sent again after its lost answer
SINCE_THE_JOIN = {
    "a new invite link": ("invite link", "new invite"),
    "a new join code": ("join code", "new invite"),
    "too many wrong codes from its address": ("join code", "wrong codes"),
}


@pytest.mark.parametrize(("how", "since"), SINCE_THE_JOIN.values(), ids=SINCE_THE_JOIN.keys())
def test_a_join_sent_again_is_answered_whatever_became_of_its_link_or_code(app, client, db, how, since):
    """The copy is answered before its link or code is checked, so it never counts as a wrong code;
    a new join from a locked address is still refused."""
    group_id = create_group(client, "Friday night")
    address, data = join_form(db, group_id, how)
    sent = {**data, "request_id": "join-the-group-000001"}
    assert app.test_client().post(address, data=sent).status_code == 302
    joined = phone_ids(db, group_id)
    phone = app.test_client()
    if since == "new invite":
        store.new_invite(db, group_id)
    else:
        for _ in range(app.config["JOIN_FAILURES_ALLOWED"]):
            assert phone.post("/join", data={"code": "WRQNGCDE"}).status_code == 400
    wrong_codes = db.execute("SELECT COUNT(*) FROM join_failures").fetchone()[0]
    again = phone.post(address, data=sent)
    assert again.status_code == 303 and phone.get(f"/groups/{group_id}").status_code == 200
    assert phone_ids(db, group_id) == joined
    assert db.execute("SELECT COUNT(*) FROM join_failures").fetchone()[0] == wrong_codes
    if since == "wrong codes":
        other = {**data, "request_id": "join-the-group-000002"}
        assert app.test_client().post(address, data=other).status_code == 429


def test_two_copies_of_a_join_sent_at_once_make_one_membership(app, client, db):
    group_id = create_group(client, "Friday night")

    def join(db, start: threading.Barrier) -> None:
        start.wait(120)
        store.create_membership(db, group_id, "join-the-group-at-once")

    assert at_once(app, join, store.RepeatedCreation) == ["repeated", "stored"]
    assert len(store.list_memberships(db, group_id)) == 2  # the creator's phone and the joining one


LEAVING = {  # the way out, whether the group is in the trash, what the phone is told (again)
    "leave the group": ("leave", False, "This phone left the group."),
    "leave the deleted group": ("leave-deleted", True, "This phone left the deleted group."),
}


@pytest.mark.parametrize(("action", "deleted", "told"), LEAVING.values(), ids=LEAVING.keys())
def test_leaving_a_group_sent_twice_is_answered_as_the_first_time(app, client, db, action, deleted, told):
    """A double tap on "Leave", or the offline queue sending it again after a lost answer: the second
    copy comes with the cookie the phone had before it left, and goes home as the first did (not
    "There is nothing here", which the queue shows as refused though the phone did leave)."""
    group_id = create_group(client, "Friday night")
    phone = app.test_client()
    assert phone.post(f"/join/{store.get_group(db, group_id).token}").status_code == 302
    if deleted:
        store.trash_group(db, group_id, store.now())
    cookie = phone.get_cookie("session", domain=app.config["SERVER_NAME"]).value
    sent = {"request_id": "leave-the-group-0000001"}
    assert phone.post(f"/groups/{group_id}/{action}", data=sent).status_code == 302
    copy = app.test_client()
    copy.set_cookie("session", cookie, domain=app.config["SERVER_NAME"])
    again = copy.post(f"/groups/{group_id}/{action}", data=sent)
    assert again.status_code == 303 and again.headers["Location"] == "/"
    assert told in copy.get("/").text
    assert len(store.list_memberships(db, group_id)) == 1
    # the same answer for any group, so that it tells nobody which exist; a phone that left none: 404
    assert copy.post(f"/groups/{group_id + 1000}/{action}", data=sent).status_code == 303
    assert app.test_client().post(f"/groups/{group_id}/{action}", data=sent).status_code == 404


def trashed_on_another_phone(db, play_id: int, what: str) -> None:
    group_id = store.get_play(db, play_id).group_id
    if what == "play":
        store.trash_play(db, play_id, store.now())
    else:
        store.trash_group(db, group_id, store.now())


# the write whose answer the phone lost, what went to the trash since, and the trash the answer leads to
SENT_BEFORE_THE_TRASH = {
    "delete the play": ("delete", None, "play"),
    "delete the group": ("group-delete", None, "group"),
    "an entry, then the play deleted": ("adjust", "play", "play"),
    "an entry, then the group deleted": ("adjust", "group", "group"),
}


@pytest.mark.parametrize(("action", "deleted_since", "trash"), SENT_BEFORE_THE_TRASH.values(),
                         ids=SENT_BEFORE_THE_TRASH.keys())
def test_a_write_sent_again_to_what_is_in_the_trash_now_is_already_saved(app, client, db, table, action,
                                                                        deleted_since, trash):
    """The offline queue sends a write again whose answer it lost; what it went to is in the trash now,
    by this very write or by another phone. Stored, it is answered "Already saved", with the way to the
    trash; another phone of the group sending that id is told nothing it sent was saved, a stranger
    learns nothing."""
    group_id = store.get_play(db, table).group_id
    address = f"/groups/{group_id}/delete" if action == "group-delete" else f"/plays/{table}/{action}"
    sent = entry("sent-before-the-trash-01")
    friend = app.test_client()
    assert friend.post(f"/join/{store.get_group(db, group_id).token}").status_code == 302
    assert client.post(address, data=sent).status_code == 302
    if deleted_since:
        trashed_on_another_phone(db, table, deleted_since)
    again = client.post(address, data=sent)
    assert again.status_code == 303
    page = {"play": f"/groups/{group_id}#trash", "group": "/"}[trash]
    assert again.headers["Location"] == page
    assert "Already saved" in client.get(page).text
    assert len(store.list_events(db, table)) == (1 if action == "adjust" else 0)
    stranger = app.test_client()
    for phone, says in ((friend, "nothing sent to it was saved"), (stranger, "There is nothing here")):
        refused = phone.post(address, data=sent)
        assert refused.status_code == 404 and says in refused.text


@pytest.fixture(scope="module")
def sample_site(tmp_path_factory):
    from tests.conftest import make_app

    app = make_app(tmp_path_factory.mktemp("stale"))
    phone = app.test_client()
    group = build_sample_group(app, phone, "Stale table", ("Anna", "Ben"))
    return app, phone, group, crawl(app, phone, group)


def test_every_form_based_on_an_old_version_is_answered_409_with_the_same_message(sample_site):
    """Every form of the site that carries the play's version, sent with an old one."""
    app, phone, group, site = sample_site
    db = store.connect(app.config["DATABASE"])
    versioned = {action: form for action, form in site.forms.items() if "version" in form.fields}
    assert len(versioned) >= 5, sorted(site.forms)
    for action, form in sorted(versioned.items()):
        before = {play_id: store.get_play(db, play_id).version for play_id in group.play_ids}
        # fields the page leaves empty (totals start empty) get a number, and "really finish?" is
        # answered yes, so that only the version is wrong
        fields = {name: [value or ("y" if name == "confirmed" else "0") for value in values]
                  for name, values in form.fields.items()}
        answer = phone.post(action, data={**fields, "version": ["99999"]})
        assert answer.status_code == 409, (action, answer.status_code)
        assert STALE in answer.text, action
        assert {play_id: store.get_play(db, play_id).version for play_id in group.play_ids} == before, action
    db.close()


def test_a_phone_resending_after_a_month_away_is_still_answered_already_saved(app, client, db, table):
    stored = client.post(f"/plays/{table}/adjust", data=entry("sent-before-a-break-01"))
    assert stored.status_code == 302
    # the next game night is weeks away: the phone's queue still holds the entry whose answer it missed
    month_ago = (datetime.now(UTC) - timedelta(days=31)).isoformat()
    db.execute("UPDATE seen_requests SET at = ?", [month_ago])
    forget_old_requests(db)
    again = client.post(f"/plays/{table}/adjust", data=entry("sent-before-a-break-01"))
    assert again.status_code == 303 and len(store.list_events(db, table)) == 1
    # as long as the phone's cookie could last
    assert timedelta(days=store.REQUEST_IDS_KEPT_DAYS) >= app.permanent_session_lifetime


def test_request_ids_are_forgotten_after_their_days(db, table, monkeypatch):
    monkeypatch.setattr(store.transactions, "CHECKPOINT_EVERY", 1)  # every commit tidies up
    old = (datetime.now(UTC) - timedelta(days=store.REQUEST_IDS_KEPT_DAYS, minutes=1)).isoformat()
    group_id = store.get_play(db, table).group_id
    phone = store.list_memberships(db, group_id)[0]
    db.execute("INSERT INTO seen_requests (request_id, membership_id, group_id, play_id, at) "
               "VALUES (?, ?, ?, ?, ?)", ["sent-long-ago-0000001", phone.id, group_id, table, old])
    long_ago, just_now = (store.RequestId(value, phone.id, table)
                          for value in ("sent-long-ago-0000001", "sent-just-now-0000001"))
    assert store.seen_request(db, long_ago) is not None
    store.expect_request(db, just_now)
    store.append_event(db, table, "adjust", {"seat": 0, "points": 1, "note": ""})
    assert store.seen_request(db, long_ago) is None
    kept = store.seen_request(db, just_now)
    assert (kept.group_id, kept.play_id) == (group_id, table)
