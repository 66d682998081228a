"""Which kinds of source a question asks (records, literature, or both), read by rules before anything is searched:
what a federation root uses to ask a library only about the literature and the hospitals only about patients."""

from __future__ import annotations

import pytest

from clinrag.retrieve.sources import SourceFamily, asks_literature, asks_records, family_of, sources_asked

RECORDS = frozenset({SourceFamily.RECORDS})
LITERATURE = frozenset({SourceFamily.LITERATURE})
BOTH = RECORDS | LITERATURE


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Who was treated for a stroke?", RECORDS),
        ("What medications was Ada Stone discharged on?", RECORDS),
        ("Is Ada Stone allergic to anything?", RECORDS),
        ("Did Ada Stone have a sleep study?", RECORDS),  # a study of hers, not a published one
        ("How many patients had a stroke at Hospital B?", RECORDS),
        ("Did apixaban lower major bleeding in randomised trials by Smith et al.?", LITERATURE),
        ("What does the evidence say about early mobilisation after hip replacement?", LITERATURE),
        ("What do the Example Cardiology Society guidelines recommend for anticoagulation?", LITERATURE),
        ("Anticoagulation in AF: what do the guidelines say?", LITERATURE),
        ("Summarize the studies of SGLT2 inhibitors in heart failure", LITERATURE),
        ("What do the guidelines recommend for Ada Stone's atrial fibrillation?", BOTH),
        ("Which of our patients would the guidelines anticoagulate?", BOTH),
        ("What is the edoxaban dose in atrial fibrillation?", RECORDS),  # names no source: the records
        ("weakness after a stroke", RECORDS),
    ],
)
def test_the_sources_a_question_asks(question: str, expected: frozenset[SourceFamily]) -> None:
    assert sources_asked(question) == expected


def test_each_reading_alone() -> None:
    assert asks_literature("Smith et al. on warfarin")
    assert not asks_records("Smith et al. on warfarin")
    assert asks_records("his last admission")
    assert not asks_literature("his last admission")


def test_every_source_kind_has_a_family() -> None:
    assert {family_of(kind) for kind in ("note", "row", "calculator")} == {SourceFamily.RECORDS}
    assert {family_of(kind) for kind in ("abstract", "guideline")} == {SourceFamily.LITERATURE}
