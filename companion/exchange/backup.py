"""The JSON backup of a whole group, and its import: every check passes before anything is stored,
else the file is refused with what is wrong and the JSON path of the bad field."""

import io
import json
import math
from collections.abc import Collection, Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import IO, Any

from jsonschema.exceptions import best_match

from companion import store
from companion.exchange import validation
from companion.exchange.common import POINTS_LIMIT, known_time_zones
from companion.exchange.validation import StrictValidator, broken_text, first_bad, json_path
from companion.games import custom, table_tools
from companion.games.common import FINAL_EVENT, FIRST_YEAR, LAST_YEAR, GameInfo, PlaySetup, RulesError, Seat
from companion.games.table import TableState, check_final_tally, fold, ranked_tally
from companion.names import BGG_ID_MAX, LOCATION_MAX, NAME_MAX, NameProblem, clean_name, refused_character
from companion.store import CORRECTION_EVENT, GroupArchive, GroupSettings

# What one backup may hold, beyond the file's size (the upload limit): stated on the import page
MAX_PLAYERS = 1_000
MAX_PLAYS = 50_000
MAX_EVENTS = 10_000  # in one play's log

BACKUP_FORMAT = "game-night-companion/group-backup"
BACKUP_VERSION = 1


class BackupError(RulesError):
    """A backup file that cannot be imported; nothing of it was stored."""


def backup_document(archive: GroupArchive, exported_at: str) -> dict[str, Any]:
    """The backup of a whole group as JSON-ready data (players are referred to by position)."""
    return {
        "format": BACKUP_FORMAT,
        "version": BACKUP_VERSION,
        "exported_at": exported_at,
        "group": {"name": archive.name, "time_zone": archive.settings.time_zone,
                  "location": archive.settings.location, "bgg_ids": dict(archive.settings.bgg_ids)},
        "players": [{"name": p.name, "colour": p.colour, "created_at": p.created_at, "uid": p.uid,
                     "retired": p.retired} for p in archive.players],
        "plays": [{
            "uid": play.uid, "game": play.game, "options": dict(play.options), "status": play.status,
            "counted": play.counted, "started_at": play.started_at, "ended_at": play.ended_at,
            "version": play.version, "seats": [{"player": s.player, "colour": s.colour} for s in play.seats],
            "events": [{"seq": e.seq, "kind": e.kind, "payload": dict(e.payload), "created_at": e.created_at}
                       for e in play.events],
            "results": [{"player": r.player, "total": r.total, "rank": r.rank, "breakdown": dict(r.breakdown)}
                        for r in play.results],
            "first_ended_at": play.first_ended_at,
            "reopened": None if play.reopened_tally is None else {
                "tally": dict(play.reopened_tally), "at_version": play.reopened_at_version},
        } for play in archive.plays],
        "games": [{"id": game.key, "name": game.name, "bgg_id": game.bgg_id,
                   "versions": [{"id": key, "sheet": dict(sheet)} for key, sheet in game.versions]}
                  for game in archive.games],
    }


def backup_json(archive: GroupArchive, exported_at: str) -> str:
    """The backup file's text: compact, so that larger groups still fit the upload limit."""
    return json.dumps(backup_document(archive, exported_at), ensure_ascii=False, separators=(",", ":"))


def _record(required: list[str], properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "required": required, "properties": properties}


def _list(items: dict[str, Any], most: int, least: int = 0) -> dict[str, Any]:
    return {"type": "array", **({"minItems": least} if least else {}), "maxItems": most, "items": items}


def _whole(least: int, most: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": least, "maximum": most}


def _or_null(schema: dict[str, Any]) -> dict[str, Any]:
    return {"oneOf": [schema, {"type": "null"}]}


_STAMP = {"type": "string", "minLength": 10, "maxLength": 40}
# room for spaces that trimming removes; clean_name() checks the name itself
_NAME = {"type": "string", "minLength": 1, "maxLength": 4 * NAME_MAX}
_WORD = {"type": "string", "minLength": 1, "maxLength": 40}
_INDEX = _whole(0, 10_000)
_POINTS = _whole(-POINTS_LIMIT, POINTS_LIMIT)
_UID = _or_null({"type": "string", "pattern": "^[0-9a-f]{32}$"})
_FLAG = {"type": "boolean"}
_SEATS = _whole(1, 100)
# a group's own game's score sheet (companion.games.custom.parse_sheet checks how its fields fit together)
_SHEET = {"type": "object", "additionalProperties": False, "properties": {
    "min_players": _SEATS, "max_players": _SEATS, "lowest_wins": _FLAG, "cooperative": _FLAG, "teams": _FLAG,
    "tie_breaker": _or_null({"type": "string", "maxLength": 200}),
    "tie_breaker_wins": {"enum": ["most", "fewest"]},
    "rows": _list(_record(["name"], {"name": {"type": "string", "maxLength": 200}, "negative": _FLAG}), 100)}}
# what every play's options may hold beside its game's own: the timer, the variant and the note
_OPTIONS = {"type": "object", "maxProperties": 50, "properties": {
    table_tools.TIMER: _record(["elapsed"], {"elapsed": _whole(0, 10 ** 9), "since": _or_null(_STAMP)}),
    table_tools.VARIANT: {"type": "string", "maxLength": table_tools.VARIANT_MAX},
    table_tools.NOTE: {"type": "string", "maxLength": table_tools.NOTE_MAX}}}
_PLAY = _record(
    ["game", "options", "status", "counted", "started_at", "ended_at", "version", "seats", "events",
     "results"], {
        "uid": _UID, "game": _WORD, "options": _OPTIONS, "status": {"enum": ["active", "finished"]},
        "counted": {"type": "boolean"}, "started_at": _STAMP, "ended_at": _or_null(_STAMP),
        "version": _whole(0, 10 ** 9),
        "seats": _list(_record(["player", "colour"], {"player": _INDEX, "colour": _WORD}), 10, 1),
        "events": _list(_record(["seq", "kind", "payload", "created_at"], {
            "seq": _whole(1, 10 ** 9), "kind": _WORD, "payload": {"type": "object"}, "created_at": _STAMP}),
            MAX_EVENTS),
        "results": _list(_record(["player", "total", "rank", "breakdown"], {
            "player": _INDEX, "total": _POINTS, "rank": _whole(1, 10),
            "breakdown": {"type": "object", "minProperties": 1, "maxProperties": 30, "propertyNames": _WORD,
                          "additionalProperties": _POINTS}}), 10),
        # a play finished, reopened (its final tally undone) and perhaps finished again
        "first_ended_at": _or_null(_STAMP),
        "reopened": _or_null(_record(["tally", "at_version"],
                                     {"tally": {"type": "object"}, "at_version": _whole(0, 10 ** 9)}))})
# a group's own games (companion.games.custom); plays name them as custom-<id>, their sheet by version id
_GAME = _record(["id", "name", "versions"], {
    "id": _whole(1, 10 ** 15), "name": _NAME, "bgg_id": _or_null(_whole(1, BGG_ID_MAX)),
    "versions": _list(_record(["id", "sheet"], {"id": _whole(1, 10 ** 15), "sheet": _SHEET}), 1_000, 1)})
BACKUP_SCHEMA: dict[str, Any] = _record(["format", "version", "group", "players", "plays"], {
    "format": {"const": BACKUP_FORMAT}, "version": {"const": BACKUP_VERSION}, "exported_at": _STAMP,
    "group": _record(["name"], {
        "name": _NAME, "time_zone": _or_null({"type": "string", "maxLength": 64}),
        "location": {"type": "string", "maxLength": LOCATION_MAX},
        "bgg_ids": {"type": "object", "maxProperties": 50, "propertyNames": _WORD,
                    "additionalProperties": _whole(1, BGG_ID_MAX)}}),
    "players": _list(_record(["name", "colour", "created_at"], {
        "name": _NAME, "colour": _WORD, "created_at": _STAMP, "uid": _UID, "retired": _FLAG}), MAX_PLAYERS),
    "plays": _list(_PLAY, MAX_PLAYS),
    "games": _list(_GAME, 1_000),
})
_VALIDATOR = StrictValidator(BACKUP_SCHEMA)
_NOT_A_NUMBER = object()  # NaN, Infinity or a number beyond floats, where the file has one


def _number(text: str) -> float | object:
    value = float(text)
    return value if math.isfinite(value) else _NOT_A_NUMBER


def _load(data: bytes | str | IO[bytes]) -> Any:
    # Python's JSON reads NaN and Infinity (and turns 1e999 into infinity); no page could show them
    options = {"parse_constant": lambda _: _NOT_A_NUMBER, "parse_float": _number,
               "object_pairs_hook": validation.unique_keys}
    try:  # a stream is parsed as it is read: no second copy of a large backup's bytes is kept
        document = (json.load(io.TextIOWrapper(data, "utf-8-sig"), **options) if hasattr(data, "read")
                    else json.loads(data, **options))
    except validation.RepeatedKey as repeated:
        raise BackupError("The backup is damaged: it names the field %(field)s twice in one place.",
                          field=repr(repeated.key)) from None
    except (ValueError, RecursionError):  # not UTF-8, not JSON, nested too deep, absurd numbers
        raise BackupError("This file is not a backup of the companion: it is not readable JSON.") from None
    bad = first_bad(document, lambda value: value is _NOT_A_NUMBER or broken_text(value))
    if bad is not None:
        where = bad[0] or "the file"
        if bad[1] is _NOT_A_NUMBER:
            raise BackupError("The backup is damaged at %(where)s: NaN and Infinity are not numbers.", where,
                              where=where)
        raise BackupError("The backup is damaged at %(where)s: it holds a broken character (a lone "
                          "surrogate), which is not text.", where, where=where)
    return document


def _check_shape(document: Any) -> None:
    if not isinstance(document, dict) or document.get("format") != BACKUP_FORMAT:
        raise BackupError("This file is not a group backup of the Game-Night Companion.", "format")
    version = document.get("version")
    if type(version) is int and version > BACKUP_VERSION:
        raise BackupError("This backup has format version %(version)r; this companion reads version "
                          "%(supported)d — it was made by a newer companion.", "version",
                          version=version, supported=BACKUP_VERSION)
    if version != BACKUP_VERSION:
        raise BackupError("This backup has format version %(version)r; this companion reads version "
                          "%(supported)d.", "version", version=version, supported=BACKUP_VERSION)
    error = best_match(_VALIDATOR.iter_errors(document))
    if error is not None:  # the schema's own wording of the problem is English whatever the page's language
        where = json_path(error.absolute_path)
        if not where:
            raise BackupError("The backup is damaged at the file: %(problem)s", "the file",
                              problem=error.message)
        raise BackupError("The backup is damaged at %(where)s: %(problem)s", where,
                          where=where, problem=error.message)


def _to_utc(record: dict, key: str, where: str) -> None:
    """The record's moment, if any, in the companion's own form (UTC, ``+00:00``): stamps sort as times do."""
    value, where = record.get(key), f"{where}.{key}"
    if value is None:
        return
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise BackupError("The backup is damaged at %(where)s: %(value)r is not a date and time.",
                          where, where=where, value=value) from None
    if moment.utcoffset() is None:
        raise BackupError("The backup is damaged at %(where)s: %(value)r has no UTC offset (like +00:00), so "
                          "it is not clear when that was.", where, where=where, value=value)
    if not FIRST_YEAR <= moment.year <= LAST_YEAR:
        raise BackupError("The backup is damaged at %(where)s: %(value)r is not between the years %(first)d "
                          "and %(last)d.", where, where=where, value=value, first=FIRST_YEAR, last=LAST_YEAR)
    record[key] = moment.astimezone(UTC).isoformat()


def _clean_name(name: str, where: str, most: int = NAME_MAX) -> str:
    try:
        return clean_name(name, where, most)
    except NameProblem as problem:
        raise BackupError("The backup is damaged at %(where)s: %(problem)s", where, where=where,
                          problem=problem.message) from None


def _check_players(players: list[dict], colours: Collection[str]) -> None:
    for n, player in enumerate(players):
        player["name"] = _clean_name(player["name"], f"players[{n}].name")
    try:
        store.check_distinct_names([player["name"] for player in players])
    except store.DuplicateName as clash:
        raise BackupError("The backup lists the player %(name)s twice.", clash.path,
                          name=clash.params["name"]) from None
    for n, player in enumerate(players):
        if player["colour"] not in colours:
            raise BackupError("The backup gives %(name)s the colour %(colour)r, which the companion does not "
                              "have.", f"players[{n}].colour", name=player["name"], colour=player["colour"])
        _to_utc(player, "created_at", f"players[{n}]")


def _check_uids(document: dict) -> None:
    """BG Stats knows a play or player by its uid: two records sharing one would be one there."""
    for records in ("players", "plays"):
        seen: set[str] = set()
        for n, record in enumerate(document[records]):
            if record.get("uid") in seen:
                raise BackupError("%(record)s has the uid of an earlier one; each needs its own.",
                                  f"{records}[{n}].uid", record=f"{records}[{n}]")
            if record.get("uid") is not None:
                seen.add(record["uid"])


def _check_seats(play: dict, where: str, players: list[dict], colours: Collection[str],
                 game: GameInfo) -> None:
    seats = play["seats"]
    if not game.min_players <= len(seats) <= game.max_players:
        raise BackupError("A play of %(game)s at %(play)s seats %(count)d; the game is played by "
                          "%(min)d to %(max)d.", f"{where}.seats", game=game.name, play=where,
                          count=len(seats), min=game.min_players, max=game.max_players)
    for n, seat in enumerate(seats):
        at = f"{where}.seats[{n}]"
        if seat["player"] >= len(players):
            raise BackupError("%(seat)s refers to player %(player)d, but the backup has only %(count)d "
                              "players.", f"{at}.player", seat=at, player=seat["player"], count=len(players))
        if seat["colour"] not in colours:
            raise BackupError("%(seat)s has the colour %(colour)r, which the companion does not have.",
                              f"{at}.colour", seat=at, colour=seat["colour"])
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
        _to_utc(event, "created_at", f"{where}.events[{n}]")
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
    if [r["player"] for r in results] != [seat["player"] for seat in play["seats"]]:
        raise BackupError("%(play)s must have one result per seat, in seat order.", f"{where}.results",
                          play=where)
    known = {*game.rows, "total"}  # "total": a play closed with the plain total per player
    for n, result in enumerate(results):
        at = f"{where}.results[{n}]"
        if unknown := sorted(set(result["breakdown"]) - known):
            raise BackupError("%(result)s has the row %(row)r, which %(game)s does not score.",
                              f"{at}.breakdown", result=at, row=unknown[0], game=game.name)
        if set(result["breakdown"]) != set(results[0]["breakdown"]):
            raise BackupError("%(play)s must have the same rows for every player.", at, play=where)
        if result["total"] != sum(result["breakdown"].values()):
            raise BackupError("%(result)s: the total %(total)d is not the sum of its breakdown.",
                              f"{at}.total", result=at, total=result["total"])


def _ranked_again(play: dict, where: str, players: list[dict], sheet: custom.ScoreSheet | None,
                  table: TableState) -> None:
    """The ranks by the game's rules (or the group's sheet), from the log's totals and tie-breakers."""
    if play["status"] != "finished":
        return
    final = next((e["payload"] for e in play["events"] if e["kind"] == FINAL_EVENT), None)
    scores = [(players[r["player"]]["name"], r["breakdown"]) for r in play["results"]]
    if sheet is None:
        ranked = ranked_tally(play["game"], list(play["results"][0]["breakdown"]), scores, final, table)
    else:
        teams, won = custom.outcome_from_payload(final, len(scores))
        try:
            ranked = custom.rank_sheet(play["game"], sheet, scores, teams, won)
        except RulesError as error:
            raise BackupError("%(play)s does not fit its score sheet: %(problem)s", f"{where}.results",
                              play=where, problem=error.message) from None
    for result, computed in zip(play["results"], ranked.players, strict=True):
        result["rank"] = computed.rank


def _check_log_replays(play: dict, where: str, players: list[dict]) -> TableState:
    """The play's table: its events must fold into one, as they will every time the play is shown."""
    seats = tuple(Seat(players[s["player"]]["name"], s["colour"]) for s in play["seats"])
    during = [(e["kind"], e["payload"]) for e in play["events"]
              if e["kind"] not in (FINAL_EVENT, CORRECTION_EVENT)]
    try:
        table = fold(PlaySetup(play["game"], seats, play["options"]), during)
    except RulesError as error:
        raise BackupError("The log of %(play)s does not replay: %(problem)s", f"{where}.events",
                          play=where, problem=error.message) from None
    except (TypeError, KeyError, IndexError, AttributeError):  # a foreign payload the rules did not foresee
        raise BackupError("The log of %(play)s does not replay.", f"{where}.events", play=where) from None
    for n, event in enumerate(play["events"]):
        if event["kind"] == FINAL_EVENT:
            _check_final_tally(table, event["payload"], where, f"{where}.events[{n}].payload")
    return table


def _check_final_tally(table: TableState, tally: Any, where: str, path: str) -> None:
    """A final tally must be one the rules allow, as the pages and the API refuse any other."""
    try:
        check_final_tally(table, tally)
    except RulesError as error:
        raise BackupError("The final tally of %(play)s breaks the rules: %(problem)s", path, play=where,
                          problem=error.message) from None
    except (TypeError, KeyError, IndexError, AttributeError):
        raise BackupError("The final tally of %(play)s cannot be read.", path, play=where) from None


def _check_reopened(play: dict, where: str, table: TableState) -> None:
    """A reopened play's kept tally: from a version the play going on had, allowed while it is unchanged."""
    _to_utc(play, "first_ended_at", where)
    reopened = play.pop("reopened", None)
    play["reopened_tally"] = reopened and reopened["tally"]
    play["reopened_at_version"] = reopened and reopened["at_version"]
    if reopened is None:
        return
    if play["status"] != "active" or reopened["at_version"] > play["version"]:
        raise BackupError("%(play)s holds a reopened final tally, but it is not a play reopened.",
                          f"{where}.reopened", play=where)
    if reopened["at_version"] == play["version"]:
        _check_final_tally(table, reopened["tally"], where, f"{where}.reopened.tally")


OwnGames = dict[str, tuple[GameInfo, dict[int, custom.ScoreSheet]]]


def _own_games(entries: list[dict]) -> OwnGames:
    """The backup's own games by slug: what the companion knows of each, and its sheets by version id."""
    found: OwnGames = {}
    version_ids: set[int] = set()
    for n, entry in enumerate(entries):
        where = f"games[{n}]"
        entry["name"] = _clean_name(entry["name"], f"{where}.name", custom.GAME_NAME_MAX)
        sheets = {}
        for m, version in enumerate(entry["versions"]):
            at = f"{where}.versions[{m}]"
            try:
                sheets[version["id"]] = custom.parse_sheet(version["sheet"])
            except RulesError as error:
                raise BackupError("The score sheet at %(where)s is damaged: %(problem)s", f"{at}.sheet",
                                  where=at, problem=error.message) from None
            except (TypeError, KeyError, AttributeError):  # a shape the schema let through
                raise BackupError("The score sheet at %(where)s is damaged.", f"{at}.sheet",
                                  where=at) from None
        slug = custom.slug_for(entry["id"])
        if slug in found or version_ids & set(sheets) or len(sheets) != len(entry["versions"]):
            raise BackupError("The backup lists the game or score sheet at %(where)s twice.", where,
                              where=where)
        version_ids |= set(sheets)
        newest = sheets[entry["versions"][-1]["id"]]
        found[slug] = (custom.game_info(entry["id"], entry["name"], newest, entry.get("bgg_id")), sheets)
    return found


def _play_sheet(play: dict, where: str, own_games: OwnGames) -> tuple[GameInfo, custom.ScoreSheet] | None:
    """A play of the group's own game: the game as of the sheet it is scored with, and that sheet."""
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


def _settings(group: dict, games: Mapping[str, GameInfo]) -> GroupSettings:
    zone = group.get("time_zone")
    if zone is not None and zone not in known_time_zones():
        raise BackupError("The backup is damaged at %(where)s: %(zone)r is not a time zone like "
                          "Europe/Berlin.", "group.time_zone", where="group.time_zone", zone=zone)
    location = group.get("location", "")
    if refused_character(location) is not None:
        raise BackupError("The backup is damaged at %(where)s: the place holds a control character.",
                          "group.location", where="group.location")
    bgg_ids = group.get("bgg_ids", {})
    if unknown := sorted(set(bgg_ids) - set(games)):
        raise BackupError("The backup sets a BoardGameGeek id for %(game)r, a game the companion does not "
                          "serve.", "group.bgg_ids", game=unknown[0])
    return GroupSettings(zone, " ".join(location.split()), bgg_ids)


def parse_backup(data: bytes | str | IO[bytes], games: Mapping[str, GameInfo],
                 colours: Collection[str]) -> GroupArchive:
    """Read and check a backup file; BackupError for anything but a sound one. What the companion derives
    is not taken from the file: names are cleaned, times made UTC, ranks computed."""
    document = _load(data)
    _check_shape(document)
    players = document["players"]
    _check_players(players, colours)
    _check_uids(document)
    own_games = _own_games(document.get("games", []))
    for n, play in enumerate(document["plays"]):
        where = f"plays[{n}]"
        own = _play_sheet(play, where, own_games)
        game, sheet = (games.get(play["game"]), None) if own is None else own
        if game is None:
            raise BackupError("%(play)s is a play of %(game)r, a game the companion does not serve.",
                              f"{where}.game", play=where, game=play["game"])
        _to_utc(play, "started_at", where)
        if (timer := play["options"].get(table_tools.TIMER)) is not None:
            _to_utc(timer, "since", f"{where}.options.{table_tools.TIMER}")
        _to_utc(play, "ended_at", where)
        # a play of teams started with one seat, before teams needed two, is kept as its sheet allows
        _check_seats(play, where, players, colours,
                     game if sheet is None else replace(game, min_players=sheet.min_players))
        _check_events(play, where)
        _check_results(play, where, game)
        table = _check_log_replays(play, where, players)
        _ranked_again(play, where, players, sheet, table)
        _check_reopened(play, where, table)
    return GroupArchive(
        games=tuple(store.ArchivedGame(g["id"], g["name"], g.get("bgg_id"),
                                       tuple((v["id"], v["sheet"]) for v in g["versions"]))
                    for g in document.get("games", [])),
        name=_clean_name(document["group"]["name"], "group.name"),
        # the schema's records hold exactly the archive's fields
        players=tuple(store.ArchivedPlayer(**player) for player in players),
        plays=tuple(store.ArchivedPlay(**{
            **play, "seats": tuple(store.ArchivedSeat(**seat) for seat in play["seats"]),
            "events": tuple(store.ArchivedEvent(**event) for event in play["events"]),
            "results": tuple(store.ArchivedResult(**result) for result in play["results"])})
            for play in document["plays"]),
        settings=_settings(document["group"], games))

