"""Identity cues (``resolution/cues.py``) and the attribute verdict (``identity.py``)."""

from __future__ import annotations

from core.types import Entity, EntityType
from resolution.cues import OURS, find_cues
from resolution.describe import describe
from resolution.identity import Attributes, decide_attributes, weigh


def rels(text: str) -> set[tuple[str, str, str]]:
    return {(r.subject, r.relation, r.object) for r in find_cues(text)}


def test_the_issue_sentences() -> None:
    assert rels("Sarah Okafor is the head of procurement at our client Dunmore Foods.") == {
        ("Sarah Okafor", "role", "head of procurement"),
        ("Sarah Okafor", "works_for", "Dunmore Foods"),
        ("Dunmore Foods", "client_of", OURS),
    }
    assert rels("My cousin Sarah teaches piano in Cork.") == {
        ("Sarah", "related_to_speaker", "cousin")
    }
    assert rels("Sarah from the law firm Brandt & Voss reviewed our contract template.") == {
        ("Sarah", "works_for", "Brandt & Voss")
    }
    assert rels("Sarah is our designer.") == {
        ("Sarah", "role", "designer"),
        ("Sarah", "works_for", OURS),
    }


def test_titles_are_roles_never_subjects_or_orgs() -> None:
    assert rels("Tom is the CTO at Acme") == {("Tom", "role", "CTO"), ("Tom", "works_for", "Acme")}
    assert rels("Our CTO Peter Novak quit") == {
        ("Peter Novak", "role", "CTO"),
        ("Peter Novak", "works_for", OURS),
    }
    assert rels("Sarah, head of sales at Globex, called") == {
        ("Sarah", "role", "head of sales"),
        ("Sarah", "works_for", "Globex"),
    }


def test_no_cue_from_unrelated_phrases() -> None:
    assert rels("The company is Wolf of Blog Street, also known as WOBS.") == set()
    assert rels("I met Sarah from accounting") == set()
    assert rels("Sarah, my sister, came over") == {("Sarah", "related_to_speaker", "sister")}


def person(name: str, tags: tuple[str, ...] = (), parent: str | None = None) -> Entity:
    return Entity(
        id=name.lower().replace(" ", "-") + str(len(tags)),
        tenant_id="t",
        name=name,
        type=EntityType.PERSON,
        context_tags=tags,
        parent_id=parent,
        first_seen=0,
        last_seen=0,
    )


DESIGNER = person("Sarah", ("role:designer",), "brightpath")
OKAFOR = person("Sarah Okafor", ("role:head of procurement",), "dunmore")
COUSIN = person("Sarah", ("related_to_speaker:cousin",))


def test_contradicting_every_candidate_is_new() -> None:
    cousin = Attributes(kin=frozenset({"cousin"}))
    assert decide_attributes(cousin, [DESIGNER, OKAFOR]).outcome == "new"  # type: ignore[union-attr]
    lawyer = Attributes(orgs=frozenset({"brandt"}))
    verdict = decide_attributes(lawyer, [DESIGNER, OKAFOR, COUSIN])
    assert verdict is not None and verdict.outcome == "new"


def test_one_supported_candidate_links_and_no_support_is_provisional() -> None:
    cue = Attributes(orgs=frozenset({"brightpath"}))
    verdict = decide_attributes(cue, [DESIGNER, OKAFOR, COUSIN])
    assert verdict is not None and verdict.outcome == "linked" and verdict.entity is DESIGNER
    bare = person("Sarah")  # nothing known: a Sarah at Acme may or may not be her
    verdict = decide_attributes(Attributes(orgs=frozenset({"acme"})), [bare, OKAFOR])
    assert verdict is not None and verdict.outcome == "provisional"
    assert [w.entity for w in verdict.possible] == [bare]


def test_a_stated_change_is_news_not_a_new_person() -> None:
    editor = Attributes(roles=frozenset({"editor"}))
    assert weigh(editor, DESIGNER).contradict == ["role"]
    changing = Attributes(roles=frozenset({"editor"}), changing=True)
    assert weigh(changing, DESIGNER).contradict == []
    assert decide_attributes(changing, [DESIGNER]) is None  # context decides, as without cues


def test_a_role_stored_in_capitals_is_the_same_role_said_in_lower_case() -> None:
    """The turn's roles are compared in lower case; a tag stored as said ("role:CTO") was
    read as another role, and "Peter Alvarez is the CTO at our client Brightline" said again
    made a second Peter Alvarez."""
    cto = person("Peter Alvarez", ("role:CTO",), "brightline")
    stated = Attributes(roles=frozenset({"cto"}), orgs=frozenset({"brightline"}))
    assert weigh(stated, cto).support == ["org", "role"] and weigh(stated, cto).contradict == []
    verdict = decide_attributes(stated, [cto])
    assert verdict is not None and verdict.outcome == "linked" and verdict.entity is cto


def test_surname_supports_or_contradicts() -> None:
    assert weigh(Attributes(surnames=frozenset({"okafor"})), OKAFOR).support == ["surname"]
    assert weigh(Attributes(surnames=frozenset({"brandt"})), OKAFOR).contradict == ["surname"]
    assert weigh(Attributes(surnames=frozenset({"brandt"})), DESIGNER).contradict == []


def test_descriptions_tell_same_named_people_apart() -> None:
    org = Entity(id="brightpath", tenant_id="t", name="Brightpath Media", type=EntityType.ORG,
                 first_seen=0, last_seen=0)  # fmt: skip
    assert describe(DESIGNER, org) == "Sarah, designer at Brightpath Media"
    assert describe(COUSIN, None) == "Sarah, the user's cousin"
    assert describe(person("Sarah"), None) == "Sarah"


def test_a_description_quotes_the_profiles_newest_sentence_without_its_day() -> None:
    # the most important sentence comes first, and it is often what a later change replaced
    summary = (
        "[2023-03-01] Sarah runs the York office now. [2023-01-10] Sarah runs the Leeds office."
        " She is a keen cyclist."
    )
    dated = person("Sarah").model_copy(update={"profile_summary": summary})
    assert describe(dated, None) == "Sarah, Sarah runs the York office now."
    summary = "[2023-01-10] Sarah runs the Leeds office. [2023-02-01] Sarah moved to York."
    assert describe(dated.model_copy(update={"profile_summary": summary}), None) == (
        "Sarah, Sarah moved to York."
    )
