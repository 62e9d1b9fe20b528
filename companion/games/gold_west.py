"""Gold West: points during play and the end scoring (rules/gold-west.md)."""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from typing import Any

from companion.games import common
from companion.games.common import FinalResult, GameInfo, PlaySetup, RulesError, listed, whole_number
from companion.messages import Message, RowName, Term

GAME = GameInfo(slug="gold-west", name="Gold West", min_players=2, max_players=4,
                rows=("track", "largest_group", "offices", "wanted", "influence"))

LOWEST_SCORE: int | None = None  # the track has no floor: looting takes points off at any score
KNOWN_AS: Mapping[str, Mapping[str, Any]] = {"gold west": {"offices": [], "trading_post": False}}
BGG_IDS: Mapping[int, Mapping[str, Any]] = {}  # recognised by name until the id is confirmed

TERRAINS: tuple[str, ...] = ("forest", "gold", "silver", "copper")
# 1st and 2nd place values of each terrain's influence majority.
MAJORITY_VALUES: Mapping[str, tuple[int, int]] = {"forest": (8, 4), "gold": (9, 5), "silver": (10, 6),
                                                  "copper": (11, 7)}
METALS: tuple[str, ...] = ("gold", "silver", "copper")
# Board data: what the first and the second stagecoach to cross a metal's bonus line score.
SHIPPING_BONUS_VALUES: Mapping[str, tuple[int, int]] = {"gold": (9, 6), "silver": (8, 5), "copper": (7, 4)}
SHIPPING_LINE_POINTS: Mapping[int, int] = {1: 2, 2: 3}
# A stagecoach crosses each metal's bonus line once, and each line has a tile for the first and the second.
MAX_SHIPPING_BONUS_TILES = len(METALS)
SHIPPING_BONUS_TILES_IN_GAME = sum(len(values) for values in SHIPPING_BONUS_VALUES.values())
# Investment bonus tiles, highest first, per player count.
INVESTMENT_BONUS_TILES: Mapping[int, tuple[int, ...]] = {2: (3, 2, 1), 3: (4, 3, 2, 1), 4: (5, 4, 3, 2, 1)}
INVESTMENT_VALUES: tuple[int, ...] = tuple(range(5, 16))  # board data: the investment cards' printed VP
SUPPLY_SECTION_NUMBERS: tuple[int, ...] = (0, 1, 2, 3)  # each section scores its own number
LOOT_POINTS = -1
TRACK_VP_LOWEST, TRACK_VP_HIGHEST = -50, 999  # what a final tally may say the score track shows
BOOMTOWN_1X1_POINTS = 4
GROUP_BUILDING_POINTS = 2  # per building in the largest group
OFFICES_DEALT = 4
MAX_TOKENS_PER_OFFICE = 2  # one token on each half of an office card


@dataclass(frozen=True)
class ShippingStep:
    """A points line or bonus line of one metal's shipping track and what crossing it scores."""

    metal: str
    line: int  # 1 or 2 for a points line; 0 for the bonus line
    points: int

    @property
    def key(self) -> str:
        return f"{self.metal}-{self.line}"  # how a form names it: gold-1


SHIPPING_POINTS_LINES: tuple[ShippingStep, ...] = tuple(
    ShippingStep(metal, line, points) for metal in METALS for line, points in SHIPPING_LINE_POINTS.items())
CAMPS_BY_PLAYER_COUNT: Mapping[int, int] = {2: 12, 3: 12, 4: 10}  # how many camps each player has


def camps_per_player(player_count: int) -> int:
    if type(player_count) is not int or player_count not in CAMPS_BY_PLAYER_COUNT:
        raise RulesError("Gold West is played by %(fewest)d to %(most)d players.", "players",
                         fewest=GAME.min_players, most=GAME.max_players)
    return CAMPS_BY_PLAYER_COUNT[player_count]


# --- What the final tally knows about each player -----------------------------------------------------------
@dataclass(frozen=True)
class OfficeClaim:
    """A player's tokens on one BoomTown office and what its formula counts on the map (None: not entered)."""

    office: str
    tokens: int = 1  # 2 when the player holds both halves of the office card
    count: int | None = 0  # the quantity frontier, sheriff and surveyor count
    camps: int | None = 0  # docks: camps touching water
    settlements: int | None = 0  # docks: settlements touching water


@dataclass(frozen=True)
class PlayerTally:
    """One player's position at the end of play; a terrain missing from a terrain map counts 0. What only
    the board shows (the groups, the resources left) is None until the table enters it (``check_tallies``)."""

    name: str
    track_vp: int = 0
    influence: Mapping[str, int] = field(default_factory=dict)
    settlements: Mapping[str, int] = field(default_factory=dict)
    mining_tokens: Mapping[str, int] = field(default_factory=dict)
    largest_group: int | None = 0
    second_group: int | None = 0
    wanted: int = 0
    boomtown_tokens: int | None = None  # None: the office tokens plus those on the 1×1 space
    investments: int = 0
    shipping_bonus_tiles: int = 0
    offices: tuple[OfficeClaim, ...] = ()
    supply_left: int | None = 0  # a tie-breaker
    boomtown_1x1_tokens: int = 0  # influence tokens on the BoomTown 1×1 space

    @property
    def tokens_in_boomtown(self) -> int:
        placed = sum(claim.tokens for claim in self.offices) + self.boomtown_1x1_tokens
        return placed if self.boomtown_tokens is None else self.boomtown_tokens


# --- BoomTown offices ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Office:
    """One BoomTown office: its key, its name and what each influence token on it counts."""

    key: str
    label: str
    counts: str
    # Points for one token: (claim, player, terrains in which the player receives influence points).
    per_token: Callable[[OfficeClaim, PlayerTally, int], int] = field(repr=False, compare=False)
    asks: str = ""  # "count" or "docks": what the tally must ask for besides the player's other rows
    reads: str = ""  # a row of the player's tally only the board shows that the formula needs

    @property
    def entries(self) -> tuple[str, ...]:
        """The fields of a claim on this office that the table enters from the map."""
        return {"count": ("count",), "docks": ("camps", "settlements")}.get(self.asks, ())


# Names and formulas are Messages so that pages can show them in the reader's language.
OFFICES: tuple[Office, ...] = (
    Office("docks", Message("Docks"), Message("1 per camp and 2 per settlement touching water"),
           lambda claim, player, scored: claim.camps + 2 * claim.settlements, asks="docks"),
    Office("frontier", Message("Frontier"), Message("1 per building touching the board edge"),
           lambda claim, player, scored: claim.count, asks="count"),
    Office("homestead", Message("Homestead"), Message("2 × your influence in your weakest terrain"),
           lambda claim, player, scored: 2 * min(player.influence.get(t, 0) for t in TERRAINS)),
    Office("courthouse", Message("Courthouse"), Message("1 per mining token in your strongest terrain"),
           lambda claim, player, scored: max(player.mining_tokens.get(t, 0) for t in TERRAINS)),
    Office("deeds", Message("Deeds"), Message("2 per terrain in which you receive influence points"),
           lambda claim, player, scored: 2 * scored),
    Office("depot", Message("Depot"), Message("2 per building in your second-largest group"),
           lambda claim, player, scored: 2 * player.second_group, reads="second_group"),
    Office("mayor", Message("Mayor"), Message("3 per 2 of your influence tokens in BoomTown"),
           lambda claim, player, scored: 3 * (player.tokens_in_boomtown // 2)),
    Office("saloon", Message("Saloon"), Message("2 per investment card you own"),
           lambda claim, player, scored: 2 * player.investments),
    Office("sheriff", Message("Sheriff"), Message("1 per building touching an opponent's building"),
           lambda claim, player, scored: claim.count, asks="count"),
    Office("shipping", Message("Shipping"), Message("2 per shipping bonus tile you own"),
           lambda claim, player, scored: 2 * player.shipping_bonus_tiles),
    Office("surveyor", Message("Surveyor"), Message("1 per building in your longest straight line"),
           lambda claim, player, scored: claim.count, asks="count"),
    Office("town_hall", Message("Town Hall"), Message("1 per settlement"),
           lambda claim, player, scored: sum(player.settlements.get(terrain, 0) for terrain in TERRAINS)))
OFFICES_BY_KEY: Mapping[str, Office] = {office.key: office for office in OFFICES}
OFFICE_KEYS: tuple[str, ...] = tuple(OFFICES_BY_KEY)


def unentered_claim(office: str, tokens: int = 1) -> OfficeClaim:
    """Tokens on an office as the ledger knows them: what the formula counts on the map not entered yet."""
    known = OFFICES_BY_KEY.get(office)
    return OfficeClaim(office, tokens, **dict.fromkeys(known.entries if known else (), None))


def offices_in_play(dealt: Sequence[str]) -> tuple[Office, ...]:
    """The offices a final tally asks about: those dealt at setup, or all 12 when none were recorded."""
    return tuple(OFFICES_BY_KEY[key] for key in dealt) if dealt else OFFICES


def _no_office(office: object, path: str) -> RulesError:
    return RulesError("There is no BoomTown office called %(office)s.", path, office=repr(office))


def office_points(claim: OfficeClaim, player: PlayerTally, scored_terrains: int) -> int:
    """Its formula once per token; ``scored_terrains``: terrains paying the player influence (deeds)."""
    office = OFFICES_BY_KEY.get(claim.office)
    if office is None:
        raise _no_office(claim.office, "office")
    return claim.tokens * office.per_token(claim, player, scored_terrains)


# --- Terrain majorities -------------------------------------------------------------------------------------
_PLACES = Message("%(earlier)s; %(later)s")  # Dan 1st; Anna and Ben 2nd; Cara 4th
_ORDINALS = {1: Message("%(rank)dst"), 2: Message("%(rank)dnd"), 3: Message("%(rank)drd")}
_NTH = Message("%(rank)dth")
_THEN = Message("%(earlier)s, then %(later)s")  # one tie-breaker, then the next


@dataclass(frozen=True)
class TerrainMajority:
    """Who took 1st and 2nd place in one terrain (player indices) and what each player scores there;
    ``second`` is empty when 1st was shared and with 2 players (1st takes the 2nd-place value)."""

    terrain: str
    values: tuple[int, int]
    influence: tuple[int, ...]
    settlements: tuple[int, ...]
    first: tuple[int, ...]
    second: tuple[int, ...]
    points: tuple[int, ...]

    @property
    def shared_first(self) -> bool:
        return len(self.first) > 1

    @property
    def shared_second(self) -> bool:
        return len(self.second) > 1

    @property
    def leads(self) -> tuple[int, int]:
        """The influence by which 1st and 2nd lead those below them (0: on settlements only, or tied)."""
        def lead(ahead: tuple[int, ...], placed: tuple[int, ...]) -> int:
            rest = [value for i, value in enumerate(self.influence) if i not in placed]
            return self.influence[ahead[0]] - max(rest, default=0) if ahead else 0
        return lead(self.first, self.first), lead(self.second, self.first + self.second)

    def describe(self, names: Sequence[str]) -> Message:
        """One sentence for the result page: who placed where, how a split was made, the points."""
        label = Term(self.terrain.capitalize())
        first_value, second_value = self.values
        if not self.first:
            return Message("%(terrain)s: nobody has influence here.", terrain=label)
        given = {"terrain": label, "holders": listed([names[i] for i in self.first]),
                 "share": self.points[self.first[0]]}
        if len(self.influence) == 2 and self.shared_first:
            text = Message("%(terrain)s: %(holders)s tie and share the 2nd-place value %(value)d: "
                           "%(share)d each", value=second_value, **given)
        elif len(self.influence) == 2:
            text = Message("%(terrain)s: %(holders)s holds the majority and takes the 2nd-place value "
                           "(%(share)d)", **given)
        elif self.shared_first:
            text = Message("%(terrain)s: %(holders)s share 1st: %(first)d + %(second)d = %(sum)d, %(share)d "
                           "each; no 2nd place", first=first_value, second=second_value,
                           sum=first_value + second_value, **given)
        elif self.shared_second:
            text = Message("%(terrain)s: %(holders)s 1st (%(share)d); %(seconds)s share 2nd: %(value)d, "
                           "%(each)d each", seconds=listed([names[i] for i in self.second]),
                           value=second_value, each=self.points[self.second[0]], **given)
        elif self.second:
            text = Message("%(terrain)s: %(holders)s 1st (%(share)d); %(second)s 2nd (%(value)d)",
                           second=names[self.second[0]], value=second_value, **given)
        else:
            text = Message("%(terrain)s: %(holders)s 1st (%(share)d); nobody else has influence", **given)
        # Which players with equal influence the settlement count put in different places.
        place = [1 if i in self.first else 2 if i in self.second else 3 for i in range(len(self.influence))]
        remarks = [
            Message("%(ahead)s is ahead of %(behind)s on settlements, %(settlements)d against %(other)d",
                    ahead=names[ahead], behind=names[behind], settlements=self.settlements[ahead],
                    other=self.settlements[behind])
            for ahead in self.first + self.second for behind in range(len(self.influence))
            if self.influence[behind] == self.influence[ahead] and place[ahead] < place[behind]]
        if not remarks:
            return Message("%(majority)s.", majority=text)
        return Message("%(majority)s (%(settlements)s).", majority=text,
                       settlements=common.chained(_PLACES, remarks))


def terrain_majority(terrain: str, influence: Sequence[int], settlements: Sequence[int]) -> TerrainMajority:
    """Score one terrain's majority per player: settlements break equal influence; still tied for 1st share
    1st + 2nd (no 2nd paid), for 2nd the 2nd value, rounded down; 0 influence never scores."""
    if terrain not in MAJORITY_VALUES:
        raise RulesError("There is no terrain called %(terrain)s.", "terrain", terrain=repr(terrain))
    if len(influence) != len(settlements):
        raise RulesError("Give influence and settlements for the same players.", terrain)
    first_value, second_value = MAJORITY_VALUES[terrain]
    standing = list(zip(influence, settlements, strict=True))
    contenders = [i for i, held in enumerate(influence) if held > 0]

    def ahead(among: list[int]) -> list[int]:
        best = max((standing[i] for i in among), default=None)
        return [i for i in among if standing[i] == best]

    first = ahead(contenders)
    rest = [i for i in contenders if i not in first]
    second = ahead(rest) if len(first) == 1 and len(influence) > 2 else []
    pot = (second_value if len(influence) == 2
           else first_value + second_value if len(first) > 1 else first_value)
    points = [pot // len(first) if i in first else second_value // len(second) if i in second else 0
              for i in range(len(influence))]
    return TerrainMajority(terrain=terrain, values=(first_value, second_value), influence=tuple(influence),
                           settlements=tuple(settlements), first=tuple(first), second=tuple(second),
                           points=tuple(points))


def terrain_majorities(players: Sequence[PlayerTally]) -> tuple[TerrainMajority, ...]:
    return tuple(terrain_majority(terrain, [player.influence.get(terrain, 0) for player in players],
                                  [player.settlements.get(terrain, 0) for player in players])
                 for terrain in TERRAINS)


# --- Wanted area --------------------------------------------------------------------------------------------
def wanted_penalties(wanted: Sequence[int]) -> tuple[int, ...]:
    """Penalty (≤ 0) per player: −1 per camp for the most Wanted camps; if one player has the most,
    −1 per 2 camps (round down) for the second most. Players without Wanted camps never take part."""
    counts = sorted({camps for camps in wanted if camps > 0}, reverse=True)
    most = counts[0] if counts else None
    second = counts[1] if len(counts) > 1 and wanted.count(most) == 1 else None
    return tuple(-camps if camps == most else -(camps // 2) if camps == second else 0 for camps in wanted)


# --- Checking a tally ---------------------------------------------------------------------------------------
# A tally's numbers besides the terrain maps and the offices, as stored; all but two are counts.
SCALAR_FIELDS = ("track_vp", "largest_group", "second_group", "wanted", "boomtown_tokens", "investments",
                 "shipping_bonus_tiles", "supply_left", "boomtown_1x1_tokens")
_PLAYER_COUNTS = tuple(name for name in SCALAR_FIELDS if name not in ("track_vp", "boomtown_tokens"))
# The counts only the board shows, None until the table enters them (the ledger cannot know them).
BOARD_FIELDS = ("largest_group", "second_group", "supply_left")
_TERRAIN_MAPS = {"influence": Term("influence"), "settlements": Term("settlements"),
                 "mining_tokens": Term("mining tokens")}
_CLAIM_COUNTS = ("count", "camps", "settlements")


def _is_count(value: object) -> bool:
    return type(value) is int and value >= 0


def _count_error(who: str, what: str, path: str) -> RulesError:
    return RulesError("%(name)s's %(what)s must be a whole number of at least 0.", path, name=who, what=what)


def _check_terrain_map(player: PlayerTally, where: str, field_name: str) -> None:
    counts = getattr(player, field_name)
    what = _TERRAIN_MAPS[field_name]
    if not isinstance(counts, Mapping):
        raise RulesError("%(name)s's %(what)s must list terrains with a number each.",
                         f"{where}.{field_name}", name=player.name, what=what)
    for terrain, value in counts.items():
        if terrain not in MAJORITY_VALUES:
            raise RulesError("%(name)s's %(what)s: %(terrain)s is not a terrain; use forest, gold, silver or "
                             "copper.", f"{where}.{field_name}.{terrain}", name=player.name, what=what,
                             terrain=repr(terrain))
        if not _is_count(value):
            in_terrain = Message("%(what)s in %(terrain)s", what=what, terrain=Term(terrain))
            raise _count_error(player.name, in_terrain, f"{where}.{field_name}.{terrain}")


def buildings_shown(player: PlayerTally) -> int:
    """The buildings (a mining token each) the mining tokens and settlements show: per terrain the larger."""
    return sum(max(player.mining_tokens.get(terrain, 0), player.settlements.get(terrain, 0))
               for terrain in TERRAINS)


def check_camps(player: PlayerTally, camps: int, player_count: int, where: str, entered_now: bool) -> None:
    """Refuse groups, buildings and Wanted camps needing more camps than the player has, and less influence
    than 2 per settlement; mining tokens, often given for the Courthouse alone, set no floor on influence.
    ``entered_now``: a tally just typed at the table, whose largest group of 0 is refused beside buildings;
    not for the API's missing field or a tally stored before the final tally asked for it."""
    largest, second = player.largest_group or 0, player.second_group or 0
    used = largest + second + player.wanted
    if used > camps:
        raise RulesError("%(name)s has only %(camps)d camps with %(players)d players, but the largest group "
                         "(%(largest)d), the second-largest group (%(second)d) and the Wanted camps "
                         "(%(wanted)d) add up to %(used)d.", f"{where}.wanted", name=player.name, camps=camps,
                         players=player_count, largest=largest, second=second,
                         wanted=player.wanted, used=used)
    buildings = buildings_shown(player)
    if buildings + player.wanted > camps:
        field_name = "mining_tokens" if sum(player.mining_tokens.values()) >= buildings else "settlements"
        raise RulesError("%(name)s has only %(camps)d camps with %(players)d players, but the buildings the "
                         "mining tokens and settlements show (%(buildings)d) and the Wanted camps "
                         "(%(wanted)d) add up to %(used)d: each building is a camp and took one "
                         "mining token.", f"{where}.{field_name}", name=player.name, camps=camps,
                         players=player_count, buildings=buildings, wanted=player.wanted,
                         used=buildings + player.wanted)
    for terrain in TERRAINS:
        influence, settled = player.influence.get(terrain, 0), player.settlements.get(terrain, 0)
        if influence < 2 * settled:
            raise RulesError("%(name)s's influence in %(terrain)s is %(influence)d, but %(settlements)d "
                             "settlements there put at least %(least)d: each adds its mining token and an "
                             "influence token to the terrain's row.", f"{where}.influence.{terrain}",
                             name=player.name, terrain=Term(terrain), influence=influence,
                             settlements=settled, least=2 * settled)
    if entered_now and player.largest_group == 0 and buildings:
        raise RulesError("%(name)s's largest group cannot be 0: the mining tokens and settlements show "
                         "%(buildings)d buildings, so it has at least 1.", f"{where}.largest_group",
                         name=player.name, buildings=buildings)


class EntriesMissing(RulesError):
    """Numbers only the board shows, left empty where the scoring needs them; ``errors``: one per number."""

    def __init__(self, errors: Sequence[RulesError]) -> None:
        super().__init__(errors[0].message, errors[0].path)
        self.errors = tuple(errors)


def missing_entries(player: PlayerTally, where: str) -> list[RulesError]:
    """What one player's scoring needs from the board but the tally leaves empty (None); else None is 0."""
    who = player.name
    missing = []
    if player.largest_group is None and (buildings_shown(player) or player.second_group):
        missing.append(RulesError("Enter how many buildings are in %(name)s's largest group: %(name)s has "
                                  "buildings on the map.", f"{where}.largest_group", name=who))
    for position, claim in enumerate(player.offices):
        office = OFFICES_BY_KEY[claim.office]
        if office.reads and getattr(player, office.reads) is None:
            missing.append(RulesError("Enter how many buildings are in %(name)s's second-largest group (0 "
                                      "if there is none): %(name)s has tokens on the %(office)s office, "
                                      "which counts them.", f"{where}.{office.reads}", name=who,
                                      office=office.label))
        empty = [name for name in office.entries if getattr(claim, name) is None]
        if not empty:
            continue
        at = f"{where}.offices[{position}].{empty[0]}"
        if office.asks == "docks":
            missing.append(RulesError("Enter %(name)s's camps and settlements touching water for the "
                                      "%(office)s office: %(name)s has tokens on it.", at, name=who,
                                      office=office.label))
        else:
            missing.append(RulesError("Enter how many the %(office)s office counts for %(name)s "
                                      "(%(counts)s): %(name)s has tokens on it.", at, name=who,
                                      office=office.label, counts=office.counts))
    return missing


def check_shipping_bonus_tiles(players: Sequence[PlayerTally]) -> None:
    """Refuse more shipping bonus tiles than the tracks give: one per metal a player, two per metal in all."""
    for index, player in enumerate(players):
        if player.shipping_bonus_tiles > MAX_SHIPPING_BONUS_TILES:
            raise RulesError("%(name)s has %(tiles)d shipping bonus tiles, but a stagecoach takes at most "
                             "one on each of the %(metals)d metal tracks: %(most)d at most.",
                             f"players[{index}].shipping_bonus_tiles", name=player.name,
                             tiles=player.shipping_bonus_tiles, metals=len(METALS),
                             most=MAX_SHIPPING_BONUS_TILES)
    total = sum(player.shipping_bonus_tiles for player in players)
    if total > SHIPPING_BONUS_TILES_IN_GAME:
        raise RulesError("The %(metals)d metal tracks have %(each)d shipping bonus tiles each, %(most)d in "
                         "all, but the players hold %(total)d.",
                         f"players[{len(players) - 1}].shipping_bonus_tiles",
                         metals=len(METALS), each=len(SHIPPING_BONUS_VALUES["gold"]),
                         most=SHIPPING_BONUS_TILES_IN_GAME, total=total)


def check_office_spaces(players: Sequence[PlayerTally]) -> None:
    """Refuse more influence tokens on one office than its two halves hold, all players together."""
    on_office: dict[str, list[tuple[str, int]]] = {}
    for index, player in enumerate(players):
        for position, claim in enumerate(player.offices):
            holders = on_office.setdefault(claim.office, [])
            holders.append((player.name, claim.tokens))
            if sum(tokens for _, tokens in holders) > MAX_TOKENS_PER_OFFICE:
                held = listed([Message("%(name)s %(tokens)d", name=name, tokens=tokens)
                               for name, tokens in holders])
                raise RulesError("The %(office)s office has two halves, so it holds at most %(most)d "
                                 "influence tokens, not %(given)d (%(held)s).",
                                 f"players[{index}].offices[{position}].tokens",
                                 office=OFFICES_BY_KEY[claim.office].label, most=MAX_TOKENS_PER_OFFICE,
                                 given=sum(tokens for _, tokens in holders), held=held)


def check_tallies(players: Sequence[PlayerTally], entered_now: bool = False, stored: bool = False) -> None:
    """Refuse a final tally the game cannot produce, naming the field (``players[1].wanted``), and one that
    leaves empty what the scoring needs from the board (``EntriesMissing``); ``entered_now``: check_camps.
    ``stored``: a tally read back, which skips the office counts (checked only since plays were stored)."""
    camps = camps_per_player(len(players))
    dealt: set[str] = set()
    missing: list[RulesError] = []
    for index, player in enumerate(players):
        who, where = player.name, f"players[{index}]"
        if any(earlier.name == who for earlier in players[:index]):
            raise RulesError("Player names must be unique: %(name)s appears twice.", f"{where}.name",
                             name=repr(who))
        if type(player.track_vp) is not int:
            raise RulesError("%(name)s's score track must be a whole number.", f"{where}.track_vp", name=who)
        for field_name in _TERRAIN_MAPS:
            _check_terrain_map(player, where, field_name)
        for field_name in _PLAYER_COUNTS:
            value = getattr(player, field_name)
            if not _is_count(value) and not (value is None and field_name in BOARD_FIELDS):
                raise _count_error(who, Term(field_name.replace("_", " ")), f"{where}.{field_name}")
        if player.largest_group is not None and (player.second_group or 0) > player.largest_group:
            raise RulesError("%(name)s's second-largest group (%(second)d) cannot be larger than the largest "
                             "group (%(largest)d).", f"{where}.second_group", name=who,
                             second=player.second_group, largest=player.largest_group)
        check_camps(player, camps, len(players), where, entered_now)
        for position, claim in enumerate(player.offices):
            at = f"{where}.offices[{position}]"
            office = OFFICES_BY_KEY.get(claim.office) if isinstance(claim.office, str) else None
            if office is None:
                raise _no_office(claim.office, f"{at}.office")
            if any(earlier.office == claim.office for earlier in player.offices[:position]):
                raise RulesError("%(name)s lists the %(office)s office twice; a token on each half is "
                                 "tokens: 2.", f"{at}.office", name=who, office=office.label)
            if claim.office not in dealt and len(dealt) == OFFICES_DEALT:
                raise RulesError("Only %(dealt)d offices are dealt, but this tally lists a fifth: "
                                 "%(office)s.", f"{at}.office", dealt=OFFICES_DEALT, office=office.label)
            dealt.add(claim.office)
            if type(claim.tokens) is not int or not 1 <= claim.tokens <= MAX_TOKENS_PER_OFFICE:
                raise RulesError("%(name)s can have 1 or 2 tokens on the %(office)s office.", f"{at}.tokens",
                                 name=who, office=office.label)
            for field_name in _CLAIM_COUNTS:
                value = getattr(claim, field_name)
                if value is not None and not _is_count(value):
                    what = Message("%(office)s %(what)s", office=office.label, what=Term(field_name))
                    raise _count_error(who, what, f"{at}.{field_name}")
            # each building is a camp, and Wanted camps are off the map
            counted = sum(getattr(claim, field_name) or 0 for field_name in office.entries)
            if not stored and counted > camps - player.wanted:
                raise RulesError("%(name)s has at most %(most)d buildings on the map (%(camps)d camps with "
                                 "%(players)d players, %(wanted)d of them Wanted), but the %(office)s office "
                                 "counts %(counted)d.", f"{at}.{office.entries[0]}", name=who,
                                 most=camps - player.wanted, camps=camps, players=len(players),
                                 wanted=player.wanted, office=office.label, counted=counted)
        if player.boomtown_tokens is not None:
            if not _is_count(player.boomtown_tokens):
                raise _count_error(who, Term("BoomTown tokens"), f"{where}.boomtown_tokens")
            placed = sum(claim.tokens for claim in player.offices) + player.boomtown_1x1_tokens
            if player.boomtown_tokens < placed:
                raise RulesError("%(name)s has %(tokens)d tokens on offices and the 1×1 space, so at least "
                                 "%(tokens)d influence tokens in BoomTown, not %(given)d.",
                                 f"{where}.boomtown_tokens", name=who, tokens=placed,
                                 given=player.boomtown_tokens)
        missing += missing_entries(player, where)
    check_office_spaces(players)
    check_shipping_bonus_tiles(players)
    if missing:
        raise EntriesMissing(missing)


def _unentered_ties(names: Sequence[str], wanted: Sequence[int], supply_left: Sequence[int | None],
                    totals: Sequence[int], recorded: Sequence[bool] = ()) -> list[dict[str, Any]]:
    """The ties on VP and Wanted that resources left decide where some of the tied have none entered
    (``recorded``: winners an imported play names, which rank such a tie)."""
    level: dict[tuple[int, int, bool], list[int]] = {}
    for seat, key in enumerate(zip(totals, wanted, recorded or [False] * len(names), strict=True)):
        level.setdefault(key, []).append(seat)
    return [{"names": listed([names[i] for i in tied]), "total": total, "wanted": camps,
             "missing": listed([names[i] for i in tied if supply_left[i] is None])}
            for (total, camps, _), tied in level.items()
            if len(tied) > 1 and any(supply_left[i] is None for i in tied)]


def check_tie_breakers(names: Sequence[str], wanted: Sequence[int], supply_left: Sequence[int | None],
                       totals: Sequence[int]) -> None:
    """Refuse a ranking that needs resources left on the supply track not entered (a tie on VP and Wanted)."""
    missing = [RulesError("%(names)s are tied on %(total)d VP and on camps in the Wanted area (%(wanted)d "
                          "each): the resources left on the supply track decide. Enter them for %(missing)s.",
                          "players", **tie) for tie in _unentered_ties(names, wanted, supply_left, totals)]
    if missing:
        raise EntriesMissing(missing)


# --- The final tally ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GoldWestResult(FinalResult):
    """The final scores plus, for the result page, the terrain majorities table."""

    majorities: tuple[TerrainMajority, ...] = ()


def final_result(players: Sequence[PlayerTally], entered_now: bool = False, stored: bool = False
                 ) -> GoldWestResult:
    """Score the end of a play: every row per player, ranks after the tie-breakers, and why."""
    check_tallies(players, entered_now, stored)
    wanted, supply_left = [p.wanted for p in players], [p.supply_left for p in players]
    majorities = terrain_majorities(players)
    penalties = wanted_penalties(wanted)
    breakdowns = []
    for index, player in enumerate(players):
        scored = sum(1 for m in majorities if index in m.first or index in m.second)
        breakdowns.append((player.name, {
            "track": player.track_vp, "largest_group": GROUP_BUILDING_POINTS * (player.largest_group or 0),
            "offices": sum(office_points(claim, player, scored) for claim in player.offices),
            "wanted": penalties[index], "influence": sum(m.points[index] for m in majorities)}))
    check_tie_breakers([p.name for p in players], wanted, supply_left,
                       [sum(points.values()) for _, points in breakdowns])
    tie_breakers = list(map(tie_breaker, wanted, supply_left))
    ranked = common.rank_players(GAME.slug, GAME.rows, breakdowns, tie_breakers)
    return GoldWestResult(game=ranked.game, players=ranked.players, majorities=majorities,
                          tie_break_notes=tie_break_notes(ranked.players, wanted, supply_left))


def tie_break_notes(results: Sequence[common.PlayerResult], wanted: Sequence[int], supply_left: Sequence[int],
                    recorded: Sequence[bool] = (), source: str = "") -> dict[str, Message]:
    """A sentence per group of equal points that tie-breakers ranked apart, keyed by its first name;
    ``recorded``: the winners an imported play names, as ``source`` recorded them."""
    def counts(level: Sequence[int], values: Sequence[int]) -> str:
        return ", ".join(f"{results[j].name} {values[j]}" for j in level)  # Anna 2, Ben 3

    breakers = [(wanted, lambda level: Message("fewest camps in the Wanted area (%(counts)s)",
                                               counts=counts(level, wanted))),
                (supply_left, lambda level: Message("most resources left on the supply track (%(counts)s)",
                                                    counts=counts(level, supply_left)))]
    if recorded:
        breakers.append((recorded, lambda level: Message(
            "the winner recorded in %(source)s (%(names)s)", source=source or Message("the imported file"),
            names=listed([results[j].name for j in level if recorded[j]]))))
    notes: dict[str, Message] = {}
    for total in dict.fromkeys(player.total for player in results):
        tied = [j for j, player in enumerate(results) if player.total == total]
        ranks = sorted({results[j].rank for j in tied})
        if len(ranks) < 2:
            continue
        # each tie-breaker that decided, named with the groups the earlier ones left level where it did
        reasons, level_groups = [], [tied]
        for values, reason in breakers:
            decided = [j for group in level_groups if len({values[k] for k in group}) > 1 for j in group]
            if decided:
                reasons.append(reason(sorted(decided)))
            split = [[j for j in group if values[j] == value] for group in level_groups for value in
                     dict.fromkeys(values[j] for j in group)]
            level_groups = [group for group in split if len(group) > 1]
        order = [Message("%(names)s %(rank)s", rank=Message(_ORDINALS.get(rank, _NTH).template, rank=rank),
                         names=listed([results[j].name for j in tied if results[j].rank == rank]))
                 for rank in ranks]
        notes[results[tied[0]].name] = Message("%(names)s tied on %(total)d VP; by %(reasons)s: %(order)s.",
                                               names=listed([results[j].name for j in tied]), total=total,
                                               reasons=common.chained(_THEN, reasons),
                                               order=common.chained(_PLACES, order))
    return notes


# --- The ledger during play: events folded into the table state ---------------------------------------------
EVENT_KINDS: tuple[str, ...] = ("camp", "settlement", "supply", "loot", "investment", "boomtown",
                                "boomtown_1x1", "shipping_line", "shipping_bonus")


# What a seat entered since its own last turn ended, and whether that turn just ended (nobody else entered
# since): then what it entered in that turn.
OwnTurn = tuple[tuple[str, ...], bool]
NO_TURN_YET: OwnTurn = ((), False)


@dataclass(frozen=True)
class PlayState:
    """The table state of a play in progress; tuples are per seat unless said otherwise."""

    setup: PlaySetup
    camps_per_player: int
    offices: tuple[str, ...]  # the offices dealt at setup (empty when not recorded)
    trading_post: bool
    scores: tuple[int, ...]  # the score track
    camps_placed: tuple[int, ...]  # one per turn, on the board or (loot) into the Wanted area
    wanted: tuple[int, ...]
    investments: tuple[int, ...]
    investment_tiles_left: tuple[int, ...]  # highest first
    investment_tiles: tuple[tuple[int, ...], ...]  # the bonus tiles each seat took
    boomtown_1x1_tokens: tuple[int, ...]  # influence tokens on the 1×1 space (they count for mayor)
    shipping_lines: frozenset[tuple[int, str, int]]  # (seat, metal, line) points lines passed
    shipping_bonus: tuple[tuple[int, ...], ...]  # per metal in METALS order: seats that crossed, in order
    shipping_bonus_tiles: tuple[int, ...]
    # (terrain, settlement?) of each building whose mining token's terrain the ledger recorded
    buildings: tuple[tuple[tuple[str, bool], ...], ...]
    office_tokens: tuple[tuple[str, ...], ...]  # the office of each influence token placed on one
    own_turns: tuple[OwnTurn, ...]  # what each seat entered since its own last turn ended
    note: str = ""  # what the players should know about the last event, if anything

    @property
    def last_turn(self) -> bool:
        """Every camp is placed: one last turn each, without the Build/Loot step."""
        return all(placed == self.camps_per_player for placed in self.camps_placed)

    @property
    def buildings_without_terrain(self) -> int:
        """Camps on the board entered before the ledger asked for their terrain, all seats."""
        return sum(self.camps_placed) - sum(self.wanted) - sum(map(len, self.buildings))

    @property
    def nothing_placed(self) -> bool:
        """Every camp is still in the supply: ending the play now is most likely a slip of the finger."""
        return not any(self.camps_placed)

    @property
    def round_number(self) -> int:
        """The round at the table: 1 up to the camps per player, then one more for the last turn."""
        return min(self.camps_placed) + 1

    @property
    def camps_left(self) -> tuple[int, ...]:
        return tuple(self.camps_per_player - placed for placed in self.camps_placed)

    @property
    def next_investment_tile(self) -> int | None:
        """The bonus tile the next investment purchase takes, whoever buys; None once they are gone."""
        return self.investment_tiles_left[0] if self.investment_tiles_left else None

    @property
    def next_seat(self) -> int | None:
        """The seat expected to place a camp next in turn order; None once the last turn has come."""
        return None if self.last_turn else self.camps_placed.index(min(self.camps_placed))


def initial_state(setup: PlaySetup) -> PlayState:
    """The table before the first turn; options: the ``offices`` dealt (optional), ``trading_post``."""
    if setup.game != GAME.slug:
        raise RulesError("This play is of %(game)s, not %(name)s.", "game", game=repr(setup.game),
                         name=GAME.name)
    players = len(setup.seats)
    camps = camps_per_player(players)
    options = setup.options if isinstance(setup.options, Mapping) else {}
    trading_post = options.get("trading_post", False)
    if type(trading_post) is not bool:
        raise RulesError("Say whether the Trading Post mini expansion is in play (true or false).",
                         "trading_post")
    offices = options.get("offices", ())
    if not isinstance(offices, list | tuple) or any(office not in OFFICES_BY_KEY for office in offices):
        raise RulesError("Pick the dealt offices from the BoomTown office list.", "offices")
    if offices and (len(offices) != OFFICES_DEALT or len(set(offices)) != OFFICES_DEALT):
        raise RulesError("Exactly %(dealt)d different offices are dealt at setup.", "offices",
                         dealt=OFFICES_DEALT)
    return PlayState(
        setup=setup, camps_per_player=camps, offices=tuple(offices), trading_post=trading_post,
        investment_tiles_left=INVESTMENT_BONUS_TILES[players], shipping_lines=frozenset(),
        shipping_bonus=((),) * len(METALS),
        **dict.fromkeys(("scores", "camps_placed", *_SEAT_COUNTS), (0,) * players),
        **dict.fromkeys(("investment_tiles", "buildings", "office_tokens"), ((),) * players),
        own_turns=(NO_TURN_YET,) * players)


def running_scores(state: PlayState) -> tuple[int, ...]:
    return state.scores


def _put(values: tuple, seat: int, value: Any) -> tuple:
    return (*values[:seat], value, *values[seat + 1:])


def _bump(values: tuple[int, ...], seat: int, by: int) -> tuple[int, ...]:
    return _put(values, seat, values[seat] + by)


def _metal(payload: Mapping) -> str:
    metal = payload.get("metal")
    if not isinstance(metal, str) or metal not in SHIPPING_BONUS_VALUES:
        raise RulesError("Pick the metal track: gold, silver or copper.", "metal")
    return metal


def _place_camp(state: PlayState, seat: int) -> tuple[int, ...]:
    if state.camps_placed[seat] >= state.camps_per_player:
        raise RulesError("%(name)s has placed all %(camps)d camps; the last turn has no Build or Loot step.",
                         "seat", name=state.setup.seats[seat].name, camps=state.camps_per_player)
    return _bump(state.camps_placed, seat, 1)


def _build(state: PlayState, seat: int, payload: Mapping, settlement: bool = False) -> PlayState:
    """A camp or a settlement placed, with its mining token's terrain (none on camps stored before)."""
    placed = replace(state, camps_placed=_place_camp(state, seat))
    terrain = payload.get("terrain")
    if terrain is None and not settlement:
        return placed
    if not isinstance(terrain, str) or terrain not in MAJORITY_VALUES:
        raise RulesError("Pick the terrain of the mining token: forest, gold, silver or copper.", "terrain")
    built = (*state.buildings[seat], (terrain, settlement))
    return replace(placed, buildings=_put(state.buildings, seat, built))


def _loot(state: PlayState, seat: int, payload: Mapping) -> PlayState:
    # Looting is the turn's Build-or-Loot step: the turn's camp goes to the Wanted area.
    return replace(state, camps_placed=_place_camp(state, seat), wanted=_bump(state.wanted, seat, 1),
                   scores=_bump(state.scores, seat, LOOT_POINTS))


def _supply(state: PlayState, seat: int, payload: Mapping) -> PlayState:
    section = whole_number(payload.get("section"), "section", 0, SUPPLY_SECTION_NUMBERS[-1],
                           Message("The supply-track section"))
    return replace(state, scores=_bump(state.scores, seat, section))


def _investment(state: PlayState, seat: int, payload: Mapping) -> PlayState:
    vp = whole_number(payload.get("vp"), "vp", INVESTMENT_VALUES[0], INVESTMENT_VALUES[-1],
                      Message("The investment card's VP"))
    bonus = state.investment_tiles_left[:1]
    return replace(state, scores=_bump(state.scores, seat, vp + sum(bonus)),
                   investments=_bump(state.investments, seat, 1),
                   investment_tiles_left=state.investment_tiles_left[1:],
                   investment_tiles=_put(state.investment_tiles, seat, state.investment_tiles[seat] + bonus))


def _boomtown(state: PlayState, seat: int, payload: Mapping) -> PlayState:
    office = payload.get("office")
    if not isinstance(office, str) or office not in OFFICES_BY_KEY:
        raise _no_office(office, "office")
    if office not in offices_open(state):
        raise RulesError("The %(office)s office is not open: it was not dealt, or both its halves are taken.",
                         "office", office=OFFICES_BY_KEY[office].label)
    return replace(state, office_tokens=_put(state.office_tokens, seat, (*state.office_tokens[seat], office)))


def _boomtown_1x1(state: PlayState, seat: int, payload: Mapping) -> PlayState:
    tokens = _bump(state.boomtown_1x1_tokens, seat, 1)
    if state.trading_post:
        return replace(state, boomtown_1x1_tokens=tokens, note=Message(
            "With the Trading Post the 1×1 space gives a resource instead of points; if it goes on the "
            "supply track, enter that as a supply event."))
    return replace(state, boomtown_1x1_tokens=tokens, scores=_bump(state.scores, seat, BOOMTOWN_1X1_POINTS))


def _shipping_line(state: PlayState, seat: int, payload: Mapping) -> PlayState:
    metal = _metal(payload)
    line = payload.get("line")
    if type(line) is not int or line not in SHIPPING_LINE_POINTS:
        raise RulesError("Pick the points line the stagecoach passed: 1 or 2.", "line")
    passed = (seat, metal, line)
    if passed in state.shipping_lines:
        raise RulesError("%(name)s has already passed points line %(line)d of the %(metal)s track.", "line",
                         name=state.setup.seats[seat].name, line=line, metal=Term(metal))
    return replace(state, shipping_lines=state.shipping_lines | {passed},
                   scores=_bump(state.scores, seat, SHIPPING_LINE_POINTS[line]))


def _shipping_bonus(state: PlayState, seat: int, payload: Mapping) -> PlayState:
    metal = _metal(payload)
    track = METALS.index(metal)
    crossed = state.shipping_bonus[track]
    if seat in crossed:
        raise RulesError("%(name)s already has the %(metal)s shipping bonus.", "seat",
                         name=state.setup.seats[seat].name, metal=Term(metal))
    values = SHIPPING_BONUS_VALUES[metal]
    if len(crossed) == len(values):
        raise RulesError("Both %(metal)s shipping bonus tiles are gone.", "metal", metal=Term(metal))
    return replace(state, shipping_bonus=_put(state.shipping_bonus, track, (*crossed, seat)),
                   shipping_bonus_tiles=_bump(state.shipping_bonus_tiles, seat, 1),
                   scores=_bump(state.scores, seat, values[len(crossed)]))


_EVENT_HANDLERS: Mapping[str, Callable[[PlayState, int, Mapping], PlayState]] = dict(zip(EVENT_KINDS, (
    _build, partial(_build, settlement=True), _supply, _loot, _investment, _boomtown,
    _boomtown_1x1, _shipping_line, _shipping_bonus), strict=True))


def apply_event(state: PlayState, kind: str, payload: Mapping) -> PlayState:
    """The table state after one event (each names a ``seat``); RulesError where the table refuses it."""
    handler = _EVENT_HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None:
        raise RulesError("Gold West has no event called %(kind)s.", "kind", kind=repr(kind))
    if not isinstance(payload, Mapping):
        raise RulesError("An event's details must be an object with named fields.", "payload")
    seat = common.seat_index(payload, len(state.setup.seats))
    # A note speaks of the event that set it only.
    after = handler(replace(state, note="") if state.note else state, seat, payload)
    return replace(after, own_turns=tuple(_next_own_turn(turn, kind, index == seat)
                                          for index, turn in enumerate(state.own_turns)))


# --- What the ledger screen offers each seat ----------------------------------------------------------------
def shipping_lines_open(state: PlayState, seat: int) -> tuple[ShippingStep, ...]:
    """The next points line of each of the seat's stagecoaches, in track order (none past the last)."""
    passed = state.shipping_lines
    return tuple(step for step in SHIPPING_POINTS_LINES if (seat, step.metal, step.line) not in passed
                 and (step.line == 1 or (seat, step.metal, step.line - 1) in passed))


def check_line_order(state: PlayState, kind: str, payload: Mapping[str, Any]) -> None:
    """Refuse a new tap of a stagecoach's points line 2 before its line 1 (a stored log keeps its points)."""
    seat, metal = payload.get("seat"), payload.get("metal")
    if kind == "shipping_line" and payload.get("line") == 2 and (seat, metal, 1) not in state.shipping_lines:
        raise RulesError("A stagecoach passes points line 1 of its track before line 2: enter line 1 first.",
                         "line")


def shipping_bonuses_open(state: PlayState, seat: int) -> tuple[ShippingStep, ...]:
    """The bonus lines the seat can still cross for points, with the tile it would take."""
    return tuple(ShippingStep(track.metal, 0, track.left[0]) for track in shipping_bonus_tracks(state)
                 if track.left and all(taker != seat for taker, _ in track.taken))


def offices_open(state: PlayState) -> tuple[str, ...]:
    """The offices dealt (if not recorded, any until four have tokens) with a half still free."""
    placed = [office for tokens in state.office_tokens for office in tokens]
    dealt = state.offices or (tuple(dict.fromkeys(placed)) if len(set(placed)) == OFFICES_DEALT
                              else OFFICE_KEYS)
    return tuple(office for office in dealt if placed.count(office) < MAX_TOKENS_PER_OFFICE)


def terrain_rows(state: PlayState, seat: int) -> dict[str, dict[str, int]]:
    """The seat's mining tokens, settlements and influence (none from investment cards) per terrain."""
    built = state.buildings[seat]
    tokens = {terrain: sum(where == terrain for where, _ in built) for terrain in TERRAINS}
    settled = {terrain: built.count((terrain, True)) for terrain in TERRAINS}
    return {"mining_tokens": tokens, "settlements": settled,
            "influence": {terrain: tokens[terrain] + settled[terrain] for terrain in TERRAINS}}


@dataclass(frozen=True)
class BonusTrack:
    """One metal's shipping bonus tiles: who took which, and what is still there."""

    metal: str
    taken: tuple[tuple[int, int], ...]  # (seat, points) in the order they crossed
    left: tuple[int, ...]


def shipping_bonus_tracks(state: PlayState) -> tuple[BonusTrack, ...]:
    return tuple(BonusTrack(metal, tuple(zip(crossed, values, strict=False)), values[len(crossed):])
                 for (metal, values), crossed in zip(SHIPPING_BONUS_VALUES.items(), state.shipping_bonus,
                                                     strict=True))


# --- From the ledger to the final tally, and the final tally as stored --------------------------------------
# The rows the ledger counts per seat, named alike in PlayState and in PlayerTally.
_SEAT_COUNTS = ("wanted", "investments", "shipping_bonus_tiles", "boomtown_1x1_tokens")
_LEDGER_SCALARS = ("track_vp", *_SEAT_COUNTS)
_OFFICE_KEY = "offices."


def tallies_from_play(state: PlayState, track_adjustments: Sequence[int] = ()) -> tuple[PlayerTally, ...]:
    """The final tally as far as the ledger knows it, with the track's hand corrections; board counts None."""
    adjustments = tuple(track_adjustments) or (0,) * len(state.scores)
    return tuple(
        PlayerTally(name=seat.name, track_vp=state.scores[index] + adjustments[index],
                    offices=tuple(unentered_claim(office, state.office_tokens[index].count(office))
                                  for office in dict.fromkeys(state.office_tokens[index])),
                    **{name: getattr(state, name)[index] for name in _SEAT_COUNTS},
                    **dict.fromkeys(BOARD_FIELDS, None), **terrain_rows(state, index))
        for index, seat in enumerate(state.setup.seats))


def ledger_values(player: PlayerTally) -> dict[str, int]:
    """The numbers of a tally the ledger fills in, by flat keys (``influence.gold``, ``offices.mayor``)."""
    values = {name: getattr(player, name) for name in _LEDGER_SCALARS}
    values.update({f"{name}.{terrain}": getattr(player, name).get(terrain, 0)
                   for name in _TERRAIN_MAPS for terrain in TERRAINS})
    values.update({_OFFICE_KEY + claim.office: claim.tokens for claim in player.offices})
    return values


def corrections(entered: PlayerTally, ledger: PlayerTally) -> dict[str, int]:
    """How the tally entered differs from the numbers the ledger filled in: entered minus ledger, by key."""
    typed, known = ledger_values(entered), ledger_values(ledger)
    return {key: typed.get(key, 0) - known.get(key, 0) for key in {**known, **typed}
            if typed.get(key, 0) != known.get(key, 0)}


def corrected(ledger: PlayerTally, entered: PlayerTally, changes: Mapping) -> PlayerTally:
    """The ledger's numbers with the known corrections applied, the rest (groups, counts …) as entered."""
    values = ledger_values(ledger)
    known = {*values, *(_OFFICE_KEY + office for office in OFFICE_KEYS)}
    for key, by in changes.items():
        if type(by) is int and key in known:
            values[key] = values.get(key, 0) + by
    claims = {claim.office: claim for claim in entered.offices}
    offices = tuple(replace(claims.get(office) or unentered_claim(office), tokens=tokens)
                    for key, tokens in values.items()
                    if tokens and (office := key.removeprefix(_OFFICE_KEY)) != key)
    return replace(entered, offices=offices, **{name: values[name] for name in _LEDGER_SCALARS},
                   **{name: {terrain: values[f"{name}.{terrain}"] for terrain in TERRAINS}
                      for name in _TERRAIN_MAPS})


def tallies_kept(ledger: Sequence[PlayerTally], entered: Sequence[PlayerTally],
                 changes: object) -> tuple[PlayerTally, ...]:
    """Where a reopened play's final tally starts once its ledger changed: the new ledger with the stored
    corrections (or the terrains and offices as typed), the rest as entered."""
    if not isinstance(changes, list) or len(changes) != len(ledger):
        changes = [{key: by for key, by in corrections(typed, fresh).items() if "." in key}
                   for typed, fresh in zip(entered, ledger, strict=True)]
    return tuple(corrected(fresh, typed, change if isinstance(change, Mapping) else {})
                 for fresh, typed, change in zip(ledger, entered, changes, strict=True))


_PAYLOAD_FIELDS = frozenset((*SCALAR_FIELDS, *_TERRAIN_MAPS, "offices"))
_CLAIM_FIELDS = frozenset(("office", "tokens", *_CLAIM_COUNTS))


def tally_payload(players: Sequence[PlayerTally], ledger: Sequence[PlayerTally] = ()) -> dict:
    """The final tally as JSON, seat by seat, with the corrections made to the ``ledger`` it started from."""
    # boomtown_tokens only where entered: None stands for the tokens on offices and the 1×1 space
    entries = [{**{name: getattr(player, name) for name in SCALAR_FIELDS
                   if name != "boomtown_tokens" or player.boomtown_tokens is not None},
                **{name: dict(getattr(player, name)) for name in _TERRAIN_MAPS},
                "offices": [asdict(claim) for claim in player.offices]} for player in players]
    if not ledger:
        return {"players": entries}
    return {"players": entries, "corrections": list(map(corrections, players, ledger))}


def tie_breaker(wanted: int, supply_left: int | None) -> tuple[int, int]:
    """Fewest Wanted camps, then most resources left, as "larger wins"; resources left are not entered
    where no tie needs them, so any number ranks the same there."""
    return (-wanted, supply_left or 0)


def tallies_from_payload(payload: Mapping, names: Sequence[str]) -> tuple[PlayerTally, ...]:
    """Read a stored final tally back for the seats named (``final_result`` checks the values)."""
    players = payload.get("players") if isinstance(payload, Mapping) else None
    if not isinstance(players, list) or len(players) != len(names):
        raise RulesError("The final tally must list one tally per seat.", "players")
    tallies = []
    for index, (entry, name) in enumerate(zip(players, names, strict=True)):
        if not isinstance(entry, Mapping) or not _PAYLOAD_FIELDS.issuperset(entry):
            raise RulesError("%(name)s's tally has fields the final tally does not know.",
                             f"players[{index}]", name=name)
        offices = entry.get("offices", [])
        if not isinstance(offices, list) or not all(
                isinstance(claim, Mapping) and _CLAIM_FIELDS.issuperset(claim) and "office" in claim
                for claim in offices):
            raise RulesError("%(name)s's offices must each name an office.", f"players[{index}].offices",
                             name=name)
        tallies.append(PlayerTally(**{**entry, "name": name,
                                      "offices": tuple(OfficeClaim(**claim) for claim in offices)}))
    return tuple(tallies)


def result_from_payload(payload: Mapping, names: Sequence[str]) -> GoldWestResult:
    """Score a stored final tally again (the result page shows what the rules derive, never a copy)."""
    return final_result(tallies_from_payload(payload, names), stored=True)


def check_final_tally(state: PlayState, final_payload: Mapping[str, Any], names: Sequence[str]) -> None:
    """Refuse a stored final tally the rules do not allow (what an imported play must pass)."""
    result_from_payload(final_payload, names)


def totals_tie_breakers(state: PlayState | None) -> tuple[tuple[str, Message, list[int | None]], ...]:
    """What typed totals ask of each player besides, for a tie on VP: payload key, label, values to start
    from (the Wanted camps the ledger counted; none without a ledger)."""
    wanted: list[int | None] = [None] * GAME.max_players if state is None else list(state.wanted)
    return (("wanted", Message("Camps in the Wanted area"), wanted),
            ("supply_left", Message("Resources left on the supply track"), [None] * len(wanted)))


def _typed(final_payload: Mapping[str, Any] | None, key: str, seats: int) -> list[int | None]:
    values = final_payload.get(key) if isinstance(final_payload, Mapping) else None
    if not isinstance(values, list) or len(values) != seats:
        return [None] * seats
    return [value if type(value) is int else None for value in values]


def _typed_tie_breakers(state: PlayState | None, final_payload: Mapping[str, Any] | None, seats: int
                        ) -> tuple[list[int], list[int | None]]:
    """The Wanted camps and resources left typed with totals only; Wanted camps not typed (plays closed
    before they were asked): the ledger's."""
    ledger = state.wanted if state is not None else (0,) * seats
    wanted = [counted if typed is None else typed
              for typed, counted in zip(_typed(final_payload, "wanted", seats), ledger, strict=True)]
    return wanted, _typed(final_payload, "supply_left", seats)


def _recorded_winners(final_payload: Mapping[str, Any] | None, seats: int) -> tuple[bool, ...]:
    """The seats an imported play names as winners (BG Stats' winner marks): how the table broke a tie
    the file has no tie-breakers for. All False where none are named."""
    winners = final_payload.get("winners") if isinstance(final_payload, Mapping) else None
    if not isinstance(winners, list) or not all(type(seat) is int for seat in winners):
        return (False,) * seats
    return tuple(seat in winners for seat in range(seats))


def check_typed_totals(state: PlayState | None, final_payload: Mapping[str, Any],
                       names: Sequence[str]) -> None:
    """Refuse typed totals tied on VP and Wanted camps without the resources left of the tied: a shared
    win is not what the paper scoring found."""
    check_tie_breakers(names, *_typed_tie_breakers(state, final_payload, len(names)), final_payload["totals"])


def typed_totals_result(state: PlayState | None, final_payload: Mapping[str, Any], names: Sequence[str],
                        totals: Sequence[int]) -> GoldWestResult:
    """Typed or imported totals ranked by the tie-breakers typed with them, then the winners an import
    names, and why (no majorities: none was entered)."""
    wanted, supply_left = _typed_tie_breakers(state, final_payload, len(names))
    ranked = common.rank_players(GAME.slug, ("total",), [(name, {"total": total}) for name, total in zip(
        names, totals, strict=True)], final_tie_breakers(state, final_payload, len(names)))
    source = final_payload.get("imported_from")
    # resources left not typed rank as 0 (``tie_breaker``), and are said so
    return GoldWestResult(game=ranked.game, players=ranked.players, tie_break_notes=tie_break_notes(
        ranked.players, wanted, [left or 0 for left in supply_left],
        _recorded_winners(final_payload, len(names)), source if isinstance(source, str) else ""))


# The end scoring's rows no tally makes negative: office formulas and majority values only count up. The
# track is not among them: it has no floor (``LOWEST_SCORE``).
_ROWS_NOT_BELOW_0 = ("offices", "influence")


def _check_corrected_rows(names: Sequence[str], breakdowns: Sequence[Mapping[str, int]]) -> None:
    """Refuse corrected rows no end scoring gives: offices or influence below 0, a Wanted penalty above 0,
    a largest group off its steps of 2 VP per building."""
    for name, rows in zip(names, breakdowns, strict=True):
        for row in _ROWS_NOT_BELOW_0:
            if rows.get(row, 0) < 0:
                raise RulesError("%(name)s: the row “%(row)s” cannot be below 0.", row, name=name,
                                 row=RowName(row))
        if rows.get("wanted", 0) > 0:
            raise RulesError("%(name)s: the row “%(row)s” is a penalty and cannot be above 0.", "wanted",
                             name=name, row=RowName("wanted"))
        group = rows.get("largest_group", 0)
        if group < 0 or group % GROUP_BUILDING_POINTS:
            raise RulesError("%(name)s: the row “%(row)s” scores %(vp)d VP per building, 0 or more, not "
                             "%(points)d.", "largest_group", name=name, row=RowName("largest_group"),
                             vp=GROUP_BUILDING_POINTS, points=group)


def check_corrected_tally(state: PlayState | None, final_payload: Mapping[str, Any] | None,
                          names: Sequence[str], breakdowns: Sequence[Mapping[str, int]]) -> None:
    """Refuse corrected rows no end scoring gives (``_check_corrected_rows``), and corrected totals that tie
    where the resources left decide and the final tally has none for some of the tied: a correction changes
    rows only, and counted as 0 they would rank the tie unseen."""
    _check_corrected_rows(names, breakdowns)
    totals = [sum(breakdown.values()) for breakdown in breakdowns]
    recorded: Sequence[bool] = ()
    if isinstance(final_payload, Mapping) and "totals" in final_payload:
        wanted, supply_left = _typed_tie_breakers(state, final_payload, len(names))
        recorded = _recorded_winners(final_payload, len(names))
    else:
        try:
            players = tallies_from_payload(final_payload or {}, names)
        except RulesError:
            return  # no tally of the game's own: a tie is ranked as it was when the play was finished
        wanted, supply_left = [p.wanted for p in players], [p.supply_left for p in players]
    ties = _unentered_ties(names, wanted, supply_left, totals, recorded)
    if ties:
        raise RulesError("%(names)s would be tied on %(total)d VP and on camps in the Wanted area "
                         "(%(wanted)d each): the resources left on the supply track decide, and the final "
                         "tally has none for %(missing)s. Reopen the play (undo the final tally) to enter "
                         "them.", **ties[0])


def final_tie_breakers(state: PlayState | None, final_payload: Mapping[str, Any] | None,
                       seats: int) -> list[tuple[int, ...]]:
    """The tie-breakers per seat as the final tally recorded them, else (totals only) as typed with them,
    the ledger's Wanted camps where none were typed, then the winners an imported play names."""
    players = final_payload.get("players") if isinstance(final_payload, Mapping) else None
    if isinstance(players, list) and len(players) == seats:
        counts = [(entry.get("wanted", 0), entry.get("supply_left", 0)) if isinstance(entry, Mapping)
                  else (None, None) for entry in players]
        # resources left not entered (None): no tie needed them (``tie_breaker``)
        if all(type(wanted) is int and (left is None or type(left) is int) for wanted, left in counts):
            return [tie_breaker(*pair) for pair in counts]
    typed = _typed_tie_breakers(state, final_payload, seats)
    return [(*tie_breaker(wanted, left), won)
            for wanted, left, won in zip(*typed, _recorded_winners(final_payload, seats), strict=True)]


# --- Turn order at the table --------------------------------------------------------------------------------
# The events that end a Build/Loot turn: the next player in turn order comes up after them.
TURN_ENDS = ("camp", "settlement", "loot")


class OutOfTurn(RulesError):
    """A tap for a player whose turn it is not, not yet confirmed."""

    # sent back with the tap (the ledger form's ``again``), they record it all the same
    answers = frozenset({"turn"})

    def __init__(self, seat: int, turn: int) -> None:
        super().__init__(Message("It is another player's turn."))
        self.seat, self.turn = seat, turn


def check_turn(state: PlayState, events: Sequence[tuple[str, Mapping[str, Any]]], seat: int,
               kind: str) -> None:
    """Refuse a tap out of turn (asked once) unless the player entered in this turn (in the last: anybody)
    or it puts the mining token of the player's turn just ended on the supply track."""
    turn = state.next_seat
    if turn is None or seat == turn or (kind == "supply" and state.own_turns[seat][1]):
        return
    if not any(payload.get("seat") == seat for _, payload in _turn_under_way(events)):
        raise OutOfTurn(seat, turn)


# In the rulebook's order a Build/Loot turn puts its mining token's resources on the supply track after the
# camp or loot: supply taps of its player right after it, nobody else's between, belong to the turn it ended.
def _turn_under_way(events: Sequence[tuple[str, Mapping[str, Any]]]) -> list[tuple[str, Mapping[str, Any]]]:
    """The taps since the last camp, settlement or loot, but its player's supply taps right after it."""
    taps = [event for event in events if event[0] in EVENT_KINDS]
    end = next((index for index in range(len(taps) - 1, -1, -1) if taps[index][0] in TURN_ENDS), None)
    if end is None:
        return taps
    ended_by, since = taps[end][1].get("seat"), taps[end + 1:]
    while since and since[0][0] == "supply" and since[0][1].get("seat") == ended_by:
        since = since[1:]
    return since


def _next_own_turn(turn: OwnTurn, kind: str, own: bool) -> OwnTurn:
    """A seat's ``OwnTurn`` after one more tap, its own or not."""
    kinds, ended = turn
    if ended and not (own and kind == "supply"):
        kinds, ended = (), False
    if own:
        kinds, ended = (*kinds, kind), ended or kind in TURN_ENDS
    return kinds, ended


# What a player does at most once a turn (the investment in rules/gold-west.md, BoomTown in the game's
# description): a second tap in the same turn is asked about, as a double tap would be.
ONCE_A_TURN: Mapping[str, str] = {"investment": "investment", "boomtown": "boomtown",
                                  "boomtown_1x1": "boomtown"}
_AGAIN_THIS_TURN: Mapping[str, Message] = {  # each names the player as %(name)s
    "investment": Message("%(name)s has bought an investment card this turn already. Another one?"),
    "boomtown": Message("%(name)s has been to BoomTown this turn already. Again?"),
    "supply": Message("%(name)s has put a mining token's resources on the supply track this turn already. "
                      "Again?"),
    "supply without token": Message("%(name)s has placed every camp, so no mining token is left to put on "
                                    "the supply track. Record it anyway?")}


def _supply_placements_left(state: PlayState, seat: int) -> tuple[bool, int]:
    """Whether ``seat`` has a mining token for its turn (a camp left, or the camp or loot that just ended
    the turn), and how many supply-track placements that turn has left: the token's, and one for each use
    of the 1×1 space with the Trading Post."""
    this_turn, ended = state.own_turns[seat]
    has_camp = ended or state.camps_placed[seat] < state.camps_per_player
    tokens = has_camp + (this_turn.count("boomtown_1x1") if state.trading_post else 0)
    return has_camp, tokens - this_turn.count("supply")


def supply_track_open(state: PlayState, seat: int) -> bool:
    """Whether the ledger offers ``seat`` the supply track: while it has camps (a mining token each turn),
    with the Trading Post (the 1×1 space's resource, in the last turn too), and after its last camp or loot
    until that turn's token is entered (the rulebook puts it on the supply track after the Build/Loot)."""
    return (state.camps_placed[seat] < state.camps_per_player or state.trading_post
            or _supply_placements_left(state, seat)[1] > 0)


class AgainThisTurn(RulesError):
    """A second investment, BoomTown use or mining token by one player in one turn, not yet confirmed."""

    answers = frozenset({"once"})

    def __init__(self, seat: int, name: str, kind: str) -> None:
        super().__init__(Message(_AGAIN_THIS_TURN[kind].template, name=name), "seat")
        self.seat = seat


def check_once_a_turn(state: PlayState, kind: str, seat: int) -> None:
    """Refuse (asked once) a second investment or BoomTown use of ``seat`` since its own last Build/Loot, and
    a supply-track placement beyond the turn's mining token (the Build/Loot step's, entered before or after
    its camp; one more for each use of the 1×1 space with the Trading Post)."""
    this_turn, ended = state.own_turns[seat]
    if ended and kind != "supply":
        this_turn = ()  # the tap begins the player's next turn
    name = state.setup.seats[seat].name
    if kind == "supply":
        has_camp, left = _supply_placements_left(state, seat)
        if left <= 0:
            raise AgainThisTurn(seat, name, "supply" if has_camp else "supply without token")
    limited = ONCE_A_TURN.get(kind)
    if limited is not None and any(ONCE_A_TURN.get(earlier) == limited for earlier in this_turn):
        raise AgainThisTurn(seat, name, limited)


# --- Several phones on one play: the same entry from two of them --------------------------------------------
# What another phone entered, said by the page that asks whether to record a tap as well.
_ENTERED_BY_ANOTHER_PHONE: Mapping[str, Message] = {  # each names the player as %(name)s
    "camp": Message("Another phone entered a camp for %(name)s since this page was drawn. "
                    "Record this tap as well?"),
    "settlement": Message("Another phone entered a settlement for %(name)s since this page was drawn. "
                          "Record this tap as well?"),
    "loot": Message("Another phone entered that %(name)s looted since this page was drawn. "
                    "Record this tap as well?"),
    "supply": Message("Another phone entered a supply-track section for %(name)s since this page was drawn. "
                      "Record this tap as well?"),
    "investment": Message("Another phone entered an investment card for %(name)s since this page was drawn. "
                          "Record this tap as well?"),
    "boomtown": Message("Another phone entered a BoomTown office for %(name)s since this page was drawn. "
                        "Record this tap as well?"),
    "boomtown_1x1": Message("Another phone entered the BoomTown 1×1 space for %(name)s since this page was "
                            "drawn. Record this tap as well?"),
    "shipping_line": Message("Another phone entered a shipping points line for %(name)s since this page was "
                             "drawn. Record this tap as well?"),
    "shipping_bonus": Message("Another phone entered a shipping bonus for %(name)s since this page was "
                              "drawn. Record this tap as well?")}


class EnteredByAnotherPhone(RulesError):
    """A tap for what another phone entered for the player since the page was drawn, not yet confirmed."""

    # a second one meant comes out of turn or again this turn: not asked twice
    answers = OutOfTurn.answers | AgainThisTurn.answers

    def __init__(self, seat: int, name: str, kind: str) -> None:
        super().__init__(Message(_ENTERED_BY_ANOTHER_PHONE[kind].template, name=name), "seat")
        self.seat, self.kind = seat, kind


ANSWERS = EnteredByAnotherPhone.answers  # all a ledger tap can come back with


def same_entry(kind: str) -> str:
    """What a tap enters, as two phones may both enter it: Build/Loot step, BoomTown visit, or its kind."""
    return "build" if kind in TURN_ENDS else ONCE_A_TURN.get(kind, kind)


# One stored event as the check below sees it: (kind, payload, the play version it brought, the phone it
# came from; None when unknown, as for a form sent without a request id).
StoredEntry = tuple[str, Mapping[str, Any], int, int | None]

# A tap that takes the next of some tiles, when another phone's entry took the tile its page showed.
_TILE_TAKEN_SINCE: Mapping[str, Message] = {  # %(taker)s took it, %(name)s tapped
    "shipping_bonus": Message("%(taker)s took the %(metal)s shipping bonus tile of +%(shown)d since this "
                              "page was drawn. Record %(name)s's bonus for +%(now)d?"),
    "investment": Message("%(taker)s took the +%(shown)d investment tile since this page was drawn. "
                          "Record %(name)s's investment with the +%(now)d tile?")}
_LAST_INVESTMENT_TILE_TAKEN_SINCE = Message("%(taker)s took the +%(shown)d investment tile since this page "
                                            "was drawn. Record %(name)s's investment without a tile?")


class TileTakenSince(RulesError):
    """A tap whose tile another phone's entry took since the page was drawn, not yet confirmed with the
    tile it takes now."""

    answers: frozenset[str] = frozenset()  # a yes to the other tile says nothing about turn or repeats

    def __init__(self, seat: int, message: Message) -> None:
        super().__init__(message, "seat")
        self.seat = seat


def _tile_at(tiles: Sequence[int], taken: int) -> int | None:
    """The tile the next of them takes after ``taken`` were taken; None once they are gone."""
    return tiles[taken] if taken < len(tiles) else None


def _check_tile_taken_since(state: PlayState, since: Sequence[tuple[str, Mapping[str, Any]]], kind: str,
                            payload: Mapping[str, Any]) -> None:
    """Refuse (asked once) a tap that would take another tile than its page showed, because entries of other
    phones ``since`` (newest first) took tiles of the same ones: the investment bonus tiles, or its metal's
    shipping bonus tiles (highest first)."""
    metal = payload.get("metal")
    # entries so far: investments go on once their tiles are gone, shipping bonuses do not
    if kind == "investment":
        tiles, so_far = INVESTMENT_BONUS_TILES[len(state.setup.seats)], sum(state.investments)
    elif kind == "shipping_bonus" and metal in SHIPPING_BONUS_VALUES:
        tiles, so_far = SHIPPING_BONUS_VALUES[metal], len(state.shipping_bonus[METALS.index(metal)])
    else:
        return
    # the same tiles: every investment's, or the shipping bonus of the same metal (investments name none)
    takers = [entered["seat"] for earlier, entered in since
              if earlier == kind and entered.get("metal") == metal]
    # the page may have shown no tile already: then the tap takes none either way
    shown = _tile_at(tiles, so_far - len(takers))
    if not takers or shown is None:
        return
    now = _tile_at(tiles, so_far)
    if now is None and kind == "shipping_bonus":
        return  # both tiles gone: the table refuses the tap
    seats, seat = state.setup.seats, payload["seat"]
    # the tile the page showed went to the oldest of them
    params = {"taker": seats[takers[-1]].name, "name": seats[seat].name, "shown": shown, "now": now}
    if kind == "shipping_bonus":
        params["metal"] = Term(metal)
    # an investment without a tile still scores its card
    message = _TILE_TAKEN_SINCE[kind] if now is not None else _LAST_INVESTMENT_TILE_TAKEN_SINCE
    raise TileTakenSince(seat, Message(message.template, **params))


def check_entered_since(state: PlayState, events: Sequence[StoredEntry], drawn: int | None, phone: int | None,
                        kind: str, payload: Mapping[str, Any]) -> None:
    """Refuse (asked once) a tap for the ``payload``'s seat when another phone entered the same for it after
    version ``drawn``, or took the tile the tap's page showed it; the phone's own entries (an offline queue)
    and a tap without a version are not asked about."""
    if drawn is None:
        return
    since = []  # other phones' entries after the page was drawn, newest first
    for earlier, entered, version, sent_by in reversed(events):
        if version <= drawn:  # versions only grow along the log
            break
        if phone is None or sent_by != phone:
            since.append((earlier, entered))
    seat, entry = payload["seat"], same_entry(kind)
    for earlier, entered in since:
        if earlier in EVENT_KINDS and entered.get("seat") == seat and same_entry(earlier) == entry:
            raise EnteredByAnotherPhone(seat, state.setup.seats[seat].name, earlier)
    _check_tile_taken_since(state, since, kind, payload)


@dataclass(frozen=True)
class LedgerScreen:
    """What the ledger offers at the table; the open shipping lines and bonuses are per seat."""

    turn: int | None  # None in the last turn, when every seat enters its own
    others: tuple[int, ...]  # in turn order after ``turn``; every seat in the last turn
    lines_open: tuple[tuple[ShippingStep, ...], ...]
    bonuses_open: tuple[tuple[ShippingStep, ...], ...]
    bonus_tracks: tuple[BonusTrack, ...]
    offices_open: tuple[str, ...]
    majorities: tuple[TerrainMajority, ...]
    supply_open: tuple[bool, ...]  # per seat: ``supply_track_open``


def ledger_screen(state: PlayState, own: int | None = None) -> LedgerScreen:
    """The ledger at the table; the phone of ``own`` shows its player's taps first (but in the last turn)."""
    count = len(state.setup.seats)
    seats = range(count)
    turn = own if own is not None and state.next_seat is not None else state.next_seat
    others = tuple(seats) if turn is None else tuple((turn + step) % count for step in range(1, count))
    return LedgerScreen(turn=turn, others=others,
                        lines_open=tuple(shipping_lines_open(state, seat) for seat in seats),
                        bonuses_open=tuple(shipping_bonuses_open(state, seat) for seat in seats),
                        bonus_tracks=shipping_bonus_tracks(state), offices_open=offices_open(state),
                        majorities=terrain_majorities(tallies_from_play(state)),  # as the ledger stands now
                        supply_open=tuple(supply_track_open(state, seat) for seat in seats))
