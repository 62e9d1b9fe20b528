"""The JSON scoring API: every endpoint, game by game in the registry's order, from the ``ENDPOINTS`` of
the module named like the game's rules module (``api.gold_west`` for ``games.gold_west``)."""

from __future__ import annotations

from importlib import import_module

from companion.api.core import Endpoint
from companion.games import RULES

ENDPOINTS: tuple[Endpoint, ...] = tuple(
    endpoint for rules in RULES.values()
    for endpoint in import_module(f"{__name__}.{rules.__name__.rpartition('.')[2]}").ENDPOINTS
)
