"""Who is in a group: its phones, leaving and removing, a new invite, and the group's trash."""

from collections.abc import Callable

from flask import Blueprint, abort, flash, g, redirect, render_template, request, url_for
from flask_babel import gettext as _

from companion import store
from companion.forms import PhoneNameForm
from companion.views import common
from companion.web.database import get_db
from companion.web.gate import LeftBefore, leaves, restores
from companion.web.security import forget_membership

bp = Blueprint("members", __name__, url_prefix="/groups/<int:group_id>")


def phone_label(phones: list[store.Membership], phone: store.Membership) -> str:
    """A phone's name, or "Phone 3" for the third phone that joined and is still in the group."""
    return phone.name or _("Phone %(n)d", n=phones.index(phone) + 1)


def _leave(group_id: int, message: str):
    """Take this phone out of the group; the group and its history stay for the other phones."""
    store.delete_membership(get_db(), group_id, g.membership.id)
    forget_membership(g.membership.token)
    flash(message)
    return redirect(url_for("home.index"))


def _left_note() -> str:
    """What a phone that left the group is told; the last phone of a group, leaving, is told its join code
    instead (``leave``), but not when its "Leave" comes again: the group is out of its reach by then."""
    if request.endpoint == "members.leave_deleted":
        return _("This phone left the deleted group.")
    return _("This phone left the group. The invite link or join code brings it back.")


@bp.errorhandler(LeftBefore)
def left_before(_error: LeftBefore):
    """"Leave" sent again after the phone left (a double tap, a resend after a lost answer): it is out."""
    flash(_left_note())
    return redirect(url_for("home.index"), 303)


@bp.route("/leave", methods=["GET", "POST"])
@leaves
def leave(group_id: int):
    group = g.group
    if len(store.list_memberships(get_db(), group.id)) > 1:
        explained = _("This phone will no longer see the group. The group, its players and its plays stay "
                      "for the other phones; the invite link or join code brings this phone back.")
        left = _left_note()
    else:  # nobody would see the group any more, and nothing clears it away: say how to come back
        explained = _("This is the last phone in the group: after leaving, only its join code %(code)s "
                      "opens it again, so write the code down. To be rid of the group, delete it instead "
                      "(it can be restored for %(days)d days).", code=group.join_code, days=store.TRASH_DAYS)
        left = _("This phone left the group. Its join code %(code)s brings it back.", code=group.join_code)
    common.confirm_first(_("Leave %(name)s?", name=group.name), explained, _("Leave the group"),
                         url_for("groups.show", group_id=group.id, _anchor="phones"))
    return _leave(group.id, left)


@bp.post("/leave-deleted")
@restores("group")  # a membership outlives its group's time in the trash
@leaves
def leave_deleted(group_id: int):
    """Take this phone out of a deleted group (from the home page's trash), to make room, say."""
    if not store.trashed_memberships(get_db(), [g.membership.token]):
        abort(404)  # a group outside the trash is left from its page, after a confirmation
    return _leave(group_id, _left_note())


@bp.route("/phones/<int:membership_id>/remove", methods=["GET", "POST"])
def remove_phone(group_id: int, membership_id: int):
    """Take another phone out of the group (a lost phone, someone who left the club)."""
    group = g.group
    if membership_id == g.membership.id:
        return redirect(url_for("members.leave", group_id=group.id))
    phones = store.list_memberships(get_db(), group.id)
    phone = next((p for p in phones if p.id == membership_id), None) or abort(404)
    label = phone_label(phones, phone)
    common.confirm_first(
        _("Remove %(phone)s from %(name)s?", phone=label, name=group.name),
        _("That phone will no longer see the group, at once. If someone still has the invite link or "
          "join code, they can come back: make a new invite as well."),
        _("Remove the phone"), url_for("groups.show", group_id=group.id, _anchor="phones"))
    store.delete_membership(get_db(), group.id, phone.id)
    flash(_("%(phone)s is no longer in the group.", phone=label))
    return common.to_group(group.id, "phones")


@bp.route("/phones/name", methods=["GET", "POST"])
def name_phone(group_id: int):
    form = PhoneNameForm(data={"name": g.membership.name} if request.method == "GET" else None)
    if form.validate_on_submit():
        store.rename_membership(get_db(), group_id, g.membership.id, form.name.data)
        flash(_("Saved."))
        return common.to_group(group_id, "phones")
    return render_template("phone_name.html", group=g.group, form=form), common.form_status()


@bp.route("/invite/new", methods=["GET", "POST"])
def new_invite(group_id: int):
    """A new invite link and join code; the old ones stop working. Phones already in stay in."""
    group = g.group
    common.confirm_first(
        _("A new invite for %(name)s?", name=group.name),
        _("The invite link, its QR code and the join code change; the old ones stop working. Phones "
          "already in the group stay in."),
        _("Make a new invite"), url_for("groups.show", group_id=group.id, _anchor="invite"))
    store.new_invite(get_db(), group.id)
    flash(_("The group has a new invite link and join code. The old ones no longer work."))
    return common.to_group(group.id, "invite")


@bp.post("/restore")
@restores("group")
def restore_group(group_id: int):
    """Take a deleted group out of the trash; only a phone that was in the group can."""
    common.purge_old_trash()  # what the gate let in may be gone for good now: 404
    if _live(store.get_group, group_id):  # the gate lets a restore reach a group out of the trash too
        _say_restored_already()
    else:
        group = common.found_or_404(store.restore_trashed_group, group_id)
        flash(_("%(name)s is back, with all its plays.", name=group.name))
    return common.to_group(group_id)


@bp.post("/trash/plays/<int:play_id>/restore")
@restores("play")
def restore_play(group_id: int, play_id: int):
    common.purge_old_trash()
    try:
        store.restore_trashed_play(get_db(), group_id, play_id)
    except store.NotFound:  # not in the trash: back in the group already, or else gone for good
        if not _live(store.get_play, play_id):
            abort(404)
        _say_restored_already()
    else:
        flash(_("The play is back in the group's history."))
    return common.to_play(play_id)


def _say_restored_already() -> None:
    """For a restore tapped on a page drawn before another phone restored the same group or play."""
    flash(_("Another phone restored it already."))


def _live(get: Callable[..., object], *args: object) -> bool:
    """Whether ``get(db, *args)`` finds it outside the trash."""
    try:
        get(get_db(), *args)
    except store.NotFound:
        return False
    return True
