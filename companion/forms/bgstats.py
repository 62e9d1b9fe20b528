"""Forms of the BG Stats import: the file, then which group player each BG Stats player is."""

from collections.abc import Mapping, Sequence

from flask_babel import gettext
from flask_babel import lazy_gettext as _l
from flask_wtf.file import FileField, FileRequired
from wtforms import HiddenField, SelectField
from wtforms.validators import InputRequired

from companion.forms import GroupPlayer, SiteForm, choices
from companion.names import NEW_PLAYER


class BgStatsUploadForm(SiteForm):
    export = FileField(_l("BG Stats export"), render_kw={"accept": "application/json,.json"},
                       validators=[FileRequired(_l("Choose the file BG Stats exported (.json)."))])


def mapping_form(bg_players: Mapping[int, str], group_players: Sequence[GroupPlayer],
                 suggested: Mapping[int, int], formdata=None) -> SiteForm:
    """A choice per BG Stats player: one of the group's players, or a new player of that name; the file's
    plays travel with the form (``export_data``) and are read and checked again on sending."""

    class MappingForm(SiteForm):
        export_data = HiddenField(validators=[InputRequired(_l("Upload the BG Stats export again."))])

        def mapping(self) -> dict[int, int]:
            return {ref: self[f"player_{ref}"].data for ref in bg_players}

    existing = [(player.id, player.name) for player in group_players]
    for ref, name in bg_players.items():
        setattr(MappingForm, f"player_{ref}", SelectField(
            name, coerce=int, default=suggested.get(ref, NEW_PLAYER),
            # gettext, not _l: a lazy string counts as safe HTML, and the name is the file's
            choices=choices([(NEW_PLAYER, gettext("New player “%(name)s”", name=name)), *existing]),
            validators=[InputRequired(_l("Choose a player of the group, or a new player."))]))
    return MappingForm(formdata=formdata)
