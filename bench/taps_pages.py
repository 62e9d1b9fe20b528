"""What the Gold West and Great Western Trail plays check on the pages: the scoreboard and the result."""

from __future__ import annotations

from bench.taps import Mismatch, Phone, expect_text


def expect_scoreboard(phone: Phone, players: list[str], scores: list[int],
                      what: str = "running score") -> None:
    """The play page's scoreboard shows each player's score; Mismatch names the first one it does not."""
    from playwright.sync_api import Error
    from playwright.sync_api import expect as playwright_expect

    rows = phone.page.locator("table.scoreboard tbody tr")
    for seat, score in enumerate(scores):
        try:
            playwright_expect(rows.nth(seat).locator("td.num")).to_have_text(str(score))
        except (AssertionError, Error) as error:
            raise Mismatch(f"{players[seat]}'s {what} should be {score}: {error}") from error


def expect_result(phones: list[Phone], players: list[str], expect: dict) -> None:
    """Every phone shows the result (the others move to it by themselves): each total and the winner."""
    winners = expect["winners"]
    banner = f"{winners[0]} wins!" if len(winners) == 1 else f"Shared victory: {', '.join(winners)}"
    for phone in phones:
        page = phone.page
        expect_text(page.locator(".winner-banner"), banner)
        ranking = page.locator("ol.ranking")
        for seat, total in enumerate(expect["totals"]):
            expect_text(ranking.locator("li", has_text=players[seat]), str(total))
