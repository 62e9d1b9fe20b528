"""Carcassonne – Mayflower's reference game on one phone: the strip is the input.

A placement is the column on the strip and the role: the offered player's role button, or for anyone
else the role button in that player's own row; a completion is its settlers on the strip (a tile's second
feature: "and another feature", then its settlers), each size that differs from its preset value,
and Score. Sizes one step from the preset take the stepper's − or +; further ones are typed.
After every entry the page must show each player's running score as the reference game expects.
"""

from __future__ import annotations

from collections.abc import Callable

from bench.taps import Counter, Mismatch, Phone, Session, expect_text

GAME_NAME = "Carcassonne – Mayflower"
COLOURS = ("red", "blue", "green", "yellow", "black")
PRESET_SIZES = {"tiles": 1, "trading_posts": 0, "flags": 0}  # the completion form's preset values
TABLE_ACTIONS = ("placement", "completion", "west edge")


def play(session: Session) -> str:
    """Set up the reference game's group and play, play it on one phone, and return its line."""
    game = session.reference("mayflower")
    phone = session.new_phone()
    players = list(zip(game["players"], COLOURS, strict=False))
    group_url = session.create_group(phone, "Mayflower night", players)
    session.start_play(phone, group_url, GAME_NAME)
    scrolls_before_final = play_reference_game(phone, game)
    final_scrolls = phone.counter.scrolls - scrolls_before_final
    return line(phone.counter) + "\n" + final_line(phone.counter, final_scrolls)


def line(counter: Counter) -> str:
    """``taps mayflower: <total> (<per placement> per placement, <per completion> per completion, ...)``."""
    return (f"taps mayflower: {counter.taps} ({counter.per('placement'):.1f} per placement, "
            f"{counter.per('completion'):.1f} per completion, {counter.scrolls} scrolls)")


def final_line(counter: Counter, scrolls: int) -> str:
    """``taps mayflower final: <total> (<per feature> per feature, <scrolls> scrolls)``."""
    total = sum(counter.entries("final tally")) + sum(counter.entries("final feature"))
    per_feature = counter.per("final feature")
    return f"taps mayflower final: {total} ({per_feature:.1f} per feature, {scrolls} scrolls)"


def completion_target(step: dict) -> int:
    """The issue's target for a completion: 2 taps, one per settler, one per size changed from its preset.

    A tile's later features each add their "and another feature" tap.
    """
    features = step["features"]
    settlers = sum(len(feature["settlers"]) for feature in features)
    changed = sum(feature.get(name, preset) != preset for feature in features if feature["kind"] != "farm"
                  for name, preset in PRESET_SIZES.items())
    return 2 + settlers + changed + len(features) - 1


def play_reference_game(phone: Phone, game: dict, before_score: Callable[[dict], None] | None = None) -> int:
    """From the open play page: every step of the reference game, the final tally, and the result page.

    ``before_score`` looks at the page of each completion, filled in, before Score is tapped.
    Returns the scrolls counted before the final tally, so that its own can be told apart.
    """
    players = game["players"]
    scrolls_before_final = 0
    for number, step in enumerate(game["steps"], start=1):
        action = step["action"]
        try:
            if action == "place":
                with phone.action("placement"):
                    place(phone, step)
            elif action == "west_edge":
                with phone.action("west edge"):
                    set_west_edge(phone, step["column"])
            elif action == "complete":
                with phone.action("completion"):
                    fill_completion(phone, step["features"])
                    if before_score is not None:
                        before_score(step)
                    # Score only once the preview's answer is in: the box changes size then, and a tap
                    # meant for Score would land on whatever it moved there
                    wait_for_the_preview(phone)
                    phone.submit(_table(phone).get_by_role("button", name="Score"))
                    answer_west_questions(phone, step["west_edge"])
                check_scoring(phone, players, step["expect"])
            elif action == "final":
                scrolls_before_final = phone.counter.scrolls
                final_tally(phone, players, step)
            else:
                raise Mismatch(f"unknown action {action!r}")
        except Mismatch as error:
            raise Mismatch(f"step {number} ({action}): {error}") from error
    return scrolls_before_final


def _table(phone: Phone):
    return phone.page.locator("#mf-table")


def place(phone: Phone, step: dict) -> None:
    """The column on the strip, then the role: the offered player's button, or another player's own one."""
    table = _table(phone)
    offered = table.locator(f'.mf-turn input[value="{step["seat"]}"]').is_checked()
    phone.tap(table.locator(f'label.mf-colpick:has(input[value="{step["column"]}"])'))
    if offered:
        phone.submit(table.locator(f'button.mf-role[value="{step["role"]}"]'))
    else:
        phone.submit(table.locator(f'button.mf-other[value="{step["seat"]}:{step["role"]}"]'))
    expect_text(table.locator(".mf-strip"), f"{game_name_of(phone, step['seat'])} · {step['role']} · column "
                                            f"{step['column']}")


def game_name_of(phone: Phone, seat: int) -> str:
    """The name of the player in ``seat``, as the turn buttons show it."""
    return phone.page.locator(f'.mf-turn label:has(input[value="{seat}"]) .mf-who').inner_text().strip()


def set_west_edge(phone: Phone, column: int) -> None:
    """The button that says so (it ends where it is, or tiles reach one column further), else typed."""
    table = _table(phone)
    button = table.locator(f'.mf-edge button[value="{column}"]')
    if button.count():
        phone.submit(button)
    else:
        west = phone.page.locator("#mf-west")
        phone.fill(west.get_by_label("Westernmost column with a tile"), str(column))
        phone.submit(west.get_by_role("button", name="Update the map"))
    expect_text(phone.page.locator("#mf-settlers"), f"The map reaches column {column}.")


def _sizes(phone: Phone, scope, feature: dict, number: int) -> None:
    """Set each size that differs from its preset: one stepper tap for one step, else typed."""
    if feature["kind"] == "farm":
        return
    names = ("tiles", "trading_posts") if feature["kind"] == "road" else ("tiles", "flags")
    for name in names:
        value, preset = feature.get(name, PRESET_SIZES[name]), PRESET_SIZES[name]
        field_id = f"complete-feature_{number}-{name}"
        if value == preset:
            continue
        step = 1 if value > preset else -1
        stepper = scope.locator(f'button.step[aria-controls="{field_id}"][data-step="{step}"]')
        if abs(value - preset) == 1 and stepper.is_visible():  # the steppers come with the page script
            phone.tap(stepper)
        else:
            phone.fill(scope.locator(f"#{field_id}"), str(value))


def fill_completion(phone: Phone, features: list[dict]) -> None:
    """The first feature's settlers on the strip, later ones in their short lists; their sizes."""
    table = _table(phone)
    for number, feature in enumerate(features, start=1):
        if number == 1:
            for settler in feature["settlers"]:
                phone.tap(table.locator(f'.mf-strip label.mf-tick:has(input[value="{settler}"])'))
            _sizes(phone, table, feature, number)
        else:
            more = table.locator(f"#mf-feature-{number}")
            phone.tap(more.locator("summary"))
            for settler in feature["settlers"]:
                listed = more.locator(f'label.mf-pick:has(input[value="{settler}"])')
                # with the page script the strip takes the open feature's settlers; without, its list
                on_strip = table.locator(f'.mf-strip label.mf-tick:has(input[value="{settler}"])')
                phone.tap(listed if listed.is_visible() else on_strip)
            _sizes(phone, more, feature, number)


def wait_for_the_preview(phone: Phone) -> None:
    """Until the completion's preview has its answer (``aria-busy`` gone; never set without the script)."""
    from playwright.sync_api import expect as playwright_expect

    playwright_expect(phone.page.locator('#mf-preview[aria-busy="true"]')).to_have_count(0)


def answer_west_questions(phone: Phone, west_edge: int) -> None:
    """Answer "Is there a tile west of column N?" as the map of the step is, each time the page asks.

    A table that says where the map ends is never asked; one that does not answers here, one tap each.
    """
    question = phone.page.locator("#mf-west-question")
    while question.count():
        column = int(question.locator("button").first.get_attribute("value").split(":")[0])
        answer = "yes" if west_edge > column else "no"
        phone.submit(question.locator(f'button[value="{column}:{answer}"]'))


def check_scoring(phone: Phone, players: list[str], expect: dict) -> None:
    """Each player's running score on the turn buttons, and each scorer's points in the scoring's line."""
    table = _table(phone)
    for seat, score in enumerate(expect["scores_after"]):
        expect_text(table.locator(f'.mf-turn label:has(input[value="{seat}"]) .mf-track'), str(score))
    news = table.locator(".mf-news")
    for feature in expect["features"]:
        for name, points in feature["points"].items():
            if points:
                expect_text(news, f"{name} +{points}")
        for settler in feature["evicted"]:
            seat = int(settler.split("-")[0])
            expect_text(news, f"{players[seat]}'s")


FINAL_PRESETS = {"tiles": 1, "trading_posts": 0, "flags": 0, "neighbours": 0, "animals": 0}


def final_tally(phone: Phone, players: list[str], step: dict) -> None:
    """Open the final tally; per unfinished feature, as the page names it by its first settler: the
    others on it, its sizes, "and another feature" (the last one: "Show the result")."""
    page = phone.page
    with phone.action("final tally", scrolls=False):  # from the play page, wherever it was left
        phone.submit(page.get_by_role("link", name="Final tally"))
    left = list(step["features"])
    while left:
        with phone.action("final feature"):
            now = page.locator(".mf-final-now")
            named = now.locator('input[type="hidden"][name="settlers"]').get_attribute("value")
            feature = next(f for f in left if named in f["settler_ids"])
            left.remove(feature)
            for settler in feature["settler_ids"]:
                if settler != named:
                    phone.tap(now.locator(f'label.mf-final-pick:has(input[value="{settler}"])'))
            for name, preset in FINAL_PRESETS.items():
                value = feature.get(name, preset)
                if name not in feature or value == preset:
                    continue
                step_by = 1 if value > preset else -1
                stepper = now.locator(f'button.step[aria-controls="{name}"][data-step="{step_by}"]')
                if abs(value - preset) == 1 and stepper.is_visible():
                    phone.tap(stepper)
                else:
                    phone.fill(now.locator(f"#{name}"), str(value))
            phone.submit(now.get_by_role("button", name="and another feature" if left else "Show the result"))
    expect = step["expect"]
    ranking = page.locator("ol.ranking")
    for seat, total in enumerate(expect["totals"]):
        expect_text(ranking.locator("li", has_text=players[seat]), str(total))
    winners = expect["winners"]
    banner = (f"{winners[0]} wins!" if len(winners) == 1 else f"Shared victory: {', '.join(winners)}")
    expect_text(page.locator(".winner-banner"), banner)
