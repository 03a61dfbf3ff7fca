"""The document cost (api/gql/cost.py) equals what expanding every fragment counts, and
takes time linear in the document, not in its expansion."""

from __future__ import annotations

import time
from typing import Any

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    parse,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from api.gql.cost import TOO_COMPLEX, CostLimits, check_cost, measure

HUGE = CostLimits(
    max_depth=10**30,
    max_aliases=10**30,
    max_spreads=10**30,
    max_selections=10**30,
    max_merges=10**30,
)


def _expanded(node: SelectionSetNode, fragments: dict[str, Any]) -> tuple[int, int, int]:
    """(selections, aliases, depth) by expanding every spread: the definition."""
    selections = aliases = depth = 0
    for sel in node.selections:
        if isinstance(sel, FieldNode):
            s, a, d = _expanded(sel.selection_set, fragments) if sel.selection_set else (0, 0, 0)
            selections += 1 + s
            aliases += (1 if sel.alias else 0) + a
            if sel.selection_set and not sel.name.value.startswith("__"):
                depth = max(depth, 1 + d)
        else:
            target = (
                sel.selection_set
                if isinstance(sel, InlineFragmentNode)
                else fragments[sel.name.value].selection_set
            )
            s, a, d = _expanded(target, fragments)
            selections, aliases, depth = selections + s, aliases + a, max(depth, d)
    return selections, aliases, depth


@st.composite
def documents(draw: st.DrawFn) -> str:
    """An operation and up to five fragments; fragment i spreads only fragments above i, so
    there is no cycle, but one may be spread many times over."""
    count = draw(st.integers(0, 5))

    def selection_set(level: int, above: int) -> str:
        items = []
        for _ in range(draw(st.integers(1, 3))):
            kind = draw(st.sampled_from(["field", "nested", "inline", "spread", "typename"]))
            alias = draw(st.sampled_from(["", "", "x: "]))
            if kind == "spread" and above < count:
                items.append(f"...F{draw(st.integers(above, count - 1))}")
            elif kind == "nested" and level < 3:
                items.append(f"{alias}n {{ {selection_set(level + 1, above)} }}")
            elif kind == "inline" and level < 3:
                items.append(f"... on Query {{ {selection_set(level + 1, above)} }}")
            elif kind == "typename":
                items.append(f"{alias}__type {{ {selection_set(3, above)} }}")
            else:
                items.append(f"{alias}{draw(st.sampled_from(['a', 'b']))}")
        return " ".join(items)

    frags = [f"fragment F{i} on Query {{ {selection_set(0, i + 1)} }}" for i in range(count)]
    return " ".join([f"query Q {{ {selection_set(0, 0)} }}", *frags])


@settings(max_examples=200, deadline=None)
@given(documents())
def test_the_measure_is_the_expansion(text: str) -> None:
    doc = parse(text)
    fragments = {d.name.value: d for d in doc.definitions if isinstance(d, FragmentDefinitionNode)}
    (op,) = [d for d in doc.definitions if isinstance(d, OperationDefinitionNode)]
    selections, aliases, depth = _expanded(op.selection_set, fragments)
    m = measure(doc, HUGE)
    assert (m.selections, m.aliases, m.depths) == (selections, aliases, (("Q", depth),))
    assert m.cycle == () and check_cost(doc, HUGE) == []


def _fan_out(levels: int, width: int) -> str:
    spreads = [
        f"fragment F{i} on Query {{ {' '.join([f'...F{i + 1}'] * width)} }}" for i in range(levels)
    ]
    return " ".join(
        ["query { ...F0 }", *spreads, f"fragment F{levels} on Query {{ health {{ ok }} }}"]
    )


def test_a_fan_out_is_measured_without_expanding_it() -> None:
    started = time.perf_counter()
    m = measure(parse(_fan_out(60, 2)), HUGE)  # 2^60 fields
    assert time.perf_counter() - started < 1.0  # linear: about a millisecond
    assert m.selections == 2 * 2**60 and m.depths == (("anonymous", 1),)
    errors = check_cost(parse(_fan_out(22, 2)), CostLimits())  # issue 43's 920 bytes
    assert [e.extensions for e in errors][0] == {"code": TOO_COMPLEX}
    assert "2000 fields" in errors[0].message


def test_cycles_and_too_many_spreads_are_refused_before_measuring() -> None:
    cyclic = parse("query { ...A } fragment A on Query { n { ...B } } fragment B on Query { ...A }")
    assert measure(cyclic, HUGE).cycle == ("A", "B", "A")
    [error] = check_cost(cyclic, CostLimits())
    assert error.message == "fragment 'A' spreads itself (A -> B -> A)"
    assert measure(parse("query { ...A } fragment A on Query { ...A }"), HUGE).cycle == ("A", "A")
    many = parse("query { " + "...A " * 101 + "} fragment A on Query { a }")
    [error] = check_cost(many, CostLimits(max_spreads=100))
    assert error.message == "101 fragment spreads; the limit is 100"


def test_repeated_fields_count_their_pairs() -> None:
    # graphql-core compares every pair of same-named fields of a selection set
    assert measure(parse("{ a a a b x: a }"), HUGE).merges == 3
    spread = parse("{ a ...F ...F } fragment F on Query { a a }")
    assert measure(spread, HUGE).merges == 1 + 10  # F's own pair, then five a's in the operation
    wide = parse("{" + " health { ok }" * 400 + " }")
    assert "pairs of fields" in check_cost(wide, CostLimits())[0].message


def test_depth_and_aliases_keep_the_limiters_words() -> None:
    deep = parse("query Deep { a { b { c { d } } } }")
    assert [e.message for e in check_cost(deep, CostLimits(max_depth=2))] == [
        "'Deep' exceeds maximum operation depth of 2"
    ]
    aliased = parse("{ x: a y: a ...F } fragment F on Query { z: a }")
    assert measure(aliased, HUGE).aliases == 3
    assert [e.message for e in check_cost(aliased, CostLimits(max_aliases=2))] == [
        "3 aliases found. Allowed: 2"
    ]
    # introspection is not deep (as in strawberry's limiter)
    assert measure(parse("{ __schema { types { fields { name } } } }"), HUGE).depths[0][1] == 0
