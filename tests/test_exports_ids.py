"""What tells plays, players and rows apart in the exports: a play's number, which nothing done to other
plays changes; score rows that never take another column's name; each player's team."""

from __future__ import annotations

import csv
import io
import xml.etree.ElementTree as ET
import zoneinfo
from collections.abc import Callable

import pytest

from companion import store
from companion.exchange import backup, bgg_xml, common, plays_csv
from companion.forms import COLOURS
from companion.games import GAMES, custom
from tests.conftest import add_players, create_group, start_play
from tests.test_custom_games_web import add_game, version_of

UTC = zoneinfo.ZoneInfo("UTC")
DAYS = frozenset({"2024-01-02", "2024-01-03", "2024-01-04"})


def log(db, group_id: int, ids: dict[str, int], day: str, totals: tuple[int, int] = (80, 90)) -> int:
    """A play of Great Western Trail by Anna and Ben on ``day``, kept as a past play."""
    results = [store.ResultInput(seat, total, 1 + (total < max(totals)), {"total": total})
               for seat, total in enumerate(totals)]
    seats = [(ids["Anna"], "red"), (ids["Ben"], "blue")]
    return store.log_past_play(db, group_id, "great-western-trail", seats, {"edition": 2},
                               {"totals": list(totals)}, results, f"{day}T19:00:00+00:00",
                               f"{day}T21:00:00+00:00")


def csv_numbers(archive: store.GroupArchive) -> dict[str, str]:
    """The day each play of the CSV began → its number (the same on every line of the play)."""
    lines = list(csv.DictReader(io.StringIO(plays_csv.plays_csv(archive, GAMES, UTC))))
    numbers = {line["started_at"][:10]: line["play"] for line in lines}
    assert len({(line["started_at"], line["play"]) for line in lines}) == len(numbers)
    return numbers


def xml_numbers(archive: store.GroupArchive) -> dict[str, str]:
    """The day each play of the BGG XML began → its id."""
    plays = ET.fromstring(bgg_xml.bgg_plays_xml(archive, GAMES, UTC)).findall("play")
    numbers = {play.get("date"): play.get("id") for play in plays}
    assert len(numbers) == len(plays)
    return numbers


EXPORTS = {"csv": csv_numbers, "bgg-xml": xml_numbers}


@pytest.fixture
def plays(client, db):
    """A group with three finished plays, on 2 to 4 January; their ids by day."""
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    ids = {p.name: p.id for p in store.list_players(db, group_id)}
    return group_id, ids, {day: log(db, group_id, ids, day) for day in sorted(DAYS)}  # entered in order


def _trash(day: str) -> Callable:
    def change(db, group_id, ids, plays) -> int:
        store.trash_play(db, plays[day], store.now())
        return group_id
    return change


def _delete(db, group_id, ids, plays) -> int:
    store.delete_play(db, plays["2024-01-02"])
    return group_id


def _trash_and_take_back(db, group_id, ids, plays) -> int:
    store.trash_play(db, plays["2024-01-02"], store.now())
    store.restore_trashed_play(db, group_id, plays["2024-01-02"])
    return group_id


def _log_an_earlier_play(db, group_id, ids, plays) -> int:
    log(db, group_id, ids, "2023-12-31")  # entered last, began first
    return group_id


def _restore_the_backup(db, group_id, ids, plays) -> int:
    text = backup.backup_json(store.dump_group(db, group_id), store.now())
    return store.restore_group(db, backup.parse_backup(text.encode(), GAMES, COLOURS)).id


# what is done to the group's plays, and the days of the plays its exports then hold
CHANGES = {
    "trash the first": (_trash("2024-01-02"), DAYS - {"2024-01-02"}),
    "trash the middle one": (_trash("2024-01-03"), DAYS - {"2024-01-03"}),
    "delete the first for good": (_delete, DAYS - {"2024-01-02"}),
    "trash the first and take it back": (_trash_and_take_back, DAYS),
    "log an earlier past play": (_log_an_earlier_play, DAYS | {"2023-12-31"}),
    "restore the group from its backup": (_restore_the_backup, DAYS),
}


@pytest.mark.parametrize("export", EXPORTS.values(), ids=EXPORTS.keys())
@pytest.mark.parametrize(("change", "days"), CHANGES.values(), ids=CHANGES.keys())
def test_a_play_keeps_its_number_whatever_happens_to_the_others(db, plays, export, change, days):
    group_id, ids, by_day = plays
    before = export(store.dump_group(db, group_id))
    after = export(store.dump_group(db, change(db, group_id, ids, by_day)))
    assert set(after) == days
    kept = before.keys() & days
    assert {day: after[day] for day in kept} == {day: before[day] for day in kept}
    assert len(set(after.values())) == len(after)  # no two plays alike


def test_a_play_has_the_same_number_in_both_exports_a_whole_number_a_spreadsheet_keeps(db, plays):
    archive = store.dump_group(db, plays[0])
    numbers = csv_numbers(archive)
    assert numbers == xml_numbers(archive)
    assert all(number.isdigit() and len(number) <= 11 and int(number) >= 1 for number in numbers.values())


def _archived(uid: str | None, started_at: str) -> store.ArchivedPlay:
    return store.ArchivedPlay("great-western-trail", {}, "finished", True, started_at, started_at, 1,
                              (store.ArchivedSeat(0, "red"),), (),
                              (store.ArchivedResult(0, 5, 1, {"total": 5}),), uid)


@pytest.mark.parametrize("uids", [[f"{n:032x}" for n in range(10)], [None] * 10], ids=["uids", "no uids"])
def test_plays_drawing_the_same_number_get_different_ones_whatever_their_order(monkeypatch, uids):
    plays = [_archived(uid, f"2024-01-{n + 1:02}T19:00:00+00:00") for n, uid in enumerate(uids)]
    # ten plays, ten numbers: some draw the same (all ten differ once in 2,800), yet they take 1 to 10
    monkeypatch.setattr(common, "PLAY_NUMBER_MAX", 10)
    numbers = dict(zip((play.started_at for play in plays), common.play_numbers(plays), strict=True))
    assert sorted(numbers.values()) == list(range(1, 11))
    backwards = plays[::-1]
    assert dict(zip((play.started_at for play in backwards), common.play_numbers(backwards),
                    strict=True)) == numbers


# --- score rows named like the other columns -------------------------------------------------------------

FIXED = ["play", "started_at", "finished_at", "minutes", "game", "edition", "expansions", "note", "counted",
         "seat", "player", "colour", "rank", "total", "winner", "team"]


@pytest.mark.parametrize("rows", [("player", "rank"), ("play", "seat", "winner"), ("colour", "game", "note"),
                                  ("team", "counted", "row:rank"), ("Player", "Rank")],
                         ids=lambda rows: "+".join(rows))
def test_score_rows_named_like_other_columns_read_back_as_they_were_entered(db, plays, rows):
    group_id, ids, _ = plays
    sheet = custom.ScoreSheet(rows=tuple(custom.SheetRow(row) for row in rows))
    game_id = store.add_group_game(db, group_id, "Quiz", None, sheet.to_json())
    slug = custom.slug_for(game_id)
    points = {"Anna": {row: 10 * n + 11 for n, row in enumerate(rows)},
              "Ben": {row: n + 1 for n, row in enumerate(rows)}}
    ranked = custom.rank_sheet(slug, sheet, list(points.items()))
    store.log_past_play(db, group_id, slug, [(ids["Anna"], "red"), (ids["Ben"], "blue")],
                        {custom.SHEET_OPTION: store.get_group_game(db, group_id, game_id).version_id},
                        {"breakdowns": list(points.values())},
                        [store.ResultInput(seat, p.total, p.rank, p.breakdown)
                         for seat, p in enumerate(ranked.players)],
                        "2024-02-01T19:00:00+00:00", "2024-02-01T20:00:00+00:00")
    games = {**GAMES, slug: custom.game_info(game_id, "Quiz", sheet)}
    text = plays_csv.plays_csv(store.dump_group(db, group_id), games, UTC)
    header = next(csv.reader(io.StringIO(text)))
    assert len(header) == len(set(header)) and header[:len(FIXED)] == FIXED
    assert header[len(FIXED):] == [plays_csv.ROW_PREFIX + row for row in rows]
    lines = [line for line in csv.DictReader(io.StringIO(text)) if line["game"] == "Quiz"]
    assert [{key: line[key] for key in ("seat", "player", "colour", "rank", "total", "winner", "team",
                                        "game", "note", "counted")} for line in lines] == [
        {"seat": "1", "player": "Anna", "colour": "red", "rank": "1",
         "total": str(sum(points["Anna"].values())), "winner": "yes", "team": "", "game": "Quiz", "note": "",
         "counted": "yes"},
        {"seat": "2", "player": "Ben", "colour": "blue", "rank": "2",
         "total": str(sum(points["Ben"].values())), "winner": "no", "team": "", "game": "Quiz", "note": "",
         "counted": "yes"}]
    assert [{row: int(line[plays_csv.ROW_PREFIX + row]) for row in rows} for line in lines] == [
        points["Anna"], points["Ben"]]
    assert all(line["play"].isdigit() for line in lines)
    # the other games' lines leave the rows empty
    assert {line[plays_csv.ROW_PREFIX + rows[0]] for line in csv.DictReader(io.StringIO(text))
            if line["game"] != "Quiz"} == {""}


# --- teams -----------------------------------------------------------------------------------------------

def _at_the_table(client, db, group_id, game_id, seats) -> tuple[int, dict[str, str]]:
    play_id = start_play(client, group_id, f"custom-{game_id}", seats)
    tally = client.get(f"/plays/{play_id}/sheet").text
    client.post(f"/plays/{play_id}/sheet", data={
        "version": version_of(tally), "points-0-0": "10", "points-1-0": "30", "points-2-0": "25",
        "team-0": "A", "team-1": "B", "team-2": "A"})
    return play_id, {"Anna": "A", "Ben": "B", "Cara": "A"}


def _as_a_past_play(client, db, group_id, game_id, seats) -> tuple[int, dict[str, str]]:
    data = {"ended_on": "2024-03-02", **{f"player-{n}": str(seat[0]) for n, seat in enumerate(seats)},
            **{f"player-{n}": "0" for n in range(len(seats), 7)},
            "points-0-0": "10", "points-1-0": "30", "points-2-0": "25",
            "team-0": "B", "team-1": "C", "team-2": "C"}
    response = client.post(f"/groups/{group_id}/plays/past/custom-{game_id}", data=data)
    assert response.status_code == 302, response.text
    return int(response.headers["Location"].rsplit("/", 2)[1]), {"Anna": "B", "Ben": "C", "Cara": "C"}


def _corrected(client, db, group_id, game_id, seats) -> tuple[int, dict[str, str]]:
    play_id, teams = _at_the_table(client, db, group_id, game_id, seats)
    correct = client.get(f"/plays/{play_id}/correct").text
    response = client.post(f"/plays/{play_id}/correct", data={
        "version": version_of(correct), "seat0-total": "40", "seat1-total": "30", "seat2-total": "25"})
    assert response.status_code == 302, response.text
    return play_id, teams


def _reopened_with_other_teams(client, db, group_id, game_id, seats) -> tuple[int, dict[str, str]]:
    play_id, _ = _at_the_table(client, db, group_id, game_id, seats)
    store.undo_last_event(db, play_id)
    tally = client.get(f"/plays/{play_id}/sheet").text
    client.post(f"/plays/{play_id}/sheet", data={
        "version": version_of(tally), "points-0-0": "10", "points-1-0": "30", "points-2-0": "25",
        "team-0": "B", "team-1": "A", "team-2": "A"})
    return play_id, {"Anna": "B", "Ben": "A", "Cara": "A"}


TEAM_PLAYS = {"finished at the table": _at_the_table, "logged as a past play": _as_a_past_play,
              "corrected afterwards": _corrected,
              "reopened and finished in other teams": _reopened_with_other_teams}


@pytest.mark.parametrize("record", TEAM_PLAYS.values(), ids=TEAM_PLAYS.keys())
def test_the_csv_gives_each_players_team_and_no_team_in_other_plays(client, db, record):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"), ("Cara", "green"))
    ids = {p.name: p.id for p in store.list_players(db, group_id)}
    seats = [(ids["Anna"], "red"), (ids["Ben"], "blue"), (ids["Cara"], "green")]
    spades = add_game(client, group_id, name="Spades", teams="y")
    play_id, teams = record(client, db, group_id, spades, seats)
    assert store.get_play(db, play_id).status == "finished"
    pandemic = add_game(client, group_id, name="Pandemic", cooperative="y")
    together = start_play(client, group_id, f"custom-{pandemic}", seats)
    tally = client.get(f"/plays/{together}/sheet").text
    client.post(f"/plays/{together}/sheet", data={"version": version_of(tally), "points-0-0": "0",
                                                  "points-1-0": "0", "points-2-0": "0", "won": "yes"})
    log(db, group_id, ids, "2024-03-03")
    text = client.get(f"/groups/{group_id}/export/plays.csv").text.lstrip("\ufeff")
    lines = list(csv.DictReader(io.StringIO(text)))
    assert {line["player"]: line["team"] for line in lines if line["game"] == "Spades"} == teams
    assert {line["team"] for line in lines if line["game"] != "Spades"} == {""}
    assert {line["game"] for line in lines} == {"Spades", "Pandemic", "Great Western Trail"}
