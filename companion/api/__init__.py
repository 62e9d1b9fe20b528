"""The JSON scoring API: every endpoint, in the order the OpenAPI document lists them."""

from __future__ import annotations

from companion.api.core import Endpoint
from companion.api.gold_west import ENDPOINTS as GOLD_WEST_ENDPOINTS
from companion.api.great_western_trail import ENDPOINTS as GREAT_WESTERN_TRAIL_ENDPOINTS
from companion.api.mayflower import ENDPOINTS as MAYFLOWER_ENDPOINTS

ENDPOINTS: tuple[Endpoint, ...] = (*GREAT_WESTERN_TRAIL_ENDPOINTS, *GOLD_WEST_ENDPOINTS,
                                   *MAYFLOWER_ENDPOINTS)
