"""Any other game: the group defines its score sheet once; its plays end with that sheet's tally."""

from __future__ import annotations

from flask import Blueprint, Flask, abort, flash, g, redirect, render_template, request, url_for
from flask_babel import gettext as _

from companion import store
from companion.forms import ConfirmForm
from companion.forms.custom_games import group_game_form, sheet_tally_form
from companion.games import custom
from companion.games.common import FinalResult
from companion.messages import Refused
from companion.views.catalogue import play_sheet
from companion.views.common import flash_rules_error, result_inputs, translated
from companion.views.plays import table_of
from companion.web.database import get_db

bp = Blueprint("custom_games", __name__)


def _member_game(group_id: int, game_id: int) -> tuple[store.Group, store.GroupGame]:
    group = g.group
    try:
        return group, store.get_group_game(get_db(), group.id, game_id)
    except store.NotFound:
        abort(404)


def _save(form, save) -> bool:
    """Check the sheet and store it with ``save(sheet)``; False (errors on the form) if refused."""
    if not form.validate_on_submit():
        return False
    try:
        sheet = custom.parse_sheet(form.sheet()).to_json()
        save(sheet)
    except Refused as error:
        target = form.name if isinstance(error, store.DuplicateGame) else None
        (target.errors if target is not None else form.form_errors).append(translated(error))
        return False
    return True


@bp.route("/groups/<int:group_id>/games/new", methods=["GET", "POST"])
def new(group_id: int):
    group = g.group
    form = group_game_form(formdata=request.form if request.method == "POST" else None)
    if _save(form, lambda sheet: store.add_group_game(get_db(), group.id, form.name.data, form.bgg_id.data,
                                                      sheet)):
        flash(_("%(game)s was added. Start a play of it below.", game=form.name.data))
        return redirect(url_for("groups.show", group_id=group.id, _anchor="new-h"))
    status = 400 if request.method == "POST" else 200
    return render_template("custom_games/edit.html", group=group, form=form, game=None), status


@bp.route("/groups/<int:group_id>/games/<int:game_id>", methods=["GET", "POST"])
def edit(group_id: int, game_id: int):
    group, game = _member_game(group_id, game_id)
    form = group_game_form(game, formdata=request.form if request.method == "POST" else None)
    if _save(form, lambda sheet: store.update_group_game(get_db(), group.id, game.id, form.name.data,
                                                         form.bgg_id.data, sheet)):
        flash(_("Saved. Plays already kept keep the score sheet they were scored with."))
        return redirect(url_for("groups.show", group_id=group.id, _anchor="new-h"))
    status = 400 if request.method == "POST" else 200
    return render_template("custom_games/edit.html", group=group, form=form, game=game), status


@bp.route("/groups/<int:group_id>/games/<int:game_id>/delete", methods=["GET", "POST"])
def delete(group_id: int, game_id: int):
    group, game = _member_game(group_id, game_id)
    form = ConfirmForm()
    if form.validate_on_submit():
        try:
            store.delete_group_game(get_db(), group.id, game.id)
        except Refused as error:
            flash_rules_error(error)
            return redirect(url_for("custom_games.edit", group_id=group.id, game_id=game.id))
        flash(_("%(game)s was removed.", game=game.name))
        return redirect(url_for("groups.show", group_id=group.id, _anchor="new-h"))
    return render_template(
        "confirm.html", form=form, title=_("Remove %(game)s?", game=game.name),
        message=_("The game has no plays yet; removing it removes only its score sheet."),
        action=_("Remove the game"), back=url_for("custom_games.edit", group_id=group.id, game_id=game.id))


def rank_custom_play(play: store.Play, breakdowns, teams, won) -> FinalResult:
    """The play's scores ranked by the sheet it is scored with."""
    _, sheet = play_sheet(play)
    names = [seat.name for seat in play.seats]
    return custom.rank_sheet(play.game, sheet, list(zip(names, breakdowns, strict=True)), teams, won)


def _finish(play: store.Play, form) -> bool:
    """Rank the tally and close the play; False (the reason on the form or flashed) if refused."""
    breakdowns, teams, won = form.breakdowns(), form.teams_chosen(), form.won_chosen()
    try:
        result = rank_custom_play(play, breakdowns, teams, won)
        payload = {"breakdowns": breakdowns, "teams": teams, "won": won}
        store.finish_play(get_db(), play.id, {k: v for k, v in payload.items() if v is not None},
                          result_inputs(result), expected_version=form.version_number)
    except Refused as error:
        if isinstance(error, store.StaleVersion):
            flash_rules_error(error)  # and answered 409
            # the next try is checked against the play as it is now
            form.version.data = str(store.get_play(get_db(), play.id).version)
        form.form_errors.append(translated(error))
        return False
    return True


@bp.route("/plays/<int:play_id>/sheet", methods=["GET", "POST"])
def final_tally(play_id: int):
    """The final tally of any other game: its rows (or totals), the teams or the outcome."""
    play = g.play
    # a tally sent after another phone finished is stale like any other (409, the rows kept)
    if play.status == "finished" and request.method == "GET":
        return redirect(url_for("plays.result", play_id=play.id))
    if custom.game_id_of(play.game) is None:
        abort(404)
    game, sheet = play_sheet(play)
    names = [seat.name for seat in play.seats]
    if request.method == "POST":
        form = sheet_tally_form(sheet, names, formdata=request.form)
        if form.validate_on_submit() and _finish(play, form):
            return redirect(url_for("plays.result", play_id=play.id))
        return render_template("custom_games/tally.html", play=play, game=game, sheet=sheet, form=form), 400
    # a sheet of totals starts from the running scores entered during play
    running = table_of(play).running_scores
    form = sheet_tally_form(sheet, names, current=None if sheet.rows else
                            [{custom.TOTAL_ROW: score} for score in running])
    form.version.data = str(play.version)
    return render_template("custom_games/tally.html", play=play, game=game, sheet=sheet, form=form)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
