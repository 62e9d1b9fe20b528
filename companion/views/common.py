"""What several views need: the database, confirmations, results, and answers to repeated or stale writes."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from flask import Flask, current_app, flash, g, redirect, render_template, request, url_for
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from companion import store
from companion.forms import ConfirmForm
from companion.games import custom
from companion.games.common import FinalResult, PlaySetup, Seat
from companion.messages import Refused
from companion.web.database import get_db
from companion.web.i18n import translated


def utc_now() -> datetime:
    """The current time in UTC; a test may set ``CLOCK`` in the config to a function to move it."""
    clock = current_app.config.get("CLOCK")
    return clock() if clock else datetime.now(UTC)


def timestamp(moment: datetime) -> str:
    """A time as the store keeps it: ISO 8601 in UTC, to the second."""
    return moment.astimezone(UTC).replace(microsecond=0).isoformat()


def purge_old_trash() -> None:
    """Delete for good what has been in a trash for longer than it is kept (cheap when nothing is due)."""
    store.purge_trash(get_db(), timestamp(utc_now() - timedelta(days=store.TRASH_DAYS)))


def ask_to_confirm(title: str, message: str, action: str, back: str) -> str | None:
    """The page asking to confirm an action, or None when this request confirms it (a valid POST).

    A view of such an action: ``page = ask_to_confirm(...)``, returns ``page`` if there is one, else acts.
    """
    form = ConfirmForm()
    if form.validate_on_submit():
        return None
    return render_template("confirm.html", form=form, title=title, message=message, action=action, back=back)


def result_inputs(result: FinalResult) -> list[store.ResultInput]:
    """The rules' final result as the rows the store keeps, in seat order."""
    return [store.ResultInput(seat, player.total, player.rank, player.breakdown)
            for seat, player in enumerate(result.players)]


def play_setup(play: store.Play) -> PlaySetup:
    return PlaySetup(game=play.game, seats=tuple(Seat(s.name, s.colour) for s in play.seats),
                     options=play.options)


def to_play(play_id: int, anchor: str | None = None) -> Response:
    return redirect(url_for("plays.show", play_id=play_id, _anchor=anchor))


def flash_rules_error(error: Refused) -> None:
    note_stale(error)
    flash(translated(error), "error")


def game_blueprint_name(game_slug: str) -> str:
    """The blueprint of a game's own screens is named after its slug: ``great_western_trail``."""
    return game_slug.replace("-", "_")


def final_tally_url(play: store.Play) -> str:
    """The game's own final tally if it has one, else the generic total per player."""
    if custom.game_id_of(play.game) is not None:
        return url_for("custom_games.final_tally", play_id=play.id)
    endpoint = f"{game_blueprint_name(play.game)}.final_tally"
    if endpoint in current_app.view_functions:
        return url_for(endpoint, play_id=play.id)
    return url_for("plays.finish", play_id=play.id)


# --- every phone write stored once; every stale edit answered 409 ------------------------------------

# A request id: what static/live.js puts into each form it sends (random, URL-safe).
REQUEST_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")


def _request_place() -> tuple[int | None, int | None] | None:
    """The group and play a form writes into, from the address (None for other requests)."""
    args = request.view_args or {}
    if request.method != "POST" or not ({"group_id", "play_id"} & args.keys()):
        return None
    return args.get("group_id"), args.get("play_id")


def claim_request_id():
    """Before a phone's write: a request id this phone sent before for this play or group answers
    "already saved" and stores nothing.

    Otherwise the store notes the id in the same transaction as the write (``store.expect_request``),
    so that of two copies sent at once only one is stored. Forms sent without an id (no JavaScript)
    are stored as they come; their version numbers still refuse most repeats.
    """
    place = _request_place()
    request_id = request.form.get("request_id") if place else None
    if request_id is None:
        return None
    if not REQUEST_ID.fullmatch(request_id):
        message = _("This form carries a request id the companion does not understand. Reload the page.")
        return render_template("error.html", code=400, message=message), 400
    sent = store.RequestId(request_id, g.membership.id, place[1])  # the phone the gate let in
    seen = store.seen_request(get_db(), sent)
    if seen is not None:
        return already_stored(seen)
    g.request_id = sent
    store.expect_request(get_db(), sent)
    return None


def release_request_id(_error: BaseException | None = None) -> None:
    """After the request: the connection's next request expects no id but its own."""
    if g.pop("request_id", None) is not None:
        store.expect_request(get_db(), None)


def already_stored(seen: store.RepeatedRequest):
    """The answer to a write sent again after it was stored: the page it went to, and a note."""
    flash(_("Already saved: this phone had sent it before."))
    if seen.play_id is not None:
        return redirect(url_for("plays.show", play_id=seen.play_id), 303)
    return redirect(url_for("groups.show", group_id=seen.group_id), 303)


def note_stale(error: Refused) -> None:
    """Remember that this request's edit was refused as stale, so that its answer is a 409."""
    if isinstance(error, store.StaleVersion):
        g.stale_edit = error


def answer_stale_with_409(response: Response) -> Response:
    """A stale edit answers 409 however the view showed it (a page with the form again, a redirect).

    A redirect becomes a page with the message and a link to where the redirect led, so that a phone
    (and its script) can tell the refusal from a success.
    """
    error = g.pop("stale_edit", None)
    if error is None or request.method != "POST" or response.status_code == 409:
        return response
    if response.status_code in (301, 302, 303):
        page = render_template("error.html", code=409, message=translated(error),
                               next_url=response.headers["Location"])
        return current_app.make_response((page, 409))
    if response.status_code in (200, 400):
        response.status_code = 409
    return response


def init_app(app: Flask) -> None:
    app.before_request(claim_request_id)
    app.teardown_request(release_request_id)
    app.after_request(answer_stale_with_409)
    app.register_error_handler(store.RepeatedRequest, already_stored)
