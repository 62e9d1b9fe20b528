"""Exports (CSV, BGG XML, BG Stats link) and the JSON backup: round trip and refused imports."""

from __future__ import annotations

import csv
import html
import io
import json
import xml.etree.ElementTree as ET
import zoneinfo
from urllib.parse import parse_qs, urlsplit

import pytest

from companion import store
from companion.exchange import backup, bgg_xml, bgstats_link, common, plays_csv
from companion.forms import COLOURS
from companion.games import GAMES
from tests.conftest import add_players, create_group, start_play

TABLES = ("groups", "players", "plays", "seats", "events", "results", "row_points", "rivalries")
GW = ("track", "largest_group", "offices", "wanted", "influence")


def gw(track: int, wanted: int = 0) -> dict[str, int]:
    return {"track": track, "largest_group": 6, "offices": 4, "wanted": -wanted, "influence": 8}


def finish(db, play_id: int, payload: dict, rows: list[tuple[int, int, dict]]) -> None:
    """Finish with (seat, rank, breakdown) per seat; totals are the row sums."""
    store.finish_play(db, play_id, payload,
                      [store.ResultInput(seat, sum(b.values()), rank, b) for seat, rank, b in rows])


@pytest.fixture
def group(client, db):
    """A group with everything a backup must keep: an active play with its log, a corrected play,
    a play left out of the statistics, a shared victory, play options, and a name a spreadsheet would run."""
    group_id = create_group(client, "Friday night")
    anna = store.add_player(db, group_id, "Anna", "red")
    ben = store.add_player(db, group_id, "Ben", "blue")
    zoe = store.add_player(db, group_id, "=Zoë+1", "white")

    corrected = store.start_play(db, group_id, "gold-west", [(anna, "red"), (ben, "blue"), (zoe, "white")])
    store.append_event(db, corrected, "adjust", {"seat": 1, "points": 4, "note": "BoomTown"})
    finish(db, corrected, {"players": [{"wanted": 1, "supply_left": 2}] * 3},
           [(0, 1, gw(40)), (1, 2, gw(35)), (2, 3, gw(20, 2))])
    store.correct_results(db, corrected, [store.ResultInput(0, 58, 2, gw(40)),
                                          store.ResultInput(1, 60, 1, gw(42)),
                                          store.ResultInput(2, 36, 3, gw(20, 2))])

    shared = store.start_play(db, group_id, "great-western-trail", [(ben, "blue"), (anna, "red")],
                              {"edition": 1})
    finish(db, shared, {"totals": [77, 77]}, [(0, 1, {"total": 77}), (1, 1, {"total": 77})])

    left_out = store.start_play(db, group_id, "mayflower", [(zoe, "white"), (anna, "red")])
    finish(db, left_out, {"totals": [3, 9]}, [(0, 2, {"total": 3}), (1, 1, {"total": 9})])
    store.set_play_counted(db, left_out, False)

    active = store.start_play(db, group_id, "mayflower", [(anna, "green"), (ben, "yellow")])
    store.append_event(db, active, "adjust", {"seat": 0, "points": 7, "note": ""})
    store.append_event(db, active, "adjust", {"seat": 1, "points": 3, "note": "marker"})
    store.append_event(db, active, "adjust", {"seat": 1, "points": -2, "note": "marker"})
    return {"id": group_id, "corrected": corrected, "shared": shared, "left_out": left_out, "active": active}


def table_counts(db) -> dict[str, int]:
    return {table: db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] for table in TABLES}


def by_names(stats: store.Statistics):
    """Statistics with players named instead of numbered (ids differ between two groups)."""
    names = {p.player_id: p.name for p in stats.players}
    players = [(p.name, p.colour, p.plays, p.wins, p.average, p.best, p.worst, p.current_streak,
                p.longest_streak) for p in stats.players]
    rivalries = {(names[a], names[b]): (r.ahead, r.together) for (a, b), r in stats.rivalries.items()}
    rows = {names[pid]: dict(averages) for pid, averages in stats.row_averages.items()}
    periods = [(p.first, p.last, {names[pid]: avg for pid, avg in p.averages.items()}) for p in stats.periods]
    return players, stats.games, rivalries, rows, periods


# --- the backup -----------------------------------------------------------------------------------

def test_backup_round_trip_restores_exactly_what_was_exported(db, group):
    original = store.dump_group(db, group["id"])
    text = backup.backup_json(original, "2024-05-01T20:00:00+00:00")
    restored = store.restore_group(db, backup.parse_backup(text.encode(), GAMES, COLOURS))
    assert restored.id != group["id"] and restored.name == "Friday night"
    copy_ = store.dump_group(db, restored.id)
    assert copy_ == original
    assert backup.backup_json(copy_, "2024-05-01T20:00:00+00:00") == text
    for game in (None, "gold-west", "great-western-trail", "mayflower"):
        assert (by_names(store.statistics(db, restored.id, game))
                == by_names(store.statistics(db, group["id"], game)))


def test_retired_players_and_a_reopened_tally_go_round_with_the_backup(client, db, group):
    ids = {p.name: p.id for p in store.list_players(db, group["id"])}
    store.set_player_retired(db, group["id"], ids["=Zoë+1"], True)
    reopened = store.start_play(db, group["id"], "mayflower", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
    totals = {"version": "0", "total_0": "40", "total_1": "38"}
    assert client.post(f"/plays/{reopened}/finish", data=totals).status_code == 302
    assert client.post(f"/plays/{reopened}/undo", data={"version": "1"}).status_code == 302
    original = store.dump_group(db, group["id"])
    assert [p.retired for p in original.players] == [False, False, True]
    [play] = [play for play in original.plays if play.reopened_tally is not None]
    assert play.reopened_tally == {"totals": [40, 38]} and play.first_ended_at is not None

    data = client.get(f"/groups/{group['id']}/export/backup.json").data
    imported = client.post("/groups/import", data={"backup": (io.BytesIO(data), "backup.json")},
                           content_type="multipart/form-data")
    restored = int(imported.headers["Location"].rsplit("/", 1)[1])
    assert store.dump_group(db, restored) == original
    assert [p.name for p in store.list_players(db, restored, retired=True)] == ["=Zoë+1"]
    [copy] = [play for play in store.list_plays(db, restored, "active") if play.game == "mayflower"
              and [seat.name for seat in play.seats] == ["Anna", "Ben"] and play.version == 2]
    finish_page = client.get(f"/plays/{copy.id}/finish").text
    assert 'value="40"' in finish_page and 'value="38"' in finish_page
    # finished again, it keeps the day it was first finished on
    again = {"version": "2", "total_0": "40", "total_1": "39"}
    assert client.post(f"/plays/{copy.id}/finish", data=again).status_code == 302
    assert store.get_play(db, copy.id).ended_at == play.first_ended_at


def test_a_reopened_tally_from_a_backup_comes_back_as_written_not_rounded(client, db, group):
    """A totals-only tally is not scored until it is sent again: a total no page could have typed shows as
    it is, for the table to correct, instead of being rounded without a word."""
    ids = {p.name: p.id for p in store.list_players(db, group["id"])}
    reopened = store.start_play(db, group["id"], "mayflower", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
    assert client.post(f"/plays/{reopened}/finish", data={"version": "0", "total_0": "40", "total_1": "38"}
                       ).status_code == 302
    assert client.post(f"/plays/{reopened}/undo", data={"version": "1"}).status_code == 302
    document = valid_document(db, group)
    [play] = [play for play in document["plays"] if play["reopened"]]
    play["reopened"]["tally"]["totals"] = [40.5, 38]
    upload = {"backup": (io.BytesIO(json.dumps(document).encode()), "backup.json")}
    imported = client.post("/groups/import", data=upload, content_type="multipart/form-data")
    restored = int(imported.headers["Location"].rsplit("/", 1)[1])
    [copy] = [p for p in store.list_plays(db, restored, "active") if p.version == 2]
    finish_page = client.get(f"/plays/{copy.id}/finish").text
    assert 'value="40.5"' in finish_page and 'value="38"' in finish_page


@pytest.mark.parametrize(("game", "reopened", "path"), [
    ("gold-west", {"tally": {"totals": [1, 2, 3]}, "at_version": 1}, "reopened"),  # a finished play
    ("mayflower", {"tally": {"totals": [7, 3]}, "at_version": 9}, "reopened"),  # a version yet to come
    ("mayflower", {"tally": {"features": "all"}, "at_version": 3}, "reopened.tally"),  # as of now
])
def test_a_reopened_tally_the_store_never_keeps_is_refused(db, group, game, reopened, path):
    document = valid_document(db, group)
    [n] = [n for n, play in enumerate(document["plays"]) if play["game"] == game and play["counted"]]
    document["plays"][n]["reopened"] = reopened
    with pytest.raises(backup.BackupError) as refused:
        backup.parse_backup(json.dumps(document), GAMES, COLOURS)
    assert refused.value.path == f"plays[{n}].{path}"


def test_a_reopened_tally_of_values_no_play_had_starts_the_final_tally_from_the_ledger(app, client, db):
    """Once the play went on, a reopened tally is not checked against it on import: the final-tally page
    then starts from the ledger instead of failing on a hand-edited value."""
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = {p.name: p.id for p in store.list_players(db, group_id)}
    play = store.start_play(db, group_id, "gold-west", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
    store.append_event(db, play, "adjust", {"seat": 0, "points": 4, "note": ""})
    finish(db, play, {"players": [{"wanted": 1, "supply_left": 2}] * 2}, [(0, 1, gw(40)), (1, 2, gw(35))])
    store.undo_last_event(db, play)
    store.append_event(db, play, "adjust", {"seat": 1, "points": 2, "note": ""})
    document = valid_document(db, {"id": group_id})
    [reopened] = [p for p in document["plays"] if p["reopened"]]
    reopened["reopened"]["tally"]["players"][0]["wanted"] = "one"
    phone = app.test_client()
    data = io.BytesIO(json.dumps(document).encode())
    imported = phone.post("/groups/import", data={"backup": (data, "backup.json")},
                          content_type="multipart/form-data")
    new_id = int(imported.headers["Location"].rsplit("/", 1)[1])
    [(copy,)] = db.execute("SELECT id FROM plays WHERE group_id = ?", [new_id])
    page = phone.get(f"/plays/{copy}/gold-west/final-tally")
    assert page.status_code == 200 and "Final tally" in page.text


def test_the_restored_group_works_like_the_original(db, group):
    restored = store.restore_group(db, backup.parse_backup(
        backup.backup_json(store.dump_group(db, group["id"]), store.now()), GAMES, COLOURS))
    entries = store.history(db, restored.id).entries
    assert [(e.game, e.counted) for e in entries] == [  # newest first
        ("mayflower", False), ("great-western-trail", True), ("gold-west", True)]
    corrected = next(e for e in entries if e.game == "gold-west")
    assert store.list_events(db, corrected.play_id)[-1].kind == store.CORRECTION_EVENT
    store.undo_last_event(db, corrected.play_id)  # the correction's "previous" came along
    assert [(s.name, s.total, s.rank) for s in store.history(db, restored.id).entries[-1].standings] == [
        ("Anna", 58, 1), ("Ben", 53, 2), ("=Zoë+1", 36, 3)]
    assert store.restore_group(db, store.dump_group(db, restored.id)).join_code != restored.join_code


def valid_document(db, group) -> dict:
    return backup.backup_document(store.dump_group(db, group["id"]), "2024-05-01T20:00:00+00:00")


def play_of(document: dict, game: str) -> dict:
    return next(play for play in document["plays"] if play["game"] == game and play["status"] == "finished")


def _set(path: str, value):
    """A change to the document: ``path`` as in the error messages, e.g. ``plays[0].seats[1].player``."""
    def change(document: dict) -> None:
        parts = path.replace("[", ".").replace("]", "").split(".")
        target = document
        for part in parts[:-1]:
            target = target[int(part)] if part.isdigit() else target[part]
        last = parts[-1]
        if value is KeyError:
            del target[last]
        elif last.isdigit():
            target[int(last)] = value
        else:
            target[last] = value
    return change


def _gold_west_play(change):
    def apply(document: dict) -> None:
        change(play_of(document, "gold-west"))
    return apply


REFUSED = {
    "foreign format": (_set("format", "someone-elses-backup"), "not a group backup"),
    "newer version": (_set("version", 2),
                      "version 2; this companion reads version 1 — it was made by a newer"),
    "no version": (_set("version", KeyError), "format version None"),
    "no plays": (_set("plays", KeyError), "'plays' is a required property"),
    "unknown field": (_set("group.owner", "me"), "group"),
    "a float for a whole number": (_set("plays.0.version", 5.0), "plays[0].version"),
    "a player listed twice": (_set("players.1.name", "ANNA"), "lists the player ANNA twice"),
    "a colour the companion lacks": (_set("players.0.colour", "chartreuse"), "colour 'chartreuse'"),
    "a blank name": (_set("players.0.name", "  "), "players[0].name: A name needs at least one visible"),
    "a name with a control character": (_set("players.0.name", "An\x07na"), "players[0].name: A name cannot "
                                                                            "contain U+0007"),
    "the same name with an invisible space": (_set("players.1.name", "An\u200bna"), "lists the player An"),
    "a group name of spaces only": (_set("group.name", "\u3000"), "group.name: A name needs at least one"),
    "a time without UTC offset": (_set("plays.0.started_at", "2024-05-01T20:00:00"), "has no UTC offset"),
    "an event time without UTC offset": (_gold_west_play(lambda p: p["events"][0].update(
        created_at="2024-05-01 20:00")), "events[0].created_at: '2024-05-01 20:00' has no UTC offset"),
    "a breakdown row the game does not score": (
        _gold_west_play(lambda p: [r["breakdown"].update(bonus=0) for r in p["results"]]),
        "has the row 'bonus', which Gold West does not score"),
    "a time zone nobody has": (_set("group.time_zone", "Mars/Olympus"), "'Mars/Olympus' is not a time zone"),
    "a BGG id for a game not served": (_set("group.bgg_ids", {"chess": 171}), "for 'chess', a game"),
    "a place with a control character": (_set("group.location", "Kitchen\x1b"), "holds a control character"),
    "a stable id that is not one": (_set("players.0.uid", "../../x"), "players[0].uid"),
    "players with different rows": (_gold_west_play(lambda p: p["results"][1].update(
        breakdown={"total": p["results"][1]["total"]})), "the same rows for every player"),
    "a seat of a player who is not there": (_set("plays.0.seats.0.player", 7), "only 3 players"),
    "a player seated twice": (_gold_west_play(lambda p: p["seats"][1].update(player=p["seats"][0]["player"])),
                              "seats the same player twice"),
    "results of someone else": (_gold_west_play(lambda p: p["results"].reverse()), "one result per seat"),
    "a total that is not the sum": (_gold_west_play(lambda p: p["results"][0].update(total=1)),
                                    "is not the sum of its breakdown"),
    "an unknown game": (_set("plays.0.game", "chess"), "'chess', a game the companion does not serve"),
    "too many players": (_gold_west_play(lambda p: p["seats"].extend([{"player": 0, "colour": "pink"}] * 3)),
                         "the game is played by 2 to 4"),
    "a date that is not one": (_set("plays.0.started_at", "yesterday at 8"), "is not a date and time"),
    "events out of order": (_gold_west_play(lambda p: p["events"][0].update(seq=5)), "numbered 1, 2, 3"),
    "finished without a final tally": (_gold_west_play(lambda p: p["events"][1].update(kind="adjust")),
                                       "one final tally"),
    "going on with results": (lambda d: next(p for p in d["plays"] if p["status"] == "active").update(
        results=play_of(d, "mayflower")["results"]), "still going on but has an end or results"),
    "a log that does not replay": (_gold_west_play(lambda p: p["events"][0]["payload"].update(seat=9)),
                                   "does not replay"),
    "a score beyond any game": (_gold_west_play(lambda p: p["results"][0].update(total=10 ** 30)), "total"),
    # JSON's escapes can write half a character, which no page or file could show again
    "a broken character in a note": (_gold_west_play(lambda p: p["options"].update(note="close \ud800 game")),
                                     "options.note: it holds a broken character (a lone surrogate)"),
    "a broken character in an entry": (_gold_west_play(lambda p: p["events"][0]["payload"].update(
        note="Boom\udc00town")), "events[0].payload.note: it holds a broken character"),
    "a broken character in a key": (_set("plays.0.options", {"\ud800": 1}), "plays[0].options: it holds a"),
    # what BG Stats knows a play or player by: two sharing it would be one there
    "two players with one stable id": (lambda d: d["players"][1].update(uid=d["players"][0]["uid"]),
                                       "players[1] has the uid of an earlier one"),
    "two plays with one stable id": (lambda d: d["plays"][1].update(uid=d["plays"][0]["uid"]),
                                     "plays[1] has the uid of an earlier one"),
}


@pytest.mark.parametrize(("change", "message"), REFUSED.values(), ids=REFUSED.keys())
def test_a_damaged_or_foreign_backup_is_refused_and_stores_nothing(db, group, change, message):
    document = valid_document(db, group)
    change(document)
    before = table_counts(db)
    with pytest.raises(backup.BackupError) as refused:
        backup.parse_backup(json.dumps(document), GAMES, COLOURS)
    assert message in str(refused.value)
    assert table_counts(db) == before


def test_a_backup_naming_a_field_twice_is_refused(db, group):
    text = json.dumps(valid_document(db, group)).replace('"name": ', '"name": "Mallory", "name": ', 1)
    with pytest.raises(backup.BackupError, match="names the field 'name' twice"):
        backup.parse_backup(text, GAMES, COLOURS)


@pytest.mark.parametrize("data", [b"{not json", b"\xff\xfe\x00", b"[1, 2]", b"null", b"\"backup\"",
                                  b"[" * 100_000 + b"]" * 100_000, b'{"version": 1e999}', b"9" * 5000],
                         ids=["broken", "not text", "a list", "null", "a string", "nested too deep",
                              "infinite number", "a number too long"])
def test_a_file_that_is_not_a_backup_is_refused(data):
    with pytest.raises(backup.BackupError):
        backup.parse_backup(data, GAMES, COLOURS)


def test_a_valid_document_passes(db, group):
    archive = backup.parse_backup(json.dumps(valid_document(db, group)), GAMES, COLOURS)
    assert len(archive.plays) == 4 and [p.name for p in archive.players] == ["Anna", "Ben", "=Zoë+1"]


def test_a_clash_the_store_finds_rolls_everything_back(db, group):
    archive = store.dump_group(db, group["id"])
    broken = store.GroupArchive(archive.name, (*archive.players, archive.players[0]), archive.plays)
    before = table_counts(db)
    with pytest.raises(store.StoreError, match="Anna appears twice"):
        store.restore_group(db, broken)  # the same name twice: the store's one check of names refuses it
    assert table_counts(db) == before


def test_the_groups_export_settings_go_round_with_the_backup(db, group):
    settings = store.GroupSettings("America/New_York", "Community hall", {"gold-west": 12345})
    store.save_group_settings(db, group["id"], settings)
    restored = store.restore_group(db, backup.parse_backup(
        backup.backup_json(store.dump_group(db, group["id"]), store.now()), GAMES, COLOURS))
    assert store.group_settings(db, restored.id) == settings


def test_ranks_are_computed_again_by_the_games_rules_not_taken_from_the_file(db, group):
    document = valid_document(db, group)
    gold_west = play_of(document, "gold-west")
    for result in gold_west["results"]:
        result["rank"] = 1  # everybody a winner, as a hand-edited file might claim
    archive = backup.parse_backup(json.dumps(document), GAMES, COLOURS)
    restored = next(play for play in archive.plays if play.game == "gold-west")
    # the corrected totals 58, 60, 36
    assert [r.rank for r in restored.results] == [2, 1, 3]


def test_ranks_break_ties_with_the_tie_breakers_the_final_tally_recorded(db, group):
    document = valid_document(db, group)
    gold_west = play_of(document, "gold-west")
    gold_west["results"][1].update(breakdown=gw(40), total=58)  # Anna and Ben tied on 58 …
    final = next(e for e in gold_west["events"] if e["kind"] == "final")
    final["payload"] = {"players": [{"wanted": 1, "supply_left": 2}, {"wanted": 1, "supply_left": 5},
                                    {"wanted": 1, "supply_left": 2}]}  # … Ben has more supply left
    archive = backup.parse_backup(json.dumps(document), GAMES, COLOURS)
    restored = next(play for play in archive.plays if play.game == "gold-west")
    assert [r.rank for r in restored.results] == [2, 1, 3]


def test_a_play_closed_with_totals_keeps_the_ranks_its_ledger_broke_ties_with(client, db, group):
    ids = {p.name: p.id for p in store.list_players(db, group["id"])}
    play_id = store.start_play(db, group["id"], "gold-west", [(ids["Anna"], "red"), (ids["Ben"], "blue")])
    assert client.post(f"/plays/{play_id}/gold-west/ledger/loot", data={"seat": "0"}).status_code == 302
    totals = {"version": "1", "total_0": "50", "total_1": "50"}
    assert client.post(f"/plays/{play_id}/finish", data=totals).status_code == 302
    # tied on 50: Anna's camp in the Wanted area puts Ben first
    ranks = [(r.name, r.rank) for r in store.play_results(db, play_id)]
    assert ranks == [("Ben", 1), ("Anna", 2)]
    archive = backup.parse_backup(backup.backup_json(store.dump_group(db, group["id"]), store.now()), GAMES,
                                  COLOURS)
    restored = store.restore_group(db, archive)
    [copy] = [play for play in store.list_plays(db, restored.id, "finished") if play.game == "gold-west"
              and [seat.name for seat in play.seats] == ["Anna", "Ben"]]
    assert [(r.name, r.rank) for r in store.play_results(db, copy.id)] == ranks


def test_times_are_kept_in_utc_whatever_offset_the_file_gives(db, group):
    document = valid_document(db, group)
    play_of(document, "gold-west")["ended_at"] = "2024-05-01T22:30:00+02:00"
    archive = backup.parse_backup(json.dumps(document), GAMES, COLOURS)
    assert next(p for p in archive.plays if p.game == "gold-west").ended_at == "2024-05-01T20:30:00+00:00"


def test_names_in_a_backup_are_kept_as_the_forms_keep_them(db, group):
    document = valid_document(db, group)
    document["players"][0]["name"] = "  Zoe\u0301  Ann  "  # spaces around and inside, e + combining accent
    document["group"]["name"] = " Friday\tnight "
    archive = backup.parse_backup(json.dumps(document), GAMES, COLOURS)
    assert archive.players[0].name == "Zo\u00e9 Ann" and archive.name == "Friday night"


# --- CSV, BoardGameGeek XML, BG Stats --------------------------------------------------------------

BERLIN = zoneinfo.ZoneInfo("Europe/Berlin")


def at_times(db, play_id: int, started_at: str, ended_at: str) -> None:
    db.execute("UPDATE plays SET started_at = ?, ended_at = ? WHERE id = ?", [started_at, ended_at, play_id])
    db.conn.commit()


@pytest.mark.parametrize("delimiter", [",", ";"], ids=["comma", "semicolon"])
def test_csv_has_a_line_per_player_per_finished_play(db, group, delimiter):
    text = plays_csv.plays_csv(store.dump_group(db, group["id"]), GAMES, BERLIN, delimiter)
    lines = list(csv.DictReader(io.StringIO(text), delimiter=delimiter))
    assert len(lines) == 3 + 2 + 2  # the active play is not in it
    gold = [line for line in lines if line["game"] == "Gold West"]
    assert [(line["player"], line["total"], line["rank"], line["winner"], line["row:track"],
             line["row:wanted"]) for line in gold] == [
        ("Anna", "58", "2", "no", "40", "0"), ("Ben", "60", "1", "yes", "42", "0"),
        ("'=Zoë+1", "36", "3", "no", "20", "-2")]
    shared = [line for line in lines if line["game"] == "Great Western Trail"]
    assert [(line["seat"], line["winner"], line["total"], line["row:track"], line["edition"])
            for line in shared] == [("1", "yes", "77", "", "1"), ("2", "yes", "77", "", "1")]
    assert {line["counted"] for line in lines if line["game"] == "Carcassonne – Mayflower"} == {"no"}
    header = next(csv.reader(io.StringIO(text), delimiter=delimiter))
    assert "total" not in header[header.index("winner"):]


def test_csv_shows_local_times_of_the_groups_time_zone(db, group):
    at_times(db, group["shared"], "2024-03-30T21:10:00+00:00", "2024-03-30T23:40:00+00:00")  # winter time
    at_times(db, group["corrected"], "2024-07-01T18:00:00+00:00", "2024-07-01T19:05:30+00:00")  # summer time
    archive = store.dump_group(db, group["id"])
    lines = list(csv.DictReader(io.StringIO(plays_csv.plays_csv(archive, GAMES, BERLIN))))
    shared = next(line for line in lines if line["game"] == "Great Western Trail")
    assert (shared["started_at"], shared["finished_at"], shared["minutes"]) == (
        "2024-03-30 22:10", "2024-03-31 00:40", "150")
    corrected = next(line for line in lines if line["game"] == "Gold West")
    assert (corrected["started_at"], corrected["finished_at"], corrected["minutes"]) == (
        "2024-07-01 20:00", "2024-07-01 21:05", "65")
    utc = list(csv.DictReader(io.StringIO(plays_csv.plays_csv(archive, GAMES, zoneinfo.ZoneInfo("UTC")))))
    assert next(line for line in utc if line["game"] == "Gold West")["finished_at"] == "2024-07-01 19:05"


HOSTILE_NAMES = ["=cmd|' /C calc'!A0", "+1+2", "-2+3", "@SUM(A1)", "\tTab", "\rReturn", "Ann\x07a", "Ben\x00",
                 "Cara\x1b[31m", "Dan\ufffe", "<Eve & \"Co\">", "]]>"]


def with_stored_names(db, group, names: list[str]) -> store.GroupArchive:
    """The group as if the players' names had been stored before the rules of names existed."""
    player_ids = [row[0] for row in db.execute("SELECT id FROM players WHERE group_id = ? ORDER BY id",
                                               [group["id"]]).fetchall()]
    for player_id, name in zip(player_ids, names, strict=False):
        db.execute("UPDATE players SET name = ? WHERE id = ?", [name, player_id])
    db.conn.commit()
    return store.dump_group(db, group["id"])


@pytest.mark.parametrize("trio", [HOSTILE_NAMES[n:n + 3] for n in range(0, len(HOSTILE_NAMES), 3)],
                         ids=lambda trio: "+".join(map(repr, trio)))
def test_every_export_is_well_formed_whatever_names_are_stored(db, group, trio):
    archive = with_stored_names(db, group, trio)
    root = ET.fromstring(bgg_xml.bgg_plays_xml(archive, GAMES, BERLIN))  # parses: well-formed
    names = {player.get("name") for player in root.iter("player")}
    assert names == {bgg_xml.xml_safe(name) for name in trio}
    for delimiter in (",", ";"):
        rows = list(csv.reader(io.StringIO(plays_csv.plays_csv(archive, GAMES, BERLIN, delimiter)),
                               delimiter=delimiter))
        for row in rows:
            assert all(cell[:1] not in ("=", "+", "-", "@", "\t", "\r") or cell.lstrip("-").isdigit()
                       for cell in row), row
        players = {row[rows[0].index("player")] for row in rows[1:]}
        assert players == {("'" + name) if name[:1] in "=+-@\t\r" else name for name in trio}


def test_csv_header_cells_are_escaped_too():
    archive = store.GroupArchive("G", (store.ArchivedPlayer("Anna", "red", "2024-01-01T00:00:00+00:00"),
                                       store.ArchivedPlayer("Ben", "blue", "2024-01-01T00:00:00+00:00")),
                                 (store.ArchivedPlay(
                                     "unknown-game", {}, "finished", True, "2024-01-01T18:00:00+00:00",
                                     "2024-01-01T19:00:00+00:00", 1,
                                     (store.ArchivedSeat(0, "red"), store.ArchivedSeat(1, "blue")), (),
                                     (store.ArchivedResult(0, 3, 1, {"=HYPERLINK(1)": 3}),
                                      store.ArchivedResult(1, 1, 2, {"=HYPERLINK(1)": 1}))),))
    header = next(csv.reader(io.StringIO(plays_csv.plays_csv(archive, GAMES, None))))
    assert header[-1] == "row:=HYPERLINK(1)"  # a row's column starts with its prefix: never a formula


def test_bgg_xml_is_shaped_like_bggs_plays_answer(db, group):
    at_times(db, group["shared"], "2024-03-30T21:10:00+00:00", "2024-03-30T23:40:00+00:00")
    store.save_group_settings(db, group["id"], store.GroupSettings("Europe/Berlin", "Anna's kitchen",
                                                                   {"gold-west": 12345}))
    archive = store.dump_group(db, group["id"])
    root = ET.fromstring(bgg_xml.bgg_plays_xml(archive, GAMES, BERLIN))
    plays = root.findall("play")
    assert root.tag == "plays" and root.attrib == {"username": "Friday night", "userid": "0", "total": "3",
                                                   "page": "1"}
    numbers = common.play_numbers(archive.plays)  # drawn from the plays' stable ids
    assert [p.get("id") for p in plays] == [str(n) for n, p in zip(numbers, archive.plays, strict=True)
                                            if p.status == "finished"]
    gwt = next(p for p in plays if p.find("item").get("name") == "Great Western Trail")
    # 22:10–00:40 in Berlin: BGG lists the day the play began
    assert gwt.attrib == {"id": str(numbers[1]), "date": "2024-03-30", "quantity": "1", "length": "150",
                          "incomplete": "0", "nowinstats": "0", "location": "Anna's kitchen"}
    assert gwt.find("item").attrib == {"name": "Great Western Trail", "objecttype": "thing",
                                       "objectid": "193738"}
    assert [s.get("value") for s in gwt.find("item/subtypes")] == ["boardgame"]
    assert gwt.find("comments") is not None
    assert [p.attrib for p in gwt.find("players")] == [
        {"username": "", "userid": "0", "name": "Ben", "startposition": "1", "color": "blue", "score": "77",
         "new": "0", "rating": "0", "win": "1"},
        {"username": "", "userid": "0", "name": "Anna", "startposition": "2", "color": "red", "score": "77",
         "new": "0", "rating": "0", "win": "1"}]
    gold_west = next(p for p in plays if p.find("item").get("name") == "Gold West")
    assert gold_west.find("item").get("objectid") == "12345"  # the id the group set
    mayflower = next(p for p in plays if p.find("item").get("name") == "Carcassonne – Mayflower")
    assert mayflower.get("nowinstats") == "1" and mayflower.find("item").get("objectid") == "0"


@pytest.mark.parametrize(("options", "expected"), [({"edition": 1}, 193738), ({"edition": 2}, 341169),
                                                   ({}, 341169), ({"edition": "x"}, None)],
                         ids=["1st edition", "2nd edition", "default edition", "no edition"])
def test_great_western_trail_bgg_ids_per_edition(options, expected):
    assert common.bgg_id("great-western-trail", options) == expected


def test_bgg_ids_not_verified_come_from_the_group():
    assert common.bgg_id("gold-west", {}) is None
    assert common.bgg_id("gold-west", {}, group_ids={"gold-west": 12345}) == 12345
    verified = common.bgg_id("great-western-trail", {"edition": 1}, group_ids={"great-western-trail": 1})
    assert verified == 193738


# The example of BG Stats' documentation ("Push plays to BG Stats from other apps or websites",
# bgstatsapp.com/support): every field the createPlay data may carry, with its type.
BG_STATS_DOCUMENTED = {
    "sourceName": str, "sourcePlayId": str, "playDate": str, "durationMin": int, "location": str,
    "comments": str, "board": str, "game": dict, "players": list,
}
BG_STATS_GAME = {"name": str, "sourceGameId": str, "bggId": int, "highestWins": bool, "noPoints": bool}
BG_STATS_PLAYER = {"name": str, "sourcePlayerId": str, "score": int, "winner": bool, "rank": int,
                   "startPlayer": bool, "role": str}
BG_STATS_REQUIRED = {"sourceName", "sourcePlayId", "playDate", "game", "players"}


def bg_stats_data(db, play_id: int) -> tuple[str, dict]:
    play = store.get_play(db, play_id)
    url = bgstats_link.bg_stats_url(play, GAMES[play.game], store.play_results(db, play.id),
                               store.stable_ids(db, play.id), store.group_settings(db, play.group_id))
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}", json.loads(parse_qs(parts.query)["data"][0])


def gold_west_with_ben_starting(client, db) -> tuple[int, int]:
    """Anna, Ben and Cara at the table; the table picked Ben (seat 2) to start; Cara won."""
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"), ("Cara", "green"))
    seats = [(p.id, p.colour) for p in store.list_players(db, group_id)]
    play_id = start_play(client, group_id, "gold-west", seats)
    assert client.post(f"/plays/{play_id}/first-player", data={"seat": "1"}).status_code == 302
    finish(db, play_id, {"totals": [40, 50, 60]}, [(0, 3, {"total": 40}), (1, 2, {"total": 50}),
                                                   (2, 1, {"total": 60})])
    return group_id, play_id


def test_the_exports_start_with_the_player_the_table_picked(client, db):
    group_id, play_id = gold_west_with_ben_starting(client, db)
    _, data = bg_stats_data(db, play_id)
    assert [p["name"] for p in data["players"] if p["startPlayer"]] == ["Ben"]
    root = ET.fromstring(bgg_xml.bgg_plays_xml(store.dump_group(db, group_id), GAMES, None))
    assert {p.get("name"): p.get("startposition") for p in root.iter("player")} == {
        "Ben": "1", "Cara": "2", "Anna": "3"}


def test_bg_stats_link_checked_field_by_field_against_the_documented_format(db, group):
    at_times(db, group["shared"], "2024-03-30T21:10:00+00:00", "2024-03-30T23:40:00+00:00")
    store.save_group_settings(db, group["id"], store.GroupSettings("Europe/Berlin", "Anna's kitchen", {}))
    link, data = bg_stats_data(db, group["shared"])
    assert link == "https://app.bgstatsapp.com/createPlay.html"
    assert BG_STATS_REQUIRED <= set(data) <= set(BG_STATS_DOCUMENTED)
    assert all(type(data[key]) is BG_STATS_DOCUMENTED[key] for key in data)
    assert set(data["game"]) <= set(BG_STATS_GAME)
    assert all(type(data["game"][key]) is BG_STATS_GAME[key] for key in data["game"])
    for player in data["players"]:
        assert set(player) <= set(BG_STATS_PLAYER)
        assert all(type(player[key]) is BG_STATS_PLAYER[key] for key in player)
    ids = store.stable_ids(db, group["shared"])
    assert data == {
        "sourceName": "Game-Night Companion",
        "sourcePlayId": ids.play,
        "playDate": "2024-03-30 22:10:00",  # when it started, on the group's clocks
        "durationMin": 150,
        "location": "Anna's kitchen",
        "board": "1st edition",
        "game": {"name": "Great Western Trail", "sourceGameId": "great-western-trail-edition-1",
                 "bggId": 193738, "highestWins": True, "noPoints": False},
        "players": [
            {"name": "Ben", "sourcePlayerId": data["players"][0]["sourcePlayerId"], "score": 77,
             "winner": True, "rank": 1, "startPlayer": True},
            {"name": "Anna", "sourcePlayerId": data["players"][1]["sourcePlayerId"], "score": 77,
             "winner": True, "rank": 1, "startPlayer": False},
        ],
    }
    uid_of = {store.get_player(db, group["id"], pid).name: uid for pid, uid in ids.players.items()}
    assert [p["sourcePlayerId"] for p in data["players"]] == [uid_of["Ben"], uid_of["Anna"]]


def test_bg_stats_knows_each_edition_and_the_ids_the_group_set(db, group):
    seats = [(p.id, p.colour) for p in store.list_players(db, group["id"])[:2]]
    second = store.start_play(db, group["id"], "great-western-trail", seats, {"edition": 2})
    finish(db, second, {"totals": [50, 40]}, [(0, 1, {"total": 50}), (1, 2, {"total": 40})])
    assert bg_stats_data(db, second)[1]["game"]["sourceGameId"] == "great-western-trail-edition-2"
    assert bg_stats_data(db, second)[1]["game"]["bggId"] == 341169
    assert "bggId" not in bg_stats_data(db, group["corrected"])[1]["game"]  # Gold West: none verified
    store.save_group_settings(db, group["id"], store.GroupSettings(None, "", {"gold-west": 12345}))
    gold_west = bg_stats_data(db, group["corrected"])[1]
    assert gold_west["game"] == {"name": "Gold West", "sourceGameId": "gold-west", "bggId": 12345,
                                 "highestWins": True, "noPoints": False}
    assert "board" not in gold_west and "location" not in gold_west


def test_bg_stats_ids_stay_the_same_through_backup_and_restore(db, group):
    _, before = bg_stats_data(db, group["shared"])
    restored = store.restore_group(db, backup.parse_backup(
        backup.backup_json(store.dump_group(db, group["id"]), store.now()), GAMES, COLOURS))
    copy_id = next(e.play_id for e in store.history(db, restored.id).entries
                   if e.game == "great-western-trail")
    _, after = bg_stats_data(db, copy_id)
    assert copy_id != group["shared"]
    assert after["sourcePlayId"] == before["sourcePlayId"]
    assert [p["sourcePlayerId"] for p in after["players"]] == [p["sourcePlayerId"] for p in before["players"]]


def test_the_plays_expansions_and_note_go_to_bg_stats_as_comments(db, group):
    extras = {"variant": "Rails to the North", "note": "Rematch!", "timer": {"elapsed": 5400, "since": None}}
    store.change_play_options(db, group["shared"], lambda options: {**options, **extras})
    _, data = bg_stats_data(db, group["shared"])
    assert data["comments"] == "Rails to the North\nRematch!" and data["durationMin"] == 90


# --- through the pages ------------------------------------------------------------------------------

@pytest.mark.parametrize(("path", "content_type", "suffix"), [
    ("plays.csv", "text/csv; charset=utf-8", "friday-night-plays.csv"),
    ("plays-excel.csv", "text/csv; charset=utf-8", "friday-night-plays-excel.csv"),
    ("backup.json", "application/json", "friday-night-backup.json"),
    ("bgg-plays.xml", "application/xml", "friday-night-bgg-plays.xml"),
], ids=["csv", "csv-excel", "backup", "bgg"])
def test_exports_download_as_files(client, group, path, content_type, suffix):
    response = client.get(f"/groups/{group['id']}/export/{path}")
    assert response.status_code == 200 and response.headers.getlist("Content-Type") == [content_type]
    assert response.headers["Content-Disposition"] == f'attachment; filename="{suffix}"'


def test_settings_page_sets_what_the_exports_use(client, db, group):
    page = client.get(f"/groups/{group['id']}/settings")
    assert page.status_code == 200 and "Europe/Berlin" in page.text
    assert "BoardGameGeek id of Gold West" in page.text
    assert "BoardGameGeek id of Great Western Trail" not in page.text  # verified, one per edition
    saved = client.post(f"/groups/{group['id']}/settings", data={
        "time_zone": "Europe/Berlin", "location": "  Anna's   kitchen ", "bgg_gold_west": "12345"})
    assert saved.status_code == 302
    assert store.group_settings(db, group["id"]) == store.GroupSettings("Europe/Berlin", "Anna's kitchen",
                                                                        {"gold-west": 12345})
    text = client.get(f"/groups/{group['id']}/export/plays-excel.csv").data.decode("utf-8-sig")
    assert next(csv.reader(io.StringIO(text), delimiter=";"))[:3] == ["play", "started_at", "finished_at"]


@pytest.mark.parametrize(("data", "message"), [
    ({"time_zone": "Mars/Olympus"}, "Pick a time zone from the list."),
    ({"location": "x" * 81}, "80"),
    ({"location": "Kitchen\x07"}, "Type the place as plain text."),
    ({"bgg_gold_west": "-5"}, "A BoardGameGeek id is a whole number like 193738."),
    ({"shown": '{"time_zone": 5}'}, "Reload the page and try again."),
], ids=["unknown zone", "place too long", "control character", "negative id", "broken page"])
def test_settings_page_refuses_what_the_exports_cannot_use(client, db, group, data, message):
    refused = client.post(f"/groups/{group['id']}/settings", data=data)
    assert refused.status_code == 400 and message in html.unescape(refused.text)
    assert store.group_settings(db, group["id"]) == store.GroupSettings()


def test_settings_of_another_group_are_not_found(client, app, group):
    stranger = app.test_client()
    assert stranger.get(f"/groups/{group['id']}/settings").status_code == 404
    assert stranger.post(f"/groups/{group['id']}/settings", data={"location": "x"}).status_code == 404


def test_import_page_makes_a_new_group_on_this_phone(app, client, db, group):
    data = client.get(f"/groups/{group['id']}/export/backup.json").data
    phone = app.test_client()
    response = phone.post("/groups/import", data={"backup": (io.BytesIO(data), "backup.json")},
                          content_type="multipart/form-data")
    assert response.status_code == 302
    new_id = int(response.headers["Location"].rsplit("/", 1)[1])
    assert new_id != group["id"] and phone.get(f"/groups/{new_id}").status_code == 200
    assert phone.get(f"/groups/{group['id']}").status_code == 404  # importing does not join the original
    assert store.dump_group(db, new_id) == store.dump_group(db, group["id"])


def test_imports_of_new_groups_are_limited_per_address(app, client, db, group):
    """Anyone who reaches the site may import a backup: one address may not flood it with groups."""
    app.config["IMPORTS_ALLOWED"] = 2
    data = client.get(f"/groups/{group['id']}/export/backup.json").data

    def import_from(address: str):
        phone = app.test_client()
        phone.environ_base["REMOTE_ADDR"] = address
        return phone.post("/groups/import", data={"backup": (io.BytesIO(data), "backup.json")},
                          content_type="multipart/form-data")

    assert [import_from("198.51.100.7").status_code for _ in range(2)] == [302, 302]
    refused = import_from("198.51.100.7")
    assert refused.status_code == 429
    assert "Too many backups imported from this network lately. Try again in an hour." in refused.text
    assert db.execute("SELECT COUNT(*) FROM groups").fetchone()[0] == 3  # the original and two imports
    assert import_from("203.0.113.9").status_code == 302  # another address is not held back


def test_import_page_refuses_a_foreign_file_and_stores_nothing(client, db, group):
    before = table_counts(db)
    response = client.post("/groups/import", data={"backup": (io.BytesIO(b'{"hello": 1}'), "x.json")},
                           content_type="multipart/form-data")
    assert response.status_code == 400 and "not a group backup" in response.text
    response = client.post("/groups/import", data={}, content_type="multipart/form-data")
    assert response.status_code == 400 and "Choose the backup file" in response.text
    assert table_counts(db) == before


GERMAN_REFUSALS = {
    "a foreign file": (_set("format", "someone-elses-backup"),
                       "Diese Datei ist keine Gruppensicherung des Game-Night Companion."),
    "a newer version": (_set("version", 2), "Diese Sicherung hat die Formatversion 2; dieser Companion liest "
                                           "Version 1 – sie stammt von einem neueren Companion."),
    "a colour the companion lacks": (_set("players.0.colour", "chartreuse"),
                                     "In der Sicherung hat Anna die Farbe 'chartreuse', die der Companion "
                                     "nicht kennt."),
    "a player seated twice": (_gold_west_play(lambda p: p["seats"][1].update(player=p["seats"][0]["player"])),
                              "In der Partie plays[0] sitzt derselbe Spieler zweimal am Tisch."),
    "a log that does not replay": (_gold_west_play(lambda p: p["events"][0]["payload"].update(seat=9)),
                                   "Der Verlauf der Partie plays[0] lässt sich nicht nachspielen: "
                                   "Wähle einen der Spieler am Tisch."),
}


@pytest.mark.parametrize(("change", "german"), GERMAN_REFUSALS.values(), ids=GERMAN_REFUSALS.keys())
def test_import_page_refuses_in_german_for_a_german_phone(client, db, group, change, german):
    document = valid_document(db, group)
    change(document)
    before = table_counts(db)
    data = io.BytesIO(json.dumps(document).encode())
    response = client.post("/groups/import", data={"backup": (data, "backup.json")},
                           content_type="multipart/form-data", headers={"Accept-Language": "de-DE,de;q=0.9"})
    assert response.status_code == 400 and german in html.unescape(response.text)
    assert table_counts(db) == before


def test_import_larger_than_the_limit_is_refused(app, client, db):
    app.config["BACKUP_MAX_BYTES"] = 4096
    before = table_counts(db)
    too_big = b" " * (app.config["BACKUP_MAX_BYTES"] + 1)
    response = client.post("/groups/import", data={"backup": (io.BytesIO(too_big), "big.json")},
                           content_type="multipart/form-data")
    assert response.status_code == 413 and "more data than the companion accepts" in response.text
    assert table_counts(db) == before


def test_a_backup_may_be_larger_than_other_requests(app, client, db, group):
    data = backup.backup_json(store.dump_group(db, group["id"]), "2026-11-29T20:00:00+00:00").encode()
    padded = data + b" " * app.config["MAX_CONTENT_LENGTH"]
    response = client.post("/groups/import", data={"backup": (io.BytesIO(padded), "big.json")},
                           content_type="multipart/form-data")
    assert response.status_code == 302
