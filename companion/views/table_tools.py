"""At the table, for every game: the play's timer, who starts, its note and variant (the forms of
``_table_tools.html``; each change moves the play's version on, so every phone follows)."""

from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, flash, g, redirect, render_template, url_for
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from companion import store
from companion.forms.table_tools import FirstPlayerForm, NotesForm, TimerForm
from companion.games import table_tools as tools
from companion.messages import Message, Refused
from companion.views import common
from companion.web.database import get_db
from companion.web.i18n import translated

bp = Blueprint("table_tools", __name__, url_prefix="/plays/<int:play_id>")


@bp.app_template_global()
def table_tools(play: store.Play) -> dict[str, Any]:
    """What the partial shows of a play; nothing depends on the time of the request (the play page is
    cached per version): a running timer is shown by when it started, the page script counts on."""
    options = play.options
    elapsed, since = tools.stored_timer(options) or (0, None)
    names = [seat.name for seat in play.seats]
    first = tools.first_seat(options, len(names))
    now = datetime.now(UTC)
    played = tools.duration_seconds(options, play.ended_at, now) if play.status == "finished" else None
    return dict(state=tools.timer_state(options, now)[0], elapsed=elapsed, since=since or "",
                elapsed_clock=tools.clock(elapsed), duration=None if played is None else tools.clock(played),
                first=first, order=tools.turn_order(names, first) if first is not None else [],
                note=options[tools.NOTE] if isinstance(options.get(tools.NOTE), str) else "",
                variant=options[tools.VARIANT] if isinstance(options.get(tools.VARIANT), str) else "",
                note_version=store.note_revision(options))


def _back(play: store.Play) -> Response:
    page = "history.play" if play.status == "finished" else "plays.show"
    return redirect(url_for(page, play_id=play.id, _anchor="table-tools"))


def _change(play: store.Play, change) -> bool:
    """Change the options of a play still going on (a finished one is refused under the write lock)."""
    try:
        store.change_play_options(get_db(), play.id, change, while_active=True)
    except Refused as error:
        common.flash_rules_error(error)
        return False
    return True


@bp.post("/timer")
def timer(play_id: int):
    play = g.play
    form = TimerForm()
    if not form.validate_on_submit():
        common.reload_and_try_again()
    else:
        _change(play, lambda options: {**options, tools.TIMER: tools.timer_after(
            options, form.action.data, datetime.now(UTC).replace(microsecond=0))})
    return _back(play)


@bp.post("/first-player")
def first_player(play_id: int):
    play = g.play
    form = FirstPlayerForm()
    if not form.validate_on_submit():
        common.reload_and_try_again()
        return _back(play)
    chosen = int(form.seat.data) if form.seat.data else None

    def pick(options):
        first = tools.first_seat(options, len(play.seats))
        if form.shown_seat is not False and first is not None and first != form.shown_seat:
            # two phones drew at once: the first draw stands
            raise Refused(Message("Another phone picked who starts since this page was drawn: %(name)s "
                                  "starts.", name=play.seats[first].name))
        return {**options, tools.FIRST_SEAT: tools.pick_first_seat(len(play.seats), chosen)}

    if _change(play, pick):
        first = tools.first_seat(store.get_play(get_db(), play.id).options, len(play.seats))
        flash(_("%(name)s starts.", name=play.seats[first].name))
    return _back(play)


@bp.post("/notes")
def notes(play_id: int):
    play = g.play
    form = NotesForm()
    if not form.validate_on_submit():
        flash(" ".join(str(error) for errors in form.errors.values() for error in errors), "error")
        return _back(play)
    note = {tools.NOTE: form.note.data or "", tools.VARIANT: form.variant.data or ""}
    try:
        store.save_play_note(get_db(), play.id, note, expected_revision=form.version_number)
    except store.StaleVersion as error:
        # what the phone typed comes back next to the note saved meanwhile, to be sent again
        common.note_stale(error)
        saved = table_tools(store.get_play(get_db(), play.id))
        form.version.data = str(saved["note_version"])
        return render_template("note_again.html", play=play, form=form, saved=saved,
                               message=translated(error), back=_back(play).location), 409
    flash(_("Note saved."))
    return _back(play)

