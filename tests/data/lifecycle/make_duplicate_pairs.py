"""Regenerate duplicate_pairs.jsonl (deterministic): python tests/data/lifecycle/make_duplicate_pairs.py

Pairs of short memories labelled ``duplicate`` (the same fact: a copy with other punctuation,
case, a prefix, a contraction, another word order, a number written another way, or one side
adding detail; a few true paraphrases that swap words) or ``different`` (a near miss: the same
sentence with another number, name, date, negation or value). Each row also says which
``kind`` of variation made it. The near misses are the pairs a cosine threshold alone merges:
"The warehouse 1 door code is 1000" / "The warehouse 3 door code is 1000".
"""

from __future__ import annotations

import json
import random
from pathlib import Path

OUT = Path(__file__).with_name("duplicate_pairs.jsonl")

# (template, slot values): the pair is the template filled with two different values.
NUMBERS = [
    ("The warehouse {} door code is 1000", range(0, 10)),
    ("The door code of warehouse 2 is {}", [1000, 1001, 4411, 2024, 9000]),
    ("Our monthly ad budget is ${} for the Anderson account", [500, 800, 1200, 5000]),
    ("Invoice {} from Northwind is overdue", [1041, 1042, 1100, 2077]),
    ("The staging server listens on port {}", [8000, 8080, 5432, 9200]),
    ("Peter's team has {} writers", ["three", "four", "5", "12"]),
    ("The WOBS blog gets {} visitors a month", ["40,000", "45,000", "60000", "1 million"]),
    ("Flight LH{} to Lisbon leaves from gate B12", [1164, 1166, 1170]),
    ("The API rate limit is {} requests per minute", [60, 100, 600, 1000]),
    ("Meeting room {} is booked for the offsite", [2, 3, 14, 21]),
    ("The backup keeps the last {} snapshots", [7, 14, 30]),
    ("Anna's desk phone extension is {}", [201, 204, 310]),
    ("We pay the freelance editors {} euros per article", [80, 90, 120]),
    ("The build takes about {} minutes on the CI runner", ["four", "six", "10", "25"]),
]
NAMES = [
    ("{} is the editor of the Anderson account", ["Peter", "Anna", "Marco", "Lena"]),
    ("Send the weekly traffic report to {}", ["Peter", "Omar", "Sofia", "Priya"]),
    ("{} approved the Q3 budget yesterday", ["Jonas", "Chen", "Anna"]),
    ("We deploy the billing service to {}", ["AWS", "Heroku", "Render", "Azure"]),
    ("The contract with {} renews automatically", ["Acme", "Globex", "Initech", "Hooli"]),
    ("Our lawyer for the merger is {}", ["Maria Lopez", "Tom Baker", "Ines Costa"]),
    ("The Lisbon office reports to {}", ["Berlin", "Madrid", "London"]),
    ("{} owns the search indexer", ["Liam", "Priya", "Omar"]),
    ("The production database runs on {}", ["Postgres", "MySQL", "MariaDB"]),
    ("Peter moved from {} to the content team", ["Sales", "Support", "Marketing"]),
    ("The guest post for {} goes live next week", ["Vandelay", "Umbrella", "Northwind"]),
]
DATES = [
    ("The team standup is every {}", ["Monday", "Tuesday", "Thursday", "Friday"]),
    ("The Anderson contract renews every {}", ["January", "March", "June", "October"]),
    ("The site relaunch is planned for {} 2025", ["March", "April", "September"]),
    ("The relaunch is planned for May {}", [2024, 2025, 2026]),
    ("Payroll runs on the last {} of the month", ["Friday", "Thursday", "Monday"]),
    ("The security review happens {}", ["today", "tomorrow", "next week", "next month"]),
    ("The audit was {}", ["last week", "last month", "yesterday"]),
    ("Invoices go out on the {} of each month", ["1st", "15th", "28th"]),
    ("The deploy freeze starts on {}", ["2024-12-20", "2024-12-23", "2025-01-02"]),
    ("We publish the newsletter every {} morning", ["Monday", "Wednesday", "Friday"]),
    ("The quarterly review is {} the board meeting", ["before", "after"]),
]
# (positive, negated forms)
NEGATIONS = [
    ("We deploy on Fridays", ["We don't deploy on Fridays", "We never deploy on Fridays"]),
    ("Anna likes the new dashboard", ["Anna does not like the new dashboard"]),
    (
        "The VPN is required for the staging server",
        ["The VPN is not required for the staging server"],
    ),
    ("Peter has access to the billing console", ["Peter has no access to the billing console"]),
    ("The client wants weekly reports", ["The client doesn't want weekly reports"]),
    ("Marco can approve refunds", ["Marco cannot approve refunds", "Marco can't approve refunds"]),
    ("The blog posts include affiliate links", ["The blog posts never include affiliate links"]),
    ("Lena works on the Apollo migration", ["Lena no longer works on the Apollo migration"]),
    ("The backups are encrypted", ["The backups are not encrypted"]),
    ("Omar is allowed to merge to main", ["Omar is not allowed to merge to main"]),
]
VALUES = [
    ("Anna prefers {} in the morning", ["tea", "coffee", "juice"]),
    ("Peter prefers {} emails", ["short", "long", "detailed"]),
    ("The office printer is on the {} floor", ["second", "third", "fifth"]),
    ("The new logo is {}", ["blue", "green", "orange"]),
    ("Our style guide asks for {} headlines", ["short", "long", "question"]),
    ("The staging server is {}", ["slow", "fast", "down"]),
    ("The client always pays by {}", ["invoice", "card", "cheque"]),
    ("We write the docs in {}", ["markdown", "asciidoc", "html"]),
    ("The deploy target for the blog is the {} cluster", ["primary", "backup", "edge"]),
    ("Sofia reviews every article for {}", ["grammar", "tone", "accuracy"]),
]
# The same fact written twice.
SAME = [
    "The warehouse 2 door code is 4411",
    "The Anderson contract renews every January",
    "We deploy the billing service to AWS",
    "Peter is the editor of the Anderson account",
    "The team standup is every Monday at 9:30",
    "Our monthly ad budget is $1,200 for the Anderson account",
    "Anna prefers tea in the morning",
    "We don't deploy on Fridays",
    "The VPN is required for the staging server",
    "The staging server listens on port 8080",
    "Send the weekly traffic report to Omar",
    "The WOBS blog gets 45,000 visitors a month",
    "Invoice 1042 from Northwind is overdue",
    "The security review happens next week",
    "The production database runs on Postgres",
    "Marco cannot approve refunds",
    "The backup keeps the last 14 snapshots",
    "Payroll runs on the last Friday of the month",
    "The contract with Globex renews automatically",
    "Lena owns the search indexer",
]
PREFIXES = ["Note: ", "FYI, ", "Just so you know, ", "Remember that ", "Reminder: "]
# Paraphrases that say the same with other words (the strict guard keeps these apart).
PARAPHRASES = [
    ("Anna prefers tea in the morning", "In the morning Anna likes to drink tea"),
    ("We deploy the billing service to AWS", "The billing service is deployed on AWS"),
    ("Peter is the editor of the Anderson account", "Peter edits the Anderson account"),
    ("The team standup is every Monday", "Every Monday the team has its standup"),
    ("Marco cannot approve refunds", "Marco isn't able to approve refunds"),
    ("The backups are encrypted", "Our backups are stored encrypted"),
    ("Send the weekly traffic report to Omar", "Omar gets the weekly traffic report"),
    ("The contract with Globex renews automatically", "Globex's contract auto-renews"),
    ("Invoice 1042 from Northwind is overdue", "Northwind has not paid invoice 1042 yet"),
    ("Lena owns the search indexer", "The search indexer is owned by Lena"),
]
# One side adds a detail; the merge keeps the more specific memory, so nothing is lost.
DETAIL = [
    ("The Anderson contract renews every January", "The Anderson contract renews every January, as agreed"),
    ("Peter is the editor of the Anderson account", "Peter is the senior editor of the Anderson account"),
    ("We deploy the billing service to AWS", "We deploy the billing service to AWS as usual"),
    ("The staging server listens on port 8080", "The staging server listens on port 8080 internally"),
    ("Anna prefers tea in the morning", "Anna prefers green tea in the morning"),
]  # fmt: skip


def _variants(text: str, rng: random.Random) -> list[tuple[str, str]]:
    """(kind, copy) forms of one statement that say exactly the same."""
    out = [
        ("punctuation", text + "."),
        ("case", text.lower()),
        ("prefix", rng.choice(PREFIXES) + text[0].lower() + text[1:]),
        ("whitespace", "  " + text.replace(" ", "  ", 1) + " "),
    ]
    if "don't" in text:
        out.append(("contraction", text.replace("don't", "do not")))
    if "cannot" in text:
        out.append(("contraction", text.replace("cannot", "can not")))
    if "1,200" in text:
        out.append(("number format", text.replace("1,200", "1200")))
    if "45,000" in text:
        out.append(("number format", text.replace("45,000", "45000")))
    if text.startswith("The team standup is every Monday"):
        out.append(("word order", "Every Monday at 9:30 is the team standup"))
    if text.startswith("The Anderson contract renews every January"):
        out.append(("word order", "Every January the Anderson contract renews"))
    return out


def _near_misses(
    kind: str, templates: list[tuple[str, object]], rng: random.Random
) -> list[dict[str, str]]:
    rows = []
    for template, values in templates:
        filled = [template.format(v) for v in values]  # type: ignore[attr-defined]
        pairs = [(a, b) for i, a in enumerate(filled) for b in filled[i + 1 :]]
        rng.shuffle(pairs)
        for a, b in pairs[:4]:
            rows.append({"a": a, "b": b, "label": "different", "kind": kind})
    return rows


def build() -> list[dict[str, str]]:
    rng = random.Random(23)
    rows = []
    rows += _near_misses("number", NUMBERS, rng)  # type: ignore[arg-type]
    rows += _near_misses("name", NAMES, rng)  # type: ignore[arg-type]
    rows += _near_misses("date", DATES, rng)  # type: ignore[arg-type]
    rows += _near_misses("value", VALUES, rng)  # type: ignore[arg-type]
    for positive, negated in NEGATIONS:
        for form in negated:
            rows.append({"a": positive, "b": form, "label": "different", "kind": "negation"})
    for text in SAME:
        for kind, copy in _variants(text, rng):
            rows.append({"a": text, "b": copy, "label": "duplicate", "kind": kind})
    for a, b in PARAPHRASES:
        rows.append({"a": a, "b": b, "label": "duplicate", "kind": "paraphrase"})
    for a, b in DETAIL:
        rows.append({"a": a, "b": b, "label": "duplicate", "kind": "detail"})
    return rows


def main() -> None:
    rows = build()
    with OUT.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    labels = [r["label"] for r in rows]
    print(
        f"{OUT}: {len(rows)} pairs, {labels.count('different')} different, "
        f"{labels.count('duplicate')} duplicate"
    )


if __name__ == "__main__":
    main()
