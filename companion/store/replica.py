"""How far Litestream's copy of the database in a folder (a ``file://`` replica) is behind.

Litestream copies the write-ahead log in batches, LTX files ``ltx/<level>/<first>-<last>.ltx``
(transaction ids); a level-0 header names the part of the log it holds (the log's salts, which change
each time SQLite starts it afresh, and a byte range). A commit is copied once a batch reaches past it.
"""

from __future__ import annotations

import os
import re
import struct
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

WAL_HEADER = struct.Struct(">IIIIII")  # magic, version, page size, checkpoint, salt-1, salt-2
WAL_HEADER_BYTES = 32  # then the header's checksum
FRAME_HEADER = struct.Struct(">IIII")  # page, size after commit (0: not a commit), salt-1, salt-2
FRAME_HEADER_BYTES = 24
# the LTX header's fields up to the part of the log it holds (github.com/superfly/ltx)
LTX_HEADER = struct.Struct(">4sIIIQQqQQQII")
LTX_HEADER_BYTES = 100
_LTX_NAME = re.compile("[^-]{16}-([0-9a-fA-F]{16})")  # <first>-<last> transaction id, in hexadecimal


@dataclass(frozen=True)
class LogPosition:
    """A point in the write-ahead log: which run of it (salt-1 grows by one each run) and how far."""

    salt1: int
    salt2: int
    end: int  # the byte after the last commit frame


@dataclass(frozen=True)
class ReplicaState:
    """Where the replica stands against the database it copies."""

    txid: int  # the newest transaction in the replica (0: nothing copied yet)
    lag_seconds: float | None  # 0 when it holds every commit; at most this much behind; None: empty


def replica_folder(url: str) -> Path | None:
    """The folder of a ``file://`` replica URL (None for any other kind of replica)."""
    parts = urlsplit(url)
    return Path(unquote(parts.path)) if parts.scheme == "file" else None


def log_position(database: str | Path) -> LogPosition | None:
    """The end of the last commit in the database's write-ahead log (None: no log, all in the file);
    frames left over from the log's previous run (with the old salts) are not part of it."""
    try:
        with open(f"{database}-wal", "rb") as log:
            header = log.read(WAL_HEADER_BYTES)
            if len(header) < WAL_HEADER_BYTES:
                return None
            _magic, _version, page_size, _checkpoint, salt1, salt2 = WAL_HEADER.unpack_from(header)
            end = offset = WAL_HEADER_BYTES
            while True:
                log.seek(offset)
                frame = log.read(FRAME_HEADER.size)
                if len(frame) < FRAME_HEADER.size:
                    break
                _page, commit, frame_salt1, frame_salt2 = FRAME_HEADER.unpack(frame)
                if (frame_salt1, frame_salt2) != (salt1, salt2):
                    break
                offset += FRAME_HEADER_BYTES + page_size
                if commit:
                    end = offset
    except FileNotFoundError:
        return None
    return LogPosition(salt1, salt2, end)


def _batches(replica: Path) -> list[tuple[int, Path]]:
    """The replica's LTX files of every level, as (last transaction id, path)."""
    return [(int(name[1], 16), path) for path in replica.glob("ltx/*/*.ltx")
            if (name := _LTX_NAME.fullmatch(path.stem))]


def _held(path: Path) -> LogPosition | None:
    """The end of the part of the log a level-0 batch holds."""
    try:
        with open(path, "rb") as batch:
            header = batch.read(LTX_HEADER_BYTES)
    except FileNotFoundError:  # compacted away meanwhile
        return None
    if len(header) < LTX_HEADER_BYTES or header[:4] != b"LTX1":
        return None
    *_, wal_offset, wal_size, salt1, salt2 = LTX_HEADER.unpack(header[:LTX_HEADER.size])
    return LogPosition(salt1, salt2, wal_offset + wal_size) if wal_size else None


def holds(replica: Path, position: LogPosition | None) -> bool:
    """Whether the replica holds every commit up to ``position`` of the log."""
    batches = _batches(replica)
    if position is None:
        return bool(batches)
    for _txid, path in batches:
        if path.parent.name != "0":
            continue
        held = _held(path)
        # a batch of a later run of the log (salt-1 counts the runs) comes after every commit of this one
        if held is not None and (held.salt1 > position.salt1 or (
                (held.salt1, held.salt2) == (position.salt1, position.salt2) and held.end >= position.end)):
            return True
    return False


def state(database: str | Path, replica: Path, now: float | None = None) -> ReplicaState:
    """How far the replica in the folder ``replica`` is behind ``database``: at most the time since its
    newest batch, since every commit it lacks came after that."""
    batches = _batches(replica)
    if not batches:
        return ReplicaState(0, None)
    txid = max(number for number, _ in batches)
    if holds(replica, log_position(database)):
        return ReplicaState(txid, 0.0)
    newest = max(_modified(path) for _, path in batches)
    return ReplicaState(txid, round(max(0.0, (time.time() if now is None else now) - newest), 1))


def _modified(path: Path) -> float:
    try:
        return os.stat(path).st_mtime
    except FileNotFoundError:  # compacted away meanwhile: it was there a moment ago
        return time.time()
