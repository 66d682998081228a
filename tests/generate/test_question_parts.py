"""A question asking for several kinds of fact about one patient is answered part by part, in one answer."""

from __future__ import annotations

import doctest
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.generate.test_answer import _a_patient

from clinrag.generate import question_parts as parts_module
from clinrag.generate.answer import Answerer
from clinrag.generate.question_parts import question_parts
from clinrag.index.embed import OnnxMiniLmEmbedder
from clinrag.retrieve.hybrid import Retriever
from clinrag.settings import AnswerSettings, RetrieveSettings

EMBEDDER = OnnxMiniLmEmbedder(threads=2)


def test_docstring_examples_run() -> None:
    assert doctest.testmod(parts_module).failed == 0


@pytest.mark.parametrize(
    "question",
    [
        "What was Ada Stone's diagnosis?",  # one kind
        "Does Ada Stone smoke, and does she drink?",  # one kind (social) in both clauses
        "What procedure did she have and what meds was she sent home on?",  # nobody named: never split
        "What did Ada Stone and Tom Reed have in common, and what were they discharged on?",  # two patients
        "Ada Stone takes buspirone at home - what was she discharged on?",  # a statement, then one question
    ],
)
def test_questions_asking_one_thing_or_about_no_one_patient_are_not_split(question: str) -> None:
    assert question_parts(question) == ()


def test_each_part_names_the_patient() -> None:
    found = question_parts("What procedure did Ada Stone have; which allergies does she have?")
    assert found == ("What procedure did Ada Stone have", "which allergies does she have? (Ada Stone)")


@pytest.fixture
def retriever(node_c: Path) -> Iterator[Retriever]:
    opened = Retriever.open(node_c, RetrieveSettings(), EMBEDDER)
    yield opened
    opened.close()


def test_both_parts_are_answered_with_one_numbering(retriever: Retriever, cohort: Path) -> None:
    name, subject_id = _a_patient(cohort)
    answer = Answerer(retriever, AnswerSettings(), embedder=EMBEDDER).answer(
        f"What was {name}'s discharge diagnosis, and which drugs was {name.split()[0]} sent home on?"
    )
    assert not answer.abstained, answer.text
    cited = [answer.sources[n - 1].chunk for n in answer.cited]
    assert {"Discharge Diagnosis", "Discharge Medications"} <= {chunk.section for chunk in cited}
    assert {chunk.subject_id for chunk in cited} == {subject_id}
    assert [source.number for source in answer.sources] == list(range(1, len(answer.sources) + 1))
    assert all(sentence.supported and sentence.citations for sentence in answer.sentences)


def test_a_part_about_something_absent_is_not_dropped_to_answer_the_rest(retriever: Retriever, cohort: Path) -> None:
    name, _ = _a_patient(cohort)
    answer = Answerer(retriever, AnswerSettings(), embedder=EMBEDDER).answer(
        f"Bleeped overnight re {name} - any Mohs surgery this admission, and were there issues after it?"
    )
    assert answer.abstained, answer.text  # the issues alone would answer a question about surgery never done
