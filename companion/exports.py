"""A group's history in other formats: CSV, the JSON backup and its checked import, BGG plays XML, BG Stats.

Pure functions over the store's plain records; no Flask here. A backup file is untrusted input: it is
read in full and checked (shape, version, references, the play logs themselves) before anything is
stored, and a file that fails any check is refused with a sentence that says what is wrong.
"""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from collections.abc import Collection, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import IO, Any
from urllib.parse import quote

from jsonschema.exceptions import best_match

from companion.api.core import StrictValidator, json_path
from companion.games import custom, great_western_trail, table_tools
from companion.games.common import FINAL_EVENT, GameInfo, PlaySetup, RulesError, Seat
from companion.games.table import fold, ranked_tally
from companion.names import NAME_MAX, NameProblem, clean_name
from companion.store import (
    CORRECTION_EVENT,
    ArchivedEvent,
    ArchivedGame,
    ArchivedPlay,
    ArchivedPlayer,
    ArchivedResult,
    ArchivedSeat,
    DuplicateName,
    GroupArchive,
    Play,
    ResultRow,
    check_distinct_names,
)

BACKUP_FORMAT = "game-night-companion/group-backup"
BACKUP_VERSION = 1
SOURCE_NAME = "Game-Night Companion"
BG_STATS_CREATE_PLAY = "bgstats://app.bgstatsapp.com/createPlay.html"
POINTS_LIMIT = 10 ** 6  # far beyond any score, and well inside SQLite's integers

# BoardGameGeek's ids, where the companion knows them: Great Western Trail has one per edition.
GWT_BGG_IDS: Mapping[int, int] = {1: 193738, 2: 341169}


class BackupError(RulesError):
    """A backup file that cannot be imported; nothing of it was stored."""


def bgg_id(game: str, options: Mapping[str, Any], info: GameInfo | None = None) -> int | None:
    """The game's BoardGameGeek id, or None where the companion does not know it."""
    if info is not None and info.bgg_id is not None:  # a group's own game, as the group gave it
        return info.bgg_id
    if game == great_western_trail.GAME.slug:
        edition = options.get("edition", great_western_trail.DEFAULT_EDITION)
        return GWT_BGG_IDS.get(edition) if type(edition) is int else None
    return None


# --- the JSON backup ------------------------------------------------------------------------------

def backup_document(archive: GroupArchive, exported_at: str) -> dict[str, Any]:
    """The backup of a whole group as JSON-ready data (players are referred to by position)."""
    return {
        "format": BACKUP_FORMAT,
        "version": BACKUP_VERSION,
        "exported_at": exported_at,
        "group": {"name": archive.name},
        "players": [{"name": p.name, "colour": p.colour, "created_at": p.created_at}
                    for p in archive.players],
        "plays": [
            {
                "game": play.game, "options": dict(play.options), "status": play.status,
                "counted": play.counted, "started_at": play.started_at, "ended_at": play.ended_at,
                "version": play.version,
                "seats": [{"player": s.player, "colour": s.colour} for s in play.seats],
                "events": [{"seq": e.seq, "kind": e.kind, "payload": dict(e.payload),
                            "created_at": e.created_at} for e in play.events],
                "results": [{"player": r.player, "total": r.total, "rank": r.rank,
                             "breakdown": dict(r.breakdown)} for r in play.results],
            }
            for play in archive.plays
        ],
        "games": [{"id": game.key, "name": game.name, "bgg_id": game.bgg_id,
                   "versions": [{"id": key, "sheet": dict(sheet)} for key, sheet in game.versions]}
                  for game in archive.games],
    }


def backup_json(archive: GroupArchive, exported_at: str) -> str:
    """The backup file's text: compact, so that larger groups still fit the upload limit."""
    return json.dumps(backup_document(archive, exported_at), ensure_ascii=False, separators=(",", ":"))


_STAMP = {"type": "string", "minLength": 10, "maxLength": 40}
# room for spaces that trimming removes; clean_name() checks the name itself
_NAME = {"type": "string", "minLength": 1, "maxLength": 4 * NAME_MAX}
_WORD = {"type": "string", "minLength": 1, "maxLength": 40}
_INDEX = {"type": "integer", "minimum": 0, "maximum": 10_000}
_POINTS = {"type": "integer", "minimum": -POINTS_LIMIT, "maximum": POINTS_LIMIT}

BACKUP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["format", "version", "group", "players", "plays"],
    "properties": {
        "format": {"const": BACKUP_FORMAT},
        "version": {"const": BACKUP_VERSION},
        "exported_at": _STAMP,
        "group": {"type": "object", "additionalProperties": False, "required": ["name"],
                  "properties": {"name": _NAME}},
        "players": {"type": "array", "maxItems": 1_000, "items": {
            "type": "object", "additionalProperties": False, "required": ["name", "colour", "created_at"],
            "properties": {"name": _NAME, "colour": _WORD, "created_at": _STAMP}}},
        "plays": {"type": "array", "maxItems": 1_000_000, "items": {
            "type": "object", "additionalProperties": False,
            "required": ["game", "options", "status", "counted", "started_at", "ended_at", "version", "seats",
                         "events", "results"],
            "properties": {
                "game": _WORD,
                "options": {"type": "object", "maxProperties": 50},
                "status": {"enum": ["active", "finished"]},
                "counted": {"type": "boolean"},
                "started_at": _STAMP,
                "ended_at": {"oneOf": [_STAMP, {"type": "null"}]},
                "version": {"type": "integer", "minimum": 0, "maximum": 10 ** 9},
                "seats": {"type": "array", "minItems": 1, "maxItems": 10, "items": {
                    "type": "object", "additionalProperties": False, "required": ["player", "colour"],
                    "properties": {"player": _INDEX, "colour": _WORD}}},
                "events": {"type": "array", "maxItems": 100_000, "items": {
                    "type": "object", "additionalProperties": False,
                    "required": ["seq", "kind", "payload", "created_at"],
                    "properties": {"seq": {"type": "integer", "minimum": 1, "maximum": 10 ** 9},
                                   "kind": _WORD, "payload": {"type": "object"}, "created_at": _STAMP}}},
                "results": {"type": "array", "maxItems": 10, "items": {
                    "type": "object", "additionalProperties": False,
                    "required": ["player", "total", "rank", "breakdown"],
                    "properties": {"player": _INDEX, "total": _POINTS,
                                   "rank": {"type": "integer", "minimum": 1, "maximum": 10},
                                   "breakdown": {"type": "object", "minProperties": 1, "maxProperties": 30,
                                                 "propertyNames": _WORD, "additionalProperties": _POINTS}}}},
            },
        }},
    },
}
# a group's own games (companion.games.custom); plays name them as custom-<id>, their sheet by version id
BACKUP_SCHEMA["properties"]["games"] = {"type": "array", "maxItems": 1_000, "items": {
    "type": "object", "additionalProperties": False, "required": ["id", "name", "versions"],
    "properties": {
        "id": {"type": "integer", "minimum": 1, "maximum": 10 ** 15},
        "name": _NAME,
        "bgg_id": {"oneOf": [{"type": "integer", "minimum": 1, "maximum": 10 ** 9}, {"type": "null"}]},
        "versions": {"type": "array", "minItems": 1, "maxItems": 1_000, "items": {
            "type": "object", "additionalProperties": False, "required": ["id", "sheet"],
            "properties": {"id": {"type": "integer", "minimum": 1, "maximum": 10 ** 15},
                           "sheet": {"type": "object"}}}}}}}
_VALIDATOR = StrictValidator(BACKUP_SCHEMA)


def _load(data: bytes | str | IO[bytes]) -> Any:
    try:
        if hasattr(data, "read"):
            # parsed straight from the stream: no second copy of a large backup's bytes is kept
            return json.load(io.TextIOWrapper(data, encoding="utf-8-sig"))
        return json.loads(data)
    except (ValueError, RecursionError):  # not UTF-8, not JSON, nested too deep, absurd numbers
        raise BackupError("This file is not a backup of the companion: it is not readable JSON.") from None


def _check_shape(document: Any) -> None:
    if not isinstance(document, dict) or document.get("format") != BACKUP_FORMAT:
        raise BackupError("This file is not a group backup of the Game-Night Companion.")
    version = document.get("version")
    if version != BACKUP_VERSION:
        newer = type(version) is int and version > BACKUP_VERSION
        if newer:
            raise BackupError("This backup has format version %(version)r; this companion reads version "
                              "%(supported)d — it was made by a newer companion.",
                              version=version, supported=BACKUP_VERSION)
        raise BackupError("This backup has format version %(version)r; this companion reads version "
                          "%(supported)d.", version=version, supported=BACKUP_VERSION)
    error = best_match(_VALIDATOR.iter_errors(document))
    if error is not None:
        # The schema's own wording of the problem is English whatever the page's language.
        where = json_path(error.absolute_path)
        if not where:
            raise BackupError("The backup is damaged at the file: %(problem)s", "the file",
                              problem=error.message)
        raise BackupError("The backup is damaged at %(where)s: %(problem)s", where,
                          where=where, problem=error.message)


def _utc_stamp(value: str, where: str) -> str:
    """The moment in the companion's own form (UTC, ``+00:00``), so that stamps sort as times do."""
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise BackupError("The backup is damaged at %(where)s: %(value)r is not a date and time.",
                          where, where=where, value=value) from None
    if moment.utcoffset() is None:
        raise BackupError("The backup is damaged at %(where)s: %(value)r has no UTC offset (like +00:00), so "
                          "it is not clear when that was.", where, where=where, value=value)
    return moment.astimezone(UTC).isoformat()


def _clean_name(name: str, where: str) -> str:
    try:
        return clean_name(name, where)
    except NameProblem as problem:
        raise BackupError("The backup is damaged at %(where)s: %(problem)s", where, where=where,
                          problem=problem.message) from None


def _check_players(players: list[dict], colours: Collection[str]) -> None:
    for n, player in enumerate(players):
        player["name"] = _clean_name(player["name"], f"players[{n}].name")
    try:
        check_distinct_names([player["name"] for player in players])
    except DuplicateName as clash:
        raise BackupError("The backup lists the player %(name)s twice.", clash.path,
                          name=clash.params["name"]) from None
    for n, player in enumerate(players):
        name = player["name"]
        if player["colour"] not in colours:
            raise BackupError("The backup gives %(name)s the colour %(colour)r, which the companion does not "
                              "have.", f"players[{n}].colour", name=name, colour=player["colour"])
        player["created_at"] = _utc_stamp(player["created_at"], f"players[{n}].created_at")


def _check_seats(play: dict, where: str, players: list[dict], colours: Collection[str],
                 game: GameInfo) -> None:
    seats = play["seats"]
    if not game.min_players <= len(seats) <= game.max_players:
        raise BackupError("A play of %(game)s at %(play)s has %(count)d players; the game is played by "
                          "%(min)d to %(max)d.", f"{where}.seats", game=game.name, play=where,
                          count=len(seats), min=game.min_players, max=game.max_players)
    for n, seat in enumerate(seats):
        if seat["player"] >= len(players):
            raise BackupError("%(seat)s refers to player %(player)d, but the backup has only %(count)d "
                              "players.", f"{where}.seats[{n}].player", seat=f"{where}.seats[{n}]",
                              player=seat["player"], count=len(players))
        if seat["colour"] not in colours:
            raise BackupError("%(seat)s has the colour %(colour)r, which the companion does not have.",
                              f"{where}.seats[{n}].colour", seat=f"{where}.seats[{n}]", colour=seat["colour"])
    if len({seat["player"] for seat in seats}) != len(seats):
        raise BackupError("%(play)s seats the same player twice.", f"{where}.seats", play=where)
    if len({seat["colour"] for seat in seats}) != len(seats):
        raise BackupError("%(play)s gives two seats the same colour.", f"{where}.seats", play=where)


def _check_events(play: dict, where: str) -> None:
    events = play["events"]
    for n, event in enumerate(events):
        if event["seq"] != n + 1:
            raise BackupError("%(event)s is number %(seq)d; the events must be numbered 1, 2, 3 … in order.",
                              f"{where}.events[{n}].seq", event=f"{where}.events[{n}]", seq=event["seq"])
        event["created_at"] = _utc_stamp(event["created_at"], f"{where}.events[{n}].created_at")
    kinds = [event["kind"] for event in events]
    finals = [n for n, kind in enumerate(kinds) if kind == FINAL_EVENT]
    if play["status"] == "finished":
        if len(finals) != 1 or any(kind != CORRECTION_EVENT for kind in kinds[finals[0] + 1:]):
            raise BackupError("%(play)s is finished, so its log must hold one final tally, followed by "
                              "corrections only.", f"{where}.events", play=where)
    elif finals or CORRECTION_EVENT in kinds:
        raise BackupError("%(play)s is still going on but its log holds a final tally.", f"{where}.events",
                          play=where)


def _check_results(play: dict, where: str, game: GameInfo) -> None:
    results = play["results"]
    if play["status"] == "active":
        if results or play["ended_at"] is not None:
            raise BackupError("%(play)s is still going on but has an end or results.", f"{where}.results",
                              play=where)
        return
    if play["ended_at"] is None:
        raise BackupError("%(play)s is finished but has no end time.", f"{where}.ended_at", play=where)
    seated = [seat["player"] for seat in play["seats"]]
    if [r["player"] for r in results] != seated:
        raise BackupError("%(play)s must have one result per seat, in seat order.", f"{where}.results",
                          play=where)
    known = {*game.rows, "total"}  # "total": a play closed with the plain total per player
    for n, result in enumerate(results):
        unknown = sorted(set(result["breakdown"]) - known)
        if unknown:
            raise BackupError("%(result)s has the row %(row)r, which %(game)s does not score.",
                              f"{where}.results[{n}].breakdown", result=f"{where}.results[{n}]",
                              row=unknown[0], game=game.name)
        if set(result["breakdown"]) != set(results[0]["breakdown"]):
            raise BackupError("%(play)s must have the same rows for every player.", f"{where}.results[{n}]",
                              play=where)
        if result["total"] != sum(result["breakdown"].values()):
            raise BackupError("%(result)s: the total %(total)d is not the sum of its breakdown.",
                              f"{where}.results[{n}].total", result=f"{where}.results[{n}]",
                              total=result["total"])



def _ranked_again(play: dict, where: str, players: list[dict], sheet: custom.ScoreSheet | None) -> None:
    """The ranks as the game's rules give them, from the totals and the tie-breakers the log recorded.

    A play of the group's own game is ranked by the sheet it was scored with (teams, outcome as its
    final tally recorded them)."""
    if play["status"] != "finished":
        return
    finals = [e["payload"] for e in play["events"] if e["kind"] == FINAL_EVENT]
    rows = list(play["results"][0]["breakdown"])
    scores = [(players[r["player"]]["name"], r["breakdown"]) for r in play["results"]]
    if sheet is None:
        ranked = ranked_tally(play["game"], rows, scores, finals[0] if finals else None)
    else:
        teams, won = custom.outcome_from_payload(finals[0] if finals else None, len(scores))
        try:
            ranked = custom.rank_sheet(play["game"], sheet, scores, teams, won)
        except RulesError as error:
            raise BackupError("%(play)s does not fit its score sheet: %(problem)s", f"{where}.results",
                              play=where, problem=error.message) from None
    for result, computed in zip(play["results"], ranked.players, strict=True):
        result["rank"] = computed.rank


def _check_log_replays(play: dict, where: str, players: list[dict]) -> None:
    """The play's events must fold into a table state, as they will every time the play is shown."""
    seats = tuple(Seat(players[s["player"]]["name"], s["colour"]) for s in play["seats"])
    during = [(e["kind"], e["payload"]) for e in play["events"]
              if e["kind"] not in (FINAL_EVENT, CORRECTION_EVENT)]
    try:
        fold(PlaySetup(play["game"], seats, play["options"]), during)
    except RulesError as error:
        raise BackupError("The log of %(play)s does not replay: %(problem)s", f"{where}.events",
                          play=where, problem=error.message) from None
    except (TypeError, KeyError, IndexError, AttributeError):  # a foreign payload the rules did not foresee
        raise BackupError("The log of %(play)s does not replay.", f"{where}.events", play=where) from None


OwnGames = Mapping[str, tuple[GameInfo, dict[int, custom.ScoreSheet]]]


def _own_games(entries: list[dict]) -> OwnGames:
    """The backup's own games by slug: what the companion knows of each, and its sheets by version id."""
    found: dict[str, tuple[GameInfo, dict[int, custom.ScoreSheet]]] = {}  # an OwnGames
    version_ids: set[int] = set()
    for n, entry in enumerate(entries):
        where = f"games[{n}]"
        entry["name"] = _clean_name(entry["name"], f"{where}.name")
        sheets = {}
        for m, version in enumerate(entry["versions"]):
            try:
                sheets[version["id"]] = custom.parse_sheet(version["sheet"])
            except RulesError as error:
                raise BackupError("The score sheet at %(where)s is damaged: %(problem)s",
                                  f"{where}.versions[{m}].sheet", where=f"{where}.versions[{m}]",
                                  problem=error.message) from None
        slug = custom.slug_for(entry["id"])
        if slug in found or version_ids & set(sheets) or len(sheets) != len(entry["versions"]):
            raise BackupError("The backup lists the game or score sheet at %(where)s twice.", where,
                              where=where)
        version_ids |= set(sheets)
        newest = sheets[entry["versions"][-1]["id"]]
        found[slug] = (custom.game_info(entry["id"], entry["name"], newest, entry.get("bgg_id")), sheets)
    return found


def _play_sheet(play: dict, where: str, own_games: OwnGames) -> tuple[GameInfo, custom.ScoreSheet] | None:
    """A play of the group's own game: the game as of the sheet the play is scored with, and that sheet.

    None for a play of the three."""
    if custom.game_id_of(play["game"]) is None:
        return None
    if play["game"] not in own_games:
        raise BackupError("%(play)s is a play of %(game)r, a game the backup does not describe.",
                          f"{where}.game", play=where, game=play["game"])
    info, sheets = own_games[play["game"]]
    version = play["options"].get(custom.SHEET_OPTION)
    if type(version) is not int or version not in sheets:
        raise BackupError("%(play)s names a score sheet that %(game)s does not have.", f"{where}.options",
                          play=where, game=info.name)
    sheet = sheets[version]
    return custom.game_info(custom.game_id_of(play["game"]), info.name, sheet, info.bgg_id), sheet


def parse_backup(data: bytes | str | IO[bytes], games: Mapping[str, GameInfo],
                 colours: Collection[str]) -> GroupArchive:
    """Read and check a backup file; BackupError (saying what is wrong) for anything but a sound one.

    What the companion derives itself is not taken from the file: names are cleaned by the rules of
    names, times are kept in UTC, and ranks are computed again by the game's rules.
    """
    document = _load(data)
    _check_shape(document)
    players = document["players"]
    _check_players(players, colours)
    own_games = _own_games(document.get("games", []))
    for n, play in enumerate(document["plays"]):
        where = f"plays[{n}]"
        own = _play_sheet(play, where, own_games)
        game, sheet = (games.get(play["game"]), None) if own is None else own
        if game is None:
            raise BackupError("%(play)s is a play of %(game)r, a game the companion does not serve.",
                              f"{where}.game", play=where, game=play["game"])
        play["started_at"] = _utc_stamp(play["started_at"], f"{where}.started_at")
        if play["ended_at"] is not None:
            play["ended_at"] = _utc_stamp(play["ended_at"], f"{where}.ended_at")
        _check_seats(play, where, players, colours, game)
        _check_events(play, where)
        _check_results(play, where, game)
        _ranked_again(play, where, players, sheet)
        _check_log_replays(play, where, players)
    return GroupArchive(
        games=tuple(ArchivedGame(g["id"], g["name"], g.get("bgg_id"),
                                 tuple((v["id"], v["sheet"]) for v in g["versions"]))
                    for g in document.get("games", [])),
        name=_clean_name(document["group"]["name"], "group.name"),
        players=tuple(ArchivedPlayer(p["name"], p["colour"], p["created_at"]) for p in players),
        plays=tuple(
            ArchivedPlay(
                game=play["game"], options=play["options"], status=play["status"], counted=play["counted"],
                started_at=play["started_at"], ended_at=play["ended_at"], version=play["version"],
                seats=tuple(ArchivedSeat(s["player"], s["colour"]) for s in play["seats"]),
                events=tuple(ArchivedEvent(e["seq"], e["kind"], e["payload"], e["created_at"])
                             for e in play["events"]),
                results=tuple(ArchivedResult(r["player"], r["total"], r["rank"], r["breakdown"])
                              for r in play["results"]),
            )
            for play in document["plays"]
        ),
    )


# --- CSV and BoardGameGeek XML --------------------------------------------------------------------

def _finished(archive: GroupArchive) -> Iterator[tuple[int, ArchivedPlay]]:
    """The finished plays with their number in the group's history (1 = the first play started)."""
    return ((n, play) for n, play in enumerate(archive.plays, start=1) if play.status == "finished")


def _spreadsheet_safe(text: str) -> str:
    # A spreadsheet would run a name like "=HYPERLINK(…)" as a formula; the quote keeps it text.
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _minutes(play: ArchivedPlay) -> int | str:
    """How long the play took by its timer, in whole minutes; empty without a timer."""
    seconds = table_tools.duration_seconds(play.options, play.ended_at, datetime.now(UTC))
    return "" if seconds is None else round(seconds / 60)


def _text(play: ArchivedPlay, key: str) -> str:
    value = play.options.get(key, "")
    return value if isinstance(value, str) else ""


def plays_csv(archive: GroupArchive, games: Mapping[str, GameInfo]) -> str:
    """One line per player per finished play, with a column per breakdown row the plays have."""
    # a play finished with the plain total per player has the breakdown {"total": …}: the total column
    present = {row for _, play in _finished(archive) for r in play.results for row in r.breakdown} - {"total"}
    rows: list[str] = []
    for game in games.values():
        rows += [row for row in game.rows if row in present and row not in rows]
    rows += sorted(present - set(rows))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["play", "finished_at", "game", "counted", "seat", "player", "colour", "rank", "total",
                     "winner", "minutes", "expansions", "note", *rows])
    for number, play in _finished(archive):
        game_name = games[play.game].name if play.game in games else play.game
        for seat, result in enumerate(play.results):
            writer.writerow([
                number, play.ended_at, game_name, "yes" if play.counted else "no", seat + 1,
                _spreadsheet_safe(archive.players[result.player].name), play.seats[seat].colour, result.rank,
                result.total, "yes" if result.rank == 1 else "no", _minutes(play),
                _spreadsheet_safe(_text(play, table_tools.VARIANT)),
                _spreadsheet_safe(_text(play, table_tools.NOTE)),
                *(result.breakdown.get(row, "") for row in rows),
            ])
    return out.getvalue()


def bgg_plays_xml(archive: GroupArchive, games: Mapping[str, GameInfo]) -> bytes:
    """The finished plays in BoardGameGeek's plays XML; a play left out of the statistics is nowinstats."""
    root = ET.Element("plays")
    for _, play in _finished(archive):
        element = ET.SubElement(root, "play", date=(play.ended_at or "")[:10], quantity="1",
                                length=str(_minutes(play) or 0), incomplete="0",
                                nowinstats="0" if play.counted else "1", location="")
        item = ET.SubElement(element, "item", name=games[play.game].name if play.game in games else play.game,
                             objecttype="thing")
        object_id = bgg_id(play.game, play.options, games.get(play.game))
        if object_id is not None:
            item.set("objectid", str(object_id))
        comments = "\n".join(filter(None, (_text(play, table_tools.VARIANT), _text(play, table_tools.NOTE))))
        if comments:
            ET.SubElement(element, "comments").text = comments
        players = ET.SubElement(element, "players")
        for seat, result in enumerate(play.results):
            ET.SubElement(players, "player", name=archive.players[result.player].name,
                          score=str(result.total), win="1" if result.rank == 1 else "0",
                          startposition=str(seat + 1), color=play.seats[seat].colour)
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


# --- BG Stats -------------------------------------------------------------------------------------

def bg_stats_play(play: Play, game: GameInfo, results: Sequence[ResultRow]) -> dict[str, Any]:
    """A finished play in BG Stats' createPlay format."""
    game_data: dict[str, Any] = {"name": game.name, "sourceGameId": game.slug,
                                 "highestWins": not game.lowest_wins}
    if game.cooperative:
        game_data["cooperative"] = True
    object_id = bgg_id(play.game, play.options, game)
    if object_id is not None:
        game_data["bggId"] = object_id
    ended = datetime.fromisoformat(play.ended_at or play.started_at)
    return {
        "sourceName": SOURCE_NAME,
        "sourcePlayId": str(play.id),
        "playDate": ended.strftime("%Y-%m-%d %H:%M:%S"),
        "game": game_data,
        "players": [
            {"name": r.name, "sourcePlayerId": str(r.player_id), "score": r.total, "winner": r.rank == 1,
             "rank": r.rank, "startPlayer": r.seat == 0}
            for r in sorted(results, key=lambda r: r.seat)
        ],
    }


def bg_stats_url(play: Play, game: GameInfo, results: Sequence[ResultRow]) -> str:
    """The "Send to BG Stats" link: createPlay with the play as URL-encoded JSON."""
    data = json.dumps(bg_stats_play(play, game, results), ensure_ascii=False, separators=(",", ":"))
    return f"{BG_STATS_CREATE_PLAY}?data={quote(data, safe='')}"
