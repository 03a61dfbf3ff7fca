"""`brain graph`: how to connect to the graph with Neo4j Browser, cypher-shell or a driver.

It reads the data directory only (the running engine's ports in ``graph/engine.json``, the
password files), so it starts at once and works beside `brain serve`. docs/GRAPH.md says what
each user may do and which Browser calls the embedded engine answers.
"""

from __future__ import annotations

import json
import sys

from core.settings import Settings
from graph.engine_users import ANALYST_PASSWORD_FILE, ANALYST_USER
from graph.launcher import ROOT_USER, attach_info


def door(settings: Settings, as_json: bool) -> int:
    """Print the connection details; 1 when no engine runs on the data directory."""
    graph = settings.graph
    if graph.uri != "embedded":
        found = {
            "uri": graph.uri,
            "database": graph.database,
            "user": graph.user,
            "note": "a Neo4j server of your own: make read-only users with its own "
            "role management (docs/GRAPH.md, 'Connecting')",
        }
        print(json.dumps(found) if as_json else "\n".join(f"{k}: {v}" for k, v in found.items()))
        return 0
    root = settings.graph_dir
    info = attach_info(root)
    if info is None:
        print(
            f"no graph engine runs on {settings.data_dir.resolve()}: start `brain serve` "
            "(the Bolt port is chosen at each start unless BRAIN_GRAPH__BOLT_PORT is set)",
            file=sys.stderr,
        )
        return 1
    analyst = (root / ANALYST_PASSWORD_FILE).resolve()
    operator = (root / "password").resolve()
    details = {
        "uri": info.uri,
        "database": graph.database,
        "analyst": {"user": ANALYST_USER, "password_file": str(analyst)},
        "root": {"user": ROOT_USER, "password_file": str(operator)},
        "fixed_port": graph.bolt_port is not None,
    }
    if as_json:
        print(json.dumps(details))
        return 0
    port_note = "" if graph.bolt_port else "  (chosen at start: BRAIN_GRAPH__BOLT_PORT fixes it)"
    shell = (
        f'cypher-shell -a {info.uri} -d {graph.database} -u {ANALYST_USER} -p "$(cat {analyst})"'
    )
    print(
        "\n".join(
            [
                f"Graph engine of {settings.data_dir.resolve()} (embedded ArcadeDB, Bolt)",
                "",
                f"  Bolt URL  {info.uri}{port_note}",
                f"  database  {graph.database}",
                f"  {ANALYST_USER:<8}  read-only, for analysts and Neo4j Browser: every tenant's",
                "            memories, entities and links, no API keys; any write is refused",
                f"            password in {analyst}",
                f"  {ROOT_USER:<8}  the operator's door: every tenant, reads and writes",
                f"            password in {operator}",
                "",
                f"Neo4j Browser: connect URL {info.uri}, database {graph.database},"
                f" user {ANALYST_USER}",
                f"cypher-shell:  {shell}",
                "Every node has tenant_id: filter on it. One tenant only: brain cypher --tenant T.",
                "Queries to start from, and what the embedded engine answers: docs/GRAPH.md.",
            ]
        )
    )
    return 0
