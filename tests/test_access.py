"""A group revokes access: its phones listed and removable, new invites, the trash, invite addresses,
and the limit of wrong join codes across server processes."""

from __future__ import annotations

import html
import multiprocessing
import re
from datetime import UTC, datetime, timedelta

import pytest

from companion import store
from tests.conftest import add_players, create_group, make_app, start_play


def cookie_of(app, client) -> str:
    return client.get_cookie("session", domain=app.config["SERVER_NAME"]).value


def phone_with(app, cookie: str):
    phone = app.test_client()
    phone.set_cookie("session", cookie, domain=app.config["SERVER_NAME"])
    return phone


def joined(app, db, group_id: int):
    """A new phone that joined ``group_id`` with its invite link."""
    phone = app.test_client()
    assert phone.post(f"/join/{store.get_group(db, group_id).token}").status_code == 302
    return phone


# --- the phones of a group -------------------------------------------------------------------------

def test_the_group_page_lists_its_phones_and_marks_this_one(app, client, db):
    group_id = create_group(client, "Table")
    joined(app, db, group_id)
    page = client.get(f"/groups/{group_id}").text
    phones = page[page.index('id="phones"'):]
    assert "Phone 1 <strong>(this phone)</strong>" in phones
    assert "Phone 2" in phones and "last seen" in phones
    assert client.post(f"/groups/{group_id}/phones/name", data={"name": "Anna's phone"}).status_code == 302
    assert "Anna&#39;s phone <strong>(this phone)</strong>" in client.get(f"/groups/{group_id}").text


def test_a_phone_name_follows_the_rules_of_names(client):
    group_id = create_group(client, "Table")
    for bad in ("", "   ", "a\x07b", "x" * 200):
        refused = client.post(f"/groups/{group_id}/phones/name", data={"name": bad})
        assert refused.status_code == 400, bad
        assert 'class="error"' in refused.text
    assert [m.name for m in store.list_memberships(store.connect(client.application.config["DATABASE"]),
                                                   group_id)] == [""]


def test_a_removed_phone_gets_404_at_once_and_with_any_copy_of_its_cookie(app, client, db):
    group_id = create_group(client, "Table")
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = [p.id for p in store.list_players(db, group_id)]
    play_id = start_play(client, group_id, "gold-west", [(ids[0], "red"), (ids[1], "blue")])
    lost = joined(app, db, group_id)
    kept = cookie_of(app, lost)
    lost_membership = store.list_memberships(db, group_id)[-1]
    confirm = client.get(f"/groups/{group_id}/phones/{lost_membership.id}/remove")
    assert confirm.status_code == 200 and "Remove Phone 2 from Table?" in confirm.text
    assert store.list_memberships(db, group_id)[-1] == lost_membership  # asking changes nothing
    assert client.post(f"/groups/{group_id}/phones/{lost_membership.id}/remove").status_code == 302
    for phone in (lost, phone_with(app, kept)):
        for url in (f"/groups/{group_id}", f"/plays/{play_id}", f"/plays/{play_id}/state.json",
                    f"/groups/{group_id}/history"):
            assert phone.get(url).status_code == 404, url
        assert phone.post(f"/groups/{group_id}/delete").status_code == 404
        assert "Table" not in phone.get("/").text
    assert lost_membership not in store.list_memberships(db, group_id)
    assert client.get(f"/groups/{group_id}").status_code == 200


def test_a_phone_cannot_remove_a_phone_of_another_group(app, client, db):
    mine = create_group(client, "Mine")
    other_phone = app.test_client()
    theirs = create_group(other_phone, "Theirs")
    [their_membership] = store.list_memberships(db, theirs)
    assert client.post(f"/groups/{mine}/phones/{their_membership.id}/remove").status_code == 404
    assert client.post(f"/groups/{theirs}/phones/{their_membership.id}/remove").status_code == 404
    assert other_phone.get(f"/groups/{theirs}").status_code == 200


def test_leaving_asks_first_then_the_phone_is_out(app, client, db):
    group_id = create_group(client, "Table")
    assert "Leave Table?" in client.get(f"/groups/{group_id}/leave").text
    assert client.get(f"/groups/{group_id}").status_code == 200
    assert client.post(f"/groups/{group_id}/leave").status_code == 302
    assert client.get(f"/groups/{group_id}").status_code == 404
    assert store.get_group(db, group_id).name == "Table"


def test_the_last_phone_leaving_is_told_the_join_code_that_brings_it_back(app, client, db):
    group_id = create_group(client, "Table")
    friend = joined(app, db, group_id)
    code = store.get_group(db, group_id).join_code
    assert "stay for the other phones" in html.unescape(friend.get(f"/groups/{group_id}/leave").text)
    assert friend.post(f"/groups/{group_id}/leave").status_code == 302
    asked = html.unescape(client.get(f"/groups/{group_id}/leave").text)
    assert f"This is the last phone in the group: after leaving, only its join code {code} opens it" in asked
    assert "delete it instead" in asked
    left = client.post(f"/groups/{group_id}/leave", follow_redirects=True)
    assert f"Its join code {code} brings it back." in html.unescape(left.text)
    assert client.post("/join", data={"code": code}, follow_redirects=True).status_code == 200
    assert client.get(f"/groups/{group_id}").status_code == 200


def test_a_new_invite_turns_the_old_link_and_code_away(app, client, db):
    group_id = create_group(client, "Table")
    old = store.get_group(db, group_id)
    friend = joined(app, db, group_id)
    assert "the old ones stop working" in client.get(f"/groups/{group_id}/invite/new").text
    assert client.post(f"/groups/{group_id}/invite/new").status_code == 302
    new = store.get_group(db, group_id)
    assert new.token != old.token and new.join_code != old.join_code
    late = app.test_client()
    assert late.get(f"/join/{old.token}").status_code == 404
    assert late.post(f"/join/{old.token}").status_code == 404
    assert late.post("/join", data={"code": old.join_code}).status_code == 400
    assert late.get(f"/groups/{group_id}").status_code == 404
    page = client.get(f"/groups/{group_id}").text
    assert new.token in page and new.join_code[:4] in page and old.token not in page
    assert late.post("/join", data={"code": new.join_code}).status_code == 302
    assert late.get(f"/groups/{group_id}").status_code == 200
    assert friend.get(f"/groups/{group_id}").status_code == 200  # phones already in stay in


# --- the trash -------------------------------------------------------------------------------------

class FakeClock:
    """The app's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock(app) -> FakeClock:
    app.config["CLOCK"] = FakeClock()
    return app.config["CLOCK"]


def finished_table(client, db, name="Table"):
    group_id = create_group(client, name)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = [p.id for p in store.list_players(db, group_id)]
    play_id = start_play(client, group_id, "gold-west", [(ids[0], "red"), (ids[1], "blue")])
    client.post(f"/plays/{play_id}/finish", data={"version": "0", "total_0": "30", "total_1": "20"})
    assert store.get_play(db, play_id).status == "finished"
    return group_id, play_id


def test_a_deleted_group_can_be_restored_by_its_phones_for_30_days(app, client, db, clock):
    group_id, play_id = finished_table(client, db)
    friend = joined(app, db, group_id)
    stranger = app.test_client()
    assert client.post(f"/groups/{group_id}/delete").status_code == 302
    for phone in (client, friend):
        assert phone.get(f"/groups/{group_id}").status_code == 404
        assert phone.get(f"/plays/{play_id}/result").status_code == 404
        home = phone.get("/").text
        assert "Deleted groups" in home and "Table" in home
    assert "Table" not in stranger.get("/").text
    assert stranger.post(f"/groups/{group_id}/restore").status_code == 404
    clock.now += timedelta(days=29)
    assert friend.post(f"/groups/{group_id}/restore").status_code == 302
    assert client.get(f"/groups/{group_id}").status_code == 200
    assert client.get(f"/plays/{play_id}/result").status_code == 200
    assert store.statistics(db, group_id).players


def test_the_trash_is_emptied_after_30_days(app, client, db, clock):
    group_id, play_id = finished_table(client, db)
    client.post(f"/groups/{group_id}/delete")
    clock.now += timedelta(days=30, seconds=1)
    assert "Deleted groups" not in client.get("/").text  # the visit purges
    assert db.execute("SELECT COUNT(*) FROM groups WHERE id = ?", [group_id]).fetchone()[0] == 0
    assert db.execute("SELECT COUNT(*) FROM plays WHERE id = ?", [play_id]).fetchone()[0] == 0
    assert store.list_memberships(db, group_id) == []
    assert client.post(f"/groups/{group_id}/restore").status_code == 404


@pytest.mark.parametrize("what", ["group", "play"])
def test_a_restore_tapped_just_after_the_30_days_ran_out_is_a_404(client, db, clock, what):
    """The home (or group) page, opened shortly before, still offers "Restore"; the tap comes just after:
    the gate still finds the row, the restore clears the trash out first and finds nothing to restore."""
    group_id, play_id = finished_table(client, db)
    deleted, restore = {"group": (f"/groups/{group_id}/delete", f"/groups/{group_id}/restore"),
                        "play": (f"/plays/{play_id}/delete",
                                 f"/groups/{group_id}/trash/plays/{play_id}/restore")}[what]
    assert client.post(deleted).status_code == 302
    clock.now += timedelta(days=store.TRASH_DAYS, seconds=1)
    response = client.post(restore)
    assert response.status_code == 404 and "There is nothing here." in response.text
    assert db.execute(f"SELECT COUNT(*) FROM {what}s WHERE id = ?",
                      [group_id if what == "group" else play_id]).fetchone()[0] == 0


@pytest.mark.parametrize("what", ["group", "play"])
def test_a_restore_tapped_after_another_phone_restored_it_leads_to_it(app, client, db, clock, what):
    """Both phones show it in the trash; one restores it, then the other taps "Restore" too."""
    group_id, play_id = finished_table(client, db)
    friend = joined(app, db, group_id)
    deleted, restore, page = {
        "group": (f"/groups/{group_id}/delete", f"/groups/{group_id}/restore", f"/groups/{group_id}"),
        "play": (f"/plays/{play_id}/delete", f"/groups/{group_id}/trash/plays/{play_id}/restore",
                 f"/plays/{play_id}")}[what]
    assert client.post(deleted).status_code == 302
    assert client.post(restore).status_code == 302
    response = friend.post(restore)
    assert response.status_code == 302 and response.headers["Location"] == page
    shown = friend.get(page, follow_redirects=True)  # a finished play shows its result
    assert shown.status_code == 200 and "Another phone restored it already." in shown.text


def test_a_deleted_play_leaves_every_page_and_statistic_until_it_is_restored(app, client, db, clock):
    group_id, play_id = finished_table(client, db)
    assert "Delete the play" in client.get(f"/plays/{play_id}/delete").text
    assert "restored from the group page" in client.get(f"/plays/{play_id}/delete").text
    assert client.post(f"/plays/{play_id}/delete").status_code == 302
    assert client.get(f"/plays/{play_id}/result").status_code == 404
    assert client.get(f"/plays/{play_id}/state.json").status_code == 404
    history_page = client.get(f"/groups/{group_id}/history").text
    assert f"/plays/{play_id}/" not in history_page
    assert store.statistics(db, group_id).players == ()
    assert store.dump_group(db, group_id).plays == ()
    backup = client.get(f"/groups/{group_id}/export/backup.json")
    assert backup.status_code == 200 and backup.get_json()["plays"] == []
    assert "Anna" not in client.get(f"/groups/{group_id}/export/plays.csv").text
    group_page = client.get(f"/groups/{group_id}").text
    assert "Deleted plays" in group_page and "Anna, Ben" in group_page
    assert client.post(f"/groups/{group_id}/trash/plays/{play_id}/restore").status_code == 302
    assert client.get(f"/plays/{play_id}/result").status_code == 200
    assert [p.name for p in store.statistics(db, group_id).players] == ["Anna", "Ben"]
    assert len(store.dump_group(db, group_id).plays) == 1
    # and a deleted play is purged with the time
    client.post(f"/plays/{play_id}/delete")
    clock.now += timedelta(days=31)
    client.get("/")
    assert db.execute("SELECT COUNT(*) FROM plays WHERE id = ?", [play_id]).fetchone()[0] == 0
    assert client.post(f"/groups/{group_id}/trash/plays/{play_id}/restore").status_code == 404


def test_a_phone_reaching_what_another_phone_deleted_is_told_where_it_went(app, client, db, clock):
    """An entry sent to a play (or group) deleted meanwhile is not saved: its members are told so and
    where to restore it; a phone outside the group learns nothing."""
    group_id, play_id = finished_table(client, db)
    client.post(f"/plays/{play_id}/undo", data={"version": str(store.get_play(db, play_id).version)})
    friend = joined(app, db, group_id)
    assert client.post(f"/plays/{play_id}/delete").status_code == 302
    for response in (friend.post(f"/plays/{play_id}/adjust", data={"seat": "0", "points": "3"}),
                     friend.get(f"/plays/{play_id}")):
        assert response.status_code == 404
        assert ("This play was deleted on a phone and is in the group's trash: nothing sent to it was saved."
                in html.unescape(response.text))
        assert f'href="/groups/{group_id}#trash"' in response.text
    assert store.list_events(db, play_id) == []
    stranger = app.test_client()
    create_group(stranger, "Other")
    assert "There is nothing here." in stranger.get(f"/plays/{play_id}").text
    assert client.post(f"/groups/{group_id}/delete").status_code == 302
    response = friend.get(f"/groups/{group_id}")
    assert response.status_code == 404 and "This group was deleted on a phone and is in the trash" in \
        html.unescape(response.text)


def test_another_group_cannot_restore_a_play_it_does_not_own(app, client, db, clock):
    _, play_id = finished_table(client, db)
    client.post(f"/plays/{play_id}/delete")
    other = app.test_client()
    other_group = create_group(other, "Other")
    assert other.post(f"/groups/{other_group}/trash/plays/{play_id}/restore").status_code == 404
    assert client.get(f"/plays/{play_id}/result").status_code == 404


# --- invite links use the site's own address --------------------------------------------------------

def invite_link(page: str) -> str:
    return re.search(r'id="invite-link" readonly value="([^"]+)"', page).group(1)


def test_a_forged_host_never_reaches_the_invite_link_or_its_qr_code(tmp_path):
    app = make_app(tmp_path, SERVER_NAME=None)  # answering under any name, as `make run` does
    client = app.test_client()
    group_id = create_group(client, "Table")
    token = store.get_group(store.connect(app.config["DATABASE"]), group_id).token
    assert invite_link(client.get(f"/groups/{group_id}").text) == f"http://localhost/join/{token}"
    cookie = f"session={client.get_cookie('session').value}"
    forger = app.test_client(use_cookies=False)  # sends the phone's cookie to whatever name it uses
    for headers in ({"Host": "evil.example"}, {"Host": "evil.example:5000"},
                    {"X-Forwarded-Host": "evil.example"}):
        page = forger.get(f"/groups/{group_id}", headers={**headers, "Cookie": cookie})
        assert page.status_code == 200
        assert "evil.example" not in page.text, headers  # neither the link nor the QR code's title
        assert invite_link(page.text).endswith(f"/join/{token}")


@pytest.mark.parametrize("host", ["127.0.0.1@evil.example", "localhost@evil.example:80", "127.0.0.1:abc",
                                  "localhost/evil", ""])
def test_a_malformed_host_never_makes_a_hostless_invite_link(tmp_path, host):
    app = make_app(tmp_path, SERVER_NAME=None)
    phone = app.test_client()
    group_id = create_group(phone, "Table")
    link = invite_link(phone.get(f"/groups/{group_id}", headers={"Host": host}).text)
    assert re.fullmatch(r"http://[A-Za-z0-9.-]+(:\d+)?/join/[\w-]+", link), link
    assert "evil" not in link


@pytest.mark.parametrize("host", ["a" * 64, "table.example:5000".rjust(80, "x"), "a..b", "."])
def test_a_host_no_address_can_be_made_for_is_a_400(tmp_path, host):
    app = make_app(tmp_path, SERVER_NAME=None)
    phone = app.test_client()
    group_id = create_group(phone, "Table")
    for path in ("/", f"/groups/{group_id}", "/static/style.css", "/nowhere"):
        answer = phone.get(path, headers={"Host": host})
        assert answer.status_code == 400, (path, answer.status_code)
        assert "could not be understood" in answer.text


@pytest.mark.parametrize("forwarded", [
    {"X-Forwarded-Proto": "javascript", "X-Forwarded-Host": "games.example.org"},
    {"X-Forwarded-Proto": "data", "X-Forwarded-Host": "games.example.org"},
    {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "a@evil.example"},
    {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "evil.example/x?"},
])
def test_behind_a_proxy_only_a_web_scheme_and_a_valid_host_make_the_invite_link(tmp_path, forwarded):
    app = make_app(tmp_path, SERVER_NAME=None)
    app.config["COMPANION_BEHIND_PROXY"] = True
    from companion.web.security import configure_cookies

    configure_cookies(app)
    phone = app.test_client()
    group_id = create_group(phone, "Table")
    link = invite_link(phone.get(f"/groups/{group_id}", headers=forwarded).text)
    assert re.fullmatch(r"https?://[A-Za-z0-9.-]+(:\d+)?/join/[\w-]+", link), link
    assert "evil" not in link


def test_the_configured_base_url_makes_the_invite_link(tmp_path):
    app = make_app(tmp_path, COMPANION_BASE_URL="https://games.example.org/")
    phone = app.test_client()
    group_id = create_group(phone, "Table")
    page = phone.get(f"/groups/{group_id}").text
    assert invite_link(page).startswith("https://games.example.org/join/")


def test_behind_a_proxy_the_forwarded_host_makes_the_invite_link(tmp_path):
    app = make_app(tmp_path, SERVER_NAME=None)
    app.config["COMPANION_BEHIND_PROXY"] = True
    from companion.web.security import configure_cookies

    configure_cookies(app)
    phone = app.test_client()
    group_id = create_group(phone, "Table")
    page = phone.get(f"/groups/{group_id}", headers={"X-Forwarded-Host": "games.example.org",
                                                      "X-Forwarded-Proto": "https"}).text
    assert invite_link(page).startswith("https://games.example.org/join/")


def test_the_base_url_comes_from_the_environment(tmp_path, monkeypatch):
    from app import create_app

    monkeypatch.setenv("COMPANION_BASE_URL", "http://192.168.1.20:5000")
    monkeypatch.setenv("COMPANION_INSTANCE_PATH", str(tmp_path))
    app = create_app({"TESTING": True, "SECRET_KEY": "x", "DATABASE": str(tmp_path / "db.sqlite3")})
    assert app.config["COMPANION_BASE_URL"] == "http://192.168.1.20:5000"


# --- wrong join codes: one limit however many processes answer ---------------------------------------

LIMITS = store.JoinCodeLimits(window=900, per_client=10, in_all=25, from_new_addresses=5,
                              new_address_memory=7 * 86400)


def _guess(database: str, client: str, attempts: int, start, results) -> None:
    db = store.connect(database)
    start.wait(timeout=60)
    outcomes = []
    for _ in range(attempts):
        try:
            store.group_for_join_code(db, "WRQNGCDE", client, 1_000_000.0, LIMITS)
        except store.TooManyWrongCodes:
            outcomes.append("locked")
        except store.NotFound:
            outcomes.append("checked")
    results.put(outcomes)
    db.close()


def guess_in_processes(database: str, clients: list[str], attempts: int) -> list[str]:
    """Every client guesses ``attempts`` wrong codes, each in its own process, all at once."""
    context = multiprocessing.get_context("fork")
    start, results = context.Event(), context.Queue()
    processes = [context.Process(target=_guess, args=(database, client, attempts, start, results))
                 for client in clients]
    for process in processes:
        process.start()
    start.set()
    outcomes = [outcome for _ in processes for outcome in results.get(timeout=120)]
    for process in processes:
        process.join(timeout=60)
        assert process.exitcode == 0
    return outcomes


def test_two_processes_guessing_from_one_address_check_exactly_the_allowed_number(app, db):
    outcomes = guess_in_processes(app.config["DATABASE"], ["192.0.2.7", "192.0.2.7"], 15)
    assert outcomes.count("checked") == LIMITS.per_client
    assert outcomes.count("locked") == 30 - LIMITS.per_client


def test_many_addresses_together_check_no_more_than_the_limit_over_all(app, db):
    guessers = [f"192.0.2.{n}" for n in range(1, 5)]
    for client in guessers:  # each guessed before the window, so none counts as a new address
        with pytest.raises(store.NotFound):
            store.group_for_join_code(db, "WRQNGCDE", client, 1_000_000.0 - 2 * LIMITS.window, LIMITS)
    outcomes = guess_in_processes(app.config["DATABASE"], guessers, 10)
    assert outcomes.count("checked") == LIMITS.in_all
    assert outcomes.count("locked") == 40 - LIMITS.in_all


def test_beyond_the_limit_over_all_new_addresses_together_check_no_more_than_their_share(app, db):
    for n in range(LIMITS.in_all):  # the limit over all addresses is spent
        with pytest.raises(store.NotFound):
            store.group_for_join_code(db, "WRQNGCDE", f"198.51.100.{n}", 1_000_000.0, LIMITS)
    outcomes = guess_in_processes(app.config["DATABASE"], [f"203.0.113.{n}" for n in range(12)], 1)
    assert outcomes.count("checked") == LIMITS.from_new_addresses
    assert outcomes.count("locked") == 12 - LIMITS.from_new_addresses


def test_a_locked_address_can_still_join_with_the_invite_link(app, client, db):
    group_id = create_group(client, "Table")
    group = store.get_group(db, group_id)
    guesser = app.test_client()
    for _ in range(app.config["JOIN_FAILURES_ALLOWED"]):
        assert guesser.post("/join", data={"code": "WRQNGCDE"}).status_code == 400
    assert guesser.post("/join", data={"code": group.join_code}).status_code == 429
    assert guesser.post(f"/join/{group.token}").status_code == 302
    assert guesser.get(f"/groups/{group_id}").status_code == 200


def test_wrong_codes_from_everywhere_together_lock_the_codes_but_not_the_links(app, client, db):
    group = store.get_group(db, create_group(client, "Table"))
    allowed = app.config["JOIN_FAILURES_ALLOWED_IN_ALL"] + app.config["JOIN_FAILURES_FROM_NEW_ADDRESSES"]
    for n in range(allowed):
        phone = app.test_client()
        phone.environ_base["REMOTE_ADDR"] = f"198.51.{n // 200}.{n % 200}"  # each a new address
        assert phone.post("/join", data={"code": "WRQNGCDE"}).status_code == 400
    newcomer = app.test_client()
    newcomer.environ_base["REMOTE_ADDR"] = "203.0.113.5"
    assert newcomer.post("/join", data={"code": group.join_code}).status_code == 429
    assert newcomer.post(f"/join/{group.token}").status_code == 302


# --- the gate: what a phone reaches, trash included ------------------------------------------------

@pytest.fixture
def places(db):
    """A group with a play going on and a play in its trash, a second group, and a phone in the first."""
    group = store.create_group(db, "Table")
    anna, ben = store.add_player(db, group.id, "Anna", "red"), store.add_player(db, group.id, "Ben", "blue")
    going_on = store.start_play(db, group.id, "mayflower", [(ben, "blue"), (anna, "red")])
    trashed = store.start_play(db, group.id, "gold-west", [(anna, "red"), (ben, "blue")])
    store.trash_play(db, trashed, store.now())
    other = store.create_group(db, "Other").id
    mine = store.create_membership(db, group.id)
    return {"group": group.id, "going_on": going_on, "trashed": trashed, "other": other, "token": mine.token}


# (the address's group, its play, what the view restores, whether the group is in the trash) → reached?
REACHES = {
    "its group": ("group", None, None, False, True),
    "its play": (None, "going_on", None, False, True),
    "its play through its group": ("group", "going_on", None, False, True),
    "its play through another group": ("other", "going_on", None, False, False),
    "another group": ("other", None, None, False, False),
    "a play in the trash": (None, "trashed", None, False, False),
    "a play in the trash, to restore it": ("group", "trashed", "play", False, True),
    "a play going on, to restore it": ("group", "going_on", "play", False, True),
    "its group in the trash": ("group", None, None, True, False),
    "its group in the trash, to restore it": ("group", None, "group", True, True),
    "a play of a group in the trash": (None, "going_on", None, True, False),
    "a play of a group in the trash, to restore it": ("group", "trashed", "play", True, False),
    "a play of a group in the trash, restoring the group": ("group", "going_on", "group", True, False),
}


@pytest.mark.parametrize(("group", "play", "restoring", "group_trashed", "reaches"), REACHES.values(),
                         ids=REACHES.keys())
def test_the_gate_lets_a_member_reach_its_group_and_plays_and_the_trash_only_to_restore(
        db, places, group, play, restoring, group_trashed, reaches):
    from companion.store.access import reach

    if group_trashed:
        store.trash_group(db, places["group"], store.now())
    group_id, play_id = places.get(group), places.get(play)
    found = reach(db, [places["token"]], group_id, play_id, restoring)
    assert (found is not None) == reaches
    assert reach(db, [], group_id, play_id, restoring) is None  # no membership, nothing reached
    if found is not None and play_id is not None:
        assert found.play.id == play_id and found.group.id == places["group"]
        assert (found.play_version, found.play_status) == (found.play.version, found.play.status)
        if play == "going_on":
            assert found.play == store.get_play(db, play_id)  # with its seats, in seat order


def test_the_gate_brings_the_membership_and_the_groups_version(db, places):
    from companion.store.access import reach

    found = reach(db, ["x" * 22, places["token"]], places["group"])
    assert found.membership == store.list_memberships(db, places["group"])[0]
    assert found.group == store.get_group(db, places["group"]) and found.play is None
    version = found.group_version
    store.rename_group(db, places["group"], "Tuesday")
    assert reach(db, [places["token"]], places["group"]).group_version > version
