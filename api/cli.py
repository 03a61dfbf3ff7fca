"""The `brain` command line.

    brain serve [--host 127.0.0.1] [--port 8000] [--data-dir PATH] [--demo]
    brain keys create --tenant NAME [--name TEXT] [--admin]   # the key alone on the last line
    brain keys revoke KEY_ID
    brain keys list
    brain reconcile
    brain health

Exit codes: 0 success, 1 runtime failure (engine, backend), 2 usage or invalid input.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from core.errors import BrainError, InvalidInput
from core.settings import Settings

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


def _settings(args: argparse.Namespace) -> Settings:
    overrides: dict[str, object] = {}
    if getattr(args, "data_dir", None):
        overrides["data_dir"] = Path(args.data_dir)
    if getattr(args, "host", None):
        overrides["host"] = args.host
    if getattr(args, "port", None):
        overrides["port"] = args.port
    return Settings(**overrides)  # type: ignore[arg-type]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="brain", description="AI Brain: memory for LLM assistants.")
    sub = p.add_subparsers(dest="command", required=True)

    def data_dir(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--data-dir", help="data directory (default: $BRAIN_DATA_DIR or ./data)")

    serve = sub.add_parser("serve", help="run the GraphQL API (embedded engines by default)")
    serve.add_argument("--host", help="bind address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default 8000)")
    serve.add_argument("--demo", action="store_true", help="seed a demo tenant and print a key")
    data_dir(serve)

    keys = sub.add_parser("keys", help="manage API keys")
    ksub = keys.add_subparsers(dest="keys_command", required=True)
    create = ksub.add_parser("create", help="create a key; prints it alone on the last line")
    create.add_argument("--tenant", required=True, help="tenant the key belongs to")
    create.add_argument("--name", help="a label for the key")
    create.add_argument("--admin", action="store_true", help="may manage tenants")
    data_dir(create)
    revoke = ksub.add_parser("revoke", help="revoke a key by id")
    revoke.add_argument("key_id")
    data_dir(revoke)
    data_dir(ksub.add_parser("list", help="list keys (never the keys themselves)"))

    data_dir(sub.add_parser("reconcile", help="re-index unindexed memories, drop orphan vectors"))
    data_dir(sub.add_parser("health", help="check the engines and print counts"))
    return p


async def _keys(args: argparse.Namespace, settings: Settings) -> int:
    from api.auth import create_key, list_keys, revoke_key
    from graph.runtime import open_graph

    runtime = await open_graph(settings, attach=True)
    try:
        if args.keys_command == "create":
            key_id, key = await create_key(runtime.store, args.tenant, args.name, args.admin)
            print(f"created key {key_id} for tenant {args.tenant!r}; it is shown only once:")
            print(key)
        elif args.keys_command == "revoke":
            await revoke_key(runtime.store, args.key_id)
            print(f"revoked {args.key_id}")
        else:
            for row in await list_keys(runtime.store):
                print(json.dumps(row))
    finally:
        await runtime.close()
    return EXIT_OK


async def _with_brain(args: argparse.Namespace, settings: Settings) -> int:
    from api.brain import Brain

    brain = await Brain.open(settings.model_copy(update={"reconcile_on_start": False}))
    try:
        if args.command == "reconcile":
            report = await brain.reconcile()
            print(json.dumps(report.__dict__))
        else:
            h = await brain.health()
            print(json.dumps({"ok": h.ok, "engines": [e.__dict__ for e in h.engines]}))
            return EXIT_OK if h.ok else EXIT_FAIL
    finally:
        await brain.close()
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    try:
        settings = _settings(args)
        if args.command == "serve":
            from api.serve import serve

            return asyncio.run(serve(settings, demo=args.demo))
        if args.command == "keys":
            return asyncio.run(_keys(args, settings))
        return asyncio.run(_with_brain(args, settings))
    except InvalidInput as e:
        print(f"error: {e.message}", file=sys.stderr)
        return EXIT_USAGE
    except BrainError as e:
        print(f"error: {e.message}", file=sys.stderr)
        return EXIT_FAIL
    except KeyboardInterrupt:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
