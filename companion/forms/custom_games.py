"""Forms of any other game: defining its score sheet, and its final tally."""

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from datetime import MINYEAR, UTC, date, datetime, time, timedelta, tzinfo
from typing import Any

from flask_babel import gettext
from flask_babel import lazy_gettext as _l
from werkzeug.datastructures import MultiDict
from wtforms import (
    BooleanField,
    FieldList,
    FormField,
    HiddenField,
    RadioField,
    SelectField,
    StringField,
)
from wtforms.validators import InputRequired, Length, NumberRange, Optional, ValidationError

from companion.forms import (
    NUMERIC,
    DrawnForm,
    PlainForm,
    SiteForm,
    TypedName,
    VersionedForm,
    WholeNumberField,
    choices,
    collapse_spaces,
    entered_tie_breakers,
    tie_breaker_field,
)
from companion.games import custom
from companion.games.common import RulesError
from companion.messages import Message
from companion.names import BGG_ID_MAX
from companion.web.i18n import translated

ROW_SLOTS = 12  # empty row fields a new sheet offers; an edited sheet gets a few beyond its rows
_ROW_NAME = re.compile(r"rows-[0-9]+-name")
_ROW_INDEX = re.compile(r"[0-9]{1,4}")  # a row's number as SheetRows reads it
_POINTS = re.compile(r"points-[0-9]+-[0-9]+")  # points_field_name's
SHEET_POINTS = (-custom.POINTS_LIMIT, custom.POINTS_LIMIT)  # what a row of a group's own sheet may hold


class BggIdField(WholeNumberField):
    max_digits = 9


class SheetRows(FieldList):
    """The sheet's rows as "rows-<n>-…": a page numbers them below MAX_ROWS. WTForms reads any number
    isdigit() takes with int(), which fails on "²" or thousands of digits: such a row is left out and
    noted (``misnumbered``), for the form to refuse."""

    misnumbered = False

    def _extract_indices(self, prefix, formdata):
        self.misnumbered = False
        for key in formdata:
            if key.startswith(prefix):
                index = key[len(prefix) + 1:].split(self._field_separator, 1)[0]
                if _ROW_INDEX.fullmatch(index):
                    yield int(index)
                elif index.isdigit():  # what FieldList would have read
                    self.misnumbered = True


class SheetRowForm(PlainForm):
    name = StringField(_l("Row"), validators=[TypedName(None, most=custom.ROW_NAME_MAX)])
    negative = BooleanField(_l("can go below zero"))
    tie_breaker = BooleanField(_l("breaks ties"))


class DrawnFromSheet(SiteForm):
    """A form drawn from a version of a group game's sheet (``sheet_version``): another phone may edit it."""

    sheet_version = HiddenField(validators=[VersionedForm.version_if_given])

    @property
    def drawn_version(self) -> int | None:
        """The sheet version the page was drawn from, readable before validating; None for none given."""
        try:
            VersionedForm.validate_version(self, self.sheet_version)
        except ValidationError:
            return None
        return int(self.sheet_version.data)


class GroupGameForm(DrawnFromSheet):
    """A game's name and sheet; ``shown_name`` and ``shown_bgg_id``: the name and BoardGameGeek id the page
    showed (another phone may change them)."""

    shown_name = HiddenField()
    shown_bgg_id = HiddenField()  # "": none
    name = StringField(_l("Name of the game"),
                       validators=[TypedName(_l("Type the game's name."), most=custom.GAME_NAME_MAX)])
    bgg_id = BggIdField(_l("BoardGameGeek id (optional)"), render_kw=NUMERIC,
                        validators=[Optional(), NumberRange(1, BGG_ID_MAX)])
    min_players = WholeNumberField(_l("Fewest players"), default=2, render_kw=NUMERIC,
                                   validators=[InputRequired(), NumberRange(1, custom.PLAYERS_LIMIT)])
    max_players = WholeNumberField(_l("Most players"), default=5, render_kw=NUMERIC,
                                   validators=[InputRequired(), NumberRange(1, custom.PLAYERS_LIMIT)])
    lowest_wins = BooleanField(_l("Lowest score wins"))
    cooperative = BooleanField(_l("Cooperative: everybody wins or loses together"))
    teams = BooleanField(_l("Played in teams"))
    tie_breaker_wins = SelectField(_l("The row that breaks ties counts"), default="", choices=choices([
        ("", _l("like the total")), ("most", _l("most of it wins")), ("fewest", _l("fewest of it wins"))]))
    rows = SheetRows(FormField(SheetRowForm), min_entries=ROW_SLOTS, max_entries=custom.MAX_ROWS)

    def process(self, formdata=None, obj=None, data=None, extra_filters=None, **kwargs) -> None:
        super().process(formdata, obj, data, extra_filters, **kwargs)
        # FieldList reads only its first max_entries rows and drops the rest unseen: count them here
        self.rows_sent = len({key for key, value in (formdata or {}).items()
                              if _ROW_NAME.fullmatch(key) and str(value).strip()})

    def validate(self, extra_validators=None) -> bool:
        valid = super().validate(extra_validators)
        if self.rows.misnumbered:  # only a broken or forged page numbers its rows so
            self.form_errors.append(gettext("Reload the page and try again."))
            return False
        if self.rows_sent > custom.MAX_ROWS:
            self.form_errors.append(gettext("A score sheet has at most %(limit)d rows; this one has "
                                            "%(count)d.", limit=custom.MAX_ROWS, count=self.rows_sent))
            return False
        return valid

    def show(self, game) -> None:
        """Carry ``game``'s newest sheet version, name and BoardGameGeek id, as the page shows them."""
        self.sheet_version.data, self.shown_name.data = str(game.version_id), game.name
        self.shown_bgg_id.data = str(game.bgg_id or "")

    @property
    def shown_bgg(self) -> str | None:
        """The BoardGameGeek id the page showed ("": none); None for a page that did not say."""
        return self.shown_bgg_id.data if self.shown_bgg_id.raw_data else None

    def sheet(self) -> dict[str, Any]:
        """The answers as a sheet's JSON form (checked by custom.parse_sheet)."""
        named = [entry.form for entry in self.rows if entry.form.name.data]
        breakers = [row.name.data for row in named if row.tie_breaker.data]
        if len(breakers) > 1:
            raise RulesError("Tick at most one row that breaks ties.", "rows")
        return {"min_players": self.min_players.data, "max_players": self.max_players.data,
                "rows": [{"name": row.name.data, "negative": bool(row.negative.data)} for row in named],
                "tie_breaker": breakers[0] if breakers else None, "lowest_wins": bool(self.lowest_wins.data),
                "cooperative": bool(self.cooperative.data), "teams": bool(self.teams.data),
                **({"tie_breaker_wins": self.tie_breaker_wins.data} if self.tie_breaker_wins.data else {})}


def group_game_form(game=None, formdata=None) -> GroupGameForm:
    """The form, filled with ``game``'s name and newest sheet (and its version) when one is edited."""
    if game is None or formdata is not None:
        return GroupGameForm(formdata=formdata)
    sheet = custom.parse_sheet(game.sheet)
    rows = [{"name": row.name, "negative": row.negative, "tie_breaker": row.name == sheet.tie_breaker}
            for row in sheet.rows]
    rows += [{}] * max(0, min(custom.MAX_ROWS, max(ROW_SLOTS, len(rows) + 4)) - len(rows))
    form = GroupGameForm(formdata=None, data={
        **asdict(sheet), "rows": rows, "tie_breaker_wins": sheet.tie_breaker_wins or "", "name": game.name,
        "bgg_id": game.bgg_id})
    form.show(game)
    return form


class ChoiceBox:
    """A choice of the tally that DrawnForm compares like its number boxes, by the value it shows."""

    def _value(self) -> str:
        return "" if self.data is None else str(self.data)


class TeamField(ChoiceBox, SelectField):
    pass


class OutcomeField(ChoiceBox, RadioField):
    pass


def points_field_name(seat: int, row: int) -> str:
    return f"points-{seat}-{row}"


def _score_fields(sheet: custom.ScoreSheet, labels: Mapping[str, str], names: Sequence[str | None],
                  teams: Sequence[str] | None = None,
                  points_range: tuple[int, int] = SHEET_POINTS) -> dict[str, Any]:
    """Per seat (its player named, if known) a number per row of ``sheet`` within ``points_range`` (a row
    that cannot go below zero from 0) and, where teams play, its team (starting as ``teams``); where the
    table plays together, the outcome."""
    lowest_any, highest = points_range
    fields: dict[str, Any] = {"sheet": sheet}
    team_choices = choices((team, gettext("Team %(team)s", team=team)) for team in custom.TEAM_NAMES)
    for seat, name in enumerate(names):
        for n, key in enumerate(sheet.row_keys):
            label = labels.get(key, key)
            # gettext at request time: a lazy string counts as safe HTML, and names are user input
            required = (gettext("Enter the points for %(row)s.", row=label) if name is None
                        else gettext("Enter %(name)s's points for %(row)s.", name=name, row=label))
            lowest = lowest_any if not sheet.rows or sheet.rows[n].negative else 0
            fields[points_field_name(seat, n)] = WholeNumberField(
                label, validators=[InputRequired(required), NumberRange(lowest, highest)],
                render_kw=NUMERIC)
        if sheet.teams:
            label = gettext("Team") if name is None else gettext("Team of %(name)s", name=name)
            fields[f"team-{seat}"] = TeamField(label, default=None if teams is None else teams[seat],
                                               choices=team_choices)
    if sheet.cooperative:
        fields["won"] = OutcomeField(_l("How did it end?"), choices=choices([("yes", _l("We won")),
                                                                           ("no", _l("We lost"))]),
                                     validators=[InputRequired(_l("Say whether the table won or lost."))])
    return fields


class SheetScores:
    """The scores of a form built on a sheet (its ``seated()``): points per row, teams, outcome."""

    sheet: custom.ScoreSheet

    def seat_fields(self, seat: int) -> list:
        return [self[points_field_name(seat, n)] for n in range(len(self.sheet.row_keys))]

    def breakdowns(self) -> list[dict[str, int]]:
        keys = self.sheet.row_keys
        return [{key: field.data for key, field in zip(keys, self.seat_fields(seat), strict=True)}
                for seat in self.seated()]

    def teams_chosen(self) -> list[str] | None:
        return [self[f"team-{seat}"].data for seat in self.seated()] if self.sheet.teams else None

    def won_chosen(self) -> bool | None:
        return self.won.data == "yes" if self.sheet.cooperative else None


def sheet_tally_form(sheet: custom.ScoreSheet, names: Sequence[str], formdata=None,
                     reopened: Mapping[str, Any] | None = None, changed_since: bool = False,
                     running_scores: Callable[[], Sequence[int]] | None = None) -> DrawnForm:
    """A number per row of ``sheet`` (or a total) per player, teams or outcome where asked. Unsent, it starts
    as a ``reopened`` play's tally was entered (a sheet of totals whose log ``changed_since``: with what was
    entered since), else (a sheet of totals) from the ``running_scores``."""
    labels = {} if sheet.rows else {custom.TOTAL_ROW: gettext("Total")}
    fields = {"seated": lambda self: list(range(len(names))), **_score_fields(sheet, labels, names)}
    form_class = type("SheetTallyForm", (DrawnForm, SheetScores), fields)
    if formdata is not None:
        return form_class(formdata=formdata)
    current = (reopened or {}).get("breakdowns")
    replaced = None  # the kept totals the running scores replace, to say so by their boxes
    if (isinstance(current, list) and len(current) == len(names)
            and all(isinstance(breakdown, dict) for breakdown in current)):
        teams, won = custom.outcome_from_payload(reopened, len(names))
        if changed_since and not sheet.rows and running_scores is not None:
            now = running_scores()
            totals = custom.totals_since(current, reopened.get(custom.RUNNING_SCORES), now)
            if totals is None:  # how the running scores stood is not kept: start from them as they are
                replaced, totals = [breakdown.get(custom.TOTAL_ROW) for breakdown in current], now
            current = [{custom.TOTAL_ROW: n} for n in totals]
    else:
        teams, won = None, None
        current = None if sheet.rows or running_scores is None else [
            {custom.TOTAL_ROW: n} for n in running_scores()]
    data: dict[str, Any] = {} if current is None else {
        points_field_name(seat, n): current[seat].get(key, 0)
        for seat in range(len(names)) for n, key in enumerate(sheet.row_keys)}
    if sheet.teams:
        data |= {f"team-{seat}": team for seat, team in enumerate(teams or custom.default_teams(len(names)))}
    if sheet.cooperative and won is not None:
        data["won"] = "yes" if won else "no"
    form = form_class(formdata=None, data=data)
    for seat, was in enumerate(replaced or ()):
        box = form[points_field_name(seat, 0)]
        if box.data != was:
            box.description = gettext("Points were entered since the play was reopened: this is the running "
                                      "score now (the tally had %(was)s).", was=was)
    form.remember_drawn()
    return form


# --- a play logged afterwards ----------------------------------------------------------------------

LONGEST_MINUTES = 7 * 24 * 60


class PastPlayForm(DrawnFromSheet, SheetScores):
    """A finished play entered afterwards (built by ``past_play_form``)."""

    ended_on = StringField(_l("Played on"), validators=[InputRequired(_l("Give the day it was played."))],
                           render_kw={"type": "date"})
    ended_at = StringField(_l("Finished at (optional)"), validators=[Optional()], render_kw={"type": "time"})
    minutes = WholeNumberField(_l("How long it took, in minutes (optional)"),
                               validators=[Optional(), NumberRange(0, LONGEST_MINUTES)],
                               render_kw=NUMERIC)
    variant = StringField(_l("Expansions or variant"), filters=[collapse_spaces],
                          validators=[Optional(), Length(max=120)])
    note = StringField(_l("Note"), filters=[collapse_spaces], validators=[Optional(), Length(max=500)])

    zone: tzinfo | None = None  # the group's time zone; None: the server's
    tie_breaker_keys: tuple[str, ...] = ()  # one of the three games: what it asks of players tied on points
    # Set by the view: the first year a play may name (the backup import's: every play kept can be restored;
    # the default only keeps dates computable) and the time it is, in UTC.
    first_year: int = MINYEAR + 1
    now: datetime
    _DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")  # as a date input sends it; no week dates, no offsets
    _TIME = re.compile(r"(?:[01][0-9]|2[0-3]):[0-5][0-9]")  # HH:MM only: an offset would move the day

    def seated(self) -> list[int]:
        """The seats taken; a seat left at "nobody" is not part of the play."""
        return [seat for seat in range(self.sheet.max_players) if self[f"player-{seat}"].data]

    def chosen_players(self) -> list[int]:
        return [self[f"player-{seat}"].data for seat in self.seated()]

    def tie_breaker_fields(self, seat: int) -> list:
        return [self[f"{key}-{seat}"] for key in self.tie_breaker_keys]

    def tie_breakers(self) -> dict[str, list[int | None]]:
        """The tie-breakers entered for the seats taken."""
        return entered_tie_breakers(self, self.tie_breaker_keys, "{}-{}".format, self.seated())

    def validate_ended_on(self, field: StringField) -> None:
        try:
            day = date.fromisoformat(field.data) if self._DAY.fullmatch(field.data or "") else None
        except ValueError:
            day = None
        if day is None:
            raise ValidationError(_l("Use a date like 2024-05-31."))
        if day.year < self.first_year:
            raise ValidationError(gettext("Give a day in %(year)d or later.", year=self.first_year))
        if day > self._local_now().date():
            raise ValidationError(_l("That day has not come yet."))

    def validate_ended_at(self, field: StringField) -> None:
        if not self._TIME.fullmatch(field.data or ""):
            raise ValidationError(_l("Use a time like 21:30."))

    def validate(self, extra_validators=None) -> bool:
        for seat in range(self.sheet.max_players):
            raw = self[f"player-{seat}"].raw_data
            if not raw or raw[0] in ("", "0"):  # the points of an empty seat are not asked for
                for field in self.seat_fields(seat):
                    field.validators = [Optional()]
        if not super().validate(extra_validators):
            return False
        chosen = self.chosen_players()
        if len(set(chosen)) != len(chosen):
            self.form_errors.append(gettext("Each player can take only one seat."))
        elif not self.sheet.min_players <= len(chosen) <= self.sheet.max_players:
            self.form_errors.append(gettext("This game is played by %(min)d to %(max)d players.",
                                            min=self.sheet.min_players, max=self.sheet.max_players))
        else:  # a play entered afterwards ended before now, and began in a year a backup can hold
            ended = self.finished()
            if ended > self.now:
                self.ended_at.errors.append(gettext("That time has not come yet: it is %(now)s now.",
                                                    now=self._local_now().strftime("%H:%M")))
            elif (ended - timedelta(minutes=self.minutes.data or 0)).year < self.first_year:
                self.ended_on.errors.append(gettext("The play would have begun before %(year)d: give a later "
                                                    "day or a shorter length.", year=self.first_year))
        return not self.form_errors and not self.ended_at.errors and not self.ended_on.errors

    def _local_now(self) -> datetime:
        """Now on the group's clocks (None: the server's)."""
        return self.now.astimezone(self.zone)

    def finished(self) -> datetime:
        """When the play ended, in UTC: the day and time as the group's clocks showed them (no time given:
        21:00 on that day, an evening's end that keeps the day in every export; now if that is earlier)."""
        day = date.fromisoformat(self.ended_on.data)
        typed = (self.ended_at.data or "").strip()  # blank is no time: Optional() let it through
        if typed:
            local = datetime.combine(day, time.fromisoformat(typed))
        else:
            local = datetime.combine(day, time(21, 0))
            if self._local_now().replace(tzinfo=None) < local:
                # now as it is: rebuilt from the server's clock it is an hour early when the clocks go back
                return self.now.replace(second=0, microsecond=0).astimezone(UTC)
        return (local.replace(tzinfo=self.zone) if self.zone else local.astimezone()).astimezone(UTC)


def preselected_players(sheet: custom.ScoreSheet, players: Sequence, asked: str | None,
                        last_play: Sequence[int] | None) -> list[int]:
    """Who the past-play form starts with (player ids): the first N when N are asked for; else those of
    the group's last play of the game who still play, if enough; else one seat per player."""
    ids = [player.id for player in players]
    if asked and re.fullmatch(r"[0-9]{1,2}", asked):
        return ids[:max(sheet.min_players, min(sheet.max_players, int(asked)))]
    again = [pid for pid in last_play or () if pid in ids][:sheet.max_players]
    if len(again) >= sheet.min_players:
        return again
    return ids[:sheet.max_players]


def past_play_form(sheet: custom.ScoreSheet, players: Sequence, labels: Mapping[str, str],
                   zone: tzinfo | None = None, formdata=None,
                   preselect: Sequence[int] | None = None, version: int | None = None,
                   tie_breakers: Sequence[tuple[str, Message]] = (),
                   points_range: tuple[int, int] = SHEET_POINTS) -> PastPlayForm:
    """The past-play form of ``sheet`` (a group game's: its ``version``), seated as ``preselect`` (player ids)
    or one per player, with the game's ``tie_breakers`` (payload key, label) per seat and points within
    ``points_range``; its day and time are the group's (``zone``; None: the server's), as its label says."""
    seats = sheet.max_players
    player_choices = choices([(0, _l("— nobody —")), *((p.id, p.name) for p in players)])
    fields: dict[str, Any] = {"zone": zone}
    fields |= {f"player-{seat}": SelectField(gettext("Seat %(n)d", n=seat + 1), coerce=int, default=0,
                                             choices=player_choices) for seat in range(seats)}
    fields |= _score_fields(sheet, labels, [None] * seats, custom.default_teams(seats), points_range)
    fields |= {f"{key}-{seat}": tie_breaker_field(translated(label))
               for seat in range(seats) for key, label in tie_breakers}
    fields["tie_breaker_keys"] = tuple(key for key, _ in tie_breakers)
    starts = [player.id for player in players] if preselect is None else list(preselect)
    data = {"sheet_version": "" if version is None else str(version),
            **{f"player-{seat}": starts[seat] if seat < len(starts) else 0 for seat in range(seats)}}
    form_class = type("PastPlayForm", (PastPlayForm,), fields)
    form = form_class(formdata=formdata) if formdata is not None else form_class(formdata=None, data=data)
    # a plain str, escaped when shown: a lazy string would count as safe HTML
    form.ended_at.label.text = gettext("Finished at (%(zone)s time, optional)",
                                       zone=str(zone) if zone else gettext("the server's"))
    return form


def moved_to_sheet(formdata: MultiDict, old: custom.ScoreSheet | None, new: custom.ScoreSheet,
                   version: int) -> MultiDict:
    """A past-play form's answers typed on the sheet ``old`` (None: not known), for ``new`` (its ``version``):
    each seat's points follow their row by name, rows gone lose theirs, new rows start empty."""
    moved = MultiDict([(key, value) for key, value in formdata.items(multi=True)
                       if not _POINTS.fullmatch(key) and key != "sheet_version"])
    moved["sheet_version"] = str(version)
    if old is not None:
        position = {key: n for n, key in enumerate(new.row_keys)}
        for seat in range(min(old.max_players, new.max_players)):
            for n, key in enumerate(old.row_keys):
                typed = formdata.get(points_field_name(seat, n))
                if key in position and typed is not None:
                    moved[points_field_name(seat, position[key])] = typed
    return moved
