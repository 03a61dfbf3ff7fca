"""Task extraction rules: the seed confidences and formula, and precision on the labelled set
tests/data/ingest/tasks.jsonl (65 utterances, hard negatives included)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.ingest_types import TaskPriority
from core.settings import IngestSettings
from ingest.extract.task_rules import find_tasks
from ingest.tasks import priority_of

DATA = Path(__file__).resolve().parents[2] / "data" / "ingest" / "tasks.jsonl"


def test_seed_signals_and_formula() -> None:
    todo = find_tasks("TODO: update the style guide")[0]
    assert todo.signal == 0.90 and todo.density == 1.0
    assert todo.confidence() == pytest.approx(0.90 * 0.6 + 1.0 * 0.25)
    assert todo.confidence(prior_mentions=2) == pytest.approx(0.90 * 0.6 + 0.25 + 0.15)
    assert find_tasks("Don't forget to email Sarah", ["Sarah"])[0].signal == 0.85
    assert find_tasks("I need to call Anderson about the order", ["Anderson"])[0].signal == 0.80
    before = find_tasks("Before we can launch, we need to update the DNS records.")[0]
    assert before.signal == 0.78 and before.content.endswith("(before we can launch)")
    assert find_tasks("TODO: urgent fix the prod deploy")[0].signal == pytest.approx(1.0)


def test_thresholds_give_priorities() -> None:
    s = IngestSettings()
    assert priority_of(0.69, s) is None
    assert priority_of(0.70, s) is TaskPriority.MEDIUM
    assert priority_of(0.85, s) is TaskPriority.HIGH


def test_duplicates_in_one_turn_are_one_task() -> None:
    found = find_tasks("TODO: send the report. Todo: Send the report!")
    assert len(found) == 1


def test_precision_on_the_labelled_set() -> None:
    rows = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
    assert len(rows) >= 60
    tp = fp = fn = 0
    for row in rows:
        found = [c for c in find_tasks(row["text"], row["entities"]) if c.confidence() >= 0.70]
        if found and row["task"]:
            tp += 1
        elif found:
            fp += 1
        elif row["task"]:
            fn += 1
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    print(f"task extraction: precision {precision:.3f} recall {recall:.3f} on {len(rows)}")
    assert precision >= 0.95
    assert recall >= 0.90
