"""With CSRF on, as in production: a form without its token is refused and stores nothing."""

from __future__ import annotations

import re

from companion import store
from tests.conftest import make_app


def test_post_without_token_is_refused_and_with_token_accepted(tmp_path):
    app = make_app(tmp_path, WTF_CSRF_ENABLED=True)
    client = app.test_client()
    refused = client.post("/groups", data={"name": "Sneaky"})
    assert refused.status_code == 400 and "Reload the page" in refused.text
    db = store.connect(app.config["DATABASE"])
    assert db.execute("SELECT COUNT(*) FROM groups").fetchone()[0] == 0

    home = client.get("/")
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', home.text).group(1)
    accepted = client.post("/groups", data={"name": "Honest", "csrf_token": token})
    assert accepted.status_code == 302
    assert db.execute("SELECT name FROM groups").fetchall() == [("Honest",)]
