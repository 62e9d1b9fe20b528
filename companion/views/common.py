"""What several views need: the database, confirmations, results, and answers to repeated or stale writes."""

import functools
import hashlib
import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import Blueprint, abort, current_app, flash, g, redirect, render_template, request, url_for
from flask_babel import gettext as _
from markupsafe import Markup
from segno import make as make_qr
from werkzeug.wrappers import Response

from companion import store
from companion.forms import ConfirmForm, DrawnForm, VersionedForm
from companion.games import custom
from companion.games import table_tools as tools
from companion.games.common import FinalResult, PlaySetup, Seat
from companion.messages import Refused
from companion.web.database import get_db
from companion.web.gate import SentBeforeTrash
from companion.web.i18n import translated
from companion.web.security import keep_membership

bp = Blueprint("common", __name__)  # its hooks apply to every request

REQUEST_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")  # what static/live.js puts into each form it sends


def utc_now() -> datetime:
    """The current time in UTC; a test may set ``CLOCK`` in the config to a function to move it."""
    clock = current_app.config.get("CLOCK")
    return clock() if clock else datetime.now(UTC)


def timestamp(moment: datetime | None = None) -> str:
    """A time (by default now) as the store keeps it: ISO 8601 in UTC, to the second."""
    return (moment or utc_now()).astimezone(UTC).replace(microsecond=0).isoformat()


def purge_old_trash() -> None:
    """Delete for good what has been in a trash for longer than it is kept (cheap when nothing is due)."""
    store.purge_trash(get_db(), timestamp(utc_now() - timedelta(days=store.TRASH_DAYS)))


def found_or_404(get: Callable[..., Any], *args: Any) -> Any:
    try:
        return get(get_db(), *args)
    except store.NotFound:
        abort(404)


def confirm_first(title: str, message: str, action: str, back: str) -> None:
    """Unless this request confirms the action (a valid POST), answer with the page asking to confirm it."""
    form = ConfirmForm()
    if not form.validate_on_submit():
        abort(current_app.make_response(render_template(
            "confirm.html", form=form, title=title, message=message, action=action, back=back)))


def sent_form():
    return request.form if request.method == "POST" else None


def form_status() -> int:
    """The status of a page that shows a form: 400 when it shows a sent form again (refused)."""
    return 400 if request.method == "POST" else 200


def reload_and_try_again() -> None:
    flash(_("Reload the page and try again."), "error")


def refuse_on_form(form: VersionedForm, play: store.Play, error: Refused,
                   redraw: Callable[[store.Play], DrawnForm] | None = None) -> None:
    """Say on the form why it was refused. A stale form takes the play's version now (and, given how to
    ``redraw`` it, the numbers recorded now in boxes left as drawn); any other keeps its version, so that,
    mended and sent again after another phone's change, it is refused as stale instead of undoing it."""
    note_stale(error)
    if isinstance(error, store.StaleVersion):
        now = store.get_play(get_db(), play.id)
        if redraw is not None:
            form.bring_up_to_date(redraw(now))
        else:
            form.version.data = str(now.version)
    form.show_rules_error(error)


def result_inputs(result: FinalResult) -> list[store.ResultInput]:
    return [store.ResultInput(seat, player.total, player.rank, player.breakdown)
            for seat, player in enumerate(result.players)]


def finish_play(play_id: int, payload: Mapping[str, Any], result: FinalResult,
                expected_version: int | None) -> None:
    """Close the play with its final tally and result; its timer stops at the end."""
    store.finish_play(get_db(), play_id, payload, result_inputs(result), expected_version,
                      tools.timer_stopped)


def finish_tally(play: store.Play, form: VersionedForm,
                 score: Callable[[], tuple[Mapping[str, Any], FinalResult]],
                 redraw: Callable[[store.Play], DrawnForm] | None = None) -> bool:
    """Close the play with the tally ``score`` gives (payload, result); False, the reason on the form, if
    refused. A stale tally is refused before it is scored, which could ask for what the table changed."""
    try:
        store.check_play_version(get_db(), play.id, form.version_number)
        payload, result = score()
        finish_play(play.id, payload, result, form.version_number)
    except Refused as error:
        refuse_on_form(form, play, error, redraw)
        return False
    return True


def play_setup(play: store.Play) -> PlaySetup:
    return PlaySetup(play.game, tuple(Seat(s.name, s.colour) for s in play.seats), play.options)


def to_play(play_id: int, anchor: str | None = None) -> Response:
    return redirect(url_for("plays.show", play_id=play_id, _anchor=anchor))


def to_result(play_id: int) -> Response:
    return redirect(url_for("plays.result", play_id=play_id))


def to_group(group_id: int, anchor: str | None = None) -> Response:
    return redirect(url_for("groups.show", group_id=group_id, _anchor=anchor))


def tally_page(view: Callable[..., Any]) -> Callable[..., Any]:
    """A final tally's view; a finished play shows its result instead (a tally sent after is stale: 409)."""
    @functools.wraps(view)
    def page(play_id: int, **args: Any):
        if g.play.status == "finished" and request.method == "GET":
            return to_result(play_id)
        return view(play_id, **args)

    return page


QR_SIZE = 164  # px: a QR code's image on the page, whatever its number of modules
QR_KEPT_SECONDS = 7 * 24 * 3600  # its address changes with what it encodes


def _qr_tag(url: str) -> str:
    return hashlib.sha256(url.encode()).hexdigest()[:16]


@bp.app_template_global()
def qr_image(url: str, endpoint: str, **values) -> Markup:
    """The QR code of ``url``, at an address naming what it encodes (a new invite shows at once); lazy."""
    return Markup('<img src="{}" width="{size}" height="{size}" alt="{}" loading="lazy">').format(
        url_for(endpoint, v=_qr_tag(url), **values), _("QR code of %(url)s", url=url), size=QR_SIZE)


def qr_code(url: str) -> Response:
    """``url`` as an SVG QR code, drawn only when the phone does not keep it (it costs more than a page)."""
    response = Response(mimetype="image/svg+xml")
    response.set_etag(_qr_tag(url), weak=True)  # gzip leaves a weak one as it is
    response.cache_control.private = True
    response.cache_control.max_age = QR_KEPT_SECONDS
    if response.make_conditional(request).status_code == 200:
        make_qr(url, error="m").save(response.stream, kind="svg", xmldecl=False, omitsize=True,
                                     dark="#000", light="#fff")
    return response


def flash_rules_error(error: Refused) -> None:
    note_stale(error)
    flash(translated(error), "error")


def final_tally_url(play: store.Play) -> str:
    """The game's own final tally if it has one, else the generic total per player."""
    if custom.game_id_of(play.game) is not None:
        return url_for("custom_games.final_tally", play_id=play.id)
    endpoint = f"{play.game.replace('-', '_')}.final_tally"  # a game's blueprint is named after its slug
    if endpoint in current_app.view_functions:
        return url_for(endpoint, play_id=play.id)
    return url_for("plays.finish", play_id=play.id)


# --- every phone write stored once; every stale edit answered 409 ------------------------------------

@bp.before_app_request
def claim_request_id():
    """A write whose request id this phone sent before answers "already saved"; else the store notes the id
    with the write, so that of two copies sent at once one is stored (a form without one: as it comes)."""
    args = request.view_args or {}
    if request.method != "POST" or not ({"group_id", "play_id"} & args.keys()):
        return None
    request_id = sent_request_id()
    if request_id is None:
        return None
    sent = store.RequestId(request_id, g.membership.id, args.get("play_id"))  # the phone the gate let in
    seen = store.seen_request(get_db(), sent)
    if seen is not None:
        return already_stored(seen)
    g.request_id = sent
    store.expect_request(get_db(), sent)
    return None


def sent_request_id() -> str | None:
    """The request id a form sent carries (None: a form without); a 400 for one not made by static/live.js."""
    request_id = request.form.get("request_id")
    if request_id is not None and not REQUEST_ID.fullmatch(request_id):
        message = _("This form carries a request id the companion does not understand. Reload the page.")
        abort(current_app.make_response((render_template("error.html", code=400, message=message), 400)))
    return request_id


@bp.teardown_app_request
def release_request_id(_error: BaseException | None = None) -> None:
    """After the request: the connection's next request expects no id but its own."""
    if g.pop("request_id", None) is not None:
        store.expect_request(get_db(), None)


@bp.app_errorhandler(store.RepeatedRequest)
def already_stored(seen: store.RepeatedRequest):
    """The answer to a write sent again after it was stored: the page it went to, and a note."""
    flash(_("Already saved: this phone had sent it before."))
    if isinstance(seen, SentBeforeTrash):  # deleted since (by this very write, perhaps): where it is now
        return redirect(seen.page, 303)
    if seen.play_id is not None:
        return redirect(url_for("plays.show", play_id=seen.play_id), 303)
    return redirect(url_for("groups.show", group_id=seen.group_id), 303)


def already_made(repeat: store.RepeatedCreation) -> Response:
    """The answer to a new group sent again: the phone gets the membership the first copy made for it (its
    answer, with the cookie that lets the phone in, may have been lost)."""
    keep_membership(store.get_membership(get_db(), repeat.group_id, repeat.membership_id))
    return already_stored(repeat)


def note_stale(error: Refused) -> None:
    """Remember that this request's edit was refused as stale, so that its answer is a 409."""
    if isinstance(error, store.StaleVersion):
        g.stale_edit = error


@bp.after_app_request
def answer_stale_with_409(response: Response) -> Response:
    """A stale edit answers 409 however the view showed it; a redirect becomes a page with the message
    and a link to where it led, so that a phone (and its script) can tell the refusal from a success."""
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
