"""The rules of names: one function, and the forms, the API and the backup import all follow it."""

from __future__ import annotations

import copy
import json
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion import store
from companion.api.core import respond
from companion.api.gold_west import ENDPOINTS as GOLD_WEST_ENDPOINTS
from companion.exchange import backup
from companion.forms import COLOURS
from companion.games import GAMES
from companion.names import NAME_MAX, NameProblem, clean_name, name_key
from tests.conftest import create_group

KEPT = {
    "plain": ("Anna", "Anna"),
    "trimmed": ("  Anna\t", "Anna"),
    "inner spaces folded": ("Anna   Lena", "Anna Lena"),
    "no-break and ideographic spaces": ("Anna\u00a0\u3000Lena", "Anna Lena"),
    "composed (NFC)": ("Zoe\u0301", "Zo\u00e9"),
    "emoji family with joiners": ("👨\u200d👩\u200d👧", "👨\u200d👩\u200d👧"),
    "40 characters": ("x" * NAME_MAX, "x" * NAME_MAX),
    "40 after trimming": ("  " + "x" * NAME_MAX + "  ", "x" * NAME_MAX),
}

REFUSED = {
    "empty": ("", "at least one visible character"),
    "spaces only": (" \t ", "at least one visible character"),
    "zero-width spaces only": ("\u200b\u200b", "at least one visible character"),
    "Hangul fillers only": ("\u3164\u3164", "at least one visible character"),
    "41 characters": ("x" * 41, "1–40 characters after trimming spaces; this one has 41"),
    "NUL": ("An\x00na", "U+0000"),
    "BEL": ("An\x07na", "U+0007"),
    "DEL": ("Anna\x7f", "U+007F"),
    "C1 control": ("Anna\x85", "U+0085"),
    "byte-order mark": ("\ufeffAnna", "U+FEFF"),
    "lone surrogate": ("An\ud800na", "U+D800"),
    "right-to-left override": ("Anna\u202egpj.exe", "U+202E"),
    "noncharacter": ("Anna\uffff", "U+FFFF"),
}


@pytest.mark.parametrize(("typed", "kept"), KEPT.values(), ids=KEPT.keys())
def test_names_are_kept_trimmed_folded_and_composed(typed, kept):
    assert clean_name(typed) == kept


@pytest.mark.parametrize(("typed", "message"), REFUSED.values(), ids=REFUSED.keys())
def test_names_that_are_not_text_a_person_typed_are_refused_with_the_rule(typed, message):
    with pytest.raises(NameProblem) as refused:
        clean_name(typed, "players[2].name")
    assert message in str(refused.value) and refused.value.path == "players[2].name"


SAME_PLAYER = ["Anna", "anna", "ANNA", "An\u200bna", "Anna\u00ad", "\u200dAnna", "Ａｎｎａ", "An\u2060na"]


@pytest.mark.parametrize("variant", SAME_PLAYER)
def test_variants_of_a_name_are_the_same_player(variant):
    assert name_key(clean_name(variant)) == name_key("Anna")


def test_different_names_stay_different():
    assert len({name_key(name) for name in ["Anna", "Ana", "Anna Lena", "Änna", "Anna2"]}) == 5


@settings(max_examples=500, derandomize=True, database=None, deadline=None)
@given(st.text(max_size=60))
def test_every_name_kept_follows_the_rules_and_is_kept_as_it_is(text):
    try:
        name = clean_name(text)
    except NameProblem:
        return
    assert 1 <= len(name) <= NAME_MAX
    assert name == name.strip() and "  " not in name
    assert unicodedata.is_normalized("NFC", name)
    assert not any(unicodedata.category(ch) in ("Cc", "Cs") for ch in name) and "\ufeff" not in name
    assert name_key(name)
    assert clean_name(name) == name  # cleaning twice changes nothing


@settings(max_examples=300, derandomize=True, database=None, deadline=None)
@given(st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Cf", "Zs", "Zl", "Zp")),
               min_size=1, max_size=20),
       st.sampled_from(["\u200b", "\u200c", "\u200d", "\u2060", "\u00ad", "\u3164"]), st.data())
def test_invisible_characters_and_case_never_make_another_player(name, invisible, data):
    at = data.draw(st.integers(0, len(name)))
    variant = (name[:at] + invisible + name[at:]).casefold()
    try:
        kept = clean_name(name)
    except NameProblem:
        return
    assert name_key(kept) == name_key(clean_name(variant)) or len(variant) > NAME_MAX


# --- the same rules on every way in ----------------------------------------------------------------

def through_the_form(client, group_id: int, player_id: int, typed: str) -> str | None:
    """Rename the group's player through the page; the name stored, or None if the page refused it."""
    answer = client.post(f"/groups/{group_id}/players/{player_id}", data={"name": typed, "colour": "red"})
    if answer.status_code == 400:
        return None
    assert answer.status_code == 302, answer.text
    return store.get_player(store.connect(client.application.config["DATABASE"]), group_id, player_id).name


def through_the_api(typed: str) -> str | None:
    status, answer = respond(GOLD_WEST_ENDPOINTS[0], {"players": [{"name": typed}, {"name": "Zed"}]})
    if status == 400:
        assert answer["details"][0]["path"].startswith("players[0].name"), answer
        return None
    return answer["players"][0]["name"]


def through_the_import(document: dict, typed: str) -> str | None:
    changed = copy.deepcopy(document)
    changed["players"][0]["name"] = typed
    try:
        return backup.parse_backup(json.dumps(changed), GAMES, COLOURS).players[0].name
    except backup.BackupError as refused:
        assert "players[0].name" in str(refused)
        return None


HOSTILE = st.one_of(
    st.sampled_from([*(typed for typed, _ in KEPT.values()), *(typed for typed, _ in REFUSED.values())]),
    st.text(st.characters(codec="utf-8"), max_size=45),
)


@settings(max_examples=60, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(HOSTILE)
def test_forms_api_and_import_accept_and_keep_the_same_names(client, db, typed):
    group_id = create_group(client)
    player_id = store.add_player(db, group_id, "Placeholder", "blue")
    document = backup.backup_document(store.dump_group(db, group_id), "2024-05-01T20:00:00+00:00")
    try:
        expected = clean_name(typed)
    except NameProblem:
        expected = None
    if expected == "Zed" or (expected and name_key(expected) == name_key("Zed")):
        return  # the API request's other player
    if "\ud800" not in typed:  # a browser cannot send a lone surrogate at all
        assert through_the_form(client, group_id, player_id, typed) == expected
    assert through_the_api(typed) == expected
    assert through_the_import(document, typed) == expected


def test_the_group_name_form_follows_the_same_rules(client, db):
    group_id = create_group(client, "  Friday\u00a0 night ")
    assert store.get_group(db, group_id).name == "Friday night"
    refused = client.post("/groups", data={"name": "\u200b"})
    assert refused.status_code == 400 and "at least one visible character" in refused.text
    refused = client.post(f"/groups/{group_id}/rename", data={"name": "Club\x07"})
    assert refused.status_code == 400 and "U+0007" in refused.text
    assert store.get_group(db, group_id).name == "Friday night"


@pytest.mark.parametrize("second", ["anna", "An\u200bna", " ANNA ", "Ａｎｎａ"])
def test_the_group_refuses_a_second_player_of_the_same_name(client, db, second):
    group_id = create_group(client)
    client.post(f"/groups/{group_id}/players", data={"name": "Anna", "colour": "red"})
    answer = client.post(f"/groups/{group_id}/players", data={"name": second, "colour": "blue"})
    assert answer.status_code == 400 and "already has a player called" in answer.text
    assert [p.name for p in store.list_players(db, group_id)] == ["Anna"]


def test_the_store_is_the_one_check_of_unique_names(db, client):
    group_id = create_group(client)
    anna = store.add_player(db, group_id, "Anna", "red")
    with pytest.raises(store.DuplicateName):
        store.add_player(db, group_id, "An\u200bna", "blue")
    ben = store.add_player(db, group_id, "Ben", "blue")
    with pytest.raises(store.DuplicateName):
        store.update_player(db, group_id, ben, "ANNA", "blue")
    store.update_player(db, group_id, anna, "anna", "red")  # a player may change the case of their own name
    assert sorted(p.name for p in store.list_players(db, group_id)) == ["Ben", "anna"]


def test_the_api_names_the_repeated_name_field(client):
    status, answer = respond(GOLD_WEST_ENDPOINTS[0], {"players": [{"name": "Anna"}, {"name": "An\u200bna"}]})
    assert status == 400 and answer["details"][0]["path"] == "players[1].name"


@pytest.mark.parametrize("name", ["x" * 41, "Anna\nLee"], ids=["41 characters", "two lines"])
def test_the_api_says_the_rule_of_names(client, name):
    status, answer = respond(GOLD_WEST_ENDPOINTS[0], {"players": [{"name": name}, {"name": "Zed"}]})
    assert status == 400
    assert answer["details"][0] == {
        "path": "players[0].name",
        "message": "must be 1–40 characters after trimming spaces, on one line"}
