"""Crafted backups, in process: any field of the format set to a hostile value.

Every mutation of a sound backup is either refused with a 400 naming the JSON path of the bad field, or
imported, after which every page of the new group answers without a server error. The budget is small
for the suite; ``make fuzz`` runs it with ``BACKUP_FUZZ_EXAMPLES`` set much higher.
"""

from __future__ import annotations

import copy
import io
import json
import os
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion import store
from companion.exchange import backup
from companion.forms import COLOURS
from companion.games import GAMES
from companion.games import table_tools as tools
from tests.test_exports import finish, group  # noqa: F401  (the fixture: a group with every kind of play)

EXAMPLES = int(os.environ.get("BACKUP_FUZZ_EXAMPLES", "60"))

HOSTILE = (
    None, True, 0, -1, 1.5, 2 ** 70, -(2 ** 70), float("nan"), float("inf"), "", " ", "x" * 5000,
    "\x00\u202e", "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00", "2024-03-01T20:00:00",
    "2024-02-30T20:00:00+00:00",
    "custom-1", "great-western-trail", [], [1, 2], [None], {}, {"a": 1}, {"elapsed": -5, "since": "x"},
)


def _paths(value, path=()):
    """Every place in the document, containers included."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for n, item in enumerate(value):
            yield from _paths(item, (*path, n))


def _set(document, path, value):
    target = document
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value


def each_place_set_to(document, values, examples: int):
    """The test, run for ``examples`` pairs (place, value): a place in ``document``, one of ``values``."""
    def decorate(test):
        run = given(place=st.sampled_from(list(_paths(document))[1:]), value=st.sampled_from(values))(test)
        return settings(max_examples=examples, deadline=None, database=None,
                        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])(run)
    return decorate


def _rich_document(client, db, group_id: int) -> dict:
    """The fixture's group with a game of its own (rows, a tie-breaker) and a play with a timer, note and
    variant, as a backup."""
    players = store.list_players(db, group_id)
    game_id = store.add_group_game(db, group_id, "Azul", 230802, {
        "min_players": 2, "max_players": 4, "rows": [{"name": "wall"}, {"name": "floor", "negative": True}],
        "tie_breaker": "wall"})
    version = store.list_group_games(db, group_id)[0].version_id
    seats = [(players[0].id, "red"), (players[1].id, "blue")]
    play = store.start_play(db, group_id, f"custom-{game_id}", seats,
                            {"sheet": version, tools.NOTE: "close", tools.VARIANT: "Summer Pavilion",
                             tools.TIMER: {"elapsed": 600, "since": None}})
    finish(db, play, {"totals": [9, 9], "breakdowns": [{"wall": 10, "floor": -1}, {"wall": 9, "floor": 0}]},
           [(0, 1, {"wall": 10, "floor": -1}), (1, 2, {"wall": 9, "floor": 0})])
    return json.loads(client.get(f"/groups/{group_id}/export/backup.json").data)


def _pages(phone, group_id: int, db) -> list[str]:
    plays = [row[0] for row in db.execute("SELECT id FROM plays WHERE group_id = ?", [group_id]).fetchall()]
    return [f"/groups/{group_id}", f"/groups/{group_id}/history", f"/groups/{group_id}/statistics",
            f"/groups/{group_id}/export/plays.csv", f"/groups/{group_id}/export/bgg-plays.xml",
            f"/groups/{group_id}/export/backup.json", f"/groups/{group_id}/players",
            *(f"/plays/{play}" for play in plays), *(f"/plays/{play}/record" for play in plays)]


def test_any_field_set_to_a_hostile_value_is_a_400_with_its_path_or_a_working_group(app, client, db, group):  # noqa: F811
    base = _rich_document(client, db, group["id"])
    app.config["IMPORTS_ALLOWED"] = EXAMPLES + 1  # every example imports from the same address

    @each_place_set_to(base, HOSTILE, EXAMPLES)
    def crafted(place, value):
        document = copy.deepcopy(base)
        _set(document, place, value)
        text = json.dumps(document)  # NaN and Infinity written as JavaScript would
        try:
            backup.parse_backup(text, GAMES, COLOURS)
        except backup.BackupError as error:
            assert error.path, error.message  # the bad field is named
            refused = True
        else:
            refused = False
        phone = app.test_client()
        response = phone.post("/groups/import", data={"backup": (io.BytesIO(text.encode()), "backup.json")},
                              content_type="multipart/form-data")
        if refused:
            assert response.status_code == 400, (place, value)
            return
        assert response.status_code == 302, (place, value,
                                             re.findall(r'class="error"[^>]*>([^<]*)', response.text))
        group_id = int(response.headers["Location"].rsplit("/", 1)[1])
        for page in _pages(phone, group_id, db):
            answer = phone.get(page)
            assert answer.status_code < 500, (place, value, page)

    crafted()


def test_a_refusal_names_the_field_for_the_classic_crafted_backups(client, db, group):  # noqa: F811
    base = _rich_document(client, db, group["id"])
    game = base["plays"].index(next(p for p in base["plays"] if p["game"].startswith("custom-")))
    cases = {
        ("games", 0, "versions", 0, "sheet", "tie_breaker"): ([1, 2],
                                                              "games[0].versions[0].sheet.tie_breaker"),
        ("plays", 0, "started_at"): ("0001-01-01T00:00:00+01:00", "plays[0].started_at"),
        ("players", 0, "created_at"): ("2024-03-01T20:00:00", "players[0].created_at"),
        ("plays", game, "options", "timer", "since"): ("2024-03-01T20:00:00",
                                                       f"plays[{game}].options.timer.since"),
        ("plays", game, "events", 0, "payload", "totals", 0): (float("nan"),
                                                               f"plays[{game}].events[0].payload.totals[0]"),
        ("plays", game, "options", "note"): (float("inf"), f"plays[{game}].options.note"),
    }
    for place, (value, path) in cases.items():
        document = copy.deepcopy(base)
        _set(document, place, value)
        try:
            backup.parse_backup(json.dumps(document), GAMES, COLOURS)
        except backup.BackupError as error:
            assert error.path == path and path in error.message, (place, error.message)
        else:
            raise AssertionError(f"{place} = {value!r} was accepted")
