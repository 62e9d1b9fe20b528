"""The "Send to BG Stats" link: a finished play in BG Stats' documented createPlay format."""

import hashlib
import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from companion.exchange import common
from companion.games import custom
from companion.games import great_western_trail as gwt
from companion.games.common import GameInfo
from companion.names import name_key
from companion.store import GroupSettings, Play, ResultRow, StableIds

# BG Stats' documented push link: the app where it is installed, else a page about it (not so bgstats://)
BG_STATS_CREATE_PLAY = "https://app.bgstatsapp.com/createPlay.html"


def bg_stats_play(play: Play, game: GameInfo, results: Sequence[ResultRow], ids: StableIds,
                  settings: GroupSettings) -> dict[str, Any]:
    """The play with stable ids, so that BG Stats matches one sent again (even from a restored backup); each
    edition of a game is its own game in BG Stats."""
    edition = common.gwt_edition(play.game, play.options)
    object_id = common.bgg_id(play.game, play.options, game, settings.bgg_ids)
    game_data = {"name": game.name, "sourceGameId": _source_game_id(game, edition),
                 "highestWins": not game.lowest_wins, "noPoints": False,
                 **({"cooperative": True} if game.cooperative else {}),
                 **({"bggId": object_id} if object_id is not None else {})}
    started = common.local_time(play.started_at, common.group_zone(settings.time_zone))
    first = common.start_seat(play.options, len(results))
    data: dict[str, Any] = {
        "sourceName": common.SOURCE_NAME, "sourcePlayId": ids.play,
        # The local wall-clock time the play started, without a zone, as BG Stats' documentation shows it
        # ("playDate": "2020-10-23 19:16:58") and its own export writes it; the importer reads it so.
        "playDate": started.strftime("%Y-%m-%d %H:%M:%S"),
        "game": game_data,
        "players": [{"name": r.name, "sourcePlayerId": ids.players.get(r.player_id, str(r.player_id)),
                     "score": r.total, "winner": r.rank == 1, "rank": r.rank, "startPlayer": r.seat == first}
                    for r in sorted(results, key=lambda r: r.seat)]}
    optional = {"durationMin": common.play_minutes(play.started_at, play.ended_at, play.options),
                "location": settings.location, "comments": common.play_comments(play.options),
                "board": str(gwt.EDITION_NAMES[edition]) if edition else None}
    return data | {key: value for key, value in optional.items() if value not in (None, "")}


def _source_game_id(game: GameInfo, edition: int | None) -> str:
    """The same on every instance: a group's own game by its name, as its id changes on a restore."""
    if custom.game_id_of(game.slug) is not None:
        return "custom-" + hashlib.sha256(name_key(game.name).encode()).hexdigest()[:16]
    return f"{game.slug}-edition-{edition}" if edition else game.slug


def bg_stats_url(play: Play, game: GameInfo, results: Sequence[ResultRow], ids: StableIds,
                 settings: GroupSettings) -> str:
    data = json.dumps(bg_stats_play(play, game, results, ids, settings), ensure_ascii=False,
                      separators=(",", ":"))
    return f"{BG_STATS_CREATE_PLAY}?data={quote(data, safe='')}"
