"""A small thread-safe map that forgets what was used least recently: the caches in front of the views."""

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any


class Lru:
    """At most ``size`` items; reading an item makes it the most recently used."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.RLock()  # re-entered: ``change`` gets and puts in one hold

    def get(self, key: Hashable) -> Any:
        with self._lock:
            item = self._items.get(key)
            if item is not None:
                self._items.move_to_end(key)
            return item

    def put(self, key: Hashable, item: Any) -> None:
        with self._lock:
            self._items[key] = item
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)

    def change(self, key: Hashable, change: Callable[[Any], Any]) -> None:
        """Put ``change(item)`` (item: None if none is kept) in place of the item in one step; not None."""
        with self._lock:
            item = change(self.get(key))
            if item is not None:
                self.put(key, item)
