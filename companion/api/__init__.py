"""The JSON scoring API: every endpoint, game by game in the registry's order.

The endpoints of a game live in the module of ``companion.api`` named like its rules module in
``companion.games`` (``companion.api.gold_west`` for ``companion.games.gold_west``), as ``ENDPOINTS``.
"""

from __future__ import annotations

from importlib import import_module

from companion.api.core import Endpoint
from companion.games import RULES

ENDPOINTS: tuple[Endpoint, ...] = tuple(
    endpoint for rules in RULES.values()
    for endpoint in import_module(f"{__name__}.{rules.__name__.rpartition('.')[2]}").ENDPOINTS
)
