"""How far Litestream's copy of the database in a folder (a ``file://`` replica) is behind.

Litestream copies the write-ahead log in batches, LTX files ``ltx/<level>/<first>-<last>.ltx``
(transaction ids); a level-0 header names the part of the log it holds (the log's salts and a byte
range) and when Litestream made it. A commit is copied once a batch of the same run of the log (the
same salts) reaches past it. The salts tell runs apart but not their order: a log SQLite creates afresh
(as after ``init-db``) gets random salts, so a batch kept from an earlier run says nothing about this one.
"""

import math
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
# the LTX header's fields up to the part of the log it holds (github.com/superfly/ltx): magic, flags,
# page size, pages after commit, first and last transaction id, timestamp (ms), checksum before, then
# the log's byte range and salts
LTX_HEADER = struct.Struct(">4sIIIQQqQQQII")
LTX_HEADER_BYTES = 100
_LTX_NAME = re.compile("[^-]{16}-([0-9a-fA-F]{16})")  # <first>-<last> transaction id, in hexadecimal


@dataclass(frozen=True)
class LogPosition:
    """A point in the write-ahead log: which run of it (its salts) and how far."""

    salt1: int
    salt2: int
    end: int  # the byte after the last commit frame


@dataclass(frozen=True)
class ReplicaState:
    """Where the replica stands against the database it copies."""

    txid: int  # the newest transaction in the replica (0: nothing copied yet)
    # 0 when it holds every commit; else at most this much behind (never 0); None: nothing copied
    lag_seconds: float | None


@dataclass(frozen=True)
class _Batch:
    """What a level-0 batch's header says."""

    held: LogPosition | None  # the end of the part of the log it holds (None: no part of a log)
    made: float  # when Litestream made it (seconds since the epoch, its machine's clock)


def replica_folder(url: str) -> Path | None:
    """The folder of a ``file://`` replica URL (None for any other kind of replica); ValueError for one
    with a host, as ``file://mnt/usb``: Litestream takes the host for the folder's first part (/mnt/usb),
    the path alone is another folder (/usb), and the checks of ``run`` and /healthz would look there."""
    parts = urlsplit(url)
    if parts.scheme != "file":
        return None
    if parts.netloc:
        raise ValueError(f"a folder's URL has three slashes, as file:///{parts.netloc}{parts.path}: with "
                         f"two, {parts.netloc!r} is taken for the name of a machine.")
    return Path(unquote(parts.path))


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
            while len(frame := log.read(FRAME_HEADER.size)) == FRAME_HEADER.size:
                _page, commit, *frame_salts = FRAME_HEADER.unpack(frame)
                if frame_salts != [salt1, salt2]:
                    break
                offset = log.seek(offset + FRAME_HEADER_BYTES + page_size)
                if commit:
                    end = offset
    except FileNotFoundError:
        return None
    return LogPosition(salt1, salt2, end)


def _batches(replica: Path) -> list[tuple[int, Path]]:
    """The replica's LTX files of every level, as (last transaction id, path)."""
    return [(int(name[1], 16), path) for path in replica.glob("ltx/*/*.ltx")
            if (name := _LTX_NAME.fullmatch(path.stem))]


def _read(path: Path) -> _Batch | None:
    """The header of a level-0 batch (None: gone meanwhile, compacted away, or no LTX file)."""
    try:
        with open(path, "rb") as batch:
            header = batch.read(LTX_HEADER_BYTES)
    except FileNotFoundError:
        return None
    if len(header) < LTX_HEADER_BYTES or header[:4] != b"LTX1":
        return None
    *_, stamp, _checksum, wal_offset, wal_size, salt1, salt2 = LTX_HEADER.unpack(header[:LTX_HEADER.size])
    held = LogPosition(salt1, salt2, wal_offset + wal_size) if wal_size else None
    return _Batch(held, stamp / 1000 if stamp > 0 else _modified(path))


def _level0(batches: list[tuple[int, Path]]) -> list[_Batch]:
    return [read for _txid, path in batches if path.parent.name == "0" and (read := _read(path))]


def _reaches(batches: list[_Batch], position: LogPosition | None) -> bool:
    """Whether a batch of the same run of the log reaches ``position`` (None, no log: no batch tells)."""
    return position is not None and any(
        batch.held is not None and (batch.held.salt1, batch.held.salt2) == (position.salt1, position.salt2)
        and batch.held.end >= position.end for batch in batches)


def holds_any(replica: Path) -> bool:
    """Whether Litestream has copied a transaction into the folder ``replica`` (its files' names tell)."""
    return any(txid > 0 for txid, _ in _batches(replica))


def holds(replica: Path, position: LogPosition | None) -> bool:
    """Whether the replica holds every commit up to ``position`` of the log (``_reaches``)."""
    return _reaches(_level0(_batches(replica)), position)


def state(database: str | Path, replica: Path, now: float | None = None) -> ReplicaState:
    """How far the replica in the folder ``replica`` is behind ``database``: 0 when it holds every
    commit, else at most the time since Litestream made its newest batch (by the header's timestamp,
    taken on this machine's clock), since every commit it lacks came after that."""
    batches = _batches(replica)
    if not batches:
        return ReplicaState(0, None)
    txid = max(number for number, _ in batches)
    level0 = _level0(batches)
    if _reaches(level0, log_position(database)):
        return ReplicaState(txid, 0.0)
    newest = max([batch.made for batch in level0] or [_modified(path) for _, path in batches])
    behind = (time.time() if now is None else now) - newest
    return ReplicaState(txid, max(0.1, math.ceil(behind * 10) / 10))  # rounded up: an upper bound


def _modified(path: Path) -> float:
    try:
        return os.stat(path).st_mtime
    except FileNotFoundError:  # compacted away meanwhile: it was there a moment ago
        return time.time()
