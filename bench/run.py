"""The project's benchmark: ``make bench``. Prints one table; the budgets are in the design notes.

Rows: rules throughput per game; requests per second and p99 latency of the hot pages under gunicorn,
side by side with a bare Flask app serving the same bytes on the same server; every page's
transferred size; the statistics page's time for groups of 1 000, 10 000 and 100 000 plays.
"""

from __future__ import annotations

import argparse
import http.client
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.rules import RULE_BENCHMARKS, per_second  # noqa: E402
from bench.stats import stats_rows  # noqa: E402
from bench.weights import page_weight_rows  # noqa: E402

Row = tuple[str, str, str]  # measure, value, note


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def gunicorn(app_spec: str, env: dict[str, str], workers: int):
    """Serve ``app_spec`` with gunicorn on a free loopback port until the block ends."""
    port = free_port()
    command = [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
               "--worker-class", "gthread", "--threads", "4", "--log-level", "warning", app_spec]
    process = subprocess.Popen(command, cwd=ROOT, env={**os.environ, **env})
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise RuntimeError(f"gunicorn did not start {app_spec}")
        yield port
    finally:
        process.terminate()
        process.wait(10)


def load(port: int, path: str, cookie: str, seconds: float, connections: int) -> tuple[float, float]:
    """Requests per second and p99 latency (ms) of GET ``path`` from ``connections`` threads."""
    latencies: list[float] = []
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def worker() -> None:
        mine = []
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        while time.monotonic() < stop:
            start = time.perf_counter()
            conn.request("GET", path, headers={"Cookie": cookie, "Accept-Encoding": "identity"})
            response = conn.getresponse()
            response.read()
            if response.status != 200:
                raise RuntimeError(f"{path} answered {response.status}")
            mine.append(time.perf_counter() - start)
            if response.getheader("Connection", "").lower() == "close":
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=worker) for _ in range(connections)]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    p99 = statistics.quantiles(latencies, n=100)[98] if len(latencies) >= 100 else max(latencies)
    return len(latencies) / elapsed, p99 * 1000


def sample_instance(folder: Path) -> tuple[dict[str, str], str]:
    """A database with one group, four players and a play with some events; returns paths and cookie."""
    os.environ["COMPANION_INSTANCE_PATH"] = str(folder)
    from app import create_app
    from companion import store

    app = create_app()
    db = store.connect(app.config["DATABASE"])
    store.migrate(db)
    client = app.test_client()
    app.config["WTF_CSRF_ENABLED"] = False
    response = client.post("/groups", data={"name": "Benchmark night"})
    group_id = int(response.headers["Location"].rsplit("/", 1)[1])
    ids = [store.add_player(db, group_id, name, colour)
           for name, colour in (("Anna", "red"), ("Ben", "blue"), ("Cara", "green"), ("Dan", "yellow"))]
    colours = ("red", "blue", "green", "yellow")
    play_id = store.start_play(db, group_id, "great-western-trail", list(zip(ids, colours, strict=True)))
    for seat in range(4):
        store.append_event(db, play_id, "adjust", {"seat": seat, "points": 5 + seat, "note": ""})
    for finished in range(10):
        other = store.start_play(db, group_id, "gold-west", [(ids[0], "red"), (ids[1], "blue")])
        store.finish_play(db, other, {"totals": [finished, 10]},
                          [store.ResultInput(0, finished, 2, {"total": finished}),
                           store.ResultInput(1, 10, 1, {"total": 10})])
    db.close()
    client.get(f"/groups/{group_id}")  # shows (and so clears) the "group created" message
    cookie = f"session={client.get_cookie('session').value}"
    return {"group": f"/groups/{group_id}", "play": f"/plays/{play_id}"}, cookie


def page_rows(seconds: float, connections: int, workers: int) -> list[Row]:
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths, cookie = sample_instance(folder / "instance")
        pages = folder / "pages"
        pages.mkdir()
        env = {"COMPANION_INSTANCE_PATH": str(folder / "instance")}
        with gunicorn("app:create_app()", env, workers) as port:
            for name, path in paths.items():
                conn = http.client.HTTPConnection("127.0.0.1", port)
                conn.request("GET", path, headers={"Cookie": cookie})
                (pages / f"{name}.html").write_bytes(conn.getresponse().read())
            ours = {name: load(port, path, cookie, seconds, connections) for name, path in paths.items()}
        with gunicorn("bench.bare_app:app", {"BENCH_PAGES": str(pages)}, workers) as port:
            bare = {name: load(port, f"/{name}", cookie, seconds, connections) for name in paths}
        for name in paths:
            (rps, p99), (bare_rps, bare_p99) = ours[name], bare[name]
            rows.append((f"{name} page: requests/s (bare Flask)", f"{rps:,.0f} ({bare_rps:,.0f})",
                         f"ratio {rps / bare_rps:.0%} (target ≥ 60%)"))
            rows.append((f"{name} page: p99 latency ms (bare Flask)", f"{p99:.1f} ({bare_p99:.1f})",
                         f"{connections} connections, {workers} workers"))
    return rows


def rule_rows(seconds: float) -> list[Row]:
    rows: list[Row] = []
    for label, make_work in RULE_BENCHMARKS:
        rate = per_second(make_work(), seconds)
        rows.append((f"{label} per second", f"{rate:,.0f}", f"{1e6 / rate:.1f} µs each"))
    return rows


def print_table(rows: list[Row]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    line = "+-" + "-+-".join("-" * w for w in widths) + "-+"
    print(line)
    for index, row in enumerate(rows):
        print("| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) + " |")
        if index == 0:
            print(line)
    print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="load time per measurement")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--only", choices=("rules", "pages", "weights", "statistics"), action="append",
                        help="run only these sections (repeatable); all by default")
    args = parser.parse_args()
    sections: dict[str, Callable[[], list[Row]]] = {
        "rules": lambda: rule_rows(min(args.seconds, 1.0)),
        "pages": lambda: page_rows(args.seconds, args.connections, args.workers),
        "weights": page_weight_rows,
        "statistics": lambda: stats_rows(args.seconds * 2),
    }
    rows: list[Row] = [("measure", "value", "note")]
    for name, section in sections.items():
        if not args.only or name in args.only:
            rows += section()
    machine = platform.processor() or platform.machine()
    print(f"Game-Night Companion benchmark · {machine} · {os.cpu_count()} cores · "
          f"Python {platform.python_version()}")
    print_table(rows)


if __name__ == "__main__":
    main()
