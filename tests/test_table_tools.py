"""At the table: the play timer, who starts, the note and variant; rules first, then through the pages."""

from __future__ import annotations

import csv
import html
import io
import random
import re
from datetime import UTC, datetime, timedelta

import pytest

from companion import store
from companion.games import table_tools as tools
from companion.games.common import RulesError
from tests.conftest import add_players, create_group, start_play

T0 = datetime(2024, 5, 1, 20, 0, tzinfo=UTC)


def at(seconds: int) -> datetime:
    return T0 + timedelta(seconds=seconds)


def test_the_timer_counts_only_while_running():
    options: dict = {}
    assert tools.timer_state(options, at(0)) == ("not started", 0)
    options[tools.TIMER] = tools.timer_after(options, tools.START, at(0))
    assert tools.timer_state(options, at(90)) == ("running", 90)
    options[tools.TIMER] = tools.timer_after(options, tools.PAUSE, at(100))
    assert tools.timer_state(options, at(5000)) == ("paused", 100)
    options[tools.TIMER] = tools.timer_after(options, tools.RESUME, at(6000))
    assert tools.timer_state(options, at(6030)) == ("running", 130)
    # a finished play's duration runs up to its end, however late it is asked
    assert tools.duration_seconds(options, at(6060).isoformat(), at(99_999)) == 160
    assert tools.duration_seconds({}, at(60).isoformat(), at(99)) is None
    # finishing stops it there; a paused timer stays as it is
    assert tools.timer_stopped(options, at(6060))[tools.TIMER] == {"elapsed": 160, "since": None}
    paused = {tools.TIMER: {"elapsed": 100, "since": None}}
    assert tools.timer_stopped(paused, at(6060)) == paused


@pytest.mark.parametrize(("timer", "action", "message"), [
    (None, tools.PAUSE, "The timer is not running (another phone may have paused it)."),
    (None, tools.RESUME, "The timer is not paused (another phone may have resumed it)."),
    ({"elapsed": 0, "since": T0.isoformat()}, tools.START, "The timer is already started."),
    ({"elapsed": 0, "since": T0.isoformat()}, tools.RESUME,
     "The timer is not paused (another phone may have resumed it)."),
    ({"elapsed": 30, "since": None}, tools.PAUSE,
     "The timer is not running (another phone may have paused it)."),
    ({"elapsed": 30, "since": None}, "stop", "Start, pause or resume the timer."),
])
def test_a_timer_tap_that_does_not_fit_is_refused(timer, action, message):
    options = {} if timer is None else {tools.TIMER: timer}
    with pytest.raises(RulesError) as refused:
        tools.timer_after(options, action, at(60))
    assert str(refused.value) == message


@pytest.mark.parametrize(("names", "first", "order"), [
    (["Anna", "Ben", "Cara"], 0, ["Anna", "Ben", "Cara"]),
    (["Anna", "Ben", "Cara"], 2, ["Cara", "Anna", "Ben"]),
    (["Anna"], 0, ["Anna"]),
])
def test_turn_order_starts_with_the_first_player_then_follows_the_seats(names, first, order):
    assert tools.turn_order(names, first) == order


def test_the_first_player_is_drawn_among_the_seats_or_taken_from_the_phone():
    drawn = {tools.pick_first_seat(4, rng=random.Random(seed)) for seed in range(50)}
    assert drawn == {0, 1, 2, 3}
    assert tools.pick_first_seat(4, 3) == 3
    for wrong in (4, -1, "1", True):
        with pytest.raises(RulesError):
            tools.pick_first_seat(4, wrong)


@pytest.mark.parametrize(("seconds", "shown"), [(0, "0:00"), (69, "1:09"), (3600, "1:00:00"),
                                               (3909, "1:05:09")])
def test_clock(seconds, shown):
    assert tools.clock(seconds) == shown


# --- through the pages ------------------------------------------------------------------------------

@pytest.fixture
def play(client, db):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"), ("Cara", "green"))
    ids = [p.id for p in store.list_players(db, group_id)]
    return start_play(client, group_id, "gold-west", [(ids[0], "red"), (ids[1], "blue"), (ids[2], "green")])


def test_the_timer_through_the_pages_moves_the_play_on_for_every_phone(client, db, play):
    page = client.get(f"/plays/{play}").text
    assert "Start the timer" in page and "not started" in page
    version = store.get_play(db, play).version
    response = client.post(f"/plays/{play}/timer", data={"action": "start"})
    assert response.status_code == 302 and response.headers["Location"].endswith(f"/plays/{play}#table-tools")
    stored = store.get_play(db, play)
    assert stored.version == version + 1 and stored.options[tools.TIMER]["since"] is not None
    assert stored.game == "gold-west" and "Pause" in client.get(f"/plays/{play}").text
    # a second phone's stale "start" is refused with a message; nothing changes
    client.post(f"/plays/{play}/timer", data={"action": "start"})
    assert store.get_play(db, play).version == version + 1
    assert "The timer is already started." in client.get(f"/plays/{play}").text
    client.post(f"/plays/{play}/timer", data={"action": "pause"})
    paused = store.get_play(db, play).options[tools.TIMER]
    assert paused["since"] is None and paused["elapsed"] >= 0
    assert "Resume" in client.get(f"/plays/{play}").text
    refused = client.post(f"/plays/{play}/timer", data={"action": "explode"})
    assert refused.status_code == 302 and store.get_play(db, play).options[tools.TIMER] == paused


def test_the_first_player_is_picked_on_the_server_without_a_script(client, db, play):
    client.post(f"/plays/{play}/first-player", data={"seat": ""})
    first = store.get_play(db, play).options[tools.FIRST_SEAT]
    names = ["Anna", "Ben", "Cara"]
    page = client.get(f"/plays/{play}").text
    assert f"{names[first]} starts." in page
    # the phone's own draw is taken as it is; a seat that is not at the table is refused
    client.post(f"/plays/{play}/first-player", data={"seat": "2"})
    assert "Cara starts." in client.get(f"/plays/{play}").text and "Then: Anna, Ben." in \
        client.get(f"/plays/{play}").text
    for wrong in ("3", "x", "12"):
        client.post(f"/plays/{play}/first-player", data={"seat": wrong})
        assert store.get_play(db, play).options[tools.FIRST_SEAT] == 2


def test_two_phones_picking_who_starts_at_once_keep_the_first_pick(app, client, db, play):
    """Phone 1 shows "Anna starts."; phone 2, its page drawn before, picks too: told who starts."""
    other = app.test_client()
    group = store.get_group(db, store.get_play(db, play).group_id)
    assert other.post(f"/join/{group.token}").status_code == 302
    drawn = re.search(r'name="shown" value="([^"]*)"', other.get(f"/plays/{play}").text).group(1)
    assert drawn == ""  # nobody picked yet
    client.post(f"/plays/{play}/first-player", data={"seat": "0", "shown": ""})
    other.post(f"/plays/{play}/first-player", data={"seat": "1", "shown": drawn})
    assert store.get_play(db, play).options[tools.FIRST_SEAT] == 0
    page = html.unescape(other.get(f"/plays/{play}").text)
    assert "Another phone picked who starts since this page was drawn: Anna starts." in page
    # "Pick again" on a page that shows the pick draws again
    shown = re.search(r'name="shown" value="([^"]*)"', page).group(1)
    assert shown == "0"
    other.post(f"/plays/{play}/first-player", data={"seat": "2", "shown": shown})
    assert store.get_play(db, play).options[tools.FIRST_SEAT] == 2


def _finish(db, play: int) -> None:
    """Another phone's final tally for the three seats."""
    store.finish_play(db, play, {"totals": [5, 7, 1]},
                      [store.ResultInput(0, 5, 2, {"total": 5}), store.ResultInput(1, 7, 1, {"total": 7}),
                       store.ResultInput(2, 1, 3, {"total": 1})],
                      store.get_play(db, play).version, tools.timer_stopped)


@pytest.mark.parametrize(("path", "data", "key", "kept"), [
    ("timer", {"action": "start"}, tools.TIMER, None),  # "Played for 0:00" on the record otherwise
    ("first-player", {"seat": "2", "shown": "0"}, tools.FIRST_SEAT, 0),  # a stale "Pick again"
])
@pytest.mark.parametrize("finished", ["before the tap", "while the tap waits for the lock"])
def test_a_timer_tap_or_pick_on_a_play_finished_meanwhile_is_refused_with_409(
        client, db, play, monkeypatch, path, data, key, kept, finished):
    client.post(f"/plays/{play}/first-player", data={"seat": "0", "shown": ""})
    if finished == "before the tap":
        _finish(db, play)
    else:
        change = store.change_play_options

        def finished_meanwhile(db_, play_id, *args, **kwargs):
            _finish(db_, play_id)
            return change(db_, play_id, *args, **kwargs)

        monkeypatch.setattr(store, "change_play_options", finished_meanwhile)
    response = client.post(f"/plays/{play}/{path}", data=data)
    assert response.status_code == 409
    assert "This play is finished. Undo the final tally to change it." in html.unescape(response.text)
    stored = store.get_play(db, play)
    assert stored.status == "finished" and stored.options.get(key) == kept


def test_the_note_and_variant_are_kept_during_and_after_the_play(client, db, play):
    client.post(f"/plays/{play}/notes", data={"note": "  Ben's first game\nclose finish ",
                                              "variant": "Trading Post", "version": "0"})
    options = store.get_play(db, play).options
    assert options[tools.NOTE] == "Ben's first game\nclose finish"
    assert options[tools.VARIANT] == "Trading Post"
    too_long = client.post(f"/plays/{play}/notes", data={"note": "x" * 501, "variant": "", "version": "1"})
    assert too_long.status_code == 302 and store.get_play(db, play).options[tools.NOTE].startswith("Ben")
    tally = client.get(f"/plays/{play}/finish").text
    version = re.search(r'name="version" type="hidden" value="(\d+)"', tally).group(1)
    client.post(f"/plays/{play}/finish", data={"version": version, "total_0": "5", "total_1": "7",
                                               "total_2": "1"})
    record = client.get(f"/plays/{play}/record").text
    assert "Trading Post" in record and "Ben&#39;s first game" in record
    response = client.post(f"/plays/{play}/notes", data={"note": "", "variant": "Trading Post, 2 maps",
                                                         "version": "1"})
    assert response.headers["Location"].endswith(f"/plays/{play}/record#table-tools")
    assert store.get_play(db, play).options[tools.VARIANT] == "Trading Post, 2 maps"
    # a finished play's timer does not start again
    client.post(f"/plays/{play}/timer", data={"action": "start"})
    assert tools.TIMER not in store.get_play(db, play).options


def test_duration_note_and_variant_go_to_the_exports(client, db, play):
    extras = {tools.TIMER: {"elapsed": 1800, "since": None}, tools.VARIANT: "Trading Post",
              tools.NOTE: "=close"}
    store.change_play_options(db, play, lambda options: {**options, **extras})
    tally = client.get(f"/plays/{play}/finish").text
    version = re.search(r'name="version" type="hidden" value="(\d+)"', tally).group(1)
    client.post(f"/plays/{play}/finish", data={"version": version, "total_0": "5", "total_1": "7",
                                               "total_2": "1"})
    group_id = store.get_play(db, play).group_id
    assert "Played for 30:00." in client.get(f"/plays/{play}/record").text
    text = client.get(f"/groups/{group_id}/export/plays.csv").text.lstrip("\ufeff")
    lines = list(csv.DictReader(io.StringIO(text)))
    assert {(line["minutes"], line["expansions"], line["note"]) for line in lines} == {
        ("30", "Trading Post", "'=close")}
    xml = client.get(f"/groups/{group_id}/export/bgg-plays.xml").text
    assert 'length="30"' in xml and "<comments>Trading Post\n=close</comments>" in xml


@pytest.mark.parametrize("fields", [{"seat": " "}, {"seat": "", "shown": " "}, {"seat": " 1 ", "shown": " "}])
def test_blank_fields_of_the_first_player_form_count_as_not_given(client, db, play, fields):
    response = client.post(f"/plays/{play}/first-player", data=fields)
    assert response.status_code == 302
    assert tools.first_seat(store.get_play(db, play).options, 3) in (0, 1, 2)
