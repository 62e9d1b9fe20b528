"""A player's page: plays, wins, win rate, average and best per game, rating and head to head."""

from flask import Blueprint, g, render_template

from companion import store
from companion.games import ratings
from companion.views import common
from companion.views.catalogue import AnyGame, lowest_wins
from companion.web.database import get_db

bp = Blueprint("players", __name__, url_prefix="/groups/<int:group_id>/players/<int:player_id>")


@bp.get("/statistics")
def show(group_id: int, player_id: int):
    group = g.group
    db = get_db()
    player = common.found_or_404(store.get_player, group.id, player_id)
    store.refresh_ratings(db, group.id, ratings.rate_play)
    lowest = lowest_wins(group.id)
    overall = store.statistics(db, group.id, lowest_wins=lowest)
    games = AnyGame()
    per_game = []
    for game in overall.games:
        stats = store.statistics(db, group.id, game.game, periods=1, lowest_wins=lowest)  # no chart here
        mine = next((p for p in stats.players if p.player_id == player.id), None)
        if mine is not None:
            rating = store.player_ratings(db, group.id, game.game).get(player.id)
            per_game.append((games[game.game].name if game.game in games else game.game, mine, rating))
    others = {p.player_id: p for p in overall.players if p.player_id != player.id}
    rivals = [(others[opponent], rivalry, overall.rivalries.get((opponent, player.id)))
              for (me, opponent), rivalry in overall.rivalries.items()
              if me == player.id and opponent in others]
    return render_template(
        "player.html", group=group, player=player,
        record=next((p for p in overall.players if p.player_id == player.id), None),
        rating=store.player_ratings(db, group.id).get(player.id), per_game=per_game,
        rivals=sorted(rivals, key=lambda r: r[0].name.casefold()))
