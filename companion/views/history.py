"""A group's history and statistics: every finished play, corrections, charts, exports and import."""

import dataclasses
import re
import time
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from flask import Blueprint, current_app, flash, g, redirect, render_template, request, url_for
from flask_babel import format_date, format_decimal
from flask_babel import gettext as _
from markupsafe import Markup
from werkzeug.wrappers import Response

from companion import store
from companion.exchange import backup, bgg_xml, bgstats_link, plays_csv
from companion.exchange.common import group_zone, known_time_zones, needs_bgg_id
from companion.forms import COLOURS, DrawnForm, VersionedForm
from companion.forms import history as forms
from companion.games import GAMES, custom, ratings
from companion.games.common import FinalResult, RulesError, winners_and_others
from companion.games.table import corrected_tally
from companion.messages import Refused
from companion.names import NAME_MAX
from companion.views import charts, common
from companion.views.catalogue import AnyGame, group_games, lowest_wins, play_game, rank_by_sheet
from companion.views.plays import table_of
from companion.web.database import get_db
from companion.web.i18n import day, decimal, translated
from companion.web.labels import row_label
from companion.web.security import TooManyGroups, client_network, keep_membership, room_for_another_group

bp = Blueprint("history", __name__)


def corrected_result(play: store.Play, rows: Sequence[str], breakdowns: Sequence[Mapping[str, int]],
                     final_payload: Mapping[str, Any] | None) -> FinalResult:
    """Totals as the row sums and ranks recomputed, with the game's tie-breakers where recorded."""
    if custom.game_id_of(play.game) is not None:
        return rank_by_sheet(play, breakdowns, *custom.outcome_from_payload(final_payload, len(play.seats)))
    names = [seat.name for seat in play.seats]
    return corrected_tally(play.game, rows, list(zip(names, breakdowns, strict=True)), final_payload,
                           table_of(play, store.list_events(get_db(), play.id)))


def statistics_charts(stats: store.Statistics) -> dict[str, Markup]:
    """The statistics page's charts; each comes with a table of the same numbers on the page."""
    players = stats.players
    found: dict[str, Markup] = {}
    if not players:
        return found
    found["wins"] = charts.bar_chart(
        "wins-chart", _("Wins per player"),
        _("Wins of each player (a shared victory counts for every winner): %(list)s.",
          list=", ".join(f"{p.name} {p.wins}" for p in players)),
        [charts.Bar(p.name, p.wins, p.colour, str(p.wins)) for p in players])
    if stats.periods:
        first, last = day(stats.periods[0].first), day(stats.periods[-1].last)
        if len(stats.periods) == stats.plays:
            description = _("Each player's score in each play, from %(first)s to %(last)s; the table below "
                            "lists the numbers.", first=first, last=last)
        else:
            description = _("Each player's average score in %(count)d stretches of consecutive plays, from "
                            "%(first)s to %(last)s; the table below lists the numbers.",
                            count=len(stats.periods), first=first, last=last)
        found["scores"] = charts.line_chart(
            "scores-chart", _("Scores over time"), description,
            [day(period.first) for period in stats.periods],
            [charts.Line(p.name, p.colour, [period.averages.get(p.player_id) for period in stats.periods])
             for p in players])
    if stats.rows:
        found["breakdown"] = charts.stacked_bar_chart(
            "breakdown-chart", _("Where the points come from"),
            _("Each player's average points per scoring row, as stacked bars; the table below lists them."),
            [row_label(row, stats.game) for row in stats.rows],
            [charts.Stack(p.name, [stats.row_averages.get(p.player_id, {}).get(row, 0) for row in stats.rows])
             for p in players])
    return found


@bp.get("/groups/<int:group_id>/history")
def index(group_id: int):
    group = g.group
    db = get_db()
    form = forms.HistoryFilterForm(request.args, group_games(group.id), store.list_players(db, group.id))
    if not form.validate():
        return render_template("history/index.html", group=group, form=form, page=None), 400
    # the days are the group's, as the page writes its plays' times (and as the statistics' period has them)
    page = store.history(db, group.id, **form.chosen(group_zone(g.time_zone)),
                         offset=(form.page_number - 1) * store.HISTORY_PAGE_SIZE)
    return render_template("history/index.html", group=group, form=form, page=page)


@bp.get("/groups/<int:group_id>/statistics")
def statistics(group_id: int):
    group = g.group
    form = forms.StatisticsFilterForm(request.args, group_games(group.id))
    played = store.played_games(get_db(), group.id)
    if not form.validate():
        return render_template("history/statistics.html", group=group, form=form, played=played,
                               stats=None, charts={}), 400
    zone = group_zone(g.time_zone)
    period = form.chosen_period(datetime.now(zone).date(), zone)
    lowest = lowest_wins(group.id)
    stats = in_pad_order(store.statistics(get_db(), group.id, form.game.data or None, period=period,
                                          lowest_wins=lowest))
    found = statistics_charts(stats)
    return render_template("history/statistics.html", group=group, form=form, played=played, stats=stats,
                           charts=found, ratings=ratings_of(group.id, stats, found), period=period,
                           period_days=_days_of(period), winners=winners_of(group.id, stats, period, found),
                           both_ways=len({game.game in lowest for game in stats.games}) == 2)


def _days_of(period: forms.Period | None) -> tuple[str, str] | None:
    """The first and last day of ``period`` (its bounds are midnights in the group's time zone), written."""
    if period is None:
        return None
    last = (period.end - timedelta(days=1)).date()
    return format_date(period.start.date(), "medium"), format_date(last, "medium")


def ratings_of(group_id: int, stats: store.Statistics, found: dict[str, Markup]) -> list[tuple]:
    """(player statistics, rating) of the rated players, best first; adds the chart over time to ``found``."""
    db = get_db()
    store.refresh_ratings(db, group_id, ratings.rate_play)
    scope = stats.game or ratings.OVERALL
    current = store.player_ratings(db, group_id, scope)
    rated = sorted(((p, current[p.player_id]) for p in stats.players if p.player_id in current),
                   key=lambda pair: -pair[1].shown)
    history = store.rating_history(db, group_id, scope)
    if history and rated:
        found["ratings"] = charts.line_chart(
            "ratings-chart", _("Ratings over time"),
            _("Each player's rating after each of the latest %(count)d rated plays; the table above lists "
              "the ratings now.", count=len(history)),
            [day(play.ended_at) for play in history],
            [charts.Line(p.name, p.colour, [play.shown.get(p.player_id) for play in history])
             for p, _ in rated])
    return rated


def winners_of(group_id: int, stats: store.Statistics, period: forms.Period | None,
               found: dict[str, Markup]) -> dict[str, tuple[float | None, float | None]]:
    """Row → (a winner's average points, everyone else's) of a game scored in rows; adds their chart."""
    if stats.game is None or not set(stats.rows) - {"total"}:
        return {}
    averages = winners_and_others(store.winners_row_points(get_db(), group_id, stats.game, period),
                                  sum(p.plays for p in stats.players), sum(p.wins for p in stats.players))
    found["winners"] = charts.stacked_bar_chart(
        "winners-chart", _("Where the winners' points come from"),
        _("A winner's average points per scoring row, as a stacked bar, above everyone else's; the table "
          "below lists them."),
        [row_label(row, stats.game) for row in stats.rows],
        [charts.Stack(label, [(averages.get(row, (0, 0))[side] or 0) for row in stats.rows])
         for side, label in enumerate((_("Winners"), _("Others")))])
    return averages


def in_pad_order(stats: store.Statistics) -> store.Statistics:
    """The statistics with a game's rows in its scoring pad's order; rows it no longer has go last."""
    games = AnyGame()  # a group's own game has its sheet's order too
    pad = games[stats.game].rows if stats.game in games else ()
    rows = tuple(row for row in pad if row in stats.rows) + tuple(row for row in stats.rows if row not in pad)
    return dataclasses.replace(stats, rows=rows)


def _render_record(play: store.Play, status: int = 200):
    if play.status != "finished":  # reopened meanwhile (its final tally undone): the play page shows it
        return common.to_play(play.id)
    db = get_db()
    results = store.play_results(db, play.id)
    game = play_game(play)
    return render_template(
        "history/play.html", play=play, game=game, group=g.group, results=results,
        rows=list(dict.fromkeys(row for r in results for row in r.breakdown)),
        counted=store.play_counted(db, play.id),
        corrections=[e for e in store.list_events(db, play.id) if e.kind == store.CORRECTION_EVENT],
        bg_stats_url=bgstats_link.bg_stats_url(play, game, results, store.stable_ids(db, play.id),
                                               store.group_settings(db, play.group_id))), status


def _reopened_meanwhile(play: store.Play, message: str):
    """The answer to a finished play's form sent after another phone reopened the play: nothing to change
    now. A 409, not a redirect to the play, which would pass for saved (static/live.js)."""
    return render_template("error.html", code=409, message=message,
                           next_url=url_for("plays.show", play_id=play.id)), 409


@bp.get("/plays/<int:play_id>/record")
def play(play_id: int):
    return _render_record(g.play)


@bp.route("/plays/<int:play_id>/correct", methods=["GET", "POST"])
def correct(play_id: int):
    """Correct a finished play's tally row by row; totals and ranks are computed again."""
    play = g.play
    if play.status != "finished" and request.method == "POST":
        return _reopened_meanwhile(play, _("Another phone reopened this play, so the correction was not "
                                           "saved. Finish the play again to change its result."))
    if play.status != "finished":
        return common.to_play(play.id)
    db = get_db()
    form = correction_of(play, common.sent_form())
    status = common.form_status()
    if request.method == "POST":
        try:
            # stale first, before the boxes are checked: the page may lack rows another phone's final tally
            # has added since, and the rules would judge numbers another phone may have changed
            if form.version_is_valid():
                store.check_play_version(db, play.id, form.version_number)
            if form.validate():
                # the sheet's rules may refuse a value the form allows (a row that cannot go below 0)
                result = corrected_result(play, form.rows, form.breakdowns(),
                                          store.final_payload(db, play.id))
                store.correct_results(db, play.id, common.result_inputs(result), form.version_number)
                flash(_("Corrected. The totals and ranks were computed again."))
                return redirect(url_for("history.play", play_id=play.id))
        except Refused as error:
            common.refuse_on_form(form, play, error, correction_of)
            status = 400 if isinstance(error, RulesError) else 409
    return render_template("history/correct.html", play=play, game=play_game(play), form=form), status


def correction_of(play: store.Play, formdata=None) -> DrawnForm:
    """A finished play's correction: as sent, or else drawn from its results as they are now."""
    current = [r.breakdown for r in sorted(store.play_results(get_db(), play.id), key=lambda r: r.seat)]
    return forms.correction_form(play.game, [s.name for s in play.seats], current, play.version,
                                 lambda row: _("Total") if row == "total" else row_label(row, play.game),
                                 formdata=formdata)


@bp.post("/plays/<int:play_id>/correct/undo")
def undo_correction(play_id: int):
    play = g.play
    if play.status != "finished":
        return _reopened_meanwhile(play, _("Another phone reopened this play, so no correction was undone. "
                                           "Finish the play again to change its result."))
    form = VersionedForm()
    if not form.validate_on_submit():
        common.reload_and_try_again()
        return _render_record(play, 400)
    events = store.list_events(get_db(), play.id)
    if not events or events[-1].kind != store.CORRECTION_EVENT:
        flash(_("There is no correction to undo."), "error")
        return _render_record(play, 409)
    try:
        store.undo_last_event(get_db(), play.id, expected_version=form.version_number)
    except Refused as error:
        common.flash_rules_error(error)
        return _render_record(store.get_play(get_db(), play.id), 409)
    flash(_("The correction was undone: the scores are as they were before it."))
    return redirect(url_for("history.play", play_id=play.id))


@bp.post("/plays/<int:play_id>/counted")
def counted(play_id: int):
    play = g.play
    reopened = _("Another phone reopened this play, so the statistics were not changed. Finish the play "
                 "again to leave it out of them or count it.")
    if play.status != "finished":
        return _reopened_meanwhile(play, reopened)
    form = forms.CountedForm()
    if not form.validate_on_submit():
        common.reload_and_try_again()
        return _render_record(play, 400)
    try:
        store.set_play_counted(get_db(), play.id, form.counted.data == "1")
    except Refused:  # only a finished play is counted or left out: reopened since the check above
        return _reopened_meanwhile(play, reopened)
    flash(_("This play counts in the statistics again.") if form.counted.data == "1"
          else _("This play no longer counts in the statistics."))
    return redirect(url_for("history.play", play_id=play.id))


def _download(body: str | bytes, content_type: str) -> Response:
    """The export as a file named after the group and the export's address (plays.csv, backup.json …)."""
    stem = re.sub(r"[^A-Za-z0-9]+", "-", g.group.name).strip("-").lower() or "group"
    name = f"{stem}-{request.path.rpartition('/')[2]}"
    # content_type, not mimetype: a mimetype gets a second "; charset=utf-8" added
    return current_app.response_class(body, content_type=content_type,
                                      headers={"Content-Disposition": f'attachment; filename="{name}"'})


@bp.get("/groups/<int:group_id>/export/plays.csv", endpoint="export_csv", defaults={"delimiter": ","})
@bp.get("/groups/<int:group_id>/export/plays-excel.csv", endpoint="export_csv_semicolon",
        defaults={"delimiter": ";"})  # for spreadsheets that split columns at semicolons (Excel in German …)
def export_plays_csv(group_id: int, delimiter: str):
    archive = store.dump_group(get_db(), group_id)
    zone = group_zone(archive.settings.time_zone)
    # the byte-order mark makes spreadsheet programs read the names as UTF-8
    return _download("\ufeff" + plays_csv.plays_csv(archive, group_games(group_id), zone, delimiter),
                     "text/csv; charset=utf-8")


@bp.get("/groups/<int:group_id>/export/backup.json")
def export_backup(group_id: int):
    with store.snapshot(get_db()) as copy:  # a long read: of a copy, so the log can restart meanwhile
        archive = store.dump_group(copy, group_id)
    return _download(backup.backup_json(archive, store.now()), "application/json")


@bp.get("/groups/<int:group_id>/export/bgg-plays.xml")
def export_bgg(group_id: int):
    archive = store.dump_group(get_db(), group_id)
    zone = group_zone(archive.settings.time_zone)
    return _download(bgg_xml.bgg_plays_xml(archive, group_games(group_id), zone), "application/xml")


@bp.route("/groups/<int:group_id>/settings", methods=["GET", "POST"])
def settings(group_id: int):
    """The group's time zone, place and BoardGameGeek ids, as its exports use them."""
    form = forms.group_settings_form(sorted(known_time_zones()), list(filter(needs_bgg_id, GAMES.values())),
                                     store.group_settings(get_db(), group_id), formdata=common.sent_form())
    status = common.form_status()
    if form.validate_on_submit():
        shown = form.shown_settings()
        drawn = None if shown is None else store.GroupSettings(**shown)
        try:
            store.save_group_settings(get_db(), group_id, store.GroupSettings(**form.chosen()), drawn)
        except store.StaleVersion as error:
            form.form_errors.append(translated(error))
            form.bring_up_to_date(drawn, store.group_settings(get_db(), group_id))
            status = 409
        else:
            flash(_("Saved. The exports use these settings from now on."))
            return redirect(url_for("history.index", group_id=group_id, _anchor="export-h"))
    return render_template("history/settings.html", group=g.group, form=form), status


@bp.route("/groups/import", methods=["GET", "POST"])
def import_backup():
    """A backup becomes a new group (a new invite link and join code), on this phone."""
    form = forms.ImportForm()
    status = common.form_status()
    if form.validate_on_submit():
        config = current_app.config
        request_id = common.sent_request_id()
        try:
            # a copy sent again is answered before it counts as an import or is read; the import's first
            # write finds one sent while the first copy is on its way
            if request_id is not None and (made := store.group_made_with(get_db(), request_id)):
                raise made
            room_for_another_group()
            store.note_import(get_db(), client_network(), time.time(), config["IMPORTS_ALLOWED"],
                              config["IMPORT_WINDOW_SECONDS"])
            archive = backup.parse_backup(form.backup.data.stream, GAMES, COLOURS)
            membership = store.restore_group_on_phone(get_db(), archive, request_id)
            keep_membership(membership)
        except store.RepeatedCreation as repeat:
            return common.already_made(repeat)
        except TooManyGroups as error:
            form.backup.errors.append(str(error))
        except store.TooManyImports as error:
            form.backup.errors.append(translated(error))
            status = 429
        except Refused as error:
            form.backup.errors.append(translated(error))
        else:
            flash(_("Imported %(name)s (players: %(players)d, plays: %(plays)d).", name=archive.name,
                    players=len(archive.players), plays=len(archive.plays)))
            return redirect(url_for("groups.show", group_id=membership.group_id))
    return render_template("history/import.html", form=form, name_max=NAME_MAX,
                           limit=decimal(current_app.config["BACKUP_MAX_BYTES"] / 2 ** 20),
                           max_plays=format_decimal(backup.MAX_PLAYS),
                           max_players=format_decimal(backup.MAX_PLAYERS),
                           max_events=format_decimal(backup.MAX_EVENTS)), status


def allow_whole_imports() -> None:
    """Raise the request size limit for the imports; before anything reads the form (the CSRF check)."""
    if request.endpoint in ("history.import_backup", "bgstats.upload", "bgstats.confirm"):
        request.max_content_length = current_app.config["BACKUP_MAX_BYTES"]
    if request.endpoint in ("bgstats.upload", "bgstats.confirm"):
        request.max_form_memory_size = current_app.config["BACKUP_MAX_BYTES"]
