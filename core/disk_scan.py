"""Find erased data in an engine's files: the on-disk half of an erase's verification.

Deleting a record through an engine's API leaves its bytes behind in places no query reaches:
a write-ahead log, a slot freed in a page but not overwritten, a key in an index page next to
its tombstone. After an erase compacted what the engines allow, ``scan`` reads every file under
the embedded engines' directories and reports which still hold an erased id or string.

Ids are looked for in their text form and in the two 16-byte forms engines store UUIDs in
(Qdrant's id tracker keeps a point id as a little-endian u128). Strings are looked for as their
UTF-8 bytes. The scan reads the files, it never decodes them: a trace it reports is there.

Example::

    traces = scan([data / "vectors", data / "graph"], Needles.of(ids=[memory_id], texts=[]))
"""

from __future__ import annotations

import errno
import os
import re
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

# Strings shorter than this are not looked for: they occur in unrelated data by chance.
MIN_TEXT = 12
_CHUNK = 8 << 20  # bytes read at a time


@dataclass(frozen=True)
class Needles:
    """What an erase removed, as the byte strings to look for; ``names`` maps each back to
    what it stands for (an id, or a string shortened for display)."""

    patterns: tuple[bytes, ...]
    names: dict[bytes, str]

    @classmethod
    def of(cls, ids: Iterable[str] = (), texts: Iterable[str] = ()) -> Needles:
        names: dict[bytes, str] = {}
        for value in ids:
            names[value.encode()] = value
            try:
                parsed = uuid.UUID(value)
            except ValueError:
                continue
            names[parsed.bytes] = value
            names[parsed.bytes[::-1]] = value  # little-endian u128
        for text in texts:
            if len(text) >= MIN_TEXT:
                names[text.encode()] = text if len(text) <= 40 else text[:37] + "..."
        return cls(tuple(sorted(names, key=len, reverse=True)), names)

    def __bool__(self) -> bool:
        return bool(self.patterns)


@dataclass(frozen=True)
class Trace:
    """One file (relative to the directory scanned) holding erased values."""

    path: str
    values: tuple[str, ...]


@dataclass(frozen=True)
class ScanResult:
    files: int
    traces: tuple[Trace, ...]


def scan(roots: Sequence[Path], needles: Needles) -> ScanResult:
    """Every regular file under ``roots`` holding one of ``needles`` (empty files and files
    that vanish meanwhile are skipped). One pass over each file for all needles."""
    if not needles:
        return ScanResult(0, ())
    pattern = re.compile(b"|".join(re.escape(p) for p in needles.patterns))
    files = 0
    traces: list[Trace] = []
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            found = _search(path, pattern, len(needles.patterns[0]))
            if found is None:
                continue
            files += 1
            if found:
                values = sorted({needles.names[m] for m in found})
                traces.append(Trace(str(path.relative_to(root.parent)), tuple(values)))
    return ScanResult(files, tuple(traces))


def _search(path: Path, pattern: re.Pattern[bytes], longest: int) -> set[bytes] | None:
    """The needles found in one file; None when it cannot be read (gone meanwhile).

    Only the file's data is read: engines preallocate logs and vector chunks as sparse files
    (Qdrant Edge's two 32 MB log segments hold a few KB), and holes read as zeros.
    """
    found: set[bytes] = set()
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        for start, end in _extents(fd, os.fstat(fd).st_size):
            offset = start
            while offset < end:
                # Chunks overlap by a needle's length, so none is missed at a boundary.
                data = os.pread(fd, min(_CHUNK + longest, end - offset), offset)
                found.update(m.group(0) for m in pattern.finditer(data))
                offset += _CHUNK
    except OSError:
        return None
    finally:
        os.close(fd)
    return found


def _extents(fd: int, size: int) -> list[tuple[int, int]]:
    """The (start, end) byte ranges of ``fd`` that hold data: all of it where the file
    system cannot tell (no SEEK_DATA)."""
    extents: list[tuple[int, int]] = []
    offset = 0
    try:
        while offset < size:
            start = os.lseek(fd, offset, os.SEEK_DATA)
            end = os.lseek(fd, start, os.SEEK_HOLE)
            extents.append((start, end))
            offset = end
    except OSError as e:
        if e.errno != errno.ENXIO:  # ENXIO: no data after offset
            return [(0, size)]
    return extents
