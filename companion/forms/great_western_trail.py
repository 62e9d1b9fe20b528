"""Great Western Trail forms: the edition when a play starts, delivered herds, and each player's card."""

from collections.abc import Mapping, Sequence
from dataclasses import asdict

from flask_babel import lazy_gettext as _l
from wtforms import BooleanField, HiddenField, RadioField, StringField
from wtforms.validators import DataRequired, InputRequired, Length, NumberRange, Optional

from companion.forms import (
    OPTION_FORMS,
    Checklist,
    PlainForm,
    SiteForm,
    WholeNumberField,
    check_page_number,
    choices,
    collapse_spaces,
)
from companion.games import great_western_trail as gwt
from companion.web.i18n import translated

EDITION_LABELS = {2: _l("2nd edition (2021)"), 1: _l("1st edition (2016)")}  # newest first, as offered
OBJECTIVE_ROWS = 5  # objective rows a new card offers (most players end with 2 to 4 cards)
MORE_OBJECTIVE_ROWS = 4  # rows the "more rows" button adds
START_OBJECTIVE = gwt.Objective(vp=gwt.START_OBJECTIVE_VP, penalty=0)  # every player's start card (row 1)
# Cattle card values a player counts (the starting herd's cards are worth 0).
CATTLE_VALUES = tuple(value for value in sorted(gwt.CATTLE_CARD_VALUES) if value > 0)
# a card's revision is two 32-bit fingerprints (``gwt.card_revision``): at most 20 digits
REVISION_DIGITS = len(str(gwt.REVISION_CARDS_BASE ** 2 - 1))
WORKER_LABELS = (_l("Cowboys"), _l("Craftsmen"), _l("Engineers"))  # in the order of the rules' WORKER_ROWS

# What each row of the card asks for, with the rules' numbers.
ROW_HINTS = {
    "buildings": _l("Tick your private building tiles on the map (the VP printed on side a and side b), "
                    "or enter their VP total. Neutral buildings score nothing."),
    "cities": _l("The VP of the city crests your discs unlocked; Kansas City's crests are negative."),
    "cattle": _l("Count every cattle card you own (draw pile, hand and discard pile) by the VP printed "
                 "on it, or enter their VP total."),
    "objectives": _l("One row per objective card: its VP, and if not fulfilled its penalty. Row 1 is "
                     "your start card (%(vp)d VP).", vp=START_OBJECTIVE.vp),
    "station_masters": _l("Tick the tiles you hold; a tile that counts something asks for that number."),
    "workers": _l("Workers in each row, the printed first space included. %(vp)d VP for each worker on "
                  "space %(first)d or %(last)d of its row: a full row gives %(full)d VP.",
                  vp=gwt.WORKER_SPACE_VP, first=gwt.WORKER_SCORING_FROM, last=gwt.WORKER_ROW_MAX,
                  full=gwt.worker_row_vp(gwt.WORKER_ROW_MAX)),
}


class GreatWesternTrailOptionsForm(PlainForm):
    """The options of a new play: the edition."""

    edition = RadioField(_l("Edition"), coerce=int, default=gwt.DEFAULT_EDITION,
                         choices=choices(EDITION_LABELS.items()))
    # Read by the new-play page, which shows each seat's starting money.
    starting_money = gwt.STARTING_MONEY


OPTION_FORMS[gwt.GAME.slug] = GreatWesternTrailOptionsForm


def _number(label, low: int, high: int, required=None, description=""):
    validators = [InputRequired(required) if required else Optional(), NumberRange(low, high)]
    return WholeNumberField(label, validators=validators, description=description)


class DeliveryForm(SiteForm):
    """A herd delivered during play: who, to which city, and the crest VP of the disc placed."""

    seat = RadioField(_l("Player"), coerce=int, validate_choice=True)  # a button per player
    city = StringField(_l("City"), filters=[collapse_spaces], validators=[
        DataRequired(_l("Type or pick the city the herd went to.")), Length(max=gwt.CITY_NAME_MAX)])
    # left empty where the rules fix the crest or there is none: one box less to fill in
    crest_vp = _number(_l("Crest VP"), gwt.CREST_VP_MIN, gwt.CREST_VP_MAX, description=_l(
        "Negative crests too. Leave it empty for a city without a crest (0 VP) and for %(examples)s: the "
        "rules fix those.", examples=", ".join(f"{city} {vp:+d}" for city, vp in gwt.PER_DISC_CRESTS.items()),
    ))
    # a second disc in the city, asked about and meant (``gwt.SecondDisc.answer``)
    again = HiddenField(default="")

    def payload(self) -> dict:
        """The ``"delivery"`` event this form describes; left empty, the crest the rules fix, else 0."""
        crest_vp = self.crest_vp.data
        if crest_vp is None:
            crest_vp = gwt.per_disc_crest(self.city.data) or 0  # validated: a city was given
        return {"seat": self.seat.data, "city": self.city.data, "crest_vp": crest_vp}


def delivery_form(names: Sequence[str], formdata=None, turn: int | None = None) -> DeliveryForm:
    """The delivery form with the play's players, in seat order, to pick from; ``turn``'s seat picked (a
    form not sent yet: a sent form without a player is refused, never given one)."""
    form = DeliveryForm(formdata=formdata, data=None if turn is None else {"seat": turn})
    form.seat.choices = choices(enumerate(names))
    return form


# The final-tally card.

def station_master_label(master: gwt.StationMaster, edition: int):
    """What a station-master tile pays, in words, with the rules' numbers."""
    numbers = {"vp": master.vp, "group": master.group}
    if master.key == "teepees" and edition == 1:
        return _l("Teepees: %(vp)d VP per pair of 1 green and 1 blue teepee", **numbers)
    return {
        "workers": _l("Workers: %(vp)d VP per worker, the printed ones included", **numbers),
        "objectives": _l("Objectives: %(vp)d VP per %(group)d objective cards in your area", **numbers),
        "hazards": _l("Hazards: %(vp)d VP per %(group)d hazard tiles", **numbers),
        "teepees": _l("Outlaws: %(vp)d VP per pair of 1 green and 1 orange outlaw", **numbers),
        "certificates": _l("Certificates: %(vp)d VP per %(group)d certificates, permanent and temporary",
                           **numbers),
        "stations": _l("Stations: %(vp)d VP per %(group)d stations holding your disc", **numbers),
        "buildings": _l("Buildings: %(vp)d VP per private building of yours on the map", **numbers),
        "none": _l("Paid at once (certificates or money): no VP now"),
    }[master.key]


class CardForm(SiteForm):
    """One player's final tally, row by row in the scoring pad's order (built by :func:`card_form`)."""

    revision = HiddenField()
    objective_rows = HiddenField()
    hints = ROW_HINTS
    start_objective_vp = START_OBJECTIVE.vp  # what ticking row 1 (the start card) fills in
    edition: int
    rows: int
    wants_more_rows = False  # the player asked for more objective rows instead of saving

    def validate_revision(self, field: HiddenField) -> None:
        check_page_number(field.data, REVISION_DIGITS)

    @property
    def revision_number(self) -> int:
        return int(self.revision.data)

    @property
    def objective_fields(self) -> list[tuple]:
        """Each objective row's (VP, penalty, fulfilled) fields."""
        return [(self[f"objective_{row}_vp"], self[f"objective_{row}_penalty"],
                 self[f"objective_{row}_fulfilled"]) for row in range(self.rows)]

    @property
    def cattle_fields(self) -> list:
        return [self[f"cattle_{value}"] for value in CATTLE_VALUES]

    def count_field(self, master_key: str):
        """The count a station master needs from the player, or None (it counts what the card has)."""
        master = gwt.STATION_MASTER_BY_KEY.get(master_key)
        return self[master.counts] if master is not None and master.counts in gwt.PIECE_COUNTS else None

    def validate(self, extra_validators=None) -> bool:
        """Also: rows given twice or not at all, objective rows without VP or a fitting penalty, counts."""
        valid = super().validate(extra_validators)
        problems = []
        if self.building_tiles.data and self.buildings_vp.data is not None:
            problems.append((self.buildings_vp, _l("Tick your tiles or enter the VP total, not both.")))
        elif not self.building_tiles.data and self.buildings_vp.data is None:
            problems.append((self.buildings_vp, _l("Tick your private buildings or enter their VP total "
                                                   "(0 if you have none).")))
        cards_given = any(field.data is not None for field in self.cattle_fields)
        if cards_given and self.cattle_vp.data is not None:
            problems.append((self.cattle_vp, _l("Enter your cattle cards or the VP total, not both.")))
        elif not cards_given and self.cattle_vp.data is None:
            problems.append((self.cattle_vp, _l("Enter how many cattle cards of each value you own, "
                                                "or their VP total.")))
        for row, (vp, penalty, fulfilled) in enumerate(self.objective_fields):
            if vp.data is None and (penalty.data is not None or fulfilled.data):
                problems.append((vp, _l("Enter the VP of this card, or clear its row.")))
            elif vp.data is not None and not vp.errors and (problem := gwt.objective_vp_problem(
                    gwt.Objective(vp.data, penalty.data or 0, bool(fulfilled.data)))) is not None:
                problems.append((vp, translated(problem)))
            elif vp.data is not None and not vp.errors and not penalty.errors:
                problems.extend((penalty, message) for message in self._penalty_problems(row, vp, penalty,
                                                                                         fulfilled))
        # the start card (row 1 when given there): in every player's objective area, once
        start_cards = [penalty for row, (vp, penalty, fulfilled) in enumerate(self.objective_fields)
                       if vp.data == START_OBJECTIVE.vp and not penalty.data
                       and (row == 0 or not fulfilled.data)]
        # (one with no penalty at all is told to enter it)
        problems.extend((penalty, translated(gwt.SECOND_START_CARD)) for penalty in start_cards[1:]
                        if penalty.data == 0)
        if "objectives" in (self.station_masters.data or ()) and not any(
                vp.data == START_OBJECTIVE.vp and not penalty.data
                for vp, penalty, _ in self.objective_fields):
            problems.append((self.objective_fields[0][0], _l(
                "The Objectives station master counts your start card too: enter it in row 1 (%(vp)d VP), "
                "ticked if fulfilled.", vp=START_OBJECTIVE.vp)))
        for key in self.station_masters.data or ():
            count = self.count_field(key)
            tiles_count = key == "buildings" and self.building_tiles.data
            if count is not None and count.data is None and not tiles_count:
                problems.append((count, _l("This station master needs the count.")))
        for field, message in problems:
            field.errors = [*field.errors, message]
        return valid and not problems

    @staticmethod
    def _penalty_problems(row: int, vp, penalty, fulfilled) -> list:
        """Why a penalty cannot stand: missing on an unfulfilled card (but the start card) or fits no card."""
        if penalty.data is None:
            if fulfilled.data or (row == 0 and vp.data == START_OBJECTIVE.vp):
                return []
            low, high = gwt.OBJECTIVE_PENALTIES
            return [_l("Not fulfilled: enter this card's penalty (%(low)d or %(high)d). Only the start card, "
                       "%(vp)d VP in row 1, has none.", low=low, high=high, vp=START_OBJECTIVE.vp)]
        problem = gwt.objective_penalty_problem(gwt.Objective(vp.data, penalty.data, bool(fulfilled.data)))
        return [] if problem is None else [translated(problem)]

    def payload(self, seat: int) -> dict:
        """The ``"card"`` event this form describes (see the rules' ``card_from_payload``)."""
        chosen = set(self.station_masters.data or ())
        needed = {gwt.STATION_MASTER_BY_KEY[key].counts for key in chosen}
        card: dict = {
            "seat": seat, "dollars": self.dollars.data, "cities_vp": self.cities_vp.data,
            "stations_vp": self.stations_vp.data, "hazards_vp": self.hazards_vp.data,
            # validate leaves a penalty empty only on a fulfilled card (it counts nothing) or the start card
            "objectives": [{"vp": vp.data, "penalty": penalty.data or 0, "fulfilled": fulfilled.data}
                           for vp, penalty, fulfilled in self.objective_fields if vp.data is not None],
            "station_masters": [key for key in gwt.station_master_keys(self.edition) if key in chosen],
            "workers": {row: self[row].data for row in gwt.WORKER_ROWS},
            "disc_cleared": self.disc_cleared.data, "job_market_token": self.job_market_token.data,
        }
        for name in gwt.PIECE_COUNTS:
            given = self[name].data if name in needed else None
            # with tiles ticked and no count given, the rules count the tiles
            if given is not None or not (name == "buildings" and self.building_tiles.data):
                card[name] = given or 0
        if self.building_tiles.data:
            ticked = set(self.building_tiles.data)
            card["building_tiles"] = [tile for tile, _ in _tiles_in_order() if tile in ticked]
        else:
            card["buildings_vp"] = self.buildings_vp.data
        if self.cattle_vp.data is None:
            card["cattle_cards"] = {str(value): self[f"cattle_{value}"].data or 0 for value in CATTLE_VALUES}
        else:
            card["cattle_vp"] = self.cattle_vp.data
        return card


def objective_rows_wanted(formdata: Mapping | None, card: gwt.Card | None) -> tuple[int, bool]:
    """How many objective rows to show, and whether the player asked for more instead of saving."""
    if formdata is None:
        saved = len(card.tally.objectives) + 2 if card is not None else 0
        return min(gwt.OBJECTIVE_CARDS_MAX, max(OBJECTIVE_ROWS, saved)), False
    raw = formdata.get("objective_rows", "")
    rows = int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 4 else OBJECTIVE_ROWS
    more = "more_objectives" in formdata
    rows += MORE_OBJECTIVE_ROWS if more else 0
    return max(OBJECTIVE_ROWS, min(gwt.OBJECTIVE_CARDS_MAX, rows)), more


def card_form(state: gwt.PlayState, seat: int, formdata=None) -> CardForm:
    """The card of ``seat``: filled in from the card already in (or the deliveries) unless ``formdata``."""
    edition, card = state.edition, state.cards[seat]
    rows, more = objective_rows_wanted(formdata, card)
    fields = {"edition": edition, "rows": rows, **_pad_fields(edition)}
    for row in range(rows):
        fields[f"objective_{row}_vp"] = _number(_l("Card %(n)d: VP", n=row + 1), 0, gwt.OBJECTIVE_VALUE_MAX)
        fields[f"objective_{row}_penalty"] = _number(_l("Card %(n)d: penalty", n=row + 1), 0,
                                                     gwt.OBJECTIVE_VALUE_MAX)
        fields[f"objective_{row}_fulfilled"] = BooleanField(_l("Card %(n)d: fulfilled", n=row + 1))
    form_class = type("SeatCardForm", (CardForm,), fields)
    form = form_class(formdata=formdata, data=None if formdata is not None else card_data(state, seat))
    form.objective_rows.data = str(rows)
    form.wants_more_rows = more
    return form


def _pad_fields(edition: int) -> dict:
    """The card's fields other than the objective rows, in the scoring pad's order."""
    breeds = {value: ", ".join(breed.name for breed in gwt.CATTLE_BREEDS if value in breed.vp_values)
              for value in CATTLE_VALUES}
    teepees = _l("Teepee pairs (green + blue)") if edition == 1 else _l("Outlaw pairs (green + orange)")
    counts = {"teepee_pairs": teepees, "hazards": _l("Hazard tiles"), "certificates": _l("Certificates"),
              "stations": _l("Stations holding your disc"), "buildings": _l("Private buildings on the map")}
    return {
        "dollars": _number(_l("Money ($)"), 0, gwt.VP_MAX, _l("Enter your dollars (0 if none)."),
                           _l("1 VP per full %(n)d $, rounded down.", n=gwt.DOLLARS_PER_VP)),
        "building_tiles": Checklist(_l("Private buildings on the map"), choices=choices(
            (tile, _l("%(tile)s · %(vp)d VP", tile=tile, vp=vp)) for tile, vp in _tiles_in_order())),
        "buildings_vp": _number(_l("or the buildings' VP total"), 0, gwt.VP_MAX),
        "cities_vp": _number(_l("Cities VP"), gwt.CREST_VP_MIN, gwt.VP_MAX,
                             _l("Enter the VP of your city crests (negative if so).")),
        "stations_vp": _number(_l("Stations VP"), 0, gwt.VP_MAX,
                               _l("Enter the VP of your stations (0 if none)."),
                               _l("Stations show %(values)s VP along the track.",
                                  values=", ".join(map(str, gwt.STATION_VP)))),
        "hazards_vp": _number(_l("Hazards VP"), 0, gwt.VP_MAX,
                              _l("Enter the VP of your hazards (0 if none)."),
                              _l("Each hazard type has tiles of %(values)s VP.",
                                 values=", ".join(map(str, gwt.HAZARD_VP)))),
        **{f"cattle_{value}": _number(_l("%(vp)d-VP cards", vp=value), 0, gwt.CATTLE_CARDS_MAX,
                                      description=breeds[value]) for value in CATTLE_VALUES},
        "cattle_vp": _number(_l("or the cattle VP total"), 0, gwt.VP_MAX),
        "station_masters": Checklist(_l("Station masters you hold"), choices=choices(
            (master.key, station_master_label(master, edition))
            for master in gwt.STATION_MASTERS if edition in master.editions)),
        **{name: _number(counts[name], 0, gwt.PIECES_MAX)
           for name in gwt.PIECE_COUNTS if name != "buildings"},
        "buildings": _number(counts["buildings"], 0, len(gwt.BUILDING_NUMBERS),
                             description=_l("Leave empty if you ticked your tiles in row 2.")),
        **{row: _number(label, gwt.WORKER_ROW_MIN, gwt.WORKER_ROW_MAX,
                        _l("Enter %(low)d to %(high)d: the printed first space counts.",
                           low=gwt.WORKER_ROW_MIN, high=gwt.WORKER_ROW_MAX))
           for row, label in zip(gwt.WORKER_ROWS, WORKER_LABELS, strict=True)},
        "disc_cleared": BooleanField(_l("I removed the disc from the 3-VP space (+%(vp)d VP)",
                                        vp=gwt.DISC_VP)),
        "job_market_token": BooleanField(_l("I hold the job-market token (+%(vp)d VP)",
                                            vp=gwt.JOB_MARKET_TOKEN_VP)),
    }


def _tiles_in_order() -> list[tuple[str, int]]:
    """The private building tiles by number, side a before side b."""
    return [(f"{number}{side}", gwt.PRIVATE_BUILDINGS[f"{number}{side}"])
            for number in gwt.BUILDING_NUMBERS for side in "ab"]


def card_data(state: gwt.PlayState, seat: int) -> dict:
    """A card form's starting values: the card already in, else (or where deliveries changed since) the
    cities row from the deliveries."""
    card = state.cards[seat]
    data: dict = {"revision": str(gwt.card_revision(state, seat))}
    if card is None:
        # every other row starts empty: ticking the start card fills in its VP (static/card.js), and the
        # table counts the workers (the printed first space included), none taken for granted
        return data | {"cities_vp": gwt.cities_vp_from_deliveries(state, seat)}
    tally = card.tally
    behind = gwt.cities_behind_deliveries(state, seat)
    data.update(dollars=tally.dollars, cities_vp=tally.cities_vp if behind is None else behind,
                stations_vp=tally.stations_vp, hazards_vp=tally.hazards_vp,
                station_masters=list(tally.station_masters), disc_cleared=tally.disc_cleared,
                job_market_token=tally.job_market_token, **asdict(tally.workers))
    for key in tally.station_masters:
        counts = gwt.STATION_MASTER_BY_KEY[key].counts
        if counts in gwt.PIECE_COUNTS and not (counts == "buildings" and card.building_tiles is not None):
            data[counts] = getattr(tally, counts)
    if card.building_tiles is None:
        data["buildings_vp"] = tally.buildings_vp
    else:
        data["building_tiles"] = list(card.building_tiles)
    if card.cattle_cards is None:
        data["cattle_vp"] = tally.cattle_vp
    else:
        owned = dict(card.cattle_cards)
        data.update({f"cattle_{value}": owned.get(value, 0) for value in CATTLE_VALUES})
    for row, objective in enumerate(tally.objectives):
        data.update({f"objective_{row}_{key}": value for key, value in asdict(objective).items()})
    return data
