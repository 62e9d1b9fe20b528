"""Import a group's plays from a BG Stats export: upload the file, say who is who, import."""

from flask import Blueprint, current_app, flash, g, redirect, render_template, request, url_for
from flask_babel import format_decimal, ngettext
from flask_babel import gettext as _

from companion import store
from companion.exchange import bgstats_import
from companion.exchange.bgstats_import import BgStatsError, BgStatsFile
from companion.exchange.common import group_zone
from companion.forms import COLOURS
from companion.forms.bgstats import BgStatsUploadForm, mapping_form
from companion.games import table_tools
from companion.messages import Refused
from companion.views import common
from companion.views.catalogue import group_games
from companion.web.database import get_db
from companion.web.i18n import decimal, translated

bp = Blueprint("bgstats", __name__, url_prefix="/groups/<int:group_id>/import/bg-stats")


def _read(group: store.Group, data: bytes | str) -> BgStatsFile:
    """The export as this group sees it: its games (the three and its own), zone and earlier imports."""
    db = get_db()
    done = frozenset(store.imported_play_keys(db, group.id, bgstats_import.KEY_FIELD))
    match = bgstats_import.own_game_matcher(store.list_group_games(db, group.id))
    return bgstats_import.read_export(data, group_games(group.id), match, group_zone(g.time_zone),
                                      already_imported=done, in_history=_history(group))


def _history(group: store.Group) -> bgstats_import.History:
    db = get_db()
    return bgstats_import.History(store.finished_play_players(db, group.id),
                                  [player.name for player in store.list_players(db, group.id)])


def _mapping_form(group: store.Group, file: BgStatsFile, formdata=None):
    players = store.list_players(get_db(), group.id)
    suggested = bgstats_import.suggested_mapping(file.players, players, file.renamed)
    form = mapping_form(file.players, players, suggested, formdata=formdata)
    if formdata is None:
        form.export_data.data = bgstats_import.carried(file)
    return form


def _confirm_page(group: store.Group, file: BgStatsFile, form, status: int = 200):
    # the first ones (a page of megabytes otherwise), those the history has first: the page says which
    shown = sorted(file.skipped, key=lambda play: not play.in_history)[:bgstats_import.MAX_SKIPPED_SHOWN]
    skipped = [(play.game_name, play.date[:40], translated(play.reason)) for play in shown]
    return render_template("history/bgstats_confirm.html", group=group, file=file, form=form,
                           skipped=skipped, more_skipped=len(file.skipped) - len(shown),
                           shortened=bgstats_import.shortened_notes(file.plays),
                           other_winners=bgstats_import.other_winners(file.plays),
                           most_shown=bgstats_import.MAX_SKIPPED_SHOWN,
                           note_max=table_tools.NOTE_MAX, games=group_games(group.id)), status


@bp.route("", methods=["GET", "POST"])
def upload(group_id: int):
    """Step 1: the export file. A sound one leads to the confirmation; nothing is stored yet."""
    group = g.group
    form = BgStatsUploadForm()
    if form.validate_on_submit():
        try:
            file = _read(group, form.export.data.read())
        except BgStatsError as error:
            form.export.errors.append(translated(error))
        else:
            return _confirm_page(group, file, _mapping_form(group, file))
    page = render_template("history/bgstats_upload.html", group=group, form=form, games=group_games(group.id),
                           max_plays=format_decimal(bgstats_import.MAX_PLAYS),
                           max_players=format_decimal(bgstats_import.MAX_PLAYERS),
                           limit=decimal(current_app.config["BACKUP_MAX_BYTES"] / 2 ** 20))
    return page, common.form_status()


@bp.post("/confirm")
def confirm(group_id: int):
    """Step 2: who is who; then the plays are stored, all of them or none."""
    group = g.group
    try:
        file = _read(group, request.form.get("export_data", ""))
    except BgStatsError:
        flash(_("The confirmation no longer held the export. Upload the file again."), "error")
        return redirect(url_for("bgstats.upload", group_id=group.id))
    if not file.plays:
        flash(_("There is nothing left to import from this file."))
        return redirect(url_for("history.index", group_id=group.id))
    form = _mapping_form(group, file, formdata=request.form)
    if not form.validate_on_submit():
        return _confirm_page(group, file, form, 400)
    try:
        plan = bgstats_import.plan_import(file, form.mapping(), store.list_players(get_db(), group.id),
                                          list(COLOURS), _history(group))
        store.import_plays(get_db(), group.id, plan.new_players, plan.plays)
    except Refused as error:
        form.form_errors.append(translated(error))
        return _confirm_page(group, file, form, 409)
    flash(ngettext("Imported %(num)d play from BG Stats; new players: %(players)d.",
                   "Imported %(num)d plays from BG Stats; new players: %(players)d.",
                   len(plan.plays), players=len(plan.new_players)))
    if plan.duplicates:
        flash(ngettext("%(num)d play was already in the history and was not imported again.",
                       "%(num)d plays were already in the history and were not imported again.",
                       plan.duplicates))
    return redirect(url_for("history.index", group_id=group.id))
