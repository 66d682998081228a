"""A named examination or laboratory test is what a record must hold, and the question's own clause says what is
asked (issue 14's negative-rejection misses: a blood group answered from a blood count, an INR from the discharge
medications, a 24-hour blood pressure monitoring from the vital signs, retinal photos from the DKA the question
mentions first)."""

from __future__ import annotations

import pytest

from clinrag.index.embed import OnnxMiniLmEmbedder
from clinrag.retrieve.head import head_things
from clinrag.retrieve.kind_meaning import KindReader
from clinrag.retrieve.query import context_words, examination_qualifiers, understand


@pytest.mark.parametrize(
    ("question", "which"),
    [
        ("Ada Stone had a 24-hour blood pressure monitoring, didn't she?", {"24-hour", "blood", "pressure"}),
        ("Which consultant ordered the tau protein assay for Ada Stone?", {"tau", "protein"}),
        ("Did she have retinal screening photos taken?", {"retinal", "screening"}),
        ("What was Ada Stone's blood group?", {"blood", "group"}),
        ("Did Ada Stone's repeat VQ scan show a clot?", {"vq"}),
        ("Any recent tests for Ada Stone?", set()),
    ],
)
def test_the_words_next_to_an_examination_say_which(question: str, which: set[str]) -> None:
    assert examination_qualifiers(question) == which


def test_a_blood_group_is_the_group_not_any_blood_result() -> None:
    question = "What was Ada Stone's blood group?"
    head = head_things(question, understand(question), ["Ada Stone"])
    assert [thing.word for thing in head] == ["blood group"]  # the class: "Blood type O+" names it, "groups" not
    assert ("blood group",) in head[0].phrases  # the class's name, which a record naming a member is read as


def test_a_lab_test_stays_a_thing_to_find_in_a_medication_question() -> None:
    found = context_words("discharge_medications", frozenset({"inr", "ttos"}), set(), about_patients=False)
    assert found == frozenset({"ttos"})


def test_a_lab_test_named_keeps_the_kind_read_by_meaning_from_making_it_context() -> None:
    embedder = OnnxMiniLmEmbedder(threads=1)
    question = "Pharmacy tech: Ada Stone's INR on the day of discharge?"
    read = KindReader(embedder).read(understand(question), embedder.embed([question])[0])
    assert "inr" in read.things
    assert "inr" not in read.context


def test_the_question_clause_names_what_is_asked_not_the_statement_before_it() -> None:
    question = "Optician: Ada Stone was in with DKA - did she have retinal screening photos taken on the ward?"
    head = head_things(question, understand(question), ["Ada Stone"])
    assert [thing.word for thing in head] == ["retinal", "screening"]


def test_a_participle_in_the_question_clause_names_nothing() -> None:
    question = "Ada Stone's Hartmann's admission - was the length of stay prolonged by a complication?"
    head = head_things(question, understand(question), ["Ada Stone"])
    assert "prolonged" not in {thing.word for thing in head}


def test_an_examination_asked_about_heads_the_question_with_the_thing_before_it() -> None:
    question = "Ada Stone's sister - before they took her gallbladder out did she have one of those HIDA scans?"
    head = [thing.word for thing in head_things(question, understand(question), ["Ada Stone"])]
    assert "hida" in head


@pytest.mark.parametrize("service", ["gynae", "ortho"])
def test_a_service_in_ward_shorthand_names_nothing_to_find(service: str) -> None:
    assert service not in understand(f"Ada Stone - which op did {service} do?").things


def test_a_swab_says_which_by_the_words_before_it() -> None:
    assert "covid" in examination_qualifiers("Ada Stone covid swab - pos or neg?")


def test_units_of_blood_ask_about_a_transfusion() -> None:
    assert "transfused" in understand("how many units of blood did Ada Stone get after her hip?").things


def test_a_hyphenated_and_joins_no_clauses() -> None:
    from clinrag.retrieve.intent import clause_spans

    question = "Any before-and-after photos of Ada Stone's frenotomy on the file?"
    assert [question[begin:end] for begin, end in clause_spans(question)] == [question[:-1]]
