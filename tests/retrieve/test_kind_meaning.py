"""The kind of fact read by meaning: only when no rule read one, only when clearly nearest, never for a question
that names a clinical thing or asks about a set of patients; and through the retriever of a node."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

from clinrag.evaluate.heldout import SPLIT_6, SPLIT_7
from clinrag.evaluate.heldout_questions import FAMILIES
from clinrag.evaluate.heldout_questions_2 import FAMILIES_2
from clinrag.evaluate.heldout_questions_3 import FAMILIES_3
from clinrag.evaluate.heldout_questions_4 import FAMILIES_4
from clinrag.evaluate.heldout_questions_5 import FAMILIES_5
from clinrag.index.embed import OnnxMiniLmEmbedder
from clinrag.retrieve import kind_meaning
from clinrag.retrieve.hybrid import Retriever
from clinrag.retrieve.kind_meaning import KindReader, kind_examples
from clinrag.retrieve.query import understand
from clinrag.settings import RetrieveSettings


@pytest.fixture(scope="module")
def embedder() -> OnnxMiniLmEmbedder:
    return OnnxMiniLmEmbedder(threads=2)


def test_docstring_examples_run() -> None:
    outcome = doctest.testmod(kind_meaning)
    assert outcome.attempted > 0
    assert outcome.failed == 0


def test_every_kind_has_examples_and_the_file_is_validated() -> None:
    names = {kind.name for kind in kind_examples()}  # a kind may have a second block: its seen wordings
    assert names == kind_meaning.KNOWN_KINDS
    with pytest.raises(ValueError, match="unknown kind"):
        kind_meaning.KindExamples(name="horoscope", examples=("What is her star sign?",))


def _without_patient(template: str) -> str:
    return " ".join(template.format(name="", poss="", listed="", lower="").split()).casefold()


def test_the_seen_wordings_are_every_run_split() -> None:
    examples = {" ".join(text.split()).casefold() for kind in kind_examples() for text in kind.examples}
    seen = [FAMILIES, FAMILIES_2, FAMILIES_3, FAMILIES_4, FAMILIES_5, SPLIT_6.families, SPLIT_7.families]
    assert all(any(_without_patient(t) in examples for ts in f["allergy"].values() for t in ts) for f in seen)


def _read(reader: KindReader, question: str) -> str | None:
    return reader.read(understand(question), reader.embedder.embed([question])[0]).fact_kind


def test_a_wording_no_rule_knows_is_read_by_meaning(embedder: OnnxMiniLmEmbedder) -> None:
    reader = KindReader(embedder)
    question = "Which medications were on her discharge reconciliation?"
    assert understand(question).fact_kind is None
    read = reader.read(understand(question), embedder.embed([question])[0])
    assert read.fact_kind == "discharge_medications"
    assert read.sections == ("Discharge Medications",)
    assert read.kind_similarity is not None
    assert read.kind_similarity >= reader.min_similarity


@pytest.mark.parametrize(
    "question",
    [
        "Tell me a joke about nurses.",
        "What is the weather like today?",
        "How did he hurt his ankle?",  # near a procedure (0.60), but not clearly one
    ],
)
def test_questions_of_no_clear_kind_keep_none(embedder: OnnxMiniLmEmbedder, question: str) -> None:
    assert _read(KindReader(embedder), question) is None


def test_the_rules_win_and_things_or_cohorts_keep_their_reading(embedder: OnnxMiniLmEmbedder) -> None:
    reader = KindReader(embedder)
    assert _read(reader, "What allergies does she have?") == "allergy"  # the rule's, unchanged
    thing = "Which medications on her discharge reconciliation were anticoagulants?"
    assert understand(thing).things
    assert _read(reader, thing) is None
    cohort = "Which patients had their discharge reconciliation done?"
    assert understand(cohort).about_patients
    assert _read(reader, cohort) is None


def test_a_patients_name_is_not_a_thing_that_stops_the_reading(embedder: OnnxMiniLmEmbedder) -> None:
    reader = KindReader(embedder)
    question = "Which medications were on Haley Wilkerson's discharge reconciliation?"
    assert understand(question).things  # the name's words: the registry has not resolved them here
    vector = embedder.embed(["Which medications were on discharge reconciliation?"])[0]
    assert reader.read(understand(question), vector, named=frozenset()).fact_kind == "discharge_medications"


def test_the_retriever_reads_the_kind_and_the_setting_turns_it_off(node_c: Path, embedder: OnnxMiniLmEmbedder) -> None:
    on = Retriever.open(node_c, embedder=embedder)
    try:
        assert on.chunks is not None
        name = next(name for _, name in on.chunks.patients() if name)
        question = f"Which medications were on {name}'s discharge reconciliation?"
        assert on.retrieve(question).understanding.fact_kind == "discharge_medications"
    finally:
        on.close()
    off = Retriever.open(node_c, RetrieveSettings(kind_by_meaning=False), embedder=embedder)
    try:
        assert off.retrieve(question).understanding.fact_kind is None
    finally:
        off.close()


def test_words_around_a_kind_a_section_answers_become_context(embedder: OnnxMiniLmEmbedder) -> None:
    reader = KindReader(embedder)
    # as read: the name cut out (said after the question, "nursed" would be an aside and no thing at all)
    question = "feel like I've nursed them on a previous admission - has been in before?"
    assert understand(question).fact_kind is None
    assert "nursed" in understand(question).things
    read = reader.read(understand(question), embedder.embed([question])[0])
    assert read.fact_kind == "admissions_summary"
    assert "nursed" in read.context
    assert not read.things & read.context


@pytest.mark.parametrize(
    "question",
    [
        "was he started on a new antidepressant?",  # a class of drugs: never context of a reading by meaning
        "did he get any hydroxychloroquine?",
        "Daryl Zamora did he have chemo?",  # a treatment too: it reads near allergy questions
    ],
)
def test_a_drug_named_keeps_a_question_from_a_kind_read_by_meaning(embedder: OnnxMiniLmEmbedder, question: str) -> None:
    read = KindReader(embedder).read(understand(question), embedder.embed([question])[0])
    assert read.context == frozenset()
    assert read.things


@pytest.mark.parametrize(
    ("question", "settled"),
    [
        ("I look after her at home, what allergies does the hospital have down for her?", "allergy"),
        ("does she manage on her own at home or live with family?", "social"),
        ("What allergies does she have?", "allergy"),  # one cue: nothing to settle
    ],
)
def test_the_reader_settles_among_the_kinds_the_rules_cue(
    embedder: OnnxMiniLmEmbedder, question: str, settled: str
) -> None:
    read = KindReader(embedder).read(understand(question), embedder.embed([question])[0])
    assert read.fact_kind == settled
    assert settled in read.kind_candidates
