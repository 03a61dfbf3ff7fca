"""The `brain` command line, run in-process (each call opens its own engines on a data dir)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from api.cli import main

pytestmark = [pytest.mark.integration, pytest.mark.slow]


async def brain(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = await asyncio.to_thread(main, list(argv))
    out, err = capsys.readouterr()
    return code, out, err


async def test_remember_search_export_import_doctor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one, two = str(tmp_path / "one"), str(tmp_path / "two")
    code, out, _ = await brain(
        capsys,
        "remember",
        "--data-dir",
        one,
        "--tenant",
        "acme",
        "--type",
        "semantic",
        "Peter is a writer at WOBS",
    )
    assert code == 0 and len(out.strip()) == 36
    code, _, err = await brain(capsys, "remember", "--data-dir", one, "--tenant", "acme", "   ")
    assert code == 2 and "must not be empty" in err
    export = str(tmp_path / "acme.jsonl")
    code, _, err = await brain(
        capsys, "export", "--data-dir", one, "--tenant", "acme", "--out", export
    )
    assert code == 0 and "exported 1 records" in err
    code, out, _ = await brain(capsys, "import", "--data-dir", two, "--tenant", "acme", export)
    assert code == 0 and json.loads(out)["memories"] == 1
    code, out, _ = await brain(
        capsys, "search", "--data-dir", two, "--tenant", "acme", "--json", "who writes for WOBS?"
    )
    assert code == 0 and json.loads(out.splitlines()[0])["content"] == "Peter is a writer at WOBS"
    code, out, _ = await brain(capsys, "doctor", "--data-dir", two)
    assert code == 0, out
    assert "graph engine" in out and "tenant acme: 1 memories, 1 vectors, index lag 0" in out


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as err:
        main(["frobnicate"])
    assert err.value.code == 2
    with pytest.raises(SystemExit) as err:
        main(["remember", "--type", "nonsense", "--tenant", "x", "y"])
    assert err.value.code == 2
