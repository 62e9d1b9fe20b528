"""CSRF protection and the cookie that remembers which groups this phone has joined."""

from __future__ import annotations

from flask import Flask, abort, session
from flask_wtf.csrf import CSRFProtect

csrf = CSRFProtect()

_GROUPS_KEY = "groups"
MAX_REMEMBERED_GROUPS = 50


def joined_group_ids() -> list[int]:
    """The groups this phone joined, as its signed cookie says (anything odd in it is ignored)."""
    value = session.get(_GROUPS_KEY, [])
    if not isinstance(value, list):
        return []
    return [item for item in value if type(item) is int and item > 0][:MAX_REMEMBERED_GROUPS]


def remember_group(group_id: int) -> None:
    ids = [gid for gid in joined_group_ids() if gid != group_id]
    session[_GROUPS_KEY] = [group_id, *ids][:MAX_REMEMBERED_GROUPS]
    session.permanent = True


def forget_group(group_id: int) -> None:
    session[_GROUPS_KEY] = [gid for gid in joined_group_ids() if gid != group_id]


def require_member(group_id: int) -> None:
    """404, not 403, for a group this phone has not joined: it must not learn the group exists."""
    if group_id not in joined_group_ids():
        abort(404)


def init_app(app: Flask) -> None:
    csrf.init_app(app)
