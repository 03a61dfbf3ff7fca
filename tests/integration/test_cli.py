"""The `brain` command line, run in-process (each call opens its own engines on a data dir)."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from cli.main import main

pytestmark = [pytest.mark.integration, pytest.mark.slow]


async def brain(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = await asyncio.to_thread(_exit_code, list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _exit_code(argv: list[str]) -> int:
    """``main``'s exit code, also when argparse exits on a usage error."""
    try:
        return main(argv)
    except SystemExit as e:
        return int(e.code or 0)


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
        "SEMANTIC",  # the GraphQL spelling is accepted too
        "Peter is a writer at WOBS",
    )
    assert code == 0 and len(out.strip()) == 36
    code, out, err = await brain(capsys, "search", "--data-dir", one, "--tenant", "acmee", "WOBS")
    assert code == 2 and out == "" and "tenant 'acmee' not found" in err
    code, out, _ = await brain(capsys, "keys", "create", "--data-dir", one, "--tenant", "acme")
    assert code == 0
    code, out, _ = await brain(capsys, "keys", "list", "--data-dir", one)
    (key,) = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", key["created_at"])
    assert key["revoked_at"] is None
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
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "handbook.md").write_text(
        "# Handbook\n\nEvery article passes two AI detectors before it ships.\n"
    )
    (docs / "sub" / "notes.txt").write_text("Peter reviews the Anderson order on Fridays.\n")
    (docs / "image.png").write_bytes(b"\x89PNG")
    (docs / ".git").mkdir()
    (docs / ".git" / "README.md").write_text("A hidden folder's notes are not documents.\n")
    code, out, err = await brain(capsys, "ingest", "--data-dir", two, "--tenant", "acme", str(docs))
    summary = {"files": 2, "chunks": 2, "unchanged": 0, "failed": 0, "skipped": 1}
    assert code == 0 and json.loads(out) == summary
    assert "[1/2]" in err and "[2/2]" in err
    assert "left out 1 of the folders' files as not text documents (.png 1)" in err
    code, out, err = await brain(
        capsys,
        "ingest",
        "--data-dir",
        two,
        "--tenant",
        "acme",
        str(docs),
        str(tmp_path / "missing"),
    )
    assert code == 2 and "no such file" in err
    code, out, err = await brain(
        capsys,
        "context",
        "--data-dir",
        two,
        "--tenant",
        "acme",
        "--session",
        "s1",
        "--query",
        "how do we check articles?",
    )
    assert code == 0 and "two AI detectors" in out and "tokens" in err
    code, out, err = await brain(
        capsys, "consolidate", "--data-dir", two, "--tenant", "acme", "--task", "reconcile"
    )
    (report,) = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and report["job"] == "reconcile" and report["status"] == "done"
    assert report["counts"]["checked"] == 3 and "1 jobs in" in err
    code, out, _ = await brain(capsys, "runs", "--data-dir", two, "--tenant", "acme")
    assert code == 0 and [json.loads(line)["id"] for line in out.splitlines()] == [report["id"]]
    code, _, err = await brain(
        capsys, "consolidate", "--data-dir", two, "--tenant", "acme", "--session", "bad id!"
    )
    assert code == 2 and "sessionId" in err
    code, out, _ = await brain(capsys, "doctor", "--data-dir", two)
    assert code == 0, out
    assert "graph engine" in out and "tenant acme: 3 memories, 3 vectors, index lag 0" in out
    assert "ok   graph migrations: pinned_key, task_tenant, restore_flushed_turns, " in out


def test_bare_brain_lists_every_command_and_the_readme_does_too(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main([]) == 0
    listed = capsys.readouterr().out
    commands = set(re.findall(r"^    (\w+)", listed, re.MULTILINE))
    assert {"serve", "keys", "remember", "context", "reprofile", "doctor"} <= commands
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    for command in commands:
        assert f"`brain {command}" in readme, f"README does not list `brain {command}`"
    assert main(["keys"]) == 0 and "create" in capsys.readouterr().out


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as err:
        main(["frobnicate"])
    assert err.value.code == 2
    with pytest.raises(SystemExit) as err:
        main(["remember", "--type", "nonsense", "--tenant", "x", "y"])
    assert err.value.code == 2
    with pytest.raises(SystemExit) as err:
        main(["consolidate", "--tenant", "x", "--project", "p", "--session", "s"])
    assert err.value.code == 2
    # Tenant names as `keys create` checks them; project ids as session ids; before any engine.
    for argv in (
        ["remember", "--tenant", "bad tenant!", "x"],
        ["search", "--tenant", "", "x"],
        ["ingest", "--tenant", "acme", "--project", "bad project!", "README.md"],
        ["consolidate", "--tenant", "acme", "--session", "bad id!"],
    ):
        with pytest.raises(SystemExit) as err:
            main(argv)
        assert err.value.code == 2
    assert "tenant names are 1-64 characters" in capsys.readouterr().err


async def test_doctor_flags_orphan_vectors_and_reconcile_clears_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from core.disk_scan import Needles, scan
    from core.ids import new_id
    from core.settings import Settings
    from vectors.factory import build_vector_index
    from vectors.vector_index import VectorPoint

    data = str(tmp_path / "d")
    code, out, _ = await brain(capsys, "remember", "--data-dir", data, "--tenant", "acme", "Hi")
    assert code == 0
    hi = out.strip()
    # `brain cypher`: a shipped analyst query by name, $tenant bound, no models loaded.
    code, out, _ = await brain(
        capsys,
        "cypher",
        "--data-dir",
        data,
        "--tenant",
        "acme",
        "fact_history",
        "--param",
        f"id={hi}",
    )
    (row,) = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and (row["id"], row["content"], row["current"]) == (hi, "Hi", True)
    for refused, why in [
        ("MATCH (m:Memory {tenant_id: $tenant}) DETACH DELETE m", "DETACH is refused"),
        ("MATCH (m:Memory) RETURN m", "must filter on $tenant"),
    ]:
        code, out, err = await brain(
            capsys, "cypher", "--data-dir", data, "--tenant", "acme", refused
        )
        assert code == 2 and out == "" and why in err
    code, _, err = await brain(
        capsys, "cypher", "--data-dir", data, "--tenant", "acmee", "entity_merges"
    )
    assert code == 2 and "not found" in err
    index = build_vector_index(Settings(data_dir=Path(data)), 384)
    await index.open()
    payload = {"tenant_id": "acme", "type": "fact", "created_at": 1.0, "entity_ids": []}
    stray = new_id()
    await index.upsert([VectorPoint(stray, [1.0] + [0.0] * 383, "stray", payload)])
    await index.close()  # as if an erase died between the graph and the vector delete
    code, out, _ = await brain(capsys, "doctor", "--data-dir", data)
    assert code == 1 and "1 orphan vectors: run `brain reconcile`" in out
    code, _, _ = await brain(capsys, "reconcile", "--data-dir", data)
    assert code == 0
    code, out, _ = await brain(capsys, "doctor", "--data-dir", data)
    assert code == 0 and "tenant acme: 1 memories, 1 vectors, index lag 0" in out
    # The orphan is deleted, but its bytes stay in the shard until `brain compact`.
    vectors = [Path(data) / "vectors"]
    assert scan(vectors, Needles.of([stray])).traces
    for _ in range(2):  # a rebuild works every time (the second one failed before issue 43)
        code, out, _ = await brain(capsys, "compact", "--data-dir", data)
        done = json.loads(out)
        assert code == 0 and done["vectors_compacted"] and done["graph_compacted"]
        assert done["verified"] and done["error"] is None and not done["purge_owed"], done
        assert done["indexes_rebuilt"] > 0 and done["old_index_files_left"] == []
        assert done["index_files_replaced"] > 0
    assert scan(vectors, Needles.of([stray])).traces == ()


async def test_identity_questions_and_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`brain identity`: the open question a conversation left, answered "distinct"."""
    from api.brain import Brain
    from core.ingest_types import TurnInput
    from core.settings import GraphSettings, Settings

    data = str(tmp_path / "data")
    brain_ = await Brain.open(Settings(data_dir=Path(data), graph=GraphSettings(heap="512m")))
    try:
        for session, text in [("a", "Tom is our accountant."), ("b", "Tom from Globex called.")]:
            await brain_.ingest.turns.record_turn(
                "acme", TurnInput(session_id=session, user_id="u1", content=text)
            )
    finally:
        await brain_.close()
    base = ["identity", "--data-dir", data, "--tenant", "acme"]
    code, out, _ = await brain(capsys, *base, "questions")
    assert code == 0
    [question] = [json.loads(line) for line in out.splitlines()]
    assert question["description"] == "Tom, works for Globex"
    [candidate] = question["candidates"]
    assert candidate["description"] == "Tom, accountant"
    code, out, _ = await brain(capsys, *base, "distinct", question["id"], candidate["id"])
    assert code == 0 and json.loads(out)["distinct"] == [question["id"], candidate["id"]]
    code, out, _ = await brain(capsys, *base, "decisions", question["id"])
    [decision] = [json.loads(line) for line in out.splitlines()]
    assert decision["outcome"] == "provisional" and decision["candidates"] == [candidate["id"]]
