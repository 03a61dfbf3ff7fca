"""The closed word lists the statement extractor (``ingest/statements.py``) reads a parse
with: which verbs change a value, which nouns are too vague to be a topic, which imperatives
state a rule. Closed lists, so plain sets."""

from __future__ import annotations

SUBJECTS = frozenset({"nsubj", "nsubjpass"})
# Verbs that set a new value of an attribute: "moved X to Y", "switched X back to Y".
CHANGE_VERBS = frozenset(
    {
        "move",
        "switch",
        "change",
        "migrate",
        "revert",
        "set",
        "update",
        "raise",
        "lower",
        "bump",
        "increase",
        "decrease",
        "reduce",
        "cut",
        "drop",
        "relocate",
        "shift",
        "transfer",
        "upgrade",
        "downgrade",
        "swap",
        "replace",
    }
)
# Verbs whose value is where the thing is: "moved to AWS", "is hosted on Hetzner".
LOCATING = frozenset({"move", "migrate", "relocate", "transfer", "host", "run", "live", "base"})
LOCATION_PREPS = frozenset({"on", "in", "at"})
# Imperatives that state how the user wants things done ("keep my posts short").
RULE_VERBS = frozenset(
    {
        "keep",
        "make",
        "use",
        "avoid",
        "write",
        "stop",
        "send",
        "include",
        "limit",
        "format",
        "put",
        "add",
        "skip",
        "cc",
        "start",
        "call",
        "address",
        "sign",
        "reply",
        "respond",
        "mention",
    }
)
# "I prefer ...": one current preference per topic. Likes and dislikes ("I like long
# meetings") may hold several values; the rules keep them as such (conflicts, not overwrites).
LIKING = frozenset({"prefer"})
# Subjects too vague to be a topic of their own.
VAGUE = frozenset(
    {
        "thing",
        "things",
        "stuff",
        "one",
        "ones",
        "everything",
        "something",
        "nothing",
        "anything",
        "life",
        "day",
        "today",
        "time",
        "way",
        "idea",
        "problem",
        "point",
        "question",
        "answer",
        "lot",
        "part",
        "kind",
        "sort",
        "reason",
        "fact",
        "thanks",
        "weather",
        "world",
        "people",
        "person",
        "guy",
        "man",
        "woman",
        "friend",
        "kid",
        "kids",
        "family",
        "experience",
        "feeling",
        "result",
        "end",
        "rest",
        "name",
        # "The company is Wolf of Blog Street": who the speaker is, for resolution/ to read.
        "company",
        "business",
        "organisation",
        "organization",
        "firm",
        "team",
    }
)
PERSONAL = frozenset({"he", "she", "they", "it"})
ATTRIBUTE_NOUNS = frozenset(
    {"color", "colour", "status", "tone", "format", "language", "currency", "mode", "size"}
)
JUDGEMENTS = frozenset(
    {"great", "good", "nice", "bad", "best", "awesome", "amazing", "terrible", "perfect",
     "important", "fun", "hard", "tough", "big", "huge", "cool", "wonderful", "lovely"}
)  # fmt: skip
