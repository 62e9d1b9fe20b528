"""Plays from a BG Stats export ("Export data": BGStatsExport.json), for a group's history: a file not
shaped as one is refused as a whole, with where; plays that do not fit the group are listed as skipped."""

import contextlib
import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Callable, Collection, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any

from companion.exchange.common import POINTS_LIMIT, as_local, other_reading
from companion.exchange.validation import RepeatedKey, broken_text, first_bad, unique_keys
from companion.games import RULES, custom, table_tools
from companion.games.common import FIRST_YEAR, LAST_YEAR, FinalResult, GameInfo, RulesError
from companion.games.table import ranked_tally
from companion.messages import Message, Refused
from companion.names import LOCATION_MAX, NAME_MAX, NEW_PLAYER, NameProblem, clean_name, name_key
from companion.store import GroupGame, ImportedPlay, Player, ResultInput

SOURCE = "BG Stats"
KEY_FIELD = "bgstats_play"  # where an imported play's final tally keeps the BG Stats play's id
_WHOLE_NUMBER = re.compile(r"[+-]?[0-9]{1,9}")  # ASCII digits only: int() would take "²" and 5000 digits
LONGEST_PLAY_MINUTES = table_tools.LONGEST_PLAY_SECONDS // 60
# What one import takes beyond the upload limit: the players to map fit one page, the plays a confirmation.
MAX_PLAYERS = 200
MAX_PLAYS = 30_000
MAX_SKIPPED_SHOWN = 100  # the plays left out that the confirmation lists; the rest are counted
GUEST_NAME = "Guest %d"  # the n-th anonymous seat of a play; the same guests serve every play


class BgStatsError(Refused):
    """A file that is not a BG Stats export, or a choice of players that does not work; nothing stored."""


@dataclass(frozen=True)
class BgStatsGame:
    ref: int
    name: str
    bgg_id: int | None


@dataclass(frozen=True)
class GameChoice:
    """The group's game a BG Stats game becomes, with the options its plays get."""

    slug: str
    options: Mapping[str, Any] = field(default_factory=dict)
    sheet: custom.ScoreSheet | None = None  # how one of the group's own games is scored
    problem: Message | None = None  # why its plays cannot come in, though the game is the group's


GameMatcher = Callable[[BgStatsGame], GameChoice | None]

# The games with rules of their own, by BoardGameGeek id and by name (compared without case or punctuation)
KNOWN_BGG_IDS = {ref: GameChoice(slug, dict(options)) for slug, rules in RULES.items()
                 for ref, options in rules.BGG_IDS.items()}
KNOWN_NAMES = {name: GameChoice(slug, dict(options)) for slug, rules in RULES.items()
               for name, options in rules.KNOWN_AS.items()}


def _plain(name: str) -> str:
    return " ".join("".join(c if c.isalnum() else " " for c in name.casefold()).split())


def known_game(game: BgStatsGame) -> GameChoice | None:
    """The companion's game for a BG Stats game, by BoardGameGeek id or by name; None for others."""
    return KNOWN_BGG_IDS.get(game.bgg_id) or KNOWN_NAMES.get(_plain(game.name))


def _own_choice(own: GroupGame) -> GameChoice:
    slug, options = custom.slug_for(own.id), {custom.SHEET_OPTION: own.version_id}
    try:
        sheet = custom.parse_sheet(own.sheet)
    except RulesError as error:
        return GameChoice(slug, options, problem=error.message)
    return GameChoice(slug, options, sheet, Message(
        "The group scores %(game)s row by row; BG Stats keeps only a total per player.", game=own.name)
        if sheet.rows else None)


def own_game_matcher(own_games: Sequence[GroupGame]) -> GameMatcher:
    """known_game, then the group's own games: the same BoardGameGeek id, or else the same name."""
    by_bgg_id = {own.bgg_id: own for own in own_games if own.bgg_id}
    by_name = {_plain(own.name): own for own in own_games}

    def match(game: BgStatsGame) -> GameChoice | None:
        own = by_bgg_id.get(game.bgg_id) or by_name.get(_plain(game.name))
        return known_game(game) or (_own_choice(own) if own else None)

    return match


@dataclass(frozen=True)
class PlayerScore:
    player: int  # the BG Stats player's id
    score: int
    winner: bool = False  # BG Stats marks the player a winner


@dataclass(frozen=True)
class ImportablePlay:
    key: str  # the BG Stats play's uuid (or a digest of it, for a file without uuids)
    game: GameChoice
    game_name: str  # as BG Stats calls it
    started_at: str  # ISO 8601, UTC
    ended_at: str
    minutes: int  # how long it took; 0 when BG Stats does not say
    counted: bool
    won: bool | None  # a cooperative game: did the table win (BG Stats marks everybody a winner)?
    comments: str
    scores: tuple[PlayerScore, ...]  # in seat order, the start player first; a guest's player is < 0
    teams: tuple[str, ...] | None = None  # a game of teams: each seat's team (custom.TEAM_NAMES)
    location: str = ""  # where BG Stats says it was played
    board: str = ""  # the board or variant BG Stats noted
    # the other moment its start names where the clocks go back (BG Stats writes no zone): the history may
    # hold the play at either
    other_start: str | None = None


@dataclass(frozen=True)
class SkippedPlay:
    game_name: str
    date: str  # as the file gives it
    reason: Message
    in_history: bool = False  # left out as a play the group's history has (maybe under other names)


@dataclass(frozen=True)
class BgStatsFile:
    """What a BG Stats export holds for the group: the plays to import and the ones skipped."""

    players: Mapping[int, str]  # BG Stats id → name, of the named players in the plays to import
    plays: tuple[ImportablePlay, ...]
    skipped: tuple[SkippedPlay, ...]
    document: Mapping[str, Any]  # the plays to import in BG Stats' own shape, to read again on confirming
    # BG Stats id → the group's player in their place in plays the history has under other names
    renamed: Mapping[int, str] = field(default_factory=dict)


def _damaged(where: str, problem: Message) -> BgStatsError:
    return BgStatsError("The BG Stats export is damaged at %(where)s: %(problem)s", where, where=where,
                        problem=problem)


def _entries(document: Mapping, key: str) -> list[Mapping]:
    entries = document[key]
    for n, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise _damaged(f"{key}[{n}]", Message("it is not an object."))
        if key != "plays" and (type(entry.get("id")) is not int or not isinstance(entry.get("name"), str)):
            raise _damaged(f"{key}[{n}]", Message("it needs a whole-number id and a name."))
    return entries


def _player_name(entry: Mapping) -> str:
    """The name as the companion keeps names: cut to the longest allowed, or "Player 7" if none is left."""
    for text in (entry["name"], " ".join(entry["name"].split())[:NAME_MAX]):
        with contextlib.suppress(NameProblem):
            return clean_name(text)
    return f"Player {entry['id']}"


def _check_play_shape(play: Mapping, where: str, games: Collection[int], players: Collection[int]) -> None:
    if type(play.get("gameRefId")) is not int or play["gameRefId"] not in games:
        raise _damaged(f"{where}.gameRefId", Message("it refers to no game of the file."))
    if not isinstance(play.get("playDate"), str):
        raise _damaged(f"{where}.playDate", Message("it needs the date of the play."))
    scores = play.get("playerScores", [])
    if not isinstance(scores, list):
        raise _damaged(f"{where}.playerScores", Message("it is not a list."))
    for n, entry in enumerate(scores):
        if not isinstance(entry, dict) or type(entry.get("playerRefId")) is not int:
            raise _damaged(f"{where}.playerScores[{n}]", Message("it needs the player's playerRefId."))
        if entry["playerRefId"] not in players:
            raise _damaged(f"{where}.playerScores[{n}].playerRefId",
                           Message("it refers to no player of the file."))


def _points(value: Any) -> int | None:
    """A score as a whole number (BG Stats writes them as text), or None if it is none."""
    if isinstance(value, str) and _WHOLE_NUMBER.fullmatch(value.strip()):
        value = int(value.strip())
    elif type(value) is float and value.is_integer():
        value = int(value)
    return value if type(value) is int and abs(value) <= POINTS_LIMIT else None


def _seat_order(scores: list[Mapping]) -> list[Mapping]:
    """The players in the order they sat, the start player first (seat 1 starts in the companion)."""
    orders = [entry.get("seatOrder") for entry in scores]
    if all(type(order) is int for order in orders) and len(set(orders)) == len(orders):
        scores = sorted(scores, key=lambda entry: entry["seatOrder"])
    starters = [n for n, entry in enumerate(scores) if entry.get("startPlayer") is True]
    if len(starters) == 1:
        scores = scores[starters[0]:] + scores[:starters[0]]
    return scores


def _play_key(play: Mapping, game: BgStatsGame) -> str:
    uuid = play.get("uuid")
    if isinstance(uuid, str) and uuid.strip():
        return uuid.strip()[:100]
    # only what the confirmation carries (_slim): the key stored is then the one the file gives again
    content = json.dumps([game.name, play["playDate"], _slim(play)["playerScores"]], sort_keys=True)
    return "sha1:" + hashlib.sha1(content.encode()).hexdigest()


def _importable(play: Mapping, game: BgStatsGame, choice: GameChoice, info: GameInfo,
                players: Mapping[int, str], anonymous: Collection[int], locations: Mapping[int, str],
                zone: tzinfo | None) -> ImportablePlay | Message:
    """The play as the companion keeps it, or the reason it cannot be."""
    duration = play.get("durationMin")
    minutes = duration if type(duration) is int and 0 <= duration <= LONGEST_PLAY_MINUTES else 0
    try:  # BG Stats writes the local wall-clock time the play started (see bgstats_link): the group's
        written = datetime.fromisoformat(play["playDate"].strip())
        start, other = as_local(written, zone).astimezone(UTC), other_reading(written, zone)
        end = start + timedelta(minutes=minutes)
        if not FIRST_YEAR <= start.year <= end.year <= LAST_YEAR:
            raise ValueError("beyond the years a play may name")
    except (ValueError, OverflowError, OSError):  # not a date, or beyond the calendar
        return Message("Its date %(date)r is not a date and time.", date=play["playDate"][:40])
    if play.get("incomplete") is True:
        return Message("It was not played to the end.")
    entries = _seat_order(play.get("playerScores", []))
    refs = [entry["playerRefId"] for entry in entries if entry["playerRefId"] not in anonymous]
    if len(set(refs)) != len(refs):
        return Message("It lists the same player twice.")
    if not info.min_players <= len(entries) <= info.max_players:
        return Message("%(game)s is played by %(min)d to %(max)d players; this play had %(count)d.",
                       count=len(entries), game=info.name, min=info.min_players, max=info.max_players)
    cooperative = choice.sheet is not None and choice.sheet.cooperative
    teams = _teams(entries) if choice.sheet is not None and choice.sheet.teams else None
    if isinstance(teams, Message):
        return teams
    scores, guests = [], 0
    for entry in entries:
        ref = entry["playerRefId"]
        if ref in anonymous:
            guests += 1
            ref, name = -guests, GUEST_NAME % guests
        else:
            name = players[ref]
        points = _points(entry.get("score"))
        if points is None and cooperative and entry.get("score") in (None, ""):
            points = 0  # a cooperative game is often won or lost without points
        if points is None:
            return Message("%(name)s has no score in whole points.", name=name)
        if choice.sheet is not None:
            try:
                custom.checked_breakdown(choice.sheet, name, {custom.TOTAL_ROW: points})
            except RulesError as error:
                return error.message
        scores.append(PlayerScore(ref, points, entry.get("winner") is True))
    return ImportablePlay(
        key=_play_key(play, game), game=choice, game_name=game.name, started_at=start.isoformat(),
        other_start=other and other.astimezone(UTC).isoformat(),
        ended_at=end.isoformat(), minutes=minutes, counted=play.get("ignored") is not True,
        won=any(entry.get("winner") is True for entry in entries) if cooperative else None, teams=teams,
        comments=text if isinstance(text := play.get("comments"), str) else "", scores=tuple(scores),
        location=locations.get(place, "") if type(place := play.get("locationRefId")) is int else "",
        board=_short_text(play.get("board")))


def _short_text(value: Any, most: int = table_tools.VARIANT_MAX) -> str:
    """A text of the file as one line of at most ``most`` characters, without control characters."""
    if not isinstance(value, str):
        return ""
    return " ".join("".join(ch for ch in value if ch.isprintable() or ch.isspace()).split())[:most]


def _teams(entries: Sequence[Mapping]) -> tuple[str, ...] | Message:
    """Each seat's team as the group's sheet names teams (A, B …), in the order BG Stats' teams appear."""
    named = [entry.get("team") if isinstance(entry.get("team"), str) else "" for entry in entries]
    order = list(dict.fromkeys(team.strip().casefold() for team in named))
    if "" in order:
        return Message("It does not say the team of every player.")
    if len(order) < 2:  # the sheet ranks teams against each other
        return Message("A game of teams needs at least two teams.")
    if len(order) > len(custom.TEAM_NAMES):
        return Message("It has more teams than the group's sheet can keep (%(most)d).",
                       most=len(custom.TEAM_NAMES))
    return tuple(custom.TEAM_NAMES[order.index(team.strip().casefold())] for team in named)


PlaySignature = tuple[str, str, frozenset[str]]  # game slug, start (UTC), the players' name keys


def play_signature(game: str, started_at: str, names: Collection[str]) -> PlaySignature:
    """What makes two plays the same play: the game, the moment it started, who played."""
    return game, started_at, frozenset(name_key(name) for name in names)


class History:
    """The group's finished plays and players' names, as the import compares plays (BG Stats' export does not
    give back the link's ids): by signature, or, for a player renamed since, by game, start and count."""

    def __init__(self, plays: Iterable[tuple[str, str, Mapping[str, int | None]]] = (),
                 player_names: Collection[str] = ()) -> None:
        self.signatures: set[PlaySignature] = set()
        self._at: dict[tuple[str, str], list[dict[str, int | None]]] = defaultdict(list)  # each play's totals
        for game, started_at, totals in plays:
            self.signatures.add(play_signature(game, started_at, totals))
            self._at[game, started_at].append({name_key(name): total for name, total in totals.items()})
        self.names = {name_key(name): name for name in player_names}  # name key → the group's name

    def __contains__(self, signature: object) -> bool:
        return signature in self.signatures

    def under_other_names(self, signature: PlaySignature) -> Mapping[str, int | None] | None:
        """The players (name keys) and totals of the one history play this one is under other names: the same
        game, start and number of players, with everyone the file names as the group's player in it."""
        game, started_at, keys = signature
        known = keys & self.names.keys()
        fits = [kept for kept in self._at.get((game, started_at), ())
                if len(kept) == len(keys) and known <= kept.keys() and kept.keys() != keys]
        return fits[0] if len(fits) == 1 else None


def renamed_players(evidence: Iterable[tuple[Collection[int], frozenset[str]]]) -> dict[int, str]:
    """Who each BG Stats player is, from plays the history has under other names: the one history player left
    in every play of theirs once those who are someone else are set aside, and nobody else's."""
    candidates: dict[int, frozenset[str]] = {}
    for refs, others in evidence:
        for ref in refs:
            candidates[ref] = candidates.get(ref, others) & others
    while True:  # Bob is Robert, so Ben, who is Benjamin or Robert, is Benjamin
        settled = {key for keys in candidates.values() if len(keys) == 1 for key in keys}
        narrowed = {ref: keys - settled if len(keys) > 1 else keys for ref, keys in candidates.items()}
        if narrowed == candidates:
            break
        candidates = narrowed
    found = {ref: next(iter(keys)) for ref, keys in candidates.items() if len(keys) == 1}
    claimed = list(found.values())
    return {ref: key for ref, key in found.items() if claimed.count(key) == 1}


def read_export(data: bytes | str, games: Mapping[str, GameInfo], match: GameMatcher = known_game,
                zone: tzinfo | None = None, already_imported: frozenset[str] = frozenset(),
                in_history: History | None = None) -> BgStatsFile:
    """The plays the group can keep, and the others with the reason; BgStatsError for a file not one."""
    history = History() if in_history is None else in_history
    try:
        document = json.loads(data, object_pairs_hook=unique_keys)
    except RepeatedKey as repeated:
        raise BgStatsError("This BG Stats export is damaged: it names the field %(field)s twice in one "
                           "place.", field=repr(repeated.key)) from None
    except (ValueError, RecursionError):
        raise BgStatsError("This file is not a BG Stats export: it is not readable JSON.") from None
    if (broken := first_bad(document, broken_text)) is not None:
        raise _damaged(broken[0] or "the file",
                       Message("it holds a broken character (a lone surrogate), which is not text."))
    if not isinstance(document, dict) or not all(
            isinstance(document.get(key), list) for key in ("games", "players", "plays")):
        raise BgStatsError("This file is not a BG Stats export: it has no lists of games, players and "
                           "plays. In BG Stats, use “Export data” and choose the .json file it saves.")
    bg_games = {entry["id"]: BgStatsGame(entry["id"], " ".join(entry["name"].split()),
                                         ref if type(ref := entry.get("bggId")) is int and ref > 0 else None)
                for entry in _entries(document, "games")}
    player_entries = _entries(document, "players")
    names = {entry["id"]: _player_name(entry) for entry in player_entries}
    # BG Stats' "Anonymous player" is anyone unnamed, so never one person of the group
    anonymous = frozenset(entry["id"] for entry in player_entries if entry.get("isAnonymous") is True)
    places = _entries(document, "locations") if isinstance(document.get("locations"), list) else []
    locations = {entry["id"]: _short_text(entry["name"], LOCATION_MAX) for entry in places}
    plays: list[ImportablePlay] = []
    skipped: list[SkippedPlay] = []
    kept: dict[str, Mapping] = {}  # the plays to import by key, as the file has them
    evidence: list[tuple[list[int], frozenset[str]]] = []  # see renamed_players
    for n, play in enumerate(_entries(document, "plays")):
        _check_play_shape(play, f"plays[{n}]", bg_games, names)
        game = bg_games[play["gameRefId"]]
        choice = match(game)
        info = games.get(choice.slug) if choice else None
        result: ImportablePlay | Message = (
            Message("The group does not keep plays of this game.") if info is None
            else choice.problem or _importable(play, game, choice, info, names, anonymous, locations, zone))
        kept_already = False
        if isinstance(result, ImportablePlay) and (result.key in already_imported or result.key in kept):
            result = Message("It was imported before.")
        elif isinstance(result, ImportablePlay):
            result = _unless_in_history(result, names, history, evidence)
            kept_already = isinstance(result, Message)
        if isinstance(result, Message):
            skipped.append(SkippedPlay(game.name, play["playDate"], result, kept_already))
        else:
            plays.append(result)
            kept[result.key] = play
    if len(plays) > MAX_PLAYS:
        raise BgStatsError("This export holds %(count)d plays to import; the companion imports at most "
                           "%(most)d at once.", "plays", count=len(plays), most=MAX_PLAYS)
    in_plays = {score.player for play in plays for score in play.scores}
    players = {ref: name for ref, name in names.items() if ref in in_plays}
    if len(players) > MAX_PLAYERS:
        raise BgStatsError("The plays to import have %(count)d players; the companion matches at most "
                           "%(most)d players at once.", "players", count=len(players), most=MAX_PLAYERS)
    document_kept = {
        "games": [{"id": g.ref, "name": g.name, "bggId": g.bgg_id or 0}
                  for g in bg_games.values() if any(p["gameRefId"] == g.ref for p in kept.values())],
        "players": [{"id": ref, "name": name, **({"isAnonymous": True} if ref in anonymous else {})}
                    for ref, name in names.items() if ref in in_plays or ref in anonymous],
        "locations": [{"id": ref, "name": name} for ref, name in locations.items()
                      if any(p.get("locationRefId") == ref for p in kept.values())],
        "plays": [_slim(play) for play in kept.values()]}
    renamed = {ref: history.names.get(key, key) for ref, key in renamed_players(evidence).items()
               if ref in in_plays}
    return BgStatsFile(players, tuple(plays), tuple(skipped), document_kept, renamed)


def _unless_in_history(play: ImportablePlay, names: Mapping[int, str], history: History,
                       evidence: list[tuple[list[int], frozenset[str]]]) -> ImportablePlay | Message:
    """The play, or why it is left out: the history has it (under other names: ``evidence`` of who is who)."""
    # each seat's BG Stats id → name, in seat order (an anonymous seat's guest: Guest 1 …)
    seats = {score.player: names.get(score.player, GUEST_NAME % -score.player) for score in play.scores}
    signature = play_signature(play.game.slug, play.started_at, seats.values())
    if signature in history or (play.other_start is not None and play_signature(
            play.game.slug, play.other_start, seats.values()) in history):
        return Message("The group's history already has this play.")
    # (a play listing two players of one name has fewer names than seats: it is compared by names only)
    there = history.under_other_names(signature) if len(signature[2]) == len(seats) else None
    if there is None:
        return play
    others = frozenset(there.keys() - signature[2])  # the history's players whom the file names otherwise
    renamed = {ref: name for ref, name in seats.items() if name_key(name) not in there}
    points = {score.player: score.score for score in play.scores}
    for ref in renamed.keys() & names.keys():
        # of two renamed, the one with this player's points (where their points differ)
        evidence.append(([ref], frozenset(key for key in others if there[key] == points[ref]) or others))
    return Message("The group's history already has this play (the same game, start and number of "
                   "players), with %(names)s in place of %(bg_names)s.",
                   names=", ".join(sorted(history.names.get(key, key) for key in others)),
                   bg_names=", ".join(renamed.values()))


def suggested_mapping(bg_players: Mapping[int, str], group_players: Sequence[Player],
                      renamed: Mapping[int, str] | None = None) -> dict[int, int]:
    """Each BG Stats player → the group's player of the same name (as names compare), else the one the
    group's history has in their place (``renamed``, unless another one is that player), else a new player."""
    by_name = {name_key(player.name): player.id for player in group_players}
    mapping = {ref: by_name.get(name_key(name), NEW_PLAYER) for ref, name in bg_players.items()}
    for ref, name in (renamed or {}).items():
        target = by_name.get(name_key(name), NEW_PLAYER)
        if mapping.get(ref) == NEW_PLAYER and target not in mapping.values():
            mapping[ref] = target
    return mapping


@dataclass(frozen=True)
class ImportPlan:
    new_players: tuple[tuple[str, str], ...]  # (name, colour)
    plays: tuple[ImportedPlay, ...]
    duplicates: int = 0  # plays left out: the group's history already has them


def _free_colour(taken: Sequence[str], colours: Sequence[str]) -> str:
    return next((colour for colour in colours if colour not in taken), colours[len(taken) % len(colours)])


def plan_import(file: BgStatsFile, mapping: Mapping[int, int], group_players: Sequence[Player],
                colours: Sequence[str], in_history: Container[PlaySignature] = frozenset()) -> ImportPlan:
    """The new players and the plays to store; each anonymous seat a guest (Guest 1 …), the group's or new.
    Two BG Stats players of one name who never played together, both new, are one new player."""
    by_id = {player.id: player for player in group_players}
    taken_names = {name_key(player.name): player.name for player in group_players}
    names: dict[int, str] = {}
    colours_of: dict[str, str] = {name_key(player.name): player.colour for player in group_players}
    new_players: list[tuple[str, str]] = []
    new_by: dict[str, int] = {}  # a new player's name key → the BG Stats player who brings it in
    chosen_by: dict[int, int] = {}
    tables = [{score.player for score in play.scores} for play in file.plays]

    def add_player(ref: int, name: str) -> None:
        colour = _free_colour([c for _, c in new_players] + [p.colour for p in group_players], colours)
        new_players.append((name, colour))
        taken_names[name_key(name)] = names[ref] = name
        colours_of[name_key(name)] = colour

    for ref, bg_name in file.players.items():
        target = mapping.get(ref, NEW_PLAYER)
        if target == NEW_PLAYER:
            first = new_by.get(name_key(bg_name))
            if first is not None and any({first, ref} <= table for table in tables):
                raise BgStatsError("BG Stats has two players called %(name)s who played together: choose "
                                   "a player of the group for one of them.", name=bg_name)
            if first is not None:  # one person BG Stats lists twice (added on two phones): one new player
                names[ref] = names[first]
                continue
            if name_key(bg_name) in taken_names:
                raise BgStatsError("The group already has a player called %(name)s: choose them for "
                                   "%(bg_name)s, or rename one of them.",
                                   name=taken_names[name_key(bg_name)], bg_name=bg_name)
            add_player(ref, bg_name)
            new_by[name_key(bg_name)] = ref
        elif target in by_id:
            if target in chosen_by:
                raise BgStatsError("%(first)s and %(second)s would both become %(name)s; choose a different "
                                   "player for one of them.", first=file.players[chosen_by[target]],
                                   second=bg_name, name=by_id[target].name)
            chosen_by[target] = ref
            names[ref] = by_id[target].name
        else:
            raise BgStatsError("Choose a player of the group, or a new player, for %(name)s.", name=bg_name)
    guests = max((-score.player for play in file.plays for score in play.scores), default=0)
    for n in range(1, guests + 1):
        guest = GUEST_NAME % n
        own = taken_names.get(name_key(guest))
        if own is None:
            add_player(-n, guest)
        elif own in names.values():
            raise BgStatsError("%(name)s would be both a BG Stats player and a guest; rename one of them.",
                               name=guest)
        else:
            names[-n] = own  # the group's own guest of that name
    plays = [play for play in file.plays
             if play_signature(play.game.slug, play.started_at, [names[s.player] for s in play.scores])
             not in in_history]
    used = {name_key(names[score.player]) for play in plays for score in play.scores}
    return ImportPlan(tuple((name, colour) for name, colour in new_players if name_key(name) in used),
                      tuple(_stored_play(play, names, colours_of, colours) for play in plays),
                      len(file.plays) - len(plays))


def _note(play: ImportablePlay) -> str:
    """BG Stats' comments and place, as one text (the note keeps its first NOTE_MAX characters)."""
    return "\n".join(filter(None, (play.comments.strip(), f"@ {play.location}" if play.location else "")))


def shortened_notes(plays: Sequence[ImportablePlay]) -> list[ImportablePlay]:
    """The plays whose comments and place do not fit a note: the confirmation says so."""
    return [play for play in plays if len(_note(play)) > table_tools.NOTE_MAX]


def _options(play: ImportablePlay) -> dict[str, Any]:
    # BG Stats' comments and place become the note, its board the variant, its duration a stopped timer
    options = dict(play.game.options)
    if note := _note(play):
        options[table_tools.NOTE] = note[:table_tools.NOTE_MAX]
    if play.board:
        options[table_tools.VARIANT] = play.board
    if play.minutes:
        options[table_tools.TIMER] = table_tools.logged_timer(play.minutes * 60)
    return options


def _ranked(play: ImportablePlay, scores: Sequence[tuple[str, Mapping[str, int]]], source: Mapping[str, str]
            ) -> tuple[dict[str, Any], FinalResult]:
    """The final tally's payload and the play ranked by the game's rules, or by the group's sheet."""
    # BG Stats keeps no tie-breakers, but its winners tell how the table broke a tie where the rules break
    # one (Gold West)
    if play.game.sheet is None:
        payload = {"totals": [score.score for score in play.scores], **source}
        if winners := [seat for seat, score in enumerate(play.scores) if score.winner]:
            payload["winners"] = winners
        return payload, ranked_tally(play.game.slug, (custom.TOTAL_ROW,), scores, payload)
    # one of the group's own games: its sheet ranks (lowest wins, cooperative …)
    payload = {"breakdowns": [breakdown for _, breakdown in scores], **source,
               **({"won": play.won} if play.won is not None else {}),
               **({"teams": list(play.teams)} if play.teams is not None else {})}
    return payload, custom.rank_sheet(play.game.slug, play.game.sheet, scores, play.teams, play.won)


def other_winners(plays: Sequence[ImportablePlay]) -> list[ImportablePlay]:
    """The plays where BG Stats marks other winners than the points and rules rank first: the page says so."""
    differing = []
    for play in plays:
        marked = {seat for seat, score in enumerate(play.scores) if score.winner}
        if not marked or play.won is not None:  # nothing marked, or a cooperative game's outcome
            continue
        _, result = _ranked(play, [(str(seat), {custom.TOTAL_ROW: score.score})
                                   for seat, score in enumerate(play.scores)], {})
        if marked != {seat for seat, player in enumerate(result.players) if player.rank == 1}:
            differing.append(play)
    return differing


def _stored_play(play: ImportablePlay, names: Mapping[int, str], colours_of: Mapping[str, str],
                 colours: Sequence[str]) -> ImportedPlay:
    seat_names = [names[score.player] for score in play.scores]
    seat_colours: list[str] = []
    for name in seat_names:  # each player's own colour, unless someone at the table already has it
        own = colours_of[name_key(name)]
        seat_colours.append(own if own not in seat_colours else _free_colour(seat_colours, colours))
    scores = [(names[score.player], {custom.TOTAL_ROW: score.score}) for score in play.scores]
    payload, result = _ranked(play, scores, {"imported_from": SOURCE, KEY_FIELD: play.key})
    return ImportedPlay(
        game=play.game.slug, options=_options(play), counted=play.counted, started_at=play.started_at,
        ended_at=play.ended_at, seats=tuple(zip(seat_names, seat_colours, strict=True)),
        final_payload=payload, results=tuple(ResultInput(seat, player.total, player.rank, player.breakdown)
                                             for seat, player in enumerate(result.players)))


# What the importer reads of a play and of a player's score; the rest stays behind on confirming.
_PLAY_KEYS = ("uuid", "gameRefId", "playDate", "durationMin", "ignored", "incomplete", "comments",
              "playerScores", "locationRefId", "board")
_SCORE_KEYS = ("playerRefId", "score", "winner", "startPlayer", "seatOrder", "team")


def _slim(play: Mapping) -> dict[str, Any]:
    return {key: play[key] for key in _PLAY_KEYS if key in play} | {"playerScores": [
        {key: entry[key] for key in _SCORE_KEYS if key in entry} for entry in play.get("playerScores", [])]}


def carried(file: BgStatsFile) -> str:
    """The plays to import as a BG Stats export again: the confirmation form carries it to the import."""
    return json.dumps(file.document, ensure_ascii=False, separators=(",", ":"))
