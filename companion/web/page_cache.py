"""Rendered pages kept per version of what they show, so that re-reading an unchanged play is cheap.

Every phone at the table opens the same play page again and again (after each entry, on each
refresh). The page only changes when the play does, so it is rendered once per version and
language; each answer then only gets its own CSRF token, which is never cached. When a new version
is asked for by several phones at once, one request renders it and the others wait for its page,
instead of all rendering the same page together.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from threading import Event

from flask import current_app, g, session
from flask_wtf.csrf import generate_csrf

from companion.web.lru import Lru

# Stands in for the CSRF token while a page is rendered for the cache; made of characters that
# HTML escaping leaves alone, so it can be found again in the rendered page.
TOKEN_PLACEHOLDER = "csrf-token-placeholder-7f3c9a"
RENDER_WAIT_SECONDS = 10  # a request waiting for another one's rendering renders itself after this


class PageCache(Lru):
    """Rendered pages by key, each rendered once however many requests ask for it at once."""

    def __init__(self, size: int = 256) -> None:
        super().__init__(size)
        self._rendering: dict[Hashable, Event] = {}  # the pages being rendered, done when set

    def render_once(self, key: Hashable, render: Callable[[], str]) -> str:
        """The page for ``key``: kept, or rendered by the first request that asks while the others wait."""
        with self._lock:
            page = self._get(key)
            if page is not None:
                return page
            rendering = self._rendering.get(key)
            mine = rendering is None
            if mine:
                rendering = self._rendering[key] = Event()
        if not mine:
            rendering.wait(RENDER_WAIT_SECONDS)
            page = self.get(key)
            # None: that rendering failed (this one shows why) or takes too long
            return page if page is not None else render()
        try:
            page = render()
            self.put(key, page)
            return page
        finally:
            with self._lock:
                del self._rendering[key]
            rendering.set()


def _pages() -> PageCache:
    """This app's cache (each app has its own database, so its own pages)."""
    return current_app.extensions.setdefault("page_cache", PageCache())


def cached_page(key: Hashable, render: Callable[[], str]) -> str:
    """The page for ``key``, rendered by ``render`` only if it is not cached yet.

    ``key`` must name everything the page shows. A page with a one-time message (a flash) is
    rendered fresh and not kept.
    """
    if session.get("_flashes") or current_app.config.get("PAGE_CACHE_SIZE") == 0:
        return render()
    field = current_app.config.get("WTF_CSRF_FIELD_NAME", "csrf_token")

    def render_for_all() -> str:
        token = g.pop(field, None)
        setattr(g, field, TOKEN_PLACEHOLDER)
        try:
            return render()
        finally:
            g.pop(field, None)
            if token is not None:
                setattr(g, field, token)

    page = _pages().render_once(key, render_for_all)
    return page.replace(TOKEN_PLACEHOLDER, generate_csrf())
