"""Write the GraphQL schema to docs/schema.graphql: `python -m api.gql.export` (`make schema`).

A test fails when the checked-in file differs from the code, so every API change is visible
in review."""

from __future__ import annotations

import sys
from pathlib import Path

from api.gql.schema import schema_sdl

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "docs" / "schema.graphql"


def main() -> int:
    SCHEMA_FILE.parent.mkdir(parents=True, exist_ok=True)
    SCHEMA_FILE.write_text(schema_sdl())
    print(f"wrote {SCHEMA_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
