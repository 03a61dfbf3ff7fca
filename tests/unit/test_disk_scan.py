"""core.disk_scan: what the on-disk check of an erase finds, and what it ignores."""

from __future__ import annotations

import uuid
from pathlib import Path

from core.disk_scan import Needles, scan


def test_ids_are_found_in_text_and_in_both_byte_orders_short_strings_are_not(
    tmp_path: Path,
) -> None:
    value = uuid.uuid4()
    (tmp_path / "le").write_bytes(b"\x00" + value.bytes[::-1] + b"\x00")
    (tmp_path / "be").write_bytes(value.bytes)
    (tmp_path / "text").write_text(f"prefix {value} and tea suffix")
    (tmp_path / "empty").write_bytes(b"")
    (tmp_path / "other").write_text("nothing of it: tea")

    result = scan([tmp_path], Needles.of([str(value)], ["tea", "and tea suffix"]))

    by_file = {Path(t.path).name: t.values for t in result.traces}
    assert by_file == {
        "le": (str(value),),
        "be": (str(value),),
        "text": tuple(sorted([str(value), "and tea suffix"])),
    }
    assert result.files == 5
    assert scan([tmp_path], Needles.of([], ["tea"])).files == 0  # nothing to look for
