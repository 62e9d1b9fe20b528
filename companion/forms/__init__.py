"""The site's forms (WTForms through Flask-WTF); each game's own forms are in a module here."""

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol

from flask_babel import gettext
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from flask_wtf.i18n import translations as wtforms_translations
from wtforms import Field, Form, FormField, HiddenField, IntegerField, SelectChoice, SelectField, StringField
from wtforms.fields import SelectMultipleField
from wtforms.validators import (
    AnyOf,
    DataRequired,
    InputRequired,
    Length,
    NumberRange,
    Optional,
    StopValidation,
    ValidationError,
)
from wtforms.widgets import CheckboxInput, ListWidget

from companion.games.common import GameInfo
from companion.messages import Message, Refused
from companion.names import JOIN_CODE_ALPHABET, JOIN_CODE_LENGTH, NAME_MAX, NameProblem, clean_name
from companion.web.i18n import translated

# Player colours: the pieces' colours of the three games, plus a few for larger groups.
COLOURS: dict[str, str] = {
    "red": _l("red"), "blue": _l("blue"), "green": _l("green"), "yellow": _l("yellow"),
    "black": _l("black"), "white": _l("white"), "purple": _l("purple"), "orange": _l("orange"),
    "grey": _l("grey"), "pink": _l("pink"),
}
NUMERIC = {"inputmode": "numeric"}
RELOAD = _l("Reload the page and try again.")  # what a stale, broken or forged page's sender is told
TOTAL_RANGE = (-999, 9999)  # a total typed at the end of a built-in game's play


class GroupPlayer(Protocol):
    id: int
    name: str
    colour: str


def choices(pairs) -> list[SelectChoice]:
    return [SelectChoice(value, label) for value, label in pairs]


COLOUR_CHOICES = choices(COLOURS.items())


def collapse_spaces(value: str | None) -> str | None:
    return " ".join(value.split()) if isinstance(value, str) else value


def listed(message: str) -> Callable:
    """A validator: the field's data is one of its choices (set after the form was made), else ``message``."""
    def check(_form, field: SelectField) -> None:
        if field.data not in {choice.value for choice in field.choices}:
            raise ValidationError(message)
    return check


class TypedName:
    """Validator of a name by ``companion.names``' rules; the field's data becomes the name as it is kept."""

    def __init__(self, missing: str | None, most: int = NAME_MAX) -> None:
        self.missing = missing  # None: the field may stay empty
        self.most = most

    def __call__(self, form, field: StringField) -> None:
        if not (field.data or "").strip():
            if self.missing is None:
                field.data = ""
                raise StopValidation()
            raise StopValidation(self.missing)
        try:
            field.data = clean_name(field.data, most=self.most)
        except NameProblem as problem:
            raise StopValidation(gettext(problem.template, **problem.params)) from None


class WholeNumberField(IntegerField):
    """A whole number of a few digits (a huge one overflows the float of WTForms' range check); "−" too."""

    max_digits = 6

    def process_formdata(self, valuelist: list) -> None:
        if valuelist and isinstance(valuelist[0], str):
            text = valuelist[0].strip().replace("\u2212", "-").replace(" ", "")
            if len(text.lstrip("+-")) > self.max_digits:
                self.data = None
                raise ValueError(gettext("Enter a number of at most %(n)d digits.", n=self.max_digits))
            valuelist = [text, *valuelist[1:]]
        super().process_formdata(valuelist)


def _join_code(value: str | None) -> str | None:
    # People read codes off another phone: accept lower case, spaces and dashes.
    return "".join(ch for ch in value.upper() if ch.isalnum()) if isinstance(value, str) else value


class SiteForm(FlaskForm):
    """A form of the site's pages: CSRFProtect checks the page's token, so the form has none of its own."""

    class Meta:
        csrf = False


class PlainForm(Form):
    """A sub-form, or a page's query: WTForms' own messages in the reader's language, as in a FlaskForm."""

    class Meta:
        def get_translations(self, form: Form):
            return wtforms_translations


class GroupForm(SiteForm):
    name = StringField(_l("Group name"), validators=[TypedName(_l("Give the group a name."))],
                       render_kw={"maxlength": NAME_MAX})


class RenameGroupForm(GroupForm):
    shown_name = HiddenField()  # the name the page showed: another phone may have renamed the group since


class JoinCodeForm(SiteForm):
    code = StringField(_l("Join code"), filters=[_join_code],
                       validators=[DataRequired(_l("Type the code shown on the group's page."))],
                       render_kw={"autocomplete": "off", "autocapitalize": "characters",
                                  "spellcheck": "false"})

    def validate_code(self, field: StringField) -> None:
        code = field.data or ""
        unused = next((ch for ch in code if ch not in JOIN_CODE_ALPHABET), None)
        if unused is not None:
            # 0 and O, 1, I and L look alike, so codes never use them: say which one was typed
            raise ValidationError(_l("A join code never contains %(char)s: codes leave out 0, O, 1, I and L, "
                                     "which are easy to mix up. Check the code on the group's page.",
                                     char=unused))
        if len(code) != JOIN_CODE_LENGTH:
            raise ValidationError(_l("A join code has %(n)d letters and digits, like K7MP-Q2XD.",
                                     n=JOIN_CODE_LENGTH))


class ConfirmForm(SiteForm):
    """A button (and the page's CSRF token): deleting, joining by link, leaving."""


class RetireForm(SiteForm):
    retired = HiddenField(validators=[AnyOf(("0", "1"))])  # "1" retires the player, "0" brings them back


class PhoneNameForm(SiteForm):
    name = StringField(_l("This phone's name"), validators=[TypedName(_l("Type a name for this phone."))],
                       render_kw={"maxlength": NAME_MAX, "placeholder": _l("e.g. Anna's phone")})


class PlayerForm(SiteForm):
    name = StringField(_l("Name"), validators=[TypedName(_l("Type the player's name."))],
                       render_kw={"maxlength": NAME_MAX})
    colour = SelectField(_l("Colour"), choices=COLOUR_CHOICES, default="red")
    # the edit page's player as shown ("colour name"): another phone may have changed them since
    shown = HiddenField()

    def show(self, colour: str, name: str) -> None:
        self.shown.data = f"{colour} {name}"

    @property
    def shown_as(self) -> tuple[str, str] | None:
        """(name, colour) as the page showed them; None for a page that did not say."""
        colour, _, name = (self.shown.data or "").partition(" ")
        return (name, colour) if name else None


class PhonePlayerForm(SiteForm):
    player = SelectField(_l("Whose phone is this?"), validate_choice=True)


def refused_tap() -> str:
    """The sentence for a refused one-tap form: only a stale page sends buttons and menus that do not fit."""
    return gettext("That entry does not fit this play. Reload the page and try again.")


def check_page_number(text: str | None, most_digits: int = 15) -> None:
    """Refuse a page's version or revision of over ``most_digits`` digits: a broken or forged page."""
    # not isdigit(): it takes "²"; and int() refuses thousands of digits
    if not re.fullmatch(rf"[0-9]{{1,{most_digits}}}", text or ""):
        raise ValidationError(RELOAD)


class VersionedForm(SiteForm):
    """A change to a play that must be based on the play as it is now."""

    version = HiddenField(validators=[InputRequired()])

    def validate_version(self, field: HiddenField) -> None:
        check_page_number(field.data)

    @property
    def version_number(self) -> int:
        return int(self.version.data)

    def version_is_valid(self) -> bool:
        """The version alone checked, before the boxes are."""
        return self.version.validate(self, [VersionedForm.validate_version])

    def show_rules_error(self, error: Refused) -> None:
        """Say at the top of the form why it was refused (a game's form may put it by the field it names)."""
        self.form_errors.append(translated(error))

    @staticmethod
    def version_if_given(form: Form, field: HiddenField) -> None:
        if field.data:  # older pages lack the version they were drawn at
            VersionedForm.validate_version(form, field)


def _boxes(fields) -> Iterator[Field]:
    """The boxes of a form, its sub-forms' included."""
    for field in fields:
        if isinstance(field, FormField):
            yield from _boxes(field)
        elif not isinstance(field, HiddenField):
            yield field


class DrawnForm(VersionedForm):
    """A play's form drawn with what the table recorded. Refused because another phone changed the play
    meanwhile, its boxes still as drawn take the numbers the table has now, and the ones typed in stay: sent
    again, it records neither the old numbers nor less than was typed."""

    drawn = HiddenField()  # the boxes as drawn, JSON {name: value}

    def remember_drawn(self) -> None:
        """Keep the boxes' values in the page; the form's maker calls it on a form drawn, not sent."""
        self.drawn.data = json.dumps({box.name: box._value() for box in _boxes(self)})

    def bring_up_to_date(self, now: "DrawnForm") -> None:
        """Take ``now``'s version (the table as it is now) and its values of the boxes still as drawn."""
        try:
            drawn = json.loads(self.drawn.data or "{}")
        except (ValueError, RecursionError):
            drawn = None
        if not isinstance(drawn, dict):  # a page of another kind, or a hostile one: nothing to compare
            drawn = {}
        fresh = {box.name: box for box in _boxes(now)}
        for box in _boxes(self):
            new, was, shown = fresh.get(box.name), drawn.get(box.name), box._value()
            if new is None or was is None or new._value() in (was, shown):
                continue  # the table has here what it had, or what was typed
            if shown == was:
                box.raw_data, box.data = [new._value()], new.data
                box.description = gettext("Another phone changed this (it was %(was)s).", was=was or "–")
            else:
                box.description = gettext("Another phone changed this to %(now)s; what you typed is kept: "
                                          "check it.", now=new._value() or "–")
        self.version.data, self.drawn.data = now.version.data, now.drawn.data


class Checklist(SelectMultipleField):
    """A multiple choice shown as checkboxes (easier to tap than a multiple select)."""

    widget = ListWidget(prefix_label=False)
    option_widget = CheckboxInput()


class AdjustForm(SiteForm):
    seat = SelectField(_l("Player"), coerce=int, validate_choice=True)
    points = WholeNumberField(_l("Points"), validators=[InputRequired(_l("Enter the points, e.g. 3 or -2.")),
                                                     NumberRange(-999, 999)], render_kw=NUMERIC)
    note = StringField(_l("Note"), filters=[collapse_spaces], validators=[Optional(), Length(max=80)])


class SeatForm(PlainForm):
    player = SelectField(_l("Player"), coerce=int, default=0, validate_choice=False,
                         validators=[listed(_l("Pick a player of the group."))])
    # empty: the seat takes its player's colour
    colour = SelectField(_l("Colour"), choices=[SelectChoice("", _l("the player's colour")), *COLOUR_CHOICES],
                         default="", validate_choice=False)


# slug → the Form of a game's options when a play starts (edition, offices dealt …), kept with the play;
# each game's forms module adds its own.
OPTION_FORMS: dict[str, type[Form]] = {}


def seat_count(game: GameInfo, players: Sequence[GroupPlayer], asked: str | None) -> int:
    """How many seats the new-play form shows: the count asked for, else one per player, within range."""
    count = int(asked) if asked and re.fullmatch(r"[0-9]{1,2}", asked) else len(players)
    return max(game.min_players, min(game.max_players, count))


def new_play_form(game: GameInfo, players: Sequence[GroupPlayer], seats: int, formdata=None) -> SiteForm:
    """The game's options, then a player and colour for each of ``seats``; seat n starts with player n."""
    colour_of = {player.id: player.colour for player in players}

    class NewPlayForm(SiteForm):
        seat_count = HiddenField()

        def validate(self, extra_validators=None) -> bool:
            if not super().validate(extra_validators):
                return False
            chosen, colours = zip(*self.chosen_seats(), strict=True)
            problem = next((message for broken, message in (
                (not all(chosen), _l("Pick a player for every seat.")),
                (len(set(chosen)) != len(chosen), _l("Each player can take only one seat.")),
                (any(colour not in COLOURS for colour in colours), _l("Pick a colour for every seat.")),
                (len(set(colours)) != len(colours), _l("Two seats have the same colour."))) if broken), None)
            if problem is not None:
                self.form_errors.append(problem)
            return problem is None

        @property
        def seat_entries(self) -> list[SeatForm]:
            return [getattr(self, f"seat_{n}").form for n in range(seats)]

        def chosen_seats(self) -> list[tuple[int, str]]:
            return [(entry.player.data, entry.colour.data or colour_of.get(entry.player.data, ""))
                    for entry in self.seat_entries]

        def chosen_options(self) -> dict:
            return dict(self.options.data) if "options" in self else {}

    if game.slug in OPTION_FORMS:
        NewPlayForm.options = FormField(OPTION_FORMS[game.slug], label=_l("Options"))
    for n in range(seats):
        setattr(NewPlayForm, f"seat_{n}", FormField(SeatForm, label=_l("Seat %(n)d", n=n + 1)))
    form = NewPlayForm(formdata=formdata)
    form.seat_count.data = str(seats)
    player_choices = choices([(0, _l("— pick a player —")), *((p.id, p.name) for p in players)])
    for n, entry in enumerate(form.seat_entries):
        entry.player.choices = player_choices
        if formdata is None and n < len(players):
            entry.player.data = players[n].id
    return form


def tie_breaker_field(label: str) -> WholeNumberField:
    """A count that breaks a tie on points: asked of every player, needed only where a tie is."""
    return WholeNumberField(label, validators=[Optional(), NumberRange(0, 99)], render_kw=NUMERIC)


def entered_tie_breakers(form: Form, keys: Sequence[str], field_name: Callable[[str, int], str],
                         seats: Sequence[int]) -> dict[str, list[int | None]]:
    """The tie-breakers entered per seat (None where not entered); a key nobody entered is left out."""
    entered = {key: [form[field_name(key, seat)].data for seat in seats] for key in keys}
    return {key: values for key, values in entered.items() if any(v is not None for v in values)}


def tally_form(names: Sequence[str], formdata=None, kept: Mapping[str, Any] | None = None,
               tie_breakers: Sequence[tuple[str, Message, Sequence[int | None]]] = ()) -> DrawnForm:
    """One total per player and the game's ``tie_breakers`` (payload key, label, the counts recorded) per
    player, starting from a reopened play's ``kept`` tally where it fits, else from the counts recorded."""
    fields = {f"total_{seat}": WholeNumberField(
        # gettext, not lazy_gettext: a lazy string counts as safe HTML, and the name is user input
        name, validators=[InputRequired(gettext("Enter %(name)s's total.", name=name)),
                          NumberRange(*TOTAL_RANGE)], render_kw=NUMERIC)
        for seat, name in enumerate(names)}
    for key, label, _ in tie_breakers:
        fields |= {f"{key}_{seat}": tie_breaker_field(gettext("%(name)s: %(count)s", name=name,
                                                              count=translated(label)))
                   for seat, name in enumerate(names)}

    class TallyForm(DrawnForm):
        def tie_breakers(self) -> dict[str, list[int | None]]:
            return entered_tie_breakers(self, [key for key, _, _ in tie_breakers], "{}_{}".format,
                                        range(len(names)))

    form = type("TallyForm", (TallyForm,), fields)(formdata=formdata)
    if formdata is None:
        kept = kept or {key: recorded for key, _, recorded in tie_breakers}
        for key, prefix in [("totals", "total"), *((key, key) for key, _, _ in tie_breakers)]:
            values = kept.get(key)
            if isinstance(values, list) and len(values) == len(names):
                for seat, value in enumerate(values):  # as stored: a total from a backup shows as it came
                    form[f"{prefix}_{seat}"].data = value
        form.remember_drawn()
    return form
