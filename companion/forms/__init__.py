"""The site's forms (WTForms through Flask-WTF); each game's own forms are in a module here."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from flask_babel import gettext
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import Form, FormField, HiddenField, IntegerField, SelectChoice, SelectField, StringField
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

from companion.games.common import GameInfo
from companion.names import JOIN_CODE_ALPHABET, JOIN_CODE_LENGTH, NAME_MAX, NameProblem, clean_name

# Player colours: the pieces' colours of the three games, plus a few for larger groups.
COLOURS: dict[str, str] = {
    "red": _l("red"), "blue": _l("blue"), "green": _l("green"), "yellow": _l("yellow"),
    "black": _l("black"), "white": _l("white"), "purple": _l("purple"), "orange": _l("orange"),
    "grey": _l("grey"), "pink": _l("pink"),
}


class GroupPlayer(Protocol):
    """What the forms read of a group's player."""

    id: int
    name: str
    colour: str


def choices(pairs) -> list[SelectChoice]:
    """Select options from (value, label) pairs."""
    return [SelectChoice(value, label) for value, label in pairs]


COLOUR_CHOICES = choices(COLOURS.items())


def collapse_spaces(value: str | None) -> str | None:
    """Trim a typed text and fold runs of spaces into one."""
    return " ".join(value.split()) if isinstance(value, str) else value


def listed(message: str) -> Callable:
    """A validator: the field's data is one of its choices (set after the form was made), else ``message``."""
    def check(_form, field: SelectField) -> None:
        if field.data not in {choice.value for choice in field.choices}:
            raise ValidationError(message)
    return check


class TypedName:
    """Validator of a name by the rules of names (``companion.names``): the field's data becomes the name
    as it is kept (trimmed, spaces folded, NFC); a broken rule gives its sentence in the reader's language."""

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
    """A whole number of at most a few digits (longer input is refused before WTForms' range check, whose
    float a huge one overflows); a minus typed as the minus sign (−) counts too."""

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
    """A form of the site's pages. Its CSRF token is the page's (``csrf_field``), checked by CSRFProtect
    before every POST's view: the form neither makes nor checks one of its own."""

    class Meta:
        csrf = False


class GroupForm(SiteForm):
    name = StringField(_l("Group name"), validators=[TypedName(_l("Give the group a name."))],
                       render_kw={"maxlength": NAME_MAX})


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
    """Retire a player ("1") or bring them back ("0")."""

    retired = HiddenField(validators=[AnyOf(("0", "1"))])


class PhoneNameForm(SiteForm):
    """What this phone is called in its group's list of phones."""

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
    """Whose phone this is: one of the play's players, or shared."""

    player = SelectField(_l("Whose phone is this?"), validate_choice=True)


def refused_tap() -> str:
    """The sentence for a refused one-tap form: its fields are buttons and menus, not typed, so only a
    stale page sends what does not fit."""
    return gettext("That entry does not fit this play. Reload the page and try again.")


class VersionedForm(SiteForm):
    """A change to a play that must be based on the play as it is now."""

    version = HiddenField(validators=[InputRequired()])

    def validate_version(self, field: HiddenField) -> None:
        text = field.data or ""
        # isdigit() alone also accepts "²" and numbers too long to convert
        if not (text.isascii() and text.isdigit() and len(text) <= 15):
            raise ValidationError(_l("Reload the page and try again."))

    @property
    def version_number(self) -> int:
        return int(self.version.data)


class AdjustForm(SiteForm):
    """A manual correction of one player's running score."""

    seat = SelectField(_l("Player"), coerce=int, validate_choice=True)
    points = WholeNumberField(_l("Points"), validators=[InputRequired(_l("Enter the points, e.g. 3 or -2.")),
                                                     NumberRange(-999, 999)],
                          render_kw={"inputmode": "numeric"})
    note = StringField(_l("Note"), filters=[collapse_spaces], validators=[Optional(), Length(max=80)])


def seat_choices(names: Sequence[str]) -> list[SelectChoice]:
    return choices(enumerate(names))


class SeatForm(Form):
    player = SelectField(_l("Player"), coerce=int, default=0, validate_choice=False,
                         validators=[listed(_l("Pick a player of the group."))])
    # empty: the seat takes its player's colour
    colour = SelectField(_l("Colour"), choices=[SelectChoice("", _l("the player's colour")), *COLOUR_CHOICES],
                         default="", validate_choice=False)


# A game's options when a play starts (edition, offices dealt …): slug → WTForms Form class.
# Each game's forms module adds its entry; the values are stored as the play's options.
OPTION_FORMS: dict[str, type[Form]] = {}


def seat_count(game: GameInfo, players: Sequence[GroupPlayer], asked: str | None) -> int:
    """How many seats the new-play form shows: the count asked for, else one per player; always within
    the game's player range."""
    if asked is not None and asked.isascii() and asked.isdigit() and len(asked) <= 2:
        count = int(asked)
    else:
        count = len(players)
    return max(game.min_players, min(game.max_players, count))


def new_play_form(game: GameInfo, players: Sequence[GroupPlayer], seats: int, formdata=None) -> SiteForm:
    """The form that starts a play: the game's options, then a player and colour for each of ``seats``
    (seat n starts with the n-th player; left at "the player's colour", a seat takes its player's)."""
    colour_of = {player.id: player.colour for player in players}

    class NewPlayForm(SiteForm):
        seat_count = HiddenField()

        def validate(self, extra_validators=None) -> bool:
            if not super().validate(extra_validators):
                return False
            chosen = [entry.player.data for entry in self.seat_entries]
            colours = [colour for _player, colour in self.chosen_seats()]
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
            options = getattr(self, "options", None)
            return dict(options.data) if options is not None else {}

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


def tally_form(names: Sequence[str], formdata=None) -> SiteForm:
    """The generic final tally: one total per player."""
    fields = {f"total_{seat}": WholeNumberField(
        # gettext, not lazy_gettext: a lazy string counts as safe HTML, and the name is user input
        name, validators=[InputRequired(gettext("Enter %(name)s's total.", name=name)),
                          NumberRange(-999, 9999)], render_kw={"inputmode": "numeric"})
        for seat, name in enumerate(names)}
    return type("TallyForm", (VersionedForm,), fields)(formdata=formdata)
