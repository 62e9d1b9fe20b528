"""A play: seats, scoreboard, event log with undo, the final tally and the result."""

from flask import Blueprint, abort, flash, g, redirect, render_template, request, url_for
from flask.helpers import get_flashed_messages
from flask_babel import gettext as _

from companion import store
from companion.forms import AdjustForm, DrawnForm, VersionedForm, choices, tally_form
from companion.games import custom
from companion.games.table import ADJUST, TableState, fold, ranked_tally
from companion.messages import Refused
from companion.views import charts, common
from companion.views.catalogue import play_game
from companion.views.tables import app_tables
from companion.web.database import get_db
from companion.web.security import site_url

bp = Blueprint("plays", __name__, url_prefix="/plays/<int:play_id>")

LOG_ON_PAGE = 20  # the newest entries the play page shows; the whole log is a page of its own
LOG_PAGE = 100  # entries per page of the whole log


def table_of(play: store.Play, events: list[store.Event] | store.EventLog | None = None):
    """The play's table: folded from a list of ``events``, else the kept one brought up to the stored log."""
    if events is None or isinstance(events, store.EventLog):
        version = getattr(events, "version", None)
        return app_tables().table(get_db(), play, common.play_setup(play), version)
    return fold(common.play_setup(play), ((e.kind, e.payload) for e in events))


def _adjust_form(play: store.Play, **bind) -> AdjustForm:
    form = AdjustForm(**bind)
    form.seat.choices = choices(enumerate(seat.name for seat in play.seats))
    return form


def render_play(play: store.Play, adjust_form: AdjustForm | None = None, status: int = 200, **game_context):
    """The play page; a game's own views pass their forms and state in ``game_context``."""
    if play.status == "finished" and request.method == "POST":
        # an entry refused because another phone finished the play: a 409 (an offline queue keeps the entry)
        get_flashed_messages()  # the refusal is this page's message
        return render_template("error.html", code=409, next_url=url_for("plays.result", play_id=play.id),
                               message=_("This play is finished. Undo the final tally to change it.")), 409
    if play.status == "finished":
        return common.to_result(play.id)
    return render_template(
        "play.html", play=play, game=play_game(play), group=g.group,
        events=store.newest_events(get_db(), play.id, LOG_ON_PAGE), table=table_of(play),
        adjust_form=adjust_form or _adjust_form(play, formdata=None),
        tally_url=common.final_tally_url(play), **game_context,
    ), status


@bp.get("")
def show(play_id: int):
    return render_play(g.play)


@bp.get("/link.svg")
def link_qr(play_id: int):
    return common.qr_code(site_url("plays.show", play_id=play_id))


@bp.get("/log")
def log(play_id: int):
    """The newest entries of the play's whole log, or those before entry ``before`` (its number)."""
    before = request.args.get("before")
    if before is not None and not (before.isascii() and before.isdigit() and len(before) <= 16
                                   and 1 < int(before) < 2**53):
        abort(400)
    events = store.newest_events(get_db(), play_id, LOG_PAGE, int(before) if before else None)
    return render_template("play_log.html", play=g.play, game=play_game(g.play), group=g.group, events=events)


@bp.post("/adjust")
def adjust(play_id: int):
    play = g.play
    form = _adjust_form(play)
    if not form.validate_on_submit():
        return render_play(play, form, 400)
    try:  # refused (nothing stored) unless the rules accept it on the play's table as stored
        app_tables().append(get_db(), play, common.play_setup(play), ADJUST,
                            dict(seat=form.seat.data, points=form.points.data, note=form.note.data or ""))
    except Refused as error:
        common.flash_rules_error(error)
        return render_play(store.get_play(get_db(), play.id), form, 409)
    return common.to_play(play.id, "scoreboard")


@bp.post("/undo")
def undo(play_id: int):
    play = g.play
    form = VersionedForm()
    if not form.validate_on_submit():
        common.reload_and_try_again()
        return render_play(play, status=400)
    try:
        undone = store.undo_last_event(get_db(), play.id, expected_version=form.version_number)
    except store.StaleVersion as error:
        common.flash_rules_error(error)
        return render_play(store.get_play(get_db(), play.id), status=409)
    flash(_("Undone.") if undone else _("There is nothing to undo."))
    return common.to_play(play.id)


@bp.route("/finish", methods=["GET", "POST"])
@common.tally_page
def finish(play_id: int):
    """The final tally of every game: a total per player, typed in; a reopened play's come back."""
    play = g.play
    if custom.game_id_of(play.game) is not None:  # its own sheet knows how to rank its totals
        return redirect(common.final_tally_url(play))
    names = [seat.name for seat in play.seats]
    table = table_of(play, store.list_events(get_db(), play.id))
    tie_breakers = table.rules.totals_tie_breakers(table.game_state) if table.rules else ()
    keys = [key for key, _, _ in tie_breakers]
    # the tie-breakers show open where a tie asked for them, or where a reopened tally has them
    if request.method == "GET":
        form, kept = drawn_totals(play, table)
        tie_open = kept is not None and any(key in kept.payload for key in keys)
    else:
        form, tie_open = tally_form(names, formdata=request.form, tie_breakers=tie_breakers), True
    if form.validate_on_submit():
        totals = [form[f"total_{seat}"].data for seat in range(len(names))]
        payload = {"totals": totals, **form.tie_breakers()}

        def score():
            if table.rules:
                table.rules.check_typed_totals(table.game_state, payload, names)
            return payload, ranked_tally(play.game, ("total",), [
                (name, {"total": total}) for name, total in zip(names, totals, strict=True)], payload, table)

        if common.finish_tally(play, form, score, lambda now: drawn_totals(now)[0]):
            return common.to_result(play.id)
    return render_template("tally.html", play=play, game=play_game(play), form=form,
                           tie_breakers=keys, tie_open=tie_open), common.form_status()


def drawn_totals(play: store.Play, table: TableState | None = None
                 ) -> tuple[DrawnForm, store.ReopenedTally | None]:
    """The totals form drawn from ``table`` (else the stored one), and the reopened tally it starts from."""
    if table is None:
        table = table_of(play, store.list_events(get_db(), play.id))
    kept = store.reopened_tally(get_db(), play.id)
    form = tally_form([seat.name for seat in play.seats], kept=kept.payload if kept else None,
                      tie_breakers=table.rules.totals_tie_breakers(table.game_state) if table.rules else ())
    form.version.data = str(play.version)
    return form, kept


@bp.get("/result")
def result(play_id: int):
    play = g.play
    if play.status != "finished":
        return common.to_play(play.id)
    results = store.play_results(get_db(), play.id)
    events = store.list_events(get_db(), play.id)
    return render_template("result.html", play=play, game=play_game(play), group=g.group,
                           results=results, rows=list(results[0].breakdown) if results else [],
                           race=charts.race(play, results, events),
                           corrected=bool(events) and events[-1].kind == store.CORRECTION_EVENT)


@bp.route("/delete", methods=["GET", "POST"])
def delete(play_id: int):
    play = g.play
    common.confirm_first(
        _("Delete this play of %(game)s?", game=play_game(play).name),
        _("It disappears from the group's pages, history and statistics for every phone. For "
          "%(days)d days it can be restored from the group page; then it is gone for good.",
          days=store.TRASH_DAYS),
        _("Delete the play"), url_for("plays.show", play_id=play.id))
    store.trash_play(get_db(), play.id, common.timestamp())
    flash(_("The play was deleted. It stays in the group's trash for %(days)d days.", days=store.TRASH_DAYS))
    return common.to_group(play.group_id, "trash")
