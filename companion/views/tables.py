"""A play's table state kept between requests, so that an entry does not replay the whole event log.

Each process keeps, per play, tables folded up to some of its events (snapshots: the latest few, and
one every so many events) and brings the newest up to date with the events that followed it. A snapshot
is trusted while the event it was folded up to is still in the log with the version it brought (an
undone event entered again gets a new one); only the last event can be undone, so every event before a
trusted one is unchanged too, and an undo costs a refold from the snapshot before it.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from flask import Flask
from sqlite_utils import Database

from companion import store
from companion.games.common import FINAL_EVENT, PlaySetup
from companion.games.table import TableState, accepted_on_every_table, apply, initial_table
from companion.web.lru import Lru

logger = logging.getLogger(__name__)

RECENT_SNAPSHOTS = 8  # the tables after the last few events: undo goes back to them
SNAPSHOT_EVERY = 200  # and one table per this many events, so a long run of undos stays cheap
# a kept table catches up with the log after this many events stored without a look at it, so the
# page that follows a long run of them folds no more than these (and the other workers' since)
CATCH_UP_EVERY = 16


@dataclass(frozen=True)
class Snapshot:
    seq: int  # the table after the event with this number (0: before the first event)
    event_version: int  # the version that event brought
    table: TableState
    closed: bool = False  # the final tally came: the table stays as it was (corrections may follow)


@dataclass(frozen=True)
class _Entry:
    identity: tuple  # what the table depends on besides the log: game, seats, options, start
    version: int  # the play's version the newest snapshot was checked against
    snapshots: tuple[Snapshot, ...]  # in log order, all folded from one and the same log
    unseen: int = 0  # events this process stored since, without a look at the table


class TableCache:
    """Tables of recently used plays, thread-safe; one per database."""

    def __init__(self, size: int = 256) -> None:
        self._entries = Lru(size)  # play id → _Entry

    def table(self, db: Database, play: store.Play, setup: PlaySetup,
              version: int | None = None) -> TableState:
        """The play's table as its log is stored now, or as of ``version`` if the caller knows that to be
        the current one (a check, under the write lock)."""
        identity = (play.game, play.seats, dict(play.options), play.started_at)
        entry = self._entries.get(play.id)
        if entry is None or entry.identity != identity:
            entry = _Entry(identity, -1, (Snapshot(0, 0, initial_table(setup)),))
        elif entry.version == version:
            return entry.snapshots[-1].table
        refreshed = _refreshed(db, play.id, entry)
        if refreshed is not entry:
            self._entries.put(play.id, refreshed)
        return refreshed.snapshots[-1].table

    def table_before(self, db: Database, play: store.Play, setup: PlaySetup, seq: int) -> TableState:
        """The play's table just before its event ``seq``, folded from the nearest snapshot before it (a
        page showing the newest events as they happened costs the same however long the log is)."""
        self.table(db, play, setup)  # the snapshots now follow the stored log
        entry = self._entries.get(play.id)
        snapshots = entry.snapshots if entry is not None else ()
        for snapshot in reversed(snapshots):
            if snapshot.seq >= seq:
                continue
            events = store.list_events(db, play.id, after_seq=max(snapshot.seq - 1, 0))
            if snapshot.seq and not (events and events[0].seq == snapshot.seq
                                     and events[0].version == snapshot.event_version):
                continue  # the log changed under this snapshot since: an older one is still true
            return _fold_until(snapshot.table, snapshot.closed,
                               (e for e in events if snapshot.seq < e.seq < seq))
        return _fold_until(initial_table(setup), False,
                           (e for e in store.list_events(db, play.id) if e.seq < seq))

    def append(self, db: Database, play: store.Play, setup: PlaySetup, kind: str,
               payload: Mapping[str, Any]) -> None:
        """Append an event the rules accept on the play's table as stored; ``Refused`` (nothing stored) if
        they do not. An event the rules accept on every table (points added) is stored in one statement
        without a look at the table; any other is checked against it under the write lock, and the table
        it makes is kept."""
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
        """Note an event stored in the play without a look at its table: every CATCH_UP_EVERY of them the
        kept table catches up with the log in one read, and the entries between cost no read at all.
        Failures are logged, never passed on: the event is stored."""
        try:
            self._entries.change(play_id, lambda entry: entry and replace(entry, unseen=entry.unseen + 1))
            entry = self._entries.get(play_id)
            if entry is not None and entry.unseen >= CATCH_UP_EVERY:
                # folded as ``table`` does, another phone's events too; unless another thread put a table
                # meanwhile (events it counted are in this read too)
                caught_up = _refreshed(db, play_id, entry)
                self._entries.change(play_id, lambda now: caught_up if now is not None
                                     and now.snapshots is entry.snapshots else None)
        except Exception:
            logger.exception("the table of play %s was not brought up to date", play_id)

    def _advance(self, play: store.Play, version: int, made: TableState) -> None:
        """Keep ``made`` as the play's table at ``version`` if the kept table is the one just before (not
        after another phone's entry, nor a closed one); a failure is logged, never passed on."""
        identity = (play.game, play.seats, dict(play.options), play.started_at)

        def advanced(entry: _Entry | None) -> _Entry | None:
            if entry is None or entry.identity != identity or entry.version != version - 1:
                return None
            newest = entry.snapshots[-1]
            if newest.closed:
                return None
            snapshot = Snapshot(newest.seq + 1, version, made)
            return _Entry(identity, version, _appended(entry.snapshots, snapshot))

        try:
            self._entries.change(play.id, advanced)
        except Exception:
            logger.exception("the table of play %s was not kept", play.id)

    def clear(self) -> None:
        self._entries.clear()


def _folded(kept: tuple[Snapshot, ...], events: list[store.Event]) -> list[Snapshot]:
    """The kept snapshots and one more after each event, folded as games.table.fold does: up to the
    final tally."""
    snapshots = list(kept)
    table, closed = kept[-1].table, kept[-1].closed
    for event in events:
        if event.kind == FINAL_EVENT:
            closed = True
        elif not closed:
            table = apply(table, event.kind, event.payload)
        snapshots.append(Snapshot(event.seq, event.version, table, closed))
    return snapshots


def _fold_until(table: TableState, closed: bool, events) -> TableState:
    """``table`` with ``events`` applied, as games.table.fold does: up to the final tally."""
    return _folded((Snapshot(0, 0, table, closed),), list(events))[-1].table


def app_tables(app: Flask) -> TableCache:
    """The app's table cache (each app has its own database, so its own tables)."""
    return app.extensions.setdefault("tables", TableCache())


def _refreshed(db: Database, play_id: int, entry: _Entry) -> _Entry:
    """``entry`` brought up to the play's log as it is stored now (itself if it is), folded on from the
    newest of its snapshots still true to the log."""
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
    """``_thinned`` of thinned snapshots and one more, without looking at each again: only the one
    that stops being among the most recent may go."""
    leaving = len(snapshots) - RECENT_SNAPSHOTS
    if leaving > 0 and snapshots[leaving].seq % SNAPSHOT_EVERY:
        return (*snapshots[:leaving], *snapshots[leaving + 1:], newest)
    return (*snapshots, newest)
