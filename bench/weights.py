"""Page weight: what each page of a sample instance transfers, against the 30 KB budget.

A page's weight is what a phone transfers when it first loads it: the HTML plus every style sheet,
script, icon, image and manifest it references (and what those style sheets reference), the home-screen
icon the manifest names and the service worker with the files it stores for offline use, each as the
site sends it to a phone that accepts gzip, status line and headers included; a file referenced twice
counts once. A reference to another host counts as a third-party request, which the design forbids.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
import tempfile
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from flask import Flask  # noqa: E402
from flask.testing import FlaskClient  # noqa: E402
from werkzeug.datastructures import MultiDict  # noqa: E402

from app import create_app  # noqa: E402
from companion import store  # noqa: E402
from companion.games import GAMES  # noqa: E402

Row = tuple[str, str, str]  # measure, value, note

BUDGET_BYTES = 30 * 1024
PLAYERS = (("Anna", "red"), ("Ben", "blue"), ("Cara", "green"), ("Dan", "yellow"))
EVENTS_PER_PLAY = 12
CATEGORIES = ("HTML", "CSS", "JS", "icons", "other")
_CSS_URL = re.compile(r"""url\(\s*['"]?([^'")]+)['"]?\s*\)""")


class _References(HTMLParser):
    """The files a browser fetches when it loads the page (not the links a person may follow)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str]] = []  # (category, url)
        self.details: list[bool] = []  # the <details> the parser is in: open or closed

    def handle_endtag(self, tag: str) -> None:
        if tag == "details" and self.details:
            self.details.pop()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {key: value or "" for key, value in attrs}
        if tag == "details":
            self.details.append("open" in a)
        if a.get("loading") == "lazy" and not all(self.details):
            return  # a lazy image in a closed section is not fetched until someone opens it
        rel = set(a.get("rel", "").lower().split())
        if tag == "link" and a.get("href"):
            if "stylesheet" in rel:
                self.found.append(("CSS", a["href"]))
            elif rel & {"icon", "apple-touch-icon", "mask-icon"}:
                self.found.append(("icons", a["href"]))
            elif rel & {"manifest", "preload", "modulepreload"}:
                self.found.append(("other", a["href"]))
        elif tag == "script" and a.get("src"):
            self.found.append(("JS", a["src"]))
        elif tag in ("img", "source", "video", "audio", "iframe", "embed") and a.get("src"):
            self.found.append(("icons" if tag in ("img", "source") else "other", a["src"]))


class _FormDefaults(HTMLParser):
    """What the form posting to ``action`` sends when the person changes nothing."""

    def __init__(self, action: str) -> None:
        super().__init__(convert_charrefs=True)
        self.action, self.inside, self.select = action, False, ""
        self.fields: list[tuple[str, str]] = []
        self._first_option: str | None = None
        self._chosen: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {key: value or "" for key, value in attrs}
        if tag == "form":
            self.inside = (a.get("action") or self.action) == self.action
        elif not self.inside:
            return
        elif tag == "input" and a.get("name"):
            kind = a.get("type", "text")
            if kind not in ("checkbox", "radio", "submit") or (kind != "submit" and "checked" in a):
                self.fields.append((a["name"], a.get("value", "on")))
        elif tag == "select":
            self.select, self._first_option, self._chosen = a.get("name", ""), None, None
        elif tag == "option" and self.select:
            if self._first_option is None:
                self._first_option = a.get("value", "")
            if "selected" in a and self._chosen is None:
                self._chosen = a.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.inside = False
        elif tag == "select" and self.select:
            value = self._chosen if self._chosen is not None else self._first_option
            if value is not None:
                self.fields.append((self.select, value))
            self.select = ""


def _start_play(client: FlaskClient, group_id: int, slug: str) -> int:
    """Start a play the way a phone does: the new-play page as it comes, seats and options pre-filled."""
    page = f"/groups/{group_id}/plays/new/{slug}"
    form = _FormDefaults(page)
    form.feed(client.get(page).text)
    started = client.post(page, data=MultiDict(form.fields))
    if started.status_code != 302:
        raise RuntimeError(f"starting a play of {slug} answered {started.status_code}")
    return int(re.search(r"/plays/(\d+)", started.headers["Location"]).group(1))


def _csrf_token(html: str) -> str:
    return re.search(r'name="csrf_token"[^>]*?value="([^"]+)"', html).group(1)


def _path_of(location: str) -> str:
    return urlsplit(location).path


def sample_pages(app: Flask, client: FlaskClient) -> list[tuple[str, str]]:
    """A group of four with a play in progress and a finished play of every game; (label, path) pages."""
    home = client.get("/")
    created = client.post("/groups", data={"name": "Friday night", "csrf_token": _csrf_token(home.text)})
    group_id = int(re.search(r"/groups/(\d+)", created.headers["Location"]).group(1))
    db = store.connect(app.config["DATABASE"])
    try:
        for name, colour in PLAYERS:
            store.add_player(db, group_id, name, colour)
        pages = [("home", "/"), ("group", f"/groups/{group_id}")]
        for slug, game in GAMES.items():
            active, finished = _start_play(client, group_id, slug), _start_play(client, group_id, slug)
            count = len(store.get_play(db, active).seats)
            for play_id in (active, finished):
                for number in range(EVENTS_PER_PLAY):
                    store.append_event(db, play_id, "adjust",
                                       {"seat": number % count, "points": 3 + number, "note": ""})
            totals = [40 + 7 * seat for seat in range(count)]
            store.finish_play(db, finished, {"totals": totals},
                              [store.ResultInput(seat, total, count - seat, {"total": total})
                               for seat, total in enumerate(totals)])
            pages += [(f"play of {game.name}", f"/plays/{active}"),
                      (f"result of {game.name}", f"/plays/{finished}/result")]
    finally:
        db.close()
    pages += [(rule.rule.rsplit("/", 1)[-1], rule.build({"group_id": group_id})[1])
              for rule in app.url_map.iter_rules()
              if "GET" in rule.methods and set(rule.arguments) == {"group_id"}
              and re.search(r"statistic|history", rule.rule)]
    return pages


def _transferred(response) -> int:
    """What the phone receives: the status line, the headers and the body as sent."""
    headers = sum(len(f"{name}: {value}\r\n") for name, value in response.headers.items())
    return len(f"HTTP/1.1 {response.status}\r\n") + headers + 2 + len(response.get_data())


def _resources(client: FlaskClient, page_path: str,
               html: str) -> Iterator[tuple[str, str, int | None, bytes]]:
    """(category, url, bytes transferred, body) of every file loading the page makes the phone fetch.

    Besides what the page references (and its style sheets): the home-screen icon its manifest names
    and the service worker with the files it stores for offline use. Each file once; transferred None
    for a file on another host.
    """
    references = _References()
    references.feed(html)
    queue, seen = list(references.found), set()
    queue.append(("other", "/sw.js"))  # registered by the page script on every first visit
    while queue:
        category, reference = queue.pop(0)
        if reference.startswith("data:"):
            continue  # inside the file already counted
        url = urlsplit(urljoin(page_path, reference))
        if url.netloc:
            yield category, reference, None, b""
            continue
        if url.path in seen:
            continue
        seen.add(url.path)
        response = client.get(url.path, headers={"Accept-Encoding": "gzip"})
        sent = _transferred(response)
        body = response.get_data()
        if response.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        response.close()
        yield category, url.path, sent, body
        if category == "CSS":
            queue += [("icons", urljoin(url.path, found)) for found in _CSS_URL.findall(body.decode())]
        elif url.path.endswith(".webmanifest"):
            icons = [icon for icon in json.loads(body)["icons"] if icon.get("purpose", "any") == "any"]
            smallest = min(icons, key=lambda icon: int(icon["sizes"].split("x")[0]))
            queue.append(("icons", smallest["src"]))
        elif url.path == "/sw.js":
            first_line = body.decode().split("\n", 1)[0]
            settings = json.loads(first_line.removeprefix("self.COMPANION = ").rstrip(";"))
            queue += [("other", path) for path in settings["precache"]]


def page_weight(client: FlaskClient, path: str) -> tuple[dict[str, int], int, list[str]]:
    """Bytes transferred per category (headers included), the uncompressed total, third-party references."""
    response = client.get(path, headers={"Accept-Encoding": "gzip"})
    if response.status_code != 200:
        raise RuntimeError(f"{path} answered {response.status_code}")
    html = response.get_data()
    if response.headers.get("Content-Encoding") == "gzip":
        html = gzip.decompress(html)
    sizes = dict.fromkeys(CATEGORIES, 0)
    sizes["HTML"], raw, third_party = _transferred(response), len(html), []
    for category, url, sent, body in _resources(client, path, html.decode()):
        if sent is None:
            third_party.append(url)
            continue
        sizes[category] += sent
        raw += len(body)
    return sizes, raw, third_party


def page_weight_rows() -> list[Row]:
    """One row per page of a sample instance: transferred KB, what makes it up, and the budget."""
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as folder:
        app = create_app({"SECRET_KEY": "page weight", "DATABASE": str(Path(folder) / "companion.sqlite3")})
        db = store.connect(app.config["DATABASE"])
        store.migrate(db)
        db.close()
        client = app.test_client()
        for label, path in sample_pages(app, client):
            sizes, raw, third_party = page_weight(client, path)
            total = sum(sizes.values())
            parts = " + ".join(f"{name} {sizes[name] / 1024:.1f}" for name in CATEGORIES if sizes[name])
            verdict = "within" if total <= BUDGET_BYTES and not third_party else "OVER"
            note = (f"{parts} (as sent, headers included; {raw / 1024:.1f} KB unpacked); "
                    f"{total / BUDGET_BYTES:.0%} of 30 KB: {verdict}")
            if third_party:
                note += f"; third-party requests: {', '.join(third_party)}"
            rows.append((f"page weight: {label}", f"{total / 1024:.1f} KB", note))
    return rows


def main() -> None:
    for row in page_weight_rows():
        print(" | ".join(row))


if __name__ == "__main__":
    main()
