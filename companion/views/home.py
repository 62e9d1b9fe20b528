"""The home page: my groups on this phone, create a group, join one by code or invite link."""

import contextlib
import re
import time
from urllib.parse import urlsplit

from flask import Blueprint, current_app, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from werkzeug.exceptions import HTTPException

from companion import store
from companion.forms import ConfirmForm, GroupForm, JoinCodeForm
from companion.views import common
from companion.web import security
from companion.web.database import get_db
from companion.web.i18n import LANGUAGE_COOKIE, LANGUAGES

bp = Blueprint("home", __name__)


def _render_home(group_form: GroupForm | None = None, join_form: JoinCodeForm | None = None,
                 status: int = 200):
    """The home page; the form not sent starts empty."""
    db, tokens = get_db(), security.membership_tokens()
    groups = store.member_groups(db, tokens)
    active = {group.id: store.list_plays(db, group.id, "active", limit=3) for group in groups}
    return render_template("home.html", groups=groups, active=active, trash_days=store.TRASH_DAYS,
                           trashed=store.trashed_groups(db, tokens),
                           group_form=group_form or GroupForm(formdata=None),
                           join_form=join_form or JoinCodeForm(formdata=None)), status


@bp.get("/")
def index():
    common.purge_old_trash()
    return _render_home()


@bp.post("/groups")
def create_group():
    form = GroupForm()
    if not form.validate_on_submit():
        return _render_home(form, status=400)
    request_id = common.sent_request_id()
    try:
        security.room_for_another_group()  # TooManyGroups before a group is made
        made = store.create_group_on_phone(get_db(), form.name.data, request_id)
        security.keep_membership(made)
    except security.TooManyGroups as error:
        form.name.errors = [str(error)]
        return _render_home(form, status=409)
    except store.RepeatedCreation as repeat:
        return common.already_made(repeat)
    flash(_("Group created. Add the players, then invite the others with the code or QR code."))
    return redirect(url_for("groups.show", group_id=made.group_id))


@bp.post("/join")
def join_by_code():
    """Join by the short code; wrong codes are limited per address and over all addresses together."""
    form = JoinCodeForm()
    if not form.validate_on_submit():
        return _render_home(join_form=form, status=400)
    if made := _joined_before():
        return common.already_made(made)
    config = current_app.config
    limits = store.JoinCodeLimits(window=config["JOIN_FAILURE_WINDOW_SECONDS"],
                                  per_client=config["JOIN_FAILURES_ALLOWED"],
                                  in_all=config["JOIN_FAILURES_ALLOWED_IN_ALL"],
                                  from_new_addresses=config["JOIN_FAILURES_FROM_NEW_ADDRESSES"],
                                  new_address_memory=config["JOIN_NEW_ADDRESS_DAYS"] * 86400)
    try:
        group = store.group_for_join_code(get_db(), form.code.data, security.client_network(), time.time(),
                                          limits)
    except store.TooManyWrongCodes:
        form.code.errors = [_("Too many wrong codes. Wait a quarter of an hour, or use the invite link.")]
        return _render_home(join_form=form, status=429)
    except store.NotFound:
        form.code.errors = [_("No group has this code. Check it with the group's page.")]
        return _render_home(join_form=form, status=400)
    return _joined(group)


def _joined_before() -> store.RepeatedCreation | None:
    """The membership a join sent again made the first time (a double tap, the offline queue after a lost
    answer), found by its request id before the code or link is checked: they may have changed since, and
    a copy sent again never counts as a wrong code."""
    request_id = common.sent_request_id()
    return None if request_id is None else store.group_made_with(get_db(), request_id)


def _joined(group: store.Group):
    """Join ``group`` on this phone and open it, or say why this phone cannot join another group."""
    try:
        security.join_group(group.id, common.sent_request_id())
    except security.TooManyGroups as error:
        flash(str(error), "error")
        return redirect(url_for("home.index"))
    except store.RepeatedCreation as repeat:  # a copy sent at the same time made the membership
        return common.already_made(repeat)
    flash(_("You joined %(name)s.", name=group.name))
    return redirect(url_for("groups.show", group_id=group.id))


@bp.route("/join/<token>", methods=["GET", "POST"])
def join_by_link(token: str):
    """Invite links ask before joining, so that a link preview never joins anybody."""
    form = ConfirmForm()
    confirmed = form.validate_on_submit()
    if confirmed and (made := _joined_before()):
        return common.already_made(made)
    try:
        group = store.group_by_token(get_db(), token)
    except store.NotFound:
        return render_template("error.html", code=404,
                               message=_("This invite link is not valid. Ask for a new one.")), 404
    if confirmed:
        return _joined(group)
    return render_template("join.html", group=group, form=form)


# control characters: a Location header cannot hold a line break (a page's address, decoded, can)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _page_to_return_to(target: str) -> str:
    """``target`` if it is a page of this site a GET can show again (only paths, never another host; not
    a page shown in answer to a refused form: its address is the form's), else the home page."""
    if target.startswith("/") and not target.startswith("//") and not _CONTROL.search(target):
        with contextlib.suppress(HTTPException):
            current_app.url_map.bind("localhost").match(urlsplit(target).path, method="GET")
            return target
    return url_for("home.index")


@bp.post("/language")
def set_language():
    chosen = request.form.get("lang", "")
    response = redirect(_page_to_return_to(request.form.get("next", "")))
    if chosen in LANGUAGES:
        response.set_cookie(LANGUAGE_COOKIE, chosen, max_age=400 * 86400, samesite="Lax", httponly=True,
                            secure=current_app.config.get("SESSION_COOKIE_SECURE", False))
    return response
