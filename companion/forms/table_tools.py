"""Forms of the table tools: the timer's buttons, the first player, the play's note and variant."""

from flask_babel import lazy_gettext as _l
from wtforms import HiddenField, StringField, TextAreaField
from wtforms.validators import AnyOf, Length, Optional, Regexp

from companion.forms import RELOAD, SiteForm, VersionedForm, collapse_spaces
from companion.games import table_tools as tools


def _trimmed(value: str | None) -> str | None:
    return value.strip() if isinstance(value, str) else value


class TimerForm(SiteForm):
    action = HiddenField(validators=[AnyOf(tools.TIMER_ACTIONS, message=RELOAD)])


class FirstPlayerForm(SiteForm):
    """Without a seat the companion draws; the page script draws on the phone (and animates) and sends it."""

    # blank counts as not given (Optional lets spaces through unchecked)
    seat = HiddenField(filters=[_trimmed], validators=[Optional(), Regexp(r"^[0-9]$", message=RELOAD)])
    # who the page showed starting ("" for nobody yet): another phone may have picked since
    shown = HiddenField(filters=[_trimmed], validators=[Optional(), Regexp(r"^[0-9]$", message=RELOAD)])

    @property
    def shown_seat(self) -> int | bool | None:
        """The seat the page showed starting, None for nobody, False for a page that did not say."""
        if not self.shown.raw_data:
            return False
        return int(self.shown.data) if self.shown.data else None


class NotesForm(VersionedForm):
    """The play's note and variant; ``version`` is the note's revision the page showed."""

    note = TextAreaField(_l("Note"), filters=[_trimmed], validators=[Length(max=tools.NOTE_MAX)])
    variant = StringField(_l("Expansions or variant"), filters=[collapse_spaces],
                          validators=[Length(max=tools.VARIANT_MAX)])
