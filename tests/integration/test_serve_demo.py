"""Each `brain serve --demo` start makes one demo key and revokes the previous start's."""

from __future__ import annotations

import pytest

from api.auth import authenticate, list_keys
from api.brain import Brain
from cli.demo import DEMO_TENANT
from cli.serve import DEMO_KEY_NAME, _demo_key
from core.errors import Forbidden

pytestmark = pytest.mark.integration


async def test_a_demo_start_revokes_the_key_the_last_one_made(brain: Brain) -> None:
    first = await _demo_key(brain)
    second = await _demo_key(brain)
    with pytest.raises(Forbidden):
        await authenticate(brain.graph, f"Bearer {first}")
    assert (await authenticate(brain.graph, f"Bearer {second}")).tenant_id == DEMO_TENANT
    demo_keys = [
        k
        for k in await list_keys(brain.graph)
        if k["tenant_id"] == DEMO_TENANT and k.get("name") == DEMO_KEY_NAME
    ]
    assert [k["revoked_at"] is None for k in demo_keys].count(True) == 1
