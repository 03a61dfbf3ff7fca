"""Every GraphQL document is checked before it runs, at a cost bounded by its size, and never
on the event loop.

In order, for a query text not seen recently (one that passed is kept in an LRU cache):

1. its length in bytes, before anything reads it (lexing 2 MB took 0.2-0.4 s);
2. parsing, which stops past ``max_tokens`` tokens;
3. ``api.gql.cost``: fragment cycles and spreads, expanded selections, depth, aliases and
   same-name field pairs, each fragment measured once (time linear in the document);
4. graphql-core's and strawberry's validation rules, only for a document within those limits.

Steps 2-4 run in a worker thread under a budget of its CPU time, the garbage collector's
passes apart (so a busy machine, or a collection that happens to fall in a check, does not
refuse an ordinary query): the request gets an error when the budget is spent (its thread
stops at the next node it visits), or when the check has waited ten budgets, and the event
loop serves other requests meanwhile. Errors carry ``extensions.code``: ``QUERY_TOO_LARGE`` (bytes,
tokens) or ``QUERY_TOO_COMPLEX`` (the cost limits, the time budget).
"""

from __future__ import annotations

import asyncio
import functools
import gc
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from graphql import ASTValidationRule, DocumentNode, GraphQLError, GraphQLSchema, parse
from graphql.validation import ValidationContext
from graphql.validation.validate import ValidationAbortedError
from strawberry.extensions import SchemaExtension
from strawberry.schema.schema import validate_document

from api.gql.cost import TOO_COMPLEX, CostLimits, check_cost, too_complex

TOO_LARGE = "QUERY_TOO_LARGE"


@dataclass(frozen=True)
class GuardLimits:
    max_bytes: int = 100_000
    max_tokens: int = 2_000
    budget_seconds: float = 1.0
    cost: CostLimits = CostLimits()


@dataclass(frozen=True)
class Checked:
    """A query text's outcome: its document, or the error that stopped it before one; and
    the validation errors (empty: it may run)."""

    document: DocumentNode | None
    errors: tuple[GraphQLError, ...]


def too_large(message: str) -> GraphQLError:
    return GraphQLError(message, extensions={"code": TOO_LARGE})


# Validation is CPU-bound Python: a second thread would only wait for the GIL (and take more
# of it from the event loop). One thread for the process (every app and test builds a schema;
# none needs its own): under a flood of new texts they queue, within their budgets.
_POOL_LOCK = threading.Lock()
WAIT_FACTOR = 10  # the longest wait for a check, in budgets
_pool: ThreadPoolExecutor | None = None


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _POOL_LOCK:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gql-validate")
        return _pool


class DocumentGuard:
    """The checked documents of one schema (an LRU of ``maxsize`` query texts)."""

    def __init__(self, limits: GuardLimits, maxsize: int) -> None:
        self.limits = limits
        self.maxsize = maxsize
        self._cache: OrderedDict[str, Checked] = OrderedDict()

    async def check(
        self, query: str, schema: GraphQLSchema, rules: tuple[type[ASTValidationRule], ...]
    ) -> Checked:
        """``query``'s outcome. Raises GraphQLError when the text is over the byte limit or
        its check ran out of time (the loop never waits longer than the budget)."""
        hit = self._cache.get(query)
        if hit is not None:
            self._cache.move_to_end(query)
            return hit
        size = len(query.encode("utf-8", "surrogatepass"))
        if size > self.limits.max_bytes:
            raise too_large(
                f"the query is {size} bytes; the limit is {self.limits.max_bytes} "
                "(pass long values as variables)"
            )
        budget = self.limits.budget_seconds
        loop = asyncio.get_running_loop()
        job = loop.run_in_executor(_executor(), self._check, query, schema, rules, budget)
        job.add_done_callback(functools.partial(self._remember, query))
        # The budget is the check's own CPU time, so a busy machine does not refuse an
        # ordinary query; the wait is bounded too (a check queued behind others, or starved).
        wait = budget * WAIT_FACTOR
        try:
            # shielded: a late result is still cached (its thread ran to the end anyway)
            return await asyncio.wait_for(asyncio.shield(job), wait)
        except TimeoutError:
            raise too_complex(
                f"the query could not be checked within {wait:g} s (the service is busy, or "
                "the query is too complex)"
            ) from None

    def _remember(self, query: str, job: asyncio.Future[Checked]) -> None:
        # Only documents that may run are kept. A refused one is checked again if it comes
        # again (the clients that send it are few, or hostile with a new text each time), and
        # keeping thousands of AST nodes each for hostile texts made the collector's full
        # passes take 0.2-0.7 s.
        if job.cancelled() or job.exception() is not None or job.result().errors:
            return
        self._store(query, job.result())

    def _store(self, query: str, checked: Checked) -> None:
        self._cache[query] = checked
        self._cache.move_to_end(query)
        while len(self._cache) > self.maxsize:
            self._cache.popitem(last=False)

    def _check(
        self,
        query: str,
        schema: GraphQLSchema,
        rules: tuple[type[ASTValidationRule], ...],
        budget: float,
    ) -> Checked:
        deadline = _own_time() + budget  # CPU seconds of this thread, collections apart
        try:
            document = parse(query, max_tokens=self.limits.max_tokens)
        except GraphQLError as e:
            if "tokens" in e.message:  # graphql-core's own words for its token limit
                e.extensions = {**(e.extensions or {}), "code": TOO_LARGE}
            return Checked(None, (e,))
        errors = check_cost(document, self.limits.cost)
        if errors:
            return Checked(document, tuple(errors))
        found = validate_document(schema, document, (*rules, _deadline_rule(deadline)))
        return Checked(document, tuple(found))


# The cyclic collector runs in whichever thread allocates when it is due, and a full pass
# over the service's heap took 0.2-0.7 s (more on a busy machine): a check that happened to
# trigger one lost its budget to it and refused an ordinary query. A check's budget counts
# its own work: the collections its thread ran are taken out.
_collecting = threading.local()


def _collected(phase: str, _info: dict[str, Any]) -> None:
    now = time.thread_time()
    if phase == "start":
        _collecting.since = now
    else:
        since = getattr(_collecting, "since", None)
        if since is not None:
            _collecting.spent = getattr(_collecting, "spent", 0.0) + now - since
            _collecting.since = None


gc.callbacks.append(_collected)


def _own_time() -> float:
    """This thread's CPU seconds, without the collections it ran."""
    return time.thread_time() - getattr(_collecting, "spent", 0.0)


def _deadline_rule(deadline: float) -> type[ASTValidationRule]:
    """A rule that stops validation when its thread's CPU time passes ``deadline`` (checked
    at every node it enters)."""

    class Deadline(ASTValidationRule):
        def __init__(self, context: ValidationContext) -> None:
            super().__init__(context)

        def enter(self, *_args: Any) -> None:
            if _own_time() > deadline:
                raise ValidationAbortedError(
                    "the query could not be checked in time", extensions={"code": TOO_COMPLEX}
                )

    return Deadline


class QueryGuard(SchemaExtension):
    """The strawberry extension over a ``DocumentGuard``: it parses (``on_parse``) and
    validates (``on_validate``) in place of strawberry's parser and rules."""

    def __init__(self, guard: DocumentGuard) -> None:
        super().__init__()
        self.guard = guard
        self._errors: tuple[GraphQLError, ...] = ()

    async def on_parse(self) -> AsyncIterator[None]:
        ctx = self.execution_context
        if ctx.graphql_document is None and ctx.query:
            checked = await self.guard.check(
                ctx.query, ctx.schema._schema, tuple(ctx.validation_rules)
            )
            if checked.document is None:
                raise checked.errors[0]
            ctx.graphql_document = checked.document
            self._errors = checked.errors
        yield

    def on_validate(self) -> Iterator[None]:
        # A list (even empty) tells strawberry that validation has been done.
        self.execution_context.pre_execution_errors = list(self._errors)
        yield
