"""Great Western Trail, editions 1 and 2: the 11 rows of the final tally (rules/great-western-trail.md).
The game keeps no score track: the in-play log records delivered herds (their city crests) and the cards."""

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from companion.games import common
from companion.games.common import FinalResult, GameInfo, PlaySetup, RulesError, seat_index, whole_number
from companion.messages import Message, RowName, Term
from companion.names import name_key

GAME = GameInfo(slug="great-western-trail", name="Great Western Trail",
                min_players=1, max_players=4,  # solo play exists in the 2nd edition only; the 1st needs 2
                rows=("money", "buildings", "cities", "stations", "hazards", "cattle", "objectives",
                      "station_masters", "workers", "disc", "job_market"))

EDITIONS = (1, 2)
DEFAULT_EDITION = 2
EDITION_NAMES: Mapping[int, Message] = {1: Message("1st edition"), 2: Message("2nd edition")}
# Fewest and most players per edition: the 2nd edition adds solo play.
PLAYER_COUNTS: Mapping[int, tuple[int, int]] = {1: (2, 4), 2: (1, 4)}

STARTING_MONEY = (6, 7, 8, 9)  # by seat in turn order

DOLLARS_PER_VP = 5
WORKER_ROWS = ("cowboys", "craftsmen", "engineers")
WORKER_ROW_MIN = 1  # the first space of each row is printed on the player board
WORKER_ROW_MAX = 6
WORKER_SPACE_VP = 4  # per worker on the 5th or 6th space of its row
WORKER_SCORING_FROM = 5  # the first space that scores
DISC_VP = 3
JOB_MARKET_TOKEN_VP = 2
START_OBJECTIVE_VP = 3  # a start objective card: 3 VP and no penalty
OBJECTIVE_PENALTIES = (2, 3)  # the penalty of every other objective card (3, 4 or 5 VP)
OBJECTIVE_VPS = (3, 4, 5)  # what an objective card is worth
CREST_VP_MIN, CREST_VP_MAX = -100, 100  # any crest value a board can print, with room to spare
CITY_NAME_MAX = 40


# Reference values (board data): defaults players can check against their own board.
@dataclass(frozen=True)
class CattleBreed:
    """A kind of cattle card and the VP values its cards carry."""

    key: str
    name: str
    vp_values: tuple[int, ...]


CATTLE_BREEDS: tuple[CattleBreed, ...] = (
    CattleBreed("starting", "Starting herd", (0,)), CattleBreed("holstein", "Holstein", (1,)),
    CattleBreed("brown_swiss", "Brown Swiss", (2,)), CattleBreed("ayrshire", "Ayrshire", (3,)),
    CattleBreed("west_highland", "West Highland", (3, 4, 5)),
    CattleBreed("texas_longhorn", "Texas Longhorn", (5, 6, 7)))
CATTLE_CARD_VALUES: frozenset[int] = frozenset(v for breed in CATTLE_BREEDS for v in breed.vp_values)

# VP printed on each private building tile, side a and side b.
PRIVATE_BUILDINGS: Mapping[str, int] = {
    "1a": 1, "2a": 1, "3a": 1, "4a": 3, "5a": 4, "6a": 5, "7a": 6, "8a": 6, "9a": 9, "10a": 13,
    "1b": 1, "2b": 1, "3b": 3, "4b": 3, "5b": 4, "6b": 5, "7b": 6, "8b": 8, "9b": 8, "10b": 11}
# VP printed next to each train station, in track order.
STATION_VP = (1, 1, 2, 2, 3, 5, 6, 7, 8, 9)
# VP printed on the tiles of one hazard type.
HAZARD_VP = (2, 2, 3, 3, 4, 4)


@dataclass(frozen=True)
class StationMaster:
    """A tile scoring ``vp`` per full ``group`` of the Tally field ``counts`` (None: paid at once)."""

    key: str
    name: Message  # how sentences name it (the keys are the API's)
    editions: tuple[int, ...]
    counts: str | None
    vp: int
    group: int
    copies: int = 1  # tiles of this kind in the game


STATION_MASTERS: tuple[StationMaster, ...] = (  # what each pays, in words: forms.station_master_label
    StationMaster("workers", Message("Workers"), (1, 2), "workers", 1, 1),
    StationMaster("objectives", Message("Objectives"), (1, 2), "objectives", 3, 2),
    StationMaster("hazards", Message("Hazards"), (1, 2), "hazards", 3, 2),
    StationMaster("teepees", Message("Teepees"), (1, 2), "teepee_pairs", 3, 1),
    StationMaster("certificates", Message("Certificates"), (1, 2), "certificates", 3, 2),
    StationMaster("stations", Message("Stations"), (2,), "stations", 3, 2),
    StationMaster("buildings", Message("Buildings"), (2,), "buildings", 2, 1),
    StationMaster("none", Message("paid-at-once"), (2,), None, 0, 1, copies=2))
STATION_MASTER_BY_KEY: Mapping[str, StationMaster] = {master.key: master for master in STATION_MASTERS}
# Station-master tiles in one game: the 1st edition plays all 5; the 2nd draws 5 of its 9 (the two
# paid-at-once copies included).
STATION_MASTERS_IN_PLAY = 5


def station_master_keys(edition: int) -> tuple[str, ...]:
    """The station-master tiles of ``edition``, in the rules' table order."""
    return tuple(master.key for master in STATION_MASTERS if edition in master.editions)


# A player's final tally.
@dataclass(frozen=True)
class Objective:
    """One objective card in the objective area: VP if fulfilled, minus the penalty if not."""

    vp: int
    penalty: int = 0
    fulfilled: bool = False


@dataclass(frozen=True)
class Workers:
    """Spaces filled in each worker row of the player board, the printed first space included."""

    cowboys: int = 1
    craftsmen: int = 1
    engineers: int = 1

    @property
    def total(self) -> int:
        return self.cowboys + self.craftsmen + self.engineers


@dataclass(frozen=True)
class Tally:
    """What one player reads off the table at the end: ``*_vp`` rows, and counts the station masters use."""

    name: str
    dollars: int = 0
    buildings_vp: int = 0
    cities_vp: int = 0
    stations_vp: int = 0
    hazards_vp: int = 0
    cattle_vp: int = 0
    objectives: tuple[Objective, ...] = ()
    station_masters: tuple[str, ...] = ()
    workers: Workers = field(default_factory=Workers)
    teepee_pairs: int = 0
    hazards: int = 0
    certificates: int = 0
    stations: int = 0
    buildings: int = 0
    disc_cleared: bool = False
    job_market_token: bool = False


def station_master_vp(key: str, tally: Tally) -> int:
    master = STATION_MASTER_BY_KEY.get(key)
    if master is None:
        raise RulesError("There is no station master called %(key)s.", key=repr(key))
    counted = {None: 0, "workers": tally.workers.total, "objectives": len(tally.objectives)}
    count = counted[master.counts] if master.counts in counted else getattr(tally, master.counts)
    return master.vp * (count // master.group)


def worker_row_vp(filled: int) -> int:
    """4 VP per worker on the 5th or 6th space of one row."""
    return WORKER_SPACE_VP * max(0, filled - WORKER_SCORING_FROM + 1)


def breakdown(tally: Tally) -> dict[str, int]:
    """The 11 rows of one player's final tally, keyed like ``GAME.rows``."""
    return {"money": tally.dollars // DOLLARS_PER_VP, "buildings": tally.buildings_vp,
            "cities": tally.cities_vp, "stations": tally.stations_vp, "hazards": tally.hazards_vp,
            "cattle": tally.cattle_vp,
            "objectives": sum(card.vp if card.fulfilled else -card.penalty for card in tally.objectives),
            "station_masters": sum(station_master_vp(key, tally) for key in tally.station_masters),
            "workers": sum(worker_row_vp(getattr(tally.workers, row)) for row in WORKER_ROWS),
            "disc": DISC_VP if tally.disc_cleared else 0,
            "job_market": JOB_MARKET_TOKEN_VP if tally.job_market_token else 0}


# Checking a final tally against the rules.
def _player_count_problem(edition: int, count: int) -> Message | None:
    fewest, most = PLAYER_COUNTS[edition]
    if fewest <= count <= most:
        return None
    return Message("The %(edition)s is played by %(fewest)d to %(most)d players, not %(count)d.",
                   edition=EDITION_NAMES[edition], fewest=fewest, most=most, count=count)


def _unknown_master_sentence(edition: int, key: object) -> Message:
    return Message("The %(edition)s has no station master %(key)s; its tiles are %(valid)s.",
                   edition=EDITION_NAMES[edition], key=repr(key),
                   valid=", ".join(station_master_keys(edition)))


def tally_problems(edition: int, tallies: Sequence[Tally], *, strict: bool = True
                   ) -> list[tuple[str, Message]]:
    """Every way these tallies break the rules, as ``(path in the scoring API, sentence)`` in input order;
    ``strict=False`` leaves out the checks plays closed before them may fail (see check_final_tally)."""
    if type(edition) is not int or edition not in EDITIONS:
        return [("edition", Message("The edition must be 1 or 2."))]
    problems: list[tuple[str, Message]] = []
    if (wrong_count := _player_count_problem(edition, len(tallies))) is not None:
        problems.append(("players", wrong_count))
    names: set[str] = set()
    holders: dict[str, list[str]] = {}  # station-master key -> names of the players holding it
    token_holder: str | None = None
    for index, tally in enumerate(tallies):
        where = f"players[{index}]"
        name = tally.name.strip(common.NAME_SPACE)
        if not name:
            problems.append((f"{where}.name", Message("Every player needs a name.")))
        elif name_key(name) in names:
            problems.append((f"{where}.name", Message("Player names must be unique: %(name)s appears twice.",
                                                      name=repr(name))))
        else:
            names.add(name_key(name))
        problems.extend(_number_problems(tally, where, strict))
        for position, key in enumerate(tally.station_masters):
            path = f"{where}.station_masters[{position}]"
            master = STATION_MASTER_BY_KEY.get(key)
            if master is None or edition not in master.editions:
                problems.append((path, _unknown_master_sentence(edition, key)))
                continue
            held_by = holders.setdefault(key, [])
            if len(held_by) >= master.copies:
                problems.append((path, _taken_sentence(master, held_by)))
            elif sum(map(len, holders.values())) >= STATION_MASTERS_IN_PLAY:
                problems.append((path, _too_many_masters_sentence(edition, holders)))
            held_by.append(name)
        if tally.job_market_token and token_holder is not None:
            problems.append((f"{where}.job_market_token",
                             Message("Only one player holds the job-market token, and %(name)s already does.",
                                     name=token_holder)))
        elif tally.job_market_token:
            token_holder = name
    return problems


def _taken_sentence(master: StationMaster, held_by: Sequence[str]) -> Message:
    if master.copies == 1:
        return Message("The game has one %(master)s station master, and %(name)s already holds it.",
                       master=master.name, name=held_by[0])
    return Message("The game has %(copies)d %(master)s station masters, and %(names)s already hold them.",
                   copies=master.copies, master=master.name, names=common.listed(held_by, commas=False))


def _too_many_masters_sentence(edition: int, holders: Mapping[str, Sequence[str]]) -> Message:
    held = common.listed([Message("%(name)s: %(master)s", name=name, master=STATION_MASTER_BY_KEY[key].name)
                          for key, names in holders.items() for name in names])
    return Message("The %(edition)s has %(most)d station-master tiles in play, and they are taken already "
                   "(%(held)s).", edition=EDITION_NAMES[edition], most=STATION_MASTERS_IN_PLAY, held=held)


def _number_problems(tally: Tally, where: str, strict: bool = True) -> list[tuple[str, Message]]:
    """What one tally breaks on its own; ``strict`` adds the checks plays closed before them may fail."""
    problems = [(f"{where}.{name}", Message("%(what)s cannot be negative.",
                                            what=Term(name.replace("_", " ").capitalize())))
                for name in _NON_NEGATIVE if getattr(tally, name) < 0]
    for row in WORKER_ROWS:
        filled = getattr(tally.workers, row)
        if not WORKER_ROW_MIN <= filled <= WORKER_ROW_MAX:
            problems.append((f"{where}.workers.{row}",
                             Message("A row of %(row)s holds %(low)d to %(high)d workers (the first is "
                                     "printed), not %(filled)s.", row=Term(row), low=WORKER_ROW_MIN,
                                     high=WORKER_ROW_MAX, filled=filled)))
    start_cards = 0  # cards that only a start card can be: every player has one
    for position, card in enumerate(tally.objectives):
        start_cards += card.vp == START_OBJECTIVE_VP and card.penalty == 0 and not card.fulfilled
        if card.vp < 0 or card.penalty < 0:
            problems.append((f"{where}.objectives[{position}]",
                             Message("An objective card's VP and penalty are at least 0.")))
        elif strict and (problem := objective_vp_problem(card)) is not None:
            problems.append((f"{where}.objectives[{position}].vp", problem))
        elif strict and (problem := objective_penalty_problem(card)) is not None:
            problems.append((f"{where}.objectives[{position}].penalty", problem))
        elif strict and start_cards > 1:
            problems.append((f"{where}.objectives[{position}].penalty", SECOND_START_CARD))
    low, high = min(HAZARD_VP) * tally.hazards, max(HAZARD_VP) * tally.hazards
    if strict and "hazards" in tally.station_masters and not low <= tally.hazards_vp <= high:
        problems.append((f"{where}.hazards_vp", Message(
            "Hazard tiles are worth %(least)d to %(most)d VP each, %(low)d to %(high)d VP for a count of "
            "%(count)d, not %(vp)d: check the hazards row and the count for the station master.",
            count=tally.hazards, low=low, high=high, least=min(HAZARD_VP), most=max(HAZARD_VP),
            vp=tally.hazards_vp)))
    return problems


SECOND_START_CARD = Message(
    "A player has one start card. Every other %(vp)d-VP objective card that is not fulfilled costs its "
    "penalty, %(low)d or %(high)d.", vp=START_OBJECTIVE_VP, low=OBJECTIVE_PENALTIES[0],
    high=OBJECTIVE_PENALTIES[1])


def objective_vp_problem(card: Objective) -> Message | None:
    """Why no objective card is worth the card's VP, or None."""
    if card.vp in OBJECTIVE_VPS:
        return None
    return Message("An objective card is worth %(low)d to %(high)d VP, not %(vp)d.", low=OBJECTIVE_VPS[0],
                   high=OBJECTIVE_VPS[-1], vp=card.vp)


def objective_penalty_problem(card: Objective) -> Message | None:
    """Why the card's penalty fits no objective card, or None (a fulfilled card's may be left at 0)."""
    low, high = OBJECTIVE_PENALTIES
    if card.penalty == 0 and not card.fulfilled and card.vp != START_OBJECTIVE_VP:
        return Message("A %(vp)d-VP objective card that is not fulfilled costs its penalty, %(low)d or "
                       "%(high)d; only a start card (%(start)d VP) has none.",
                       vp=card.vp, low=low, high=high, start=START_OBJECTIVE_VP)
    if card.penalty == 0 or card.penalty in OBJECTIVE_PENALTIES:
        return None
    return Message("An objective card's penalty is %(low)d or %(high)d (a start card, %(start)d VP, has "
                   "none), not %(penalty)d.", low=low, high=high, start=START_OBJECTIVE_VP,
                   penalty=card.penalty)


def final_result(edition: int, tallies: Sequence[Tally]) -> FinalResult:
    """Score and rank the players (refusing the first ``tally_problems``); a tie on VP shares the rank."""
    if problems := tally_problems(edition, tallies):
        raise RulesError(problems[0][1], problems[0][0])
    return common.rank_players(GAME.slug, GAME.rows,
                               [(tally.name.strip(common.NAME_SPACE), breakdown(tally)) for tally in tallies])


# Calculators for the rows players add up by hand.
def buildings_vp_from_tiles(tiles: Sequence[str]) -> int:
    """The buildings row from the private tiles on the map, named like ``"4a"`` or ``"10b"``."""
    built: dict[str, int] = {}  # the VP of each building number
    for position, raw in enumerate(tiles):
        tile = raw.strip().lower() if isinstance(raw, str) else ""
        if tile not in PRIVATE_BUILDINGS:
            raise RulesError("%(tile)s is not a private building; name it by number and side, like 4a or "
                             "10b.", f"[{position}]", tile=repr(raw))
        if tile[:-1] in built:
            raise RulesError("Each player has one building %(number)s; it is listed twice.", f"[{position}]",
                             number=tile[:-1])
        built[tile[:-1]] = PRIVATE_BUILDINGS[tile]
    return sum(built.values())


def cattle_vp_from_cards(counts: Mapping[int, int]) -> int:
    """The cattle row from how many cards of each VP value the player owns: ``{3: 2, 5: 1}`` → 11."""
    for value, cards in counts.items():
        if type(value) is not int or value not in CATTLE_CARD_VALUES:
            raise _no_cattle_value(value, f"[{value!r}]")
        if type(cards) is not int or cards < 0:
            raise RulesError("The number of %(vp)d-VP cattle cards must be a whole number of at least 0.",
                             f"[{value}]", vp=value)
    return sum(value * cards for value, cards in counts.items())


def _no_cattle_value(value: object, path: str) -> RulesError:
    return RulesError("Cattle cards are worth %(values)s VP, not %(value)s.", path,
                      values=", ".join(_CATTLE_VALUE_BY_KEY), value=repr(value))


# The in-play log: delivered herds during play, then each player's final-tally card.
DELIVERY_EVENT = "delivery"
CARD_EVENT = "card"
EVENT_KINDS: tuple[str, ...] = (DELIVERY_EVENT, CARD_EVENT)
LOWEST_SCORE: int | None = None  # no score track: nothing to fall below during play
# How other apps name the game, with the options its plays start with (names compared without case or
# punctuation; "Great Western Trail: El Paso" is another game), and BoardGameGeek's id of each edition.
KNOWN_AS: Mapping[str, Mapping[str, Any]] = {
    "great western trail": {"edition": 1}, "great western trail second edition": {"edition": 2},
    "great western trail 2nd edition": {"edition": 2}, "great western trail zweite edition": {"edition": 2}}
BGG_IDS: Mapping[int, Mapping[str, Any]] = {193738: {"edition": 1}, 341169: {"edition": 2}}

# Crests the rules name that count for every disc placed (reference for the delivery form).
PER_DISC_CRESTS: Mapping[str, int] = {"Kansas City": -6, "San Francisco": 9, "New York": 9}
# A delivery to one of them carries that value, however the city's name was typed.
_FIXED_CREST_CITIES: Mapping[str, str] = {city.casefold(): city for city in PER_DISC_CRESTS}

# Bounds of the numbers on a final-tally card; the scoring endpoint uses the same.
VP_MAX = 999
PIECE_COUNTS = ("teepee_pairs", "hazards", "certificates", "stations", "buildings")  # what masters count
PIECES_MAX = 95  # the most of each
# Fields that are counts or VP sums and so cannot be negative (the cities row can).
_NON_NEGATIVE = ("dollars", "buildings_vp", "stations_vp", "hazards_vp", "cattle_vp", *PIECE_COUNTS)
OBJECTIVE_CARDS_MAX = 30
OBJECTIVE_VALUE_MAX = 9
CATTLE_CARDS_MAX = 99  # cards of one VP value
BUILDING_NUMBERS = tuple(str(number) for number in range(1, 11))


@dataclass(frozen=True)
class Delivery:
    """A herd delivered to a city and the crest VP it is worth to that player."""

    seat: int
    city: str
    crest_vp: int


@dataclass(frozen=True)
class Card:
    """One player's final-tally card: the tally and the calculator inputs it was entered with."""

    tally: Tally
    building_tiles: tuple[str, ...] | None = None  # None: the buildings row was entered as a VP total
    cattle_cards: tuple[tuple[int, int], ...] | None = None  # (card VP, cards) pairs; None: a VP total
    # Bookkeeping, not what the card says: two cards compare by their entries alone.
    handed_in: int = field(default=0, compare=False)  # all seats' cards handed in by then, this one included
    deliveries: tuple[Delivery, ...] = field(default=(), compare=False)  # the seat's, when it was handed in

    @property
    def breakdown(self) -> dict[str, int]:
        """The card's rows on their own (the station masters are checked across cards at the end)."""
        return breakdown(self.tally)

    @property
    def total(self) -> int:
        return sum(self.breakdown.values())


@dataclass(frozen=True)
class PlayState:
    """The table during play: the edition, every delivery so far (oldest first) and the cards handed in."""

    setup: PlaySetup
    edition: int
    deliveries: tuple[Delivery, ...] = ()
    cards: tuple[Card | None, ...] = ()  # per seat; None until that player hands in a card

    @property
    def starting_money(self) -> tuple[int, ...]:
        return STARTING_MONEY[:len(self.setup.seats)]

    @property
    def missing_cards(self) -> tuple[int, ...]:
        return tuple(seat for seat, card in enumerate(self.cards) if card is None)

    @property
    def all_cards_in(self) -> bool:
        return bool(self.cards) and not self.missing_cards

    @property
    def card_totals(self) -> tuple[int | None, ...]:
        """Each seat's card total on its own (None: no card yet), before the cards are checked together."""
        return tuple(None if card is None else card.total for card in self.cards)

    @property
    def next_seat(self) -> int:
        """The seat after the last delivery's: players go round the trail at about the same pace."""
        return (self.deliveries[-1].seat + 1) % len(self.setup.seats) if self.deliveries else 0

    @property
    def known_cities(self) -> tuple[str, ...]:
        """Cities to pick from when recording a delivery: those named by the rules, then those used so far."""
        return tuple(dict.fromkeys([*PER_DISC_CRESTS, *(delivery.city for delivery in self.deliveries)]))


def initial_state(setup: PlaySetup) -> PlayState:
    """The table before the first delivery; option ``edition`` (default 2), checked against the seats."""
    if setup.game != GAME.slug:
        raise RulesError("This play is of %(game)s, not %(name)s.", "game", game=repr(setup.game),
                         name=GAME.name)
    edition = setup.options.get("edition", DEFAULT_EDITION)
    if type(edition) is not int or edition not in EDITIONS:
        raise RulesError("The edition must be 1 or 2.", "edition")
    if (wrong_count := _player_count_problem(edition, len(setup.seats))) is not None:
        raise RulesError(wrong_count, "seats")
    return PlayState(setup=setup, edition=edition, cards=(None,) * len(setup.seats))


def apply_event(state: PlayState, kind: str, payload: Mapping[str, object]) -> PlayState:
    """The table after a delivered herd, or a player's final-tally card (replacing the seat's earlier one)."""
    if kind == DELIVERY_EVENT:
        return replace(state, deliveries=(*state.deliveries, delivery_from_payload(state, payload)))
    if kind == CARD_EVENT:
        seat, card = card_from_payload(state, payload)
        card = replace(card, deliveries=_deliveries_of(state, seat),
                       handed_in=1 + max((c.handed_in for c in state.cards if c is not None), default=0))
        return replace(state, cards=(*state.cards[:seat], card, *state.cards[seat + 1:]))
    raise RulesError("Great Western Trail has no event %(kind)s; record a delivery or a final-tally card.",
                     "kind", kind=repr(kind))


def _refuse_unknown_fields(payload: Mapping[str, object], known: frozenset[str], sentence: str) -> None:
    """Refuse a field of ``payload`` that is not ``known``, naming the first in ``sentence``."""
    unknown = sorted(str(key) for key in payload if key not in known)
    if unknown:
        raise RulesError(sentence, unknown[0], field=repr(unknown[0]))


def delivery_from_payload(state: PlayState, payload: Mapping[str, object]) -> Delivery:
    if not isinstance(payload, Mapping):
        raise RulesError("A delivery needs a seat, a city and the crest's VP.")
    _refuse_unknown_fields(payload, frozenset({"seat", "city", "crest_vp"}),
                           Message("A delivery has no field %(field)s."))
    seat = seat_index(payload, len(state.setup.seats))
    city = payload.get("city")
    if not isinstance(city, str) or not 0 < len(city.strip()) <= CITY_NAME_MAX:
        raise RulesError("Name the city the herd went to (1 to %(most)d characters).", "city",
                         most=CITY_NAME_MAX)
    crest_vp = payload.get("crest_vp")
    if type(crest_vp) is not int or not CREST_VP_MIN <= crest_vp <= CREST_VP_MAX:
        raise RulesError("A city crest is worth a whole number of VP from %(low)d to %(high)d.", "crest_vp",
                         low=CREST_VP_MIN, high=CREST_VP_MAX)
    city = _FIXED_CREST_CITIES.get(city.strip().casefold(), city.strip())
    fixed = per_disc_crest(city)
    if fixed is not None and crest_vp != fixed:
        raise RulesError("A delivery to %(city)s is worth %(fixed)s VP on every crest, not %(given)s.",
                         "crest_vp", city=city, fixed=f"{fixed:+d}", given=f"{crest_vp:+d}")
    return Delivery(seat=seat, city=city, crest_vp=crest_vp)


class SecondDisc(RulesError):
    """A delivery to a city that holds the player's disc already, not yet confirmed: a city holds one disc of
    each player, but for those whose crest counts per disc. ``answer`` confirms this very delivery."""

    def __init__(self, message: str, path: str, *, answer: str, **params: object) -> None:
        super().__init__(message, path, **params)
        self.answer = answer


def check_second_disc(state: PlayState, payload: Mapping[str, object], confirmed: str = "") -> None:
    """Refuse (``SecondDisc``) a delivery to a city that holds the player's disc already, unless ``confirmed``
    is the answer to that question: asked again once the player or the city differ."""
    delivery = delivery_from_payload(state, payload)
    if per_disc_crest(delivery.city) is not None:
        return
    discs = {name_key(before.city): before.city for before in _deliveries_of(state, delivery.seat)}
    there = discs.get(name_key(delivery.city))
    answer = f"{delivery.seat} {name_key(delivery.city)}"
    if there is not None and confirmed != answer:
        raise SecondDisc("%(name)s has a disc in %(city)s already: a city holds one disc of each player, but "
                         "%(cities)s. Record the delivery again to place a second one.", "city",
                         answer=answer, name=state.setup.seats[delivery.seat].name, city=there,
                         cities=common.listed(list(PER_DISC_CRESTS)))


def per_disc_crest(city: str) -> int | None:
    """The VP every crest of that city is worth (Kansas City −6 …), however it is typed; None if it varies."""
    fixed_name = _FIXED_CREST_CITIES.get(" ".join(city.split()).casefold())
    return None if fixed_name is None else PER_DISC_CRESTS[fixed_name]


def cities_vp_from_deliveries(state: PlayState, seat: int) -> int:
    return sum(delivery.crest_vp for delivery in _deliveries_of(state, seat))


def running_scores(state: PlayState) -> tuple[int, ...]:
    """Per seat, the crest VP of the deliveries so far: they become each player's ``cities_vp``."""
    return tuple(cities_vp_from_deliveries(state, seat) for seat in range(len(state.setup.seats)))


# The final-tally card of one player, as the "card" event carries it: the whole numbers every card gives,
# with their bounds and how a sentence names them.
_CARD_NUMBERS: Mapping[str, tuple[int, int, Message]] = {
    "dollars": (0, VP_MAX, Message("Money")),
    "cities_vp": (CREST_VP_MIN, VP_MAX, Message("The cities row")),
    "stations_vp": (0, VP_MAX, Message("The stations row")),
    "hazards_vp": (0, VP_MAX, Message("The hazards row")),
    "teepee_pairs": (0, PIECES_MAX, Message("The number of teepee pairs")),
    "hazards": (0, PIECES_MAX, Message("The number of hazard tiles")),
    "certificates": (0, PIECES_MAX, Message("The number of certificates")),
    "stations": (0, PIECES_MAX, Message("The number of stations"))}
_CARD_FLAGS = ("disc_cleared", "job_market_token")
_CARD_REQUIRED = ("seat", *_CARD_NUMBERS, "objectives", "station_masters", "workers", *_CARD_FLAGS)
# Rows a card gives one way or the other (as a VP total or through its calculator), and the count beside.
_CARD_FIELDS = frozenset((*_CARD_REQUIRED, "buildings_vp", "building_tiles", "cattle_vp", "cattle_cards",
                          "buildings"))
_OBJECTIVE_FIELDS = frozenset({"vp", "penalty", "fulfilled"})
_CATTLE_VALUE_BY_KEY: Mapping[str, int] = {str(value): value for value in sorted(CATTLE_CARD_VALUES)}


class StaleCard(RulesError):
    """A card entered on a view of the seat's card that another phone has replaced since."""


class RepeatedCard(RulesError):
    """A card that says exactly what the seat's card already says (the same form sent twice)."""


def card_from_payload(state: PlayState, payload: Mapping[str, object]) -> tuple[int, Card]:
    """The seat and checked card of a ``"card"`` payload: the buildings row as ``buildings_vp`` or
    ``building_tiles`` (``["4a"]``), the cattle row as ``cattle_vp`` or ``cattle_cards`` (``{"3": 2}``)."""
    if not isinstance(payload, Mapping):
        raise RulesError("A final-tally card needs a seat and the rows of the scoring pad.")
    _refuse_unknown_fields(payload, _CARD_FIELDS, Message("A final-tally card has no field %(field)s."))
    seat = seat_index(payload, len(state.setup.seats))
    for key in _CARD_REQUIRED:
        if key not in payload:
            raise RulesError("The card lacks %(field)s.", key, field=repr(key))
    numbers = {key: whole_number(payload[key], key, low, high, label)
               for key, (low, high, label) in _CARD_NUMBERS.items()}
    tiles, buildings_vp = _buildings_row(payload)
    cattle_cards, cattle_vp = _cattle_row(payload)
    tally = Tally(
        name=state.setup.seats[seat].name, buildings_vp=buildings_vp, cattle_vp=cattle_vp,
        objectives=_objectives(payload["objectives"]),
        station_masters=_station_masters(payload["station_masters"], state.edition),
        workers=_workers(payload["workers"]), buildings=_buildings_count(payload, tiles), **numbers,
        **{flag: _flag(payload[flag], flag) for flag in _CARD_FLAGS})
    return seat, Card(tally=tally, building_tiles=tiles, cattle_cards=cattle_cards)


def _flag(value: object, path: str) -> bool:
    if type(value) is not bool:
        raise RulesError("%(what)s is yes or no (true or false).", path,
                         what=Term(path.replace("_", " ").capitalize()))
    return value


def _one_of(payload: Mapping[str, object], total: str, calculator: str, row: str) -> bool:
    """Whether the row came through its calculator (True) or as a VP total (False); never both."""
    if (total in payload) == (calculator in payload):
        raise RulesError("Give the %(row)s row either as %(calculator)s or as %(total)s, not both or "
                         "neither.", total, row=Term(row), calculator=repr(calculator), total=repr(total))
    return calculator in payload


def _buildings_row(payload: Mapping[str, object]) -> tuple[tuple[str, ...] | None, int]:
    if not _one_of(payload, "buildings_vp", "building_tiles", "buildings"):
        return None, whole_number(payload["buildings_vp"], "buildings_vp", 0, VP_MAX,
                                  Message("The buildings row"))
    tiles = payload["building_tiles"]
    if not isinstance(tiles, list | tuple) or len(tiles) > len(BUILDING_NUMBERS):
        raise RulesError("List the private building tiles on the map, like 4a or 10b; a player has %(most)d "
                         "at most.", "building_tiles", most=len(BUILDING_NUMBERS))
    try:
        vp = buildings_vp_from_tiles(tiles)
    except RulesError as error:
        raise RulesError(error.message, f"building_tiles{error.path}") from None
    return tuple(tile.strip().lower() for tile in tiles), vp


def _buildings_count(payload: Mapping[str, object], tiles: tuple[str, ...] | None) -> int:
    """The private buildings on the map: the tiles listed, or the count the card gives."""
    label = Message("The number of private buildings")
    if tiles is None:
        if "buildings" not in payload:
            raise RulesError("The card lacks 'buildings' (how many private buildings are on the map).",
                             "buildings")
        return whole_number(payload["buildings"], "buildings", 0, len(BUILDING_NUMBERS), label)
    counted = payload.get("buildings")
    if counted is not None and whole_number(counted, "buildings", 0, PIECES_MAX, label) != len(tiles):
        raise RulesError("The card lists %(tiles)d private building tiles but counts %(counted)d private "
                         "buildings.", "buildings", tiles=len(tiles), counted=counted)
    return len(tiles)


def _cattle_row(payload: Mapping[str, object]) -> tuple[tuple[tuple[int, int], ...] | None, int]:
    if not _one_of(payload, "cattle_vp", "cattle_cards", "cattle"):
        return None, whole_number(payload["cattle_vp"], "cattle_vp", 0, VP_MAX, Message("The cattle row"))
    cards = payload["cattle_cards"]
    if not isinstance(cards, Mapping):
        raise RulesError("Give the cattle cards as the number of cards per VP value.", "cattle_cards")
    counts: dict[int, int] = {}
    for key, number in cards.items():
        value = _CATTLE_VALUE_BY_KEY.get(key) if isinstance(key, str) else None
        if value is None:
            raise _no_cattle_value(key, "cattle_cards")
        counts[value] = whole_number(number, f"cattle_cards.{key}", 0, CATTLE_CARDS_MAX,
                                     Message("The number of %(vp)d-VP cattle cards", vp=value))
    owned = tuple(sorted((value, number) for value, number in counts.items() if number))
    return owned, cattle_vp_from_cards(counts)


def _objectives(value: object) -> tuple[Objective, ...]:
    if not isinstance(value, list | tuple) or len(value) > OBJECTIVE_CARDS_MAX:
        raise RulesError("List the objective cards in your objective area (%(most)d at most).", "objectives",
                         most=OBJECTIVE_CARDS_MAX)
    cards = []
    for position, card in enumerate(value):
        path = f"objectives[{position}]"
        if not isinstance(card, Mapping) or set(card) != _OBJECTIVE_FIELDS:
            raise RulesError("An objective card has its VP, its penalty and whether it is fulfilled.", path)
        cards.append(Objective(
            vp=whole_number(card["vp"], f"{path}.vp", 0, OBJECTIVE_VALUE_MAX,
                            Message("An objective card's VP")),
            penalty=whole_number(card["penalty"], f"{path}.penalty", 0, OBJECTIVE_VALUE_MAX,
                                 Message("An objective card's penalty")),
            fulfilled=_flag(card["fulfilled"], f"{path}.fulfilled")))
    return tuple(cards)


def _station_masters(value: object, edition: int) -> tuple[str, ...]:
    if not isinstance(value, list | tuple) or len(value) > len(STATION_MASTERS) + 1:
        raise RulesError("List the keys of the station-master tiles you hold.", "station_masters")
    valid = station_master_keys(edition)
    held: list[str] = []
    for position, key in enumerate(value):
        path = f"station_masters[{position}]"
        if not isinstance(key, str) or key not in valid:
            raise RulesError(_unknown_master_sentence(edition, key), path)
        if held.count(key) >= STATION_MASTER_BY_KEY[key].copies:
            raise RulesError("The %(master)s station master is ticked more often than the game has it.", path,
                             master=STATION_MASTER_BY_KEY[key].name)
        if len(held) >= STATION_MASTERS_IN_PLAY:
            raise RulesError("The %(edition)s has %(most)d station-master tiles in play; nobody holds more.",
                             path, edition=EDITION_NAMES[edition], most=STATION_MASTERS_IN_PLAY)
        held.append(key)
    return tuple(held)


def _workers(value: object) -> Workers:
    if not isinstance(value, Mapping) or set(value) != set(WORKER_ROWS):
        raise RulesError("Give the workers of each row: %(rows)s.", "workers", rows=", ".join(WORKER_ROWS))
    return Workers(**{row: whole_number(value[row], f"workers.{row}", WORKER_ROW_MIN, WORKER_ROW_MAX,
                                        Message("A row of %(row)s", row=Term(row))) for row in WORKER_ROWS})


# A card page's revision packs two fingerprints: of the seat's card (its last 32 bits; 0: none) and of the
# seat's deliveries (the bits above; 0: none).
REVISION_CARDS_BASE = 2 ** 32


def card_revision(state: PlayState, seat: int) -> int:
    """The number a card form keeps to spot a stale view of the seat's card (0: no card, no delivery yet).
    Both count by what they say, not how many: a card or delivery undone and entered again differently
    counts, one entered again the same does not."""
    card = state.cards[seat]
    cards = 0 if card is None else _fingerprint((card.tally, card.building_tiles, card.cattle_cards)) or 1
    return _fingerprint(_deliveries_of(state, seat)) * REVISION_CARDS_BASE + cards


def _deliveries_of(state: PlayState, seat: int) -> tuple[Delivery, ...]:
    return tuple(delivery for delivery in state.deliveries if delivery.seat == seat)


def _fingerprint(entries: object) -> int:
    """32 bits of what ``entries`` say (0: nothing)."""
    return int(hashlib.sha256(repr(entries).encode()).hexdigest()[:8], 16) if entries else 0


def cities_behind_deliveries(state: PlayState, seat: int) -> int | None:
    """The cities row the seat's deliveries give now, if they changed since its card was handed in and the
    card's row differs; else None."""
    card, deliveries = state.cards[seat], _deliveries_of(state, seat)
    vp = cities_vp_from_deliveries(state, seat)
    return vp if card is not None and card.deliveries != deliveries and card.tally.cities_vp != vp else None


def cards_behind_deliveries(state: PlayState) -> list[Message]:
    """For each card in whose cities row a delivery entered or undone since leaves behind: what to do."""
    return [Message("%(name)s's deliveries changed after %(name)s's card was handed in: they give %(vp)d VP "
                    "for the cities row now, the card %(card)d. Change %(name)s's card.",
                    name=state.setup.seats[seat].name, vp=vp, card=card.tally.cities_vp)
            for seat, card in enumerate(state.cards)
            if card is not None and (vp := cities_behind_deliveries(state, seat)) is not None]


def check_new_card(state: PlayState, payload: Mapping[str, object], based_on: int) -> None:
    """Refuse a card that repeats the seat's, has numbers no card can have (``tally_problems``' own) or comes
    from a page outdated since."""
    seat, card = card_from_payload(state, payload)
    if problems := _number_problems(card.tally, "card"):
        path, problem = problems[0]
        raise RulesError(problem, path.removeprefix("card."))
    name = state.setup.seats[seat].name
    if state.cards[seat] == card and cities_behind_deliveries(state, seat) is None:
        raise RepeatedCard("%(name)s's card is already in, exactly like this.", name=name)
    seen_deliveries, seen_cards = divmod(based_on, REVISION_CARDS_BASE)
    deliveries_now, cards_now = divmod(card_revision(state, seat), REVISION_CARDS_BASE)
    if seen_cards != cards_now:
        raise StaleCard("%(name)s's card was changed on another phone since you opened it. What is saved now "
                        "is shown next to each row: check it and send your card again.", name=name)
    if seen_deliveries != deliveries_now:
        raise StaleCard(_deliveries_changed_sentence(state, seat, seen_deliveries))


def _deliveries_changed_sentence(state: PlayState, seat: int, seen_fingerprint: int) -> Message:
    """The deliveries another phone entered for the seat since its card page was drawn, or that it undid."""
    deliveries = _deliveries_of(state, seat)
    name, vp = state.setup.seats[seat].name, cities_vp_from_deliveries(state, seat)
    seen = next((count for count in range(len(deliveries))
                 if _fingerprint(deliveries[:count]) == seen_fingerprint), None)
    if seen is None:
        return Message("Another phone undid a delivery of %(name)s's since this page was drawn: %(name)s's "
                       "deliveries now give %(vp)d VP for the cities row. Check it and send your card again.",
                       name=name, vp=vp)
    entered = common.listed([Message("a delivery to %(city)s (%(crest)s VP)", city=delivery.city,
                                     crest=f"{delivery.crest_vp:+d}") for delivery in deliveries[seen:]])
    return Message("Another phone entered %(deliveries)s for %(name)s since this page was drawn: %(name)s's "
                   "deliveries now give %(vp)d VP for the cities row. Check it and send your card again.",
                   deliveries=entered, name=name, vp=vp)


# The game ends once a player moved the job-market token off the last space of the job market (both
# editions): the cards of a finished game name that player.
NOBODY_HOLDS_THE_TOKEN = Message(
    "Someone holds the job-market token: the game ends when a player moves it off the last space of the job "
    "market, and that player takes it (%(vp)d VP). Tick “I hold the job-market token” on that player's card.",
    vp=JOB_MARKET_TOKEN_VP)


def card_conflicts(state: PlayState) -> list[Message]:
    """Once every card is in: a cities row left behind by the deliveries, each way the cards break the rules
    together (blaming the last), a token unheld."""
    if not state.all_cards_in:
        return []
    conflicts = [*cards_behind_deliveries(state), *_cards_problems(state)]
    if not any(card.tally.job_market_token for card in state.cards if card is not None):
        conflicts.append(NOBODY_HOLDS_THE_TOKEN)
    return conflicts


def _cards_problems(state: PlayState, strict: bool = True) -> list[Message]:
    """``tally_problems`` of the cards in the order they were handed in, each naming its player."""
    tallies = [card.tally for card in sorted(filter(None, state.cards), key=lambda card: card.handed_in)]
    problems = []
    for path, sentence in tally_problems(state.edition, tallies, strict=strict):
        index = path[len("players["):].split("]", 1)[0] if path.startswith("players[") else ""
        if index.isdigit() and int(index) < len(tallies):
            sentence = Message("%(name)s: %(sentence)s", name=tallies[int(index)].name, sentence=sentence)
        problems.append(sentence)
    return problems


def result_from_cards(state: PlayState) -> FinalResult:
    """The final result once every card is in and the cards agree; RulesError says what is missing."""
    if missing := [state.setup.seats[seat].name for seat in state.missing_cards]:
        raise RulesError("Waiting for the final-tally card of %(names)s.", "cards",
                         names=common.listed(missing, commas=False))
    _refuse_conflicts(card_conflicts(state))
    return final_result(state.edition, [card.tally for card in state.cards if card is not None])


def _refuse_conflicts(conflicts: Sequence[Message]) -> None:
    if conflicts:
        every_conflict = common.chained(Message("%(earlier)s %(later)s"), conflicts)
        raise RulesError(every_conflict, "cards")


def check_final_tally(state: PlayState, final_payload: Mapping[str, Any], names: Sequence[str]) -> None:
    """Refuse a finished play (read from a backup) whose cards, its tally, the rules do not allow. One closed
    before the cards had to name the token's holder, and one that fails only the strict checks, passes."""
    if state.all_cards_in:
        _refuse_conflicts(_cards_problems(state, strict=False))


# The pad's rows no card makes negative.
_ROWS_NOT_BELOW_0 = ("money", "buildings", "stations", "hazards", "cattle", "station_masters")
_WORKERS_VP_MAX = len(WORKER_ROWS) * (WORKER_ROW_MAX - WORKER_SCORING_FROM + 1) * WORKER_SPACE_VP


def check_corrected_tally(state: PlayState | None, final_payload: Mapping[str, Any] | None,
                          names: Sequence[str], breakdowns: Sequence[Mapping[str, int]]) -> None:
    """Refuse corrected rows no cards could give: a row below 0 that cannot be, workers off their steps
    of 4 VP, the disc or the token worth other than its VP or nothing, the token held by two players."""
    holders = []
    for name, rows in zip(names, breakdowns, strict=True):
        for row in _ROWS_NOT_BELOW_0:
            if rows.get(row, 0) < 0:
                raise RulesError("%(name)s: the row “%(row)s” cannot be below 0.", row, name=name,
                                 row=RowName(row))
        workers, disc, token = (rows.get(row, 0) for row in ("workers", "disc", "job_market"))
        if workers % WORKER_SPACE_VP or not 0 <= workers <= _WORKERS_VP_MAX:
            raise RulesError("%(name)s: workers score %(vp)d VP per worker on the 5th or 6th space of a row, "
                             "0 to %(most)d in all, not %(points)d.", "workers", name=name,
                             vp=WORKER_SPACE_VP, most=_WORKERS_VP_MAX, points=workers)
        if disc not in (0, DISC_VP):
            raise RulesError("%(name)s: the 3-VP disc scores %(vp)d or nothing, not %(points)d.", "disc",
                             name=name, vp=DISC_VP, points=disc)
        if token not in (0, JOB_MARKET_TOKEN_VP):
            raise RulesError("%(name)s: the job-market token scores %(vp)d or nothing, not %(points)d.",
                             "job_market", name=name, vp=JOB_MARKET_TOKEN_VP, points=token)
        if token:
            holders.append(name)
    if len(holders) > 1:
        raise RulesError("Only one player holds the job-market token, not %(names)s.", "job_market",
                         names=common.listed(holders, commas=False))


# A tie shares the victory.
final_tie_breakers = check_typed_totals = common.no_tie_breakers
totals_tie_breakers = common.nothing_asked_for_ties


def final_tally_input(state: PlayState) -> dict[str, object]:
    """The cards as the scoring endpoint's request body: what the play's closing event keeps."""
    return {"edition": state.edition,
            "players": [asdict(card.tally) for card in state.cards if card is not None]}
