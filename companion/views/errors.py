"""Error pages: a clear message and the right 4xx, an HTML page or, under /api, JSON."""

from flask import Blueprint, abort, jsonify, render_template, request
from flask_babel import gettext as _
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import BadHost, HTTPException

from companion.web.gate import InTrash
from companion.web.security import TooManyGroups

bp = Blueprint("errors", __name__)


def _messages() -> dict[int, str]:
    return {
        400: _("The request could not be understood. Go back and check what you entered."),
        403: _("This is not allowed."),
        404: _("There is nothing here. If a friend sent you a link to a group, ask for its invite link."),
        405: _("This page cannot be used like that."),
        413: _("That is more data than the companion accepts at once."),
        415: _("This address takes a form sent from the companion's pages."),
        429: _("Too many attempts. Wait a little and try again."),
        500: _("Something went wrong on the server. Your last entry may not have been saved: "
               "check the play before entering it again."),
    }


@bp.app_errorhandler(HTTPException)
def handle_http_error(error: HTTPException):
    # keep what the error says about itself, such as Allow on a 405
    headers = [(name, value) for name, value in error.get_headers() if name.lower() != "content-type"]
    if request.path.startswith("/api/"):  # the JSON API's error shape, never an HTML page
        return jsonify({"error": error.description or error.name, "details": []}), error.code, headers
    code = error.code or 500
    message = _messages().get(code, error.description)
    if isinstance(error, CSRFError):  # a 400 of its own
        message = _("The form had expired or came from another site. Reload the page and send it again.")
    if isinstance(error, BadHost):  # a Host no address can be built for: no page with links either
        return message, code, {"Content-Type": "text/plain; charset=utf-8"}
    next_url = error.page if isinstance(error, InTrash) else None
    if isinstance(error, InTrash) and error.what == "play":
        message = _("This play was deleted on a phone and is in the group's trash: nothing sent to it was "
                    "saved. It can be restored from the trash on the group's page.")
    elif isinstance(error, InTrash):
        message = _("This group was deleted on a phone and is in the trash: nothing sent to it was saved. "
                    "It can be restored from the trash on the start page.")
    return render_template("error.html", code=code, message=message, next_url=next_url), code, headers


@bp.app_errorhandler(TooManyGroups)
def handle_too_many_groups(error: TooManyGroups):
    """A membership this phone's cookie has no room for (a join or new group sent again after the phone
    filled it); the views that make one answer this on their own form."""
    return render_template("error.html", code=409, message=str(error)), 409


def refuse_json_to_forms() -> None:
    """A page's form takes a form's body only: Flask-WTF would also read a JSON body into it, with
    numbers and lists where every field expects text. The JSON API lives under /api/."""
    if request.method != "GET" and request.is_json and not request.path.startswith("/api/"):
        abort(415)
