"""The table kept between requests is always the table a full replay of the stored log gives."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion import store
from companion.games.common import PlaySetup, Seat
from companion.games.table import fold
from companion.messages import Refused
from companion.views import tables

SEATS = 3
seat = st.integers(0, SEATS - 1)
step = st.one_of(
    st.tuples(st.just("adjust"), seat, st.integers(-20, 20)),
    st.tuples(st.sampled_from(["camp", "loot"]), seat, st.just(0)),
    st.tuples(st.just("undo"), st.just(0), st.just(0)),
    st.tuples(st.sampled_from(["finish", "correct"]), st.just(0), st.integers(0, 30)),  # the final tally
    st.tuples(st.just("look"), st.just(0), st.just(0)),  # the other process reads the play
    st.tuples(st.just("other"), seat, st.integers(-20, 20)),  # the other process stores an entry
)


def setup_of(play: store.Play) -> PlaySetup:
    return PlaySetup(play.game, tuple(Seat(s.name, s.colour) for s in play.seats), play.options)


def events_read(monkeypatch) -> list:
    """From now on, every event the store reads from a play's log (to count how much of it is read)."""
    read: list = []
    real = store.list_events

    def list_events(*args, **kwargs):
        events = real(*args, **kwargs)
        read.extend(events)
        return events

    monkeypatch.setattr(store, "list_events", list_events)
    return read


@pytest.fixture
def gold_west_play(tmp_path):
    db = store.connect(tmp_path / "tables.sqlite3")
    store.migrate(db)
    group = store.create_group(db, "Club")
    seats = [(store.add_player(db, group.id, name, colour), colour)
             for name, colour in (("Anna", "red"), ("Ben", "blue"), ("Cara", "green"))]
    yield db, store.start_play(db, group.id, "gold-west", seats)
    db.close()


def enter(db, cache: tables.TableCache, play_id: int, kind: str, payload: dict) -> None:
    """An entry as the views make it (``TableCache.append``); a refused one stores nothing."""
    play = store.get_play(db, play_id)
    with contextlib.suppress(Refused):  # refused, as a phone would be told
        cache.append(db, play, setup_of(play), kind, payload)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(step, max_size=60))
def test_the_kept_table_equals_a_full_replay(gold_west_play, steps):
    db, play_id = gold_west_play
    # few snapshots, so that undos run past them and the older ones are used
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tables, "RECENT_SNAPSHOTS", 2)
        patch.setattr(tables, "SNAPSHOT_EVERY", 5)
        this_process, other_process = tables.TableCache(), tables.TableCache()
        while store.undo_last_event(db, play_id):  # the play from the previous example starts afresh
            pass
        for kind, chosen_seat, points in steps:
            if kind == "undo":
                store.undo_last_event(db, play_id)
            elif kind in ("finish", "correct"):
                results = [store.ResultInput(n, points + n, SEATS - n, {"total": points + n})
                           for n in range(SEATS)]
                with contextlib.suppress(Refused):  # finished already, or not yet
                    if kind == "finish":
                        store.finish_play(db, play_id, {"totals": [r.total for r in results]}, results)
                    else:
                        store.correct_results(db, play_id, results)
            elif kind == "other":
                enter(db, other_process, play_id, "adjust", {"seat": chosen_seat, "points": points})
            elif kind != "look":
                payload = {"seat": chosen_seat, **({"points": points} if kind == "adjust" else {})}
                enter(db, this_process, play_id, kind, payload)
            play = store.get_play(db, play_id)
            replayed = fold(setup_of(play), ((e.kind, e.payload) for e in store.list_events(db, play_id)))
            assert this_process.table(db, play, setup_of(play)) == replayed
            if kind in ("look", "other"):
                assert other_process.table(db, play, setup_of(play)) == replayed
            # the table before an event, as the log pages show it: the same as replaying up to there
            logged = store.list_events(db, play_id)
            for before in {len(logged) // 2 + 1, len(logged) + 1}:
                prefix = fold(setup_of(play), ((e.kind, e.payload) for e in logged if e.seq < before))
                assert this_process.table_before(db, play, setup_of(play), before) == prefix


def test_an_entry_reads_only_the_newest_events(gold_west_play, monkeypatch):
    db, play_id = gold_west_play
    cache = tables.TableCache()
    for points in range(1, 41):  # taking points away: each entry is checked against the table
        enter(db, cache, play_id, "adjust", {"seat": 0, "points": -points})
    read = events_read(monkeypatch)
    enter(db, cache, play_id, "adjust", {"seat": 1, "points": -1})
    play = store.get_play(db, play_id)
    assert cache.table(db, play, setup_of(play)).adjustments == (-sum(range(1, 41)), -1, 0)
    # each read: the newest kept event and the ones after it; never the 41 of the whole log
    assert len(read) <= 4


def test_a_changed_seat_refolds_the_table(gold_west_play):
    db, play_id = gold_west_play
    cache = tables.TableCache()
    enter(db, cache, play_id, "adjust", {"seat": 0, "points": 3})
    play = store.get_play(db, play_id)
    cache.table(db, play, setup_of(play))
    store.update_player(db, play.group_id, play.seats[0].player_id, "Annabel", "red")
    renamed = store.get_play(db, play_id)
    assert cache.table(db, renamed, setup_of(renamed)).setup.seats[0].name == "Annabel"


def test_the_table_before_an_event_reads_only_the_events_after_a_kept_table(gold_west_play, monkeypatch):
    db, play_id = gold_west_play
    monkeypatch.setattr(tables, "SNAPSHOT_EVERY", 10)
    monkeypatch.setattr(tables, "CATCH_UP_EVERY", 10)
    cache = tables.TableCache()
    opened = store.get_play(db, play_id)
    cache.table(db, opened, setup_of(opened))  # the play page, opened before the entries
    for points in range(1, 41):
        enter(db, cache, play_id, "adjust", {"seat": 0, "points": points})
    read = events_read(monkeypatch)
    play = store.get_play(db, play_id)
    assert cache.table_before(db, play, setup_of(play), 35).adjustments == (sum(range(1, 35)), 0, 0)
    # the kept table's event, then from the table kept after event 33: never the 40 of the whole log
    assert len(read) <= 9


def test_entries_that_add_points_read_nothing_until_the_kept_table_catches_up(gold_west_play, monkeypatch):
    db, play_id = gold_west_play
    monkeypatch.setattr(tables, "CATCH_UP_EVERY", 3)
    cache = tables.TableCache()
    enter(db, cache, play_id, "adjust", {"seat": 0, "points": -5})  # checked: the table is kept from here
    read = events_read(monkeypatch)
    enter(db, cache, play_id, "adjust", {"seat": 1, "points": -1})
    assert read == []  # checked against the kept table, which then takes the table it made
    for points in (1, 2):  # adding points: stored without a look at the table
        enter(db, cache, play_id, "adjust", {"seat": 1, "points": points})
    assert read == []
    enter(db, cache, play_id, "adjust", {"seat": 1, "points": 3})
    # the third: the kept table reads its own event and the three since, in one read
    assert [event.payload["points"] for event in read] == [-1, 1, 2, 3]
    play = store.get_play(db, play_id)
    assert cache.table(db, play, setup_of(play)).adjustments == (-5, 5, 0)
    assert len(read) == 4  # the page that follows reads nothing more


def test_after_an_undo_under_the_kept_table_it_catches_up_from_the_table_before(gold_west_play, monkeypatch):
    db, play_id = gold_west_play
    monkeypatch.setattr(tables, "CATCH_UP_EVERY", 3)
    cache = tables.TableCache()
    opened = store.get_play(db, play_id)
    cache.table(db, opened, setup_of(opened))
    for points in (1, 2, 3):  # the third catches up: the table is kept after event 3
        enter(db, cache, play_id, "adjust", {"seat": 0, "points": points})
    store.undo_last_event(db, play_id)  # another phone undoes event 3
    for points in (4, 5, 6):  # the third catches up from the table after event 2, still true
        enter(db, cache, play_id, "adjust", {"seat": 1, "points": points})
    read = events_read(monkeypatch)
    for points in (7, 8):
        enter(db, cache, play_id, "adjust", {"seat": 2, "points": points})
    assert read == []  # caught up: the entries after it read nothing until the next catch-up
    play = store.get_play(db, play_id)
    assert cache.table(db, play, setup_of(play)).adjustments == (3, 15, 15)


def test_entries_of_two_processes_in_turn_keep_both_tables_up_to_date(gold_west_play, monkeypatch):
    db, play_id = gold_west_play
    monkeypatch.setattr(tables, "CATCH_UP_EVERY", 5)
    this_process, other_process = tables.TableCache(), tables.TableCache()
    opened = store.get_play(db, play_id)
    for process in (this_process, other_process):  # each has shown the play page before the entries
        process.table(db, opened, setup_of(opened))
    for points in range(1, 31):  # adding points: stored without a look at the table
        enter(db, this_process, play_id, "adjust", {"seat": 0, "points": points})
        enter(db, other_process, play_id, "adjust", {"seat": 1, "points": points})
    read = events_read(monkeypatch)
    play = store.get_play(db, play_id)
    assert this_process.table(db, play, setup_of(play)).adjustments == (465, 465, 0)
    assert other_process.table(db, play, setup_of(play)).adjustments == (465, 465, 0)
    # each caught up with both processes' entries at its own 30th: the page reads the newest events
    # (59 and 60, and 60), never the 60 of the whole log
    assert len(read) <= 3


def test_an_entry_of_another_process_in_between_is_read_from_the_log(gold_west_play):
    db, play_id = gold_west_play
    this_process, other_process = tables.TableCache(), tables.TableCache()
    enter(db, this_process, play_id, "adjust", {"seat": 0, "points": 2})
    enter(db, other_process, play_id, "adjust", {"seat": 1, "points": 3})
    enter(db, this_process, play_id, "adjust", {"seat": 2, "points": 4})
    play = store.get_play(db, play_id)
    assert this_process.table(db, play, setup_of(play)).adjustments == (2, 3, 4)


@given(seqs=st.lists(st.integers(1, 40), max_size=30), recent=st.integers(1, 4), every=st.integers(1, 6))
def test_a_snapshot_added_to_kept_ones_thins_them_as_a_full_thinning_does(seqs, recent, every):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tables, "RECENT_SNAPSHOTS", recent)
        patch.setattr(tables, "SNAPSHOT_EVERY", every)
        snapshots = [tables.Snapshot(seq, seq, None) for seq in sorted(set(seqs))]
        kept: tuple = ()
        for count, snapshot in enumerate(snapshots, 1):
            kept = tables._appended(kept, snapshot) if kept else (snapshot,)
            assert kept == tables._thinned(snapshots[:count])
