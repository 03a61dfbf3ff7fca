"""The synthetic tenant of the year-long lifecycle simulation (``bench/lifecycle.py``).

WOBS, a content and SEO agency of about fifteen people, talks to its assistant every day of
2025: small talk, roles said once, client facts, preferences, weekly episodes that repeat
("checked Peter's batch with the AI detector"), restated facts and decisions, and corrections
(a role change, a new deploy target, an office move, a new employer, a changed preference).
Everything is generated from a seed, so two tenants fed the same script hear the same year.

Phrasings are the ones the rule extractor (``ingest/extract/rules.py``) turns into facts with a
subject and a predicate, so that a correction of a single-valued predicate (role, employer,
location, deploy_target, preference) supersedes the old fact. "WOBS's monthly traffic is now
800" is kept on purpose although ``monthly_traffic`` is not single-valued: it becomes a
conflict for review, not a supersede, and is reported apart (``conflict`` probes).

The probes are the fixed question set asked at the end of every month: ``foundation`` (roles,
identity, processes: said or remembered once), ``current`` (facts that are corrected during
the year: the latest value must be found, an older one must not be shown as current),
``conflict`` and ``recurring`` (informational, not part of the targets).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from core.types import MemoryType

DAY = 86_400.0
START = datetime(2025, 1, 1, tzinfo=UTC).timestamp()  # a Wednesday
USER = "kate"  # the founder: every turn is hers

CLIENTS = ["Northwind", "Globex", "Initech", "Hooli", "Vandelay", "Umbrella"]
TOPICS = [
    "content audit",
    "keyword research",
    "editorial calendar",
    "outreach campaign",
    "backlink report",
    "site migration",
    "style guide",
    "landing page copy",
    "SEO brief",
    "newsletter",
]
# (name, how the role is said, the role as the extractor stores it); said once, early.
ROLES = [
    ("Anna", "Anna is our lead strategist.", "strategist"),
    ("Marco", "Marco is our developer.", "developer"),
    ("Lena", "Lena is our designer.", "designer"),
    ("Omar", "Omar is one of our writers.", "writer"),
    ("Sofia", "Sofia is our recruiter.", "recruiter"),
    ("Jonas", "Jonas is our salesperson.", "salesperson"),
    ("Priya", "Priya is our accountant.", "accountant"),
    ("Chen", "Chen is one of our developers.", "developer"),
    ("Mia", "Mia is our proofreader.", "proofreader"),
    ("Noah", "Noah is our photographer.", "photographer"),
    ("Eva", "Eva is our translator.", "translator"),
    ("Ravi", "Ravi is our illustrator.", "illustrator"),
]
SMALL_TALK_OPEN = ["Good morning!", "Hi there!", "Hello!", "Good morning, how are you?"]
SMALL_TALK_CLOSE = ["Thanks!", "Thanks, bye!", "Perfect, thanks!", "Got it, thanks.", "Cheers!"]


@dataclass(frozen=True)
class Version:
    """One value of a probed fact: said on ``day``; a hit states it when ``expect`` matches."""

    day: int
    expect: str


@dataclass(frozen=True)
class Probe:
    name: str
    kind: str  # foundation | current | conflict | recurring
    query: str
    versions: tuple[Version, ...]

    def expected(self, day: int) -> Version | None:
        """The value that is current on ``day`` (None: not said yet)."""
        said = [v for v in self.versions if v.day <= day]
        return said[-1] if said else None

    def stale(self, day: int) -> list[Version]:
        """Values said by ``day`` that a later one replaced."""
        said = [v for v in self.versions if v.day <= day]
        return said[:-1]

    def states(self, version: Version, content: str) -> bool:
        return re.search(version.expect, content, re.IGNORECASE | re.DOTALL) is not None


@dataclass(frozen=True)
class Remembered:
    """A foundation (identity, processes) the user teaches: said in a turn (``path`` None)
    or written in a document the user ingests (``path``)."""

    day: int
    content: str
    type: MemoryType
    importance: float
    path: str | None = None


@dataclass
class Script:
    days: int
    turns: list[list[tuple[str, str]]]  # per day: (kind, text)
    remembered: list[Remembered]
    probes: list[Probe]
    kinds: dict[str, int] = field(default_factory=dict)  # turns per kind, for the report


def day_time(day: int, slot: int, slots: int) -> float:
    """Epoch seconds of turn ``slot`` of ``day``: 09:00 to about 17:00."""
    return START + day * DAY + 9 * 3600 + slot * (8 * 3600 / max(1, slots))


def build_script(days: int, turns_per_day: int, weekend_turns: int = 3, seed: int = 2025) -> Script:
    """The year (or ``days`` of it) as turns per day (``weekend_turns`` on Saturdays and
    Sundays, at least the day's scheduled events and two pleasantries), explicit memories
    and probes.

    Scheduled events (corrections, weekly episodes ...) sit at fixed fractions of the run, so
    a short run still contains every kind of event."""
    rng = random.Random(seed)

    def at(fraction: float) -> int:
        # Never before day 6: what a correction replaces is said on days 0-5.
        return min(days - 1, max(6, int(fraction * days)))

    scheduled: dict[int, list[tuple[str, str]]] = {}

    def say(day: int, kind: str, text: str) -> None:
        scheduled.setdefault(min(day, days - 1), []).append((kind, text))

    # Foundations said once in the first weeks.
    say(0, "fact", "WOBS is based in Berlin.")
    say(0, "fact", "Peter is one of our writers.")
    say(1, "fact", "Tom is our intern.")
    say(1, "fact", "Liam works for Acme.")
    for i, (_, text, _) in enumerate(ROLES):
        say(2 + i, "fact", text)
    for i, client in enumerate(CLIENTS):
        say(3 + 2 * i, "fact", f"{client} is one of our clients.")
    say(4, "fact", "We deploy Shopfront to Heroku.")
    say(5, "preference", "I prefer bullet lists for client reports.")
    say(5, "fact", "WOBS's monthly traffic is 500.")

    # Corrections.
    say(at(0.33), "correction", "We now deploy Shopfront to AWS.")
    say(at(0.40), "correction", "Actually, Peter is now our editor.")
    say(at(0.50), "correction", "Actually I now prefer short paragraphs for client reports.")
    say(at(0.55), "correction", "Liam now works for WOBS.")
    say(at(0.58), "correction", "WOBS's monthly traffic is now 800.")
    say(at(0.66), "correction", "WOBS is now based in Vienna.")
    say(at(0.72), "correction", "Tom is now our analyst.")

    # Decisions restated in other words (semantic near-duplicates).
    decisions = [
        "We decided to use Originality.ai for all AI checks.",
        "We have decided to use Originality.ai for every AI check.",
        "Reminder: we decided to use Originality.ai for all AI checks.",
        "As a reminder, we decided to use Originality.ai for all AI checks.",
    ]
    for fraction, text in zip((0.03, 0.2, 0.45, 0.7), decisions, strict=True):
        say(at(fraction), "decision", text)

    # Repeated episodes: Peter's weekly batch (Fridays), Anna's report every other Monday,
    # Priya's invoices monthly.
    weekly = [
        "Yesterday I checked Peter's batch of {n} articles for {c} with the AI detector, "
        "it passed.",
        "This morning we ran Peter's {n} articles for {c} through the AI detector; they passed.",
        "Yesterday I ran Peter's new {c} batch through the AI detector and it passed as human.",
    ]
    for day in range(2, days, 7):
        text = rng.choice(weekly).format(n=rng.randint(4, 15), c=rng.choice(CLIENTS))
        say(day, "episode", text)
    for day in range(5, days, 14):
        say(day, "episode", f"Last week Anna sent the backlink report to {rng.choice(CLIENTS)}.")
    for month_start in range(0, days, 30):
        say(month_start + 1, "episode", "Yesterday Priya sent the invoices to all our clients.")

    # What stays current, for restatements (a restated fact adds no fact, only the turn).
    restatable = [text for _, text, _ in ROLES] + [f"{c} is one of our clients." for c in CLIENTS]
    turns: list[list[tuple[str, str]]] = []
    kinds: dict[str, int] = {}
    for day in range(days):
        events = scheduled.get(day, [])
        weekend = datetime.fromtimestamp(START + day * DAY, tz=UTC).weekday() >= 5
        filler = max(0, (weekend_turns if weekend else turns_per_day) - 2 - len(events))
        body: list[tuple[str, str]] = list(events)
        for _ in range(filler):
            body.append(_filler(rng, day, restatable))
        rng.shuffle(body)
        today = [
            ("small_talk", rng.choice(SMALL_TALK_OPEN)),
            *body,
            ("small_talk", rng.choice(SMALL_TALK_CLOSE)),
        ]
        for kind, _ in today:
            kinds[kind] = kinds.get(kind, 0) + 1
        turns.append(today)

    remembered = [
        Remembered(
            0,
            "WOBS is a content marketing and SEO agency founded in 2015, about fifteen people.",
            MemoryType.SEMANTIC,
            0.8,
        ),
        Remembered(
            1,
            "How to check if content is human: run it through Originality.ai, then read it "
            "aloud; anything above 20% AI is rewritten by the writer.",
            MemoryType.PROCEDURAL,
            0.8,
        ),
        Remembered(
            2,
            "# How to onboard a new client\n\nSend the questionnaire, schedule the kickoff "
            "call, set up the shared drive folder and create the editorial calendar.",
            MemoryType.PROCEDURAL,
            0.7,
            "handbook/onboarding.md",
        ),
        Remembered(
            3,
            "# How to publish a guest post\n\nConfirm the anchor text with the client, check "
            "the host site's traffic, send the article, and log the live link in the backlink "
            "report.",
            MemoryType.PROCEDURAL,
            0.7,
            "handbook/guest-posts.md",
        ),
        Remembered(
            4,
            "Invoicing: Priya sends the invoices on the first Monday of the month; overdue "
            "invoices get a reminder after 14 days.",
            MemoryType.PROCEDURAL,
            0.7,
        ),
        # The same procedure remembered again in other words (a near-duplicate to merge).
        Remembered(
            at(0.3),
            "How to check if content is human: run it through Originality.ai, then read it out "
            "loud; anything above 20% AI gets rewritten by the writer.",
            MemoryType.PROCEDURAL,
            0.8,
        ),
    ]
    return Script(days, turns, remembered, _probes(at), kinds)


def _filler(rng: random.Random, day: int, restatable: list[str]) -> tuple[str, str]:
    client, topic = rng.choice(CLIENTS), rng.choice(TOPICS)
    roll = rng.random()
    if roll < 0.08 and day > 20:
        return "restated", rng.choice(restatable)
    if roll < 0.14:
        return "task", f"TODO: send the {topic} to {client}"
    if roll < 0.40:
        return "question", rng.choice(
            [
                f"What's the status of the {client} {topic}?",
                f"Can you remind me what we agreed with {client} about the {topic}?",
                f"Who is working on the {topic} for {client}?",
            ]
        )
    return "chatter", rng.choice(
        [
            f"The {client} {topic} is going well.",
            f"I'm looking at the {topic} for {client} today.",
            f"Let's talk about the {topic} for {client} tomorrow.",
            f"The {topic} for {client} needs another pass.",
            f"{client} liked the draft of the {topic}.",
        ]
    )


def _probes(day: Callable[[float], int]) -> list[Probe]:
    """``day(f)``: the day at fraction ``f`` of the run."""

    def one(name: str, kind: str, query: str, said: int, expect: str) -> Probe:
        return Probe(name, kind, query, (Version(said, expect),))

    probes = [
        one(
            f"role:{name}",
            "foundation",
            f"What is {name}'s role at WOBS?",
            2 + i,
            rf"\b{name}\b[^.]*\b{role}",
        )
        for i, (name, _, role) in enumerate(ROLES)
    ]
    probes += [
        one(
            f"client:{c}",
            "foundation",
            f"Is {c} one of our clients?",
            3 + 2 * i,
            rf"\b{c}\b.*\bclient",
        )
        for i, c in enumerate(CLIENTS)
    ]
    probes += [
        one("identity", "foundation", "What kind of company is WOBS?", 0, r"SEO agency"),
        one(
            "process:human",
            "foundation",
            "How do we check if content is human?",
            1,
            r"aloud|out loud",
        ),
        one(
            "process:onboard", "foundation", "How do we onboard a new client?", 2, r"questionnaire"
        ),
        one("process:guest", "foundation", "How do we publish a guest post?", 3, r"anchor text"),
        one("process:invoice", "foundation", "When do invoices go out?", 4, r"first Monday"),
    ]
    probes += [
        Probe(
            "role:Peter",
            "current",
            "What is Peter's role at WOBS?",
            (Version(0, r"\bPeter\b[^.]*\bwriter"), Version(day(0.40), r"\bPeter\b[^.]*\beditor")),
        ),
        Probe(
            "role:Tom",
            "current",
            "What is Tom's role at WOBS?",
            (Version(1, r"\bTom\b[^.]*\bintern"), Version(day(0.72), r"\bTom\b[^.]*\banalyst")),
        ),
        Probe(
            "employer:Liam",
            "current",
            "Who does Liam work for?",
            (Version(1, r"\bLiam\b[^.]*\bAcme"), Version(day(0.55), r"\bLiam\b[^.]*\bWOBS")),
        ),
        Probe(
            "deploy:Shopfront",
            "current",
            "Where do we deploy Shopfront?",
            (Version(4, r"Shopfront[^.]*\bHeroku"), Version(day(0.33), r"Shopfront[^.]*\bAWS")),
        ),
        Probe(
            "location:WOBS",
            "current",
            "Where is WOBS based?",
            (Version(0, r"\bBerlin\b"), Version(day(0.66), r"\bVienna\b")),
        ),
        Probe(
            "preference:reports",
            "current",
            "How should client reports be formatted?",
            (Version(5, r"bullet lists"), Version(day(0.50), r"short paragraphs")),
        ),
        Probe(
            "traffic:WOBS",
            "conflict",
            "What is WOBS's monthly traffic?",
            (Version(5, r"traffic is 500"), Version(day(0.58), r"traffic is now 800")),
        ),
        one(
            "recurring:ai-check",
            "recurring",
            "How do we check Peter's articles?",
            2,
            r"AI detector",
        ),
        one(
            "recurring:backlinks",
            "recurring",
            "Who sends the backlink reports?",
            5,
            r"Anna[^.]*backlink report",
        ),
    ]
    return probes
