"""Regenerate linking.json (deterministic): python tests/data/resolution/make_linking.py

Known entities of a tenant, then sentences labelled with the entities they mention (by name),
covering exact names, case, accents, punctuation in acronyms, aliases, possessives, two
entities in one sentence, unknown names and no names, plus alias declarations.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

ENTITIES = [
    {"name": "Wolf of Blog Street", "type": "org", "aliases": ["WOBS"],
     "forms": ["Wolf of Blog Street", "WOBS", "wobs", "W.O.B.S."]},
    {"name": "Northwind Traders", "type": "org", "aliases": ["Northwind"],
     "forms": ["Northwind Traders", "Northwind", "NORTHWIND"]},
    {"name": "Zoë Müller", "type": "person", "aliases": [],
     "forms": ["Zoë Müller", "Zoe Muller", "ZOË MÜLLER"]},
    {"name": "Acme Corporation", "type": "org", "aliases": ["Acme", "ACME Corp"],
     "forms": ["Acme Corporation", "Acme", "ACME Corp"]},
    {"name": "Peter Novak", "type": "person", "aliases": [], "forms": ["Peter Novak", "Peter"]},
    {"name": "Anna Berg", "type": "person", "aliases": [], "forms": ["Anna Berg", "Anna"]},
    {"name": "Apollo Migration", "type": "project", "aliases": ["Apollo"],
     "forms": ["Apollo Migration", "Apollo"]},
    {"name": "Search Indexer", "type": "system", "aliases": [], "forms": ["Search Indexer"]},
    {"name": "Lisbon Office", "type": "place", "aliases": [], "forms": ["Lisbon Office"]},
    {"name": "José Álvarez", "type": "person", "aliases": [], "forms": ["José Álvarez", "Jose Alvarez"]},
    {"name": "Hooli", "type": "org", "aliases": [], "forms": ["Hooli"]},
    {"name": "International Widget Company", "type": "org", "aliases": ["IWC"],
     "forms": ["International Widget Company", "IWC"]},
    {"name": "Billing Service", "type": "system", "aliases": [], "forms": ["Billing Service"]},
    {"name": "Marco Rossi", "type": "person", "aliases": [], "forms": ["Marco Rossi", "Marco"]},
    {"name": "Daily Planet", "type": "org", "aliases": [], "forms": ["Daily Planet"]},
]  # fmt: skip
ONE = [
    "Send the invoice to {a} today.",
    "{a} asked for a new quote.",
    "I had lunch with {a} yesterday.",
    "Can you check what {a} said about the budget?",
    "We met {a}'s team on Monday.",
    "The report from {a} is late again.",
    "Please forward the contract to {a}.",
    "Is {a} still blocked on the review?",
]
TWO = [
    "{a} and {b} will join the call.",
    "{a} introduced us to {b} last week.",
    "Ask {a} whether {b} approved the plan.",
]
NEGATIVE = [
    "Let's finish the draft first.",
    "Thanks, that works for me!",
    "Kevin from sales said hi.",
    "Random Stranger called about a car warranty.",
    "The weather was great on Saturday.",
    "Can you summarise the meeting notes?",
    "Martha Stewart has a new cookbook out.",
    "We should order more coffee.",
    "Globex Industries sent a newsletter.",
    "Our writers need a new style guide.",
    "Please book a room for Thursday.",
    "OK, sounds good.",
]
DECLARATIONS = [
    ("Northwind Traders, also known as NWT, renewed the deal.", "Northwind Traders", "NWT"),
    ("Acme Corporation aka Acme Co sent the order.", "Acme Corporation", "Acme Co"),
    ("International Widget Company (IWCO) is our biggest client.", "International Widget Company", "IWCO"),
    ("Daily Planet, also called The Planet, published the piece.", "Daily Planet", "The Planet"),
    ("Search Indexer, or Indexer for short, is down.", "Search Indexer", "Indexer"),
]  # fmt: skip


def main() -> None:
    rng = random.Random(11)
    sentences: list[dict[str, object]] = []
    for e in ENTITIES:
        for form in e["forms"]:
            for template in rng.sample(ONE, 2):
                sentences.append({"text": template.format(a=form), "entities": [e["name"]]})
    pairs = [(a, b) for a in ENTITIES for b in ENTITIES if str(a["name"]) < str(b["name"])]
    for a, b in rng.sample(pairs, 25):
        fa, fb = rng.choice(a["forms"]), rng.choice(b["forms"])
        text = rng.choice(TWO).format(a=fa, b=fb)
        sentences.append({"text": text, "entities": sorted([str(a["name"]), str(b["name"])])})
    for text in NEGATIVE:
        sentences.append({"text": text, "entities": []})
    for text, name, alias in DECLARATIONS:
        sentences.append({"text": text, "entities": [name], "aliases": [[name, alias]]})
    entities = [{k: e[k] for k in ("name", "type", "aliases")} for e in ENTITIES]
    out = {"description": __doc__.strip().splitlines()[2].strip(), "entities": entities,
           "sentences": sentences}  # fmt: skip
    path = Path(__file__).with_name("linking.json")
    path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(sentences)} sentences -> {path}")


if __name__ == "__main__":
    main()
