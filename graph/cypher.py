"""Named Cypher statements, one per file under ``cypher/``, loaded once and cached.

Tenant statements (``cypher/*.cypher``) must use ``$tenant``: the loader refuses one that does
not, so a query that forgets the tenant cannot ship. System statements (``cypher/system/``)
are the few that legitimately span tenants (tenant list, API keys) and are reachable only
through ``GraphStore.system``.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

CYPHER_DIR = Path(__file__).resolve().parent.parent / "cypher"
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_TENANT_PARAM = re.compile(r"\$tenant\b")


class CypherError(RuntimeError):
    """A statement file is missing or breaks the tenancy rule (a programming error)."""


def _strip_comments(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))


@cache
def statement(name: str, *, system: bool = False) -> str:
    """The text of ``cypher/[system/]<name>.cypher`` (comments removed)."""
    if not _NAME.match(name):
        raise CypherError(f"bad statement name {name!r}")
    path = CYPHER_DIR / ("system" if system else "") / f"{name}.cypher"
    if not path.is_file():
        raise CypherError(f"no Cypher statement {path}")
    text = _strip_comments(path.read_text()).strip()
    if not system and not _TENANT_PARAM.search(text):
        raise CypherError(f"{path.name} does not use $tenant: every tenant query must")
    return text


def all_statements() -> dict[str, str]:
    """Every statement, keyed by ``name`` or ``system/name`` (used by tests and start-up)."""
    out = {p.stem: statement(p.stem) for p in sorted(CYPHER_DIR.glob("*.cypher"))}
    for p in sorted((CYPHER_DIR / "system").glob("*.cypher")):
        out[f"system/{p.stem}"] = statement(p.stem, system=True)
    return out
