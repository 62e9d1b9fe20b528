"""Forms of the history: its filter, the statistics' game, correcting a tally, counting, importing."""

import json
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime, time, timedelta, tzinfo
from typing import Any, NamedTuple, Protocol

from flask_babel import gettext
from flask_babel import lazy_gettext as _l
from flask_wtf.file import FileField, FileRequired
from wtforms import Form, HiddenField, SelectField, StringField
from wtforms.validators import AnyOf, InputRequired, Length, NumberRange, Optional, ValidationError

from companion.forms import (
    NUMERIC,
    RELOAD,
    TOTAL_RANGE,
    DrawnForm,
    GroupPlayer,
    PlainForm,
    SiteForm,
    WholeNumberField,
    choices,
    collapse_spaces,
    listed,
)
from companion.games import custom
from companion.games.common import FIRST_YEAR, LAST_YEAR, GameInfo
from companion.names import BGG_ID_MAX, LOCATION_MAX, refused_character

ROW_LIMIT = 999  # per row of a built-in game's tally, as its final tally allows
LAST_PAGE = 100_000


def _day(value: str | None) -> date | None:
    return date.fromisoformat(value) if value else None


def _a_day(_form, field: StringField) -> None:
    try:
        day = _day(field.data)
    except ValueError:
        raise ValidationError(_l("Use a date like 2024-05-31.")) from None
    if day is not None and not FIRST_YEAR <= day.year <= LAST_YEAR:  # no play lies beyond
        raise ValidationError(_l("Give a day between the years %(first)d and %(last)d.", first=FIRST_YEAR,
                                 last=LAST_YEAR))


def _not_before_since(form: Form, field: StringField) -> None:
    if form.since.data and field.data and not (form.since.errors or field.errors) \
            and _day(field.data) < _day(form.since.data):
        raise ValidationError(_l("The last day is before the first day."))


class HistoryFilterForm(PlainForm):
    """The history's filter, read from the query string (a GET form: no CSRF token)."""

    game = SelectField(_l("Game"), default="", validate_choice=False,
                       validators=[listed(_l("Pick one from the list."))])
    player = SelectField(_l("Player"), default="", validate_choice=False,
                         validators=[listed(_l("Pick one from the list."))])
    # trimmed: Optional() passes a day of spaces on as it is
    since = StringField(_l("From"), filters=[collapse_spaces], validators=[Optional(), _a_day],
                        render_kw={"type": "date"})
    until = StringField(_l("To"), filters=[collapse_spaces],
                        validators=[Optional(), _a_day, _not_before_since], render_kw={"type": "date"})
    page = WholeNumberField(_l("Page"), validators=[Optional(), NumberRange(1, LAST_PAGE)])

    def __init__(self, formdata, games: Mapping[str, GameInfo], players: Sequence[GroupPlayer]) -> None:
        super().__init__(formdata)
        self.game.choices = choices([("", _l("All games")), *((g.slug, g.name) for g in games.values())])
        self.player.choices = choices([("", _l("Everybody")), *((str(p.id), p.name) for p in players)])

    def chosen(self, zone: tzinfo | None) -> dict[str, Any]:
        """The filter's game, player and day bounds in ``zone`` (None: any), as a ``Period``'s; once valid."""
        player = int(self.player.data) if self.player.data else None
        since, until = _day(self.since.data), _day(self.until.data)
        return {"game": self.game.data or None, "player_id": player,
                "start": _midnight(since, zone) if since else None,
                "end": _midnight(until + timedelta(days=1), zone) if until else None}

    @property
    def page_number(self) -> int:
        return self.page.data or 1

    def query(self, page: int) -> dict[str, str | int]:
        """Another page of the same filter."""
        values = {name: getattr(self, name).data for name in ("game", "player", "since", "until")}
        return {**{k: v for k, v in values.items() if v}, "page": page}


class Period(NamedTuple):
    """The plays that ended from ``start`` up to, not including, ``end`` (aware times)."""

    start: datetime
    end: datetime


def _midnight(day: date, zone: tzinfo | None) -> datetime:
    """The start of ``day`` in ``zone`` (None: the server's), as an aware time."""
    start = datetime.combine(day, time())
    return start.replace(tzinfo=zone) if zone is not None else start.astimezone()


def days_period(first: date, last: date, zone: tzinfo | None) -> Period:
    """The plays that ended from the start of ``first`` to the end of ``last``, both days in ``zone``."""
    return Period(_midnight(first, zone), _midnight(last + timedelta(days=1), zone))


def _year_before(day: date) -> date:
    try:
        return day.replace(year=day.year - 1)
    except ValueError:  # 29 February
        return day.replace(year=day.year - 1, day=28)


class StatisticsFilterForm(PlainForm):
    """Which game the statistics are about ('' for all games) and over which period (a GET form)."""

    game = SelectField(_l("Game"), default="", validate_choice=False,
                       validators=[listed(_l("There is no such game; pick one from the list."))])
    period = SelectField(_l("Period"), default="", validate_choice=False,
                         validators=[listed(_l("Pick one from the list."))],
                         choices=choices([("", _l("All time")), ("year", _l("This year")),
                                          ("months", _l("Last 12 months")), ("custom", _l("From … to …"))]))
    # (not Optional(): that would skip the check that a custom period has both days)
    since = StringField(_l("From"), validators=[_a_day], render_kw={"type": "date"})
    until = StringField(_l("To"), validators=[_a_day, _not_before_since], render_kw={"type": "date"})

    def __init__(self, formdata, games: Mapping[str, GameInfo]) -> None:
        super().__init__(formdata)
        self.game.choices = choices([("", _l("All games")), *((g.slug, g.name) for g in games.values())])

    def validate_since(self, field: StringField) -> None:
        if self.period.data == "custom" and not field.data:
            raise ValidationError(_l("Give the first day of the period."))

    def validate_until(self, field: StringField) -> None:
        if self.period.data == "custom" and not field.data:
            raise ValidationError(_l("Give the last day of the period."))

    def chosen_period(self, today: date, zone: tzinfo | None) -> Period | None:
        """The period chosen, ``today`` being the date in ``zone`` (None: the server's); None for all time."""
        if self.period.data == "year":
            return days_period(today.replace(month=1, day=1), today.replace(month=12, day=31), zone)
        if self.period.data == "months":
            return days_period(_year_before(today) + timedelta(days=1), today, zone)
        if self.period.data == "custom":
            return days_period(date.fromisoformat(self.since.data), date.fromisoformat(self.until.data), zone)
        return None

    def query(self, game: str | None) -> dict[str, str]:
        """The query string of the same period for ``game`` (None: all games)."""
        values = {"game": game or "", "period": self.period.data or ""}
        if self.period.data == "custom":
            values |= {"since": self.since.data, "until": self.until.data}
        return {name: value for name, value in values.items() if value}


class CountedForm(SiteForm):
    """Count a finished play in the statistics, or leave it out."""

    counted = HiddenField(validators=[AnyOf(["0", "1"], message=RELOAD)])


class ExportSettings(Protocol):
    time_zone: str | None  # None: the server's
    location: str
    bgg_ids: Mapping[str, int]


class GroupSettingsForm(SiteForm):
    """Built by ``group_settings_form``, with a BoardGameGeek id field for each of its ``games``."""

    # the settings the page showed (JSON): another phone may have saved others since
    shown = HiddenField()
    time_zone = SelectField(_l("Time zone"), default="", validate_choice=False,
                            validators=[listed(_l("Pick a time zone from the list."))])
    location = StringField(_l("Where the group plays"), filters=[collapse_spaces],
                           validators=[Optional(), Length(max=LOCATION_MAX)],
                           render_kw={"autocomplete": "off", "placeholder": _l("e.g. Anna's kitchen")})
    games: Sequence[GameInfo] = ()

    def validate_location(self, field: StringField) -> None:
        if field.data and refused_character(field.data) is not None:
            raise ValidationError(_l("Type the place as plain text."))

    def validate_shown(self, field: HiddenField) -> None:
        if field.data and self.shown_settings() is None:  # only a broken or forged page sends that
            raise ValidationError(RELOAD)

    def bgg_fields(self) -> list[WholeNumberField]:
        return [self[bgg_field_name(game.slug)] for game in self.games]

    def show(self, settings: ExportSettings) -> None:
        self.shown.data = json.dumps({"time_zone": settings.time_zone, "location": settings.location,
                                      "bgg_ids": dict(settings.bgg_ids)}, sort_keys=True)

    def shown_settings(self) -> dict[str, Any] | None:
        """The settings the page showed, by the names of ``ExportSettings``; None for a page that did not
        say (drawn before it did) or that says nonsense."""
        try:
            shown = json.loads(self.shown.data or "null")
        except (ValueError, RecursionError):
            return None
        fits = (isinstance(shown, dict) and set(shown) == {"time_zone", "location", "bgg_ids"}
                and isinstance(shown["time_zone"], str | None) and isinstance(shown["location"], str)
                and isinstance(shown["bgg_ids"], dict)
                and all(type(value) is int for value in shown["bgg_ids"].values()))
        return shown if fits else None

    def bring_up_to_date(self, drawn: ExportSettings, now: ExportSettings) -> None:
        """After another phone saved ``now`` over the ``drawn`` settings: the boxes left as drawn take the new
        values, typed ones stay, each box the other phone changed says so; sent again, checked against now."""
        was, new = _box_data(drawn, self.games), _box_data(now, self.games)
        for box in (self.time_zone, self.location, *self.bgg_fields()):
            before, after = was[box.name], new[box.name]
            if after == before or box.data == after:
                continue
            if box.data == before:
                box.raw_data, box.data = None, after
                box.description = gettext("Another phone changed this (it was %(was)s).", was=before or "–")
            else:
                box.description = gettext("Another phone changed this to %(now)s; what you typed is kept: "
                                          "check it.", now=after or "–")
        self.show(now)

    def chosen(self) -> dict[str, Any]:
        """The settings' values by the names of ``ExportSettings``; call after validate()."""
        ids = {game.slug: field.data for game, field in zip(self.games, self.bgg_fields(), strict=True)}
        return {"time_zone": self.time_zone.data or None, "location": self.location.data or "",
                "bgg_ids": {slug: value for slug, value in ids.items() if value}}


def group_settings_form(zones: Sequence[str], games: Sequence[GameInfo], settings: ExportSettings,
                        formdata=None) -> GroupSettingsForm:
    """The settings form, with a BoardGameGeek id field for each game whose id the companion lacks."""
    wrong = _l("A BoardGameGeek id is a whole number like 193738.")
    form_class = type("GroupSettingsForm", (GroupSettingsForm,), {"games": games, **{
        bgg_field_name(game.slug): WholeNumberField(
            gettext("BoardGameGeek id of %(game)s", game=game.name),  # plain text: escaped when shown
            validators=[Optional(), NumberRange(1, BGG_ID_MAX, wrong)], render_kw=NUMERIC)
        for game in games}})
    form = form_class(formdata=formdata, data=None if formdata is not None else _box_data(settings, games))
    form.time_zone.choices = choices([("", _l("The server's time zone")), *((zone, zone) for zone in zones)])
    if formdata is None:
        form.show(settings)
    return form


def _box_data(settings: ExportSettings, games: Sequence[GameInfo]) -> dict[str, Any]:
    """The settings form's boxes' data that shows ``settings``, by the boxes' names."""
    return {"time_zone": settings.time_zone or "", "location": settings.location,
            **{bgg_field_name(game.slug): settings.bgg_ids.get(game.slug) for game in games}}


def bgg_field_name(slug: str) -> str:
    return "bgg_" + slug.replace("-", "_")


class ImportForm(SiteForm):
    backup = FileField(_l("Backup file"), validators=[FileRequired(_l("Choose the backup file (.json)."))],
                       render_kw={"accept": "application/json,.json"})


def correction_field_name(seat: int, row: str) -> str:
    return f"seat{seat}-{row}"


def correction_range(game: str, rows: Sequence[str]) -> tuple[int, int]:
    """The points a corrected row may hold: as many as the play's tally could. A group's own game's sheet
    and totals typed at the end hold more than a built-in game's rows (the sheet's rules then refuse what
    its rows do not allow)."""
    if custom.game_id_of(game) is not None:
        return -custom.POINTS_LIMIT, custom.POINTS_LIMIT
    if list(rows) == [custom.TOTAL_ROW]:
        return TOTAL_RANGE
    return -ROW_LIMIT, ROW_LIMIT


def correction_form(game: str, names: Sequence[str], current: Sequence[Mapping[str, int]], version: int,
                    label_of: Callable[[str], str], formdata=None) -> DrawnForm:
    """Per player a number per breakdown row (named by ``label_of``), from ``current``; totals are sums."""
    rows = list(dict.fromkeys(row for breakdown in current for row in breakdown))
    lowest, highest = correction_range(game, rows)

    class CorrectionForm(DrawnForm):
        def breakdowns(self) -> list[dict[str, int]]:
            return [{row: self[correction_field_name(seat, row)].data for row in rows}
                    for seat in range(len(names))]

        def seat_fields(self, seat: int) -> list:
            return [self[correction_field_name(seat, row)] for row in rows]

    CorrectionForm.rows = rows
    for seat, name in enumerate(names):
        for row in rows:
            label = label_of(row)
            # gettext at request time: a lazy string counts as safe HTML, and the name is user input
            required = gettext("Enter %(name)s's points for %(row)s.", name=name, row=label)
            setattr(CorrectionForm, correction_field_name(seat, row), WholeNumberField(
                label, validators=[InputRequired(required), NumberRange(lowest, highest)],
                render_kw=NUMERIC))
    # sent, a box the page did not have (another phone finished the play again since, with other rows)
    # shows the number recorded now; still empty to the checks, it is never taken as typed
    form = CorrectionForm(formdata=formdata, data={
        "version": str(version), **{correction_field_name(seat, row): breakdown.get(row, 0)
                                    for seat, breakdown in enumerate(current) for row in rows}})
    if formdata is None:
        form.remember_drawn()
    return form
