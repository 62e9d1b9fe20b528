"""Sample data and the score summary for scripts/lighthouse.sh.

``python scripts/lighthouse_pages.py sample OUT_DIR`` fills the instance that COMPANION_INSTANCE_PATH
names with a group, players, a play of each game and a finished play, through the site's own forms;
it writes OUT_DIR/cookie.json (the extra header that makes Lighthouse a phone of the group) and
OUT_DIR/pages.tsv (name, path) and prints which pages it had to skip.

``python scripts/lighthouse_pages.py report OUT_DIR`` prints the mobile scores of every
OUT_DIR/<name>.json report and the audits that did not pass.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

CATEGORIES = ("performance", "accessibility", "best-practices")
PLAYERS = (("Anna", "red"), ("Ben", "blue"), ("Cara", "green"), ("Dan", "yellow"))


def _post(client, path: str, data: dict) -> str:
    """Send a form; returns where the site sent the phone next (it must accept the form)."""
    response = client.post(path, data=data)
    if response.status_code != 302:
        raise SystemExit(f"{path} refused the sample data ({response.status_code}).")
    return response.headers["Location"]


def _start_play(client, group_id: int, game: str, player_ids: list[int]) -> int | None:
    data = {}
    for seat, (player_id, (_name, colour)) in enumerate(zip(player_ids, PLAYERS, strict=False)):
        data[f"seat_{seat}-player"] = str(player_id)
        data[f"seat_{seat}-colour"] = colour
    response = client.post(f"/groups/{group_id}/plays/new/{game}", data=data)
    if response.status_code != 302:
        return None
    return int(re.search(r"/plays/(\d+)", response.headers["Location"]).group(1))


def _statistics_path(app, group_id: int) -> str | None:
    """The group's statistics page, if the history part of the site has one."""
    from flask import url_for

    for rule in app.url_map.iter_rules():
        if not (rule.endpoint.startswith("history.") and "statistic" in rule.endpoint):
            continue
        if rule.arguments == {"group_id"} and "GET" in rule.methods:
            with app.test_request_context():
                return url_for(rule.endpoint, group_id=group_id)
    return None


def sample(out: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from app import create_app
    from companion import store
    from companion.games import GAMES

    app = create_app()
    app.config["WTF_CSRF_ENABLED"] = False  # this client fills the forms itself; the server keeps CSRF on
    client = app.test_client()
    group_path = _post(client, "/groups", {"name": "Friday night"})
    group_id = int(re.search(r"/groups/(\d+)", group_path).group(1))
    for name, colour in PLAYERS:
        _post(client, f"/groups/{group_id}/players", {"name": name, "colour": colour})
    db = store.connect(app.config["DATABASE"])
    player_ids = [p.id for p in store.list_players(db, group_id)]
    db.close()

    pages = [("home", "/"), ("group", f"/groups/{group_id}")]
    skipped = []
    for slug in GAMES:
        play_id = _start_play(client, group_id, slug, player_ids[:3])
        if play_id is None:
            skipped.append(f"play-{slug}: the sample play could not be started")
            continue
        for seat, points in ((0, 3), (1, 5), (2, -1)):
            _post(client, f"/plays/{play_id}/adjust", {"seat": str(seat), "points": str(points), "note": ""})
        pages.append((f"play-{slug}", f"/plays/{play_id}"))

    finished = _start_play(client, group_id, next(iter(GAMES)), player_ids[:3])
    _post(client, f"/plays/{finished}/finish",
          {"version": "0", "total_0": "61", "total_1": "65", "total_2": "58"})
    pages.append(("result", f"/plays/{finished}/result"))

    statistics = _statistics_path(app, group_id)
    if statistics:
        pages.append(("statistics", statistics))
    else:
        skipped.append("statistics: the site has no statistics page yet")

    cookie_name = app.config["SESSION_COOKIE_NAME"]
    cookie = client.get_cookie(cookie_name)
    out.mkdir(parents=True, exist_ok=True)
    (out / "cookie.json").write_text(json.dumps({"Cookie": f"{cookie_name}={cookie.value}"}))
    (out / "pages.tsv").write_text("".join(f"{name}\t{path}\n" for name, path in pages))
    for note in skipped:
        print(f"skipped {note}")


def _failing_audits(report: dict) -> list[str]:
    lines = []
    for category in CATEGORIES:
        for ref in report["categories"][category]["auditRefs"]:
            audit = report["audits"][ref["id"]]
            if audit["score"] is None or audit["score"] >= 0.9 or ref["weight"] == 0:
                continue
            value = f" ({audit['displayValue']})" if audit.get("displayValue") else ""
            lines.append(f"    {category}: {audit['id']} — {audit['title']}{value}")
            items = (audit.get("details") or {}).get("items") or []
            for item in items[:5]:
                node = item.get("node") or {}
                where = node.get("selector") or item.get("url") or item.get("source", {}).get("url") or ""
                if where:
                    lines.append(f"        {where}")
    return lines


def report(out: Path) -> None:
    print(f"{'page':<28}" + "".join(f"{c:>16}" for c in CATEGORIES))
    details = []
    for name, _path in (line.split("\t") for line in (out / "pages.tsv").read_text().splitlines()):
        path = out / f"{name}.json"
        if not path.exists():
            print(f"{name:<28}  (no report)")
            continue
        data = json.loads(path.read_text())
        scores = [data["categories"][c]["score"] for c in CATEGORIES]
        print(f"{name:<28}" + "".join(f"{'-' if s is None else round(s * 100):>16}" for s in scores))
        failing = _failing_audits(data)
        if failing:
            details.append(f"  {name} ({data['finalDisplayedUrl']}):")
            details.extend(failing)
    if details:
        print("\nAudits below 90 %:")
        print("\n".join(details))


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in {"sample", "report"}:
        raise SystemExit("usage: lighthouse_pages.py sample|report OUT_DIR")
    {"sample": sample, "report": report}[sys.argv[1]](Path(sys.argv[2]))
