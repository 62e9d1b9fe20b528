"""The JSON scoring API: every endpoint, in the order the OpenAPI document lists them."""

from __future__ import annotations

from companion.api.core import Endpoint

ENDPOINTS: tuple[Endpoint, ...] = ()
