"""Gold West: points during play and the end scoring (rules/gold-west.md)."""

from __future__ import annotations

from companion.games.common import GameInfo

GAME = GameInfo(
    slug="gold-west",
    name="Gold West",
    min_players=2,
    max_players=4,
    rows=("track", "largest_group", "offices", "wanted", "influence"),
)
