"""The JSONL export format of a tenant: a header line, then one record per line.

Written by `brain export` from the engines it opened, or streamed by a running service at
``GET /export`` (which `brain export` reads when a service holds the data directory).
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator

from api.brain import Brain

EXPORT_VERSION = 1


async def export_lines(brain: Brain, tenant_id: str) -> AsyncIterator[str]:
    """The tenant's export, line by line (each ends with a newline)."""
    header = {"kind": "header", "version": EXPORT_VERSION, "tenant": tenant_id, "at": time.time()}
    yield json.dumps(header) + "\n"
    async for record in brain.transfer.export(tenant_id):
        yield json.dumps(record, sort_keys=True) + "\n"
