"""What a GraphQL document costs to validate and run, measured in time linear in its size.

A document's fragments can spread each other many times over: ``F0 { ...F1 ...F1 }``,
``F1 { ...F2 ...F2 }`` ... doubles the expanded selections at each level, so 23 fragments in
920 bytes expand to eight million fields. Rules that walk the expansion (strawberry's depth and
alias limiters did) take time exponential in the document's size; this walk computes each
fragment's cost once, from the costs of the fragments it spreads, and saturates the counts at
their limits, so it never takes longer than a pass over the document.

What it measures, each bounded by ``CostLimits``:

- fragment spreads written in the document, and fragment cycles (a fragment that spreads
  itself, directly or through others);
- field selections with every fragment expanded (what execution would walk);
- the depth of each operation (introspection fields, ``__schema`` ..., do not count, as in
  strawberry's depth limiter) and the aliases of all operations, fragments expanded;
- pairs of fields with one response name in one selection set (fragments spread there
  included): the pairs graphql-core's field-merging rule compares, quadratic in their number
  (400 copies of ``health { ok }`` in 4 kB took it 0.75 s).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
)

# The code in ``extensions`` of every error the limits give (a client tells them apart from
# other validation errors by it).
TOO_COMPLEX = "QUERY_TOO_COMPLEX"


@dataclass(frozen=True)
class CostLimits:
    max_depth: int = 12
    max_aliases: int = 30
    max_spreads: int = 100
    max_selections: int = 2_000
    max_merges: int = 1_000


@dataclass
class Cost:
    """The cost of one selection set with its fragments expanded (counts saturate just above
    their limits, so a fragment expanding to 2^k fields is one small number)."""

    selections: int = 0
    depth: int = 0
    aliases: int = 0
    merges: int = 0  # same-name pairs, counted where written (a fragment's once)
    names: Counter[str] = field(default_factory=Counter)  # response names at this level


def too_complex(message: str) -> GraphQLError:
    return GraphQLError(message, extensions={"code": TOO_COMPLEX})


@dataclass(frozen=True)
class Measured:
    """A document's cost (counts saturate one above their limits). ``cycle`` is a path of
    fragment names that ends where it began; with one, or with too many spreads, nothing
    else is measured."""

    spreads: int
    cycle: tuple[str, ...] = ()
    selections: int = 0  # all operations, fragments expanded
    aliases: int = 0  # all operations, fragments expanded
    merges: int = 0  # every selection set written in the document, spread fragments' names in
    depths: tuple[tuple[str, int], ...] = ()  # (operation name, depth)


def measure(document: DocumentNode, limits: CostLimits) -> Measured:
    """Measure ``document`` in time linear in its size: each fragment once, after the ones
    it spreads."""
    fragments: dict[str, FragmentDefinitionNode] = {}
    for d in document.definitions:
        if isinstance(d, FragmentDefinitionNode):
            fragments.setdefault(d.name.value, d)
    spreads = _spreads(document)
    if spreads > limits.max_spreads:
        return Measured(spreads)
    order, cycle = _fragment_order(fragments)
    if cycle:
        return Measured(spreads, tuple(cycle))
    walker = _Walker(limits)
    for name in order:
        walker.fragments[name] = walker.cost(fragments[name].selection_set)
    # A fragment's own pairs are compared once, wherever it is spread.
    merges = walker.cap(sum(f.merges for f in walker.fragments.values()), limits.max_merges)
    selections = aliases = 0
    depths: list[tuple[str, int]] = []
    for d in document.definitions:
        if isinstance(d, OperationDefinitionNode):
            cost = walker.cost(d.selection_set)
            depths.append((d.name.value if d.name else "anonymous", cost.depth))
            selections = walker.cap(selections + cost.selections, limits.max_selections)
            aliases = walker.cap(aliases + cost.aliases, limits.max_aliases)
            merges = walker.cap(merges + cost.merges, limits.max_merges)
    return Measured(spreads, (), selections, aliases, merges, tuple(depths))


def check_cost(document: DocumentNode, limits: CostLimits) -> list[GraphQLError]:
    """The limits ``document`` breaks, as GraphQL errors with code ``QUERY_TOO_COMPLEX``;
    empty when it is within all of them. Time linear in the document's size."""
    m = measure(document, limits)
    if m.spreads > limits.max_spreads:
        return [too_complex(f"{m.spreads} fragment spreads; the limit is {limits.max_spreads}")]
    if m.cycle:
        path = " -> ".join(m.cycle)
        return [too_complex(f"fragment '{m.cycle[0]}' spreads itself ({path})")]
    # The depth and alias messages are strawberry's limiters' words: clients may match them.
    errors = [
        too_complex(f"'{name}' exceeds maximum operation depth of {limits.max_depth}")
        for name, depth in m.depths
        if depth > limits.max_depth
    ]
    if m.aliases > limits.max_aliases:
        errors.append(too_complex(f"{m.aliases} aliases found. Allowed: {limits.max_aliases}"))
    if m.selections > limits.max_selections:
        errors.append(
            too_complex(
                f"more than {limits.max_selections} fields selected once fragments are expanded"
            )
        )
    if m.merges > limits.max_merges:
        errors.append(
            too_complex(
                f"more than {limits.max_merges} pairs of fields with one name to merge "
                "(select a field once, or alias the copies)"
            )
        )
    return errors


class _Walker:
    def __init__(self, limits: CostLimits) -> None:
        self.limits = limits
        self.fragments: dict[str, Cost] = {}
        # names counted per response name saturate here: enough to exceed any merge limit
        self._name_cap = limits.max_merges + 2

    @staticmethod
    def cap(value: int, limit: int) -> int:
        return min(value, limit + 1)

    def cost(self, selection_set: SelectionSetNode) -> Cost:
        """The cost of ``selection_set``; the fragments it spreads must be measured already
        (``_fragment_order``). Recursion follows the document's own nesting only, which the
        parser bounds."""
        lim = self.limits
        out = Cost()
        for sel in selection_set.selections:
            if isinstance(sel, FieldNode):
                name = (sel.alias or sel.name).value
                out.names[name] += 1
                sub = self.cost(sel.selection_set) if sel.selection_set else Cost()
                out.selections += 1 + sub.selections
                out.aliases += (1 if sel.alias else 0) + sub.aliases
                out.merges += sub.merges
                if sel.selection_set and not sel.name.value.startswith("__"):
                    out.depth = max(out.depth, 1 + sub.depth)
            elif isinstance(sel, InlineFragmentNode):
                sub = self.cost(sel.selection_set)
                self._add(out, sub)
                out.merges += sub.merges  # the rule visits the inline set on its own too
            elif isinstance(sel, FragmentSpreadNode):
                spread = self.fragments.get(sel.name.value)
                if spread is not None:  # unknown: graphql-core's rules report it
                    self._add(out, spread)  # its own pairs are counted once, with it
            out.selections = self.cap(out.selections, lim.max_selections)
            out.aliases = self.cap(out.aliases, lim.max_aliases)
        out.merges += sum(n * (n - 1) // 2 for n in out.names.values())
        out.merges = self.cap(out.merges, lim.max_merges)
        return out

    def _add(self, out: Cost, sub: Cost) -> None:
        out.selections += sub.selections
        out.aliases += sub.aliases
        out.depth = max(out.depth, sub.depth)
        for name, n in sub.names.items():
            out.names[name] = min(out.names[name] + n, self._name_cap)


def _spreads(document: DocumentNode) -> int:
    """Fragment spreads written in the document (not expanded)."""
    return sum(
        len(_spread_names(d.selection_set))
        for d in document.definitions
        if isinstance(d, OperationDefinitionNode | FragmentDefinitionNode)
    )


def _spread_names(selection_set: SelectionSetNode) -> list[str]:
    """The fragments spread anywhere in ``selection_set``, once per spread, without recursion."""
    names: list[str] = []
    stack = [selection_set]
    while stack:
        for sel in stack.pop().selections:
            if isinstance(sel, FragmentSpreadNode):
                names.append(sel.name.value)
            elif isinstance(sel, FieldNode | InlineFragmentNode) and sel.selection_set:
                stack.append(sel.selection_set)
    return names


def _fragment_order(
    fragments: dict[str, FragmentDefinitionNode],
) -> tuple[list[str], list[str] | None]:
    """The fragments in an order where each comes after those it spreads, and the first
    cycle found (a path of names ending where it began), without recursion."""
    spreads = {name: _spread_names(f.selection_set) for name, f in fragments.items()}
    order: list[str] = []
    done: set[str] = set()
    for root in fragments:
        if root in done:
            continue
        path = [root]
        pending = [iter(spreads[root])]
        on_path = {root}
        while path:
            for nxt in pending[-1]:
                if nxt not in fragments or nxt in done:
                    continue
                if nxt in on_path:
                    return order, [*path[path.index(nxt) :], nxt]
                path.append(nxt)
                pending.append(iter(spreads[nxt]))
                on_path.add(nxt)
                break
            else:
                name = path.pop()
                pending.pop()
                on_path.discard(name)
                done.add(name)
                order.append(name)
    return order, None
