"""Framework adapters over ``ai_brain.client``: AI Brain as the memory of agent frameworks.

- ``ai_brain.adapters.langgraph.AIBrainStore``: LangGraph's long-term ``BaseStore``
  (``pip install 'ai-brain[langgraph]'``);
- ``ai_brain.adapters.langchain.AIBrainChatMessageHistory``: LangChain's chat message history
  (``pip install 'ai-brain[langchain]'``);
- ``ai_brain.adapters.llamaindex.AIBrainMemoryBlock``: a LlamaIndex ``Memory`` block
  (``pip install 'ai-brain[llamaindex]'``).

Each module imports its framework, and only when it is imported itself (the names above are
also reachable here, loaded on first use): ``ai_brain.client`` never needs any of them.
docs/CLIENT.md ("Framework adapters") gives each mapping and its limits.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_MODULES = {
    "AIBrainStore": "ai_brain.adapters.langgraph",
    "AIBrainChatMessageHistory": "ai_brain.adapters.langchain",
    "AIBrainMemoryBlock": "ai_brain.adapters.llamaindex",
}

__all__ = sorted(_MODULES)


def __getattr__(name: str) -> Any:
    """An adapter class, its framework imported now (PEP 562)."""
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(module), name)
