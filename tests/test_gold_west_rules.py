"""Gold West rules: end scoring, ranking with tie-breakers and the in-play ledger (rules/gold-west.md)."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games import common, gold_west
from companion.games.common import PlaySetup, RulesError, Seat
from companion.games.gold_west import (
    GAME,
    MAJORITY_VALUES,
    MAX_TOKENS_PER_OFFICE,
    OFFICE_KEYS,
    OFFICES,
    TERRAINS,
    OfficeClaim,
    PlayerTally,
    apply_event,
    camps_per_player,
    check_tallies,
    final_result,
    initial_state,
    office_points,
    running_scores,
    tallies_from_play,
    terrain_majority,
    wanted_penalties,
)

ANNA_BEN_CARA = ("Anna", "Ben", "Cara")

# --------------------------------------------------------------------------------------------------
# Worked examples of the rules


@pytest.mark.parametrize(
    ("terrain", "influence", "settlements", "points"),
    [
        pytest.param("forest", (4, 4, 2), (1, 0, 0), (8, 4, 0), id="example-1-settlements-break-the-tie"),
        pytest.param("gold", (3, 3, 1), (0, 0, 0), (7, 7, 0), id="example-2-shared-first-no-second"),
        pytest.param("silver", (5, 2, 2), (0, 0, 0), (10, 3, 3), id="example-3-shared-second"),
        pytest.param("copper", (3, 1), (0, 0), (7, 0), id="example-4-two-players-second-value"),
    ],
)
def test_terrain_majority_worked_examples(terrain, influence, settlements, points):
    assert terrain_majority(terrain, influence, settlements).points == points


@pytest.mark.parametrize(
    ("wanted", "penalties"),
    [
        pytest.param((3, 3, 2, 0), (-3, -3, 0, 0), id="example-5-tie-for-most-no-second"),
        pytest.param((4, 3, 3), (-4, -1, -1), id="example-6-second-most-shared"),
    ],
)
def test_wanted_worked_examples(wanted, penalties):
    assert wanted_penalties(wanted) == penalties


def example_7_tallies() -> list[PlayerTally]:
    """Worked example 7: Anna, Ben and Cara, every terrain but forest at 0 for everyone."""
    return [
        PlayerTally("Anna", track_vp=41, influence={"forest": 4}, largest_group=5, wanted=2, investments=3,
                    offices=(OfficeClaim("saloon"),)),
        PlayerTally("Ben", track_vp=50, influence={"forest": 2}, largest_group=4, wanted=1,
                    boomtown_tokens=3, offices=(OfficeClaim("mayor"),)),
        PlayerTally("Cara"),
    ]


def test_worked_example_7_full_tally():
    result = final_result(example_7_tallies())
    by_name = {player.name: player for player in result.players}
    assert dict(by_name["Anna"].breakdown) == {
        "track": 41, "largest_group": 10, "offices": 6, "wanted": -2, "influence": 8}
    assert dict(by_name["Ben"].breakdown) == {
        "track": 50, "largest_group": 8, "offices": 3, "wanted": 0, "influence": 4}
    assert dict(by_name["Cara"].breakdown) == dict.fromkeys(GAME.rows, 0)
    assert [(p.name, p.total, p.rank) for p in result.players] == [
        ("Anna", 63, 2), ("Ben", 65, 1), ("Cara", 0, 3)]
    assert result.winners == ("Ben",)
    assert result.tie_break_notes == {}


# --------------------------------------------------------------------------------------------------
# Terrain majorities beyond the examples


@pytest.mark.parametrize(
    ("terrain", "influence", "settlements", "points", "first", "second"),
    [
        pytest.param("forest", (0, 0, 0), (0, 0, 0), (0, 0, 0), (), (), id="nobody-has-influence"),
        pytest.param("gold", (0, 3, 0), (0, 0, 0), (0, 9, 0), (1,), (), id="single-holder-no-second"),
        pytest.param("silver", (0, 0, 0), (1, 0, 0), (0, 0, 0), (), (), id="zero-influence-never-scores"),
        pytest.param("copper", (2, 2, 2, 0), (0, 0, 0, 0), (6, 6, 6, 0), (0, 1, 2), (),
                     id="three-share-first-11-plus-7"),
        pytest.param("forest", (1, 1, 1, 1), (0, 0, 0, 0), (3, 3, 3, 3), (0, 1, 2, 3), (),
                     id="four-share-first-round-down"),
        pytest.param("forest", (6, 2, 2, 2), (0, 0, 0, 0), (8, 1, 1, 1), (0,), (1, 2, 3),
                     id="three-share-second-round-down"),
        pytest.param("gold", (6, 2, 2, 2), (0, 1, 0, 0), (9, 5, 0, 0), (0,), (1,),
                     id="settlements-break-the-tie-for-second"),
        pytest.param("silver", (3, 3, 0), (1, 1, 0), (8, 8, 0), (0, 1), (),
                     id="equal-settlements-stay-tied"),
        pytest.param("copper", (0, 4), (0, 0), (0, 7), (1,), (), id="two-players-opponent-at-zero"),
        pytest.param("gold", (3, 3), (0, 0), (2, 2), (0, 1), (), id="two-players-full-tie-shares-second"),
        pytest.param("silver", (3, 3), (0, 1), (0, 6), (1,), (), id="two-players-settlements-decide"),
        pytest.param("forest", (0, 0), (0, 0), (0, 0), (), (), id="two-players-nobody"),
    ],
)
def test_terrain_majority_placements(terrain, influence, settlements, points, first, second):
    majority = terrain_majority(terrain, influence, settlements)
    assert (majority.points, majority.first, majority.second) == (points, first, second)


@pytest.mark.parametrize(
    ("terrain", "influence", "settlements", "sentence"),
    [
        pytest.param("forest", (4, 4, 2), (1, 0, 0),
                     "Forest: Anna 1st (8); Ben 2nd (4) (Anna is ahead of Ben on settlements, 1 against 0).",
                     id="settlement-decision-named"),
        pytest.param("gold", (3, 3, 1), (0, 0, 0),
                     "Gold: Anna and Ben share 1st: 9 + 5 = 14, 7 each; no 2nd place.", id="shared-first"),
        pytest.param("silver", (5, 2, 2), (0, 0, 0),
                     "Silver: Anna 1st (10); Ben and Cara share 2nd: 6, 3 each.", id="shared-second"),
        pytest.param("copper", (0, 0, 0), (0, 0, 0), "Copper: nobody has influence here.", id="nobody"),
        pytest.param("copper", (0, 2, 0), (0, 0, 0), "Copper: Ben 1st (11); nobody else has influence.",
                     id="alone"),
    ],
)
def test_majority_sentences_for_the_result_page(terrain, influence, settlements, sentence):
    assert terrain_majority(terrain, influence, settlements).describe(ANNA_BEN_CARA) == sentence


def test_two_player_majority_sentences():
    assert terrain_majority("copper", (3, 1), (0, 0)).describe(("Anna", "Ben")) == (
        "Copper: Anna holds the majority and takes the 2nd-place value (7).")
    assert terrain_majority("gold", (2, 2), (1, 1)).describe(("Anna", "Ben")) == (
        "Gold: Anna and Ben tie and share the 2nd-place value 5: 2 each.")


def test_terrain_majority_refuses_unknown_terrain():
    with pytest.raises(RulesError, match="no terrain called 'wood'"):
        terrain_majority("wood", (1, 2), (0, 0))


def test_result_carries_the_majorities_table_in_terrain_order():
    result = final_result(example_7_tallies())
    assert [m.terrain for m in result.majorities] == list(TERRAINS)
    forest = result.majorities[0]
    assert (forest.first, forest.second, forest.points) == ((0,), (1,), (8, 4, 0))
    assert all(m.points == (0, 0, 0) for m in result.majorities[1:])


# --------------------------------------------------------------------------------------------------
# Wanted beyond the examples


@pytest.mark.parametrize(
    ("wanted", "penalties"),
    [
        pytest.param((0, 0, 0), (0, 0, 0), id="nobody-wanted"),
        pytest.param((0, 5, 0), (0, -5, 0), id="only-one-player-takes-part"),
        pytest.param((1, 0), (-1, 0), id="one-camp-is-most"),
        pytest.param((5, 1), (-5, 0), id="second-with-one-camp-rounds-to-zero"),
        pytest.param((6, 5, 2, 0), (-6, -2, 0, 0), id="third-most-pays-nothing"),
        pytest.param((2, 2, 2, 2), (-2, -2, -2, -2), id="everyone-tied-for-most"),
        pytest.param((7, 4, 4, 4), (-7, -2, -2, -2), id="three-tied-for-second"),
    ],
)
def test_wanted_penalties(wanted, penalties):
    assert wanted_penalties(wanted) == penalties


# --------------------------------------------------------------------------------------------------
# BoomTown offices


def test_office_table_has_the_twelve_offices_with_labels():
    assert OFFICE_KEYS == ("docks", "frontier", "homestead", "courthouse", "deeds", "depot", "mayor",
                           "saloon", "sheriff", "shipping", "surveyor", "town_hall")
    assert all(office.label and office.counts for office in OFFICES)
    assert {office.key for office in OFFICES if office.asks == "count"} == {"frontier", "sheriff", "surveyor"}
    assert {office.key for office in OFFICES if office.asks == "docks"} == {"docks"}


OFFICE_PLAYER = PlayerTally(
    "Anna",
    influence={"forest": 4, "gold": 3, "silver": 5, "copper": 2},
    settlements={"forest": 1, "silver": 2},
    mining_tokens={"forest": 3, "gold": 2, "silver": 4, "copper": 1},
    largest_group=6, second_group=3, investments=3, shipping_bonus_tiles=2, boomtown_tokens=5,
)


@pytest.mark.parametrize(
    ("claim", "player", "scored_terrains", "per_token"),
    [
        pytest.param(OfficeClaim("docks", camps=2, settlements=1), OFFICE_PLAYER, 0, 4, id="docks"),
        pytest.param(OfficeClaim("frontier", count=5), OFFICE_PLAYER, 0, 5, id="frontier"),
        pytest.param(OfficeClaim("homestead"), OFFICE_PLAYER, 0, 4, id="homestead-weakest-is-2"),
        pytest.param(OfficeClaim("homestead"), PlayerTally("Ben", influence={"forest": 9, "gold": 9,
                     "silver": 9}), 0, 0, id="homestead-a-zero-terrain"),
        pytest.param(OfficeClaim("courthouse"), OFFICE_PLAYER, 0, 4, id="courthouse-strongest-is-4"),
        pytest.param(OfficeClaim("deeds"), OFFICE_PLAYER, 3, 6, id="deeds"),
        pytest.param(OfficeClaim("depot"), OFFICE_PLAYER, 0, 6, id="depot"),
        pytest.param(OfficeClaim("mayor"), OFFICE_PLAYER, 0, 6, id="mayor-5-tokens-makes-2-pairs"),
        pytest.param(OfficeClaim("mayor"), PlayerTally("Ben", offices=(OfficeClaim("mayor"),)), 0, 0,
                     id="mayor-default-tokens-from-offices"),
        pytest.param(OfficeClaim("saloon"), OFFICE_PLAYER, 0, 6, id="saloon"),
        pytest.param(OfficeClaim("sheriff", count=3), OFFICE_PLAYER, 0, 3, id="sheriff"),
        pytest.param(OfficeClaim("shipping"), OFFICE_PLAYER, 0, 4, id="shipping"),
        pytest.param(OfficeClaim("surveyor", count=7), OFFICE_PLAYER, 0, 7, id="surveyor"),
        pytest.param(OfficeClaim("town_hall"), OFFICE_PLAYER, 0, 3, id="town-hall"),
    ],
)
def test_office_formulas_score_once_per_token(claim, player, scored_terrains, per_token):
    assert office_points(claim, player, scored_terrains) == per_token
    two_tokens = OfficeClaim(claim.office, 2, claim.count, claim.camps, claim.settlements)
    assert office_points(two_tokens, player, scored_terrains) == 2 * per_token


def test_office_points_refuses_an_unknown_office():
    with pytest.raises(RulesError, match="no BoomTown office called 'bank'"):
        office_points(OfficeClaim("bank"), OFFICE_PLAYER, 0)


def test_deeds_counts_terrains_placed_in_the_final_tally():
    # Anna: forest 1st, gold shared 1st, silver 2nd, copper nothing → 3 terrains → 6 per token.
    players = [
        PlayerTally("Anna", influence={"forest": 5, "gold": 2, "silver": 1},
                    offices=(OfficeClaim("deeds", tokens=2),)),
        PlayerTally("Ben", influence={"forest": 1, "gold": 2, "silver": 4, "copper": 3}),
        PlayerTally("Cara"),
    ]
    anna = final_result(players).players[0]
    assert anna.breakdown["offices"] == 12
    assert anna.breakdown["influence"] == 8 + 7 + 6


def test_mayor_counts_office_tokens_when_boomtown_tokens_are_not_given():
    players = [PlayerTally("Anna", offices=(OfficeClaim("mayor", tokens=2), OfficeClaim("saloon"))),
               PlayerTally("Ben")]
    # 3 tokens in BoomTown → one pair → 3 per mayor token, 2 tokens on mayor.
    assert final_result(players).players[0].breakdown["offices"] == 6


@pytest.mark.parametrize(("player_count", "camps"), [(2, 12), (3, 12), (4, 10)])
def test_camps_per_player(player_count, camps):
    assert camps_per_player(player_count) == camps


@pytest.mark.parametrize("player_count", [0, 1, 5, True])
def test_camps_per_player_refuses_other_player_counts(player_count):
    with pytest.raises(RulesError, match="2 to 4 players"):
        camps_per_player(player_count)


# --------------------------------------------------------------------------------------------------
# Ranking and tie-breakers


def tied_players(*rows: tuple[str, int, int]) -> list[PlayerTally]:
    """Players on 20 VP each: (name, Wanted camps, resources left on the supply track)."""
    # Track points make up for the Wanted penalty so that everyone ends on 20.
    penalties = wanted_penalties([wanted for _, wanted, _ in rows])
    return [PlayerTally(name, track_vp=20 - penalty, wanted=wanted, supply_left=supply)
            for (name, wanted, supply), penalty in zip(rows, penalties, strict=True)]


@pytest.mark.parametrize(
    ("rows", "ranks"),
    [
        pytest.param([("Anna", 2, 0), ("Ben", 1, 0)], [2, 1], id="fewest-wanted-camps-wins"),
        pytest.param([("Anna", 1, 3), ("Ben", 1, 5)], [2, 1], id="then-most-supply-left"),
        pytest.param([("Anna", 0, 4), ("Ben", 0, 4)], [1, 1], id="still-tied-shares-victory"),
        pytest.param([("Anna", 0, 0), ("Ben", 1, 9)], [1, 2], id="wanted-outranks-supply"),
        pytest.param([("Anna", 1, 2), ("Ben", 1, 2), ("Cara", 3, 9), ("Dan", 1, 4)], [2, 2, 4, 1],
                     id="both-breakers-and-a-shared-rank"),
    ],
)
def test_tie_breakers(rows, ranks):
    result = final_result(tied_players(*rows))
    assert all(player.total == 20 for player in result.players)
    assert [player.rank for player in result.players] == ranks


def test_a_decided_tie_is_explained_once_for_the_whole_group():
    result = final_result(tied_players(("Anna", 1, 2), ("Ben", 1, 2), ("Cara", 3, 9), ("Dan", 1, 4)))
    assert result.tie_break_notes == {
        "Anna": "Anna, Ben, Cara and Dan tied on 20 VP; by fewest camps in the Wanted area (Anna 1, Ben 1, "
                "Cara 3, Dan 1), then most resources left on the supply track (Anna 2, Ben 2, Dan 4): "
                "Dan 1st; Anna and Ben 2nd; Cara 4th.",
    }


@pytest.mark.parametrize(("rows", "note"), [
    pytest.param([("Anna", 1, 3), ("Ben", 1, 3), ("Cara", 2, 5), ("Dan", 2, 5)],
                 "Anna, Ben, Cara and Dan tied on 20 VP; by fewest camps in the Wanted area (Anna 1, Ben 1, "
                 "Cara 2, Dan 2): Anna and Ben 1st; Cara and Dan 3rd.", id="each-pair-still-level-after"),
    pytest.param([("Anna", 1, 3), ("Ben", 1, 5), ("Cara", 2, 5), ("Dan", 2, 5)],
                 "Anna, Ben, Cara and Dan tied on 20 VP; by fewest camps in the Wanted area (Anna 1, Ben 1, "
                 "Cara 2, Dan 2), then most resources left on the supply track (Anna 3, Ben 5): "
                 "Ben 1st; Anna 2nd; Cara and Dan 3rd.", id="only-the-pair-it-ranked-apart"),
    pytest.param([("Anna", 1, 3), ("Ben", 1, 5), ("Cara", 2, 4), ("Dan", 2, 6)],
                 "Anna, Ben, Cara and Dan tied on 20 VP; by fewest camps in the Wanted area (Anna 1, Ben 1, "
                 "Cara 2, Dan 2), then most resources left on the supply track (Anna 3, Ben 5, Cara 4, "
                 "Dan 6): Ben 1st; Anna 2nd; Dan 3rd; Cara 4th.", id="both-pairs-ranked-apart"),
])
def test_a_tie_breaker_is_named_only_for_the_players_it_ranked_apart(rows, note):
    """A later tie-breaker lists only the groups the earlier ones left level and it told apart: resources
    left compared across groups already ranked by their Wanted camps decided nothing."""
    assert final_result(tied_players(*rows)).tie_break_notes == {"Anna": note}


def test_no_tie_break_note_for_a_full_tie_or_different_totals():
    assert final_result(tied_players(("Anna", 0, 4), ("Ben", 0, 4))).tie_break_notes == {}
    players = [PlayerTally("Anna", track_vp=5, wanted=3), PlayerTally("Ben", track_vp=9)]
    assert final_result(players).tie_break_notes == {}


def test_only_players_sharing_a_total_get_notes():
    players = [*tied_players(("Anna", 0, 1), ("Ben", 0, 3)), PlayerTally("Cara", track_vp=30)]
    notes = final_result(players).tie_break_notes
    assert notes == {"Anna": "Anna and Ben tied on 20 VP; by most resources left on the supply track "
                             "(Anna 1, Ben 3): Ben 2nd; Anna 3rd."}


# --------------------------------------------------------------------------------------------------
# Refused tallies


def with_anna(**changes) -> list[PlayerTally]:
    return [PlayerTally("Anna", **changes), PlayerTally("Ben"), PlayerTally("Cara")]


@pytest.mark.parametrize(
    ("players", "path", "message"),
    [
        pytest.param([PlayerTally("Anna")], "players", "2 to 4 players", id="one-player"),
        pytest.param([PlayerTally(name) for name in "ABCDE"], "players", "2 to 4 players", id="five-players"),
        pytest.param([PlayerTally("Anna"), PlayerTally("Anna")], "players[1].name", "unique", id="same-name"),
        pytest.param(with_anna(track_vp=1.5), "players[0].track_vp", "whole number", id="track-not-whole"),
        pytest.param(with_anna(influence={"wood": 2}), "players[0].influence.wood", "not a terrain",
                     id="unknown-terrain"),
        pytest.param(with_anna(settlements={"gold": -1}), "players[0].settlements.gold", "at least 0",
                     id="negative-settlements"),
        pytest.param(with_anna(mining_tokens=[1]), "players[0].mining_tokens", "terrains",
                     id="terrain-map-not-a-map"),
        pytest.param(with_anna(wanted=-1), "players[0].wanted", "at least 0", id="negative-wanted"),
        pytest.param(with_anna(supply_left=True), "players[0].supply_left", "whole number", id="bool-count"),
        pytest.param(with_anna(largest_group=3, second_group=4), "players[0].second_group",
                     "cannot be larger", id="second-group-larger"),
        pytest.param(with_anna(largest_group=10, wanted=3), "players[0].wanted", "only 12 camps",
                     id="more-camps-than-3-players-have"),
        pytest.param([PlayerTally("Anna", largest_group=9, wanted=2), *(PlayerTally(n) for n in "BCD")],
                     "players[0].wanted", "only 10 camps", id="more-camps-than-4-players-have"),
        pytest.param(with_anna(offices=(OfficeClaim("bank"),)), "players[0].offices[0].office",
                     "no BoomTown office", id="unknown-office"),
        pytest.param(with_anna(offices=(OfficeClaim("saloon"), OfficeClaim("saloon"))),
                     "players[0].offices[1].office", "twice", id="office-twice"),
        pytest.param([PlayerTally("Anna", offices=(OfficeClaim("saloon"), OfficeClaim("mayor"),
                                                   OfficeClaim("deeds"))),
                      PlayerTally("Ben", offices=(OfficeClaim("saloon"), OfficeClaim("depot"),
                                                  OfficeClaim("shipping")))],
                     "players[1].offices[2].office", "fifth", id="five-offices"),
        pytest.param(with_anna(offices=(OfficeClaim("saloon", tokens=3),)), "players[0].offices[0].tokens",
                     "1 or 2", id="three-tokens"),
        pytest.param(with_anna(offices=(OfficeClaim("frontier", count=-2),)), "players[0].offices[0].count",
                     "at least 0", id="negative-office-count"),
        pytest.param(with_anna(offices=(OfficeClaim("frontier", count=13),)), "players[0].offices[0].count",
                     "at most 12 buildings on the map .12 camps with 3 players, 0 of them Wanted., but the "
                     "Frontier office counts 13", id="frontier-counts-more-buildings-than-camps"),
        pytest.param(with_anna(wanted=3, offices=(OfficeClaim("docks", camps=6, settlements=4),)),
                     "players[0].offices[0].camps", "at most 9 buildings on the map",
                     id="docks-beside-wanted"),
        pytest.param(with_anna(offices=(OfficeClaim("saloon", tokens=2),), boomtown_tokens=1),
                     "players[0].boomtown_tokens", "at least 2", id="fewer-boomtown-than-office-tokens"),
    ],
)
def test_refused_tallies_name_the_field(players, path, message):
    with pytest.raises(RulesError, match=message) as caught:
        check_tallies(players)
    assert caught.value.path == path
    with pytest.raises(RulesError):
        final_result(players)


def test_a_tally_stored_before_office_counts_were_checked_is_still_scored():
    players = with_anna(offices=(OfficeClaim("frontier", count=13),))
    with pytest.raises(RulesError, match="at most 12 buildings"):
        final_result(players)
    assert final_result(players, stored=True).players[0].breakdown["offices"] == 13


def test_largest_group_plus_wanted_may_use_every_camp():
    check_tallies(with_anna(largest_group=10, wanted=2))
    check_tallies(with_anna(wanted=2, offices=(OfficeClaim("surveyor", count=10),)))
    check_tallies([PlayerTally("Anna", largest_group=8, wanted=2), *(PlayerTally(n) for n in "BCD")])


# --------------------------------------------------------------------------------------------------
# What only the board shows: not entered (None) is not 0, and is asked for where the scoring needs it


def claimed(office: str, **counts) -> tuple[OfficeClaim, ...]:
    return (OfficeClaim(office, 1, **counts),)


BUILT = {"mining_tokens": {"gold": 2}}  # two buildings on the map


@pytest.mark.parametrize(
    ("anna", "path", "message"),
    [
        pytest.param({"offices": claimed("sheriff", count=None)}, "players[0].offices[0].count",
                     "Enter how many the Sheriff office counts for Anna (1 per building touching an "
                     "opponent's building): Anna has tokens on it.", id="sheriff-count"),
        pytest.param({"offices": claimed("frontier", count=None)}, "players[0].offices[0].count",
                     "Enter how many the Frontier office counts for Anna", id="frontier-count"),
        pytest.param({"offices": claimed("surveyor", count=None)}, "players[0].offices[0].count",
                     "Enter how many the Surveyor office counts for Anna", id="surveyor-count"),
        pytest.param({"offices": claimed("docks", camps=None, settlements=None)},
                     "players[0].offices[0].camps", "Enter Anna's camps and settlements touching water for "
                     "the Docks office: Anna has tokens on it.", id="docks-both"),
        pytest.param({"offices": claimed("docks", camps=2, settlements=None)},
                     "players[0].offices[0].settlements", "touching water for the Docks office",
                     id="docks-settlements"),
        pytest.param({"offices": claimed("depot"), "largest_group": 4, "second_group": None},
                     "players[0].second_group", "Enter how many buildings are in Anna's second-largest group "
                     "(0 if there is none): Anna has tokens on the Depot office, which counts them.",
                     id="depot-second-group"),
        pytest.param({**BUILT, "largest_group": None}, "players[0].largest_group",
                     "Enter how many buildings are in Anna's largest group: Anna has buildings on the map.",
                     id="largest-group-of-buildings"),
        pytest.param({"settlements": {"gold": 1}, "influence": {"gold": 2}, "largest_group": None},
                     "players[0].largest_group", "Anna's largest group", id="largest-group-of-a-settlement"),
        pytest.param({"largest_group": None, "second_group": 2}, "players[0].largest_group",
                     "Anna's largest group", id="largest-group-beside-a-second"),
    ],
)
def test_what_the_scoring_needs_from_the_board_is_asked_for_when_empty(anna, path, message):
    with pytest.raises(gold_west.EntriesMissing, match=re.escape(message)) as caught:
        final_result(with_anna(**anna))
    assert caught.value.path == path
    with pytest.raises(gold_west.EntriesMissing):  # whoever enters it: the API and a stored tally too
        final_result(with_anna(**anna), entered_now=True)


@pytest.mark.parametrize(
    ("anna", "row", "points"),
    [
        pytest.param({"offices": claimed("sheriff", count=0)}, "offices", 0, id="count-0-typed"),
        pytest.param({"offices": claimed("sheriff", count=3)}, "offices", 3, id="count-typed"),
        pytest.param({"offices": claimed("docks", camps=0, settlements=1)}, "offices", 2, id="docks-typed"),
        pytest.param({"offices": claimed("saloon", count=None), "investments": 2}, "offices", 4,
                     id="an-office-counting-no-map-needs-none"),
        pytest.param({"largest_group": None, "second_group": None}, "largest_group", 0,
                     id="no-buildings-no-groups"),
        pytest.param({**BUILT, "largest_group": 2, "second_group": None}, "largest_group", 4,
                     id="second-group-without-the-depot"),
        pytest.param({"offices": claimed("depot"), "largest_group": 4, "second_group": 0}, "offices", 0,
                     id="depot-second-group-0-typed"),
        pytest.param({"supply_left": None}, "track", 0, id="resources-left-no-tie-needs"),
    ],
)
def test_an_empty_count_the_scoring_does_not_need_is_fine_and_a_typed_0_counts(anna, row, points):
    result = final_result(with_anna(track_vp=5, **anna), entered_now=True)
    assert result.players[0].breakdown[row] == points + (5 if row == "track" else 0)


def test_every_number_missing_is_named_at_once():
    players = [PlayerTally("Anna", offices=claimed("frontier", count=None), **BUILT, largest_group=None),
               PlayerTally("Ben", offices=claimed("docks", camps=None, settlements=0))]
    with pytest.raises(gold_west.EntriesMissing) as caught:
        check_tallies(players)
    assert [error.path for error in caught.value.errors] == [
        "players[0].largest_group", "players[0].offices[0].count", "players[1].offices[0].camps"]


@pytest.mark.parametrize(
    ("anna", "refused"),
    [
        pytest.param({**BUILT, "largest_group": 0}, True, id="buildings-in-no-group"),
        pytest.param({"settlements": {"silver": 1}, "influence": {"silver": 2}, "largest_group": 0}, True,
                     id="a-settlement-in-no-group"),
        pytest.param({**BUILT, "largest_group": 1}, False, id="a-group-of-1"),
        pytest.param({"largest_group": 0}, False, id="no-buildings"),
    ],
)
def test_a_largest_group_of_0_is_refused_for_a_player_with_buildings(anna, refused):
    if refused:
        message = "Anna's largest group cannot be 0: the mining tokens and settlements show"
        with pytest.raises(RulesError, match=message) as caught:
            final_result(with_anna(**anna), entered_now=True)
        assert caught.value.path == "players[0].largest_group"
    else:
        final_result(with_anna(**anna), entered_now=True)
    # where 0 is a default, not typed (the API's field left out, a tally stored before), it is scored
    assert final_result(with_anna(**anna)).players[0].breakdown["largest_group"] == 2 * anna["largest_group"]


@pytest.mark.parametrize(
    ("rows", "missing"),
    [
        pytest.param([("Anna", 0, None), ("Ben", 0, None)], "Anna and Ben", id="both-empty"),
        pytest.param([("Anna", 1, 3), ("Ben", 1, None)], "Ben", id="one-empty"),
        pytest.param([("Anna", 1, None), ("Ben", 1, None), ("Cara", 2, 5)], "Anna and Ben",
                     id="two-of-three-level"),
    ],
)
def test_a_tie_the_resources_left_decide_needs_them_entered(rows, missing):
    with pytest.raises(gold_west.EntriesMissing) as caught:
        final_result(tied_players(*rows))
    level = [name for name, wanted, _ in rows if wanted == rows[0][1]]
    assert str(caught.value) == (f"{gold_west.listed(level)} are tied on 20 VP and on camps in the Wanted "
                                 f"area ({rows[0][1]} each): the resources left on the supply track decide. "
                                 f"Enter them for {missing}.")
    assert caught.value.path == "players"


@pytest.mark.parametrize(
    ("rows", "ranks"),
    [
        pytest.param([("Anna", 2, None), ("Ben", 1, None)], [2, 1], id="wanted-decides"),
        pytest.param([("Anna", 1, None), ("Ben", 1, 2), ("Cara", 1, 2)], None, id="level-with-one-empty"),
        pytest.param([("Anna", 0, 0), ("Ben", 0, 0)], [1, 1], id="0-typed-for-both-shares"),
        pytest.param([("Anna", 0, 1), ("Ben", 0, 3), ("Cara", 1, None)], [2, 1, 3],
                     id="a-player-out-of-the-tie-needs-none"),
    ],
)
def test_resources_left_are_needed_only_where_a_tie_needs_them(rows, ranks):
    if ranks is None:
        with pytest.raises(gold_west.EntriesMissing, match=r"Enter them for Anna\."):
            final_result(tied_players(*rows))
        return
    players = tied_players(*rows)
    result = final_result(players)
    assert [player.rank for player in result.players] == ranks
    # stored with the resources left not entered, it scores and ranks the same read back
    payload = gold_west.tally_payload(players)
    assert [entry["supply_left"] for entry in payload["players"]] == [supply for *_, supply in rows]
    assert gold_west.result_from_payload(payload, [name for name, *_ in rows]) == result


def test_the_ledger_leaves_what_only_the_board_shows_empty():
    state = play(2, [("camp", {"seat": 0, "terrain": "gold"}), ("boomtown", {"seat": 0, "office": "sheriff"}),
                     ("boomtown", {"seat": 1, "office": "docks"}),
                     ("boomtown", {"seat": 1, "office": "mayor"})])
    anna, ben = tallies_from_play(state)
    assert (anna.largest_group, anna.second_group, anna.supply_left) == (None, None, None)
    assert anna.offices == (OfficeClaim("sheriff", 1, count=None),)
    assert ben.offices == (OfficeClaim("docks", 1, camps=None, settlements=None), OfficeClaim("mayor", 1))
    with pytest.raises(gold_west.EntriesMissing) as caught:
        final_result([anna, ben])
    assert [error.path for error in caught.value.errors] == [
        "players[0].largest_group", "players[0].offices[0].count", "players[1].offices[0].camps"]


# --------------------------------------------------------------------------------------------------
# The ledger during play


def setup_for(player_count: int, **options) -> PlaySetup:
    names = ("Anna", "Ben", "Cara", "Dan")[:player_count]
    colours = ("red", "blue", "green", "yellow")
    seats = tuple(Seat(name, colour) for name, colour in zip(names, colours, strict=False))
    return PlaySetup(game=GAME.slug, seats=seats, options=options)


def play(player_count: int, events, **options):
    state = initial_state(setup_for(player_count, **options))
    for kind, payload in events:
        state = apply_event(state, kind, payload)
    return state


@pytest.mark.parametrize(
    ("events", "scores"),
    [
        pytest.param([("supply", {"seat": 0, "section": 3}), ("supply", {"seat": 1, "section": 0}),
                      ("supply", {"seat": 2, "section": 2})], (3, 0, 2), id="supply-sections"),
        pytest.param([("loot", {"seat": 1})], (0, -1, 0), id="loot-costs-one"),
        pytest.param([("investment", {"seat": 2, "vp": 7})], (0, 0, 11), id="investment-plus-top-tile"),
        pytest.param([("boomtown_1x1", {"seat": 0})], (4, 0, 0), id="boomtown-1x1"),
        pytest.param([("shipping_line", {"seat": 0, "metal": "gold", "line": 1}),
                      ("shipping_line", {"seat": 0, "metal": "gold", "line": 2}),
                      ("shipping_line", {"seat": 0, "metal": "copper", "line": 1})], (7, 0, 0),
                     id="shipping-points-lines"),
        pytest.param([("shipping_bonus", {"seat": 1, "metal": "gold"}),
                      ("shipping_bonus", {"seat": 0, "metal": "gold"}),
                      ("shipping_bonus", {"seat": 0, "metal": "silver"}),
                      ("shipping_bonus", {"seat": 2, "metal": "copper"}),
                      ("shipping_bonus", {"seat": 1, "metal": "copper"})], (6 + 8, 9 + 4, 7),
                     id="shipping-bonus-first-and-second"),
        pytest.param([("camp", {"seat": 0}), ("camp", {"seat": 1})], (0, 0, 0), id="camps-score-nothing"),
    ],
)
def test_event_points(events, scores):
    assert running_scores(play(3, events)) == scores


@pytest.mark.parametrize(
    ("player_count", "tiles"),
    [(2, (3, 2, 1)), (3, (4, 3, 2, 1)), (4, (5, 4, 3, 2, 1))],
)
def test_investment_bonus_tiles_run_out(player_count, tiles):
    state = initial_state(setup_for(player_count))
    assert state.investment_tiles_left == tiles
    for number, tile in enumerate(tiles):
        before = state.scores[0]
        state = apply_event(state, "investment", {"seat": 0, "vp": 5})
        assert state.scores[0] - before == 5 + tile
        assert state.investment_tiles_left == tiles[number + 1:]
    before = state.scores[1]
    state = apply_event(state, "investment", {"seat": 1, "vp": 10})
    assert state.scores[1] - before == 10  # none left
    assert state.investments[:2] == (len(tiles), 1)
    assert state.investment_tiles[:2] == (tiles, ())


def test_investment_tiles_go_in_purchase_order_across_players():
    state = play(2, [("investment", {"seat": 1, "vp": 6}), ("investment", {"seat": 0, "vp": 9}),
                     ("investment", {"seat": 1, "vp": 12})])
    assert state.investment_tiles == ((2,), (3, 1))
    assert state.scores == (11, 22)


def test_last_turn_comes_when_every_camp_is_placed():
    state = initial_state(setup_for(4))
    assert (state.camps_per_player, state.round_number, state.next_seat) == (10, 1, 0)
    for turn in range(10):
        for seat in range(4):
            assert not state.last_turn
            assert state.next_seat == seat
            kind = "loot" if (turn, seat) == (3, 2) else "camp"
            state = apply_event(state, kind, {"seat": seat})
        assert state.round_number == turn + 2
    assert state.last_turn
    assert state.next_seat is None
    assert state.round_number == 11
    assert sum(state.camps_placed) == 40
    assert state.camps_left == (0, 0, 0, 0)
    assert state.wanted == (0, 0, 1, 0)
    assert state.scores == (0, 0, -1, 0)
    for kind in ("camp", "loot"):
        with pytest.raises(RulesError, match="placed all 10 camps; the last turn has no Build or Loot"):
            apply_event(state, kind, {"seat": 1})
    # The last turn still has its other steps.
    state = apply_event(state, "supply", {"seat": 1, "section": 2})
    assert state.scores[1] == 2


def test_one_player_out_of_camps_is_refused_before_the_last_turn():
    state = play(2, [("camp", {"seat": 0})] * 12)
    assert not state.last_turn
    with pytest.raises(RulesError, match="Anna has placed all 12 camps"):
        apply_event(state, "loot", {"seat": 0})


def test_loot_uses_the_turns_camp():
    state = play(3, [("loot", {"seat": 0}), ("loot", {"seat": 0}), ("camp", {"seat": 0})])
    assert state.camps_placed == (3, 0, 0)
    assert state.wanted == (2, 0, 0)
    assert state.scores == (-2, 0, 0)


def test_trading_post_boomtown_1x1_scores_nothing_and_says_why():
    state = play(2, [("boomtown_1x1", {"seat": 1})], trading_post=True)
    assert state.scores == (0, 0)
    assert state.boomtown_1x1_tokens == (0, 1)
    assert "supply event" in state.note
    state = apply_event(state, "supply", {"seat": 1, "section": 3})
    assert state.scores == (0, 3)
    assert state.note == ""


def test_trading_post_note_repeats_for_each_1x1():
    state = play(2, [("boomtown_1x1", {"seat": 0}), ("boomtown_1x1", {"seat": 1})], trading_post=True)
    assert state.note
    assert state.boomtown_1x1_tokens == (1, 1)


def test_shipping_bonus_tiles_are_counted_per_seat():
    state = play(3, [("shipping_bonus", {"seat": 1, "metal": "gold"}),
                     ("shipping_bonus", {"seat": 1, "metal": "silver"}),
                     ("shipping_bonus", {"seat": 0, "metal": "gold"})])
    assert state.shipping_bonus_tiles == (1, 2, 0)
    assert state.shipping_bonus == ((1, 0), (1,), ())


@pytest.mark.parametrize(
    ("events", "kind", "payload", "path", "message"),
    [
        pytest.param([("shipping_bonus", {"seat": 0, "metal": "gold"}),
                      ("shipping_bonus", {"seat": 1, "metal": "gold"})],
                     "shipping_bonus", {"seat": 2, "metal": "gold"}, "metal", "Both gold shipping bonus",
                     id="third-shipping-bonus"),
        pytest.param([("shipping_bonus", {"seat": 0, "metal": "silver"})],
                     "shipping_bonus", {"seat": 0, "metal": "silver"}, "seat", "Anna already has the silver",
                     id="repeat-shipping-bonus"),
        pytest.param([("shipping_line", {"seat": 2, "metal": "copper", "line": 2})],
                     "shipping_line", {"seat": 2, "metal": "copper", "line": 2}, "line", "already passed",
                     id="repeat-shipping-line"),
        pytest.param([], "shipping_line", {"seat": 0, "metal": "wood", "line": 1}, "metal", "gold, silver",
                     id="shipping-line-unknown-metal"),
        pytest.param([], "shipping_line", {"seat": 0, "metal": "gold", "line": 3}, "line", "1 or 2",
                     id="shipping-line-three"),
        pytest.param([], "supply", {"seat": 0, "section": 4}, "section", "from 0 to 3",
                     id="supply-section-4"),
        pytest.param([], "supply", {"seat": 0, "section": "2"}, "section", "whole number",
                     id="supply-section-text"),
        pytest.param([], "supply", {"seat": 0}, "section", "whole number", id="supply-without-section"),
        pytest.param([], "investment", {"seat": 0, "vp": 4}, "vp", "from 5 to 15", id="investment-too-cheap"),
        pytest.param([], "investment", {"seat": 0, "vp": 16}, "vp", "from 5 to 15", id="investment-too-dear"),
        pytest.param([], "investment", {"seat": 0, "vp": 7.0}, "vp", "whole number", id="investment-float"),
        pytest.param([], "camp", {"seat": 3}, "seat", "Pick one of the players", id="seat-out-of-range"),
        pytest.param([], "camp", {"seat": True}, "seat", "Pick one of the players", id="seat-bool"),
        pytest.param([], "camp", {}, "seat", "Pick one of the players", id="seat-missing"),
        pytest.param([], "camp", [0], "payload", "object", id="payload-not-an-object"),
        pytest.param([], "build", {"seat": 0}, "kind", "no event called 'build'", id="unknown-kind"),
        pytest.param([], None, {"seat": 0}, "kind", "no event called None", id="kind-not-text"),
    ],
)
def test_refused_events(events, kind, payload, path, message):
    state = play(3, events)
    with pytest.raises(RulesError, match=message) as caught:
        apply_event(state, kind, payload)
    assert caught.value.path == path


def test_earlier_states_stay_unchanged():
    first = initial_state(setup_for(2))
    second = apply_event(first, "supply", {"seat": 0, "section": 1})
    assert (first.scores, second.scores) == ((0, 0), (1, 0))


@pytest.mark.parametrize(
    ("setup", "path", "message"),
    [
        pytest.param(PlaySetup("mayflower", setup_for(2).seats), "game", "not Gold West", id="other-game"),
        pytest.param(setup_for(1), "players", "2 to 4 players", id="one-seat"),
        pytest.param(setup_for(3, offices=["saloon", "mayor", "deeds"]), "offices", "Exactly 4",
                     id="three-offices"),
        pytest.param(setup_for(3, offices=["saloon", "mayor", "deeds", "deeds"]), "offices", "Exactly 4",
                     id="repeated-office"),
        pytest.param(setup_for(3, offices=["saloon", "mayor", "deeds", "bank"]), "offices", "office list",
                     id="unknown-office"),
        pytest.param(setup_for(3, offices="saloon"), "offices", "office list", id="offices-not-a-list"),
        pytest.param(setup_for(3, trading_post="yes"), "trading_post", "true or false",
                     id="trading-post-text"),
    ],
)
def test_refused_setups(setup, path, message):
    with pytest.raises(RulesError, match=message) as caught:
        initial_state(setup)
    assert caught.value.path == path


def test_setup_options_are_kept():
    state = initial_state(setup_for(3, offices=["saloon", "mayor", "deeds", "docks"], trading_post=True))
    assert state.offices == ("saloon", "mayor", "deeds", "docks")
    assert state.trading_post
    assert state.camps_per_player == 12


def test_final_tally_starts_from_the_ledger():
    state = play(2, [("loot", {"seat": 0}), ("investment", {"seat": 0, "vp": 8}),
                     ("shipping_bonus", {"seat": 1, "metal": "copper"})])
    anna, ben = tallies_from_play(state)
    assert (anna.name, anna.track_vp, anna.wanted, anna.investments) == ("Anna", 10, 1, 1)
    assert (ben.name, ben.track_vp, ben.shipping_bonus_tiles) == ("Ben", 7, 1)


# --------------------------------------------------------------------------------------------------
# Properties

counts = st.integers(0, 12)


@st.composite
def buildings(draw, camps_left: int) -> dict[str, dict[str, int]]:
    """Settlements, mining tokens and influence per terrain that ``camps_left`` camps can build.

    Each building takes a mining token, a settlement is a building putting 2 influence, a camp 1, and
    investment cards add influence of their own; a terrain without any may be left out.
    """
    maps: dict[str, dict[str, int]] = {"settlements": {}, "mining_tokens": {}, "influence": {}}
    for terrain in draw(st.permutations(TERRAINS)):
        built = draw(st.integers(0, camps_left))
        camps_left -= built
        settled = draw(st.integers(0, built))
        influence = built + settled + draw(st.integers(0, 6))  # camps 1, settlements 2 each
        for name, value in (("settlements", settled), ("mining_tokens", built), ("influence", influence)):
            if value or draw(st.booleans()):
                maps[name][terrain] = value
    return maps


@st.composite
def tallies(draw) -> list[PlayerTally]:
    """Valid final tallies for 2–4 players."""
    player_count = draw(st.integers(2, 4))
    camps = camps_per_player(player_count)
    dealt = draw(st.lists(st.sampled_from(OFFICE_KEYS), max_size=4, unique=True))
    players = []
    spaces_left = dict.fromkeys(dealt, MAX_TOKENS_PER_OFFICE)  # each office has two halves
    shipping_tiles_left = gold_west.SHIPPING_BONUS_TILES_IN_GAME
    for name in ("Anna", "Ben", "Cara", "Dan")[:player_count]:
        largest = draw(st.integers(0, camps))
        second = draw(st.integers(0, min(largest, camps - largest)))
        wanted = draw(st.integers(0, camps - largest - second))
        shipping = draw(st.integers(0, min(gold_west.MAX_SHIPPING_BONUS_TILES, shipping_tiles_left)))
        shipping_tiles_left -= shipping
        open_offices = [key for key in dealt if spaces_left[key]]
        held = draw(st.lists(st.sampled_from(open_offices), unique=True)) if open_offices else []
        on_map = camps - wanted  # what an office counts: buildings, each a camp
        water_camps = [draw(st.integers(0, on_map)) for _ in held]
        offices = tuple(OfficeClaim(key, draw(st.integers(1, spaces_left[key])), draw(st.integers(0, on_map)),
                                    water, draw(st.integers(0, on_map - water)))
                        for key, water in zip(held, water_camps, strict=True))
        for claim in offices:
            spaces_left[claim.office] -= claim.tokens
        players.append(PlayerTally(
            name=name, track_vp=draw(st.integers(-50, 999)), **draw(buildings(camps - wanted)),
            largest_group=largest, second_group=second, wanted=wanted,
            boomtown_tokens=draw(st.none() | st.integers(sum(c.tokens for c in offices), 20)),
            investments=draw(counts), shipping_bonus_tiles=shipping, offices=offices,
            supply_left=draw(counts),
        ))
    return players


@settings(deadline=None)
@given(tallies())
def test_breakdown_adds_up_and_ranks_follow_totals(players):
    result = final_result(players)
    for player in result.players:
        assert set(player.breakdown) == set(GAME.rows)
        assert sum(player.breakdown.values()) == player.total
    for a in result.players:
        for b in result.players:
            if a.total > b.total:
                assert a.rank < b.rank
    assert result.winners == tuple(p.name for p in result.players if p.rank == 1)
    assert set(result.tie_break_notes) <= {p.name for p in result.players}


@settings(deadline=None)
@given(st.sampled_from(TERRAINS), st.integers(2, 4).flatmap(
    lambda n: st.tuples(st.lists(st.integers(0, 8), min_size=n, max_size=n),
                        st.lists(st.integers(0, 3), min_size=n, max_size=n))))
def test_majority_points_never_exceed_first_plus_second(terrain, standing):
    influence, settlements = standing
    majority = terrain_majority(terrain, influence, settlements)
    first_value, second_value = MAJORITY_VALUES[terrain]
    assert sum(majority.points) <= first_value + second_value
    assert all(points == 0 for points, inf in zip(majority.points, influence, strict=True) if inf == 0)


@settings(deadline=None)
@given(tallies(), st.data())
def test_more_influence_never_lowers_a_players_influence_points(players, data):
    index = data.draw(st.integers(0, len(players) - 1))
    terrain = data.draw(st.sampled_from(TERRAINS))
    extra = data.draw(st.integers(1, 5))
    before = final_result(players).players[index].breakdown["influence"]
    more = dict(players[index].influence)
    more[terrain] = more.get(terrain, 0) + extra
    players[index] = replace(players[index], influence=more)
    # Deeds may rise with it; only the influence row is compared.
    assert final_result(players).players[index].breakdown["influence"] >= before


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 20) | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
event_payloads = st.fixed_dictionaries(
    {"seat": st.integers(-1, 4) | json_values},
    optional={"section": st.integers(-1, 4) | json_values, "vp": st.integers(4, 16) | json_values,
              "metal": st.sampled_from(["gold", "silver", "copper", "wood"]) | json_values,
              "line": st.integers(0, 3) | json_values,
              "terrain": st.sampled_from([*TERRAINS, "wood"]) | json_values,
              "office": st.sampled_from([*OFFICE_KEYS, "bank"]) | json_values},
) | json_values


@settings(deadline=None)
@given(st.integers(2, 4), st.booleans(),
       st.lists(st.tuples(st.sampled_from([*gold_west.EVENT_KINDS, "build"]), event_payloads), max_size=40))
def test_any_event_sequence_folds_or_is_refused_with_a_rules_error(player_count, trading_post, events):
    state = initial_state(setup_for(player_count, trading_post=trading_post))
    tiles = len(state.investment_tiles_left)
    for kind, payload in events:
        try:
            state = apply_event(state, kind, payload)
        except RulesError:
            continue
        assert all(w <= c <= state.camps_per_player for w, c in zip(state.wanted, state.camps_placed,
                                                                      strict=True))
        assert len(state.investment_tiles_left) + sum(map(len, state.investment_tiles)) == tiles
        assert all(len(set(crossed)) == len(crossed) <= 2 for crossed in state.shipping_bonus)
        assert sum(state.shipping_bonus_tiles) == sum(map(len, state.shipping_bonus))
        assert state.buildings_without_terrain >= 0
        placed = [office for tokens in state.office_tokens for office in tokens]
        assert all(placed.count(office) <= MAX_TOKENS_PER_OFFICE for office in placed)
    assert len(running_scores(state)) == player_count


# --------------------------------------------------------------------------------------------------
# What the ledger screen offers, and the final tally as a finished play keeps it


def test_camps_per_player_count_for_the_new_play_page():
    assert gold_west.CAMPS_BY_PLAYER_COUNT == {2: 12, 3: 12, 4: 10}


def test_open_shipping_lines_are_the_next_line_of_each_track():
    # copper's line 2 before its line 1: a log stored before the ledger kept the order still replays
    state = play(2, [("shipping_line", {"seat": 0, "metal": "gold", "line": 1}),
                     ("shipping_line", {"seat": 0, "metal": "copper", "line": 2})])
    assert [(s.key, s.points) for s in gold_west.shipping_lines_open(state, 0)] == [
        ("gold-2", 3), ("silver-1", 2), ("copper-1", 2)]
    assert [s.key for s in gold_west.shipping_lines_open(state, 1)] == ["gold-1", "silver-1", "copper-1"]
    gold_west.check_line_order(state, "shipping_line", {"seat": 0, "metal": "gold", "line": 2})
    with pytest.raises(RulesError) as caught:
        gold_west.check_line_order(state, "shipping_line", {"seat": 1, "metal": "gold", "line": 2})
    assert caught.value.path == "line"


ANNA_INVESTS = ("investment", {"seat": 0, "vp": 8})


@pytest.mark.parametrize(("before", "kind", "asked"), [
    pytest.param([ANNA_INVESTS], "investment", True, id="a-second-investment"),
    pytest.param([ANNA_INVESTS, ("camp", {"seat": 1})], "investment", True,
                 id="another-seats-turn-ends-not-hers"),
    pytest.param([ANNA_INVESTS, ("camp", {"seat": 0})], "investment", False, id="her-camp-ended-the-turn"),
    pytest.param([("investment", {"seat": 1, "vp": 8})], "investment", False, id="another-seats-investment"),
    pytest.param([("boomtown_1x1", {"seat": 0})], "boomtown", True, id="an-office-after-the-1x1-space"),
    pytest.param([ANNA_INVESTS], "boomtown_1x1", False, id="boomtown-after-an-investment"),
    pytest.param([("shipping_line", {"seat": 0, "metal": "gold", "line": 1})], "shipping_line", False,
                 id="not-limited-here"),
])
def test_a_second_investment_or_boomtown_use_in_a_turn_is_asked_about(before, kind, asked):
    state = play(2, before)
    if asked:
        with pytest.raises(gold_west.AgainThisTurn) as caught:
            gold_west.check_once_a_turn(state, kind, 0)
        assert caught.value.seat == 0 and "Anna has" in str(caught.value)
    else:
        gold_west.check_once_a_turn(state, kind, 0)


ANNA_SUPPLY, ANNA_CAMP, BEN_CAMP = (("supply", {"seat": 0, "section": 2}), ("camp", {"seat": 0}),
                                    ("camp", {"seat": 1}))


@pytest.mark.parametrize(("before", "trading_post", "asked"), [
    pytest.param([], False, None, id="the-turns-token"),
    pytest.param([ANNA_SUPPLY], False, "this turn already", id="a-second-token"),
    pytest.param([ANNA_SUPPLY, ANNA_CAMP, BEN_CAMP], False, None, id="the-next-turns-token"),
    pytest.param([ANNA_SUPPLY, BEN_CAMP], False, "this turn already", id="another-seats-turn-ends-not-hers"),
    pytest.param([ANNA_SUPPLY, ("boomtown_1x1", {"seat": 0})], True, None, id="the-trading-posts-resource"),
    pytest.param([ANNA_SUPPLY, ("boomtown_1x1", {"seat": 0})], False, "this turn already",
                 id="the-1x1-space-gives-points-without-the-trading-post"),
    pytest.param([ANNA_SUPPLY, ANNA_CAMP, BEN_CAMP] * 12, False, "no mining token is left",
                 id="every-camp-placed"),
    # the rulebook's order: the camp (or loot) that ends the turn, then its token on the supply track
    pytest.param([BEN_CAMP, ANNA_CAMP], False, None, id="after-the-camp"),
    pytest.param([BEN_CAMP, ANNA_CAMP, ANNA_SUPPLY], False, "this turn already",
                 id="a-second-after-the-camp"),
    pytest.param([BEN_CAMP, ANNA_SUPPLY, ANNA_CAMP], False, "this turn already",
                 id="before-and-after-the-camp"),
    pytest.param([BEN_CAMP, ANNA_CAMP] * 12, False, None, id="after-the-last-camp"),
    pytest.param([ANNA_CAMP, ANNA_SUPPLY, BEN_CAMP], False, None, id="the-next-turns-token-after-that"),
    pytest.param([ANNA_CAMP, ANNA_SUPPLY, BEN_CAMP, ANNA_SUPPLY], False, "this turn already",
                 id="and-its-second"),
    pytest.param([ANNA_CAMP, BEN_CAMP, ("loot", {"seat": 0})], False, None, id="after-a-loot"),
    pytest.param([ANNA_CAMP, BEN_CAMP, ("loot", {"seat": 0}), ("boomtown_1x1", {"seat": 0}), ANNA_SUPPLY],
                 True, None, id="the-trading-posts-resource-after-the-loot"),
    pytest.param([*[ANNA_SUPPLY, ANNA_CAMP, BEN_CAMP] * 12, ("boomtown_1x1", {"seat": 0})], True, None,
                 id="the-trading-posts-resource-in-the-last-turn"),
])
def test_a_supply_track_placement_beyond_the_turns_mining_token_is_asked_about(before, trading_post, asked):
    """One mining token a Build/Loot turn, its resources entered before the camp or loot that ends the
    turn (the reference game's order) or right after it (the rulebook's); none once every camp is placed;
    with the Trading Post, the 1×1 space's resource may go on the supply track too."""
    state = play(2, before, trading_post=trading_post)
    if asked:
        with pytest.raises(gold_west.AgainThisTurn) as caught:
            gold_west.check_once_a_turn(state, "supply", 0)
        assert caught.value.seat == 0 and asked in str(caught.value)
    else:
        gold_west.check_once_a_turn(state, "supply", 0)


@pytest.mark.parametrize(("before", "trading_post", "offered"), [
    pytest.param([], False, (True, True), id="camps-left"),
    pytest.param([BEN_CAMP, ANNA_CAMP] * 12, False, (True, False), id="the-last-camps-token-is-due"),
    pytest.param([*[BEN_CAMP, ANNA_CAMP] * 12, ANNA_SUPPLY], False, (False, False),
                 id="the-last-camps-token-entered"),
    pytest.param([ANNA_SUPPLY, ANNA_CAMP, BEN_CAMP] * 12, False, (False, True),
                 id="entered-before-the-last-camp"),
    pytest.param([*[ANNA_CAMP, BEN_CAMP] * 11, ANNA_CAMP, ("loot", {"seat": 1})], False, (False, True),
                 id="the-last-loots-token-is-due"),
    pytest.param([ANNA_SUPPLY, ANNA_CAMP, BEN_CAMP] * 12, True, (True, True),
                 id="the-trading-posts-resource-in-the-last-turn"),
])
def test_the_ledger_offers_the_supply_track_while_a_mining_token_is_due(before, trading_post, offered):
    """Every turn with a camp left has a mining token, the last camp's or loot's too (entered after it, in
    the rulebook's order); with the Trading Post the 1×1 space gives resources in the last turn as well."""
    state = play(2, before, trading_post=trading_post)
    assert gold_west.ledger_screen(state).supply_open == offered


def test_open_shipping_bonuses_offer_the_next_tile_of_each_metal():
    state = play(3, [("shipping_bonus", {"seat": 0, "metal": "gold"}),
                     ("shipping_bonus", {"seat": 1, "metal": "silver"}),
                     ("shipping_bonus", {"seat": 2, "metal": "silver"})])
    assert [(s.metal, s.points) for s in gold_west.shipping_bonuses_open(state, 0)] == [("copper", 7)]
    assert [(s.metal, s.points) for s in gold_west.shipping_bonuses_open(state, 1)] == [("gold", 6),
                                                                                         ("copper", 7)]
    tracks = gold_west.shipping_bonus_tracks(state)
    assert [(t.metal, t.taken, t.left) for t in tracks] == [
        ("gold", ((0, 9),), (6,)), ("silver", ((1, 8), (2, 5)), ()), ("copper", (), (7, 4))]


def test_next_investment_tile_until_they_run_out():
    state = initial_state(setup_for(2))
    taken = []
    while state.next_investment_tile is not None:
        taken.append(state.next_investment_tile)
        state = apply_event(state, "investment", {"seat": 0, "vp": 5})
    assert taken == [3, 2, 1]


BENS_CARD = ("investment", {"seat": 1, "vp": 5})
ANNAS_PHONE, OTHER_PHONE = 7, 8


@pytest.mark.parametrize(("before", "since", "asked"), [
    pytest.param(0, 1, "Ben took the +3 investment tile since this page was drawn. "
                 "Record Anna's investment with the +2 tile?", id="the-first-tile"),
    pytest.param(2, 2, "Ben took the +1 investment tile since this page was drawn. "
                 "Record Anna's investment without a tile?", id="the-last-tile-then-a-card-alone"),
    pytest.param(0, 7, "Ben took the +3 investment tile since this page was drawn. "
                 "Record Anna's investment without a tile?", id="more-cards-since-than-tiles"),
    pytest.param(3, 1, None, id="the-page-showed-no-tile-left"),
])
def test_an_investment_tap_is_asked_about_the_tile_its_page_showed(before, since, asked):
    """2 players, tiles +3, +2, +1: Ben bought ``before`` cards before Anna's page was drawn and ``since``
    after, from another phone; her tap is asked about only when her page showed a tile she no longer gets."""
    entries = [(*BENS_CARD, version, OTHER_PHONE) for version in range(1, before + since + 1)]
    state = play(2, [(kind, payload) for kind, payload, _version, _phone in entries])
    tap = ("investment", {"seat": 0, "vp": 5})
    if asked is None:
        gold_west.check_entered_since(state, entries, before, ANNAS_PHONE, *tap)
        return
    with pytest.raises(gold_west.TileTakenSince) as question:
        gold_west.check_entered_since(state, entries, before, ANNAS_PHONE, *tap)
    assert question.value.message == asked


@pytest.mark.parametrize(
    ("dealt", "keys"),
    [
        pytest.param(("mayor", "docks", "saloon", "deeds"), ("mayor", "docks", "saloon", "deeds"),
                     id="dealt"),
        pytest.param((), OFFICE_KEYS, id="not-recorded-asks-all-twelve"),
    ],
)
def test_offices_in_play(dealt, keys):
    assert tuple(office.key for office in gold_west.offices_in_play(dealt)) == keys


def test_final_tally_takes_hand_corrections_and_the_1x1_tokens_from_the_ledger():
    state = play(2, [("boomtown_1x1", {"seat": 1}), ("boomtown_1x1", {"seat": 1})])
    anna, ben = tallies_from_play(state, (3, -2))
    assert (anna.track_vp, ben.track_vp) == (3, 6)
    assert (anna.boomtown_1x1_tokens, ben.boomtown_1x1_tokens) == (0, 2)


def test_mayor_counts_the_tokens_on_the_1x1_space_too():
    mayor = PlayerTally(name="Ben", offices=(OfficeClaim("mayor"),), boomtown_1x1_tokens=2)
    assert mayor.tokens_in_boomtown == 3
    assert final_result([mayor, PlayerTally(name="Anna")]).players[0].breakdown["offices"] == 3
    with pytest.raises(RulesError, match="boomtown 1x1 tokens") as caught:
        check_tallies([replace(mayor, boomtown_1x1_tokens=-1), PlayerTally(name="Anna")])
    assert caught.value.path == "players[0].boomtown_1x1_tokens"


@settings(deadline=None)
@given(tallies())
def test_a_stored_final_tally_scores_the_same_when_read_back(players):
    payload = gold_west.tally_payload(players)
    names = [player.name for player in players]
    assert gold_west.result_from_payload(payload, names) == final_result(players)


def test_a_stored_final_tally_takes_the_seat_names_of_today():
    payload = gold_west.tally_payload(example_7_tallies())
    result = gold_west.result_from_payload(payload, ["Anne", "Benjamin", "Cara"])
    assert [(p.name, p.total) for p in result.players] == [("Anne", 63), ("Benjamin", 65), ("Cara", 0)]


@pytest.mark.parametrize(
    ("payload", "path"),
    [
        pytest.param({"totals": [3, 4]}, "players", id="generic-total-per-player"),
        pytest.param({"players": [{}]}, "players", id="too-few-seats"),
        pytest.param({"players": [{}, {"bank": 3}]}, "players[1]", id="unknown-field"),
        pytest.param({"players": [{}, []]}, "players[1]", id="tally-not-an-object"),
        pytest.param({"players": [{"offices": [{"tokens": 1}]}, {}]}, "players[0].offices",
                     id="office-unnamed"),
        pytest.param({"players": [{"offices": [{"office": "mayor", "x": 1}]}, {}]}, "players[0].offices",
                     id="office-unknown-field"),
        pytest.param({"players": [{"offices": {"office": "mayor"}}, {}]}, "players[0].offices",
                     id="offices-not-a-list"),
        pytest.param({"players": [{"wanted": "2"}, {}]}, "players[0].wanted", id="text-count"),
        pytest.param({"players": [{"influence": {"forest": 1.5}}, {}]}, "players[0].influence.forest",
                     id="float-influence"),
        pytest.param({"players": [{"offices": [{"office": 7}]}, {}]}, "players[0].offices[0].office",
                     id="office-not-text"),
        pytest.param([], "players", id="payload-not-an-object"),
    ],
)
def test_a_final_tally_that_is_not_one_is_refused(payload, path):
    with pytest.raises(RulesError) as caught:
        gold_west.result_from_payload(payload, ["Anna", "Ben"])
    assert caught.value.path == path


small_values = st.integers(-3, 14) | json_values
claim_entries = st.dictionaries(st.sampled_from(["office", "tokens", "count", "camps", "settlements", "x"]),
                                st.sampled_from(OFFICE_KEYS) | small_values, max_size=5)
tally_entries = st.dictionaries(
    st.sampled_from(["track_vp", "largest_group", "second_group", "wanted", "boomtown_tokens", "investments",
                     "shipping_bonus_tiles", "supply_left", "boomtown_1x1_tokens", "influence",
                     "settlements", "mining_tokens", "offices"]),
    small_values | st.dictionaries(st.sampled_from([*TERRAINS, "wood"]), small_values, max_size=4)
    | st.lists(claim_entries, max_size=5),
    max_size=8,
)


@settings(deadline=None)
@given(st.fixed_dictionaries({"players": st.lists(tally_entries | json_values, min_size=2, max_size=2)})
       | st.fixed_dictionaries({"players": st.lists(json_values, max_size=3)}) | json_values)
def test_any_stored_payload_is_scored_or_refused_with_a_rules_error(payload):
    try:
        result = gold_west.result_from_payload(payload, ["Anna", "Ben"])
    except RulesError:
        return
    assert [player.name for player in result.players] == ["Anna", "Ben"]


@pytest.mark.parametrize(("payload", "seats", "expected"), [
    ({"players": [{"wanted": 2, "supply_left": 1}, {"wanted": 0, "supply_left": 4}]}, 2, [(-2, 1), (0, 4)]),
    ({"players": [{}, {"wanted": 1}]}, 2, [(0, 0), (-1, 0)]),
    # closed with totals only, before tie-breakers were typed; the last: the winners an import names
    ({"totals": [3, 4]}, 2, [(0, 0, False), (0, 0, False)]),
    ({"totals": [3, 3], "wanted": [1, 0], "supply_left": [None, 2]}, 2, [(-1, 0, False), (0, 2, False)]),
    ({"totals": [3, 3], "wanted": ["1", 0], "supply_left": [2]}, 2, [(0, 0, False), (0, 0, False)]),
    ({"totals": [3, 3, 3], "winners": [2]}, 3, [(0, 0, False), (0, 0, False), (0, 0, True)]),
    ({"totals": [3, 3], "winners": ["1", 7]}, 2, [(0, 0, False), (0, 0, False)]),
    ({"players": [{"wanted": "2"}, {}]}, 2, [(0, 0, False), (0, 0, False)]),
    ({"players": [{}]}, 2, [(0, 0, False), (0, 0, False)]),
], ids=["recorded", "defaults", "totals-only", "totals-with-tie-breakers", "totals-with-nonsense",
        "imported-winner", "imported-nonsense", "not-a-number", "wrong-seat-count"])
def test_tie_breakers_read_back_from_a_stored_final_tally(payload, seats, expected):
    assert gold_west.final_tie_breakers(None, payload, seats) == expected


TIED_NAMES = ["Anna", "Ben", "Cara"]


@pytest.mark.parametrize(("wanted", "totals", "supply_left", "expected"), [
    ((0, 0, 0), [40, 40, 30], None,
     "Anna and Ben are tied on 40 VP and on camps in the Wanted area (0 each): the resources left on the "
     "supply track decide. Enter them for Anna and Ben."),
    ((0, 0, 0), [40, 40, 30], [None, 2, None],
     "Anna and Ben are tied on 40 VP and on camps in the Wanted area (0 each): the resources left on the "
     "supply track decide. Enter them for Anna."),
    ((1, 0, 0), [40, 40, 30], None, [2, 1, 3]),
    ((0, 0, 0), [40, 40, 30], [3, 1, None], [1, 2, 3]),
    ((0, 0, 0), [40, 40, 30], [2, 2, None], [1, 1, 3]),
    ((0, 0, 0), [40, 39, 30], None, [1, 2, 3]),
], ids=["asked", "one-missing", "wanted-decides", "resources-decide", "still-tied", "no-tie"])
def test_typed_totals_tied_on_vp_and_wanted_ask_the_resources_left(wanted, totals, supply_left, expected):
    setup = PlaySetup("gold-west", tuple(Seat(name, "red") for name in TIED_NAMES), {})
    state = replace(gold_west.initial_state(setup), wanted=wanted)  # the Wanted camps the ledger counted
    payload = {"totals": totals, **({"supply_left": supply_left} if supply_left else {})}
    if isinstance(expected, str):
        with pytest.raises(RulesError) as refused:
            gold_west.check_typed_totals(state, payload, TIED_NAMES)
        assert str(refused.value.message) == expected
        return
    gold_west.check_typed_totals(state, payload, TIED_NAMES)
    ranked = common.rank_players("gold-west", ("total",), [
        (name, {"total": total}) for name, total in zip(TIED_NAMES, totals, strict=True)],
        gold_west.final_tie_breakers(state, payload, 3))
    assert [player.rank for player in ranked.players] == expected


@pytest.mark.parametrize(("payload", "note"), [
    ({"totals": [40, 40], "wanted": [1, 0]},
     "Anna and Ben tied on 40 VP; by fewest camps in the Wanted area (Anna 1, Ben 0): Ben 1st; Anna 2nd."),
    # a stored tally (a backup, say) without Anna's resources left: ranked, and said, as 0
    ({"totals": [40, 40], "supply_left": [None, 2]},
     "Anna and Ben tied on 40 VP; by most resources left on the supply track (Anna 0, Ben 2): Ben 1st; "
     "Anna 2nd."),
    ({"totals": [40, 40]}, None),
    # an imported play: BG Stats keeps no tie-breakers, but marks how the table broke the tie
    ({"totals": [40, 40], "winners": [1], "imported_from": "BG Stats"},
     "Anna and Ben tied on 40 VP; by the winner recorded in BG Stats (Ben): Ben 1st; Anna 2nd."),
    ({"totals": [40, 40], "wanted": [1, 1], "supply_left": [2, 3], "winners": [0]},
     "Anna and Ben tied on 40 VP; by most resources left on the supply track (Anna 2, Ben 3): Ben 1st; "
     "Anna 2nd."),
    ({"totals": [40, 40], "wanted": [0, 1], "supply_left": [3, 3], "winners": [0]},
     "Anna and Ben tied on 40 VP; by fewest camps in the Wanted area (Anna 0, Ben 1): Anna 1st; Ben 2nd."),
    ({"totals": [40, 40], "winners": [0, 1], "imported_from": "BG Stats"}, None),
], ids=["wanted", "resources-left-missing", "shared", "imported-winner", "rules-before-import",
        "wanted-and-import-agree", "imported-shared"])
def test_typed_totals_say_which_tie_breaker_ranked_a_tie(payload, note):
    result = gold_west.typed_totals_result(None, payload, ["Anna", "Ben"], payload["totals"])
    assert [str(n) for n in result.tie_break_notes.values()] == ([note] if note else [])
    assert result.majorities == ()


# --- corrections of a finished tally: rows an end scoring could give ---------------------------------------

def sheet(**rows: int) -> dict[str, int]:
    """A result's rows: worked example 7's Anna, changed where given."""
    return {"track": 41, "largest_group": 10, "offices": 6, "wanted": -2, "influence": 8, **rows}


@pytest.mark.parametrize(("anna", "ben", "path", "says"), [
    pytest.param(sheet(), sheet(track=50), None, None, id="worked-example"),
    pytest.param(sheet(track=-3, largest_group=0, offices=0, wanted=-12, influence=0), sheet(), None, None,
                 id="a-track-below-0-and-rows-at-0"),
    pytest.param({"total": 40}, {"total": 38}, None, None, id="totals-only"),
    pytest.param(sheet(wanted=2), sheet(), "wanted",
                 "Anna: the row “wanted” is a penalty and cannot be above 0.", id="a-wanted-bonus"),
    pytest.param(sheet(), sheet(largest_group=9), "largest_group",
                 "Ben: the row “largest_group” scores 2 VP per building, 0 or more, not 9.",
                 id="an-odd-largest-group"),
    pytest.param(sheet(largest_group=-2), sheet(), "largest_group", "0 or more, not -2.",
                 id="a-negative-largest-group"),
    pytest.param(sheet(), sheet(offices=-1), "offices", "Ben: the row “offices” cannot be below 0.",
                 id="negative-offices"),
    pytest.param(sheet(influence=-4), sheet(), "influence", "Anna: the row “influence” cannot be below 0.",
                 id="negative-influence"),
])
def test_a_correction_gives_only_rows_some_end_scoring_could_give(anna, ben, path, says):
    """The track has no floor; offices and majorities only add, Wanted only takes away, and the largest
    group scores 2 VP per building."""
    if says is None:
        gold_west.check_corrected_tally(None, None, ["Anna", "Ben"], [anna, ben])
        return
    with pytest.raises(RulesError) as caught:
        gold_west.check_corrected_tally(None, None, ["Anna", "Ben"], [anna, ben])
    assert caught.value.path == path and says in str(caught.value)
