"""Carcassonne – Mayflower: settlers, surveyors, feature and final scoring (rules/mayflower.md)."""

from __future__ import annotations

from companion.games.common import GameInfo

GAME = GameInfo(
    slug="mayflower",
    name="Carcassonne – Mayflower",
    min_players=2,
    max_players=5,
    rows=("track", "roads", "cities", "farms", "plains"),
)
