"""The JSON scoring API: the ``ENDPOINTS`` of each game's module (named like its rules module), in order."""

from importlib import import_module

from companion.api.core import Endpoint
from companion.games import RULES

ENDPOINTS: tuple[Endpoint, ...] = tuple(
    endpoint for rules in RULES.values()
    for endpoint in import_module(f"{__name__}.{rules.__name__.rpartition('.')[2]}").ENDPOINTS)
