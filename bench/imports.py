"""A large backup imported while phones of other groups write: can the import hurt the running site?

The companion runs under gunicorn as in ``bench/run.py``. One phone imports a backup of about 30 MB
(29,000 plays) through the import page; meanwhile phones of other groups keep adding entries to
their plays. The rows: the import's time, the peak memory of the server's processes, and the answers
and latency of the writes that began while the import ran (target: no 5xx, none over 2 s).
"""

from __future__ import annotations

import dataclasses
import http.client
import re
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.run import _children, entry_target, gunicorn, print_table, sample_instance  # noqa: E402
from companion.exchange import backup  # noqa: E402
from companion.games import table_tools  # noqa: E402
from tests.test_backup_size import large_archive  # noqa: E402

Row = tuple[str, str, str]  # measure, value, note

PLAYS = 29_000
NOTE = "A long evening: " + "the rancher's herd went to Kansas City twice, " * 9  # about 1 KB a play
PHONES = 4  # phones of other groups writing during the import
PHONE_PAUSE_SECONDS = 0.05  # between a phone's answer and its next entry
WRITE_LIMIT_MS = 2000.0
REQUEST_SECONDS = 600  # a bound for a stuck server, never an expectation


def backup_file(plays: int) -> bytes:
    """A group backup with ``plays`` finished plays, each with a note of a few hundred characters."""
    archive = large_archive(plays)
    noted = tuple(dataclasses.replace(play, options={**play.options, table_tools.NOTE: NOTE})
                  for play in archive.plays)
    return backup.backup_json(dataclasses.replace(archive, plays=noted), "2026-12-01T12:00:00+00:00").encode()


def _request(port: int, method: str, path: str, body: bytes | str | None = None,
             headers: dict[str, str] | None = None) -> tuple[http.client.HTTPResponse, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_SECONDS)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response, response.read()
    finally:
        conn.close()


def import_backup(port: int, data: bytes) -> tuple[int, float]:
    """A new phone imports ``data`` through the import page: the answer's status and its seconds."""
    page, html = _request(port, "GET", "/groups/import")
    token = re.search(rb'name="csrf_token" type="hidden" value="([^"]+)"', html).group(1).decode()
    boundary = "backup-boundary-7d3f"
    body = (f'--{boundary}\r\nContent-Disposition: form-data; name="csrf_token"\r\n\r\n{token}\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="backup"; filename="backup.json"\r\n'
            f"Content-Type: application/json\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    began = time.monotonic()
    answer, _ = _request(port, "POST", "/groups/import", body, {
        "Cookie": page.getheader("Set-Cookie").split(";", 1)[0],
        "Content-Type": f"multipart/form-data; boundary={boundary}"})
    return answer.status, time.monotonic() - began


def peak_memory_mb(master: int) -> float:
    """The largest peak resident memory of gunicorn's processes (its master and workers)."""
    peaks = []
    for pid in (master, *_children(master)):
        status = Path(f"/proc/{pid}/status").read_text()
        peaks.append(int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024)
    return max(peaks)


class Phone(threading.Thread):
    """A phone of another group adding entries until told to stop: (began, ms, status) of each."""

    def __init__(self, port: int, path: str, body: str, cookie: str, stop: threading.Event,
                 log: Path) -> None:
        super().__init__(daemon=True)
        self.port, self.path, self.body, self.stop, self.log = port, path, body, stop, log
        self.headers = {"Cookie": cookie, "Content-Type": "application/x-www-form-urlencoded"}
        self.writes: list[tuple[float, float, int]] = []
        self.log_bytes = 0  # the largest the write-ahead log was after one of its writes

    def run(self) -> None:
        while not self.stop.is_set():
            began = time.monotonic()
            try:
                status = _request(self.port, "POST", self.path, self.body, self.headers)[0].status
            except OSError:  # no answer at all counts as a failed write
                status = 599
            self.writes.append((began, (time.monotonic() - began) * 1000, status))
            self.log_bytes = max(self.log_bytes, self.log.stat().st_size)
            self.stop.wait(PHONE_PAUSE_SECONDS)


def import_rows(workers: int = 2) -> list[Row]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        groups = [sample_instance(folder / "instance") for _ in range(PHONES)]  # one group per phone
        data = backup_file(PLAYS)
        env = {"COMPANION_INSTANCE_PATH": str(folder / "instance")}
        log = folder / "instance" / "companion.sqlite3-wal"
        with gunicorn("app:create_app()", env, workers) as (port, master):
            stop = threading.Event()
            phones = []
            for targets, cookie in groups:
                entry, cookie = entry_target(port, cookie, targets[0].path)
                phones.append(Phone(port, entry.path, entry.body, cookie, stop, log))
            before_mb = peak_memory_mb(master)
            for phone in phones:
                phone.start()
            began = time.monotonic()
            status, seconds = import_backup(port, data)
            stop.set()
            for phone in phones:
                phone.join()
            peak_mb = peak_memory_mb(master)
    during = [(ms, code) for phone in phones for start, ms, code in phone.writes
              if began <= start <= began + seconds]
    latencies = sorted(ms for ms, _ in during)
    failed = sum(code >= 500 for _, code in during)
    other = sum(code != 302 and code < 500 for _, code in during)
    worst, p99 = latencies[-1], latencies[int(0.99 * (len(latencies) - 1))]
    met = "met" if not failed and worst <= WRITE_LIMIT_MS else "MISSED"
    return [
        (f"import of a {len(data) / 2**20:.0f} MB backup ({PLAYS:,} plays)", f"{seconds:.1f} s",
         f"answered {status}; peak memory of a server process {peak_mb:.0f} MB ({before_mb:.0f} MB before)"),
        (f"entries of {PHONES} other groups during the import", f"{len(during):,}",
         f"{failed} × 5xx, {other} other than 302; median {statistics.median(latencies):.0f} ms, "
         f"p99 {p99:.0f} ms, max {worst:.0f} ms; target 0 × 5xx, none over {WRITE_LIMIT_MS:.0f} ms: {met}"),
        ("write-ahead log during the import", f"{max(phone.log_bytes for phone in phones) / 2**20:.0f} MB",
         "its largest after an entry of the other groups"),
    ]


if __name__ == "__main__":
    print_table([("measure", "value", "note"), *import_rows()])
