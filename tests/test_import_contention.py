"""A large import while a phone of another group keeps adding entries: every entry is stored at once.

Imports write in steps (``store.transactions.write_in_steps``). The tests stand between the steps:
there they look at what the pages could show, and wait until the other group's phone has stored one
more entry, so that its entries provably go in between the import's steps, in contention with them.
"""

from __future__ import annotations

import threading

import pytest

from companion import store
from tests.conftest import add_players, create_group, start_play
from tests.test_backup_size import NAMES, large_archive

PLAYS = 3_000  # a history that takes many steps of the import on any machine
CUT_AFTER_STEPS = 3  # an abandoned import stops here
WAIT_SECONDS = 120  # a bound for a stuck test, never an expectation


class WritingPhone(threading.Thread):
    """A phone of another group adding entries to its play, one after another, until told to stop."""

    def __init__(self, app, db) -> None:
        super().__init__(daemon=True)
        self.client = app.test_client()
        self.group_id = create_group(self.client, "Tuesday table")
        add_players(self.client, self.group_id, ("Anna", "red"), ("Ben", "blue"))
        self.play_id = start_play(self.client, self.group_id, "gold-west",
                                  [(p.id, p.colour) for p in store.list_players(db, self.group_id)])
        self.answers: list[int | str] = []  # each entry's status, or the error it raised
        self.stored = threading.Condition()
        self.stop = threading.Event()

    def run(self) -> None:
        entry = {"seat": "0", "points": "1", "note": ""}
        while not self.stop.is_set():
            try:
                status: int | str = self.client.post(f"/plays/{self.play_id}/adjust", data=entry).status_code
            except Exception as error:  # "database is locked" and the like: a 500 from the server
                status = repr(error)
            with self.stored:
                self.answers.append(status)
                self.stored.notify_all()

    def wait_for_answers(self, count: int) -> None:
        with self.stored:
            assert self.stored.wait_for(lambda: len(self.answers) >= count, WAIT_SECONDS)


def backup_import(db, archive: store.GroupArchive):
    """The backup becomes a new group; its plays as the store keeps them afterwards."""
    group = store.restore_group(db, archive)
    return group.id, store.dump_group(db, group.id).plays


def bgstats_import(db, archive: store.GroupArchive):
    """The same plays come from another app into an existing group, with new players."""
    group_id = store.create_group(db, "Club").id
    store.import_plays(db, group_id, [(p.name, p.colour) for p in archive.players], [store.ImportedPlay(
        play.game, play.options, play.counted, play.started_at, play.ended_at,
        tuple((NAMES[seat.player], seat.colour) for seat in play.seats), play.events[0].payload,
        tuple(store.ResultInput(n, r.total, r.rank, r.breakdown) for n, r in enumerate(play.results)))
        for play in archive.plays])
    return group_id, store.dump_group(db, group_id).plays


def count(db, sql: str, *parameters) -> int:
    return db.execute(f"SELECT COUNT(*) FROM {sql}", parameters).fetchone()[0]


@pytest.mark.parametrize("abandoned", [False, True], ids=["finished", "abandoned midway"])
@pytest.mark.parametrize("run_import", [backup_import, bgstats_import], ids=["backup", "BG Stats"])
def test_another_groups_entries_go_in_between_the_steps_of_a_large_import(app, db, monkeypatch, run_import,
                                                                           abandoned):
    phone = WritingPhone(app, db)
    groups_before = count(db, "groups WHERE deleted_at IS NULL")
    archive = large_archive(PLAYS)
    seen: list[tuple[int, int]] = []  # at each pause of the import: groups the pages show, plays imported
    cut = threading.Event()
    pause = store.transactions.between_steps

    def between_steps(import_db) -> None:
        if not cut.is_set():  # not the abandoned import removing what it wrote
            seen.append((count(db, "groups WHERE deleted_at IS NULL"),
                         count(db, "plays WHERE group_id != ?", phone.group_id)))
            if len(seen) == 1:
                phone.start()
            phone.wait_for_answers(len(seen))  # an entry more since the last pause, at least
            if abandoned and len(seen) == CUT_AFTER_STEPS:
                cut.set()
                raise RuntimeError("the import was cut off")
        pause(import_db)

    monkeypatch.setattr(store.transactions, "between_steps", between_steps)
    outcome: list = []

    def importing() -> None:
        try:
            outcome.append(run_import(store.connect(app.config["DATABASE"]), archive))
        except Exception as error:  # asserted below
            outcome.append(error)

    importer = threading.Thread(target=importing)
    importer.start()
    importer.join(WAIT_SECONDS)
    phone.stop.set()
    phone.join(WAIT_SECONDS)

    assert not importer.is_alive() and not phone.is_alive()
    assert len(seen) >= CUT_AFTER_STEPS
    assert phone.answers and set(phone.answers) == {302}
    entries = [entry for (entry,) in db.execute(
        "SELECT id FROM events WHERE play_id = ? AND kind = 'adjust'", [phone.play_id])]
    assert len(entries) == len(phone.answers)
    # each pause follows a step that stored more plays; no page shows a group still being imported
    assert [visible for visible, _ in seen] == [groups_before + (run_import is bgstats_import)] * len(seen)
    imported = [plays for _, plays in seen]
    assert imported == sorted(set(imported)) and imported[0] > 0 and imported[-1] < PLAYS

    if abandoned:
        assert isinstance(outcome[0], RuntimeError)
        for table in ("plays", "players"):
            assert count(db, f"{table} WHERE group_id != ?", phone.group_id) == 0
        assert count(db, "groups") == seen[0][0]  # the imported group, in the trash meanwhile, too
        return
    group_id, plays = outcome[0]
    assert count(db, "groups WHERE deleted_at IS NULL") == groups_before + 1
    assert [(p.game, p.started_at, p.results) for p in plays] == [
        (p.game, p.started_at, p.results) for p in archive.plays]
    first, last = db.execute("SELECT MIN(e.id), MAX(e.id) FROM events e JOIN plays p ON p.id = e.play_id "
                             "WHERE p.group_id = ?", [group_id]).fetchone()
    assert len([entry for entry in entries if first < entry < last]) >= len(seen)
