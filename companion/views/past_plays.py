"""Log a past play: a finished play of any game entered afterwards, with its day, length and scores."""

import contextlib
from datetime import timedelta

from flask import Blueprint, abort, flash, g, redirect, render_template, request, url_for
from flask_babel import gettext as _

from companion import store
from companion.exchange.common import group_zone
from companion.forms.custom_games import PastPlayForm, moved_to_sheet, past_play_form, preselected_players
from companion.forms.history import correction_range
from companion.games import RULES, custom
from companion.games import table_tools as tools
from companion.games.common import FIRST_YEAR
from companion.games.table import ranked_tally
from companion.messages import Refused
from companion.views import common
from companion.views.catalogue import group_games
from companion.web.database import get_db
from companion.web.i18n import translated
from companion.web.labels import row_label

bp = Blueprint("past_plays", __name__, url_prefix="/groups/<int:group_id>/plays/past")


def _sheet_of(group: store.Group, slug: str,
              by_rows: bool) -> tuple[custom.ScoreSheet, dict, store.GroupGame | None]:
    """The sheet the play is entered with (a group's own game: its newest; one of the three: a total per
    player, or its scoring pad's rows, each may be negative here: the game's rules say which cannot, in
    ``_log``), the play's options for it, and the group's game (None for one of the three)."""
    game_id = custom.game_id_of(slug)
    if game_id is not None:
        game = store.get_group_game(get_db(), group.id, game_id)
        return custom.parse_sheet(game.sheet), {custom.SHEET_OPTION: game.version_id}, game
    info = group_games(group.id)[slug]
    rows = tuple(custom.SheetRow(row, negative=True) for row in info.rows) if by_rows else ()
    return custom.ScoreSheet(info.min_players, info.max_players, rows), {}, None


@bp.route("/<game_slug>", methods=["GET", "POST"])
def new(group_id: int, game_slug: str):
    group = g.group
    game = group_games(group.id).get(game_slug) or abort(404)
    by_rows = request.args.get("rows") == "1"
    sheet, options, own = _sheet_of(group, game.slug, by_rows)
    players = store.list_players(get_db(), group.id, retired=False)
    # who the seats start with: ?players=N (the first N), else the group's last play of the game
    last = next((p for p in store.list_plays(get_db(), group.id, "finished") if p.game == game.slug), None)

    def drawn(sheet: custom.ScoreSheet, formdata) -> PastPlayForm:
        labels = {key: row_label(key, game.slug) for key in sheet.row_keys}
        preselect = preselected_players(sheet, players, request.args.get("players"),
                                        last and [seat.player_id for seat in last.seats])
        rules = RULES.get(game.slug)
        form = past_play_form(sheet, players, labels, group_zone(g.time_zone), formdata=formdata,
                              preselect=preselect, version=options.get(custom.SHEET_OPTION),
                              tie_breakers=[(key, label) for key, label, _ in rules.totals_tie_breakers(None)]
                              if rules else (),
                              # no more than a correction of the play allows: it can always be corrected
                              points_range=correction_range(game.slug, sheet.row_keys))
        # no year a backup could not restore, no end after now (the app's clock, which a test may move)
        form.first_year, form.now = FIRST_YEAR, common.utc_now()
        return form

    form = drawn(sheet, common.sent_form())
    try:
        if own is not None and request.method == "POST":  # its points are numbered by the rows drawn
            store.check_sheet_version(own, form.drawn_version)
        if form.validate_on_submit():
            play_id = _log(group, game.slug, sheet, options, players, form)
            if play_id is not None:
                flash(_("The play of %(game)s is kept in the history.", game=game.name))
                return redirect(url_for("history.play", play_id=play_id))
    except store.StaleVersion as error:  # another phone changed the sheet: 409, nothing kept
        assert own is not None
        common.note_stale(error)
        # the points were typed on the sheet the page was drawn with; the form comes back with it as it is now
        typed_on = _version_sheet(own.id, form.drawn_version or own.version_id)
        sheet, options, own = _sheet_of(group, game.slug, by_rows)
        form = drawn(sheet, moved_to_sheet(request.form, typed_on, sheet, own.version_id))
        form.form_errors += [translated(error), _(
            "The form below has the score sheet's rows as they are now: points typed for a row it still "
            "has are kept, its new rows are empty. Check the points and keep the play again.")]
    return render_template("custom_games/past_play.html", group=group, game=game, sheet=sheet, form=form,
                           by_rows=by_rows, builtin=own is None), common.form_status()


def _version_sheet(game_id: int, version_id: int) -> custom.ScoreSheet | None:
    with contextlib.suppress(store.NotFound):  # a version of another game, sent by hand
        return custom.parse_sheet(store.group_game_version(get_db(), game_id, version_id).sheet)
    return None


def _log(group, slug, sheet, options, players, form) -> int | None:
    """Rank the scores by the sheet and keep the play; None (the reason on the form) if refused."""
    by_id = {p.id: p for p in players}
    chosen = form.chosen_players()
    ended = form.finished()
    minutes = form.minutes.data
    extras = {tools.VARIANT: form.variant.data or "", tools.NOTE: form.note.data or ""}
    if minutes is not None:
        extras[tools.TIMER] = tools.logged_timer(minutes * 60)
    scores = [(by_id[pid].name, breakdown) for pid, breakdown in zip(chosen, form.breakdowns(), strict=True)]
    try:
        result = custom.rank_sheet(slug, sheet, scores, form.teams_chosen(), form.won_chosen())
        # "totals": like a play closed with totals only, it holds no tally of the game's own to check
        payload = {"totals": [player.total for player in result.players], "breakdowns": form.breakdowns(),
                   "teams": form.teams_chosen(), "won": form.won_chosen(), **form.tie_breakers()}
        if rules := RULES.get(slug):  # one of the three: a tie on points is ranked by its tie-breakers
            names = [name for name, _ in scores]
            rules.check_typed_totals(None, payload, names)  # first: it asks for a tie's tie-breakers here
            if sheet.rows:  # rows no end scoring gives, refused as a correction of them would be
                rules.check_corrected_tally(None, payload, names, form.breakdowns())
            result = ranked_tally(slug, sheet.row_keys, scores, payload)
        # refused if another phone changed the sheet since it was read: the points follow its rows
        version = options.get(custom.SHEET_OPTION)
        check = None if version is None else store.sheet_unchanged(group.id, custom.game_id_of(slug), version)
        return store.log_past_play(
            get_db(), group.id, slug, [(pid, by_id[pid].colour) for pid in chosen], {**options, **extras},
            {key: value for key, value in payload.items() if value is not None}, common.result_inputs(result),
            (ended - timedelta(minutes=minutes or 0)).isoformat(), ended.isoformat(), check=check)
    except store.StaleVersion:
        raise  # the view shows the form again with the sheet as it is now
    except Refused as error:
        form.form_errors.append(translated(error))
    except (KeyError, store.NotFound):
        abort(400)
    return None
