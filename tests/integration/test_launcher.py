"""The embedded ArcadeDB launcher: lock, password file, attach, readiness errors."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from core.errors import BackendError, EngineStartError
from core.settings import GraphSettings, Settings
from graph.launcher import EmbeddedGraphEngine, attach_info
from graph.runtime import GraphRuntime

pytestmark = pytest.mark.integration


def test_a_second_engine_cannot_open_the_same_directory(
    settings: Settings, embedded_graph: GraphRuntime
) -> None:
    with pytest.raises(BackendError, match="already uses"):
        EmbeddedGraphEngine(settings.graph_dir.resolve(), settings.graph).start()
    assert embedded_graph.engine is not None and embedded_graph.engine.running


def test_password_is_private_and_attach_finds_the_running_engine(
    settings: Settings, embedded_graph: GraphRuntime
) -> None:
    root = settings.graph_dir.resolve()
    mode = stat.S_IMODE((root / "password").stat().st_mode)
    assert mode == 0o600
    assert stat.S_IMODE((root / "jvm.args").stat().st_mode) == 0o600
    info = attach_info(root)
    assert embedded_graph.engine is not None
    assert info == embedded_graph.engine.info


def test_the_engine_heap_is_sized_once(settings: Settings, embedded_graph: GraphRuntime) -> None:
    # Initial heap = maximum: a growing heap's small young generation promotes short-lived
    # objects and the old generation then needs full collections under load.
    args = (settings.graph_dir.resolve() / "jvm.args").read_text().split()
    assert f'"-Xms{settings.graph.heap}"' in args
    assert f'"-Xmx{settings.graph.heap}"' in args


def test_a_new_database_gives_each_type_several_buckets(
    settings: Settings, embedded_graph: GraphRuntime
) -> None:
    # Concurrent turns of one tenant insert memories into different pages (issue 43, item 3):
    # the engine made the buckets, one file each.
    files = (settings.graph_dir.resolve() / "databases" / settings.graph.database).iterdir()
    buckets = {f.name.split(".")[0] for f in files if f.name.endswith(".bucket")}
    for label in ("Memory", "Entity", "Alias", "Session"):
        assert {f"{label}_{i}" for i in range(settings.graph.type_buckets)} <= buckets
    assert settings.graph.type_buckets > 1


def test_no_attach_without_a_running_engine(tmp_path: Path) -> None:
    assert attach_info(tmp_path) is None


def test_readiness_timeout_reports_the_log_tail(tmp_path: Path) -> None:
    engine = EmbeddedGraphEngine(tmp_path / "graph", GraphSettings(startup_timeout=0.2, heap="64m"))
    with pytest.raises(EngineStartError) as err:
        engine.start()
    assert "did not become ready" in str(err.value)
    assert not engine.running
    # the lock was released: a normal start on the same directory works
    ok = EmbeddedGraphEngine(tmp_path / "graph", GraphSettings(heap="256m"))
    try:
        info = ok.start()
        assert info.bolt_port > 0
    finally:
        ok.stop()
    assert not (tmp_path / "graph" / "engine.json").exists()
