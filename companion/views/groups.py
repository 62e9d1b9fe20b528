"""A group's page: members, invitations, starting a play, plays in progress and recent results."""

from flask import Blueprint, abort, flash, g, redirect, render_template, request, url_for
from flask_babel import gettext as _

from companion import store
from companion.forms import COLOURS, PlayerForm, RenameGroupForm, RetireForm, new_play_form, seat_count
from companion.games import custom
from companion.games.common import PlaySetup, Seat
from companion.games.table import initial_table
from companion.messages import Refused
from companion.views import common
from companion.views.catalogue import group_games, listed_group_games
from companion.views.members import phone_label
from companion.web.database import get_db
from companion.web.i18n import translated
from companion.web.security import site_url

bp = Blueprint("groups", __name__, url_prefix="/groups/<int:group_id>")


@bp.get("/invite.svg")
def invite_qr(group_id: int):
    return common.qr_code(site_url("home.join_by_link", token=g.group.token))


def _render_group(group: store.Group, player_form: PlayerForm | None = None, status: int = 200):
    """The group page: five queries with the membership check, however long the history."""
    db = get_db()
    players = store.list_players(db, group.id)
    if player_form is None:
        used = {p.colour for p in players}
        player_form = PlayerForm(formdata=None, colour=next((c for c in COLOURS if c not in used), "red"))
    plays = store.group_plays(db, group.id)
    phones = store.list_memberships(db, group.id)
    return render_template(
        "group.html", group=group, players=players, player_form=player_form, active=plays.active,
        group_games=listed_group_games(group.id), recent=plays.recent,
        invite_url=site_url("home.join_by_link", token=group.token), this_phone=g.membership,
        phones=[(phone, phone_label(phones, phone)) for phone in phones],
        trashed_plays=plays.trashed, trash_days=store.TRASH_DAYS), status


@bp.get("")
def show(group_id: int):
    return _render_group(g.group)


@bp.post("/players")
def add_player(group_id: int):
    form = PlayerForm()
    if form.validate_on_submit():
        try:
            store.add_player(get_db(), group_id, form.name.data, form.colour.data)
        except store.DuplicateName:
            form.name.errors = [_("The group already has a player called %(name)s.", name=form.name.data)]
        else:
            flash(_("%(name)s joined the group.", name=form.name.data))
            return common.to_group(group_id, "players")
    return _render_group(g.group, form, 400)


@bp.route("/players/<int:player_id>", methods=["GET", "POST"])
def edit_player(group_id: int, player_id: int):
    player = common.found_or_404(store.get_player, group_id, player_id)
    form = PlayerForm(obj=player if request.method == "GET" else None)
    status = common.form_status()
    if request.method == "GET":
        form.show(player.colour, player.name)
    elif form.validate_on_submit():
        try:
            store.update_player(get_db(), group_id, player.id, form.name.data, form.colour.data,
                                form.shown_as)
        except store.DuplicateName:
            form.name.errors = [_("The group already has a player called %(name)s.", name=form.name.data)]
        except store.StaleVersion as error:
            form.form_errors.append(translated(error))
            form.show(player.colour, player.name)  # saving again is checked against them
            status = 409
        else:
            flash(_("Saved."))
            return common.to_group(group_id, "players")
    return render_template("player_edit.html", group=g.group, player=player, form=form,
                           plays=store.player_play_count(get_db(), group_id, player.id)), status


@bp.post("/players/<int:player_id>/retire")
def retire_player(group_id: int, player_id: int):
    """Retire a player (kept in the history, not offered for new plays), or bring them back."""
    player = common.found_or_404(store.get_player, group_id, player_id)
    form = RetireForm()
    if not form.validate_on_submit():
        common.reload_and_try_again()
        return redirect(url_for("groups.edit_player", group_id=group_id, player_id=player.id))
    retired = form.retired.data == "1"
    store.set_player_retired(get_db(), group_id, player.id, retired)
    flash(_("%(name)s is retired: kept in the history, not offered for new plays.", name=player.name)
          if retired else _("%(name)s is back among the players for new plays.", name=player.name))
    return common.to_group(group_id, "players")


@bp.route("/players/<int:player_id>/delete", methods=["GET", "POST"])
def delete_player(group_id: int, player_id: int):
    """Delete a player who has no play, after asking; one with plays can only be retired."""
    player = common.found_or_404(store.get_player, group_id, player_id)
    back = url_for("groups.edit_player", group_id=group_id, player_id=player.id)
    common.confirm_first(
        _("Delete %(name)s?", name=player.name),
        _("%(name)s has no plays; the player is removed from the group for every phone.", name=player.name),
        _("Delete the player"), back)
    try:
        store.delete_player(get_db(), group_id, player.id)
    except Refused as error:
        common.flash_rules_error(error)
        return redirect(back)
    flash(_("%(name)s was deleted.", name=player.name))
    return common.to_group(group_id, "players")


@bp.route("/rename", methods=["GET", "POST"])
def rename(group_id: int):
    group = g.group
    form = RenameGroupForm(data={"name": group.name, "shown_name": group.name}
                           if request.method == "GET" else None)
    if form.validate_on_submit():
        try:
            store.rename_group(get_db(), group_id, form.name.data, form.shown_name.data or None)
        except store.StaleVersion as error:
            common.note_stale(error)  # answered 409, the typed name kept
            form.form_errors.append(translated(error))
            group = store.get_group(get_db(), group_id)
            form.shown_name.data = group.name  # sent again, it replaces that name
        else:
            flash(_("Saved."))
            return common.to_group(group_id)
    return render_template("group_rename.html", group=group, form=form), common.form_status()


@bp.route("/delete", methods=["GET", "POST"])
def delete(group_id: int):
    group = g.group
    common.confirm_first(
        _("Delete %(name)s?", name=group.name),
        _("The group, its players and every play in its history disappear for every phone. For "
          "%(days)d days the phones of the group can restore it from their home page; then it is "
          "gone for good.", days=store.TRASH_DAYS),
        _("Delete the group"), url_for("groups.show", group_id=group.id))
    store.trash_group(get_db(), group.id, common.timestamp())
    flash(_("The group %(name)s was deleted. Its phones can restore it from their home page for "
            "%(days)d days.", name=group.name, days=store.TRASH_DAYS))
    return redirect(url_for("home.index"))


@bp.route("/plays/new/<game_slug>", methods=["GET", "POST"])
def new_play(group_id: int, game_slug: str):
    game = group_games(group_id).get(game_slug) or abort(404)
    players = store.list_players(get_db(), group_id, retired=False)
    posted = common.sent_form()
    if posted is None:
        asked = request.args.get("players")
    else:  # the player count chosen, else the seats the form fills in
        asked = posted.get("seat_count") or str(sum(1 for key in posted
                                                    if key.startswith("seat_") and key.endswith("-player")))
    form = new_play_form(game, players, seat_count(game, players, asked), formdata=posted)
    if posted is not None and form.validate():
        seats, options = form.chosen_seats(), form.chosen_options()
        game_id = custom.game_id_of(game.slug)
        if game_id is not None:  # the play keeps the sheet it is scored with
            options[custom.SHEET_OPTION] = store.get_group_game(get_db(), group_id, game_id).version_id
        names = {p.id: p.name for p in players}
        try:
            # the game itself decides whether it can start like this (player count per edition …)
            initial_table(PlaySetup(game.slug, tuple(Seat(names[p], colour) for p, colour in seats), options))
            play_id = store.start_play(get_db(), group_id, game.slug, seats, options)
        except Refused as error:
            form.form_errors.append(translated(error))
        except (store.NotFound, KeyError):
            abort(400)
        else:
            return common.to_play(play_id)
    return render_template("play_new.html", group=g.group, game=game, form=form, players=players,
                           seats=len(form.seat_entries)), common.form_status()
