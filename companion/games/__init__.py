"""The registry of games the companion serves."""

from __future__ import annotations

from companion.games import gold_west, great_western_trail, mayflower
from companion.games.common import GameInfo, UnknownGame

GAMES: dict[str, GameInfo] = {
    module.GAME.slug: module.GAME for module in (mayflower, great_western_trail, gold_west)
}


def get_game(slug: str) -> GameInfo:
    """The game with this slug; raises UnknownGame for any other."""
    try:
        return GAMES[slug]
    except KeyError:
        raise UnknownGame("There is no game called %(game)s.", game=repr(slug)) from None
