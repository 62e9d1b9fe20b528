"""Two phones and a group game's score sheet: a form carries the sheet version it was drawn with, and one
sent after another phone changed the sheet is answered 409, stores nothing and comes back to be checked."""

from __future__ import annotations

import pytest

from companion import store
from tests.conftest import add_players, create_group, errors_on
from tests.test_custom_games_web import add_game
from tests.test_isolation import drawn_form, form_of

AZUL = (("Wall", False, False), ("Bonus", False, False), ("Tiles left", False, False))
STALE = "Another phone changed the score sheet of Azul since this page was opened, so nothing was saved."


@pytest.fixture
def phones(app, client, db):
    """Two phones of one group with Anna and Ben: the one that made it, and one that joined."""
    group_id = create_group(client)
    add_players(client, group_id, ("Anna", "red"), ("Ben", "blue"))
    other = app.test_client()
    assert other.post(f"/join/{store.get_group(db, group_id).token}").status_code == 302
    ids = [p.id for p in sorted(store.list_players(db, group_id), key=lambda p: p.id)]
    return group_id, ids, client, other


def rows_of(db, group_id: int, game_id: int) -> list[str]:
    return [row["name"] for row in store.get_group_game(db, group_id, game_id).sheet["rows"]]


# --- the game's edit form ---------------------------------------------------------------------------

def test_an_edit_drawn_before_another_phone_changed_the_sheet_is_refused_and_keeps_that_change(db, phones):
    group_id, _ids, first, second = phones
    floor = ("Floor line", True, False)
    game_id = add_game(first, group_id, name="Azul", rows=(("Wall", False, False), floor))
    page = f"/groups/{group_id}/games/{game_id}"
    adds_a_row, renames = drawn_form(first, page), drawn_form(second, page)  # both phones open the sheet
    adds_a_row["rows-2-name"] = ["Bonus"]
    assert first.post(page, data=adds_a_row).status_code == 302
    newest = store.get_group_game(db, group_id, game_id).version_id

    renames["name"] = ["Azul (2017)"]
    refused = second.post(page, data=renames)
    assert refused.status_code == 409
    assert errors_on(refused.text) == [
        STALE, "Its score sheet now has the rows Wall, Floor line, Bonus. Your changes are below as you "
               "typed them: saving them replaces that sheet."]
    game = store.get_group_game(db, group_id, game_id)
    assert (game.name, game.version_id) == ("Azul", newest)
    assert rows_of(db, group_id, game_id) == ["Wall", "Floor line", "Bonus"]
    # what phone 2 typed comes back as typed, now drawn from the newest sheet
    shown = form_of(refused.text, page)
    assert shown["name"] == ["Azul (2017)"] and shown["sheet_version"] == [str(newest)]
    assert [shown[f"rows-{n}-name"] for n in range(3)] == [["Wall"], ["Floor line"], [""]]

    # drawn again, the rename keeps phone 1's row
    again = drawn_form(second, page)
    again["name"] = ["Azul (2017)"]
    assert second.post(page, data=again).status_code == 302
    assert store.get_group_game(db, group_id, game_id).name == "Azul (2017)"
    assert rows_of(db, group_id, game_id) == ["Wall", "Floor line", "Bonus"]


def azul_open_on_both(phones) -> tuple[int, str, dict, dict]:
    """Azul (one row, Wall) added, its edit page open on both phones: its id, the page, both forms."""
    group_id, _ids, first, second = phones
    game_id = add_game(first, group_id, name="Azul", rows=(("Wall", False, False),))
    page = f"/groups/{group_id}/games/{game_id}"
    return game_id, page, drawn_form(first, page), drawn_form(second, page)


def test_an_edit_drawn_before_another_phone_renamed_the_game_is_refused_and_keeps_the_name(db, phones):
    group_id, _ids, first, second = phones
    game_id, page, renames, adds_a_row = azul_open_on_both(phones)
    renames["name"] = ["Azul (2017)"]
    assert first.post(page, data=renames).status_code == 302
    adds_a_row["rows-1-name"] = ["Bonus"]  # the name box still says Azul
    refused = second.post(page, data=adds_a_row)
    assert refused.status_code == 409
    assert errors_on(refused.text) == [
        "Another phone renamed Azul to Azul (2017) since this page was opened, so nothing was saved."]
    assert store.get_group_game(db, group_id, game_id).name == "Azul (2017)"
    assert rows_of(db, group_id, game_id) == ["Wall"]
    shown = form_of(refused.text, page)
    assert shown["shown_name"] == ["Azul (2017)"] and shown["rows-1-name"] == ["Bonus"]
    shown["name"] = ["Azul (2017)"]
    assert second.post(page, data=shown).status_code == 302
    assert rows_of(db, group_id, game_id) == ["Wall", "Bonus"]


@pytest.mark.parametrize(("typed_id", "saved_again"), [
    pytest.param("", 230802, id="the id box left alone shows the new id"),
    pytest.param("8888", 8888, id="an id typed in is kept"),
])
def test_an_edit_drawn_before_another_phone_set_the_boardgamegeek_id_is_refused_and_keeps_the_id(
        db, phones, typed_id, saved_again):
    """Setting only the id adds no sheet version: the page's shown id tells the edits apart."""
    group_id, _ids, first, second = phones
    game_id, page, sets_the_id, adds_a_row = azul_open_on_both(phones)
    sets_the_id["bgg_id"] = ["230802"]
    assert first.post(page, data=sets_the_id).status_code == 302
    adds_a_row |= {"rows-1-name": ["Bonus"], "bgg_id": [typed_id]}
    refused = second.post(page, data=adds_a_row)
    assert refused.status_code == 409
    assert errors_on(refused.text) == ["Another phone changed the BoardGameGeek id of Azul since this page "
                                       "was opened, so nothing was saved."]
    assert store.get_group_game(db, group_id, game_id).bgg_id == 230802
    assert rows_of(db, group_id, game_id) == ["Wall"]
    shown = form_of(refused.text, page)
    assert shown["shown_bgg_id"] == ["230802"] and shown["rows-1-name"] == ["Bonus"]
    assert shown["bgg_id"] == [str(saved_again)]
    assert second.post(page, data=shown).status_code == 302
    assert store.get_group_game(db, group_id, game_id).bgg_id == saved_again
    assert rows_of(db, group_id, game_id) == ["Wall", "Bonus"]


def test_the_form_shown_again_replaces_the_sheet_when_sent_again(db, phones):
    group_id, _ids, first, second = phones
    game_id, page, totals_only, renames = azul_open_on_both(phones)
    totals_only["rows-0-name"] = [""]
    assert first.post(page, data=totals_only).status_code == 302
    renames["name"] = ["Azul (2017)"]
    refused = second.post(page, data=renames)
    assert refused.status_code == 409
    assert "Its score sheet is now a total per player." in errors_on(refused.text)[1]
    assert second.post(page, data=form_of(refused.text, page)).status_code == 302  # seen, and meant
    assert store.get_group_game(db, group_id, game_id).name == "Azul (2017)"
    assert rows_of(db, group_id, game_id) == ["Wall"]


def test_an_edit_with_no_change_since_and_one_from_an_older_page_are_saved(db, phones):
    group_id, _ids, first, second = phones
    game_id = add_game(first, group_id, name="Azul", rows=(("Wall", False, False),))
    page = f"/groups/{group_id}/games/{game_id}"
    form = drawn_form(second, page)
    assert form["sheet_version"] == [str(store.get_group_game(db, group_id, game_id).version_id)]
    form["rows-1-name"] = ["Bonus"]
    assert second.post(page, data=form).status_code == 302
    assert rows_of(db, group_id, game_id) == ["Wall", "Bonus"]
    # a page drawn before forms carried the version: taken as it comes
    older = drawn_form(first, page)
    del older["sheet_version"], older["shown_bgg_id"]
    older["rows-2-name"] = ["Tiles left"]
    assert first.post(page, data=older).status_code == 302
    assert rows_of(db, group_id, game_id) == ["Wall", "Bonus", "Tiles left"]


# --- a play logged afterwards -----------------------------------------------------------------------

def past_play(phone, group_id: int, game_id: int, ids: list[int]) -> tuple[str, dict[str, list[str]]]:
    """The past-play page of the game and its form as the phone fills it in: Anna has Wall 40, Bonus 0,
    Tiles left 2; Ben Wall 35, Bonus 12, Tiles left 0."""
    page = f"/groups/{group_id}/plays/past/custom-{game_id}"
    form = drawn_form(phone, page)
    form.update({"ended_on": ["2024-05-01"], "player-0": [str(ids[0])], "player-1": [str(ids[1])],
                 "points-0-0": ["40"], "points-0-1": ["0"], "points-0-2": ["2"],
                 "points-1-0": ["35"], "points-1-1": ["12"], "points-1-2": ["0"]})
    for seat in range(2, 5):
        form[f"player-{seat}"] = ["0"]
    return page, form


def results(db, play_id: int) -> dict[str, tuple[int, dict]]:
    return {r.name: (r.total, dict(r.breakdown)) for r in store.play_results(db, play_id)}


def kept_play(db, group_id: int, response) -> int:
    assert response.status_code == 302, response.text
    play_id = int(response.headers["Location"].rsplit("/", 2)[-2])
    assert [p.id for p in store.list_plays(db, group_id, "finished")] == [play_id]
    return play_id


@pytest.mark.parametrize(("change", "rows", "kept"), [
    # Bonus dropped: Tiles left moves up, and its points with it
    ({"rows-1-name": [""]}, ["Wall", "Tiles left"],
     {"points-0-0": "40", "points-0-1": "2", "points-1-0": "35", "points-1-1": "0"}),
    # a row put in before Bonus: the points stay with their rows, the new row is empty
    ({"rows-1-name": ["Patterns"], "rows-2-name": ["Bonus"], "rows-3-name": ["Tiles left"]},
     ["Wall", "Patterns", "Bonus", "Tiles left"],
     {"points-0-0": "40", "points-0-1": "", "points-0-2": "0", "points-0-3": "2",
      "points-1-0": "35", "points-1-1": "", "points-1-2": "12", "points-1-3": "0"}),
])
def test_a_past_play_typed_on_a_sheet_another_phone_changed_is_refused(db, phones, change, rows, kept):
    group_id, ids, first, second = phones
    game_id = add_game(first, group_id, name="Azul", rows=AZUL)
    page, typed = past_play(first, group_id, game_id, ids)
    edit = f"/groups/{group_id}/games/{game_id}"
    assert second.post(edit, data={**drawn_form(second, edit), **change}).status_code == 302
    assert rows_of(db, group_id, game_id) == rows

    refused = first.post(page, data=typed)
    assert refused.status_code == 409
    assert store.list_plays(db, group_id, "finished") == []
    assert errors_on(refused.text)[0] == STALE
    assert "The form below has the score sheet's rows as they are now" in errors_on(refused.text)[1]
    # drawn again with the sheet as it is now: its rows, and the points of the rows it still has
    shown = form_of(refused.text, page)
    assert {key: value for key, value in shown.items() if key.startswith("points-") and key[7] in "01"} == {
        key: [value] for key, value in kept.items()}
    assert (shown["ended_on"], shown["player-1"]) == (["2024-05-01"], [str(ids[1])])
    assert shown["sheet_version"] == [str(store.get_group_game(db, group_id, game_id).version_id)]
    assert ("Bonus" in refused.text) == ("Bonus" in rows)

    # sent again as shown (the new row filled in), it is kept with the points where they were typed
    shown.update({key: ["5"] for key, value in shown.items() if key.startswith("points-") and value == [""]})
    play_id = kept_play(db, group_id, first.post(page, data=shown))
    typed_by_row = {"Wall": 35, "Bonus": 12, "Tiles left": 0, "Patterns": 5}
    assert results(db, play_id)["Ben"][1] == {row: typed_by_row[row] for row in rows}


def test_a_past_play_with_no_change_since_and_one_from_an_older_page_are_kept(db, phones):
    group_id, ids, first, _second = phones
    game_id = add_game(first, group_id, name="Azul", rows=AZUL)
    page, typed = past_play(first, group_id, game_id, ids)
    assert typed["sheet_version"] == [str(store.get_group_game(db, group_id, game_id).version_id)]
    play_id = kept_play(db, group_id, first.post(page, data=typed))
    assert results(db, play_id) == {"Anna": (42, {"Wall": 40, "Bonus": 0, "Tiles left": 2}),
                                    "Ben": (47, {"Wall": 35, "Bonus": 12, "Tiles left": 0})}
    page, older = past_play(first, group_id, game_id, ids)
    del older["sheet_version"]  # a page drawn before forms carried the version: taken as it comes
    response = first.post(page, data=older)
    assert response.status_code == 302, response.text
    assert len(store.list_plays(db, group_id, "finished")) == 2


def test_a_sheet_changed_while_the_past_play_is_stored_refuses_it_too(db, phones, monkeypatch):
    """The store checks the version under the write lock: a change between the page's check and the
    write is refused as well."""
    group_id, ids, first, _second = phones
    game_id = add_game(first, group_id, name="Azul", rows=AZUL)
    page, typed = past_play(first, group_id, game_id, ids)
    newest = store.get_group_game(db, group_id, game_id).version_id

    def changed_just_before(*args, **kwargs):
        store.update_group_game(db, group_id, game_id, "Azul", None,
                                {**store.get_group_game(db, group_id, game_id).sheet,
                                 "rows": [{"name": "Wall", "negative": False},
                                          {"name": "Tiles left", "negative": False}]})
        return log_past_play(*args, **kwargs)

    log_past_play = store.log_past_play
    monkeypatch.setattr(store, "log_past_play", changed_just_before)
    refused = first.post(page, data=typed)
    assert refused.status_code == 409
    assert store.list_plays(db, group_id, "finished") == []
    shown = form_of(refused.text, page)
    now = store.get_group_game(db, group_id, game_id).version_id
    assert shown["sheet_version"] == [str(now)] != [str(newest)]
    assert (shown["points-0-0"], shown["points-0-1"], shown["points-1-1"]) == (["40"], ["2"], ["0"])
    assert "points-0-2" not in shown


def test_the_store_keeps_a_past_play_only_of_the_newest_sheet(db, phones):
    group_id, ids, first, _second = phones
    game_id = add_game(first, group_id, name="Azul", rows=(("Wall", False, False),))
    game = store.get_group_game(db, group_id, game_id)
    store.update_group_game(db, group_id, game_id, "Azul", None, {**game.sheet, "rows": []})
    results_in = [store.ResultInput(0, 10, 1, {"Wall": 10}), store.ResultInput(1, 5, 2, {"Wall": 5})]
    with pytest.raises(store.StaleVersion):
        store.log_past_play(db, group_id, f"custom-{game_id}", [(ids[0], "red"), (ids[1], "blue")],
                            {"sheet": game.version_id}, {"breakdowns": []}, results_in,
                            "2024-05-01T20:00:00+00:00", "2024-05-01T21:00:00+00:00",
                            check=store.sheet_unchanged(group_id, game_id, game.version_id))
    assert store.list_plays(db, group_id, "finished") == []
