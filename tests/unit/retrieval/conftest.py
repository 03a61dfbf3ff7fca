"""The spaCy pipeline the read-path tests parse their turns with, loaded once."""

from __future__ import annotations

from typing import Any

import pytest

from core.settings import Settings


@pytest.fixture(scope="session")
def nlp() -> Any:
    import spacy

    return spacy.load(Settings().resolution.spacy_model)
