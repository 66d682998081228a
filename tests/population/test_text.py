"""Text criteria of population questions (issue 17): sentence verification, recall over a node, permissions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.ingest.synthetic.storylines import STORYLINES
from clinrag.population.phrases import PhraseTable, load_table, matcher_for
from clinrag.population.query import TextCriterion
from clinrag.population.text import supporting_sentences, text_matches
from clinrag.population.text_gold import CRITERIA, SOCIAL_TEXTS, truth_of
from clinrag.settings import IngestSettings
from clinrag.types import Chunk

SUPPORTS = [
    ("reports heavy alcohol use", "Reports 3-4 beers daily; denies history of withdrawal.", True),
    ("reports heavy alcohol use", "He drinks 6 beers a day.", True),
    ("reports heavy alcohol use", "Drinks about a pint of vodka daily.", True),
    ("reports heavy alcohol use", "Severe alcohol use disorder with withdrawal.", True),
    ("reports heavy alcohol use", "- EtOH withdrawal", True),
    ("reports heavy alcohol use", "Denies tobacco, drinks 6 beers daily.", True),
    ("reports heavy alcohol use", "Denies alcohol use.", False),
    ("reports heavy alcohol use", "EtOH: Denies alcohol use.", False),
    ("reports heavy alcohol use", "No alcohol.", False),
    ("reports heavy alcohol use", "Negative for alcohol abuse.", False),
    ("reports heavy alcohol use", "Drinks 1-2 glasses of wine per week.", False),
    ("reports heavy alcohol use", "Drinks 2-3 beers on weekends.", False),
    ("reports heavy alcohol use", "Drinks little water at work; 2-3 sodas per day.", False),
    ("reports heavy alcohol use", "Drink 8 glasses of water a day.", False),
    ("reports heavy alcohol use", "Works in construction; lifts heavy objects daily.", False),
    ("reports heavy alcohol use", "Father with alcohol use disorder.", False),
    ("reports heavy alcohol use", "Her mother drinks heavily.", False),
    ("reports heavy alcohol use", "Family history of alcoholism.", False),
    ("reports heavy alcohol use", "Avoid alcohol while taking metronidazole.", False),
    ("reports heavy alcohol use", "Non-alcoholic fatty liver disease.", False),
    ("reports heavy alcohol use", "Former heavy drinker, sober for 10 years.", False),
    ("history of heavy alcohol use", "Former heavy drinker, sober for 10 years.", True),
    ("drinks alcohol", "Drinks 1-2 glasses of wine per week.", True),
    ("drinks alcohol", "Lives alone; drives; quit smoking ___ years ago; rare alcohol.", True),
    ("drinks alcohol", "Married, works as a ___; no tobacco or EtOH.", False),
    ("drinks alcohol", "Please drink plenty of fluids.", False),
    ("current smokers", "Current smoker, 1 ppd x 25 years.", True),
    ("current smokers", "Smokes half a pack per day; counselled on cessation.", True),
    ("current smokers", "Tobacco: Never smoker.", False),
    ("current smokers", "Works as a ___; non-smoker.", False),
    ("current smokers", "Former smoker, quit ___ years ago (20 pack-years).", False),
    ("current smokers", "Lives alone; independent; quit smoking ___ years ago.", False),
    ("current smokers", "Please stop smoking.", False),
    ("current smokers", "Quitting smoking is the most important thing you can do for your lungs.", False),
    ("current smokers", "PPD#6 s/p primary LTCS, p/w headache.", False),
    ("former smokers", "Former smoker, quit ___ years ago (20 pack-years).", True),
    ("former smokers", "Smoked 1 ppd, quit 5 years ago.", True),
    ("former smokers", "Current smoker, 1 ppd x 25 years.", False),
    ("former smokers", "- Please take Nicotine Patch (to help you quit smoking).", False),
    ("history of smoking", "Former smoker, quit ___ years ago (20 pack-years).", True),
    ("history of smoking", "Current smoker, 1 ppd x 25 years.", True),
    ("history of smoking", "Never smoker.", False),
    ("illicit drug use", "Occasional cannabis use, denies alcohol.", True),
    ("illicit drug use", "Lives in a group residence; smokes 1 ppd; uses cannabis several times a week.", True),
    ("illicit drug use", "Denies alcohol or drug use.", False),
    ("illicit drug use", "He denies trauma, IV drug use or prior similar episodes.", False),
    ("illicit drug use", "Avoid marijuana, which can make voices and paranoia worse.", False),
    ("illicit drug use", "PCI with a drug-eluting stent to the mid LAD.", False),
    ("presented after a mechanical fall", "He presents after a mechanical fall at home.", True),
    ("presented after a mechanical fall", "A 28 year old man with no significant history who slipped on ice.", True),
    ("presented after a mechanical fall", "Secondary: slip on ice", True),
    ("presented after a mechanical fall", "Ground-level fall without loss of consciousness.", True),
    ("presented after a mechanical fall", "Fall after a syncopal episode.", False),
    ("admitted after a fall", "Fall after a syncopal episode.", True),
    ("admitted after a fall", "No falls.", False),
    ("admitted after a fall", "Denies recent falls.", False),
    ("admitted after a fall", "Pt endorses mild confusion, anorexia and two near-falls.", False),
    ("admitted after a fall", "Postoperatively her hemoglobin fell to 7.3.", False),
    ("admitted after a fall", "Fall precautions.", False),
    ("admitted after a fall", "Her brother fell from a ladder last year.", False),
    ("lives alone", "Retired teacher; lives alone.", True),
    ("lives alone", "Does not live alone.", False),
    ("lives alone", "Lives with his spouse.", False),
    ("atrial fibrillation", "History of AF on apixaban.", True),
]


@pytest.mark.parametrize(("phrase", "sentence", "expected"), SUPPORTS)
def test_sentence_verification(phrase: str, sentence: str, expected: bool) -> None:
    assert matcher_for(phrase).supports(sentence) is expected


def test_phrases_are_read_transparently() -> None:
    assert matcher_for("former smokers").interpretation.describe() == "smoking (former)"
    assert matcher_for("history of smoking").interpretation.describe() == "smoking (ever)"
    assert matcher_for("presented after a mechanical fall").interpretation.describe() == "fall (mechanical)"
    assert matcher_for("lives alone").interpretation.concept is None
    with pytest.raises(ValueError, match="no content words"):
        matcher_for("patients who reported")


def test_a_broken_table_is_refused(tmp_path: Path) -> None:
    table = load_table().model_dump()
    table["concept"][0]["patterns"] = ["(unclosed"]
    with pytest.raises(ValueError, match="not a valid regular expression"):
        PhraseTable.model_validate(table)


def test_every_storyline_social_line_has_a_truth() -> None:
    texts = {text for storyline in STORYLINES for fact in storyline.social for text in fact.text}
    assert texts <= set(SOCIAL_TEXTS)


def _note(subject: int, text: str, dept: str = "medicine", section: str = "Social History") -> Chunk:
    return Chunk.create(
        source_id=f"note:{subject}",
        text=text,
        org="A",
        dept=dept,
        subject_id=subject,
        hadm_id=subject * 10,
        section=section,
    )


@pytest.fixture
def small_store(tmp_path: Path) -> ChunkStore:
    chunks = [
        _note(1, "Social History: ___ EtOH: Reports 3-4 beers daily."),
        _note(2, "Family History: Father with alcohol use disorder; drinks 12 beers daily.", section="Family History"),
        _note(3, "Social History: ___ EtOH: Denies alcohol use."),
        _note(4, "Social History: ___ Drinks a pint of vodka daily.", dept="psychiatry"),
        _note(5, "History of Present Illness: Severe alcohol use disorder.", section="History of Present Illness"),
    ]
    store = ChunkStore.open(tmp_path / "chunks.sqlite")
    run = store.begin_run("test")
    for chunk in chunks:
        store.put_source(run, "A:note", chunk.source_id, "d", [chunk])
    store.commit()
    return store


def test_store_matches_skip_negations_and_family_history(small_store: ChunkStore) -> None:
    found = text_matches(TextCriterion(phrase="reports heavy alcohol use"), small_store)
    assert [match.subject_id for match in found] == [1, 4, 5]
    assert found[0].sentence == "EtOH: Reports 3-4 beers daily."
    assert (found[0].hadm_id, found[0].dept) == (10, "medicine")


def test_sections_of_the_criterion_are_honoured(small_store: ChunkStore) -> None:
    criterion = TextCriterion(phrase="reports heavy alcohol use", sections=("history of present illness",))
    assert [match.subject_id for match in text_matches(criterion, small_store)] == [5]


def test_denied_departments_and_chunks_never_appear(small_store: ChunkStore) -> None:
    criterion = TextCriterion(phrase="reports heavy alcohol use")
    assert {m.dept for m in text_matches(criterion, small_store, depts={"medicine"})} == {"medicine"}
    assert text_matches(criterion, small_store, depts=()) == []
    asked: list[int] = []

    def may_read(chunk: Chunk) -> bool:
        asked.append(chunk.subject_id or 0)
        return chunk.subject_id != 1

    found = text_matches(criterion, small_store.path.parent, may_read=may_read)
    assert [match.subject_id for match in found] == [4, 5]
    assert sorted(asked) == [1, 4, 5]  # only chunks with a supporting sentence are asked about


@pytest.fixture(scope="module")
def cohort_store(cohort: Path, tmp_path_factory: pytest.TempPathFactory) -> ChunkStore:
    """The session cohort's notes in one store (no index: text criteria read the chunk store only)."""
    store = ChunkStore.open(tmp_path_factory.mktemp("text-criteria") / "chunks.sqlite")
    ingest_mimic(cohort / "full", store, IngestSettings(tables=()), org="ALL")
    return store


@pytest.mark.parametrize("phrase", sorted(CRITERIA))
def test_precision_and_recall_against_gold_facts(
    phrase: str, cohort_store: ChunkStore, gold_facts: list[dict[str, object]]
) -> None:
    truth = truth_of(gold_facts)[CRITERIA[phrase]]
    found = {match.admission for match in text_matches(TextCriterion(phrase=phrase), cohort_store)}
    hits = len(found & truth)
    assert truth, "the test cohort should hold admissions for every criterion"
    assert hits / max(len(found), 1) >= 0.9, f"precision {hits}/{len(found)}"
    assert hits / len(truth) >= 0.9, f"recall {hits}/{len(truth)}"


@pytest.mark.parametrize("phrase", ["reports heavy alcohol use", "history of smoking", "admitted after a fall"])
def test_the_store_filter_loses_nothing(phrase: str, cohort_store: ChunkStore) -> None:
    matcher = matcher_for(phrase)
    every = {
        chunk.chunk_id
        for chunk in cohort_store.chunks(source_kind="note")
        if matcher.reads_section(chunk.section) and supporting_sentences(matcher, chunk.text)
    }
    found = {match.chunk_id for match in text_matches(TextCriterion(phrase=phrase), cohort_store)}
    assert found == every


def test_truth_reads_gold_facts(gold_facts: list[dict[str, object]]) -> None:
    truth = truth_of(gold_facts)
    assert truth["smoking_ever"] == truth["smoking_current"] | truth["smoking_former"]
    assert json.dumps(sorted(truth["alcohol_heavy"]))  # admissions are plain (subject, hadm) pairs
