"""Statements, values and slots (``ingest/slots``, ``core/statements.py``, ``core/slots.py``):
what a sentence asserts, the values it gives in their normal forms, and when a later sentence
replaces an earlier one whatever its words."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.slots import Focus, corrects, same_slot, stem, substitute
from core.statements import Statement, amounts, normal, statement_id, unit_of
from ingest.slots.analysis import statements

PAIRS = Path(__file__).resolve().parents[2] / "data" / "ingest" / "slot_pairs.jsonl"


def said(nlp: Any, text: str) -> Statement:
    return statements(nlp(text))[-1]


@pytest.mark.parametrize(
    ("text", "kind", "norm"),
    [
        ("half past 11 in the morning", "time", "11:30"),
        ("7:30 pm", "time", "19:30"),
        ("quarter to 3", "time", "02:45"),
        ("four", "number", "4"),
        ("1,200", "number", "1200"),
        ("100k", "number", "100000"),
        ("The Acme Corp", "name", "acme corp"),
    ],
)
def test_a_value_has_one_normal_form_whatever_its_words(text: str, kind: str, norm: str) -> None:
    assert normal(text, kind) == norm


def test_a_statement_masks_its_values_and_keeps_its_subject(nlp: Any) -> None:
    switched = said(nlp, "We switched the deploy target to production last week.")
    assert switched.frame == ("deploy", "target", "<thing>")  # "last week" says when
    assert [v.text for v in switched.values] == ["production"] and switched.change
    door = said(nlp, "The door code for warehouse 1 is 4471.")
    assert "1" in door.frame and [v.norm for v in door.values] == ["4471"]
    fix = said(nlp, "The approval limit is £2,000 now, not £1,500.")
    assert [v.text for v in fix.values] == ["£2,000"] and [v.text for v in fix.negated] == [
        "£1,500"
    ]


def test_a_sentence_of_several_clauses_is_a_statement_each(nlp: Any) -> None:
    found = statements(
        nlp(
            "Quick facts: our office is in Bristol, the team has 14 people, and our accountant is Rhona Patel."
        )
    )
    assert [s.text for s in found] == [
        "our office is in Bristol",
        "the team has 14 people",
        "our accountant is Rhona Patel",
    ]


def test_a_statement_reads_back_as_stored(nlp: Any) -> None:
    text = "It's Jenna, not Jenny. The call is at 3 tomorrow."
    for statement in statements(nlp(text)):
        back = Statement.loads(statement.dumps(), text)
        assert back.frame == statement.frame and back.mood == statement.mood
        assert [(v.text, v.norm) for v in back.values] == [
            (v.text, v.norm) for v in statement.values
        ]
        assert [v.text for v in back.negated] == [v.text for v in statement.negated]


def test_the_dev_pairs_are_told_apart(nlp: Any) -> None:
    # The matcher on its development pairs (bench.slot_pairs reports them with the SGD pairs,
    # which are held out): no near-miss, plan or question taken for a change of value.
    wrong_links, missed = [], []
    for line in PAIRS.read_text().splitlines():
        pair = json.loads(line)
        old, new = said(nlp, pair["old"]), said(nlp, pair["new"])
        found = same_slot(new, old)
        linked = bool(found and found.changed) or (
            pair.get("session", False) and any(r.changed for _, r in corrects(new, [(old, True)]))
        )
        if linked and not pair["same"]:
            wrong_links.append(pair)
        elif not linked and pair["same"]:
            missed.append(pair)
    assert len(wrong_links) <= 1, wrong_links
    assert len(missed) <= 6, missed


def test_a_correction_binds_to_the_value_it_names(nlp: Any) -> None:
    first = said(nlp, "The call with Globex is at 3 tomorrow.")
    echo = said(nlp, "Noted, I'll remind you before the call.")
    fix = said(nlp, "Sorry, 4, not 3.")
    ((index, replaced),) = corrects(fix, [(echo, False), (first, True)])
    assert index == 1
    assert substitute(first.text, replaced.changed, first.start) == (
        "The call with Globex is at 4 tomorrow."
    )
    name = said(nlp, "Got it: Jenny Morales is your account manager at Brightline.")
    ((_, renamed),) = corrects(said(nlp, "It's Jenna, not Jenny."), [(name, False)])
    assert substitute(name.text, renamed.changed, name.start) == (
        "Jenna Morales is your account manager at Brightline."  # "Got it:" is a heading
    )


def test_a_correction_without_a_named_value_fixes_the_users_own_first(nlp: Any) -> None:
    own = said(nlp, "The social push budget is 18k, split across Meta and TikTok.")
    suggestion = said(nlp, "I would split it 60% TikTok and 40% Meta.")
    fix = said(nlp, "Actually make that 28k total.")
    ((index, replaced),) = corrects(fix, [(suggestion, False), (own, True)])
    assert index == 1
    assert [(o.norm, n.norm) for o, n in replaced.changed] == [("18000", "28000")]
    # the assistant's line is corrected when the user said no value of the kind
    booked = said(nlp, "Booked your table for Friday at 7.")
    party = said(nlp, "A table for 2 people please.")
    ((index, _),) = corrects(said(nlp, "Sorry, Saturday."), [(booked, False), (party, True)])
    assert index == 0


def test_a_question_asks_for_a_kind_of_value_about_what_it_names(nlp: Any) -> None:
    focus = Focus.of("Who is leading the Atlas migration?")
    assert focus.families == frozenset({"thing"}) and focus.names == ("Atlas",)
    text = "Nadia Petrov has taken over the Atlas migration."
    assert focus.relevant(said(nlp, text), text)
    other = "Nadia Petrov has taken over the Hermes migration."
    assert not focus.relevant(said(nlp, other), other)
    staging = Focus.of("Where is the staging server hosted?")
    production = "The production server is on AWS."
    subjects = [frozenset({stem("staging"), "server"}), frozenset({"production", "server"})]
    assert not staging.relevant(said(nlp, production), production, subjects)
    moved = "We moved the staging server to AWS last week."
    assert staging.relevant(said(nlp, moved), moved, subjects)


def test_a_question_asks_for_the_kind_its_question_word_asks(nlp: Any) -> None:
    # the question word that opens it, not a "when" further on
    assert (
        Focus.of("Which airline should you check first when booking my flights?").families is None
    )
    assert Focus.of("When is the call?").families == frozenset({"time", "date", "duration"})
    assert Focus.of("Remind me, what's the price of the set?").families == frozenset({"amount"})
    # "what is the <date>": the noun names the kind, and is no topic of the question
    departure = Focus.of("What is the date of departure flight?")
    assert departure.families == frozenset({"date"})
    assert departure.words == frozenset({"departure", "flight"})
    assert Focus.of("What is the starting time of the event?").families == frozenset({"time"})
    assert Focus.of("What is the name of the city?").families is None
    # a question for an amount is answered by a sentence that names what it names, in any words
    price = Focus.of("How much does the Ceramic Pour-Over Set cost?")
    text = "Noted, the Ceramic Pour-Over Set retails at £38 with roughly 55% margin."
    assert price.relevant(said(nlp, text), text)
    other = "Noted, the Bamboo Tray retails at £12."
    assert not price.relevant(said(nlp, other), other)


def test_an_acronym_no_memory_says_is_no_name_the_answer_must_say() -> None:
    isp = Focus.of("who's my ISP?")
    assert isp.names == ("ISP",)
    assert isp.as_said(["so I'm back with Comcast Xfinity"]).names == ()
    assert isp.as_said(["the ISP is Comcast"]).names == ("ISP",)
    # a name in letters stays asked, said or not
    assert Focus.of("who is Noah's teacher?").as_said(["he's with mr. petrov"]).names == ("Noah",)


def test_the_role_a_verb_gives_is_a_value(nlp: Any) -> None:
    joining = said(nlp, "Oh, correction: she's joining as the senior designer.")
    assert [v.text for v in joining.values] == ["senior designer"]
    # with an object, the object is the value and the role stays in the frame
    wiki = said(nlp, "We use Notion as our wiki.")
    assert [v.text for v in wiki.values] == ["Notion"] and "wiki" in wiki.frame
    assert not said(nlp, "As a result, we shipped late.").values


def test_a_pronoun_subject_is_about_what_the_sentence_before_was(nlp: Any) -> None:
    wrong, fixed, *_ = statements(
        nlp("hey the guest wifi password you have is wrong. it's tidepool2025, they changed it")
    )
    assert fixed.subject == wrong.subject == ("guest", "wifi", "password")
    assert fixed.correction  # the sentence before says the value held is wrong
    old = said(nlp, "The guest wifi is called Harbour-Guest and the password is tidepool2024.")
    assert same_slot(fixed, old) is not None
    _, akiko = statements(
        nlp("Turns out I had Akiko wrong. She works out of the Singapore office.")
    )
    assert "akiko" in akiko.subject
    # and names whom it stands for: "who runs the review?" is answered by it
    _, review = statements(
        nlp(
            "Sales has a new boss, Imani Cole started monday. she moved our pipeline review to mondays"
        )
    )
    assert [v.text for v in review.named] == ["Imani Cole"]
    assert [v.text for v in Focus.of("who runs the pipeline review?").answers(review)] == [
        "Imani Cole"
    ]
    # a pronoun after a sentence about something else names no subject of its own
    _, great = statements(nlp("Our CRM is HubSpot. It is great."))
    assert not great.values and great.subject == ()


def test_a_clause_keeps_the_phrase_that_leads_into_it(nlp: Any) -> None:
    # the parser hangs "back in 2019" on the first clause; after the pause it is the second's
    _, flat = statements(
        nlp(
            "funny, was looking at old bank statements - back in 2019 our first flat was only £950 a month."
        )
    )
    assert flat.text.startswith("back in 2019") and flat.mood == "history"


def test_clauses_joined_by_a_comma_alone_are_a_statement_each(nlp: Any) -> None:
    scratch, venue, reason = statements(
        nlp("Scratch that. Let's do Hotel du Vin in Brighton instead, the other place is too far.")
    )
    assert [v.text for v in venue.values] == ["Hotel du Vin", "Brighton"]
    assert venue.correction  # "Scratch that." says what the next sentence does
    assert not reason.values and not scratch.values
    # a first clause about someone keeps the one after it: it is still about them
    (leo,) = statements(nlp("My son Leo goes to Greenfield Primary, pickup is at 3:15 every day."))
    assert "son" in leo.frame
    # a clause that says how it depends on the other stays with it
    (rain,) = statements(nlp("When it rains, we close the terrace."))
    assert rain.text.startswith("When")


def test_a_no_that_answers_the_turn_before_negates_nothing_of_its_own(nlp: Any) -> None:
    # "no - 18:40, evening." says 18:40 against what was said before, not "not evening"
    (fix, _) = statements(nlp("no - 18:40, evening. so it's tighter than that"))
    assert fix.correction and not fix.negated
    assert "18:40" in [v.norm for v in fix.values]


def test_a_name_set_against_another_is_the_value(nlp: Any) -> None:
    # "X, not Y" with no verb: X is the value, Y the value said not to be so
    brightpath = said(nlp, "Brightpath, not Brightwater.")
    assert [v.text for v in brightpath.values] == ["Brightpath"]
    assert [v.text for v in brightpath.negated] == ["Brightwater"]
    typo = said(nlp, "ugh typo, half three not half two — 15:30.")
    # ("half three" is a time: half past three, as British English says it)
    assert "15:30" in [v.text for v in typo.values]
    assert [(v.text, v.kind) for v in typo.negated] == [("half two", "time")]
    assert "ugh typo" not in [v.text for v in typo.values]  # the "not" is said of the two
    four = said(nlp, "4, not 3.")  # the parser hangs the 4 on the 3: only the 3 is not so
    assert [v.text for v in four.values] == ["4"] and [v.text for v in four.negated] == ["3"]


def test_codes_and_domains_with_dots_are_values(nlp: Any) -> None:
    db = said(nlp, "ops bumped the prod db to a db.r6g.2xlarge over the weekend")
    assert ("db.r6g.2xlarge", "code") in [(v.text, v.kind) for v in db.values]
    domain = said(nlp, "typo on my part, the domain is baltictimber.lt.")
    assert ("baltictimber.lt", "url") in [(v.text, v.kind) for v in domain.values]


def test_amounts_without_a_parse_keep_their_unit() -> None:
    found = amounts("approve under £1,500, within 5 working days, by 8am, under 80% human")
    assert [(v.text, unit_of(v)) for v in found] == [
        ("£1,500", "£"),
        ("5 working", "working"),
        ("8am", "time"),
        ("80%", "%"),
    ]


def test_a_statement_of_a_turn_has_one_id() -> None:
    assert statement_id("m1", 0) == statement_id("m1", 0) != statement_id("m1", 12)


def test_a_full_stop_then_a_lowercase_word_ends_a_sentence(nlp: Any) -> None:
    # the parser keeps it one sentence, and the question would make the fact a question
    ci, ask = statements(
        nlp("CI runs on the old Jenkins box, builds take ~12 min. what should the page cover?")
    )
    assert ci.mood == "assert" and "Jenkins" in [v.text for v in ci.values]
    assert ask.mood == "question"
    # an abbreviation's stop is no end: "Dr. Brennan" stays with its sentence
    (gp,) = statements(nlp("my GP is Dr. Brennan at the Elm Street practice"))
    assert "Brennan" in gp.text
    # nor is a title's typed in lower case
    _, vet = statements(nlp("add dog treats. we take biscuit to dr. nakamura on 5th these days"))
    assert vet.text.startswith("we take biscuit") and "nakamura" in [v.text for v in vet.values]


def test_words_and_digits_joined_by_hyphens_are_one_code(nlp: Any) -> None:
    old = said(nlp, "prod runs in us-east-1, everything terraformed in the infra-live repo")
    new = said(nlp, "prod is in eu-central-1 now for the data residency requirement")
    assert [(v.text, v.kind) for v in old.values] == [("us-east-1", "code")]
    assert [(v.text, v.kind) for v in new.values][:1] == [("eu-central-1", "code")]


def test_going_back_to_a_value_is_a_change(nlp: Any) -> None:
    back = said(nlp, "the runner bill was brutal so CI is back on Jenkins as of this week")
    assert back.change and back.mood == "assert"
    assert "Jenkins" in [v.text for v in back.values]


def test_a_value_from_a_time_on_is_a_change(nlp: Any) -> None:
    text = "reorg news: Tobias is running point on atlas from here on, so route the status to him"
    assert said(nlp, text).change
    assert not said(nlp, "Tobias is running point on atlas, so route the status to him").change


def test_a_correction_binds_to_the_value_it_fixes_a_slip_of(nlp: Any) -> None:
    host, ask = statements(
        nlp("staging db host is 10.0.4.17, port 5432. write me a psql one-liner")
    )
    fix = said(nlp, "er 10.0.4.71 sorry, fat fingers")
    assert [(v.text, v.kind) for v in host.values][:1] == [("10.0.4.17", "code")]
    ((index, replaced),) = corrects(fix, [(ask, True), (host, True)])
    assert index == 1  # the address, not the "one" of "one-liner" said after it
    assert [(o.text, n.text) for o, n in replaced.changed] == [("10.0.4.17", "10.0.4.71")]


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("my plate is 7KLN392 and the room is 4B", [("7KLN392", "code"), ("4B", "code")]),
        ("the lamp is 2700K and 9W", [("2700K", "number"), ("9W", "number")]),  # units: amounts
        ("we run 2.4.1 on 10.0.4.17:5432", [("2.4.1", "code"), ("10.0.4.17:5432", "code")]),
        ("It's 12B. B for Bravo.", [("12B", "code")]),  # the stop is the sentence's
    ],
)
def test_letters_and_digits_in_one_word_are_a_code_unless_a_unit(
    nlp: Any, text: str, kinds: list[tuple[str, str]]
) -> None:
    values = [(v.text, v.kind) for s in statements(nlp(text)) for v in s.values]
    assert all(k in values for k in kinds), values


def test_two_digits_swapped_in_a_long_number_is_a_slip(nlp: Any) -> None:
    gate = said(nlp, "gate code is 4471 then flat 9")
    again = said(nlp, "the code I told you before was wrong, its 4417")
    (old,) = [v for v in gate.values if v.text == "4471"]
    (new,) = [v for v in again.values if v.text == "4417"]
    assert new.misspells(old)
    price = said(nlp, "it costs 1350")
    assert not said(nlp, "it costs 1250").values[0].misspells(price.values[0])  # another amount


def test_a_dash_between_two_clauses_ends_a_statement(nlp: Any) -> None:
    """Chat joins thoughts with a dash, and the parser hangs one on the other: "it's 38" is
    a statement of its own, and a correction, not an event of the people who pulled out."""
    fix, why = statements(nlp("scratch that number, it's 38 — four people from sales pulled out"))
    assert [v.text for v in fix.values] == ["38"] and fix.correction
    assert why.text.startswith("four people") and not why.correction
    # a dash in a range, or before an aside that names what came before it, stays inside
    (hours,) = statements(nlp("we're open 9 - 5 on weekdays"))
    assert hours.text == "we're open 9 - 5 on weekdays"
    sitter = statements(nlp("we've found someone else for a while — Amara, a nursing student"))
    assert [v.text for v in sitter[0].values] == ["Amara"]
    # the hyphens of an address or a code are no dash
    (mail,) = statements(nlp("sorry, it's ap@northwind-joinery.co.uk"))
    assert [v.kind for v in mail.values] == ["email"]


def test_a_list_of_facts_is_a_statement_each(nlp: Any) -> None:
    """ "venue is X, date is Y, the band is Z": the parser hangs each clause on the next; a
    list of three or more is a statement each, so a later band changes the band alone."""
    venue, date, band = statements(
        nlp(
            "wedding facts so i stop repeating myself: venue is Hengrave Hall, date is 20 "
            "September, about 120 guests, the band is The Velvet Tones"
        )
    )
    assert [v.text for v in venue.values] == ["Hengrave Hall"]
    assert "20 September" in [v.text for v in date.values]
    assert [v.text for v in band.values] == ["The Velvet Tones"] and band.subject == ("band",)
    office, team, accountant = statements(
        nlp("the office is in Bristol, the team has 14 people, and our accountant is Rhona Patel")
    )
    assert [v.text for v in team.values] == ["14"]
    # a clause someone is reported to have said stays with the report
    (rosa, _money) = statements(
        nlp("grandma Rosa is watching the kids on date nights, she insisted and it saves money")
    )
    assert "Rosa" in rosa.text and "insisted" in rosa.text


def test_a_fragment_that_only_says_which_value_is_not_so_joins_the_one_before(
    nlp: Any,
) -> None:
    """ "terminal 2! not 3" is one correction, as "terminal 2, not 3" is; a sentence of its
    own with a verb ("I'm not going. Not today.") is no such fragment."""
    (fix,) = statements(nlp("terminal 2! not 3"))
    assert [v.text for v in fix.values] == ["2"] and [v.text for v in fix.negated] == ["3"]
    assert fix.correction and fix.text == "terminal 2! not 3"
    (call,) = statements(nlp("The call is on Thursday. Not Friday."))
    assert [v.text for v in call.negated] == ["Friday"] and call.correction
    assert len(statements(nlp("I'm not going. Not today."))) == 2


def test_a_change_announced_without_a_value_is_the_next_valued_statements(nlp: Any) -> None:
    """ "Quick update for your records. The ThinkPad was recalled, and I have been issued a
    Dell Latitude 7440 in its place.": the new machine is said as a change."""
    said = statements(
        nlp(
            "Quick update for your records. The ThinkPad was recalled by IT last week. "
            "I have been issued a Dell Latitude 7440 in its place."
        )
    )
    issued = next(s for s in said if any(v.text == "7440" for v in s.values))
    assert issued.change and not issued.correction
    (plain,) = statements(nlp("I have been issued a Dell Latitude 7440."))
    assert not plain.change


def test_something_of_theirs_is_of_the_one_the_turn_named(nlp: Any) -> None:
    """ "their contract" is Acme's in a turn about Acme and Northwind's in one about
    Northwind: two slots, so the second client's contract never replaces the first's."""
    from core.slots import same_slot

    _, manager, contract = statements(
        nlp("Northwind is signing next week. Marco will be their account manager and the "
            "contract is £5k a month.")
    )  # fmt: skip
    acme_manager, acme_contract = statements(
        nlp("Acme's account manager on our side is Lena, and their contract is worth £8k a month.")
    )
    assert "northwind" in contract.frame and "acme" in acme_contract.frame
    assert same_slot(contract, acme_contract) is None
    assert same_slot(manager, acme_manager) is None
    # said again about the same client, it is the same slot
    (again,) = statements(nlp("Acme's contract is worth £9k a month now."))
    assert same_slot(again, acme_contract) is not None


def test_a_title_is_part_of_the_name_after_it(nlp: Any) -> None:
    """ "Dr Okafor" and "Dr Brandauer" share no value: the title is the name's, not a name of
    its own (which two doctors would have in common)."""
    (gp,) = statements(nlp("my GP is Dr Brandauer now"))
    assert [v.text for v in gp.values] == ["Dr Brandauer"]
    (teacher,) = statements(nlp("his teacher is Mrs. Alvarez"))
    (again,) = statements(nlp("the teacher is Mrs Alvarez"))
    assert teacher.values[0].same(again.values[0])
