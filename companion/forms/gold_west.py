"""Gold West's forms: the start options, the ledger's one-tap entries and the final tally."""

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from flask_babel import lazy_gettext as _l
from wtforms import BooleanField, Form, FormField, HiddenField, SelectField
from wtforms.validators import NumberRange, Optional, ValidationError

from companion.forms import (
    OPTION_FORMS,
    Checklist,
    DrawnForm,
    PlainForm,
    SiteForm,
    VersionedForm,
    WholeNumberField,
    choices,
    refused_tap,
)
from companion.games import gold_west as gw
from companion.games.common import RulesError
from companion.web.i18n import translated


class GoldWestOptionsForm(PlainForm):
    offices = Checklist(_l("BoomTown offices dealt"),
                        choices=choices((office.key, _l(office.label)) for office in gw.OFFICES))
    trading_post = BooleanField(_l("Trading Post mini expansion"))

    def validate_offices(self, field: Checklist) -> None:
        picked = field.data or []
        # None picked is allowed: the final tally then lists all twelve offices.
        if picked and len(set(picked)) != gw.OFFICES_DEALT:
            raise ValidationError(_l("Tick the %(n)d offices that were dealt (you ticked %(picked)d), or "
                                     "none to pick them in the final tally.",
                                     n=gw.OFFICES_DEALT, picked=len(picked)))


OPTION_FORMS[gw.GAME.slug] = GoldWestOptionsForm


class LedgerForm(SiteForm):
    """A tap that names only the seat (loot, BoomTown 1×1); its subclasses add their event's fields."""

    seat = SelectField(coerce=int, validate_choice=True)
    # the questions about this tap answered "yes" ("Ben again?" …): words of ``gw.ANSWERS``
    again = HiddenField(default="")
    # another phone may have entered the same, or taken its tile, since the page was drawn
    # (gold_west.check_entered_since)
    drawn_at = HiddenField(validators=[VersionedForm.version_if_given])

    @property
    def confirmed(self) -> frozenset[str]:
        return frozenset(self.again.data.split())

    def validate_again(self, field: HiddenField) -> None:
        if not self.confirmed <= gw.ANSWERS:
            raise ValidationError(refused_tap())

    @property
    def drawn(self) -> int | None:
        """The version the tapping page was drawn at; None for a page that did not say."""
        return int(self.drawn_at.data) if self.drawn_at.data else None

    def payload(self) -> dict:
        return {name: field.data for name, field in self._fields.items() if name not in ("again", "drawn_at")}


class CampForm(LedgerForm):
    # no terrain: a camp tapped on a page from before the ledger asked for it (kept offline, say)
    terrain = SelectField(choices=choices((terrain, terrain) for terrain in ("", *gw.TERRAINS)), default="")

    def payload(self) -> dict:
        return {name: value for name, value in super().payload().items() if value != ""}


def _tap(name: str, values: Sequence, coerce: Callable = str) -> type[LedgerForm]:
    """A tap that names one of ``values`` besides the seat: a terrain, an office, a supply section …"""
    select = SelectField(coerce=coerce, choices=choices((value, str(value)) for value in values))
    return type(f"{name.capitalize()}Tap", (LedgerForm,), {name: select})


_POINTS_LINES = {step.key: step for step in gw.SHIPPING_POINTS_LINES}


class ShippingLineForm(LedgerForm):
    step = SelectField(choices=choices((key, key) for key in _POINTS_LINES))

    def payload(self) -> dict:
        step = _POINTS_LINES[self.step.data]
        return {"seat": self.seat.data, "metal": step.metal, "line": step.line}


LEDGER_FORMS: dict[str, type[LedgerForm]] = {
    "camp": CampForm,
    "settlement": _tap("terrain", gw.TERRAINS),
    "loot": LedgerForm,
    "boomtown": _tap("office", gw.OFFICE_KEYS),
    "boomtown_1x1": LedgerForm,
    "supply": _tap("section", gw.SUPPLY_SECTION_NUMBERS, int),
    "investment": _tap("vp", gw.INVESTMENT_VALUES, int),
    "shipping_line": ShippingLineForm,
    "shipping_bonus": _tap("metal", gw.METALS),
}


def ledger_form(kind: str, seat_count: int) -> LedgerForm | None:
    """The form of one ledger event kind, bound to the request; None for a kind the ledger lacks."""
    form_class = LEDGER_FORMS.get(kind)
    if form_class is None:
        return None
    form = form_class()
    form.seat.choices = choices((seat, str(seat)) for seat in range(seat_count))
    return form


# The final tally

COUNT_MAX = 99  # far above any real count; the rules check what the game allows
# What an office's formula counts on the map (its entries): the ledger cannot know it, so they start empty.
BOARD_COUNT_LABELS = {"count": _l("How many it counts"), "camps": _l("Camps touching water"),
                      "settlements": _l("Settlements touching water")}


class CountField(WholeNumberField):
    """A whole number where an emptied box counts as 0 (a box not sent keeps its prefilled value)."""

    def process_formdata(self, valuelist: list) -> None:
        if valuelist and isinstance(valuelist[0], str) and not valuelist[0].strip():
            valuelist = ["0"]
        super().process_formdata(valuelist)


def _count(label, low: int = 0, high: int = COUNT_MAX) -> CountField:
    return CountField(label, validators=[NumberRange(low, high)], default=0)


def _board_count(label) -> WholeNumberField:
    """A count only the board shows: empty is not entered, never 0 (the rules ask for it where needed)."""
    return WholeNumberField(label, validators=[Optional(), NumberRange(0, COUNT_MAX)], default=None)


class TerrainCounts(PlainForm):
    forest, gold, silver, copper = map(_count, (_l("Forest"), _l("Gold"), _l("Silver"), _l("Copper")))

    def counts(self) -> dict[str, int]:
        return {terrain: self[terrain].data for terrain in gw.TERRAINS}


def _office_form(office: gw.Office) -> type[Form]:
    """The tokens on one office, plus the counts its formula needs from the map."""

    class OfficeEntry(PlainForm):
        tokens = _count(_l("Tokens"), high=gw.MAX_TOKENS_PER_OFFICE)

        def claim(self) -> gw.OfficeClaim | None:
            """The tokens and what the office counts on the map; an empty box stays None (the rules ask)."""
            if not self.tokens.data:
                return None
            counts = {name: self[name].data for name in office.entries}
            return gw.OfficeClaim(office.key, self.tokens.data, **counts)

    for name in office.entries:
        setattr(OfficeEntry, name, _board_count(BOARD_COUNT_LABELS[name]))
    return OfficeEntry


def _player_form(offices: Sequence[gw.Office]) -> type[Form]:

    class PlayerEntry(PlainForm):
        track_vp = _count(_l("Score track"), low=gw.TRACK_VP_LOWEST, high=gw.TRACK_VP_HIGHEST)
        wanted = _count(_l("Camps in the Wanted area"))
        influence = FormField(TerrainCounts, label=_l("Influence"))
        settlements = FormField(TerrainCounts, label=_l("Settlements"))
        mining_tokens = FormField(TerrainCounts, label=_l("Mining tokens"))
        largest_group = _board_count(_l("Buildings in the largest group"))
        second_group = _board_count(_l("Buildings in the second-largest group"))
        investments = _count(_l("Investment cards"))
        shipping_bonus_tiles = _count(_l("Shipping bonus tiles"))
        supply_left = _board_count(_l("Resources left on the supply track"))

        def tally(self, ledger: gw.PlayerTally) -> gw.PlayerTally:
            """The ledger's tally with what was entered here."""
            claims = (self[f"office_{office.key}"].form.claim() for office in offices)
            return replace(
                ledger, offices=tuple(claim for claim in claims if claim is not None),
                **{name: self[name].data for name in gw.SCALAR_FIELDS if name in self},
                **{name: self[name].form.counts() for name in ("influence", "settlements", "mining_tokens")},
            )

    for office in offices:
        setattr(PlayerEntry, f"office_{office.key}", FormField(_office_form(office), label=_l(office.label)))
    if any(office.key == "mayor" for office in offices):
        # Only the Mayor counts the tokens on the 1×1 space.
        PlayerEntry.boomtown_1x1_tokens = _count(_l("Tokens on the BoomTown 1×1 space"))
    return PlayerEntry


def final_tally_form(start: Sequence[gw.PlayerTally], offices: Sequence[gw.Office],
                     formdata=None) -> DrawnForm:
    """The end scoring per player (``p0``, ``p1`` …), from ``start``: the ledger, or the tally reopened."""
    player_form = _player_form(offices)

    class FinalTallyForm(DrawnForm):
        offices_asked = tuple(offices)
        # "y" once the page asked whether to end a play in which no camp was placed yet
        confirmed = HiddenField(default="")
        asking = False  # the page asks that question now

        def ask_before_finishing(self, state) -> bool:
            """Whether to ask "really finish?" first: no camp was placed and the page has not asked yet."""
            if not state.nothing_placed or self.confirmed.data == "y":
                return False
            self.asking = True
            self.confirmed.data = "y"  # sent again, the tally is scored
            return True

        def tallies(self, ledger_tallies: Sequence[gw.PlayerTally]) -> tuple[gw.PlayerTally, ...]:
            return tuple(self[f"p{seat}"].form.tally(tally) for seat, tally in enumerate(ledger_tallies))

        def show_rules_error(self, error: RulesError) -> None:
            """Put each broken rule (each number missing) by its player (``players[1]…``), else on top."""
            for each in error.errors if isinstance(error, gw.EntriesMissing) else (error,):
                match = re.match(r"players\[([0-9]+)\]", each.path)
                if match and int(match[1]) in self.player_errors:
                    self.player_errors[int(match[1])].append(translated(each))
                else:
                    self.form_errors.append(translated(each))

    entries = gw.tally_payload(start)["players"]
    for seat, entry in enumerate(entries):
        setattr(FinalTallyForm, f"p{seat}", FormField(player_form))
        entry.update({f"office_{claim['office']}": claim for claim in entry.pop("offices")})
    form = FinalTallyForm(formdata=formdata, data={f"p{seat}": entry for seat, entry in enumerate(entries)})
    form.player_errors = {seat: [] for seat in range(len(start))}
    if formdata is None:
        form.remember_drawn()
    return form

