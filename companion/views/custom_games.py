"""Any other game: the group defines its score sheet once; its plays end with that sheet's tally."""

from typing import Any

from flask import Blueprint, abort, flash, g, redirect, render_template, request, url_for
from flask_babel import gettext as _

from companion import store
from companion.forms import DrawnForm
from companion.forms.custom_games import SheetScores, group_game_form, sheet_tally_form
from companion.games import custom
from companion.games.common import FinalResult
from companion.messages import Refused
from companion.views import common
from companion.views.catalogue import play_sheet, rank_by_sheet
from companion.views.plays import table_of
from companion.web.database import get_db
from companion.web.i18n import translated

bp = Blueprint("custom_games", __name__)


@bp.route("/groups/<int:group_id>/games/new", endpoint="new", methods=["GET", "POST"])
@bp.route("/groups/<int:group_id>/games/<int:game_id>", methods=["GET", "POST"])
def edit(group_id: int, game_id: int | None = None):
    """A new game's score sheet, or a change to one (plays already kept keep theirs)."""
    game = None if game_id is None else common.found_or_404(store.get_group_game, group_id, game_id)
    form = group_game_form(game, formdata=common.sent_form())
    if form.validate_on_submit():
        try:
            sheet = custom.parse_sheet(form.sheet())
            custom.check_new_sheet(sheet)
            if game is None:
                store.add_group_game(get_db(), group_id, form.name.data, form.bgg_id.data, sheet.to_json())
            else:
                drawn, shown, shown_bgg = form.drawn_version, form.shown_name.data or None, form.shown_bgg
                store.update_group_game(
                    get_db(), group_id, game.id, form.name.data, form.bgg_id.data, sheet.to_json(),
                    check=lambda current: _check_edit(current, sheet, drawn, shown, shown_bgg))
        except Refused as error:
            common.note_stale(error)  # a sheet another phone changed since the page was drawn: nothing saved
            (form.name.errors if isinstance(error, store.DuplicateGame) else form.form_errors).append(
                translated(error))
            if isinstance(error, store.StaleVersion) and game is not None:  # sent again, it replaces that
                now = common.found_or_404(store.get_group_game, group_id, game.id)
                if now.version_id != form.drawn_version:
                    form.form_errors.append(_sheet_now(custom.parse_sheet(now.sheet)))
                if str(form.bgg_id.data or "") == form.shown_bgg:  # an id box left alone shows the new id
                    form.bgg_id.raw_data, form.bgg_id.data = None, now.bgg_id
                game = now
                form.show(now)
        else:
            flash(_("%(game)s was added. Start a play of it below.", game=form.name.data) if game is None
                  else _("Saved. Plays already kept keep the score sheet they were scored with."))
            return common.to_group(group_id, "new-h")
    page = render_template("custom_games/edit.html", group=g.group, form=form, game=game)
    return page, common.form_status()


def _check_edit(current: store.GroupGame, sheet: custom.ScoreSheet, drawn: int | None,
                shown: str | None, shown_bgg: str | None) -> None:
    """The edit under the write lock: drawn from the game's newest sheet, name and BoardGameGeek id, allowed
    by its plays."""
    store.check_sheet_version(current, drawn)
    store.check_shown_name(current, shown)
    store.check_shown_bgg_id(current, shown_bgg)
    custom.check_sheet_change(custom.parse_sheet(current.sheet), sheet, current.plays)


def _sheet_now(sheet: custom.ScoreSheet) -> str:
    """What the edit form, shown again after another phone changed the sheet, says the sheet is now."""
    if not sheet.rows:
        return _("Its score sheet is now a total per player. Your changes are below as you typed them: "
                 "saving them replaces that sheet.")
    return _("Its score sheet now has the rows %(rows)s. Your changes are below as you typed them: "
             "saving them replaces that sheet.", rows=", ".join(row.name for row in sheet.rows))


@bp.route("/groups/<int:group_id>/games/<int:game_id>/delete", methods=["GET", "POST"])
def delete(group_id: int, game_id: int):
    game = common.found_or_404(store.get_group_game, group_id, game_id)
    back = url_for("custom_games.edit", group_id=group_id, game_id=game.id)
    common.confirm_first(_("Remove %(game)s?", game=game.name),
                         _("The game has no plays yet; removing it removes only its score sheet."),
                         _("Remove the game"), back)
    try:
        store.delete_group_game(get_db(), group_id, game.id)
    except Refused as error:
        common.flash_rules_error(error)
        return redirect(back)
    flash(_("%(game)s was removed.", game=game.name))
    return common.to_group(group_id, "new-h")


@bp.route("/plays/<int:play_id>/sheet", methods=["GET", "POST"])
@common.tally_page
def final_tally(play_id: int):
    """The final tally of any other game: its rows (or totals), the teams or the outcome."""
    play = g.play
    if custom.game_id_of(play.game) is None:
        abort(404)
    game, sheet = play_sheet(play)
    if request.method == "GET":
        form = drawn_tally(play, sheet)
    else:
        form = sheet_tally_form(sheet, [seat.name for seat in play.seats], formdata=request.form)
        if form.validate_on_submit() and common.finish_tally(play, form, lambda: _scored(play, sheet, form),
                                                             lambda now: drawn_tally(now, sheet)):
            return common.to_result(play.id)
    page = render_template("custom_games/tally.html", play=play, game=game, sheet=sheet, form=form)
    return page, common.form_status()


def _scored(play: store.Play, sheet: custom.ScoreSheet,
            form: SheetScores) -> tuple[dict[str, Any], FinalResult]:
    """The tally sent as the play keeps it, and its result. A sheet of totals keeps the running scores it
    was entered at too: reopened, the points entered after add to the totals as they were typed."""
    breakdowns, teams, won = form.breakdowns(), form.teams_chosen(), form.won_chosen()
    running = None if sheet.rows else list(table_of(play).running_scores)
    payload = {"breakdowns": breakdowns, "teams": teams, "won": won, custom.RUNNING_SCORES: running}
    return {k: v for k, v in payload.items() if v is not None}, rank_by_sheet(play, breakdowns, teams, won)


def drawn_tally(play: store.Play, sheet: custom.ScoreSheet) -> DrawnForm:
    """The tally as drawn from the play as it is (a sheet of totals starts from its running scores)."""
    kept = store.reopened_tally(get_db(), play.id)
    names = [seat.name for seat in play.seats]
    form = sheet_tally_form(sheet, names, reopened=kept.payload if kept else None,
                            changed_since=kept is not None and kept.changed_since,
                            running_scores=lambda: table_of(play).running_scores)
    form.version.data = str(play.version)
    return form
