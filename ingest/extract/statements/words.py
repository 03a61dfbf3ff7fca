"""The closed word lists the statement extractor reads a parse
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
        "rename",
        "push",
        "postpone",
        "delay",
        "reschedule",
        "extend",
        "shorten",
    }
)
# Change verbs whose new value follows "with" or "for" ("replaced the old CRM with Pipedrive",
# "dropped Zoom for Google Meet"); their object is the old value, or the thing changed.
SUBSTITUTING = frozenset({"replace", "swap", "drop", "ditch", "trade", "exchange", "substitute"})
# Phrasal verbs that give a person a new role said with "as": "took over as account manager",
# "stepped in as interim CFO".
TAKING_OVER = frozenset({("take", "over"), ("step", "in"), ("step", "up"), ("come", "in")})
# Headings before a colon that introduce statements ("Quick update: the kickoff is ...",
# "Two changes: ..."): the clauses after the colon are read on their own.
HEADINGS = frozenset(
    {"update", "change", "news", "note", "correction", "fyi", "reminder", "heads", "fix"}
)
# Verbs whose value is where the thing is: "moved to AWS", "is hosted on Hetzner".
LOCATING = frozenset(
    {"move", "migrate", "relocate", "transfer", "host", "run", "live", "base", "store", "keep",
     "locate", "deploy", "save", "archive"}
)  # fmt: skip
# Verbs that place a topic but not a person ("the dashboard sits on Grafana Cloud"; "Tom sits
# in the corner" is no fact about Tom).
PLACING = frozenset({"sit", "reside"})
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
        "copy",
        "bcc",
        "schedule",
        "book",
        "attach",
        "tag",
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
        # the speaker's family, neighbours and pets: their moves are small talk, not the
        # tenant's facts ("our neighbours moved to Spain", "our dog is on a diet now")
        "neighbour",
        "neighbours",
        "neighbor",
        "neighbors",
        "parent",
        "parents",
        "mum",
        "mom",
        "dad",
        "brother",
        "sister",
        "wife",
        "husband",
        "son",
        "daughter",
        "cousin",
        "uncle",
        "aunt",
        "grandma",
        "grandpa",
        "boyfriend",
        "girlfriend",
        "roommate",
        "flatmate",
        "dog",
        "cat",
        "pet",
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
# Verbs that state a measure of their subject: "takes two days", "costs 45 dollars a month",
# "has 120 members", "sits at 4%". The attribute is the measure's kind where the verb says
# it (``MEASURE_ATTRIBUTES``), else the counted noun ("has 12 people" → "people").
MEASURING = frozenset(
    {"take", "last", "cost", "hit", "reach", "total", "average", "sit", "stand", "come",
     "have", "get", "receive", "see", "generate", "go", "hold", "handle", "serve", "process",
     "store", "employ", "attract"}
)  # fmt: skip
MEASURE_ATTRIBUTES = {"take": "duration", "last": "duration", "cost": "cost"}
COUNTING = frozenset(
    {"have", "get", "receive", "see", "generate", "hold", "handle", "serve", "process", "store",
     "employ", "attract"}
)  # fmt: skip
# Verbs that put a topic on the calendar: "the trade fair starts on May 4", "the lease
# expires in 2027". The verb is the attribute (a start and an end are two values).
SCHEDULING = frozenset(
    {"start", "begin", "end", "finish", "expire", "close", "open", "launch", "renew", "happen",
     "wrap", "kick", "run", "go"}
)  # fmt: skip
# Openers that take back what was said before: "scratch that, the call is at 4".
RETRACTING = frozenset({"scratch", "ignore", "forget", "disregard"})
# Verbs that give a thing its name: "the client portal is now called Hub".
NAMING = frozenset({"call", "name", "rename", "brand", "title", "know"})
# Verbs that give a person a role or an employer: "promoted to", "hired by", "left Acme".
PROMOTING = frozenset({"promote", "appoint", "name", "elect"})
HIRING = frozenset({"hire", "recruit", "employ"})
LEAVING = frozenset({"leave", "quit"})
# Verbs that settle a choice, said by the speaker or a group ("we opted for", "the board
# agreed to"); ``_DECIDERS`` are the subjects a decision belongs to besides "I" and "we".
DECIDING = frozenset(
    {"decide", "agree", "choose", "settle", "opt", "pick", "select", "go", "stick", "commit",
     "vote", "finalise", "finalize", "approve"}
)  # fmt: skip
DECIDERS = frozenset(
    {"i", "we", "'s", "us", "team", "board", "management", "committee", "leadership",
     "company", "founders", "partners"}
)  # fmt: skip
# Verbs whose clause reports what someone said or wants: a rule inside it is theirs, quoted.
REPORTING = frozenset(
    {"say", "tell", "ask", "write", "want", "think", "insist", "suggest", "mention", "reply",
     "text", "shout", "yell", "add", "explain", "believe", "hope", "wish"}
)  # fmt: skip
# Words that make an instruction standing rather than one-off ("always", "from now on", "in
# every email", "on Mondays").
STANDING = frozenset(
    {"always", "never", "every", "everything", "all", "whenever", "ever", "generally",
     "usually"}
)  # fmt: skip
# Imperatives that hand an instruction on to the verb they govern ("remember to always add
# ...", "make sure to ..."): the governed verb decides whether a rule is stated.
DEFERRING = frozenset({"remember", "make", "be", "try"})
