"""The head of what a question asks about, the questions that ask for a kind of fact only, and word forms."""

from __future__ import annotations

import doctest

import pytest

from clinrag.retrieve import head
from clinrag.retrieve.head import asked_drugs, asks_for_kind_only, examined_sites, head_named, head_things
from clinrag.retrieve.query import understand
from clinrag.retrieve.word_forms import forms_mentioned, same_word


@pytest.mark.parametrize(
    ("question", "name", "head"),
    [
        ("Did Glenn Alexander need an ERCP for stones in the duct?", "Glenn Alexander", ["ercp"]),
        ("Did Natasha Cantrell have a spinal fusion with rods and screws?", "Natasha Cantrell", ["spinal", "fusion"]),
        ("How many sessions of dialysis did Shari Roman need for her AKI?", "Shari Roman", ["dialysis"]),
        ("What technique did they use for Sergio Frey's inguinal hernia?", "Sergio Frey", ["inguinal", "hernia"]),
        ("what oral antibiotics is Ann Ochoa finishing at home for her pneumonia", "Ann Ochoa", ["antibiotic"]),
        ("What procedure did Ada Stone undergo?", "Ada Stone", []),
    ],
)
def test_the_head_is_the_first_phrase_of_things_less_its_qualifiers(question: str, name: str, head: list[str]) -> None:
    assert [thing.word for thing in head_things(question, understand(question), [name])] == head


def test_a_record_names_the_head_only_if_it_names_every_thing_of_it() -> None:
    question = "Did Natasha Cantrell have a spinal fusion with rods and screws?"
    head = head_things(question, understand(question), ["Natasha Cantrell"])
    assert not head_named(head, frozenset({"release", "lumbar", "spinal", "cord"}))
    assert head_named(head, frozenset({"posterior", "spinal", "fusion"}))


def test_a_class_in_the_head_is_named_by_any_of_its_members() -> None:
    question = "Loretta Cox - any thyroid replacement at home?"
    head = head_things(question, understand(question), ["Loretta Cox"])
    assert [thing.word for thing in head] == ["thyroid hormone"]


@pytest.mark.parametrize(
    ("question", "name", "only_kind"),
    [
        (
            "Seeing Cassidy Jensen for a dressing - what procedure did they have, was it keyhole?",
            "Cassidy Jensen",
            True,
        ),
        ("Coder here: does Roger Barron's record contain any complication that needs a code?", "Roger Barron", True),
        ("Which operation did Cassidy Jensen have for the diverticulitis?", "Cassidy Jensen", True),
        ("Which operation did Cassidy Jensen have on her thyroid?", "Cassidy Jensen", False),
        ("Did Tina Roy have trouble voiding after the back op?", "Tina Roy", False),
        ("Did Glenn Alexander need an ERCP for stones in the duct?", "Glenn Alexander", False),
    ],
)
def test_a_clause_that_asks_for_a_kind_of_fact_and_names_nothing(question: str, name: str, only_kind: bool) -> None:
    assert asks_for_kind_only(question, understand(question), [name]) is only_kind


@pytest.mark.parametrize(
    ("first", "second", "same"),
    [
        ("voiding", "void", True),
        ("urine", "urinary", True),
        ("appendicectomy", "appendectomy", True),
        ("haemorrhage", "hemorrhage", True),
        ("colon", "colonoscopy", False),
        ("stent", "stenosis", False),
        ("ct", "cta", False),
    ],
)
def test_word_forms(first: str, second: str, same: bool) -> None:
    assert same_word(first, second) is same
    assert bool(forms_mentioned({first}, {second})) is same


def test_the_place_an_asker_calls_from_is_no_scope() -> None:
    from clinrag.retrieve.scope import ScopeNames, named_scope

    names = ScopeNames(orgs={"A": "Hospital A"}, depts=("admissions", "surgery", "orthopaedics"))
    assert named_scope("Ringing from the admissions unit about Ann Lee: her regular meds?", names).empty
    assert named_scope("It's the reg from the surgical side - any allergies for Ann Lee?", names).empty
    assert named_scope("Who had a fall in orthopedics at Hospital A?", names).depts == ("orthopaedics",)


def test_a_place_the_question_sets_aside_is_no_scope() -> None:
    from clinrag.retrieve.scope import ScopeNames, named_scope

    names = ScopeNames(depts=("psychiatry", "medicine"))
    question = "Ann Lee had a medical admission in Sept 2014, not one of the psych ones. What was the diagnosis?"
    assert named_scope(question, names).empty
    assert named_scope("Which psych patients had a fall?", names).depts == ("psychiatry",)


@pytest.mark.parametrize(
    ("question", "names", "sites"),
    [
        ("john mays ct head result from ED", ["john mays"], ["ct", "head"]),
        ("John Mays head CT?", ["John Mays"], ["ct", "head"]),
        ("MRI of the lumbar spine for Ada Stone", ["Ada Stone"], ["mri", "lumbar", "spine"]),
        ("x-ray of her left knee, Ada Stone", ["Ada Stone"], ["x-ray", "knee"]),
        ("Ada Stone CT result", ["Ada Stone"], []),
        ("what did the echo show for Ada Stone?", ["Ada Stone"], []),
        ("Ada Head CT result", ["Ada Head"], []),  # a patient's name is no body site
    ],
)
def test_a_study_named_with_a_body_site_needs_both(question: str, names: list[str], sites: list[str]) -> None:
    found = examined_sites(question, names)
    assert [thing.word for thing in found] == sites
    if found:  # a CT of the abdomen does not answer a question about a CT of the head
        assert head_named(found, frozenset({"ct", "mri", "x-ray", "head", "spine", "knee"}))
        assert not head_named(found, frozenset({"ct", "mri", "x-ray", "abdomen", "pelvis"}))


def test_a_drug_class_asked_for_is_the_head_and_the_rest_says_why() -> None:
    question = "Loretta Cox 52F MDD - which SSRI?"
    understanding = understand(question)
    assert [thing.word for thing in head_things(question, understanding, ["Loretta Cox"])] == ["antidepressant"]
    asked = asked_drugs(question, understanding, ["Loretta Cox"])
    assert "ssri" in asked
    assert "mdd" not in asked
    kidney = "what kidney operation did Michele Berg have"  # a procedure group is no drug
    assert asked_drugs(kidney, understand(kidney), ["Michele Berg"]) == frozenset()


def test_docstring_examples_run() -> None:
    assert doctest.testmod(head).failed == 0


def test_a_clause_pointing_back_at_a_thing_asks_for_it() -> None:
    question = "A previous kidney transplant is an exclusion criterion; when did Ada Stone have it, any complications?"
    assert not asks_for_kind_only(question, understand(question), ["Ada Stone"])
    question = "paged re wound ooze on Ada Stone - which operation did they have this admission?"
    assert asks_for_kind_only(question, understand(question), ["Ada Stone"])


def test_a_class_keeps_its_device_and_a_premise_is_no_head() -> None:
    pump = "Paramedic crew: did Todd Calderon ever have an insulin pump fitted?"
    assert [thing.word for thing in head_things(pump, understand(pump), ["Todd Calderon"])] == ["insulin", "pump"]
    redo = "If Sergio Frey's hernia came back after the mesh repair, when was the redo done?"
    assert [thing.word for thing in head_things(redo, understand(redo), ["Sergio Frey"])] == ["redo"]
    site = "OT here, hip precautions for Priscilla Wong - which operation did she have on the hip?"
    assert "precaution" not in [thing.word for thing in head_things(site, understand(site), ["Priscilla Wong"])]


def test_a_general_practice_is_no_hospital_department() -> None:
    from clinrag.retrieve.scope import ScopeNames, named_scope

    names = ScopeNames(depts=("surgery", "medicine"))
    question = "I look after Ann Lee's repeat prescriptions at the surgery - did the hospital record a drug allergy?"
    assert named_scope(question, names).empty
    assert named_scope("Who was admitted under the surgery department?", names).depts == ("surgery",)
    assert named_scope("She asked me to fill in a form for the surgery - what was she taking?", names).empty


def test_a_statement_pointing_back_leaves_a_bare_question_asking_for_its_kind() -> None:
    """ "She broke her hip and had it fixed. … Were there any complications?": the "it" is the statement's."""
    question = "Ada Stone broke her hip and had it fixed at yours. She looked pale. Were there any complications?"
    assert asks_for_kind_only(question, understand(question), ["Ada Stone"])
