"""A play: seats, scoreboard, event log with undo, the final tally and the result."""

from __future__ import annotations

from flask import Blueprint, Flask, current_app, flash, g, redirect, render_template, request, url_for
from flask_babel import gettext as _

from companion import store
from companion.forms import AdjustForm, ConfirmForm, VersionedForm, seat_choices, tally_form
from companion.games import custom
from companion.games.table import ADJUST, fold, ranked_tally
from companion.messages import Refused
from companion.views import charts
from companion.views.catalogue import get_game
from companion.views.common import (
    final_tally_url,
    flash_rules_error,
    note_stale,
    play_setup,
    result_inputs,
    to_play,
    translated,
)
from companion.views.members import trash_play
from companion.views.tables import TableCache, app_tables
from companion.web.database import get_db

bp = Blueprint("plays", __name__, url_prefix="/plays/<int:play_id>")

LOG_ON_PAGE = 20  # the newest entries the play page shows; the whole log is a page of its own


def _tables() -> TableCache:
    return app_tables(current_app)


def table_of(play: store.Play, events: list[store.Event] | store.EventLog | None = None):
    """The play's table: folded from ``events`` if they are given, else from the stored log.

    The stored log (no events, or the log a check is handed) is not replayed from the start: the
    table is kept between requests and brought up to date with the newest events.
    """
    if events is None or isinstance(events, store.EventLog):
        return _tables().table(get_db(), play, play_setup(play), getattr(events, "version", None))
    return fold(play_setup(play), ((e.kind, e.payload) for e in events))


def append_checked(play: store.Play, kind: str, payload: dict) -> None:
    """Append an event the rules accept on the play's table as stored (``TableCache.append``).

    ``Refused`` if they do not, and nothing is stored.
    """
    _tables().append(get_db(), play, play_setup(play), kind, payload)


def _names(play: store.Play) -> list[str]:
    return [seat.name for seat in play.seats]


def render_play(play: store.Play, adjust_form: AdjustForm | None = None, status: int = 200,
                **game_context):
    """The play page; a game's own views pass their forms and state in ``game_context``."""
    if play.status == "finished":
        return redirect(url_for("plays.result", play_id=play.id))
    events = store.newest_events(get_db(), play.id, LOG_ON_PAGE)
    table = table_of(play)
    if adjust_form is None:
        adjust_form = AdjustForm(formdata=None)
    adjust_form.seat.choices = seat_choices(_names(play))
    return render_template(
        "play.html", play=play, game=get_game(play.game), group=g.group,
        events=events, table=table, adjust_form=adjust_form, undo_form=VersionedForm(formdata=None),
        tally_url=final_tally_url(play), **game_context,
    ), status


@bp.get("")
def show(play_id: int):
    play = g.play
    if play.status == "finished":
        return redirect(url_for("plays.result", play_id=play.id))
    return render_play(play)


@bp.post("/adjust")
def adjust(play_id: int):
    play = g.play
    form = AdjustForm()
    form.seat.choices = seat_choices(_names(play))
    if not form.validate_on_submit():
        return render_play(play, form, 400)
    payload = {"seat": form.seat.data, "points": form.points.data, "note": form.note.data or ""}
    try:
        append_checked(play, ADJUST, payload)
    except Refused as error:
        flash_rules_error(error)
        return render_play(store.get_play(get_db(), play.id), form, 409)
    return to_play(play.id, "scoreboard")


@bp.post("/undo")
def undo(play_id: int):
    play = g.play
    form = VersionedForm()
    if not form.validate_on_submit():
        flash(_("Reload the page and try again."), "error")
        return render_play(play, status=400)
    try:
        undone = store.undo_last_event(get_db(), play.id, expected_version=form.version_number)
    except store.StaleVersion as error:
        flash_rules_error(error)
        return render_play(store.get_play(get_db(), play.id), status=409)
    flash(_("Undone.") if undone else _("There is nothing to undo."))
    return to_play(play.id)


@bp.route("/finish", methods=["GET", "POST"])
def finish(play_id: int):
    """The final tally that works for every game: a total per player, typed in (never prefilled by guess).

    A reopened play's form comes back with the totals it was finished with.
    """
    play = g.play
    # a tally sent after another phone finished is stale like any other (409, the totals kept)
    if play.status == "finished" and request.method == "GET":
        return redirect(url_for("plays.result", play_id=play.id))
    if custom.game_id_of(play.game) is not None:  # its own sheet knows how to rank its totals
        return redirect(final_tally_url(play))
    names = _names(play)
    form = tally_form(names, formdata=request.form if request.method == "POST" else None)
    if request.method == "GET":
        form.version.data = str(play.version)
        kept = store.reopened_tally(get_db(), play.id)
        totals = kept.payload.get("totals") if kept else None
        if isinstance(totals, list) and len(totals) == len(names):
            for seat, total in enumerate(totals):
                form[f"total_{seat}"].data = total
    elif form.validate_on_submit():
        totals = [form[f"total_{seat}"].data for seat in range(len(names))]
        result = ranked_tally(play.game, ("total",),
                              [(name, {"total": total}) for name, total in zip(names, totals, strict=True)],
                              None, table_of(play, store.list_events(get_db(), play.id)))
        try:
            store.finish_play(get_db(), play.id, {"totals": totals}, result_inputs(result),
                              expected_version=form.version_number)
        except Refused as error:
            # the totals typed stay on the form; the next try is checked against the play as it is now
            note_stale(error)
            form.form_errors.append(translated(error))
            form.version.data = str(store.get_play(get_db(), play.id).version)
            return render_template("tally.html", play=play, game=get_game(play.game), form=form), 409
        return redirect(url_for("plays.result", play_id=play.id))
    status = 400 if request.method == "POST" else 200
    return render_template("tally.html", play=play, game=get_game(play.game), form=form), status


@bp.get("/result")
def result(play_id: int):
    play = g.play
    if play.status != "finished":
        return redirect(url_for("plays.show", play_id=play.id))
    results = store.play_results(get_db(), play.id)
    rows = list(results[0].breakdown) if results else []
    events = store.list_events(get_db(), play.id)
    corrected = bool(events) and events[-1].kind == store.CORRECTION_EVENT
    return render_template("result.html", play=play, game=get_game(play.game),
                           group=g.group, results=results, rows=rows, race=charts.race(play, results, events),
                           undo_form=VersionedForm(formdata=None), corrected=corrected)


@bp.route("/delete", methods=["GET", "POST"])
def delete(play_id: int):
    play = g.play
    form = ConfirmForm()
    if form.validate_on_submit():
        trash_play(play)
        flash(_("The play was deleted. It stays in the group's trash for %(days)d days.",
                days=store.TRASH_DAYS))
        return redirect(url_for("groups.show", group_id=play.group_id, _anchor="trash"))
    game = get_game(play.game)
    return render_template(
        "confirm.html", form=form, title=_("Delete this play of %(game)s?", game=game.name),
        message=_("It disappears from the group's pages, history and statistics for every phone. For "
                  "%(days)d days it can be restored from the group page; then it is gone for good.",
                  days=store.TRASH_DAYS),
        action=_("Delete the play"), back=url_for("plays.show", play_id=play.id),
    )


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
