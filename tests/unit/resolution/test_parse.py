"""The parse step with the real spaCy model: mentions, ruler, heuristics, pronouns."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from core.errors import InvalidInput
from core.settings import ResolutionSettings
from core.types import EntityType
from resolution.gazetteer import Gazetteer, KnownName
from resolution.parse import Parser

AT = datetime(2023, 1, 18, 15, tzinfo=UTC).timestamp()


@pytest.fixture(scope="module")
async def parser() -> AsyncIterator[Parser]:
    p = Parser(ResolutionSettings())
    await p.load()
    yield p


def spans(parsed: object) -> list[tuple[str, EntityType | None, str]]:
    return [(m.text, m.entity_type, m.source) for m in parsed.mentions]  # type: ignore[attr-defined]


async def test_seed_turn(parser: Parser) -> None:
    text = (
        "The company is Wolf of Blog Street, also known as WOBS. We do link building. "
        "Peter is one of our writers."
    )
    parsed = await parser.parse(text, AT)
    assert [(m.text, m.entity_type) for m in parsed.mentions] == [
        ("Wolf of Blog Street", EntityType.ORG),
        ("WOBS", EntityType.ORG),
        ("Peter", EntityType.PERSON),
    ]
    assert [(a.name, a.alias) for a in parsed.aliases] == [("Wolf of Blog Street", "WOBS")]
    assert parsed.relations[0].relation == "role" and parsed.relations[0].object == "writer"


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Actually Peter is our editor now.", "Peter"),
        ("Sorry Maria is our designer, not Tom.", "Maria"),
        ("Luckily Sarah Hale is the new head of procurement.", "Sarah Hale"),
    ],
)
async def test_a_sentence_opener_is_not_part_of_the_name(
    parser: Parser, text: str, name: str
) -> None:
    """The parse tags the opener (an adverb, an interjection), so a name is never "Actually
    Peter", whatever the opener's word; a determiner stays ("The Hague")."""
    parsed = await parser.parse(text, AT)
    assert name in [m.text for m in parsed.mentions], spans(parsed)
    assert not any(m.text.split()[0] == text.split()[0] for m in parsed.mentions), spans(parsed)
    subjects = {r.subject for r in parsed.relations}
    assert name in subjects or not subjects, parsed.relations
    hague = await parser.parse("We opened an office in The Hague last year.", AT)
    assert any(m.text in ("The Hague", "Hague") for m in hague.mentions), spans(hague)


async def test_ruler_finds_known_names_case_insensitively(parser: Parser) -> None:
    nlp = await parser.load()
    g = Gazetteer(nlp)
    g.add([KnownName("WOBS", "e1", EntityType.ORG), KnownName("Peter", "e2", EntityType.PERSON)])
    parsed = await parser.parse("did wobs pay the invoice", AT, g)
    assert spans(parsed) == [("wobs", EntityType.ORG, "ruler")]
    # A longer unknown name that extends a known first name is kept whole.
    parsed = await parser.parse("Peter Okafor coaches football", AT, g)
    assert [m.text for m in parsed.mentions] == ["Peter Okafor"]
    # ... but a lowercase word the model glued onto it is not a surname ("John later").
    g.add([KnownName("John", "e3", EntityType.PERSON)])
    parsed = await parser.parse("Remind me to email John later.", AT, g)
    assert [m.text for m in parsed.mentions] == ["John"]


async def test_project_heuristic_pronouns_and_times(parser: Parser) -> None:
    parsed = await parser.parse("Now the Anderson order is late; they want it last Saturday.", AT)
    assert ("Anderson order", EntityType.PROJECT, "heuristic") in spans(parsed)
    assert [m.text for m in parsed.mentions if m.source == "pronoun"] == ["they", "it"]
    assert [t.text for t in parsed.times] == ["last Saturday"]


async def test_pleasantries_have_no_mentions(parser: Parser) -> None:
    parsed = await parser.parse("Thanks, that works for me!", AT)
    assert parsed.mentions == ()


async def test_bad_input(parser: Parser) -> None:
    with pytest.raises(InvalidInput):
        await parser.parse(123, AT)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput) as refused:
        await parser.parse("x" * (parser.max_chars + 1), AT)
    assert refused.value.field == "text" and parser.max_chars == 32_000  # the content limit


async def test_a_light_parse_finds_the_known_names_and_pronouns_a_full_one_does(
    parser: Parser,
) -> None:
    """A search query's parse skips the NER and the dependency parser: the tenant's known
    names, unknown proper nouns (typeless), pronouns and times stay; "it" that refers to
    nothing is still told apart without the parse tree."""
    nlp = await parser.load()
    g = Gazetteer(nlp)
    g.add(
        [
            KnownName("WOBS", "e1", EntityType.ORG),
            KnownName("Peter", "e2", EntityType.PERSON),
            KnownName("Anderson order", "e3", EntityType.PROJECT),
        ]
    )
    queries = [
        "Check if Peter's content is passing as human",
        "What about his last batch for WOBS?",
        "did wobs pay the invoice for the Anderson order last week",
        "Who else writes for them besides Peter?",
    ]
    for q in queries:
        full, light = await parser.parse(q, AT, g), await parser.parse(q, AT, g, light=True)
        known = [(m.text, m.entity_type) for m in full.mentions if m.source in {"ruler", "pronoun"}]
        assert [
            (m.text, m.entity_type) for m in light.mentions if m.source in {"ruler", "pronoun"}
        ] == known
        assert light.times == full.times
    unknown = "What did Marisol Ferreira say?"
    assert spans(await parser.parse(unknown, AT, g)) == [
        ("Marisol Ferreira", EntityType.PERSON, "heuristic")  # typed by the NER
    ]
    assert spans(await parser.parse(unknown, AT, g, light=True)) == [
        ("Marisol Ferreira", None, "heuristic")
    ]
    for text in (
        "It is raining again.",
        "It seems we lost the account.",
        "It is likely that we win.",
    ):
        assert not [m for m in (await parser.parse(text, AT, g, light=True)).mentions]
    referring = await parser.parse("It broke again after the update.", AT, g, light=True)
    assert [(m.text, m.source) for m in referring.mentions] == [("It", "pronoun")]


async def test_titles_formats_tools_and_orgs_are_typed(parser: Parser) -> None:
    """Issue 21: "CTO" and "PDF" were organisations, a host a place, a client a concept."""
    cases = {
        "Our CTO signed the PDF yesterday.": [("PDF", EntityType.SYSTEM)],
        "We moved the site to Hetzner last week.": [("Hetzner", EntityType.SYSTEM)],
        "Export it as CSV for Google Drive.": [
            ("CSV", EntityType.SYSTEM),
            ("Google Drive", EntityType.SYSTEM),
        ],
        "Sarah Okafor is the head of procurement at our client Dunmore Foods.": [
            ("Sarah Okafor", EntityType.PERSON),
            ("Dunmore Foods", EntityType.ORG),
        ],
        # Unfamiliar surnames the model typed as a project ("is the project" inside "project
        # manager"), a place ("office manager") or an organisation: a role's or an
        # employer's subject is a person.
        "Clara Quidt is the project manager at Redcliff Labs.": [
            ("Clara Quidt", EntityType.PERSON),
            ("Redcliff Labs", EntityType.ORG),
        ],
        "Ravi Quiphy is the office manager at Oakridge Foods.": [
            ("Ravi Quiphy", EntityType.PERSON),
            ("Oakridge Foods", EntityType.ORG),
        ],
        "Morgan from Larkspur Digital approved the payroll run.": [
            ("Morgan", EntityType.PERSON),
            ("Larkspur Digital", EntityType.ORG),
        ],
        "Apollo is our project.": [("Apollo", EntityType.PROJECT)],
    }
    for text, expected in cases.items():
        parsed = await parser.parse(text, AT)
        named = [(m.text, m.entity_type) for m in parsed.mentions if m.source != "pronoun"]
        assert named == expected, text


@pytest.mark.parametrize(
    "text",
    [
        "Wow, what an experience!",  # an interjection is no person with a role
        "Thankfully, they enjoyed the Grand Canyon.",
        "Caroline, thanks! Mental health is important to me.",  # addressed, not described
        "Yeah, Caroline, my family's been great - their love and support really helped me.",
        "Caroline, the parade sounds awesome!",  # "parade sounds awesome" is a clause
        "Our contact at Kestrel Media, Sarah, sent the report for order 1002.",  # no org "1002"
    ],
)
async def test_casual_talk_states_no_identity_cue(parser: Parser, text: str) -> None:
    """Conversation addresses people and exclaims; none of it says who someone is (a cue
    here made LoCoMo's two speakers into dozens of provisional namesakes)."""
    parsed = await parser.parse(text, AT)
    cues = ("role", "related_to_speaker", "works_for")
    assert [r for r in parsed.relations if r.relation in cues] == []
    assert not {"Wow", "Thankfully"} & {m.text for m in parsed.mentions}


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("Sarah, our designer, sent the drafts.", ("Sarah", "designer")),
        ("Anna, head of sales at Globex, called.", ("Anna", "head of sales")),
        ("Sarah is the designer who made the logo.", ("Sarah", "designer")),
        ("Sarah Okafor is the head of procurement at our client Dunmore Foods.",
         ("Sarah Okafor", "head of procurement")),
    ],
)  # fmt: skip
async def test_stated_roles_survive_the_parse_check(
    parser: Parser, text: str, role: tuple[str, str]
) -> None:
    parsed = await parser.parse(text, AT)
    assert role in {(r.subject, r.object) for r in parsed.relations if r.relation == "role"}


async def test_names_with_punctuation_are_found_by_the_ruler(parser: Parser) -> None:
    nlp = await parser.load()
    g = Gazetteer(nlp)
    names = ["Brandt & Voss", "O'Neil-Smith", "Originality.ai", "U.S. Steel Co.", "Zoë Müller"]
    g.add([KnownName(n, f"e{i}", EntityType.ORG) for i, n in enumerate(names)])
    text = "Brandt & Voss and o'neil-smith met U.S. Steel Co. about Originality.ai and Zoë Müller."
    parsed = await parser.parse(text, AT, g)
    assert sorted(m.text for m in parsed.mentions if m.source == "ruler") == sorted(
        ["Brandt & Voss", "o'neil-smith", "U.S. Steel Co.", "Originality.ai", "Zoë Müller"]
    )


async def test_adding_names_leaves_the_shared_model_alone(
    parser: Parser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Names are added from worker threads while other threads parse with the same model:
    an add that switched the model's components off (spaCy's ruler does so to tokenize its
    patterns with the pipeline it belongs to) would parse those texts without NER."""
    nlp = await parser.load()

    def switched(*args: object, **kwargs: object) -> None:
        raise AssertionError("the shared model's pipeline was changed")

    monkeypatch.setattr(nlp, "select_pipes", switched)
    g = Gazetteer(nlp)
    g.add([KnownName(f"Peter {i}", f"p{i}", EntityType.PERSON) for i in range(50)])
    assert nlp.pipe_names == ["tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "ner"]
    assert g.exact("peter 7") == {"p7"}


async def test_each_parse_runs_on_the_loaded_backend(
    parser: Parser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker thread runs each parse in a fresh copy of the caller's context; thinc keeps its
    backend there, so unless the parse sets it, every call looked it up again (a registry
    scan and failed imports)."""
    import thinc.backends

    looked_up: list[object] = []
    real = thinc.backends.require_cpu
    monkeypatch.setattr(thinc.backends, "require_cpu", lambda: looked_up.append(1) or real())
    first = await parser.parse("Sarah from Dunmore Foods sent the invoice.", AT)
    again = await parser.parse("Sarah from Dunmore Foods sent the invoice.", AT)
    assert looked_up == []
    assert [(t.dep_, t.head.i) for t in first.doc] == [(t.dep_, t.head.i) for t in again.doc]


async def test_the_parse_multiplies_with_numpy_on_one_blas_thread(parser: Parser) -> None:
    """numpy's matrix product parses 16-23 % faster than blis, and the same; on one BLAS
    thread, so that OpenBLAS does not spin a thread per core beside the graph engine and the
    event loop."""
    import spacy
    from thinc.api import NumpyOps, get_current_ops, set_current_ops
    from threadpoolctl import threadpool_info

    texts = [
        "Sarah from Dunmore Foods sent the invoice.",
        "We moved the staging server to AWS last week, and traffic was 500 visits a week.",
        "My cousin Sarah teaches piano in Cork.",
    ]
    calls: list[bool] = []
    real = NumpyOps.gemm

    def counted(self: NumpyOps, *args: object, **kwargs: object) -> object:
        calls.append(self.use_blis)
        return real(self, *args, **kwargs)

    NumpyOps.gemm = counted  # type: ignore[method-assign]
    try:
        parsed = [(await parser.parse(t, AT)).doc for t in texts]
    finally:
        NumpyOps.gemm = real  # type: ignore[method-assign]
    assert calls and not any(calls)  # every product through numpy, none through blis
    assert {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"} == {1}
    before = get_current_ops()
    set_current_ops(NumpyOps(use_blis=True))
    try:
        blis = spacy.load(parser._settings.spacy_model)
    finally:
        set_current_ops(before)

    def read(doc: object) -> list[tuple[str, str, int, str]]:
        return [(t.pos_, t.dep_, t.head.i, t.ent_type_) for t in doc]  # type: ignore[attr-defined]

    assert [read(d) for d in parsed] == [read(blis(t)) for t in texts]


@pytest.mark.parametrize(
    ("text", "word", "by_place"),
    [
        ("Sounds great, Mel! Glad you had a great time.", "Glad", True),  # an adjective
        ("Clay is incredible, it brings me so much joy!", "Clay", True),  # a common noun
        ("Woohoo! We did it.", "Woohoo", True),  # an interjection
        ("Awww! How long have you had them?", "Awww", True),
        ("Sounds great, Mel! Glad you had a great time.", "Mel", False),
        ("Oliver is my cat.", "Oliver", False),
        ("Frank is my brother.", "Frank", False),  # declared, and a proper noun to the parse
        ("Anthony and I went to this charity thing.", "Anthony", False),
        ("Yesterday I met Glad at the market.", "Glad", False),  # inside a sentence
        ("Nah, I am fine.", "Nah", True),
        ("Acting is my passion.", "Acting", True),  # declared, but a verb's participle
        ("Stripe is our payment provider.", "Stripe", False),  # declared; a noun to the parse
        ("VAT is our biggest cost this quarter.", "VAT", False),  # an acronym
    ],
)
async def test_a_word_capitalised_by_its_place(
    parser: Parser, text: str, word: str, by_place: bool
) -> None:
    parsed = await parser.parse(text, AT)
    at = text.index(word)
    assert ((at, at + len(word)) in parsed.by_place) is by_place


async def test_a_quoted_title_is_one_name_and_a_day_is_a_time(parser: Parser) -> None:
    parsed = await parser.parse('I loved reading "Charlotte\'s Web" as a kid.', AT)
    assert ("Charlotte's Web", EntityType.CONCEPT, "heuristic") in spans(parsed)
    assert "Charlotte" not in [m.text for m in parsed.mentions]
    parsed = await parser.parse('She said "Thank You" and left.', AT)
    assert "Thank You" not in [m.text for m in parsed.mentions]
    parsed = await parser.parse("Last Fri I took my kids to a pottery workshop.", AT)
    assert [t.text for t in parsed.times] == ["Last Fri"]
    parsed = await parser.parse("I'm considering sports brands like Nike and Under Armour.", AT)
    assert "Under Armour" in [m.text for m in parsed.mentions]


async def test_a_documents_adjective_is_no_name(parser: Parser) -> None:
    parsed = await parser.parse("Set verify to False when Benevolent Ltd asks.", AT)
    at = parsed.text.index("False")
    assert (at, at + 5) in parsed.modifiers


@pytest.mark.parametrize(
    ("word", "common"),
    [("Glad", True), ("Benevolent", True), ("Deferred", True), ("Unsupported", True),
     ("Oliver", False), ("Mark", False), ("Rob", False), ("Gina", False), ("Paris", False)],
)  # fmt: skip
async def test_the_models_lexicon_knows_modifiers_and_participles(
    parser: Parser, word: str, common: bool
) -> None:
    assert parser.lexicon is not None
    assert parser.lexicon.common(word) is common
