"""Any other game's score sheet and ranking: pure rules, no app."""

from __future__ import annotations

import pytest

from companion.games.common import RulesError
from companion.games.custom import (
    COOPERATIVE_LOSS_RANK,
    ScoreSheet,
    SheetRow,
    game_id_of,
    parse_sheet,
    rank_sheet,
    slug_for,
)

WONDERS = ScoreSheet(2, 7, (SheetRow("Military", negative=True), SheetRow("Coins"), SheetRow("Science")),
                     tie_breaker="Coins")


def ranks(sheet, scores, **outcome):
    result = rank_sheet("custom-1", sheet, list(scores.items()), **outcome)
    return [(p.name, p.total, p.rank) for p in result.players]


@pytest.mark.parametrize(("sheet", "scores", "outcome", "expected"), [
    # highest total wins; equal totals share the rank
    (ScoreSheet(), {"Anna": {"total": 40}, "Ben": {"total": 52}, "Cara": {"total": 40}}, {},
     [("Anna", 40, 2), ("Ben", 52, 1), ("Cara", 40, 2)]),
    # lowest total wins (golf); a total may be negative on a sheet of totals
    (ScoreSheet(lowest_wins=True), {"Anna": {"total": 12}, "Ben": {"total": -3}, "Cara": {"total": 12}}, {},
     [("Anna", 12, 2), ("Ben", -3, 1), ("Cara", 12, 2)]),
    # rows add up; the tie-breaker row decides equal totals
    (WONDERS, {"Anna": {"Military": -2, "Coins": 5, "Science": 10},
               "Ben": {"Military": 6, "Coins": 3, "Science": 4},
               "Cara": {"Military": 0, "Coins": 1, "Science": 2}}, {},
     [("Anna", 13, 1), ("Ben", 13, 2), ("Cara", 3, 3)]),
    # equal totals and equal tie-breaker: shared
    (WONDERS, {"Anna": {"Military": 1, "Coins": 3, "Science": 0},
               "Ben": {"Military": 0, "Coins": 3, "Science": 1}}, {},
     [("Anna", 4, 1), ("Ben", 4, 1)]),
    # where lowest wins, the tie-breaker counts the same way: fewer is better
    (ScoreSheet(rows=(SheetRow("Penalty"), SheetRow("Cards")), tie_breaker="Cards", lowest_wins=True),
     {"Anna": {"Penalty": 5, "Cards": 3}, "Ben": {"Penalty": 6, "Cards": 2},
      "Cara": {"Penalty": 9, "Cards": 0}},
     {}, [("Anna", 8, 2), ("Ben", 8, 1), ("Cara", 9, 3)]),
    # a lowest-wins game where most of a row breaks ties ("most cards left wins the tie")
    (ScoreSheet(rows=(SheetRow("Penalty"), SheetRow("Cards")), tie_breaker="Cards", lowest_wins=True,
                tie_breaker_wins="most"),
     {"Anna": {"Penalty": 5, "Cards": 3}, "Ben": {"Penalty": 6, "Cards": 2},
      "Cara": {"Penalty": 9, "Cards": 0}},
     {}, [("Anna", 8, 1), ("Ben", 8, 2), ("Cara", 9, 3)]),
    # a highest-wins game where fewest of a row breaks ties
    (ScoreSheet(rows=(SheetRow("Points"), SheetRow("Turns")), tie_breaker="Turns", tie_breaker_wins="fewest"),
     {"Anna": {"Points": 30, "Turns": 9}, "Ben": {"Points": 33, "Turns": 6},
      "Cara": {"Points": 10, "Turns": 0}},
     {}, [("Anna", 39, 2), ("Ben", 39, 1), ("Cara", 10, 3)]),
    # saying the direction the total already counts changes nothing
    (ScoreSheet(rows=(SheetRow("Points"), SheetRow("Turns")), tie_breaker="Turns", tie_breaker_wins="most"),
     {"Anna": {"Points": 30, "Turns": 9}, "Ben": {"Points": 33, "Turns": 6}}, {},
     [("Anna", 39, 1), ("Ben", 39, 2)]),
    # cooperative: everybody wins …
    (ScoreSheet(cooperative=True), {"Anna": {"total": 0}, "Ben": {"total": 0}}, {"won": True},
     [("Anna", 0, 1), ("Ben", 0, 1)]),
    # … or everybody loses, whatever the scores
    (ScoreSheet(cooperative=True), {"Anna": {"total": 20}, "Ben": {"total": 3}}, {"won": False},
     [("Anna", 20, COOPERATIVE_LOSS_RANK), ("Ben", 3, COOPERATIVE_LOSS_RANK)]),
    # a solo play of a cooperative game
    (ScoreSheet(min_players=1, cooperative=True), {"Anna": {"total": 7}}, {"won": False},
     [("Anna", 7, COOPERATIVE_LOSS_RANK)]),
    # teams: the team's total is its members' sum; members share the team's rank
    (ScoreSheet(teams=True), {"Anna": {"total": 10}, "Ben": {"total": 30}, "Cara": {"total": 25},
                              "Dan": {"total": 10}}, {"teams": ["A", "B", "A", "B"]},
     [("Anna", 10, 2), ("Ben", 30, 1), ("Cara", 25, 2), ("Dan", 10, 1)]),
    # teams that tie share first place
    (ScoreSheet(teams=True), {"Anna": {"total": 10}, "Ben": {"total": 5}, "Cara": {"total": 5}},
     {"teams": ["A", "B", "B"]}, [("Anna", 10, 1), ("Ben", 5, 1), ("Cara", 5, 1)]),
    # three teams, lowest wins
    (ScoreSheet(teams=True, lowest_wins=True),
     {"Anna": {"total": 1}, "Ben": {"total": 9}, "Cara": {"total": 4}}, {"teams": ["A", "B", "C"]},
     [("Anna", 1, 1), ("Ben", 9, 3), ("Cara", 4, 2)]),
])
def test_ranking(sheet, scores, outcome, expected):
    assert ranks(sheet, scores, **outcome) == expected


@pytest.mark.parametrize(("sheet", "scores", "outcome", "message"), [
    (WONDERS, {"Anna": {"Military": 1, "Coins": -1, "Science": 0}, "Ben": {"Military": 0, "Coins": 0,
                                                                       "Science": 0}},
     {}, "Anna's Coins must be a whole number from 0 to 9999."),
    (WONDERS, {"Anna": {"Military": 1, "Coins": 1}, "Ben": {"Military": 0, "Coins": 0, "Science": 0}},
     {}, "Anna's score needs exactly the rows Military, Coins, Science."),
    (WONDERS, {"Anna": {"Military": 1.5, "Coins": 1, "Science": 0},
               "Ben": {"Military": 0, "Coins": 0, "Science": 0}}, {},
     "Anna's Military must be a whole number from -9999 to 9999."),
    (WONDERS, {"Anna": {"Military": 0, "Coins": 1, "Science": 0}}, {},
     "This game is played by 2 to 7 players."),
    (ScoreSheet(cooperative=True), {"Anna": {"total": 0}, "Ben": {"total": 0}}, {},
     "Say whether the table won or lost."),
    (ScoreSheet(teams=True), {"Anna": {"total": 0}, "Ben": {"total": 0}}, {"teams": ["A", "A"]},
     "A game of teams needs at least two teams."),
    (ScoreSheet(teams=True), {"Anna": {"total": 0}, "Ben": {"total": 0}}, {"teams": ["A", "Z"]},
     "Put every player into a team."),
])
def test_refused_tallies(sheet, scores, outcome, message):
    with pytest.raises(RulesError) as refused:
        rank_sheet("custom-1", sheet, list(scores.items()), **outcome)
    assert str(refused.value) == message


def test_a_sheet_round_trips_through_its_json_form():
    assert parse_sheet(WONDERS.to_json()) == WONDERS
    most = ScoreSheet(rows=(SheetRow("Cards"),), tie_breaker="Cards", lowest_wins=True,
                      tie_breaker_wins="most")
    assert parse_sheet(most.to_json()) == most and most.to_json()["tie_breaker_wins"] == "most"
    assert WONDERS.row_keys == ("Military", "Coins", "Science")
    assert ScoreSheet().row_keys == ("total",)


def test_a_sheet_saved_before_the_tie_breaker_direction_counts_it_like_the_total():
    old = {"min_players": 2, "max_players": 5, "rows": [{"name": "Penalty", "negative": False},
                                                          {"name": "Cards", "negative": False}],
           "tie_breaker": "Cards", "lowest_wins": True, "cooperative": False, "teams": False}
    sheet = parse_sheet(old)
    assert sheet.tie_breaker_wins is None and not sheet.most_breaks_ties
    assert sheet.to_json() == old  # stored again unchanged: no new version of the sheet


@pytest.mark.parametrize(("data", "message"), [
    ({"rows": [{"name": "Coins"}], "tie_breaker": "Coins", "tie_breaker_wins": "more"},
     "Say whether most or fewest of the tie-breaker row wins."),
    ({"rows": [{"name": "Coins"}], "tie_breaker_wins": "most"},
     "Pick the row that breaks ties before saying which way it counts."),
    ({"rows": [{"name": "Coins"}, {"name": "coins"}]}, "The sheet has two rows called coins."),
    ({"rows": [{"name": "Total"}]}, "A row cannot be called Total: the total is the sum of the rows."),
    ({"rows": [{"name": "  "}]}, "A name needs at least one visible character."),
    ({"rows": [{"name": "x" * 31}]}, "A name has 1–30 characters after trimming spaces; this one has 31."),
    ({"rows": [{"name": "Coins\u202e"}]},
     "A name cannot contain U+202E: it is a control or formatting character, not text."),
    ({"rows": [{"name": 7}]}, "A row name is text of 1 to 30 characters."),
    ({"rows": [{"name": "Coins"}], "tie_breaker": "Science"},
     "The tie-breaker must be one of the sheet's rows."),
    ({"min_players": 4, "max_players": 2}, "The fewest players must not be more than the most players."),
    ({"max_players": 11}, "max_players must be a whole number from 1 to 10."),
    ({"min_players": True}, "min_players must be a whole number from 1 to 10."),
    ({"cooperative": True, "teams": True},
     "A cooperative game has one team already: choose cooperative or teams."),
    ({"rows": [{"name": str(n)} for n in range(21)]}, "A score sheet has at most 20 rows."),
    ({"colour": "red"}, "A score sheet has no field colour."),
    ([], "A score sheet needs a set of named values."),
])
def test_refused_sheets(data, message):
    with pytest.raises(RulesError) as refused:
        parse_sheet(data)
    assert str(refused.value) == message


def test_row_names_are_tidied():
    sheet = parse_sheet({"rows": [{"name": "  Victory   points "}]})
    assert sheet.rows == (SheetRow("Victory points"),)


@pytest.mark.parametrize(("slug", "game_id"), [
    ("custom-7", 7), ("custom-123", 123), ("custom-0", None), ("custom-07", None), ("custom-", None),
    ("mayflower", None), ("custom-7x", None), (7, None),
])
def test_slugs(slug, game_id):
    assert game_id_of(slug) == game_id
    if game_id is not None:
        assert slug_for(game_id) == slug
