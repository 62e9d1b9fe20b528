"""The group page is kept per version of the group, and every change shows on the very next request."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from companion import store
from companion.web.i18n import moment
from tests.conftest import add_players, create_group
from tests.test_page_cache import views_run


@dataclass
class Table:
    """A group with two players, a play going on, a finished one, and a second phone."""

    group_id: int
    anna: int
    ben: int
    going_on: int
    finished: int
    friend: object  # the second phone's test client
    friend_phone: int  # its membership

    @property
    def page(self) -> str:
        return f"/groups/{self.group_id}"


def finish(db, play_id: int, totals: tuple[int, int]) -> None:
    ranks = [1 + sum(other > total for other in totals) for total in totals]
    results = [store.ResultInput(seat, total, rank, {"total": total})
               for seat, (total, rank) in enumerate(zip(totals, ranks, strict=True))]
    store.finish_play(db, play_id, {}, results)


@pytest.fixture
def table(app, client, db) -> Table:
    group_id = create_group(client, "Friday night")
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    anna, ben = (p.id for p in store.list_players(db, group_id))
    going_on = store.start_play(db, group_id, "gold-west", [(anna, "red"), (ben, "blue")])
    finished = store.start_play(db, group_id, "mayflower", [(anna, "red"), (ben, "blue")])
    finish(db, finished, (30, 20))
    friend = app.test_client()
    assert friend.post(f"/join/{store.get_group(db, group_id).token}").status_code == 302
    friend.get(f"/groups/{group_id}")  # shows its welcome message
    friend_phone = store.list_memberships(db, group_id)[1].id
    return Table(group_id, anna, ben, going_on, finished, friend, friend_phone)


def kept_page(app, client, table: Table) -> str:
    """The group page as this phone has it kept: the second request is answered without the views."""
    client.get(table.page)  # shows the pending messages
    first = client.get(table.page).text
    seen = views_run(app)
    again = client.get(table.page).text
    assert seen == [] and again == first
    return first


def trash(db, play_id: int) -> None:
    store.trash_play(db, play_id, store.now())


def add_own_game(app, db, t: Table) -> None:
    sheet = {"name": "Azul", "min_players": "2", "max_players": "4", "rows-0-name": "Points"}
    assert t.friend.post(f"/groups/{t.group_id}/games/new", data=sheet).status_code == 302


def correct_result(app, db, t: Table) -> None:
    store.correct_results(db, t.finished, [store.ResultInput(0, 30, 2, {"total": 30}),
                                           store.ResultInput(1, 47, 1, {"total": 47})])


def rename_own_game(app, db, t: Table) -> None:
    add_own_game(app, db, t)
    game = store.list_group_games(db, t.group_id)[0]
    store.update_group_game(db, t.group_id, game.id, "Azul Summer", None, game.sheet)


def join_a_third_phone(app, db, t: Table) -> None:
    assert app.test_client().post(f"/join/{store.get_group(db, t.group_id).token}").status_code == 302


def join_code_shown(app, db, t: Table) -> str:
    code = store.get_group(db, t.group_id).join_code
    return f"{code[:4]}-{code[4:]}"


LATER = "2031-05-06T07:08:00+00:00"


def later_shown(app, db, t: Table) -> str:
    with app.test_request_context(headers={"Accept-Language": "en"}):
        return moment(LATER)


# Each change, as another phone (or another server process) makes it, and what the page then shows
# (the text, or how to find it out after the change).
CHANGES = {
    "a player added": (lambda app, db, t: store.add_player(db, t.group_id, "Cara", "green"), "Cara"),
    "a player renamed": (lambda app, db, t: store.update_player(db, t.group_id, t.ben, "Benedikt", "blue"),
                         "Benedikt"),
    "a player retired": (lambda app, db, t: store.set_player_retired(db, t.group_id, t.ben, True),
                         "Retired players (1)"),
    "a play started": (lambda app, db, t: store.start_play(db, t.group_id, "mayflower",
                                                           [(t.ben, "blue"), (t.anna, "red")]), "Ben, Anna"),
    "a play finished": (lambda app, db, t: finish(db, t.going_on, (5, 9)),
                        lambda app, db, t: f"/plays/{t.going_on}/result"),
    "a play deleted": (lambda app, db, t: trash(db, t.finished), "Deleted plays"),
    "the group renamed": (lambda app, db, t: store.rename_group(db, t.group_id, "Tuesday club"),
                          "Tuesday club"),
    "an own game added": (add_own_game, "Azul"),
    "a phone joined": (join_a_third_phone, "Phone 3"),
    "a phone named": (lambda app, db, t: store.rename_membership(db, t.group_id, t.friend_phone, "Kitchen"),
                      "Kitchen"),
    "a phone seen": (lambda app, db, t: store.touch_membership(db, t.friend_phone, LATER), later_shown),
    "a new invite": (lambda app, db, t: store.new_invite(db, t.group_id), join_code_shown),
    "a result corrected": (correct_result, "<b>47</b>"),
    "an own game renamed": (rename_own_game, "Azul Summer"),
    "a player's colour changed": (
        lambda app, db, t: store.update_player(db, t.group_id, t.ben, "Ben", "green"),
        '<span class="swatch c-green" aria-hidden="true"></span> Ben'),
}


@pytest.mark.parametrize(("change", "shown"), CHANGES.values(), ids=CHANGES.keys())
def test_a_change_shows_on_the_next_request(app, client, db, table, change, shown):
    before = kept_page(app, client, table)
    change(app, db, table)
    if callable(shown):
        shown = shown(app, db, table)
    assert shown not in before
    assert shown in client.get(table.page).text


def delete_dora(db, t: Table) -> None:
    dora = next(p.id for p in store.list_players(db, t.group_id) if p.name == "Dora")
    store.delete_player(db, t.group_id, dora)


# Changes that take something off the page: what is prepared before the page is kept, the change,
# and what is then gone.
REMOVALS = {
    "a play restored": (lambda db, t: trash(db, t.finished),
                        lambda db, t: store.restore_trashed_play(db, t.group_id, t.finished),
                        "Deleted plays"),
    "a phone removed": (lambda db, t: None,
                        lambda db, t: store.delete_membership(db, t.group_id, t.friend_phone), "Phone 2"),
    "a player deleted": (lambda db, t: store.add_player(db, t.group_id, "Dora", "green"), delete_dora,
                         "Dora"),
}


@pytest.mark.parametrize(("prepare", "change", "gone"), REMOVALS.values(), ids=REMOVALS.keys())
def test_something_taken_away_is_gone_on_the_next_request(app, client, db, table, prepare, change, gone):
    prepare(db, table)
    assert gone in kept_page(app, client, table)
    change(db, table)
    assert gone not in client.get(table.page).text


def test_an_entry_in_a_play_keeps_the_group_page(app, client, db, table):
    kept_page(app, client, table)
    store.append_event(db, table.going_on, "adjust", {"seat": 0, "points": 3, "note": ""})
    seen = views_run(app)
    client.get(table.page)
    assert seen == []  # the page shows no running scores, so it stays kept


def test_a_removed_phone_gets_404_at_once(app, client, db, table):
    kept_page(app, client, table)
    mine = store.list_memberships(db, table.group_id)[0].id
    table.friend.post(f"/groups/{table.group_id}/phones/{mine}/remove")
    assert client.get(table.page).status_code == 404


def test_a_kept_cookie_replayed_after_the_group_was_deleted_gets_404(app, client, db, table):
    kept_page(app, client, table)
    cookie = client.get_cookie("session", domain=app.config["SERVER_NAME"]).value
    table.friend.post(f"/groups/{table.group_id}/delete")
    replay = app.test_client()
    replay.set_cookie("session", cookie, domain=app.config["SERVER_NAME"])
    assert replay.get(table.page).status_code == 404
    assert client.get(table.page).status_code == 404
    store.delete_group(db, table.group_id)  # for good, and another group comes
    other = create_group(app.test_client(), "Their table")
    assert replay.get(table.page).status_code == 404
    assert replay.get(f"/groups/{other}").status_code == 404


def test_a_page_with_a_message_is_never_kept(app, client, db, table):
    kept_page(app, client, table)
    client.post(f"/groups/{table.group_id}/players", data={"name": "Cara", "colour": "green"})
    with_message = client.get_cookie("session", domain=app.config["SERVER_NAME"]).value
    assert "Cara joined the group." in client.get(table.page).text
    assert "Cara joined the group." not in client.get(table.page).text
    # the same cookie again (a second tab that missed the new cookie): the views show the message again
    seen = views_run(app)
    for _ in range(2):
        client.set_cookie("session", with_message, domain=app.config["SERVER_NAME"])
        assert "Cara joined the group." in client.get(table.page).text
    assert seen == [table.page, table.page]


def test_the_german_page_is_not_served_to_an_english_phone(app, client, db, table):
    client.get(table.page)
    german = client.get(table.page, headers={"Accept-Language": "de"}).text
    assert client.get(table.page, headers={"Accept-Language": "de"}).text == german  # kept
    english = client.get(table.page, headers={"Accept-Language": "en"}).text
    assert "Spieler" in german and "Players" not in german
    assert "Players" in english and "Spieler" not in english


def test_a_visit_due_to_be_noted_goes_to_the_views_and_is_noted(app, client, db, table):
    kept_page(app, client, table)
    mine = store.list_memberships(db, table.group_id)[0]
    db.execute("UPDATE memberships SET last_seen = ? WHERE id = ?", ["2020-01-01T00:00:00+00:00", mine.id])
    seen = views_run(app)
    assert client.get(table.page).status_code == 200
    assert seen == [table.page]
    assert store.get_membership(db, table.group_id, mine.id).last_seen != "2020-01-01T00:00:00+00:00"


def test_a_visit_noted_by_one_of_several_requests_at_once_changes_the_group_once(db, table):
    """Requests that all found the note due (they read the phone's old time) write it once."""
    mine = store.list_memberships(db, table.group_id)[0]
    db.execute("UPDATE memberships SET last_seen = ? WHERE id = ?", ["2020-01-01T00:00:00+00:00", mine.id])
    def group_version() -> int:
        return db.execute("SELECT version FROM groups WHERE id = ?", [table.group_id]).fetchone()[0]

    version = group_version()
    due, at = "2026-11-30T19:55:00+00:00", "2026-11-30T20:00:00+00:00"
    noted = [store.touch_membership(db, mine.id, at, unless_seen_since=due) for _request in range(5)]
    assert noted == [True, False, False, False, False]
    assert store.get_membership(db, table.group_id, mine.id).last_seen == at
    assert group_version() == version + 1
