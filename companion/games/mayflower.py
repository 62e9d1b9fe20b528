"""Carcassonne – Mayflower: settlers, surveyors, feature and final scoring (rules/mayflower.md)."""

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from companion.games import common
from companion.games.common import FinalResult, GameInfo, PlaySetup, RulesError, seat_index, whole_number
from companion.messages import Message, Term

GAME = GameInfo(slug="mayflower", name="Carcassonne – Mayflower", min_players=2, max_players=5,
                rows=("track", "roads", "cities", "farms", "plains"))

SETTLERS_PER_PLAYER = 5  # the sixth settler of a colour is its score marker
MAX_COLUMN = 95  # the game has 95 land tiles, so no column lies further west than that
TRACK_LENGTH = 50  # the score track runs 0–49, then a marker starts another lap ("50+")
LOWEST_SCORE: int | None = 0  # a score correction cannot take a marker off the start of the track
EVENT_KINDS: tuple[str, ...] = ("place", "west_edge", "complete")
# The entries that leave the map as it is (no tile laid, no settler or surveyor moved): a final tally
# entered before them still fits it. Setting the west edge only says where the map ends.
MAP_KEEPING_KINDS = frozenset({common.ADJUST, "west_edge"})
# How other apps name the game (BG Stats shows BoardGameGeek's names, English or German), with the
# options its plays start with; compared without case or punctuation.
KNOWN_AS: Mapping[str, Mapping[str, Any]] = {
    "carcassonne mayflower": {}, "new world a carcassonne game": {}, "neue welt ein carcassonne spiel": {}}
BGG_IDS: Mapping[int, Mapping[str, Any]] = {}  # recognised by name until the id is confirmed
SURVEYOR_BONUS = 4  # per surveyor in a scoring settler's column

ROLES = ("bandit", "sheriff", "trapper", "farmer")
COMPLETABLE_KINDS = ("road", "city", "farm")
FINAL_KINDS = ("road", "city", "farm", "plain")
# Which settler a feature holds: bandits on roads, sheriffs in cities, farmers on farms, trappers on plains.
ROLE_OF_KIND = {"road": "bandit", "city": "sheriff", "farm": "farmer", "plain": "trapper"}
KIND_OF_ROLE = {role: kind for kind, role in ROLE_OF_KIND.items()}
# The final scoring's breakdown row of each kind of feature.
ROW_OF_KIND = {"road": "roads", "city": "cities", "farm": "farms", "plain": "plains"}
# Roles the eviction sends home; trappers lie on plains and stay until the final scoring.
EVICTABLE_ROLES = frozenset({"bandit", "sheriff", "farmer"})

COMPLETED_FARM_VALUE = 9
SURVEYOR_NAMES = ("north", "south")
# What the final scoring asks about each kind of feature, and the range of each size.
FINAL_SIZES = {"road": ("tiles", "trading_posts"), "city": ("tiles", "flags"), "farm": ("neighbours",),
               "plain": ("animals",)}
SIZE_LIMITS = {"tiles": (1, MAX_COLUMN), "trading_posts": (0, MAX_COLUMN), "flags": (0, MAX_COLUMN),
               "neighbours": (0, 7), "animals": (0, 999)}
OPTIONAL_SIZES = frozenset({"trading_posts", "flags"})  # may be left out: a feature without any
# What a completed feature's value depends on: a farm is worth 9 whatever its size.
COMPLETED_SIZES = {"road": FINAL_SIZES["road"], "city": FINAL_SIZES["city"], "farm": ()}


def _wrong_role(settler_id: str, role: str, kind: str, path: str) -> RulesError:
    return RulesError("Settler %(id)s is a %(role)s; a %(kind)s holds %(roles)s only.", path, id=settler_id,
                      role=Term(role), kind=Term(kind), roles=Term(ROLE_OF_KIND[kind] + "s"))


@dataclass(frozen=True)
class Settler:
    """One settler on the map: its owner's seat (0-based), its role and the column of its tile."""

    id: str
    seat: int
    role: str
    column: int

    def __post_init__(self) -> None:
        if type(self.id) is not str or not self.id:
            raise RulesError("A settler needs a name to tell it apart from the others.", "id")
        if type(self.seat) is not int or self.seat < 0:
            raise RulesError("A settler must belong to one of the players.", "seat")
        if self.role not in ROLES:
            raise RulesError("A settler is a bandit, sheriff, trapper or farmer, not %(role)s.", "role",
                             role=repr(self.role))
        if type(self.column) is not int or not 1 <= self.column <= MAX_COLUMN:
            raise RulesError("A settler stands on a land tile: column 1 to %(max)d, not %(column)s (column 0 "
                             "is the coast).", "column", max=MAX_COLUMN, column=repr(self.column))


def check_settlers_held(held: int, name: str, path: str) -> None:
    """Refuse more settlers of one player on the map than the five they play with."""
    if held > SETTLERS_PER_PLAYER:
        raise RulesError("%(name)s has only %(settlers)d settlers; %(held)d cannot be on the map at once.",
                         path, name=name, settlers=SETTLERS_PER_PLAYER, held=held)


def road_value(tiles: int, trading_posts: int) -> int:
    """A road's value, completed or not: 1 per tile and 2 per trading post."""
    return tiles + 2 * trading_posts


def check_city_flags(tiles: int, flags: int, path: str = "flags") -> None:
    """Refuse a city with more flags than tiles: a flag is printed on a city tile, at most one on each."""
    if flags > tiles:
        raise RulesError("A city has at most one flag per tile, so no more flags than tiles: %(flags)d is "
                         "more than %(tiles)d.", path, tiles=tiles, flags=flags)


def check_settlers_on_tiles(kind: str, tiles: int, settlers: int, path: str = "settlers") -> None:
    """Refuse a road or city with more settlers than tiles: a settler goes only onto the tile just played."""
    if kind in ("road", "city") and settlers > tiles:
        raise RulesError("A %(kind)s holds at most one settler per tile (a settler goes only onto the tile "
                         "just played): %(settlers)d settlers need at least %(settlers)d tiles, not "
                         "%(tiles)d.", path, kind=Term(kind), settlers=settlers, tiles=tiles)


def check_one_farmer(kind: str, farmers: int, path: str = "settlers") -> None:
    """Refuse a farm with more than one farmer: a farm is one tile and takes no settler once it holds one."""
    if kind == "farm" and farmers > 1:
        raise RulesError("A farm is one tile and holds exactly one farmer, not %(farmers)d.", path,
                         farmers=farmers)


@dataclass(frozen=True)
class Surveyors:
    """The columns of the north and the south surveyor (0 = the coast), never more than one apart."""

    north: int = 0
    south: int = 0

    def __post_init__(self) -> None:
        for name in SURVEYOR_NAMES:
            column = getattr(self, name)
            if type(column) is not int or not 0 <= column <= MAX_COLUMN:
                raise RulesError("The %(name)s surveyor stands in a column from 0 (the coast) to %(max)d.",
                                 name, name=Term(name), max=MAX_COLUMN)
        if abs(self.north - self.south) > 1:
            raise RulesError("The surveyors stand in columns %(north)s and %(south)s, but they are never "
                             "more than one column apart.", "surveyors", north=self.north, south=self.south)

    @property
    def eastmost(self) -> int:
        """The column nearer the coast; everything east of it is east of both surveyors."""
        return min(self.north, self.south)

    def as_list(self) -> list[int]:
        return [self.north, self.south]


@dataclass(frozen=True)
class CompletedFeature:
    """A road, city or farm completed during play, with what its value depends on."""

    kind: str
    tiles: int = 0
    trading_posts: int = 0
    flags: int = 0

    def __post_init__(self) -> None:
        if self.kind not in COMPLETABLE_KINDS:
            raise RulesError("A completed feature is a road, a city or a farm, not %(kind)s.", "kind",
                             kind=repr(self.kind))
        for name in ("tiles", "trading_posts", "flags"):
            whole_number(getattr(self, name), name, 0, MAX_COLUMN, Term(name))
        if self.kind != "farm" and self.tiles < 1:
            raise RulesError("A completed %(kind)s has at least one tile.", "tiles", kind=Term(self.kind))
        if self.kind != "road" and self.trading_posts:
            raise RulesError("Only roads have trading posts.", "trading_posts")
        if self.kind != "city" and self.flags:
            raise RulesError("Flags are for cities: a %(kind)s has none.", "flags", kind=Term(self.kind))
        if self.kind == "farm" and self.tiles:
            raise RulesError("A farm is worth 9 whatever its size; give it no tile count.", "tiles")
        check_city_flags(self.tiles, self.flags)  # only a city has flags, checked above

    @property
    def value(self) -> int:
        """Points for each player with the majority: road 1/tile + 2/post, city 2/tile + 2/flag, farm 9."""
        if self.kind == "road":
            return road_value(self.tiles, self.trading_posts)
        if self.kind == "city":
            return 2 * self.tiles + 2 * self.flags
        return COMPLETED_FARM_VALUE


@dataclass(frozen=True)
class FeatureScoring:
    """What scoring one completed feature did: points, bonuses, settlers sent home, the surveyor move."""

    feature: CompletedFeature
    scored: bool
    points: tuple[int, ...]  # per seat, the bonus included
    bonus: tuple[int, ...]
    returned: tuple[str, ...]  # ids of the feature's own settlers
    evicted: tuple[str, ...]  # ids of the other settlers the eviction sent home
    surveyors: Surveyors  # after the move
    moved: bool
    moved_surveyor: str | None  # "north", "south" or None
    surveyors_before: Surveyors = field(default_factory=Surveyors)  # the positions the bonus used
    settler_bonus: tuple[int, ...] = ()  # what each settler of ``returned`` earned from the surveyors
    scorers: tuple[int, ...] = ()  # the seats with the majority


def majority(counts: Mapping[int, int]) -> frozenset[int]:
    """The seats with the most settlers on a feature, from settlers per seat; tied seats all count."""
    most = max(counts.values(), default=0)
    return frozenset(seat for seat, number in counts.items() if number == most and number > 0)


def move_surveyor(surveyors: Surveyors, west_edge: int | None) -> tuple[Surveyors, str | None]:
    """Move the surveyor nearer the coast a column west, else the north one unless at ``west_edge``."""
    if surveyors.south < surveyors.north:
        return Surveyors(surveyors.north, surveyors.south + 1), "south"
    # No column lies beyond the last of the 95 tiles, even when the table did not say where the edge is.
    if surveyors.north == surveyors.south >= (MAX_COLUMN if west_edge is None else west_edge):
        return surveyors, None
    return Surveyors(surveyors.north + 1, surveyors.south), "north"


def evict_east_of_surveyors(settlers: Sequence[Settler], surveyors: Surveyors) -> tuple[Settler, ...]:
    """The bandits, sheriffs and farmers east of both surveyors, in the given order; trappers stay."""
    return tuple(s for s in settlers if s.column < surveyors.eastmost and s.role in EVICTABLE_ROLES)


def score_completed_feature(feature: CompletedFeature, on_feature: Sequence[Settler],
                            elsewhere: Sequence[Settler], surveyors: Surveyors, west_edge: int | None,
                            seat_count: int) -> FeatureScoring:
    """Score one completed feature: majority, value, surveyor bonus, return, surveyor move, eviction."""
    for settler in (*on_feature, *elsewhere):
        if settler.seat >= seat_count:
            raise RulesError("Settler %(id)s belongs to seat %(seat)d, but only %(players)d players are at "
                             "the table.", "seat", id=settler.id, seat=settler.seat + 1, players=seat_count)
    for settler in on_feature:
        if settler.role != ROLE_OF_KIND[feature.kind]:
            raise _wrong_role(settler.id, settler.role, feature.kind, "role")
    check_one_farmer(feature.kind, len(on_feature))
    check_settlers_on_tiles(feature.kind, feature.tiles, len(on_feature))
    scorers = majority(Counter(settler.seat for settler in on_feature))
    bonus, settler_bonus = [0] * seat_count, []
    for settler in on_feature:
        # Positions before this feature's move count for the bonus; only the majority earns it.
        earned = SURVEYOR_BONUS * surveyors.as_list().count(settler.column) if settler.seat in scorers else 0
        bonus[settler.seat] += earned
        settler_bonus.append(earned)
    # A feature without settlers scores nothing, moves no surveyor and evicts nobody.
    moved_to, mover = move_surveyor(surveyors, west_edge) if on_feature else (surveyors, None)
    evicted = evict_east_of_surveyors(elsewhere, moved_to) if on_feature else ()
    return FeatureScoring(
        feature=feature, scored=bool(on_feature), bonus=tuple(bonus),
        points=tuple(b + (feature.value if seat in scorers else 0) for seat, b in enumerate(bonus)),
        returned=tuple(s.id for s in on_feature), evicted=tuple(s.id for s in evicted), surveyors=moved_to,
        moved=mover is not None, moved_surveyor=mover, surveyors_before=surveyors,
        settler_bonus=tuple(settler_bonus), scorers=tuple(sorted(scorers)))


@dataclass(frozen=True)
class TileScoring:
    """Every feature one tile completed, scored in the chosen order, and the map afterwards."""

    scorings: tuple[FeatureScoring, ...]
    settlers: tuple[Settler, ...]  # still on the map, in their earlier order
    surveyors: Surveyors

    @property
    def points(self) -> tuple[int, ...]:
        return _points(self.scorings)


def _points(scorings: Sequence[FeatureScoring]) -> tuple[int, ...]:
    return tuple(map(sum, zip(*(s.points for s in scorings), strict=True)))


def score_tile_completions(completions: Sequence[tuple[CompletedFeature, Sequence[str]]],
                           settlers: Sequence[Settler], surveyors: Surveyors, west_edge: int | None,
                           seat_count: int) -> TileScoring:
    """Score a tile's features in order: a later one sees the moved surveyors, not the settlers evicted."""
    by_id = {settler.id: settler for settler in settlers}
    if len(by_id) != len(settlers):
        raise RulesError("Two settlers on the map share an id.", "settlers")
    claimed: dict[str, int] = {}
    for index, (_, ids) in enumerate(completions):
        where = f"features[{index}].settlers"
        for settler_id in ids:
            if settler_id not in by_id:
                raise RulesError("Settler %(id)s is not on the map.", where, id=settler_id)
            if claimed.get(settler_id) == index:
                raise RulesError("Settler %(id)s is listed twice.", where, id=settler_id)
            if settler_id in claimed:
                raise RulesError("Settler %(id)s cannot stand on two features.", where, id=settler_id)
            claimed[settler_id] = index
    remaining = tuple(settlers)
    scorings = []
    for feature, ids in completions:
        on_feature = [by_id[i] for i in ids if by_id[i] in remaining]
        elsewhere = [s for s in remaining if s.id not in ids]
        scoring = score_completed_feature(feature, on_feature, elsewhere, surveyors, west_edge, seat_count)
        scorings.append(scoring)
        if scoring.scored:
            remaining = tuple(s for s in elsewhere if s.id not in scoring.evicted)
            surveyors = scoring.surveyors
    return TileScoring(scorings=tuple(scorings), settlers=remaining, surveyors=surveyors)


# --- the final scoring ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class FinalFeature:
    """An incomplete road, city or farm, or a plain, at the end of the game, with its settlers per seat."""

    kind: str
    settlers: Mapping[int, int]  # seat → settlers of that seat on the feature
    tiles: int = 0
    trading_posts: int = 0
    flags: int = 0
    neighbours: int = 0
    animals: int = 0

    def __post_init__(self) -> None:
        if self.kind not in FINAL_KINDS:
            raise RulesError("A feature is a road, city, farm or plain, not %(kind)s.", "kind",
                             kind=repr(self.kind))
        if not isinstance(self.settlers, Mapping) or not self.settlers:
            raise RulesError("A feature scores only when a settler stands on it.", "settlers")
        for seat, number in self.settlers.items():
            if type(seat) is not int or seat < 0:
                raise RulesError("Settlers must belong to one of the players.", "settlers")
            if type(number) is not int or not 1 <= number <= SETTLERS_PER_PLAYER:
                raise RulesError("A player has 1 to %(most)d settlers on a feature.", "settlers",
                                 most=SETTLERS_PER_PLAYER)
        for name, (_, most) in SIZE_LIMITS.items():
            whole_number(getattr(self, name), name, 0, most, Term(name))
        if self.kind in ("road", "city") and self.tiles < 1:
            raise RulesError("A %(kind)s has at least one tile.", "tiles", kind=Term(self.kind))
        wrong = [name for name in SIZE_LIMITS if getattr(self, name) and name not in FINAL_SIZES[self.kind]]
        if wrong == ["flags"]:
            raise RulesError("Flags are for cities: a %(kind)s has none.", "flags", kind=Term(self.kind))
        if wrong:
            raise RulesError("A %(kind)s has no %(size)s.", wrong[0], kind=Term(self.kind),
                             size=Term(wrong[0].replace("_", " ")))
        check_city_flags(self.tiles, self.flags)  # only a city has flags, checked above
        check_one_farmer(self.kind, sum(self.settlers.values()))
        check_settlers_on_tiles(self.kind, self.tiles, sum(self.settlers.values()), "tiles")

    @property
    def value(self) -> int:
        """Points for each player with the most settlers on it at the end of the game."""
        if self.kind == "road":
            return road_value(self.tiles, self.trading_posts)
        if self.kind == "city":
            return self.tiles + self.flags
        if self.kind == "farm":
            return 1 + self.neighbours  # the farm tile itself and each filled space around it
        return self.animals


def final_result(players: Sequence[str], track_vp: Sequence[int],
                 features: Sequence[FinalFeature]) -> FinalResult:
    """Track points plus unfinished features and plains, ranked; majorities without surveyor bonus."""
    seat_count = len(players)
    if len(track_vp) != seat_count:
        raise RulesError("Give the track points of all %(players)d players.", "track_vp", players=seat_count)
    for index, points in enumerate(track_vp):
        if type(points) is not int or not 0 <= points <= 999:
            raise RulesError("Points on the track are a whole number from 0 to 999.", f"track_vp[{index}]")
    rows = [{"track": points, "roads": 0, "cities": 0, "farms": 0, "plains": 0} for points in track_vp]
    used = [0] * seat_count
    for index, feature in enumerate(features):
        for seat, number in feature.settlers.items():
            if seat >= seat_count:
                raise RulesError("Feature %(number)d names a player who is not at the table.",
                                 f"features[{index}].settlers", number=index + 1)
            used[seat] += number
            check_settlers_held(used[seat], players[seat], f"features[{index}].settlers")
        for seat in majority(feature.settlers):
            rows[seat][ROW_OF_KIND[feature.kind]] += feature.value
    return common.rank_players(GAME.slug, GAME.rows, list(zip(players, rows, strict=True)))


# --- the live table: state folded from the play's events ------------------------------------------------
@dataclass(frozen=True)
class PlayState:
    """Where the settlers and surveyors stand, how far west the map reaches and the running scores."""

    seat_count: int
    settlers: tuple[Settler, ...] = ()  # on the map, in the order they were placed
    surveyors: Surveyors = field(default_factory=Surveyors)
    west_edge: int = 0  # westernmost column known to hold a tile; 0 while only the coast is there
    map_ends: bool = False  # the players said no tile lies west of west_edge (else tiles may lie further)
    # a tile laid without a settler since may lie further west: a new scoring asks again (a stored one not)
    laid_since_map_end: bool = False
    scores: tuple[int, ...] = ()
    last_scoring: tuple[FeatureScoring, ...] = ()  # one report per feature of the last completion
    placed: tuple[Settler, ...] = ()  # every settler ever put on the map: ids and the reports need them
    names: tuple[str, ...] = ()  # the players in seat order, for messages
    last_turn: int | None = None  # the seat whose turn was the last one (a settler placed or none)
    last_kind: str = ""  # the kind of the last event

    @property
    def map_end_known(self) -> bool:
        """Whether the table said where the map ends, and no tile laid since may have moved it."""
        return self.map_ends and not self.laid_since_map_end

    def name(self, seat: int) -> str:
        return self.names[seat] if seat < len(self.names) else Message("Player %(number)d", number=seat + 1)

    def on_map(self, seat: int) -> tuple[Settler, ...]:
        return tuple(s for s in self.settlers if s.seat == seat)

    def in_supply(self, seat: int) -> int:
        return SETTLERS_PER_PLAYER - sum(s.seat == seat for s in self.settlers)

    def settler(self, settler_id: str) -> Settler:
        """The settler with that id, on the map or sent home since."""
        for settler in self.placed:
            if settler.id == settler_id:
                return settler
        raise RulesError("No settler %(id)s was ever placed.", "settlers", id=settler_id)


def initial_state(setup: PlaySetup) -> PlayState:
    """The table before the first tile: every settler in its owner's supply, both surveyors on the coast."""
    seat_count = len(setup.seats)
    if not GAME.min_players <= seat_count <= GAME.max_players:
        raise RulesError("Carcassonne – Mayflower is played by %(fewest)d to %(most)d players, "
                         "not %(count)d.", "seats", fewest=GAME.min_players, most=GAME.max_players,
                         count=seat_count)
    return PlayState(seat_count=seat_count, scores=(0,) * seat_count,
                      names=tuple(seat.name for seat in setup.seats))


def running_scores(state: PlayState) -> tuple[int, ...]:
    return state.scores


def score_laps(score: int) -> tuple[int, int]:
    """Where a score sits on the 0–49 track: ``(laps, position)``; 57 → (1, 7), shown as "50+" and 7."""
    if type(score) is not int or score < 0:
        raise RulesError("A score on the track is a whole number of at least 0.", "score")
    return divmod(score, TRACK_LENGTH)


def apply_event(state: PlayState, kind: str, payload: Mapping[str, Any]) -> PlayState:
    """The table after one event (score corrections are the generic table's); RulesError where it refuses."""
    if not isinstance(payload, Mapping):
        raise RulesError("An event's details must be named values (a JSON object).")
    handler = _EVENT_HANDLERS.get(kind) if type(kind) is str else None
    if handler is None:
        raise RulesError("Carcassonne – Mayflower knows no event %(kind)s.", "kind", kind=repr(kind))
    return replace(handler(state, payload), last_kind=kind)


def _only_keys(payload: Mapping[str, Any], allowed: tuple[str, ...], where: str = "") -> None:
    """Refuse a field the event does not record, so a typo is not silently ignored."""
    for key in payload:
        if key not in allowed:
            raise RulesError("%(key)s is not something this event records; it takes %(fields)s.",
                             f"{where}{key}" if type(key) is str else where, key=repr(key),
                             fields=", ".join(allowed))


# How the sentences name the numbers the events give.
_WEST_EDGE = Message("The westernmost column of the map")
_COMPLETED_SIZES = {("road", "tiles"): Message("A road's tiles"),
                    ("road", "trading_posts"): Message("A road's trading posts"),
                    ("city", "tiles"): Message("A city's tiles"),
                    ("city", "flags"): Message("A city's flags")}


def _place(state: PlayState, payload: Mapping[str, Any]) -> PlayState:
    """A settler from a player's supply onto the tile just placed."""
    _only_keys(payload, ("seat", "role", "column"))
    seat = seat_index(payload, state.seat_count)
    role = payload.get("role")
    if role not in ROLES:
        raise RulesError("A settler goes onto the map as a bandit, sheriff, trapper or farmer.", "role")
    column = payload.get("column")
    if type(column) is not int:
        raise RulesError("Say in which column (1 = next to the coast) the settler stands.", "column")
    if column < 1:
        raise RulesError("Settlers stand on land tiles: column 1 is the first one west of the coast.",
                         "column")
    # Tiles laid without a settler are never entered, so any column of the map may be the tile's.
    if column > MAX_COLUMN:
        raise RulesError("Column %(column)d lies beyond the map: it has %(max)d land tiles.", "column",
                         column=column, max=MAX_COLUMN)
    check_settlers_held(len(state.on_map(seat)) + 1, state.name(seat), "seat")
    number = 1 + sum(s.seat == seat for s in state.placed)
    settler = Settler(id=f"{seat}-{number}", seat=seat, role=role, column=column)
    # A tile west of the edge the players set moves the edge: the map did not end there after all.
    return replace(state, settlers=(*state.settlers, settler), placed=(*state.placed, settler),
                   west_edge=max(state.west_edge, column),
                   map_ends=state.map_ends and column <= state.west_edge, last_turn=seat)


def _west_edge(state: PlayState, payload: Mapping[str, Any]) -> PlayState:
    """Where the map ends in the west, as the players set it: no tile lies west of that column (yet)."""
    _only_keys(payload, ("column",))
    column = whole_number(payload.get("column"), "column", 0, MAX_COLUMN, _WEST_EDGE)
    needed = max([state.surveyors.north, state.surveyors.south, *(s.column for s in state.settlers)])
    if column < needed:
        raise RulesError("Tiles lie at least as far west as column %(column)d, where a settler or surveyor "
                         "stands.", "column", column=needed)
    return replace(state, west_edge=column, map_ends=True, laid_since_map_end=False)


def _completion(payload: Any, index: int, on_map: Sequence[Settler]) -> tuple[CompletedFeature, list[str]]:
    """One feature of a ``complete`` event, with the ids of its settlers, checked against the map."""
    where = f"features[{index}]."
    if not isinstance(payload, Mapping):
        raise RulesError("Each completed feature needs its kind, size and settlers.", f"features[{index}]")
    kind = payload.get("kind")
    if kind not in COMPLETABLE_KINDS:
        raise RulesError("A completed feature is a road, a city or a farm.", f"{where}kind")
    names = COMPLETED_SIZES[kind]
    _only_keys(payload, ("kind", *names, "settlers"), where)
    sizes = {name: whole_number(payload.get(name, 0 if name in OPTIONAL_SIZES else None), f"{where}{name}",
                                *SIZE_LIMITS[name], _COMPLETED_SIZES[kind, name]) for name in names}
    if kind == "city":
        check_city_flags(sizes["tiles"], sizes["flags"], f"{where}flags")
    ids = payload.get("settlers", [])
    if not isinstance(ids, list) or len(ids) > SETTLERS_PER_PLAYER * GAME.max_players:
        raise RulesError("List the ids of the settlers on the feature.", f"{where}settlers")
    for position, settler_id in enumerate(ids):
        settler = next((s for s in on_map if s.id == settler_id), None)
        if settler is None:
            raise RulesError("Settler %(id)s is not on the map.", f"{where}settlers[{position}]",
                             id=repr(settler_id))
        if settler.role != ROLE_OF_KIND[kind]:
            raise _wrong_role(settler_id, settler.role, kind, f"{where}settlers[{position}]")
    check_one_farmer(kind, len(ids), f"{where}settlers")
    check_settlers_on_tiles(kind, sizes.get("tiles", 0), len(ids), f"{where}tiles")
    return CompletedFeature(kind=kind, **sizes), ids


def _complete(state: PlayState, payload: Mapping[str, Any]) -> PlayState:
    """Score the features one tile completed, in the order given, and add the points to the track."""
    _only_keys(payload, ("features", "west_of"))
    state = answer_west_questions(state, payload.get("west_of", []))
    features = payload.get("features")
    if not isinstance(features, list) or not features:
        raise RulesError("Name the features the tile completed, in the order they are scored.", "features")
    if len(features) > 16:
        raise RulesError("One tile completes at most 16 features.", "features")
    completions = [_completion(item, index, state.settlers) for index, item in enumerate(features)]
    # Unless the players set the west edge, tiles without settlers may lie west of any settler.
    edge = state.west_edge if state.map_ends else None
    result = score_tile_completions(completions, state.settlers, state.surveyors, edge, state.seat_count)
    # A surveyor that moved west found a tile there: the map reaches at least its column.
    west_edge = max(state.west_edge, result.surveyors.north, result.surveyors.south)
    return replace(state, settlers=result.settlers, surveyors=result.surveyors, west_edge=west_edge,
                   scores=tuple(a + b for a, b in zip(state.scores, result.points, strict=True)),
                   last_scoring=result.scorings)


def next_turn(state: PlayState) -> int:
    """Whose turn it is: the seat after the last turn, a settler placed or none (the first seat to start)."""
    return 0 if state.last_turn is None else (state.last_turn + 1) % state.seat_count


# --- what the play screen shows ------------------------------------------------------------------------
@dataclass(frozen=True)
class TrackMark:
    """A running score as the track shows it: ``laps`` round the 50 spaces, then the ``position`` 0–49."""

    score: int
    laps: int
    position: int


def track_marks(scores: Sequence[int]) -> tuple[TrackMark, ...]:
    """Where each score's marker stands on the track; a score corrected below 0 is kept as it is."""
    return tuple(TrackMark(score, *(score_laps(score) if score >= 0 else (0, score))) for score in scores)


# --- the final tally at the table ----------------------------------------------------------------------
FEATURE_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXY"  # one per settler: five players with five settlers each
_SIZE_WORDS = {"tiles": "tiles", "trading_posts": "trading posts", "flags": "flags",
               "neighbours": "filled spaces around it", "animals": "animals"}


@dataclass(frozen=True)
class FinalSlot:
    """A settler still on the map at the end, its kind of feature and its own letter (until shared)."""

    settler: Settler
    kind: str
    letter: str


def final_slots(state: PlayState) -> tuple[FinalSlot, ...]:
    """The settlers the final scoring settles: roads, cities, farms, plains; west to east, then by seat."""
    on_features = sorted(state.settlers, key=lambda s: (FINAL_KINDS.index(KIND_OF_ROLE[s.role]), -s.column,
                                                        s.seat, s.id))
    return tuple(FinalSlot(s, KIND_OF_ROLE[s.role], FEATURE_LETTERS[n]) for n, s in enumerate(on_features))


@dataclass(frozen=True)
class SettledFeature:
    """A feature of the final scoring: its letter, its size and value, and the settlers on it."""

    letter: str
    feature: FinalFeature
    settlers: tuple[Settler, ...]


@dataclass(frozen=True)
class FinalTally:
    """The final scoring of a play at the table: the features as entered and the ranked result."""

    track_vp: tuple[int, ...]
    features: tuple[SettledFeature, ...]
    result: FinalResult

    def payload(self) -> dict[str, Any]:
        """Everything the tally was computed from, as JSON: the track and each feature with its settlers."""
        return {"track_vp": list(self.track_vp), "features": [
            {"letter": settled.letter, "kind": settled.feature.kind,
             **{name: getattr(settled.feature, name) for name in FINAL_SIZES[settled.feature.kind]},
             "settlers": [asdict(settler) for settler in settled.settlers]}
            for settled in self.features]}


def check_final_tally(state: PlayState, final_payload: Mapping[str, Any], names: Sequence[str]) -> None:
    """Score a stored final tally (:meth:`FinalTally.payload`) again: what an imported play must pass."""
    payload = final_payload if isinstance(final_payload, Mapping) else {}
    track_vp, features = payload.get("track_vp"), payload.get("features")
    if not isinstance(track_vp, list) or not isinstance(features, list):
        raise RulesError("A final tally lists the track points and the features.", "features")
    settled = []
    for index, item in enumerate(features):
        if not isinstance(item, Mapping) or not isinstance(item.get("settlers"), list):
            raise RulesError("Each feature of a final tally lists its settlers.", f"features[{index}]")
        seats = [settler.get("seat") if isinstance(settler, Mapping) else None
                 for settler in item["settlers"]]
        if any(type(seat) is not int for seat in seats):
            raise RulesError("Settlers must belong to one of the players.", f"features[{index}].settlers")
        sizes = {name: item[name] for name in FINAL_SIZES.get(item.get("kind"), ()) if name in item}
        try:
            settled.append(FinalFeature(item.get("kind"), dict(Counter(seats)), **sizes))
        except RulesError as error:
            raise RulesError(error.message, f"features[{index}].{error.path}") from None
    final_result(names, track_vp, settled)


# A tie shares the victory.
final_tie_breakers = check_corrected_tally = check_typed_totals = common.no_tie_breakers
totals_tie_breakers = common.nothing_asked_for_ties


def described(settler: Settler, players: Sequence[str]) -> Message:
    """``Anna's bandit in column 3``."""
    return Message("%(name)s's %(role)s in column %(column)d", name=players[settler.seat],
                   role=Term(settler.role), column=settler.column)


def settle_final_tally(players: Sequence[str], track_vp: Sequence[int], slots: Sequence[FinalSlot],
                       assignment: Mapping[str, object],
                       sizes: Mapping[str, Mapping[str, object]]) -> FinalTally:
    """The final scoring from each settler's letter (``assignment``) and each letter's FINAL_SIZES."""
    kind_of = {slot.letter: slot.kind for slot in slots}
    on_letter: dict[str, list[Settler]] = {}
    for slot in slots:
        settler = slot.settler
        where = f"assignment.{settler.id}"
        if not 0 <= settler.seat < len(players):
            raise RulesError("Settler %(id)s belongs to no player at the table.", where, id=settler.id)
        letter = assignment.get(settler.id)
        if type(letter) is not str or letter not in kind_of:
            raise RulesError("Pick the feature %(settler)s stands on.", where,
                             settler=described(settler, players))
        if kind_of[letter] != slot.kind:
            raise RulesError("Feature %(letter)s is a %(kind)s, and a %(kind)s holds %(roles)s only: "
                             "%(settler)s cannot be on it. Pick the letter of a %(other)s.", where,
                             letter=letter, kind=Term(kind_of[letter]),
                             roles=Term(ROLE_OF_KIND[kind_of[letter]] + "s"),
                             settler=described(settler, players), other=Term(slot.kind))
        on_letter.setdefault(letter, []).append(settler)
    settled = []
    for letter in sorted(on_letter, key=FEATURE_LETTERS.index):
        kind = kind_of[letter]
        values = {}
        for name in FINAL_SIZES[kind]:
            value = sizes.get(letter, {}).get(name, 0 if name in OPTIONAL_SIZES else None)
            low, high = SIZE_LIMITS[name]
            if type(value) is not int or not low <= value <= high:
                raise RulesError("Give the %(size)s of %(kind)s %(letter)s: a whole number from %(low)d to "
                                 "%(high)d.", f"sizes.{letter}.{name}", size=Term(_SIZE_WORDS[name]),
                                 kind=Term(kind), letter=letter, low=low, high=high)
            values[name] = value
        if kind == "city":
            check_city_flags(values["tiles"], values["flags"], f"sizes.{letter}.flags")
        check_one_farmer(kind, len(on_letter[letter]), f"assignment.{on_letter[letter][-1].id}")
        check_settlers_on_tiles(kind, values.get("tiles", 0), len(on_letter[letter]), f"sizes.{letter}.tiles")
        counts = dict(Counter(settler.seat for settler in on_letter[letter]))
        settled.append(SettledFeature(letter, FinalFeature(kind, counts, **values), tuple(on_letter[letter])))
    result = final_result(players, track_vp, [item.feature for item in settled])
    return FinalTally(tuple(track_vp), tuple(settled), result)


# --- what the table is asked instead of guessed: whose turn, and whether tiles lie further west ---------
NO_SETTLER = "no_settler"
TURN_EVENTS = frozenset({"place", NO_SETTLER})  # the events that end a player's turn
WEST_ANSWERS_MAX = 4  # one tile moves the surveyors at most a few columns: a question per column


def no_settler(state: PlayState, payload: Mapping[str, Any]) -> PlayState:
    """A player laid a tile without a settler: nothing is scored, the turn passes to the next player."""
    _only_keys(payload, ("seat",))
    # its tile, in a column nobody entered, may lie west of where the table said the map ends
    return replace(state, last_turn=seat_index(payload, state.seat_count), laid_since_map_end=state.map_ends)


class WestQuestion(RulesError):
    """A scoring whose surveyor move needs to know whether a tile lies west of ``column``."""

    def __init__(self, column: int) -> None:
        super().__init__(Message("Is there a tile west of column %(column)d? The surveyor move depends on "
                                 "it: answer it to score.", column=column), "west_of")
        self.column = column


def answer_west_questions(state: PlayState, answers: object) -> PlayState:
    """The table knowing the answers (``[{"column": 3, "tile": true}, …]``): a tile west of a column extends
    the map as a placement there would; none ends the map at it."""
    if not isinstance(answers, list) or len(answers) > WEST_ANSWERS_MAX:
        raise RulesError("Answer whether a tile lies west of the surveyors' column.", "west_of")
    for index, answer in enumerate(answers):
        where = f"west_of[{index}]"
        if not isinstance(answer, Mapping) or type(answer.get("tile")) is not bool:
            raise RulesError("Answer yes or no: is there a tile west of the column?", where)
        _only_keys(answer, ("column", "tile"), f"{where}.")
        column = whole_number(answer.get("column"), f"{where}.column", 0, MAX_COLUMN - 1, _WEST_EDGE)
        if answer["tile"]:
            state = replace(state, west_edge=max(state.west_edge, column + 1),
                            map_ends=state.map_ends and column + 1 <= state.west_edge)
        else:
            try:
                state = _west_edge(state, {"column": column})
            except RulesError as error:
                raise RulesError(error.message, f"{where}.column") from None
    return state


def west_question(state: PlayState, payload: Mapping[str, Any]) -> int | None:
    """The column whose "is there a tile west of it?" an accepted ``complete`` event needs answered, or None:
    the first where a scored feature finds both surveyors with no known tile west of them and no map end
    said since the tile was laid."""
    answers = payload.get("west_of", [])
    state = answer_west_questions(state, answers)
    # A map end holds for the tiles on the table when it was said. Said before this entry's tile was laid,
    # it misses that tile when the table scores before entering it (No settler): only a map end said
    # just before the scoring, or in its answers, speaks for the scored tile.
    said_for_this_tile = state.last_kind == "west_edge" or any(not answer["tile"] for answer in answers)
    if state.map_end_known and said_for_this_tile:
        return None
    completions = [_completion(item, index, state.settlers) for index, item in enumerate(payload["features"])]
    # Scored with the edge at the westernmost known tile: exact up to the first move that needs more.
    scored = score_tile_completions(completions, state.settlers, state.surveyors, state.west_edge,
                                    state.seat_count)
    before = [s.surveyors_before for s in scored.scorings if s.scored]
    return next((at.north for at in before if at.north == at.south >= state.west_edge), None)


def preview_completion(state: PlayState, payload: Mapping[str, Any]
                       ) -> tuple[tuple[FeatureScoring, ...], tuple[int, ...], int | None]:
    """A ``complete`` event's scorings, points per seat and west question (a column, or None); with one
    open, up to the feature whose move waits on it (its evictions do not: the eastmost column stays)."""
    scorings = apply_event(state, "complete", payload).last_scoring
    column = west_question(state, payload)
    if column is not None:
        asks = [s.scored and s.surveyors_before.north == s.surveyors_before.south == column for s in scorings]
        scorings = scorings[:asks.index(True) + 1]
    return scorings, _points(scorings), column


def next_evictions(state: PlayState) -> tuple[Settler, ...]:
    """The settlers the next scored feature's eviction sends home, whatever feature and map it finds."""
    return evict_east_of_surveyors(state.settlers, move_surveyor(state.surveyors, None)[0])


def check_entry(state: PlayState, kind: str, payload: Mapping[str, Any]) -> None:
    """Refuse an entry apply_event accepts that ends the map east of a known tile, or that needs an answer
    first (not on replay: what was stored before these checks keeps what it scored)."""
    if kind == "west_edge":
        _check_map_end(state, payload["column"], "column")
    if kind != "complete":
        return
    for index, answer in enumerate(payload.get("west_of", [])):
        if not answer["tile"]:
            _check_map_end(state, answer["column"], f"west_of[{index}].column")
    if (column := west_question(state, payload)) is not None:
        raise WestQuestion(column)


def _check_map_end(state: PlayState, column: int, path: str) -> None:
    """Refuse a map end east of a settler, gone home since or not: its tile is still there."""
    stood = max((settler.column for settler in state.placed), default=0)
    if column < stood:
        raise RulesError("Tiles lie at least as far west as column %(column)d, where a settler stood.", path,
                         column=stood)


def turns_taken(events: Sequence[tuple[str, Mapping[str, Any]]]) -> list[int]:
    """The seats whose turns ``events`` (those since a phone drew its page) ended, in order."""
    return [payload["seat"] for kind, payload in events
            if kind in TURN_EVENTS and isinstance(payload, Mapping) and type(payload.get("seat")) is int]


def turn_taken_since(events: Sequence[tuple[str, Mapping[str, Any]]]) -> int | None:
    return (turns_taken(events) or [None])[-1]


_EVENT_HANDLERS = {"place": _place, "west_edge": _west_edge, "complete": _complete, NO_SETTLER: no_settler}


# --- the final tally as the table taps it: one feature at a time -----------------------------------------
# What a size starts at on the tally screen: a road or city has a tile; everything else may be none.
FINAL_PRESETS = {"tiles": 1, "trading_posts": 0, "flags": 0, "neighbours": 0, "animals": 0}


def settle_final_features(players: Sequence[str], track_vp: Sequence[int], slots: Sequence[FinalSlot],
                          features: Sequence[Mapping[str, Any]]) -> FinalTally:
    """The final scoring from the unfinished features as tapped: ``{"settlers": ["0-3", …], "tiles": 3, …}``
    (a missing size is its FINAL_PRESETS value); every settler of ``slots`` stands on exactly one."""
    slot_of = {slot.settler.id: slot for slot in slots}
    assignment: dict[str, str] = {}
    sizes: dict[str, dict[str, int]] = {}
    index_of: dict[str, int] = {}
    for index, feature in enumerate(features):
        where = f"features[{index}]"
        ids = feature.get("settlers") if isinstance(feature, Mapping) else None
        if not isinstance(ids, list) or not ids:
            raise RulesError("Tap the settlers on feature %(number)d.", where, number=index + 1)
        for settler_id in ids:
            slot = slot_of.get(settler_id) if type(settler_id) is str else None
            if slot is None:
                raise RulesError("Settler %(id)s is not on the map.", where, id=repr(settler_id))
            if settler_id in assignment:
                raise RulesError("%(settler)s is on two features; a settler stands on one.", where,
                                 settler=described(slot.settler, players))
            first = slot_of[ids[0]]
            if slot.kind != first.kind:
                raise RulesError("%(one)s and %(other)s cannot share a feature: a %(kind)s holds %(roles)s "
                                 "only.", where, one=described(first.settler, players),
                                 other=described(slot.settler, players), kind=Term(first.kind),
                                 roles=Term(ROLE_OF_KIND[first.kind] + "s"))
        # the feature keeps the letter of its settler that comes first on the tally (west to east)
        letter = min((slot_of[settler_id].letter for settler_id in ids), key=FEATURE_LETTERS.index)
        assignment.update(dict.fromkeys(ids, letter))
        index_of[letter] = index
        sizes[letter] = {name: whole_number(feature.get(name, FINAL_PRESETS[name]), f"{where}.{name}",
                                            *SIZE_LIMITS[name], Term(_SIZE_WORDS[name]))
                         for name in FINAL_SIZES[slot_of[ids[0]].kind]}
    try:
        tally = settle_final_tally(players, track_vp, [s for s in slots if s.settler.id in assignment],
                                   assignment, sizes)
    except RulesError as error:
        # "sizes.A.flags", "assignment.0-3": the feature that letter stands for
        head, _, rest = error.path.partition(".")
        letter, _, name = rest.partition(".") if head == "sizes" else (assignment.get(rest, ""), "", "")
        if letter in index_of:
            path = f"features[{index_of[letter]}]" + (f".{name}" if name else "")
            raise RulesError(error.message, path) from None
        raise
    missing = [slot.settler for slot in slots if slot.settler.id not in assignment]
    if missing:
        raise RulesError("%(settler)s is on no feature yet: tap the settlers of every unfinished feature.",
                         "features", settler=described(missing[0], players))
    return tally


def final_features_of(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A stored final tally (:meth:`FinalTally.payload`) as the features the table tapped."""
    items = payload.get("features", ()) if isinstance(payload, Mapping) else ()
    return [{"settlers": [s.get("id") for s in item["settlers"] if isinstance(s, Mapping)],
             **{name: item[name] for name in FINAL_SIZES.get(item.get("kind"), ()) if name in item}}
            for item in items if isinstance(item, Mapping) and isinstance(item.get("settlers"), list)]
