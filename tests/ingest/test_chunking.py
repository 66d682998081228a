"""Sentence packing: properties (no text lost, limits kept, sentences whole) and clinical edge cases."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from clinrag.ingest.chunking import pack_text, units_of
from clinrag.ingest.sentences import split_sentences

WORDS = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zs", "Zl", "Zp")), min_size=1, max_size=30
)
SENTENCE = st.lists(WORDS, min_size=1, max_size=25).map(" ".join).map(lambda s: s + ".")
TEXT = st.lists(st.tuples(SENTENCE, st.sampled_from([" ", "\n", "  ", "\n\n"])), max_size=40).map(
    lambda parts: "".join(sentence + separator for sentence, separator in parts)
)


def _non_space(text: str) -> str:
    return "".join(text.split())


@settings(max_examples=300, deadline=None)
@given(text=TEXT, max_chars=st.integers(min_value=20, max_value=900))
def test_no_text_lost_and_no_chunk_over_the_limit(text: str, max_chars: int) -> None:
    chunks = pack_text(text, max_chars)
    assert _non_space("".join(chunks)) == _non_space(text)
    assert all(0 < len(chunk) <= max_chars for chunk in chunks)


@settings(max_examples=200, deadline=None)
@given(text=TEXT, max_chars=st.integers(min_value=20, max_value=900))
def test_sentences_within_the_limit_are_never_split(text: str, max_chars: int) -> None:
    chunks = pack_text(text, max_chars)
    for unit in units_of(text):
        if len(unit.text) <= max_chars:
            assert any(unit.text in chunk for chunk in chunks), unit.text


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=3000), max_chars=st.integers(min_value=1, max_value=500))
def test_arbitrary_text_is_kept(text: str, max_chars: int) -> None:
    chunks = pack_text(text, max_chars)
    assert _non_space("".join(chunks)) == _non_space(text)
    assert all(len(chunk) <= max_chars for chunk in chunks)


def test_packing_fills_chunks_greedily() -> None:
    text = "One two three. Four five six. Seven eight nine."
    assert pack_text(text, 30) == ["One two three. Four five six.", "Seven eight nine."]
    assert pack_text(text, 1000) == [text]


def test_clinical_abbreviations_and_numbers_do_not_end_sentences() -> None:
    line = "Seen by Dr. ___ on POD#1, Hgb 7.2 vs. 8.1 prior, e.g. after transfusion. Plan: d/c home."
    assert split_sentences(line) == [
        "Seen by Dr. ___ on POD#1, Hgb 7.2 vs. 8.1 prior, e.g. after transfusion.",
        "Plan: d/c home.",
    ]


def test_list_items_keep_their_lines() -> None:
    text = "1. Aspirin 81 mg PO DAILY\n2. Atorvastatin 80 mg PO QPM\n3. Metoprolol 25 mg PO BID"
    assert pack_text(text, 800) == [text]


def test_a_sentence_longer_than_the_limit_is_cut_at_spaces() -> None:
    long_sentence = "word " * 50 + "end."
    chunks = pack_text(long_sentence, 40)
    assert all(len(chunk) <= 40 for chunk in chunks)
    assert " ".join(chunks).split() == long_sentence.split()
