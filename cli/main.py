"""The `brain` command line.

    brain serve [--host 127.0.0.1] [--port 8000] [--data-dir PATH] [--demo]
    brain keys create --tenant NAME [--name TEXT] [--admin]   # the key alone on the last line
    brain keys revoke KEY_ID | brain keys list
    brain remember --tenant T [--type fact] [--importance 0.5] [--pinned] CONTENT
    brain search --tenant T [--top-k 10] [--json] QUERY
    brain context --tenant T --session S [--query Q] [--budget N]
    brain ingest --tenant T [--project P] PATH...  # files and folders, with progress
    brain reprofile --tenant T [--ids ID...]
    brain consolidate --tenant T [--project P | --session S] [--task TASK...]
    brain runs --tenant T [--job TASK] [--limit N]  # lifecycle job reports, newest first
    brain identity --tenant T questions [--first N]  # open identity questions (JSON lines)
    brain identity --tenant T same|distinct ENTITY_ID OTHER_ID [--reason TEXT]
    brain identity --tenant T decisions ENTITY_ID    # automatic decisions with their scores
    brain export --tenant T [--out FILE]          # JSONL, lossless
    brain import --tenant T FILE
    brain reconcile | brain health | brain doctor
    brain compact                                 # purge deleted data from the engines' files
    brain cypher --tenant T [--param K=V...] QUERY|FILE|NAME   # read-only, $tenant bound
    brain mcp [--url URL] [--key KEY] [--http PORT]   # MCP server over a running service
    brain graph [--json]                          # Bolt URL, database and users for Browser

While `brain serve` runs on the data directory (or --url / $BRAIN_URL names a service),
remember, search, context, ingest, reprofile, consolidate, runs, identity, doctor, health,
export and cypher are clients of its API (--key / $BRAIN_API_KEY, else the admin key the
service keeps in the data directory); they start in well under a second, importing neither the
models nor the engine drivers. With nothing running they open the engines themselves. import,
reconcile and compact need the data directory to themselves; `brain keys` attaches to a
running server instead.
A port already in use makes `brain serve` exit 1 before the engines start.
Exit codes: 0 success, 1 runtime failure (engine, backend, failed check), 2 bad usage or input.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from cli import remote
from cli.logs import configure_logging
from cli.service_client import CLIENT_COMMANDS, find_service
from cli.service_client import run as run_client
from core.errors import BrainError, InvalidInput, NotFound
from core.lifecycle_types import JobName
from core.settings import Settings
from core.types import MemoryType
from core.validation import check_scope_id, check_tenant_name

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2
# The commands that use a running service when there is one.
SERVICE_COMMANDS = CLIENT_COMMANDS | remote.COMMANDS


def _settings(args: argparse.Namespace) -> Settings:
    overrides: dict[str, object] = {}
    if getattr(args, "data_dir", None):
        overrides["data_dir"] = Path(args.data_dir)
    if getattr(args, "host", None):
        overrides["host"] = args.host
    if getattr(args, "port", None):
        overrides["port"] = args.port
    return Settings(**overrides)  # type: ignore[arg-type]


def _checked(check: Callable[[str], str]) -> Callable[[str], str]:
    """An argparse ``type`` from a core check: bad input is a usage error (exit 2) before
    any engine starts."""

    def parse(value: str) -> str:
        try:
            return check(value)
        except InvalidInput as e:
            raise argparse.ArgumentTypeError(e.message) from None

    return parse


# ``--tenant`` is checked as ``keys create`` checks it, so no command can store data under a
# name no key could reach; project and session ids as the API checks them.
_tenant = _checked(check_tenant_name)
_project = _checked(lambda v: check_scope_id(v, "projectId"))
_session = _checked(lambda v: check_scope_id(v, "sessionId"))
_user = _checked(lambda v: check_scope_id(v, "userId"))


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="brain",
        description="AI Brain: persistent memory for LLM assistants.",
        epilog="Every setting is also an environment variable: BRAIN_DATA_DIR, BRAIN_PORT, ...",
    )
    p.set_defaults(commands=p)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def cmd(name: str, help: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help, description=help)
        sp.add_argument("--data-dir", help="data directory (default: $BRAIN_DATA_DIR or ./data)")
        if name in SERVICE_COMMANDS or name == "mcp":
            sp.add_argument(
                "--url",
                help="a running service to use (default: $BRAIN_URL, else the `brain serve` "
                "running on the data directory, else the engines are opened here)",
            )
            sp.add_argument(
                "--key",
                help="API key for the service (default: $BRAIN_API_KEY, else the admin key "
                "the service keeps in the data directory)",
            )
        return sp

    def tenant(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--tenant", required=True, type=_tenant, help="the tenant to act on")

    serve = cmd("serve", "run the GraphQL API (embedded engines by default)")
    serve.add_argument("--host", help="bind address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default 8000)")
    serve.add_argument("--demo", action="store_true", help="seed a demo tenant and print a key")

    keys = sub.add_parser("keys", help="manage API keys", description="Manage API keys.")
    keys.set_defaults(commands=keys)
    ksub = keys.add_subparsers(dest="keys_command", metavar="ACTION")
    create = ksub.add_parser("create", help="create a key; prints it alone on the last line")
    create.add_argument("--tenant", required=True, type=_tenant, help="tenant the key belongs to")
    create.add_argument("--name", help="a label for the key")
    create.add_argument("--admin", action="store_true", help="may manage tenants")
    revoke = ksub.add_parser("revoke", help="revoke a key by id")
    revoke.add_argument("key_id")
    lst = ksub.add_parser("list", help="list keys (never the keys themselves)")
    for sp in (create, revoke, lst):
        sp.add_argument("--data-dir", help="data directory (default: $BRAIN_DATA_DIR or ./data)")

    remember = cmd("remember", "store one memory")
    tenant(remember)
    remember.add_argument("content")
    remember.add_argument(
        "--type",
        default="fact",
        type=str.lower,
        choices=[t.value for t in MemoryType],
        help="memory type, in either case (default: fact)",
    )
    remember.add_argument("--importance", type=float, default=0.5)
    remember.add_argument("--pinned", action="store_true", help="core memory, always injected")

    search = cmd("search", "search a tenant's current memories")
    tenant(search)
    search.add_argument("query")
    search.add_argument("--top-k", type=int, default=10)
    search.add_argument("--json", action="store_true", help="one JSON object per hit")

    context = cmd("context", "print the assembled context for a session's next model call")
    tenant(context)
    context.add_argument("--session", required=True, type=_session, help="session id")
    context.add_argument("--user", default="cli", type=_user, help="user id (default: cli)")
    context.add_argument("--query", help="what the next model call is about")
    context.add_argument("--budget", type=int, help="token budget (default: the layer budgets)")

    ingest = cmd(
        "ingest",
        "ingest documents: files, or folders walked for text files (hidden ones left out)",
    )
    tenant(ingest)
    ingest.add_argument("paths", nargs="+", metavar="PATH")
    ingest.add_argument("--project", type=_project, help="project id for the documents")

    reprofile = cmd("reprofile", "rebuild living entity profiles (all, or --ids)")
    tenant(reprofile)
    reprofile.add_argument("--ids", nargs="*", help="entity ids (default: every entity)")

    tasks = [j.value for j in JobName]
    consolidate = cmd(
        "consolidate",
        "run lifecycle jobs now (default: all, in order: " + ", ".join(tasks) + "); prints "
        "each job's report; exit 1 when a job failed",
    )
    tenant(consolidate)
    where = consolidate.add_mutually_exclusive_group()
    where.add_argument("--project", type=_project, help="only this project's memories")
    where.add_argument("--session", type=_session, help="only this session's memories")
    consolidate.add_argument(
        "--task", action="append", type=str.lower, choices=tasks, help="a job (repeatable)"
    )

    runs = cmd("runs", "list lifecycle job reports, newest first (JSON lines)")
    tenant(runs)
    runs.add_argument("--job", type=str.lower, choices=tasks, help="only this job")
    runs.add_argument("--limit", type=int, default=20, help="how many (default 20)")

    identity = cmd(
        "identity",
        "curate people told apart from conversation: list open questions (provisional "
        "entities and who they may be), answer same (an undoable merge) or distinct (never "
        "asked again), or show the automatic decisions that weighed an entity",
    )
    tenant(identity)
    identity.add_argument("action", choices=["questions", "same", "distinct", "decisions"])
    identity.add_argument("ids", nargs="*", metavar="ENTITY_ID")
    identity.add_argument("--reason", help="why (same / distinct)")
    identity.add_argument("--first", type=int, default=20, help="questions to list (default 20)")

    export = cmd("export", "write a tenant as JSONL (lossless: chains, merges, aliases)")
    tenant(export)
    export.add_argument("--out", help="file to write (default: stdout)")

    imp = cmd("import", "load a JSONL export into a tenant (ids kept) and index it")
    tenant(imp)
    imp.add_argument("file", help="a file written by `brain export`")

    cmd("reconcile", "re-index unindexed memories, drop orphan vectors")
    cmd(
        "compact",
        "rewrite the embedded engines' files without the bytes of deleted data "
        "(vector shard, graph record pages and indexes)",
    )
    cypher = cmd(
        "cypher",
        "run a read-only Cypher query with $tenant bound (a shipped analyst query by name, "
        "a .cypher file, or the text); one JSON object per row",
    )
    tenant(cypher)
    cypher.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a query parameter (VALUE as JSON when it parses, else a string; repeatable)",
    )
    cypher.add_argument("query", help="fact_history, true_on_date, ... | FILE.cypher | QUERY")
    mcp = cmd(
        "mcp",
        "an MCP server over a running service (stdio; --http PORT for streamable HTTP), "
        "tenant from the key",
    )
    mcp.add_argument("--http", type=int, metavar="PORT", help="serve streamable HTTP on PORT")
    mcp.add_argument("--host", help="bind address with --http (default 127.0.0.1)")
    mcp.add_argument(
        "--user",
        type=_user,
        help="user id of tool calls that name none (default: $BRAIN_USER_ID or 'user')",
    )
    mcp.add_argument(
        "--session",
        type=_session,
        help="session id of tool calls that name none (default: $BRAIN_SESSION_ID or mcp-DATE)",
    )
    cmd("health", "check both engines")
    cmd("doctor", "check the installation, the engines, versions and index lag")
    graph = cmd("graph", "how to connect to the graph (Bolt URL, database, users)")
    graph.add_argument("--json", action="store_true", help="one JSON object")
    return p


def _mcp(args: argparse.Namespace, settings: Settings) -> int:
    """`brain mcp`: the MCP server over the service --url / $BRAIN_URL names (else the one
    running on the data directory)."""
    service = find_service(args, settings)
    if service is None:
        raise InvalidInput(
            "brain mcp needs a running service: pass --url or set BRAIN_URL", field="url"
        )
    from ai_brain.mcp_server import Defaults, run

    defaults = Defaults(
        user_id=args.user or os.environ.get("BRAIN_USER_ID") or "user",
        session_id=args.session or os.environ.get("BRAIN_SESSION_ID") or "",
    )
    host = args.host or "127.0.0.1"
    return run(service.graphql, service.key, http_port=args.http, host=host, defaults=defaults)


def main(argv: Sequence[str] | None = None) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    args = _parser().parse_args(argv)
    if args.command is None or (args.command == "keys" and args.keys_command is None):
        args.commands.print_help()  # bare `brain` or `brain keys`: the list of commands
        return EXIT_OK
    try:
        settings = _settings(args)
        if args.command == "serve":
            configure_logging(settings.log_level, settings.api.log_format, sys.stdout)
            from cli.serve import serve

            return asyncio.run(serve(settings, demo=args.demo))
        configure_logging("warning", "text")  # on stderr: `brain mcp` speaks on stdout
        if args.command == "mcp":
            return _mcp(args, settings)
        if args.command == "graph":
            from cli.graph_door import door

            return door(settings, args.json)
        if args.command in SERVICE_COMMANDS:
            service = find_service(args, settings)
            if service is not None and args.command in remote.COMMANDS:
                return remote.run(args, service)
            if service is not None:
                return run_client(args, service, settings)
        # Nothing running: this command opens the engines (and loads the models) itself.
        from cli import standalone

        return asyncio.run(standalone.run(args, settings))
    except (InvalidInput, NotFound) as e:
        print(f"error: {e.message}", file=sys.stderr)
        return EXIT_USAGE
    except BrainError as e:
        print(f"error: {e.message}", file=sys.stderr)
        return EXIT_FAIL
    except KeyboardInterrupt:
        return EXIT_OK
    except ValueError as e:  # settings from the environment that do not validate
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    logging.captureWarnings(True)
    sys.exit(main())
