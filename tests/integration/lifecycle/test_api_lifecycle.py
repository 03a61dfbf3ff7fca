"""The lifecycle through GraphQL: consolidate, jobRuns, recordFeedback, memoryMerges,
unmergeMemory, and their typed errors."""

from __future__ import annotations

import pytest

from api.auth import create_key
from api.brain import Brain
from core.types import NewMemory
from tests.integration.api_client import Client

pytestmark = pytest.mark.integration

CONSOLIDATE = """
mutation($scope: ConsolidateScope, $tasks: [ConsolidationTask!]) {
  consolidate(scope: $scope, tasks: $tasks) {
    __typename
    ... on ConsolidationReport { ok scope durationMs
      runs { id job status trigger scope durationMs error counts { name value } } }
    ... on InvalidInputError { field message }
  }
}"""
FEEDBACK = """
mutation($input: FeedbackInput!) {
  recordFeedback(input: $input) {
    __typename
    ... on FeedbackReport { helpful outcome changes { memoryId before after } }
    ... on InvalidInputError { field }
    ... on NotFoundError { kind id }
  }
}"""


async def _client(brain: Brain, tenant_id: str) -> Client:
    _, key = await create_key(brain.graph, tenant_id)
    return Client(brain, key)


async def test_consolidate_merge_then_undo_through_the_api(brain: Brain, tenant_id: str) -> None:
    api = await _client(brain, tenant_id)
    first, second = await brain.memories.remember_many(
        tenant_id,
        [
            NewMemory(content="The Anderson account renews every January.", importance=0.4),
            NewMemory(content="The Anderson account renews every January", importance=0.6),
        ],
    )
    data = await api.data(CONSOLIDATE, tasks=["MERGE_DUPLICATES", "REPROFILE"])
    report = data["consolidate"]
    assert report["__typename"] == "ConsolidationReport" and report["ok"]
    assert [r["job"] for r in report["runs"]] == ["MERGE_DUPLICATES", "REPROFILE"]
    merge_run = report["runs"][0]
    assert merge_run["status"] == "DONE" and merge_run["trigger"] == "manual"
    assert {"name": "merged", "value": 1} in merge_run["counts"]

    loser = first.id if (await brain.memories.get(tenant_id, first.id)).merged_into else second.id
    winner = second.id if loser == first.id else first.id
    node = await api.data(
        f'{{ memory(id: "{loser}") {{ ... on Memory {{ current mergedIntoId }} }} }}'
    )
    assert node["memory"] == {"current": False, "mergedIntoId": winner}
    merges = await api.data(
        f'{{ memoryMerges(memoryId: "{winner}") {{ ... on MemoryMergeList {{ merges {{ loserId winnerId similarity }} }} }} }}'
    )
    assert merges["memoryMerges"]["merges"][0]["loserId"] == loser
    undone = await api.data(
        f'mutation {{ unmergeMemory(id: "{loser}") {{ __typename ... on Memory {{ current }} }} }}'
    )
    assert undone["unmergeMemory"] == {"__typename": "Memory", "current": True}
    again = await api.data(f'mutation {{ unmergeMemory(id: "{loser}") {{ __typename }} }}')
    assert again["unmergeMemory"]["__typename"] == "InvalidInputError"

    runs = await api.data(
        "{ jobRuns(first: 1) { ... on JobRunConnection { edges { node { job } }"
        " pageInfo { hasNextPage endCursor } } } }"
    )
    page = runs["jobRuns"]
    assert page["edges"][0]["node"]["job"] == "REPROFILE" and page["pageInfo"]["hasNextPage"]
    cursor = page["pageInfo"]["endCursor"]
    rest = await api.data(
        f'{{ jobRuns(first: 5, after: "{cursor}") {{ ... on JobRunConnection {{ edges {{ node {{ job }} }} }} }} }}'
    )
    assert [e["node"]["job"] for e in rest["jobRuns"]["edges"]] == ["MERGE_DUPLICATES"]


async def test_consolidate_scope_and_tasks_are_validated(brain: Brain, tenant_id: str) -> None:
    api = await _client(brain, tenant_id)
    both = await api.data(CONSOLIDATE, scope={"projectId": "p", "sessionId": "s"})
    assert both["consolidate"]["__typename"] == "InvalidInputError"
    tenant_and = await api.data(CONSOLIDATE, scope={"tenant": True, "projectId": "p"})
    assert tenant_and["consolidate"]["__typename"] == "InvalidInputError"
    bad_task = await api.gql(CONSOLIDATE, tasks=["DEFRAG"])
    assert "errors" in bad_task and "DEFRAG" in bad_task["errors"][0]["message"]
    scoped = await api.data(CONSOLIDATE, scope={"projectId": "p-1"}, tasks=["DECAY"])
    assert scoped["consolidate"]["scope"] == "project:p-1"
    assert await brain.lifecycle.runs(tenant_id, first=10) != []


async def test_record_feedback_through_the_api(brain: Brain, tenant_id: str) -> None:
    api = await _client(brain, tenant_id)
    memory = await brain.memories.remember(
        tenant_id, NewMemory(content="Briefs go out on Mondays.")
    )
    ok = await api.data(
        FEEDBACK,
        input={
            "sessionId": "s-1",
            "memoryIds": [memory.id],
            "helpful": True,
            "outcome": "POSITIVE",
        },
    )
    assert ok["recordFeedback"]["changes"] == [
        {"memoryId": memory.id, "before": 0.5, "after": pytest.approx(0.65)}
    ]
    assert ok["recordFeedback"]["outcome"] == "POSITIVE"
    for bad, typename in (
        ({"sessionId": "s-1", "memoryIds": [], "helpful": True}, "InvalidInputError"),
        ({"sessionId": "s-1", "memoryIds": ["not-an-id"], "helpful": True}, "InvalidInputError"),
        ({"sessionId": "bad id!", "memoryIds": [memory.id], "helpful": True}, "InvalidInputError"),
        (
            {
                "sessionId": "s-1",
                "memoryIds": [memory.id, "00000000-0000-4000-8000-00000000beef"],
                "helpful": False,
            },
            "NotFoundError",
        ),
    ):
        result = await api.data(FEEDBACK, input=bad)
        assert result["recordFeedback"]["__typename"] == typename, bad
    assert (await brain.memories.get(tenant_id, memory.id)).importance == pytest.approx(0.65)
