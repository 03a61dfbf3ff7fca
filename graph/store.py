"""GraphStore: the Bolt connection, schema installation, and the tenant-scoped entry point.

The only way to reach tenant data is ``store.tenant(tenant_id)``, which returns a
``TenantGraph`` whose every statement receives that tenant as ``$tenant``; statements that
forget ``$tenant`` are refused when loaded (``graph/cypher.py``). The same code runs against
the embedded ArcadeDB and a Neo4j server: both speak Bolt and the same Cypher.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

from neo4j import (
    READ_ACCESS,
    AsyncDriver,
    AsyncGraphDatabase,
    AsyncManagedTransaction,
)
from neo4j.exceptions import ConstraintError, Neo4jError, ServiceUnavailable, SessionExpired

from core.errors import BackendError, Conflict, EngineUnavailable
from core.locks import StripedLocks, WriteGates
from graph.migrate_times import LOCAL_MIGRATION as LOCAL_TIMES
from graph.migrate_times import MIGRATION as MIGRATE_TIMES
from graph.migrate_times import localize_times, migrate_times
from graph.records import from_graph, to_graph
from graph.runner import Rows, Runner
from graph.schema import quoted_schema_name, schema_statements
from graph.system_ops import SystemGraph
from graph.tenant import TenantGraph

log = logging.getLogger(__name__)

T = TypeVar("T")
RETRY_DELAY = 0.02  # seconds before a failed transaction's first retry (doubled each time)
# Write conflicts (ArcadeDB: two transactions of one tenant changing one record, or appending
# links to one entity; sent over Bolt as transient errors, DeadlockDetected among them) are
# retried here, not by the driver, whose waits double up to its 30 s budget (18 s waits
# under 16 writers, then a DeadlockDetected to the caller): a random wait of up to
# RETRY_DELAY * 2^n, never above RETRY_CAP, and from the SERIALIZE_AFTER-th retry on, the
# retries of one tenant run one at a time (a transaction that keeps losing stops racing the
# other losers). A transaction that still loses asks for its tenant's write gate
# (``core.locks.WriteGates``: the writes inside finish, new ones wait) after GATE_AFTER
# retries, and for every tenant's after GATE_ALL_AFTER: a long transaction (a document
# version's publish) is not starved by a stream of short ones, which is what ArcadeDB's
# optimistic commits do to it otherwise (a 300-chunk publish lost to a ``remember`` every
# 100 ms for 20 s, every time). RETRY_BUDGET bounds the time spent retrying one transaction.
RETRY_CAP = 0.25  # seconds
SERIALIZE_AFTER = 2  # retries
GATE_AFTER = 4  # retries
GATE_ALL_AFTER = 8  # retries
RETRY_BUDGET = 20.0  # seconds
# ArcadeDB can fail a write transaction that follows a link another transaction committed
# while it ran to a record its own (already written) pages do not hold yet: "Record not
# found", sent over Bolt as this client error, not as a transient one. Run again, the
# transaction reads the committed state (a read-then-write race across processes; seen on
# two supersedes of one memory at once).
STALE_READ = "Neo.ClientError.Statement.EntityNotFound"
STALE_READ_ATTEMPTS = 4
# Two transactions that MERGE the same new node (a tenant's node on its first writes, a new
# name's alias node) collide on its unique key at commit, and the loser's retry finds the
# node. A turn can lose such races on several keys in turn (the tenant's node, then an
# alias: two turns of the first writes of a tenant failed so, as ConflictErrors), so a
# violation is retried up to this many times; a real one fails every time and raises
# Conflict.
CONSTRAINT_ATTEMPTS = 4
# Data migrations, in order: cypher/system/migrate_<name>.cypher, each applied once.
MIGRATIONS = (
    "pinned_key",
    "task_tenant",
    "restore_flushed_turns",
    "restore_pruned",
    "restore_summarized",
    MIGRATE_TIMES,  # graph/migrate_times.py: floats to native datetimes, in batches
    LOCAL_TIMES,  # graph/migrate_times.py: the embedded engine's zoned datetimes made local
)
# The name ``read_text`` runs under: its parameters and rows are not translated.
ANALYST = "analyst"
# The statements of the write transaction being run in this task (None outside one).
_sent: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("sent", default=None)


class GraphStore:
    """A connection to the graph database. Create with ``connect``; close with ``close``."""

    def __init__(self, driver: AsyncDriver, database: str, bolt5: bool = False) -> None:
        self._driver = driver
        self._database = database
        # The server speaks Bolt 5 or later: times go out as the structures the driver would
        # pack for them, made without its pure-Python conversion (``records.bolt_time``).
        self._bolt5 = bolt5
        self.round_trips = 0  # statements sent; tests use it to prove batching
        # Write transactions per tenant in this process that may change its entities: a cache
        # of the tenant's entities is valid only while this number has not moved
        # (``entity_writes_of``).
        self._entity_writes: dict[str, int] = {}
        self.observer: Callable[[str, float], None] | None = None  # (statement, seconds)
        # Called with a write transaction's first statement each time the driver runs it
        # again after a transient error (ArcadeDB: a write conflict with another transaction).
        self.on_retry: Callable[[str], None] | None = None
        self.retries = 0  # write transactions run again; the API exports it as a metric
        # Retries of one key (a tenant) after SERIALIZE_AFTER conflicts run one at a time.
        self._retry_locks = StripedLocks(64)
        self._gates = WriteGates(64)
        self.system = SystemGraph(self)
        # Why the engine cannot be reached (None: it can), and the calls waiting on it now:
        # when the engine goes away they are cut short rather than left to the driver, which
        # retries a transaction for up to 30 s.
        self._unavailable: str | None = None
        self._open_calls: set[asyncio.Timeout] = set()

    @property
    def packs_times(self) -> bool:
        """Times go out as packed Bolt 5 structures (``records.bolt_time``), not datetimes."""
        return self._bolt5

    @classmethod
    async def connect(
        cls, uri: str, user: str, password: str, database: str, pool_size: int = 32
    ) -> GraphStore:
        driver, bolt5 = await _driver(uri, user, password, pool_size)
        return cls(driver, database, bolt5)

    async def close(self) -> None:
        await self._driver.close()

    # -- availability (the embedded engine's supervisor drives it; see graph/supervisor.py) ---

    @property
    def available(self) -> bool:
        return self._unavailable is None

    def mark_unavailable(self, reason: str) -> None:
        """The engine is gone: every call fails at once with EngineUnavailable, and the calls
        waiting on it now are cut short. Call from the event loop's thread."""
        self._unavailable = reason
        loop = asyncio.get_running_loop()
        for deadline in list(self._open_calls):
            deadline.reschedule(loop.time())

    def mark_available(self) -> None:
        self._unavailable = None

    async def reconnect(self, uri: str, user: str, password: str, pool_size: int = 32) -> None:
        """Connect a new driver (the engine came back, perhaps on other ports) and drop the
        old one with its dead connections."""
        old = self._driver
        self._driver, self._bolt5 = await _driver(uri, user, password, pool_size)
        with contextlib.suppress(Exception):  # its connections are dead already
            await asyncio.wait_for(old.close(), 5.0)

    @contextlib.asynccontextmanager
    async def _engine_call(self) -> AsyncIterator[None]:
        """Fail fast while the engine is unavailable, and let ``mark_unavailable`` cut this
        call short (an ``asyncio.timeout`` without a deadline until then: nothing scheduled)."""
        if self._unavailable is not None:
            raise EngineUnavailable(f"graph engine unavailable: {self._unavailable}")
        try:
            async with asyncio.timeout(None) as deadline:
                self._open_calls.add(deadline)
                try:
                    yield
                finally:
                    self._open_calls.discard(deadline)
        except TimeoutError as e:
            if not deadline.expired():
                raise
            reason = self._unavailable or "the engine went away"
            raise EngineUnavailable(f"graph engine unavailable: {reason}") from e

    def tenant(self, tenant_id: str) -> TenantGraph:
        """The tenant-scoped view: the only door to tenant data."""
        return TenantGraph(self, tenant_id)

    async def install_schema(self) -> None:
        """Create constraints and indexes if missing, then apply the data migrations this
        database has not had yet; safe to run at every start-up."""
        for text in schema_statements():
            await self._ddl(text)
        await self._migrate()

    async def rebuild_indexes(self) -> int:
        """Drop every index, and every constraint that owns one, then create the schema's
        again; returns how many indexes were dropped. The engine deletes a dropped index's
        files and builds the new one from the live records, so keys of deleted records leave
        the disk (an LSM index keeps them, beside their tombstones, until then).

        Constraints that own no index hold no keys and stay: ArcadeDB reports a property's
        declared type as a ``NODE_PROPERTY_TYPE`` constraint (it declares one when an index is
        built over existing records) and refuses to drop it while an index covers the
        property — which made every rebuild after the first fail before it dropped anything.

        Idempotent and resumable: whatever fails or stops it, the schema is whole again at the
        end or at the next start-up (``CREATE ... IF NOT EXISTS``), and a later call rebuilds
        from there. Only while nothing else writes: between the drop and the create,
        uniqueness is not enforced.
        """
        dropped = 0
        try:
            constraints = await self._execute_read(lambda tx: self._run(tx, "SHOW CONSTRAINTS", {}))
            for row in constraints:
                if row.get("ownedIndex"):  # a uniqueness constraint: its index goes with it
                    await self._ddl(f"DROP CONSTRAINT {quoted_schema_name(row['name'])} IF EXISTS")
                    dropped += 1
            indexes = await self._execute_read(lambda tx: self._run(tx, "SHOW INDEXES", {}))
            for row in indexes:
                # Neo4j's token lookup indexes stay; an index a constraint still owns went with it
                if row.get("type") != "LOOKUP" and not row.get("owningConstraint"):
                    await self._ddl(f"DROP INDEX {quoted_schema_name(row['name'])} IF EXISTS")
                    dropped += 1
        finally:  # whatever happened above, the schema is whole again (IF NOT EXISTS)
            for text in schema_statements():
                await self._ddl(text)
        return dropped

    async def read_text(self, text: str, params: dict[str, Any]) -> Rows:
        """Run ``text`` as a read (READ access mode): only for queries ``graph.analyst`` has
        checked, since ArcadeDB runs writes in a read transaction all the same."""
        return await self._execute_read(lambda tx: self._run(tx, text, params, ANALYST))

    async def _ddl(self, text: str) -> None:
        async def ddl(tx: AsyncManagedTransaction) -> Rows:
            return await self._run(tx, text, {})

        await self._execute_write(ddl)

    async def _migrate(self) -> None:
        """Run each of ``MIGRATIONS`` (``cypher/system/migrate_<name>.cypher``, or
        ``graph/migrate_times.py`` for the datetime conversion) once per database: a
        ``Migration`` node records it. A migration is idempotent, so a crash
        between running it and recording it only means it runs again."""
        system = self.system
        for name in MIGRATIONS:
            if await system.migration_applied(name):
                continue
            if name == MIGRATE_TIMES:
                changed = await migrate_times(self._run_alone, local=await self._local_times())
            elif name == LOCAL_TIMES:
                changed = await localize_times(self._run_alone) if await self._local_times() else 0
            else:
                rows = await system.write(f"migrate_{name}")
                changed = int(rows[0]["changed"] or 0) if rows else 0
            await system.record_migration(name, time.time(), changed)
            log.info("graph migration %s applied (%d nodes changed)", name, changed)

    async def _local_times(self) -> bool:
        """Whether the engine keeps a datetime parameter as a local datetime (the embedded
        ArcadeDB does; Neo4j keeps its zone): migrations then write local ones too."""
        info = await self._driver.get_server_info()
        return "ArcadeDB" in (info.agent or "")

    async def _run_alone(self, text: str, params: dict[str, Any], write: bool) -> Rows:
        """Run one statement in its own transaction (a migration's batches)."""
        if write:
            return await self._execute_write(lambda tx: self._run(tx, text, params, MIGRATE_TIMES))
        return await self._execute_read(lambda tx: self._run(tx, text, params, MIGRATE_TIMES))

    async def ping(self) -> float:
        """Round-trip time of a trivial query, in milliseconds."""
        start = time.perf_counter()
        await self._execute_read(lambda tx: self._run(tx, "RETURN 1 AS ok", {}, "ping"))
        return (time.perf_counter() - start) * 1000

    def entity_writes_of(self, tenant_id: str) -> int:
        """How many write transactions of ``tenant_id`` that may change its entities this
        process has begun or ended (each counts twice; ``TenantGraph`` counts them): a
        value read before a read still equal after it means no such write overlapped it."""
        return self._entity_writes.get(tenant_id, 0)

    def entity_wrote(self, tenant_id: str) -> None:
        self._entity_writes[tenant_id] = self._entity_writes.get(tenant_id, 0) + 1

    # -- execution -----------------------------------------------------------------------------

    async def _run(self, tx: Runner, text: str, params: dict[str, Any], name: str = "ddl") -> Rows:
        self.round_trips += 1
        sent = _sent.get()
        if sent is not None:
            sent.append(name)
        start = time.perf_counter()
        native = name == ANALYST  # an analyst's query sees the graph's own values
        result = await tx.run(text, params if native else to_graph(params, self._bolt5))
        # dict(record), not record.data(): data() walks every value to convert graph types
        # (nodes, paths) and costs more than the decoding itself on list-valued properties;
        # every statement returns maps and scalars (``properties(n)``), never graph types.
        if native:
            rows = [dict(r) async for r in result]
        else:
            rows = [{k: from_graph(v) for k, v in dict(r).items()} async for r in result]
        if self.observer is not None:
            self.observer(name, time.perf_counter() - start)
        return rows

    async def _execute_write(
        self, work: Callable[[AsyncManagedTransaction], Awaitable[T]], key: str = ""
    ) -> T:
        """Run ``work`` in a write transaction, again after a transient error (a write
        conflict) with a short capped random wait; from the ``SERIALIZE_AFTER``-th retry on,
        the retries of ``key`` (the tenant) run one at a time. A constraint violation is
        retried (``CONSTRAINT_ATTEMPTS``): two transactions that MERGE the same new node
        collide on its unique key, and the loser's retry finds the node; a real violation
        fails every time and raises Conflict. A stale read (``STALE_READ``) is retried too.
        Past ``RETRY_BUDGET`` seconds of retrying, the last error is raised."""
        sent: list[str] = []

        async def attempt(tx: AsyncManagedTransaction) -> T:
            token = _sent.set(sent)
            try:
                return await work(tx)
            finally:
                _sent.reset(token)

        async with self._engine_call():
            return await self._write_attempts(attempt, sent, key)

    async def _write_attempts(
        self,
        attempt: Callable[[AsyncManagedTransaction], Awaitable[T]],
        sent: list[str],
        key: str,
    ) -> T:
        violated = stale = conflicts = 0
        started = time.monotonic()
        try:
            while True:
                level = _gate_level(conflicts)
                serialize = level == WriteGates.SHARED and conflicts >= SERIALIZE_AFTER
                lock = self._retry_locks.of(key) if serialize else contextlib.nullcontext()
                try:
                    # the gate first, then the retry lock: always in this order
                    async with self._gates.passing(key, level), lock:
                        return await self._transaction(attempt)
                except ConstraintError as e:
                    violated += 1
                    if violated == CONSTRAINT_ATTEMPTS:
                        raise Conflict(f"constraint violated: {e.message}") from e
                    continue
                except Neo4jError as e:
                    if e.code == STALE_READ and stale + 1 < STALE_READ_ATTEMPTS:
                        stale += 1
                    elif not e.is_retryable():
                        raise
                except (ServiceUnavailable, SessionExpired):
                    # A pooled connection the engine closed; a dead engine is the
                    # supervisor's to report (``mark_unavailable`` ends this call).
                    if self._unavailable is not None:
                        raise
                finally:
                    failed = list(sent)
                    sent.clear()
                if time.monotonic() - started > RETRY_BUDGET:
                    raise BackendError(
                        f"graph write still conflicting after {RETRY_BUDGET:g} s of retries"
                    )
                conflicts += 1
                self._retried(failed)
                await asyncio.sleep(_retry_wait(conflicts))
        except (ServiceUnavailable, SessionExpired) as e:
            raise EngineUnavailable(f"graph write failed: {e}") from e
        except (Neo4jError, OSError) as e:
            raise BackendError(f"graph write failed: {e}") from e

    async def _transaction(self, attempt: Callable[[AsyncManagedTransaction], Awaitable[T]]) -> T:
        """One try of a write transaction: committed when ``attempt`` returns, rolled back
        when it raises (the driver's own retries are off: ``_write_attempts`` retries)."""
        async with self._driver.session(database=self._database) as session:
            tx = await session.begin_transaction()
            try:
                # An explicit transaction runs statements as a managed one does (``run``).
                result = await attempt(tx)  # type: ignore[arg-type]
                await tx.commit()
                return result
            finally:
                if not tx.closed():
                    await tx.close()  # rolls back what was not committed

    def _retried(self, statements: list[str]) -> None:
        self.retries += 1
        first = statements[0] if statements else "unknown"
        log.info("graph write retried after a transient error: %s", ", ".join(statements))
        if self.on_retry is not None:
            self.on_retry(first)

    async def _execute_read(self, work: Callable[[Runner], Awaitable[T]]) -> T:
        """Run a one-statement read as an auto-commit query: one network round trip, where a
        managed transaction takes three (BEGIN, RUN, COMMIT). A read that fails in a way a
        retry can fix runs again as a managed transaction, which retries with backoff."""
        async with self._engine_call():
            return await self._read_attempts(work)

    async def _read_attempts(self, work: Callable[[Runner], Awaitable[T]]) -> T:
        try:
            try:
                async with self._driver.session(
                    database=self._database, default_access_mode=READ_ACCESS
                ) as session:
                    return await work(session)
            except (ServiceUnavailable, SessionExpired):
                pass
            except Neo4jError as e:
                if not e.is_retryable():
                    raise
            async with self._driver.session(database=self._database) as session:
                return await session.execute_read(work)
        except (ServiceUnavailable, SessionExpired) as e:
            raise EngineUnavailable(f"graph read failed: {e}") from e
        except (Neo4jError, OSError) as e:
            raise BackendError(f"graph read failed: {e}") from e


def _gate_level(conflicts: int) -> int:
    """Which write gate a transaction that lost ``conflicts`` times passes, and how."""
    if conflicts >= GATE_ALL_AFTER:
        return WriteGates.ALL
    return WriteGates.KEY if conflicts >= GATE_AFTER else WriteGates.SHARED


def _retry_wait(conflicts: int) -> float:
    """Seconds to wait before the ``conflicts``-th retry: anywhere up to RETRY_DELAY doubled
    per retry, never above RETRY_CAP ("full jitter": losers of one conflict spread out)."""
    return random.uniform(0.0, min(RETRY_CAP, RETRY_DELAY * 2 ** (conflicts - 1)))


async def _driver(uri: str, user: str, password: str, pool_size: int) -> tuple[AsyncDriver, bool]:
    """A connected driver, and whether the server speaks Bolt 5 or later."""
    driver = AsyncGraphDatabase.driver(
        uri,
        auth=(user, password),
        max_connection_pool_size=pool_size,
        # Reads retried by the driver (writes retry in ``_write_attempts``): after 20 ms,
        # doubling, not the driver's 1 s.
        initial_retry_delay=RETRY_DELAY,
    )
    try:
        info = await driver.get_server_info()  # connects, as ``verify_connectivity`` does
    except (Neo4jError, ServiceUnavailable, OSError) as e:
        await driver.close()
        raise BackendError(f"cannot reach the graph at {uri}: {e}") from e
    return driver, info.protocol_version >= (5, 0)
