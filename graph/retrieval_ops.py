"""Tenant graph operations of the read side (entity path, neighbours, access counts).

Statements live in ``cypher/`` like every other; this mixin is composed into ``TenantGraph``.
"""

from __future__ import annotations

from graph.scoped import Scoped


class RetrievalOps(Scoped):
    pass
