"""Take the README's phone screenshot: ``python scripts/screenshot.py docs/phone.png``.

Serves the site on loopback with a temporary instance folder, plays a few Mayflower turns through
the pages, and photographs the play page in Chromium at a phone's size (390×844).
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def sample_play(app) -> tuple[str, str]:
    """A Mayflower play after a scoring; returns the play's path and the session cookie."""
    from companion import store

    client = app.test_client()
    location = client.post("/groups", data={"name": "Friday night"}).headers["Location"]
    group_id = int(re.search(r"/groups/(\d+)", location).group(1))
    db = store.connect(app.config["DATABASE"])
    players = [("Anna", "red"), ("Ben", "blue"), ("Cara", "green")]
    ids = [store.add_player(db, group_id, name, colour) for name, colour in players]
    data = {}
    for seat, (player_id, (_, colour)) in enumerate(zip(ids, players, strict=True)):
        data |= {f"seat_{seat}-player": str(player_id), f"seat_{seat}-colour": colour}
    location = client.post(f"/groups/{group_id}/plays/new/mayflower", data=data).headers["Location"]
    play_id = int(re.search(r"/plays/(\d+)", location).group(1))
    for seat, role, column in ((0, "bandit", 1), (1, "bandit", 1), (2, "sheriff", 1), (0, "farmer", 2),
                               (1, "trapper", 2), (2, "bandit", 3)):
        store.append_event(db, play_id, "place", {"seat": seat, "role": role, "column": column})
    store.append_event(db, play_id, "complete", {"features": [
        {"kind": "road", "tiles": 4, "trading_posts": 1, "settlers": ["0-1", "1-1"]}]})
    client.get(f"/plays/{play_id}")  # clears the pending message
    return f"/plays/{play_id}", f"{client.get_cookie('session').value}"


def main(target: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        os.environ["COMPANION_INSTANCE_PATH"] = folder
        from werkzeug.serving import make_server

        from app import create_app
        from companion import store

        app = create_app()
        store.migrate(store.connect(app.config["DATABASE"]))
        app.config["WTF_CSRF_ENABLED"] = False
        path, cookie = sample_play(app)
        app.config["WTF_CSRF_ENABLED"] = True
        server = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_port}"
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB",
                                          device_scale_factor=2, is_mobile=True)
            context.add_cookies([{"name": "session", "value": cookie, "url": url}])
            page = context.new_page()
            page.goto(url + path + "#scoreboard")
            page.screenshot(path=target)
            browser.close()
        server.shutdown()
    print(f"Saved {target}.")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "docs" / "phone.png"))
