"""Service settings, built once at start-up and passed in (nothing reads the environment later).

Every field can be set from the environment with the ``BRAIN_`` prefix; nested groups use a
double underscore: ``BRAIN_DATA_DIR``, ``BRAIN_PORT``, ``BRAIN_GRAPH__URI``,
``BRAIN_VECTOR__URL``, ``BRAIN_EMBEDDER__PROVIDER``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class GraphSettings(BaseModel):
    """Where the entity graph lives.

    ``uri="embedded"`` runs ArcadeDB with its Bolt plugin as a child process under the data
    directory; a ``bolt://`` or ``neo4j://`` URI connects to a server (Neo4j 5 in production).
    """

    uri: str = "embedded"
    user: str = "neo4j"
    password: SecretStr = SecretStr("")
    database: str = "brain"
    bolt_port: int | None = None  # embedded only; a free loopback port when unset
    http_port: int | None = None  # embedded only
    heap: str = "1g"  # embedded only: JVM -Xmx
    startup_timeout: float = 90.0
    pool_size: int = 32

    @field_validator("uri")
    @classmethod
    def _check_uri(cls, value: str) -> str:
        schemes = ("bolt://", "bolt+s://", "bolt+ssc://", "neo4j://", "neo4j+s://", "neo4j+ssc://")
        if value != "embedded" and not value.startswith(schemes):
            raise ValueError("graph uri must be 'embedded' or a bolt:// / neo4j:// URI")
        return value

    @property
    def embedded(self) -> bool:
        return self.uri == "embedded"


class VectorSettings(BaseModel):
    """Where memory vectors live: ``url="embedded"`` is Qdrant Edge in a data directory."""

    url: str = "embedded"
    api_key: SecretStr | None = None
    collection: str = "memories"
    hnsw_m: int = 16
    hnsw_ef_construct: int = 100

    @property
    def embedded(self) -> bool:
        return self.url == "embedded"


class EmbedderSettings(BaseModel):
    provider: Literal["local", "voyage"] = "local"
    model: str = "all-MiniLM-L6-v2"  # local: only the packaged model is available offline
    batch_size: int = 64
    voyage_model: str = "voyage-3.5-lite"
    voyage_api_key: SecretStr | None = None
    voyage_dimension: int = 512
    device: str = "cpu"
    threads: int | None = None  # torch intra-op threads; None leaves torch's default


class LimitSettings(BaseModel):
    max_content_chars: int = 32_000
    max_batch: int = 1_000
    max_top_k: int = 100


class Settings(BaseSettings):
    """All settings. ``Settings()`` reads ``BRAIN_*`` variables; tests pass values directly."""

    model_config = SettingsConfigDict(
        env_prefix="BRAIN_", env_nested_delimiter="__", env_file=None, extra="ignore"
    )

    data_dir: Path = Path("data")
    host: str = "127.0.0.1"
    port: int = 8000
    log_level: str = "info"
    graph: GraphSettings = Field(default_factory=GraphSettings)
    vector: VectorSettings = Field(default_factory=VectorSettings)
    embedder: EmbedderSettings = Field(default_factory=EmbedderSettings)
    limits: LimitSettings = Field(default_factory=LimitSettings)
    reconcile_on_start: bool = True

    @property
    def graph_dir(self) -> Path:
        return self.data_dir / "graph"

    @property
    def vector_dir(self) -> Path:
        return self.data_dir / "vectors"
