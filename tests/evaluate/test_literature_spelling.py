"""Misspelt literature questions (issue 20): the seeded procedure that misspells them, the setting that turns the
library's spelling correction off, and the recall measured with it on and off."""

from __future__ import annotations

import doctest
import random
from pathlib import Path

import numpy as np
import pytest

from clinrag.evaluate import literature_spelling
from clinrag.evaluate.literature import build_library, gold_records, question_of
from clinrag.evaluate.literature_spelling import (
    EDITS,
    TREATMENT_WORDS,
    VARIANTS,
    misspell,
    misspellable_words,
    misspelt_question,
    spelling_recall,
)
from clinrag.index.embed import OnnxMiniLmEmbedder, Vectors
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.literature import LITERATURE_DEPT, ingest_medline
from clinrag.ingest.synthetic.medline import synthetic_records, write_medline
from clinrag.retrieve.hybrid import plan_query
from clinrag.retrieve.vocabulary import DRUG_WORDS
from clinrag.settings import RetrieveSettings

RECORDS = synthetic_records(300, seed=20)


def test_doctests() -> None:
    assert doctest.testmod(literature_spelling).failed == 0


def _one_edit_apart(word: str, wrong: str) -> bool:
    """Whether ``wrong`` is ``word`` with one letter dropped, doubled, replaced, or two adjacent letters swapped."""
    if len(wrong) == len(word) - 1:
        return any(word[:i] + word[i + 1 :] == wrong for i in range(len(word)))
    if len(wrong) == len(word) + 1:
        return any(word[: i + 1] + word[i:] == wrong for i in range(len(word)))
    differ = [i for i, (a, b) in enumerate(zip(word, wrong, strict=True)) if a != b]
    if len(differ) == 1:
        return True
    i = differ[0]
    return differ == [i, i + 1] and (word[i], word[i + 1]) == (wrong[i + 1], wrong[i])


def test_each_question_gets_one_or_two_words_each_one_edit_away() -> None:
    counts = {1: 0, 2: 0}
    for record in RECORDS:
        variant = misspelt_question(record, filtered=False, seed=20)
        counts[len(variant.edits)] += 1
        assert variant.text != question_of(record, False)
        for word, wrong in variant.edits:
            assert word in misspellable_words(record)
            assert wrong[0] == word[0]
            assert _one_edit_apart(word, wrong), (word, wrong)
            assert wrong in variant.text
    assert counts[1] > 50
    assert counts[2] > 50


def test_drugs_treatments_and_the_questions_frame_are_never_misspelt() -> None:
    for record in RECORDS:
        words = misspellable_words(record)
        assert words
        assert all(len(word) >= 5 and word.isalpha() and word.islower() for word in words)
        assert not set(words) & (TREATMENT_WORDS | DRUG_WORDS | {"reduce", "compared", "among", "patients"})
        treatment, comparator = record.keywords[1], record.title.split(" versus ", 1)[1].split(" for ", 1)[0]
        text = misspelt_question(record, filtered=True, seed=20).text
        assert f"Did {treatment} reduce " in text
        assert f" compared with {comparator} among patients with " in text


def test_the_procedure_is_fixed_by_its_seed() -> None:
    first = [misspelt_question(record, filtered=False, seed=20) for record in RECORDS]
    again = [misspelt_question(record, filtered=False, seed=20) for record in RECORDS]
    other = [misspelt_question(record, filtered=False, seed=21) for record in RECORDS]
    assert first == again
    assert first != other


def test_every_kind_of_edit_is_made() -> None:
    made = {misspell("withdrawal", random.Random(seed)) for seed in range(200)}
    assert any(len(w) == 9 for w in made)
    assert any(len(w) == 11 for w in made)
    assert any(sorted(w) == sorted("withdrawal") and w != "withdrawal" for w in made)
    assert any(sorted(w) != sorted("withdrawal") and len(w) == 10 for w in made)
    assert len(EDITS) == 4
    assert "withdrawal" not in made


def _no_vector(text: str) -> Vectors:
    return np.zeros(384, dtype=np.float32)


@pytest.fixture(scope="module")
def library_chunks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("library")
    source = folder / "library.xml"
    write_medline(source, RECORDS[:40])
    with ChunkStore.open(folder / "chunks.sqlite") as store:
        ingest_medline([source], store, "LIBRARY", LITERATURE_DEPT)
    return folder / "chunks.sqlite"


def test_the_setting_turns_the_librarys_spelling_correction_off(library_chunks: Path) -> None:
    question = "Did lorazepam reduce seizures compared with thiamine among patients with alcohol withdrawl?"
    with ChunkStore.open(library_chunks) as chunks:
        on = plan_query(question, None, RetrieveSettings(), None, chunks, _no_vector)
        off = plan_query(question, None, RetrieveSettings(library_spelling=False), None, chunks, _no_vector)
    assert on.ranking_text.endswith("alcohol withdrawal?")
    assert "spelling: 'withdrawl' read as 'withdrawal'" in on.notes
    assert off.ranking_text == question
    assert not any(note.startswith("spelling:") for note in off.notes)


@pytest.mark.slow
def test_recall_is_measured_for_each_variant_and_mode(tmp_path: Path) -> None:
    embedder = OnnxMiniLmEmbedder(threads=1)
    library = build_library(tmp_path, 60, seed=20, embedder=embedder)
    gold = gold_records(library.records, 6)
    measured = spelling_recall(library.node, gold, embedder, RetrieveSettings(), seed=20, modes=("bm25", "hybrid"))
    assert set(measured.recall) == {"plain", "with filters"}
    for by_variant in measured.recall.values():
        assert set(by_variant) == set(VARIANTS)
        assert all(set(by_mode) == {"bm25", "hybrid"} for by_mode in by_variant.values())
        assert all(0.0 <= value <= 1.0 for by_mode in by_variant.values() for value in by_mode.values())
    assert measured.recall["with filters"]["correct"]["hybrid"] == 1.0
    assert measured.words["misspelt"] == sum(len(misspelt_question(r, False, 20).edits) for r in gold)
    assert len(measured.seconds) == 2 * 2 * 3 * len(gold)
