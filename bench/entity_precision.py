"""Entities made from text the project did not write (issue 39): documents and a conversation.

    python -m bench.entity_precision --doc FILE [--doc FILE ...] [--locomo FILE ...] [--turns 150]
        [--start 0] [--labels bench/data/entity_labels.json]

Opens fresh embedded engines and goes through the public GraphQL API only: each document in a
tenant of its own (after a few seeded turns naming people, so that linking to known entities
shows), by ``ingestDocument`` (a job is waited for), then the LoCoMo conversation's first
``--turns`` turns by ``recordTurn`` in a tenant of its own. Prints, per document and per
conversation, the entities before and after, every new entity (name and type) and the open
identity questions. With ``--labels`` (names labelled by hand, ``bench/data/entity_labels.json``)
it scores them too (``bench/entity_scores.py``): precision (a made entity is a named thing),
typed precision (and of the right type), and recall per type. With ``--out`` the lists and
the scores are written as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

import httpx

from api.app import create_app
from api.auth import create_key
from api.brain import Brain
from bench.common import scratch_brain
from bench.entity_scores import print_scores, scores

SEED = (
    "Peter Novak is one of our writers at Wolf of Blog Street.",
    "Sarah Hale is the head of procurement at Brightline.",
    "Kenneth Reitz started the project we depend on.",
)
INGEST = """mutation($path: String!, $text: String!) {
  ingestDocument(input: {sourcePath: $path, text: $text}) { __typename
    ... on DocumentJob { id } ... on DocumentResult { version }
    ... on InvalidInputError { message } } }"""
JOB = """query($id: ID!) { documentJob(id: $id) { __typename
  ... on DocumentJob { status error } } }"""
TURN = """mutation($s: String!, $c: String!, $speaker: String) {
  recordTurn(input: {sessionId: $s, userId: "u1", content: $c, speaker: $speaker}) {
  __typename } }"""
ENTITIES = """query($after: String) { entities(first: 100, after: $after) { __typename
  ... on EntityConnection { edges { node { name type } } pageInfo { hasNextPage endCursor } } } }"""
QUESTIONS = """{ identityQuestions(first: 100) { __typename
  ... on IdentityQuestionConnection { edges { node { entity { name } description } } } } }"""


class Client:
    """GraphQL over the app in process (httpx's ASGI transport), as one tenant's key."""

    def __init__(self, brain: Brain, key: str) -> None:
        transport = httpx.ASGITransport(app=create_app(brain.settings, brain))
        self.http = httpx.AsyncClient(transport=transport, base_url="http://bench", timeout=600)
        self.headers = {"Authorization": f"Bearer {key}"}

    async def data(self, query: str, **variables: Any) -> dict[str, Any]:
        resp = await self.http.post(
            "/graphql", json={"query": query, "variables": variables}, headers=self.headers
        )
        body: dict[str, Any] = resp.json()
        if resp.status_code != 200 or body.get("errors"):
            raise RuntimeError(f"{resp.status_code}: {body}")
        data: dict[str, Any] = body["data"]
        return data


async def entities(client: Client) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    after = None
    while True:
        page = (await client.data(ENTITIES, after=after))["entities"]
        out += [(e["node"]["name"], e["node"]["type"]) for e in page["edges"]]
        if not page["pageInfo"]["hasNextPage"]:
            return out
        after = page["pageInfo"]["endCursor"]


async def questions(client: Client) -> list[str]:
    edges = (await client.data(QUESTIONS))["identityQuestions"]["edges"]
    return [e["node"]["entity"]["name"] for e in edges]


async def tenant_client(brain: Brain, tenant: str) -> Client:
    _, key = await create_key(brain.graph, tenant)
    return Client(brain, key)


async def one_document(brain: Brain, path: Path, n: int) -> dict[str, Any]:
    client = await tenant_client(brain, f"doc-{n}")
    for i, text in enumerate(SEED):
        await client.data(TURN, s=f"seed-{i}", c=text, speaker=None)
    before = await entities(client)
    answer = (await client.data(INGEST, path=path.name, text=path.read_text()))["ingestDocument"]
    if answer["__typename"] == "DocumentJob":
        while True:
            job = (await client.data(JOB, id=answer["id"]))["documentJob"]
            if job["status"] in ("DONE", "FAILED", "SUCCEEDED", "COMPLETED"):
                break
            await asyncio.sleep(1)
    elif answer["__typename"] != "DocumentResult":
        raise SystemExit(f"{path}: {answer}")
    after = await entities(client)
    new = [e for e in after if e not in before]
    return {
        "document": path.name,
        "chars": len(path.read_text()),
        "before": len(before),
        "after": len(after),
        "new": new,
        "questions": await questions(client),
    }


async def conversation(brain: Brain, path: Path, turns: int, start: int) -> dict[str, Any]:
    name = f"locomo-{path.stem}" + (f"@{start}" if start else "")
    client = await tenant_client(brain, name.replace("@", "-from-"))
    data = json.loads(path.read_text())
    said: list[tuple[str, str, str]] = []
    k = 1
    while f"session_{k}" in data and len(said) < start + turns:
        said += [(f"s{k}", t["speaker"], t["text"]) for t in data[f"session_{k}"]]
        k += 1
    said = said[start : start + turns]
    for session, speaker, text in said:
        await client.data(TURN, s=session, c=text, speaker=speaker)
    found = await entities(client)
    return {
        "conversation": name,
        "turns": len(said),
        "new": found,
        "questions": await questions(client),
    }


async def run(docs: list[Path], locomo: list[Path], turns: int, start: int) -> dict[str, Any]:
    async with scratch_brain() as brain:
        try:
            out: dict[str, Any] = {"documents": [], "conversations": []}
            for n, path in enumerate(docs):
                out["documents"].append(await one_document(brain, path, n))
            for path in locomo:
                out["conversations"].append(await conversation(brain, path, turns, start))
            return out
        finally:
            await brain.ingest.document_jobs.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--doc", type=Path, action="append", default=[])
    parser.add_argument("--locomo", type=Path, action="append", default=[])
    parser.add_argument("--turns", type=int, default=150)
    parser.add_argument("--start", type=int, default=0, help="the conversations' first turn")
    parser.add_argument("--labels", type=Path, help="names labelled by hand, to score against")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    out = asyncio.run(run(args.doc, args.locomo, args.turns, args.start))
    for d in out["documents"]:
        print(f"{d['document']} ({d['chars']} chars): {d['before']} -> {d['after']} entities")
        for name, etype in d["new"]:
            print(f"   + {etype:8} {name!r}")
        print(f"   identity questions: {d['questions']}")
    for c in out["conversations"]:
        print(f"{c['conversation']}, {c['turns']} turns: {len(c['new'])} entities")
        for name, etype in c["new"]:
            print(f"   + {etype:8} {name!r}")
        print(f"   identity questions: {c['questions']}")
    if args.labels:
        labels = json.loads(args.labels.read_text())
        made = {d["document"]: d["new"] for d in out["documents"]}
        made |= {c["conversation"]: c["new"] for c in out["conversations"]}
        out["scores"] = scores(made, labels)
        print_scores(out["scores"])
    if args.out:
        args.out.write_text(json.dumps(out, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
