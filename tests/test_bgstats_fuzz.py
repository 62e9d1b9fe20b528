"""Crafted BG Stats exports, in process: any field of the sample export set to a hostile value.

Every mutation is either refused on the upload page with a 400 and a message, or shown for confirmation;
a confirmed import is stored whole (or refused with a message), and every page of the group answers
without a server error. The budget is small for the suite; ``make fuzz`` runs it with
``BGSTATS_FUZZ_EXAMPLES`` set much higher.
"""

from __future__ import annotations

import copy
import json
import os
import re

from companion import store
from tests.conftest import add_players, create_group
from tests.test_backup_fuzz import HOSTILE, _set, each_place_set_to
from tests.test_bgstats_import import confirmation_fields, counts, own_game, sample, upload

EXAMPLES = int(os.environ.get("BGSTATS_FUZZ_EXAMPLES", "40"))
# what a BG Stats export holds beside the backup's hostile values: its own ids, dates and scores
HOSTILE_HERE = (*HOSTILE, 999, "2024-13-01 20:00:00", "2024-03-01 25:61:00", "-5", "1e400", "12.5",
                "B6A1C0DE-0000-4000-8000-000000000001")


def test_any_field_set_to_a_hostile_value_is_refused_with_a_message_or_imported_whole(app, db):
    base = sample()

    @each_place_set_to(base, HOSTILE_HERE, EXAMPLES)
    def crafted(place, value):
        document = copy.deepcopy(base)
        _set(document, place, value)
        phone = app.test_client()
        group_id = create_group(phone, "Fuzz")
        add_players(phone, group_id, ("Anna", "red"), ("ben", "blue"))
        own_game(db, group_id, "Azul", 230802)
        before = counts(db)
        page = upload(phone, group_id, json.dumps(document).encode())
        assert page.status_code in (200, 400), (place, value, page.status_code)
        if page.status_code == 400:
            assert re.search(r'class="error"[^>]*>[^<]+', page.text), (place, value)
            assert counts(db) == before
            return
        if re.search(r"\d+ plays? to import", page.text):
            done = phone.post(f"/groups/{group_id}/import/bg-stats/confirm",
                              data=confirmation_fields(page.text))
            assert done.status_code in (302, 400, 409), (place, value, done.status_code)
            if done.status_code != 302:
                assert counts(db) == before
        for path in (f"/groups/{group_id}", f"/groups/{group_id}/history", f"/groups/{group_id}/statistics",
                     f"/groups/{group_id}/export/backup.json", f"/groups/{group_id}/export/plays.csv",
                     *(f"/plays/{p.play.id}" for p in store.recent_finished(db, group_id))):
            assert phone.get(path).status_code < 500, (place, value, path)

    crafted()
