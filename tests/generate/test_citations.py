"""Citation parsing and sentence-level support checks."""

from __future__ import annotations

import doctest

from hypothesis import given, settings
from hypothesis import strategies as st

from clinrag.generate import citations
from clinrag.generate.citations import citations_of, lexical_support, split_sentences, strip_citations, verify
from clinrag.index.embed import OnnxMiniLmEmbedder

SOURCES = {
    1: "patient 7 · A/medicine · note 7-DS-1 · Discharge Medications\n1. Apixaban 5 mg PO BID\n2. Metoprolol 25 mg",
    2: "patient 8 · A/medicine · note 8-DS-1 · Social History\nLives with her husband. Never smoker.",
}


def test_docstring_examples_run() -> None:
    outcome = doctest.testmod(citations)
    assert outcome.attempted > 0
    assert outcome.failed == 0


def test_citations_to_sources_not_given_are_removed_and_counted() -> None:
    found = verify("Patient 7 takes apixaban [1][9]. Patient 8 never smoked [2, 12].", SOURCES)
    assert found.invalid_citations == 2
    assert [s.citations for s in found.sentences] == [(1,), (2,)]
    assert all(s.supported for s in found.sentences)


def test_a_sentence_citing_the_wrong_patient_is_unsupported() -> None:
    found = verify("Patient 8 takes apixaban 5 mg twice daily [2].", SOURCES)
    assert not found.sentences[0].supported


def test_a_sentence_without_citation_is_unsupported() -> None:
    found = verify("Patient 7 takes apixaban.", SOURCES)
    assert found.sentences[0].citations == ()
    assert not found.sentences[0].supported
    assert found.supported == ()


def test_a_question_repeated_back_claims_nothing() -> None:
    found = verify("Does patient 7 take apixaban 5 mg PO BID? [1] Patient 7 takes apixaban 5 mg PO BID [1].", SOURCES)
    assert [s.supported for s in found.sentences] == [False, True]


def test_a_paraphrase_is_supported_with_the_embedder() -> None:
    sentence = "She is married and has never used tobacco [2]."
    lexical_only = verify(sentence, SOURCES, threshold=0.5)
    with_embedder = verify(sentence, SOURCES, threshold=0.5, embedder=OnnxMiniLmEmbedder(threads=1))
    assert not lexical_only.sentences[0].supported
    assert with_embedder.sentences[0].support >= lexical_only.sentences[0].support
    assert with_embedder.sentences[0].supported


def test_markers_after_a_full_stop_belong_to_the_sentence_before() -> None:
    assert split_sentences("A is given. [1] B is stopped. [2]") == ["A is given. [1]", "B is stopped. [2]"]
    assert strip_citations("A is given [1] .") == "A is given."
    assert citations_of("no markers here") == ()


def test_lexical_support_is_a_share() -> None:
    assert lexical_support("apixaban metoprolol", SOURCES[1]) == 1.0
    assert lexical_support("apixaban warfarin", SOURCES[1]) == 0.5


@settings(deadline=None)  # no per-example time limit: a loaded machine may pause any example
@given(st.text(max_size=200))
def test_verify_never_raises_and_support_is_a_share(answer: str) -> None:
    found = verify(answer, SOURCES)
    for sentence in found.sentences:
        assert 0.0 <= sentence.support <= 1.0
        assert set(sentence.citations) <= set(SOURCES)


def test_citation_markers_alone_are_not_a_sentence() -> None:
    found = verify("[1][2]\n.", SOURCES)
    assert found.sentences == ()


def test_restating_a_provenance_line_or_flipping_a_negation_is_unsupported() -> None:
    headers = {1: "Ann Lee, patient 7 · A/medicine · note 7-DS-1 · Allergies · 2020-01-02"}
    sources = {1: "Allergies: Lisinopril"}
    echo = verify("Ann Lee, patient 7, note 7-DS-1, Allergies, 2020-01-02 [1].", sources, headers=headers)
    flipped = verify("Ann Lee is not allergic to anything [1].", sources, headers=headers)
    true = verify("Ann Lee is allergic to lisinopril [1].", sources, headers=headers)
    assert not echo.sentences[0].supported
    assert not flipped.sentences[0].supported
    assert true.sentences[0].supported
