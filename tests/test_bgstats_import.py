"""Importing plays from a BG Stats export: the sample file, round trip, player mapping, refusals."""

from __future__ import annotations

import html
import io
import json
import re
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from companion import store
from companion.exchange import backup, bgstats_import, bgstats_link
from companion.exchange.bgstats_import import (
    BgStatsError,
    BgStatsGame,
    GameChoice,
    History,
    known_game,
    read_export,
)
from companion.forms import COLOURS
from companion.games import GAMES
from tests.conftest import add_players, create_group

SAMPLE = Path(__file__).parent / "data" / "bgstats-export.json"
BERLIN = ZoneInfo("Europe/Berlin")


def sample() -> dict:
    return json.loads(SAMPLE.read_text())


# --- reading the file, without the site --------------------------------------------------------------

@pytest.mark.parametrize(("bgg_id", "name", "expected"), [
    (193738, "Great Western Trail", ("great-western-trail", {"edition": 1})),
    (341169, "GWT 2e", ("great-western-trail", {"edition": 2})),  # the id decides, whatever the name
    (None, "Great Western Trail: Second Edition", ("great-western-trail", {"edition": 2})),
    (None, "great western trail", ("great-western-trail", {"edition": 1})),
    (None, "Gold West", ("gold-west", {"offices": [], "trading_post": False})),
    (None, "New World: A Carcassonne Game", ("mayflower", {})),
    (None, "Carcassonne – Mayflower", ("mayflower", {})),
    (None, "Great Western Trail: El Paso", None),  # another game, despite the name
    (None, "Great Western Trail: Argentina", None),
    (174430, "Gloomhaven", None),
])
def test_which_bg_stats_games_are_the_companions(bgg_id, name, expected):
    choice = known_game(BgStatsGame(1, name, bgg_id))
    assert (choice and (choice.slug, dict(choice.options))) == expected


def test_the_sample_file_is_read_play_by_play():
    file = read_export(SAMPLE.read_bytes(), GAMES, zone=BERLIN)
    assert file.players == {1: "Anna", 2: "Ben", 3: "Cara", 4: "Dan"}  # Eve played Azul only
    assert [(p.game.slug, p.game.options.get("edition")) for p in file.plays] == [
        ("great-western-trail", 1), ("great-western-trail", 2), ("gold-west", None), ("mayflower", None)]
    first, second, gold_west, mayflower = file.plays
    # the start player sits first; BG Stats' seat order is kept around the table
    assert [(s.player, s.score) for s in first.scores] == [(2, 74), (3, 69), (1, 87)]
    # 19:30 in Berlin in January is 18:30 UTC; the play took 100 minutes
    assert (first.started_at, first.ended_at) == ("2024-01-05T18:30:00+00:00", "2024-01-05T20:10:00+00:00")
    assert first.comments == "First play, rules from the video" and first.key.startswith("C0FFEE00")
    assert [s.score for s in second.scores] == [102, 98]  # a score as a number is read too
    assert gold_west.counted is False  # "ignored" in BG Stats: not in the statistics
    assert mayflower.ended_at == mayflower.started_at  # no duration given
    assert [(s.game_name, s.reason) for s in file.skipped] == [
        ("Great Western Trail: El Paso", "The group does not keep plays of this game."),
        ("Azul", "The group does not keep plays of this game."),
        ("Great Western Trail", "Anna has no score in whole points."),
        ("Gold West", "Gold West is played by 2 to 4 players; this play had 1."),
    ]


def without_uuids(document):
    """An export whose plays have no uuid (older BG Stats, other apps' exports)."""
    for play in document["plays"]:
        del play["uuid"]


@pytest.mark.parametrize("change", [lambda document: None, without_uuids], ids=["with uuids", "without"])
def test_the_carried_document_reads_the_same(change):
    """The same plays under the same keys: the key stored on importing is the one the file gives again."""
    file = read_export(mutated(change), GAMES, zone=BERLIN)
    again = read_export(bgstats_import.carried(file), GAMES, zone=BERLIN)
    assert (again.players, again.plays, again.skipped) == (file.players, file.plays, ())


def test_a_matcher_can_map_other_games():
    def everything_is_gold_west(game):
        return known_game(game) or GameChoice("gold-west", {"offices": [], "trading_post": False})

    file = read_export(SAMPLE.read_bytes(), GAMES, match=everything_is_gold_west)
    assert "Azul" in {p.game_name for p in file.plays}


@pytest.mark.parametrize(("score", "points"), [
    ("87", 87), (" 87 ", 87), ("-3", -3), ("+3", 3), (87, 87), (87.0, 87), ("", None), (None, None),
    ("87.5", None), (87.5, None), ("eighty", None), (True, None), ("10000001", None), ("²", None),
    ("+-5", None), ("9" * 4301, None), ("٣", None), (1e308, None), (float("nan"), None), ([87], None),
])
def test_scores_are_whole_points(score, points):
    document = sample()
    document["plays"][1]["playerScores"][0]["score"] = score
    file = read_export(json.dumps(document), GAMES)
    imported = [p for p in file.plays if p.key.endswith("0002")]
    assert (imported[0].scores[0].score if imported else None) == points


@pytest.mark.parametrize(("date", "minutes"), [
    ("yesterday", 10), ("2024-02-30 20:00:00", 10), ("0001-01-01 00:30:00+05:00", 10),
    ("9999-12-31 23:00:00+00:00", 600), ("", 0),
    # years no backup of the group could give back
    ("1850-05-01 20:00:00", 10), ("9000-12-31 23:00:00+00:00", 120),
])
def test_a_date_that_is_none_skips_the_play(date, minutes):
    document = sample()
    document["plays"][1] |= {"playDate": date, "durationMin": minutes}
    file = read_export(json.dumps(document), GAMES)
    assert "Its date" in next(s.reason for s in file.skipped if s.game_name.endswith("Second Edition"))


def test_a_play_date_without_a_zone_is_the_servers_local_time():
    file = read_export(SAMPLE.read_bytes(), GAMES)
    local = datetime(2024, 1, 5, 19, 30).astimezone(UTC)
    assert file.plays[0].started_at == local.isoformat()


def mutated(change) -> bytes:
    document = sample()
    change(document)
    return json.dumps(document).encode()


REFUSALS = [
    (b"\xff\xfe not json", "not readable JSON"),
    (b"[]", "has no lists of games, players and plays"),
    (mutated(lambda d: d.pop("plays")), "has no lists of games, players and plays"),
    (mutated(lambda d: d["games"].append({"name": "No id"})), "damaged at games[6]"),
    (mutated(lambda d: d["players"].__setitem__(0, "Anna")), "damaged at players[0]"),
    (mutated(lambda d: d["plays"][2].__setitem__("gameRefId", 99)), "damaged at plays[2].gameRefId"),
    (mutated(lambda d: d["plays"][2].__setitem__("gameRefId", [1])), "damaged at plays[2].gameRefId"),
    (mutated(lambda d: d["plays"][0].pop("playDate")), "damaged at plays[0].playDate"),
    (mutated(lambda d: d["plays"][0]["playerScores"][1].__setitem__("playerRefId", 42)),
     "damaged at plays[0].playerScores[1].playerRefId"),
    (mutated(lambda d: d["plays"][0].__setitem__("playerScores", {"1": 87})),
     "damaged at plays[0].playerScores"),
    # half a character, which JSON's escapes can write but no page can show
    (mutated(lambda d: d["plays"][0].__setitem__("comments", "close \ud800 game")),
     "damaged at plays[0].comments: it holds a broken character"),
    (mutated(lambda d: d["players"][0].__setitem__("name", "An\udc00na")), "damaged at players[0].name"),
    # a field named twice, which Python's parser would read as the last without a word
    (mutated(lambda d: None).replace(b'"playDate": ', b'"playDate": "2024-01-01 10:00:00", "playDate": ', 1),
     "names the field 'playDate' twice"),
]


@pytest.mark.parametrize(("data", "message"), REFUSALS)
def test_a_file_that_is_no_sound_export_is_refused_saying_where(data, message):
    with pytest.raises(BgStatsError, match=re.escape(message)):
        read_export(data, GAMES)


# --- through the pages ---------------------------------------------------------------------------------

@pytest.fixture
def group(client):
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("ben", "blue"), ("Zoe", "green"))
    return group_id


def upload(client, group_id: int, data: bytes):
    return client.post(f"/groups/{group_id}/import/bg-stats",
                       data={"export": (io.BytesIO(data), "BGStatsExport.json")},
                       content_type="multipart/form-data")


def confirmation_fields(page: str) -> dict[str, str]:
    """The confirmation form as the page fills it in: the carried export and the suggested players."""
    fields = {"export_data": html.unescape(re.search(r'name="export_data" type="hidden" value="([^"]*)"',
                                                     page).group(1))}
    for select in re.finditer(r'<select[^>]*name="(player_\d+)"[^>]*>(.*?)</select>', page, re.S):
        fields[select.group(1)] = re.search(r'<option selected value="(-?\d+)"', select.group(2)).group(1)
    return fields


def counts(db) -> tuple[int, int]:
    return (db.execute("SELECT COUNT(*) FROM players").fetchone()[0],
            db.execute("SELECT COUNT(*) FROM plays").fetchone()[0])


def test_import_round_trip_on_the_sample_file(client, db, group):
    page = upload(client, group, SAMPLE.read_bytes())
    assert page.status_code == 200
    assert "4 plays to import" in page.text and "4 plays left out" in page.text
    assert "Azul" in page.text and "Great Western Trail: El Paso" in page.text
    assert "Anna has no score in whole points." in page.text
    assert ("a Gold West tie on points goes to the players it marks as winners; other ties on points are "
            "shared") in page.text
    fields = confirmation_fields(page.text)
    players = {p.name: p.id for p in store.list_players(db, group)}
    # same names (ignoring case) are suggested; the others become new players
    assert fields | {"export_data": ""} == {"export_data": "", "player_1": str(players["Anna"]),
                                           "player_2": str(players["ben"]), "player_3": "0", "player_4": "0"}
    assert counts(db) == (3, 0)  # nothing stored before the confirmation

    done = client.post(f"/groups/{group}/import/bg-stats/confirm", data=fields)
    assert done.status_code == 302 and done.headers["Location"].endswith(f"/groups/{group}/history")
    assert "Imported 4 plays from BG Stats; new players: 2." in client.get(done.headers["Location"]).text

    new = {p.name: p for p in store.list_players(db, group)}
    assert set(new) == {"Anna", "ben", "Zoe", "Cara", "Dan"}
    assert len({p.colour for p in new.values()}) == 5  # the new players got colours nobody has
    finished = {play.play.started_at: play for play in store.recent_finished(db, group)}
    assert len(finished) == 4
    gwt = next(play for started, play in finished.items() if started.startswith("2024-01-05"))
    # the comment and BG Stats' location are the play's note, the duration its (stopped) timer
    assert gwt.play.game == "great-western-trail" and gwt.play.options == {
        "edition": 1, "note": "First play, rules from the video\n@ Ben's kitchen",
        "timer": {"elapsed": 6000, "since": None}}
    assert [s.name for s in gwt.play.seats] == ["ben", "Cara", "Anna"]
    assert [(r.name, r.total, r.rank) for r in gwt.results] == [
        ("Anna", 87, 1), ("ben", 74, 2), ("Cara", 69, 3)]
    assert len({s.colour for s in gwt.play.seats}) == 3
    gold = next(p for p in finished.values() if p.play.game == "gold-west")
    # BG Stats keeps no tie-breakers, but marks Cara the winner of the tie on points: so the table broke it
    assert [(r.name, r.total, r.rank) for r in gold.results] == [
        ("Cara", 64, 1), ("ben", 64, 2), ("Anna", 61, 3), ("Dan", 52, 4)]
    assert ("ben and Cara tied on 64 VP; by the winner recorded in BG Stats (Cara): Cara 1st; ben 2nd."
            in html.unescape(client.get(f"/plays/{gold.play.id}/result").text))
    # an ignored play in BG Stats does not count in the statistics
    assert store.play_counted(db, gold.play.id) is False
    payload = store.final_payload(db, gwt.play.id)
    assert payload["imported_from"] == "BG Stats" and payload["totals"] == [74, 69, 87]
    # the statistics count them (three counted plays: Anna won one, ben one, Cara one)
    stats = store.statistics(db, group, None)
    assert {p.name: p.wins for p in stats.players if p.wins} == {"Anna": 1, "ben": 1, "Cara": 1}

    # the imported plays go through the group's backup and its import unchanged
    archive = store.dump_group(db, group)
    restored = backup.parse_backup(backup.backup_json(archive, store.now()), GAMES, COLOURS)
    assert restored.plays == archive.plays

    # importing the same file again brings nothing twice
    again = upload(client, group, SAMPLE.read_bytes())
    assert "This file holds no plays this group can import." in again.text
    assert again.text.count("It was imported before.") == 4
    assert counts(db) == (5, 4)


def test_comments_longer_than_a_note_are_cut_and_the_confirmation_says_so(client, db, group):
    long = "A close game. " * 50  # 700 characters, with BG Stats' place after them
    page = upload(client, group, mutated(lambda d: d["plays"][0].__setitem__("comments", long)))
    said = re.search(r'<p class="hint" id="shortened-notes">(.*?)</p>', page.text, re.S)
    assert said and "cut to their first 500" in said.group(1)
    assert "Great Western Trail (Jan 5, 2024)" in said.group(1) and "Azul" not in said.group(1)
    assert client.post(f"/groups/{group}/import/bg-stats/confirm",
                       data=confirmation_fields(page.text)).status_code == 302
    [gwt] = [finished for finished in store.recent_finished(db, group)
             if finished.play.started_at.startswith("2024-01-05")]
    assert gwt.play.options["note"] == long.strip()[:500]
    # a file whose comments fit says nothing of it
    assert 'id="shortened-notes"' not in upload(client, group, SAMPLE.read_bytes()).text


def test_the_confirmation_names_the_plays_whose_bg_stats_winners_the_points_do_not_give(client, db, group):
    def other_winners(document):
        first, _, _, mayflower = document["plays"][:4]
        for entry, winner in zip(first["playerScores"], (False, True, False), strict=True):
            entry["winner"] = winner  # ben marked the winner with 74 points to Anna's 87
        mayflower["playerScores"][1]["score"] = "91"  # Dan level with Cara: the rules share it, BG Stats not

    page = upload(client, group, mutated(other_winners))
    said = re.search(r'<p class="hint" id="other-winners">(.*?)</p>', html.unescape(page.text), re.S)
    assert said and "BG Stats marks other winners than the points give in these 2 plays" in said.group(1)
    assert ("Great Western Trail (Jan 5, 2024), New World: A Carcassonne Game (Feb 16, 2024)."
            in " ".join(said.group(1).split()))
    assert client.post(f"/groups/{group}/import/bg-stats/confirm",
                       data=confirmation_fields(page.text)).status_code == 302
    ranked = {finished.play.started_at[:10]: {r.name: r.rank for r in finished.results}
              for finished in store.recent_finished(db, group)}
    assert ranked["2024-01-05"] == {"Anna": 1, "ben": 2, "Cara": 3}
    assert ranked["2024-02-16"] == {"Cara": 1, "Dan": 1, "Anna": 3}
    # the sample's winners are the players its points rank first (Gold West's tie: the one marked)
    assert 'id="other-winners"' not in upload(client, group, SAMPLE.read_bytes()).text


def test_the_confirmation_page_is_translated(client, group):
    page = client.post(f"/groups/{group}/import/bg-stats",
                       data={"export": (io.BytesIO(SAMPLE.read_bytes()), "BGStatsExport.json")},
                       content_type="multipart/form-data", headers={"Accept-Language": "de"})
    assert page.status_code == 200
    assert "Die Gruppe führt keine Partien dieses Spiels." in page.text


@pytest.mark.parametrize(("data", "message"), REFUSALS[:4])
def test_a_bad_file_is_a_clear_400_and_stores_nothing(client, db, group, data, message):
    before = counts(db)
    page = upload(client, group, data)
    assert page.status_code == 400 and message in html.unescape(page.text)
    assert counts(db) == before


def test_no_file_is_a_clear_400(client, group):
    page = client.post(f"/groups/{group}/import/bg-stats", data={}, content_type="multipart/form-data")
    assert page.status_code == 400 and "Choose the file BG Stats exported" in page.text


def test_two_bg_stats_players_cannot_become_one_player(client, db, group):
    fields = confirmation_fields(upload(client, group, SAMPLE.read_bytes()).text)
    fields["player_3"] = fields["player_1"]  # Cara → Anna, who is Anna already
    page = client.post(f"/groups/{group}/import/bg-stats/confirm", data=fields)
    assert page.status_code == 409
    assert "Anna and Cara would both become Anna" in page.text
    assert counts(db) == (3, 0)


def test_a_new_player_needs_a_free_name(client, db, group):
    fields = confirmation_fields(upload(client, group, SAMPLE.read_bytes()).text)
    fields["player_2"] = "0"  # "Ben" as a new player, but the group has "ben"
    page = client.post(f"/groups/{group}/import/bg-stats/confirm", data=fields)
    assert page.status_code == 409 and "The group already has a player called ben" in page.text
    assert counts(db) == (3, 0)


def second_dan(play: int, seat: int):
    """BG Stats lists Dan twice (two ids, e.g. added on two phones); the second one sits in this play."""
    def change(document):
        document["players"].append({"id": 7, "name": "Dan"})
        document["plays"][play]["playerScores"][seat]["playerRefId"] = 7
    return change


def test_two_bg_stats_players_of_one_name_who_never_played_together_become_one_new_player(client, db, group):
    page = upload(client, group, mutated(second_dan(1, 1)))  # GWT 2e: Ben and the second Dan
    fields = confirmation_fields(page.text)
    assert fields["player_4"] == fields["player_7"] == "0"
    assert client.post(f"/groups/{group}/import/bg-stats/confirm", data=fields).status_code == 302
    assert counts(db) == (5, 4)
    played = {p.play.game for p in store.recent_finished(db, group) if "Dan" in {r.name for r in p.results}}
    assert played == {"mayflower", "gold-west", "great-western-trail"}


def test_two_bg_stats_players_of_one_name_who_played_together_are_told_apart_first(client, db, group):
    fields = confirmation_fields(upload(client, group, mutated(second_dan(2, 0))).text)  # Gold West
    page = client.post(f"/groups/{group}/import/bg-stats/confirm", data=fields)
    assert page.status_code == 409
    assert ("BG Stats has two players called Dan who played together: choose a player of the group for one "
            "of them.") in page.text
    assert counts(db) == (3, 0)


@pytest.mark.parametrize(("value", "message"), [
    ("999", "Not a valid choice"), ("x", "Invalid Choice: could not coerce"),
    (None, "Choose a player of the group, or a new player."),
])
def test_a_tampered_or_missing_choice_is_a_400(client, db, group, value, message):
    fields = confirmation_fields(upload(client, group, SAMPLE.read_bytes()).text)
    if value is None:
        fields.pop("player_4")
    else:
        fields["player_4"] = value
    page = client.post(f"/groups/{group}/import/bg-stats/confirm", data=fields)
    assert page.status_code == 400 and message in page.text
    assert counts(db) == (3, 0)


@pytest.mark.parametrize("carried", ["", "{not json", json.dumps({"games": []})])
def test_a_confirmation_without_the_export_asks_for_the_file_again(client, db, group, carried):
    answer = client.post(f"/groups/{group}/import/bg-stats/confirm", data={"export_data": carried})
    assert answer.status_code == 302 and answer.headers["Location"].endswith("/import/bg-stats")
    assert "Upload the file again" in client.get(answer.headers["Location"]).text
    assert counts(db) == (3, 0)


def test_another_groups_phone_cannot_import(app, client, group):
    stranger = app.test_client()
    assert stranger.get(f"/groups/{group}/import/bg-stats").status_code == 404
    assert stranger.post(f"/groups/{group}/import/bg-stats/confirm", data={}).status_code == 404


def test_the_history_page_links_to_the_import(client, group):
    assert f'href="/groups/{group}/import/bg-stats"' in client.get(f"/groups/{group}/history").text


# --- the group's own games ------------------------------------------------------------------------------

def own_game(db, group_id: int, name: str, bgg_id: int | None = None, **sheet) -> str:
    from companion.games import custom

    return custom.slug_for(store.add_group_game(db, group_id, name, bgg_id, {"max_players": 6, **sheet}))


def test_the_groups_own_games_are_matched_by_boardgamegeek_id_or_name(db, group):
    azul = own_game(db, group, "Azul", 230802)
    wingspan = own_game(db, group, "Wingspan", rows=[{"name": "birds"}, {"name": "eggs"}])
    codenames = own_game(db, group, "Codenames", teams=True)
    match = bgstats_import.own_game_matcher(store.list_group_games(db, group))
    assert match(BgStatsGame(1, "Azul (2017)", 230802)).slug == azul  # the id decides
    assert match(BgStatsGame(1, "azul", None)).slug == azul
    assert match(BgStatsGame(1, "Great Western Trail", None)).slug == "great-western-trail"
    assert match(BgStatsGame(1, "Gloomhaven", None)) is None
    rows, teams = match(BgStatsGame(1, "Wingspan", None)), match(BgStatsGame(1, "Codenames", None))
    assert rows.slug == wingspan and "row by row" in rows.problem
    assert teams.slug == codenames and teams.problem is None  # playerScores say each team


def test_plays_of_the_groups_own_games_come_in_ranked_by_their_sheet(client, db, group):
    azul = own_game(db, group, "Azul", lowest_wins=True)  # as a test: fewer points win
    page = upload(client, group, SAMPLE.read_bytes())
    assert "5 plays to import" in page.text and "Azul" not in page.text.split('id="skipped-h"')[1]
    # BG Stats marks Eve the winner with 58 points to ben's 41: the sheet ranks ben first, and says so
    assert "Azul (Mar 1, 2024)" in page.text.split('id="other-winners"')[1]
    fields = confirmation_fields(page.text)
    assert fields["player_5"] == "0"  # Eve, who played Azul only, is a new player
    assert client.post(f"/groups/{group}/import/bg-stats/confirm", data=fields).status_code == 302
    play = next(p for p in store.recent_finished(db, group) if p.play.game == azul)
    assert [(r.name, r.total, r.rank) for r in play.results] == [("ben", 41, 1), ("Eve", 58, 2)]
    assert play.play.options["sheet"] == store.list_group_games(db, group)[0].version_id
    archive = store.dump_group(db, group)
    restored = backup.parse_backup(backup.backup_json(archive, store.now()), GAMES, COLOURS)
    assert restored.plays == archive.plays


def test_a_cooperative_game_is_won_or_lost_together(client, db, group):
    pandemic = own_game(db, group, "Pandemic", cooperative=True)

    def add_pandemic(document):
        document["games"].append({"id": 7, "name": "Pandemic", "bggId": 30549})
        document["plays"].append({"uuid": "C0FFEE00-0000-4000-8000-000000000009", "gameRefId": 7,
                                  "playDate": "2024-03-22 20:00:00", "durationMin": 45, "playerScores": [
                                      {"playerRefId": 1, "score": "", "winner": True},
                                      {"playerRefId": 2, "score": None, "winner": True}]})

    fields = confirmation_fields(upload(client, group, mutated(add_pandemic)).text)
    assert client.post(f"/groups/{group}/import/bg-stats/confirm", data=fields).status_code == 302
    play = next(p for p in store.recent_finished(db, group) if p.play.game == pandemic)
    assert {(r.name, r.rank) for r in play.results} == {("Anna", 1), ("ben", 1)}
    assert store.final_payload(db, play.play.id)["won"] is True


def test_a_game_the_group_scores_by_rows_is_listed_with_the_reason(client, db, group):
    own_game(db, group, "Azul", rows=[{"name": "wall"}, {"name": "floor", "negative": True}])
    page = upload(client, group, SAMPLE.read_bytes())
    assert "The group scores Azul row by row; BG Stats keeps only a total per player." in page.text
    assert "4 plays to import" in page.text


def test_a_long_history_goes_through_the_confirmation(client, db, group):
    def many_plays(document):
        first = document["plays"][0]
        document["plays"] = [first | {"uuid": f"C0FFEE00-0000-4000-8000-{n:012d}",
                                      "playDate": f"20{10 + n // 365:02d}-01-01 19:30:00"}
                             for n in range(1500)]

    data = mutated(many_plays)
    page = upload(client, group, data)
    assert "1500 plays to import" in page.text
    fields = confirmation_fields(page.text)
    assert len(fields["export_data"]) > 500_000  # beyond the usual limit of a form field
    done = client.post(f"/groups/{group}/import/bg-stats/confirm", data=fields)
    assert done.status_code == 302
    assert counts(db) == (4, 1500)  # Cara joins; Anna and ben were there


# --- times: the group's clocks, there and back -------------------------------------------------------

def late_plays(document):
    """The first play at 19:30 and a copy of it at 23:50, both on 5 January (Berlin: UTC+1)."""
    first = document["plays"][0]
    document["plays"] = [first, first | {"uuid": "C0FFEE00-0000-4000-8000-000000000099",
                                         "playDate": "2024-01-05 23:50:00", "durationMin": 40}]


def test_a_berlin_groups_import_keeps_its_clock_times_and_days(client, db, group):
    store.save_group_settings(db, group, store.GroupSettings("Europe/Berlin", "", {}))
    fields = confirmation_fields(upload(client, group, mutated(late_plays)).text)
    assert client.post(f"/groups/{group}/import/bg-stats/confirm", data=fields).status_code == 302
    assert sorted(p.play.started_at for p in store.recent_finished(db, group)) == [
        "2024-01-05T18:30:00+00:00", "2024-01-05T22:50:00+00:00"]
    csv_text = client.get(f"/groups/{group}/export/plays.csv").text
    assert "2024-01-05 19:30" in csv_text and "2024-01-05 23:50" in csv_text
    assert "2024-01-06" not in csv_text.replace("2024-01-06 00:30", "")  # the end of the late play only
    xml = client.get(f"/groups/{group}/export/bgg-plays.xml").text
    assert xml.count('date="2024-01-05"') == 2 and 'date="2024-01-06"' not in xml


@pytest.mark.parametrize("zone", ["Europe/Berlin", "Asia/Tokyo", "America/Los_Angeles", None])
def test_a_play_sent_to_bg_stats_and_imported_back_keeps_its_date_and_time(client, db, zone):
    """The link's playDate and durationMin, read back by the importer, give the same start and end."""
    source = create_group(client, "Sent")
    add_players(client, source, ("Anna", "red"), ("Ben", "blue"))
    store.save_group_settings(db, source, store.GroupSettings(zone, "", {}))
    ids = {p.name: p.id for p in store.list_players(db, source)}
    play_id = store.log_past_play(
        db, source, "gold-west", [(ids["Anna"], "red"), (ids["Ben"], "blue")], {},
        {"totals": [60, 50]}, [store.ResultInput(0, 60, 1, {"total": 60}), store.ResultInput(1, 50, 2,
                                                                                           {"total": 50})],
        "2024-03-30T22:40:00+00:00", "2024-03-31T00:05:00+00:00")  # across midnight and Berlin's summer time
    play = store.get_play(db, play_id)
    data = bgstats_link.bg_stats_play(play, GAMES["gold-west"], store.play_results(db, play_id),
                                      store.stable_ids(db, play_id), store.group_settings(db, source))
    export = {"games": [{"id": 1, "name": data["game"]["name"], "bggId": 0}],
              "players": [{"id": n, "name": p["name"]} for n, p in enumerate(data["players"], start=1)],
              "plays": [{"uuid": data["sourcePlayId"], "gameRefId": 1, "playDate": data["playDate"],
                         "durationMin": data["durationMin"],
                         "playerScores": [{"playerRefId": n, "score": str(p["score"]), "winner": p["winner"],
                                           "startPlayer": p["startPlayer"]}
                                          for n, p in enumerate(data["players"], start=1)]}]}
    back = read_export(json.dumps(export), GAMES, zone=ZoneInfo(zone) if zone else None).plays[0]
    assert (back.started_at, back.ended_at) == (play.started_at, play.ended_at)


@pytest.mark.parametrize("started_at", ["2024-10-27T00:30:00+00:00", "2024-10-27T01:30:00+00:00"],
                         ids=["the first 02:30", "the second 02:30"])
def test_a_play_begun_in_the_hour_that_comes_twice_is_known_when_it_comes_back(started_at):
    """Berlin, 27 October 2024: the clocks show 02:00 to 03:00 twice, and BG Stats writes no zone."""
    history = History([("gold-west", started_at, {"Anna": 60, "Ben": 50})], ["Anna", "Ben"])
    export = {"games": [{"id": 1, "name": "Gold West", "bggId": 0}],
              "players": [{"id": 1, "name": "Anna"}, {"id": 2, "name": "Ben"}],
              "plays": [{"uuid": "B6A1C0DE-0000-4000-8000-000000000001", "gameRefId": 1,
                         "playDate": "2024-10-27 02:30:00", "durationMin": 70,
                         "playerScores": [{"playerRefId": 1, "score": "60", "winner": True},
                                          {"playerRefId": 2, "score": "50", "winner": False}]}]}
    file = read_export(json.dumps(export), GAMES, zone=ZoneInfo("Europe/Berlin"), in_history=history)
    assert file.plays == ()
    assert [str(skipped.reason) for skipped in file.skipped] == ["The group's history already has this play."]


def test_a_players_name_from_the_file_is_shown_as_text(client, group):
    evil = "</select><a href=//e.vil>x"

    def rename(document):
        document["players"][2]["name"] = evil

    page = upload(client, group, mutated(rename))
    assert page.status_code == 200
    assert evil not in page.text and "<a href=//e.vil>" not in page.text
    assert "New player “&lt;/select&gt;&lt;a href=//e.vil&gt;x”" in page.text


# --- what BG Stats knows beyond the scores ----------------------------------------------------------------

def test_a_play_already_in_the_history_is_not_imported_twice(client, db, group):
    """The same game, start and players as a play the group logged itself: left out, not doubled."""
    fields = confirmation_fields(upload(client, group, SAMPLE.read_bytes()).text)
    assert client.post(f"/groups/{group}/import/bg-stats/confirm", data=fields).status_code == 302
    assert counts(db)[1] == 4

    page = upload(client, group, mutated(renumbered))
    assert page.text.count("The group&#39;s history already has this play.") == 4
    assert counts(db)[1] == 4


def renumbered(document):
    """The same plays under new ids, as from another phone's BG Stats."""
    for n, play in enumerate(document["plays"]):
        play["uuid"] = f"FEED0000-0000-4000-8000-{n:012d}"


@pytest.mark.parametrize(("change", "reason"), [
    (lambda document: None, "It was imported before."),
    (renumbered, "The group&#39;s history already has this play."),
], ids=["the same ids", "new ids"])
def test_an_imported_play_reopened_is_not_imported_again(client, db, group, change, reason):
    """An imported play reopened (its final tally undone, to fix a score) is still the group's."""
    fields = confirmation_fields(upload(client, group, SAMPLE.read_bytes()).text)
    assert client.post(f"/groups/{group}/import/bg-stats/confirm", data=fields).status_code == 302
    play = next(p.play for p in store.recent_finished(db, group) if p.play.game == "mayflower")
    assert client.post(f"/plays/{play.id}/undo", data={"version": str(play.version)}).status_code == 302
    assert store.get_play(db, play.id).status == "active"

    page = upload(client, group, mutated(change))
    assert "This file holds no plays this group can import." in page.text
    assert page.text.count(reason) == 4
    assert counts(db)[1] == 4


def test_a_file_without_uuids_imported_again_is_known_as_imported_before(client, db, group):
    fields = confirmation_fields(upload(client, group, mutated(without_uuids)).text)
    assert client.post(f"/groups/{group}/import/bg-stats/confirm", data=fields).status_code == 302
    page = upload(client, group, mutated(without_uuids))
    assert "This file holds no plays this group can import." in page.text
    assert page.text.count("It was imported before.") == 4
    assert counts(db)[1] == 4


# --- a play sent with the link, its players renamed since ------------------------------------------------

def sent_to_bg_stats(db, group_id: int, play_ids) -> dict:
    """The plays as BG Stats exports them after the "Send to BG Stats" link: its ids stay behind."""
    export: dict = {"games": [], "players": [], "plays": []}
    player_ids: dict[str, int] = {}
    for n, play_id in enumerate(play_ids):
        play = store.get_play(db, play_id)
        data = bgstats_link.bg_stats_play(play, GAMES[play.game], store.play_results(db, play_id),
                                          store.stable_ids(db, play_id), store.group_settings(db, group_id))
        export["games"].append({"id": n + 1, "name": data["game"]["name"], "bggId": 0})
        for player in data["players"]:
            if player["name"] not in player_ids:
                player_ids[player["name"]] = len(player_ids) + 1
                export["players"].append({"id": player_ids[player["name"]], "name": player["name"]})
        export["plays"].append({
            "uuid": f"B6A1C0DE-0000-4000-8000-{n:012d}", "gameRefId": n + 1,
            "playDate": data["playDate"], "durationMin": data["durationMin"],
            "playerScores": [{"playerRefId": player_ids[p["name"]], "score": str(p["score"]),
                              "winner": p["winner"], "startPlayer": p["startPlayer"]}
                             for p in data["players"]]})
    return export


def logged_play(db, group_id: int, seats: list[tuple[str, int]], started_at: str) -> int:
    """A finished Gold West play of these players (name, points), logged afterwards."""
    ids = {p.name: p.id for p in store.list_players(db, group_id)}
    ranks = [1 + sum(other > points for _, other in seats) for _, points in seats]
    colours = list(COLOURS)[:len(seats)]
    players = [(ids[name], colour) for (name, _), colour in zip(seats, colours, strict=True)]
    return store.log_past_play(
        db, group_id, "gold-west", players, {},
        {"totals": [points for _, points in seats]},
        [store.ResultInput(n, points, rank, {"total": points})
         for n, ((_, points), rank) in enumerate(zip(seats, ranks, strict=True))],
        started_at, started_at.replace("T19:", "T21:"))


def test_a_sent_play_is_recognised_after_its_players_were_renamed(client, db):
    """Sent with the link, Ben renamed Benjamin, the export imported: the play is the group's already, and
    BG Stats' Ben is suggested as Benjamin, also for a play BG Stats has from elsewhere."""
    group_id = create_group(client, "Club")
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    sent = logged_play(db, group_id, [("Anna", 60), ("Ben", 50)], "2024-03-30T19:40:00+00:00")
    export = sent_to_bg_stats(db, group_id, [sent])
    ben = next(p.id for p in store.list_players(db, group_id) if p.name == "Ben")
    assert client.post(f"/groups/{group_id}/players/{ben}",
                       data={"name": "Benjamin", "colour": "blue"}).status_code == 302

    page = upload(client, group_id, json.dumps(export).encode())
    assert "This file holds no plays this group can import." in page.text
    assert ("The group&#39;s history already has this play (the same game, start and number of players), "
            "with Benjamin in place of Ben.") in page.text
    assert "New player" not in page.text and counts(db) == (2, 1)

    # a play of theirs BG Stats has from elsewhere: Ben is Benjamin, and the sent play stays out
    document = export | {"plays": [*export["plays"], export["plays"][0] | {
        "uuid": "B6A1C0DE-0000-4000-8000-000000000099", "playDate": "2024-04-06 19:00:00"}]}
    page = upload(client, group_id, json.dumps(document).encode())
    assert "1 play to import" in page.text and "1 play left out" in page.text
    assert 'id="renamed-players"' in page.text
    fields = confirmation_fields(page.text)
    assert {fields["player_1"], fields["player_2"]} == {str(p.id) for p in store.list_players(db, group_id)}
    assert fields["player_2"] == str(ben)
    done = client.post(f"/groups/{group_id}/import/bg-stats/confirm", data=fields)
    assert done.status_code == 302
    assert "Imported 1 play from BG Stats; new players: 0." in client.get(done.headers["Location"]).text
    assert counts(db) == (2, 2)
    assert [p.name for p in store.list_players(db, group_id)] == ["Anna", "Benjamin"]
    new = next(p for p in store.recent_finished(db, group_id) if p.play.id != sent)
    assert {r.name for r in new.results} == {"Anna", "Benjamin"}


@pytest.mark.parametrize(("points", "suggested"), [
    ((60, 50), True),  # their points tell who is who
    ((55, 55), False),  # a draw does not
])
def test_two_players_renamed_in_one_play_are_told_apart_by_their_points(client, db, points, suggested):
    """Anna and Ben both renamed since the play was sent: BG Stats' Anna and Ben are suggested as Annabel
    and Benjamin when their points in that play differ; otherwise both are left as new players."""
    group_id = create_group(client, "Club")
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    sent = logged_play(db, group_id, list(zip(("Anna", "Ben"), points, strict=True)),
                       "2024-03-30T19:40:00+00:00")
    export = sent_to_bg_stats(db, group_id, [sent])
    for player, name in zip(store.list_players(db, group_id), ("Annabel", "Benjamin"), strict=True):
        assert client.post(f"/groups/{group_id}/players/{player.id}",
                           data={"name": name, "colour": player.colour}).status_code == 302
    document = export | {"plays": [*export["plays"], export["plays"][0] | {
        "uuid": "B6A1C0DE-0000-4000-8000-000000000099", "playDate": "2024-04-06 19:00:00"}]}
    page = upload(client, group_id, json.dumps(document).encode())
    assert "1 play to import" in page.text and "1 play left out" in page.text
    fields = confirmation_fields(page.text)
    ids = {p.name: str(p.id) for p in store.list_players(db, group_id)}
    expected = [ids["Annabel"], ids["Benjamin"]] if suggested else [str(bgstats_import.NEW_PLAYER)] * 2
    assert [fields["player_1"], fields["player_2"]] == expected


def test_a_play_at_the_same_start_with_other_players_is_another_play(client, db):
    """Only the same game, start and number of players is the same play under other names."""
    group_id = create_group(client, "Club")
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"), ("Cara", "green"), ("Dan", "yellow"))
    start = "2024-03-30T19:40:00+00:00"
    sent = logged_play(db, group_id, [("Anna", 60), ("Ben", 50)], start)
    three = logged_play(db, group_id, [("Anna", 60), ("Ben", 50), ("Cara", 40)], start)
    document = sent_to_bg_stats(db, group_id, [three, sent])
    for play_id in (three, sent):
        store.delete_play(db, play_id)  # the group has neither of them now
    logged_play(db, group_id, [("Cara", 44), ("Dan", 33)], start)  # at the other table
    page = upload(client, group_id, json.dumps(document).encode())
    # three players, or Anna and Ben, whom the group has and who are not at Cara and Dan's table
    assert "2 plays to import" in page.text and "already has this play" not in page.text


@pytest.mark.parametrize(("play", "expected"), [
    (("gold-west", "19:40", ["Anna", "Ben"]), {"anna", "benjamin"}),  # Ben is Benjamin now
    (("gold-west", "19:40", ["A.", "B."]), {"anna", "benjamin"}),  # both renamed
    (("gold-west", "19:40", ["Anna", "Benjamin"]), None),  # the same names: the same play, not renamed
    (("mayflower", "19:40", ["Anna", "Ben"]), None),  # another game
    (("gold-west", "19:41", ["Anna", "Ben"]), None),  # another start
    (("gold-west", "19:40", ["Anna", "Ben", "Cara"]), None),  # three players: another play
    (("gold-west", "19:40", ["Anna", "Zoe"]), None),  # Zoe is the group's, and did not play that one
    (("gold-west", "20:15", ["Anna", "Ben"]), None),  # two plays started then: which one is unclear
])
def test_which_history_play_a_play_is_under_other_names(play, expected):
    history = bgstats_import.History(
        [("gold-west", "19:40", {"Anna": 60, "Benjamin": 50}),
         ("mayflower", "19:40", {"Anna": 1, "Cara": 2, "Dan": 3}),
         ("gold-west", "20:15", {"Anna": 1, "Cara": 2}), ("gold-west", "20:15", {"Anna": 1, "Dan": 2})],
        ["Anna", "Benjamin", "Cara", "Dan", "Zoe"])
    game, started_at, names = play
    found = history.under_other_names(bgstats_import.play_signature(game, started_at, names))
    assert found == (expected and dict.fromkeys(expected) | {"anna": 60, "benjamin": 50})


@pytest.mark.parametrize(("evidence", "expected"), [
    ([([2], {"benjamin"})], {2: "benjamin"}),  # the one name left
    ([([2, 3], {"benjamin", "robert"})], {}),  # two left: who is who is unclear …
    ([([2, 3], {"benjamin", "robert"}), ([3], {"robert"})], {2: "benjamin", 3: "robert"}),  # … unless
    ([([2, 3], {"benjamin", "robert"}), ([2, 4], {"benjamin", "carl"})],
     {2: "benjamin", 3: "robert", 4: "carl"}),  # Ben was in both: Benjamin
    ([([2], {"benjamin"}), ([5], {"benjamin"})], {}),  # two BG Stats players would be Benjamin
    ([([2], {"benjamin"}), ([2], {"robert"})], {}),  # contradictory
])
def test_who_is_who_from_plays_the_history_has_under_other_names(evidence, expected):
    assert bgstats_import.renamed_players(
        (refs, frozenset(others)) for refs, others in evidence) == expected


@pytest.mark.parametrize(("renamed", "expected"), [
    ({}, {1: 10, 2: 0}),
    ({2: "Benjamin"}, {1: 10, 2: 11}),
    ({2: "benjamin"}, {1: 10, 2: 11}),  # as names compare
    ({2: "Anna"}, {1: 10, 2: 0}),  # Anna is BG Stats' Anna
    ({1: "Benjamin"}, {1: 10, 2: 0}),  # a player of the same name comes first
])
def test_the_suggested_players_take_the_history_into_account(renamed, expected):
    players = [store.Player(10, 1, "Anna", "red"), store.Player(11, 1, "Benjamin", "blue")]
    assert bgstats_import.suggested_mapping({1: "Anna", 2: "Ben"}, players, renamed) == expected

def test_locations_boards_anonymous_seats_and_teams_come_in(client, db, group):
    codenames = own_game(db, group, "Codenames", teams=True)

    def more(document):
        document["players"].append({"id": 9, "name": "Anonymous player", "isAnonymous": True})
        document["games"].append({"id": 8, "name": "Codenames", "bggId": 178900})
        document["plays"] = [
            document["plays"][0] | {"board": "Rails to the North", "playerScores": [
                {"playerRefId": 1, "score": "87"}, {"playerRefId": 9, "score": "80"},
                {"playerRefId": 9, "score": "70", "startPlayer": True}]},
            {"uuid": "C0FFEE00-0000-4000-8000-000000000077", "gameRefId": 8,
             "playDate": "2024-03-01 20:00:00",
             "playerScores": [{"playerRefId": 1, "score": "1", "team": "Red"},
                              {"playerRefId": 2, "score": "0", "team": "Blue"},
                              {"playerRefId": 9, "score": "1", "team": "red"},
                              {"playerRefId": 3, "score": "0", "team": "Blue"}]}]

    page = upload(client, group, mutated(more))
    assert "2 plays to import" in page.text, page.text
    shown = re.sub(r'name="export_data" type="hidden" value="[^"]*"', "", page.text)
    assert "Anonymous player" not in shown  # not offered as one person of the group
    assert "played together" not in page.text
    fields = confirmation_fields(page.text)
    assert client.post(f"/groups/{group}/import/bg-stats/confirm", data=fields).status_code == 302
    plays = {p.play.game: p for p in store.recent_finished(db, group)}
    gwt = plays["great-western-trail"]
    # each anonymous seat is its own guest; the start player sits first
    assert [s.name for s in gwt.play.seats] == ["Guest 1", "Anna", "Guest 2"]
    assert gwt.play.options["variant"] == "Rails to the North"
    assert gwt.play.options["note"].endswith("@ Ben's kitchen")
    team_play = plays[codenames]
    assert store.final_payload(db, team_play.play.id)["teams"] == ["A", "B", "A", "B"]
    assert {r.name: r.rank for r in team_play.results} == {"Anna": 1, "Guest 1": 1, "ben": 2, "Cara": 2}


@pytest.mark.parametrize("winner", [True, False], ids=["a winner marked", "no winner marked"])
def test_a_team_play_with_everyone_in_one_team_is_left_out_saying_why(app, client, db, group, winner):
    """BG Stats lets a play of a team game put everyone in one team; the group's sheet ranks teams against
    each other, so that play stays out and the others come in."""
    app.config["PROPAGATE_EXCEPTIONS"] = False
    own_game(db, group, "Codenames", teams=True)

    def one_team(document):
        document["games"].append({"id": 8, "name": "Codenames", "bggId": 178900})
        document["plays"].append({
            "uuid": "C0FFEE00-0000-4000-8000-000000000077", "gameRefId": 8, "playDate": "2024-03-01 20:00:00",
            "playerScores": [{"playerRefId": 1, "score": "5", "team": "Red", "winner": winner},
                             {"playerRefId": 2, "score": "3", "team": "red "}]})

    page = upload(client, group, mutated(one_team))
    assert page.status_code == 200
    assert "4 plays to import" in page.text and "A game of teams needs at least two teams." in page.text
    done = client.post(f"/groups/{group}/import/bg-stats/confirm", data=confirmation_fields(page.text))
    assert done.status_code == 302
    assert counts(db)[1] == 4


def test_a_groups_own_game_has_the_same_bg_stats_id_after_a_restore(app, client, db, group):
    """sourceGameId is derived from the game's name, not its database id, which a restore changes."""
    from tests.test_custom_games_web import import_backup

    own_game(db, group, "Other")  # so that the restored game gets another database id
    azul = own_game(db, group, "Azul")
    ids = {p.name: p.id for p in store.list_players(db, group)}
    play_id = store.log_past_play(db, group, azul, [(ids["Anna"], "red"), (ids["ben"], "blue")],
                                  {"sheet": next(g.version_id for g in store.list_group_games(db, group)
                                                 if g.name == "Azul")},
                                  {"breakdowns": [{"total": 5}, {"total": 3}]},
                                  [store.ResultInput(0, 5, 1, {"total": 5}), store.ResultInput(1, 3, 2,
                                                                                             {"total": 3})],
                                  "2024-03-01T19:00:00+00:00", "2024-03-01T20:00:00+00:00")
    response = import_backup(app.test_client(), client.get(f"/groups/{group}/export/backup.json").data)
    assert response.status_code == 302, response.text
    copy = int(response.headers["Location"].rsplit("/", 1)[1])
    copy_play = store.recent_finished(db, copy)[0].play

    def source_game_id(play_id: int, group_id: int) -> str:
        play = store.get_play(db, play_id)
        game = next(g for g in store.list_group_games(db, group_id) if f"custom-{g.id}" == play.game)
        from companion.games import custom

        info = custom.game_info(game.id, game.name, custom.parse_sheet(game.sheet))
        return bgstats_link.bg_stats_play(play, info, store.play_results(db, play_id),
                                          store.stable_ids(db, play_id),
                                          store.group_settings(db, group_id))["game"]["sourceGameId"]

    assert copy_play.game != store.get_play(db, play_id).game
    assert source_game_id(play_id, group) == source_game_id(copy_play.id, copy)


def test_an_export_beyond_the_stated_limits_is_a_clear_400(client, db, group, monkeypatch):
    monkeypatch.setattr(bgstats_import, "MAX_PLAYERS", 3)
    page = upload(client, group, SAMPLE.read_bytes())
    assert page.status_code == 400
    assert "The plays to import have 4 players; the companion matches at most 3 players at once." in page.text
    monkeypatch.setattr(bgstats_import, "MAX_PLAYERS", 200)
    monkeypatch.setattr(bgstats_import, "MAX_PLAYS", 3)
    page = upload(client, group, SAMPLE.read_bytes())
    assert page.status_code == 400 and "the companion imports at most 3 at once" in page.text
    assert counts(db) == (3, 0)


def test_the_confirmation_lists_the_first_plays_left_out_and_counts_the_rest(client, group):
    def many_others(document):
        azul = next(p for p in document["plays"] if p["gameRefId"] == 6)
        document["plays"] += [azul | {"uuid": f"A2A2A2A2-0000-4000-8000-{n:012d}"} for n in range(300)]

    page = upload(client, group, mutated(many_others))
    assert "304 plays left out" in page.text and "… and 204 more." in page.text
    assert page.text.count("<tr><td>") == 100
