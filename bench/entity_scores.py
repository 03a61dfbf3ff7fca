"""Scores for ``bench.entity_precision``: the entities a text made, against names labelled by hand.

A text's labels (``bench/data/entity_labels.json``) list its named things, each with a type
(person, org, place, product, work, pet, release) and the other names it goes by, and the
``lenient`` terms (protocols, formats, bodies named by what they do). A made entity is

- *right* when its name, compared without case, is one of a named thing's names;
- *typed right* when it is right and its type fits the thing's (a product may be a project,
  a system, a concept or an organisation; a person only a person);
- *lenient* when it is right or one of the lenient terms.

A concept named in lower case is a topic, not a name: the subject of a statement ("the store's
doing great") that its supersede chain hangs on. Topics are counted apart, not scored.

Recall is per labelled type: the share of the text's named things of that type that some made
entity names. Totals add the counts over the texts.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

FITS = {
    "person": {"person"},
    "pet": {"person", "concept"},
    "org": {"org"},
    "place": {"place"},
    "product": {"project", "system", "concept", "org"},
    "work": {"concept", "project"},
    "release": {"project", "concept", "system"},
}


def _names(thing: dict[str, Any]) -> set[str]:
    return {n.lower() for n in (thing["name"], *thing.get("aliases", ()))}


def score_text(made: list[tuple[str, str]], labels: dict[str, Any]) -> dict[str, Any]:
    """Counts for one text (see the module docstring); ``made`` is (name, type) pairs."""
    things = labels["named"]
    lenient = {n.lower() for n in labels.get("lenient", ())}
    by_name = {n: t for t in things for n in _names(t)}
    c: Counter[str] = Counter()
    wrong: list[str] = []
    for name, etype in made:
        thing = by_name.get(name.lower())
        made_type = etype.lower()
        if made_type == "concept" and name == name.lower():
            # A statement's subject that is no name ("the store", "the deploy target"): the
            # concept its supersede chain hangs on (ingest/write/topics.py), counted apart.
            c["topics"] += 1
            continue
        c["made"] += 1
        c[f"made:{made_type}"] += 1
        if thing is not None:
            c["right"] += 1
            c[f"right:{made_type}"] += 1
            if made_type in FITS[thing["type"]]:
                c["typed"] += 1
        else:
            wrong.append(name)
        if thing is not None or name.lower() in lenient:
            c["lenient"] += 1
    found = {n.lower() for n, _ in made}
    missed: list[str] = []
    for t in things:
        c[f"gold:{t['type']}"] += 1
        if _names(t) & found:
            c[f"found:{t['type']}"] += 1
        elif t["type"] in ("person", "org"):
            missed.append(t["name"])
    return {"counts": dict(c), "wrong": wrong, "missed": missed}


def scores(made: dict[str, list[tuple[str, str]]], labels: dict[str, Any]) -> dict[str, Any]:
    """Per text, per kind (documents, conversations) and in total, for the development texts
    (``labels["texts"]``, read while the rules were written) and the held-out ones
    (``labels["held_out"]``, labelled first and read once) apart."""
    out: dict[str, Any] = {"texts": {}}
    for part in ("texts", "held_out"):
        group = labels.get(part, {})
        total: Counter[str] = Counter()
        for text, entities in made.items():
            if text not in group:
                continue
            one = score_text([tuple(e) for e in entities], group[text])  # type: ignore[misc]
            out["texts"][text] = one
            total.update(one["counts"])
            kind = "conversations" if text.startswith("locomo-") else "documents"
            out.setdefault(f"{part}:{kind}", Counter()).update(one["counts"])
        if total:
            out[f"{part}:total"] = total
    return {k: dict(v) if isinstance(v, Counter) else v for k, v in out.items()}


def _share(c: dict[str, int], part: str, whole: str) -> str:
    return f"{c.get(part, 0) / c[whole]:.2f}" if c.get(whole) else "–"


def line(label: str, c: dict[str, int]) -> str:
    recall = " ".join(
        f"{t} {c.get(f'found:{t}', 0)}/{c[f'gold:{t}']}" for t in FITS if c.get(f"gold:{t}")
    )
    return (
        f"{label:24} made {c.get('made', 0):3}  precision {_share(c, 'right', 'made')}"
        f"  typed {_share(c, 'typed', 'made')}  lenient {_share(c, 'lenient', 'made')}"
        f"  topics {c.get('topics', 0)}  recall: {recall}"
    )


def print_scores(s: dict[str, Any]) -> None:
    print("\nagainst the labels:")
    for text, one in s["texts"].items():
        print(line(text, one["counts"]))
        if one["wrong"]:
            print(f"{'':24} not named things: {', '.join(one['wrong'])}")
        if one["missed"]:
            print(f"{'':24} people and organisations missed: {', '.join(one['missed'])}")
    for part, title in (("texts", "development"), ("held_out", "held out")):
        if f"{part}:total" not in s:
            continue
        print(f"\n{title}:")
        for kind in ("documents", "conversations", "total"):
            if f"{part}:{kind}" in s:
                print(line(kind, s[f"{part}:{kind}"]))
        total = s[f"{part}:total"]
        person_org = sum(total.get(f"found:{t}", 0) for t in ("person", "org"))
        gold = sum(total.get(f"gold:{t}", 0) for t in ("person", "org"))
        print(f"person/org recall {person_org}/{gold}")
        for etype in sorted(k.split(":")[1] for k in total if k.startswith("made:")):
            named = total.get(f"right:{etype}", 0)
            print(f"   typed {etype:8} {named}/{total[f'made:{etype}']} named")
