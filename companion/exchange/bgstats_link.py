"""The "Send to BG Stats" link: a finished play in BG Stats' documented createPlay format."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from companion.exchange.common import (
    SOURCE_NAME,
    bgg_id,
    group_zone,
    gwt_edition,
    local_time,
    play_comments,
    play_minutes,
)
from companion.games import custom, great_western_trail
from companion.games.common import GameInfo
from companion.names import name_key
from companion.store import GroupSettings, Play, ResultRow, StableIds

# BG Stats' documented push link; the https form opens the app where it is installed and a web page
# that explains it where it is not (the bgstats:// form does nothing without the app).
BG_STATS_CREATE_PLAY = "https://app.bgstatsapp.com/createPlay.html"


def bg_stats_play(play: Play, game: GameInfo, results: Sequence[ResultRow], ids: StableIds,
                  settings: GroupSettings) -> dict[str, Any]:
    """A finished play in BG Stats' documented createPlay format.

    The play and its players are sent with their stable ids, so BG Stats matches a play sent again (even
    from a restored backup) instead of keeping it twice. Each edition of a game is its own game in BG
    Stats. The play's expansions and note are its comments.
    """
    edition = gwt_edition(play.options) if play.game == great_western_trail.GAME.slug else None
    game_data: dict[str, Any] = {
        "name": game.name,
        "sourceGameId": _source_game_id(game, edition),
        "highestWins": not game.lowest_wins,
        "noPoints": False,
    }
    if game.cooperative:
        game_data["cooperative"] = True
    object_id = bgg_id(play.game, play.options, game, settings.bgg_ids)
    if object_id is not None:
        game_data["bggId"] = object_id
    started = local_time(play.started_at, group_zone(settings.time_zone))
    data: dict[str, Any] = {
        "sourceName": SOURCE_NAME,
        "sourcePlayId": ids.play,
        # The local wall-clock time the play started, "YYYY-MM-DD HH:MM:SS" without a zone, as BG Stats'
        # documentation shows it (https://www.bgstatsapp.com/support/push-plays-to-bg-stats-from-other-apps-
        # or-websites/: "playDate": "2020-10-23 19:16:58" beside "durationMin") and as its own export
        # writes it; the importer reads it back the same way.
        "playDate": started.strftime("%Y-%m-%d %H:%M:%S"),
        "game": game_data,
        "players": [
            {"name": r.name, "sourcePlayerId": ids.players.get(r.player_id, str(r.player_id)),
             "score": r.total, "winner": r.rank == 1, "rank": r.rank, "startPlayer": r.seat == 0}
            for r in sorted(results, key=lambda r: r.seat)
        ],
    }
    duration = play_minutes(play.started_at, play.ended_at, play.options)
    if duration is not None:
        data["durationMin"] = duration
    if settings.location:
        data["location"] = settings.location
    comments = play_comments(play.options)
    if comments:
        data["comments"] = comments
    if edition:
        data["board"] = EDITION_NAMES[edition]
    return data


EDITION_NAMES: Mapping[int, str] = {1: "1st edition", 2: "2nd edition"}


def _source_game_id(game: GameInfo, edition: int | None) -> str:
    """The game's id for BG Stats, the same on every instance: a group's own game is known by its name
    (as names compare), as its database id changes when a backup is restored elsewhere."""
    if custom.game_id_of(game.slug) is not None:
        return "custom-" + hashlib.sha256(name_key(game.name).encode()).hexdigest()[:16]
    return f"{game.slug}-edition-{edition}" if edition else game.slug


def bg_stats_url(play: Play, game: GameInfo, results: Sequence[ResultRow], ids: StableIds,
                 settings: GroupSettings) -> str:
    """The "Send to BG Stats" link: createPlay with the play as URL-encoded JSON."""
    data = json.dumps(bg_stats_play(play, game, results, ids, settings), ensure_ascii=False,
                      separators=(",", ":"))
    return f"{BG_STATS_CREATE_PLAY}?data={quote(data, safe='')}"
