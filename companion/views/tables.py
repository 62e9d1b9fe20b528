"""A play's table state kept between requests, so that an entry does not replay the whole event log.

Each process keeps, per play, tables folded up to some of its events (the latest few, and one every so
many) and brings the newest up to date. A snapshot is trusted while its event is still in the log with
the version it brought; only the last event can be undone, so every event before it is unchanged too.
"""

import logging
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from flask import current_app
from sqlite_utils import Database

from companion import store
from companion.games.common import FINAL_EVENT, PlaySetup
from companion.games.table import TableState, accepted_on_every_table, apply, initial_table
from companion.web.lru import Lru

logger = logging.getLogger(__name__)

RECENT_SNAPSHOTS = 8  # the tables after the last few events: undo goes back to them
SNAPSHOT_EVERY = 200  # and one table per this many events, so a long run of undos stays cheap
# a kept table catches up with the log after this many events stored without a look at it, so the page
# that follows a long run of them folds no more than these (and the other workers' since)
CATCH_UP_EVERY = 16


@dataclass(frozen=True)
class Snapshot:
    seq: int  # the table after the event with this number (0: before the first event)
    event_version: int  # the version that event brought
    table: TableState
    closed: bool = False  # the final tally came: the table stays as it was (corrections may follow)


@dataclass(frozen=True)
class _Entry:
    identity: tuple  # what the table depends on besides the log (_identity)
    version: int  # the play's version the newest snapshot was checked against
    snapshots: tuple[Snapshot, ...]  # in log order, all folded from one and the same log
    unseen: int = 0  # events this process stored since, without a look at the table


class TableCache:
    """Tables of recently used plays, thread-safe; one per database."""

    def __init__(self, size: int = 256) -> None:
        self._entries = Lru(size)  # play id → _Entry

    def table(self, db: Database, play: store.Play, setup: PlaySetup,
              version: int | None = None) -> TableState:
        """The play's table as stored now, or as of ``version`` when known to be current (a check)."""
        return self._current(db, play, setup, version).snapshots[-1].table

    def table_before(self, db: Database, play: store.Play, setup: PlaySetup, seq: int) -> TableState:
        """The play's table just before its event ``seq``, folded from the nearest snapshot before it."""
        earlier = tuple(s for s in self._current(db, play, setup).snapshots if s.seq < seq)
        kept, events = _trusted(db, play.id, earlier)
        return _folded(kept[-1:], [e for e in events if e.seq < seq])[-1].table

    def _current(self, db: Database, play: store.Play, setup: PlaySetup,
                 version: int | None = None) -> _Entry:
        entry = self._entries.get(play.id)
        if entry is None or entry.identity != _identity(play):
            entry = _Entry(_identity(play), -1, (Snapshot(0, 0, initial_table(setup)),))
        elif entry.version == version:
            return entry
        refreshed = _refreshed(db, play.id, entry)
        if refreshed is not entry:
            self._entries.put(play.id, refreshed)
        return refreshed

    def append(self, db: Database, play: store.Play, setup: PlaySetup, kind: str,
               payload: Mapping[str, Any]) -> None:
        """Append an event the rules accept on the stored table, else ``Refused``; one they accept on any
        table (points added) is stored without a look at it, any other checked under the write lock."""
        if accepted_on_every_table(setup, kind, payload):
            if store.append_to_active_play(db, play.id, kind, payload) is None:
                store.append_event(db, play.id, kind, payload)  # not going on: refused, and told why
            self.stored_unseen(db, play.id)
            return
        made = []

        def check(events: store.EventLog) -> None:
            made.append(apply(self.table(db, play, setup, events.version), kind, payload))

        version = store.append_event(db, play.id, kind, payload, check=check)
        self._advance(play, version, made[-1])

    def stored_unseen(self, db: Database, play_id: int) -> None:
        """Note an event stored without a look at the table: every CATCH_UP_EVERY of them the kept table
        catches up in one read. Failures are logged, never passed on: the event is stored."""
        try:
            self._entries.change(play_id, lambda entry: entry and replace(entry, unseen=entry.unseen + 1))
            entry = self._entries.get(play_id)
            if entry is not None and entry.unseen >= CATCH_UP_EVERY:
                # kept unless another thread put a table meanwhile (events it counted are in this read too)
                caught_up = _refreshed(db, play_id, entry)
                self._entries.change(play_id, lambda now: caught_up if now is not None
                                     and now.snapshots is entry.snapshots else None)
        except Exception:
            logger.exception("the table of play %s was not brought up to date", play_id)

    def _advance(self, play: store.Play, version: int, made: TableState) -> None:
        """Keep ``made`` as the table at ``version`` if the kept one is just before it (and not closed)."""
        def advanced(entry: _Entry | None) -> _Entry | None:
            if entry is None or entry.identity != _identity(play) or entry.version != version - 1:
                return None
            newest = entry.snapshots[-1]
            if newest.closed:
                return None
            snapshot = Snapshot(newest.seq + 1, version, made)
            return _Entry(entry.identity, version, _appended(entry.snapshots, snapshot))

        try:
            self._entries.change(play.id, advanced)
        except Exception:
            logger.exception("the table of play %s was not kept", play.id)


def _folded(kept: tuple[Snapshot, ...], events: list[store.Event]) -> list[Snapshot]:
    """The kept snapshots and one more after each event, folded as games.table.fold does."""
    snapshots = list(kept)
    table, closed = kept[-1].table, kept[-1].closed
    for event in events:
        if event.kind == FINAL_EVENT:
            closed = True
        elif not closed:
            table = apply(table, event.kind, event.payload)
        snapshots.append(Snapshot(event.seq, event.version, table, closed))
    return snapshots


def _identity(play: store.Play) -> tuple:
    return play.game, play.seats, dict(play.options), play.started_at


def app_tables() -> TableCache:
    """The app's table cache (each app has its own database, so its own tables)."""
    return current_app.extensions.setdefault("tables", TableCache())


def _refreshed(db: Database, play_id: int, entry: _Entry) -> _Entry:
    """``entry`` brought up to the stored log (itself if it is), from its newest snapshot still true to it."""
    with store.read_transaction(db):
        current = store.play_version(db, play_id)
        if entry.version == current:
            return entry
        kept, events = _trusted(db, play_id, entry.snapshots)
    return _Entry(entry.identity, current, _thinned(_folded(kept, events)))


def _trusted(db: Database, play_id: int,
             snapshots: tuple[Snapshot, ...]) -> tuple[tuple[Snapshot, ...], list[store.Event]]:
    """The snapshots still true to the log, and the events after the newest of them."""
    for newest in range(len(snapshots) - 1, 0, -1):
        snapshot = snapshots[newest]
        events = store.list_events(db, play_id, after_seq=snapshot.seq - 1)
        if events and events[0].seq == snapshot.seq and events[0].version == snapshot.event_version:
            return snapshots[:newest + 1], events[1:]
    return snapshots[:1], store.list_events(db, play_id)


def _thinned(snapshots: list[Snapshot]) -> tuple[Snapshot, ...]:
    """The start, one snapshot per SNAPSHOT_EVERY events and the most recent ones."""
    recent = len(snapshots) - RECENT_SNAPSHOTS
    return tuple(s for index, s in enumerate(snapshots)
                 if index == 0 or index >= recent or s.seq % SNAPSHOT_EVERY == 0)


def _appended(snapshots: tuple[Snapshot, ...], newest: Snapshot) -> tuple[Snapshot, ...]:
    """``_thinned`` of thinned snapshots and one more: only the one leaving the most recent may go."""
    leaving = len(snapshots) - RECENT_SNAPSHOTS
    if leaving > 0 and snapshots[leaving].seq % SNAPSHOT_EVERY:
        return (*snapshots[:leaving], *snapshots[leaving + 1:], newest)
    return (*snapshots, newest)
