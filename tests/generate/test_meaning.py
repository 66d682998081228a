"""Answers by what the question asks for, on a real one-leaf index: complications that the record reports (never
an "uncomplicated" it contradicts), who had a condition (not who was warned about it), every admission in date
order, and hospitals the question names."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pytest

from clinrag.evaluate.adversarial import index_in, note_chunk
from clinrag.generate.answer import Answerer
from clinrag.generate.contradiction import contradicted
from clinrag.index.embed import OnnxMiniLmEmbedder
from clinrag.retrieve.hybrid import Retrieval, Retriever
from clinrag.retrieve.query import understand
from clinrag.retrieve.scope import ScopeNames
from clinrag.settings import AnswerSettings
from clinrag.types import Chunk, Hit, SearchFilters

ADA, BO = "Ada Stone", "Bo Lind"


def _stay(subject_id: int, name: str, hadm_id: int, year: int, section: str, text: str) -> Chunk:
    return Chunk.create(
        source_id=f"note:{hadm_id}#{section}",
        text=f"{section}: {text}",
        org="A",
        dept="medicine",
        subject_id=subject_id,
        hadm_id=hadm_id,
        patient_name=name,
        note_id=f"{subject_id}-DS-{hadm_id}",
        section=section,
        admittime=datetime(year, 3, 1),
    )


CHUNKS = (
    note_chunk(1, ADA, "Major Surgical or Invasive Procedure", "CABG x3 (LIMA-LAD, SVG-OM, SVG-PDA)"),
    note_chunk(
        1,
        ADA,
        "Brief Hospital Course",
        "She underwent CABG x3; the bypass run was uncomplicated. Course complicated by new atrial fibrillation on "
        "POD 2, treated with IV then PO amiodarone.",
    ),
    note_chunk(1, ADA, "Discharge Instructions", "Call 911 for any signs of stroke such as facial droop."),
    note_chunk(2, BO, "Discharge Diagnosis", "Primary:\nright MCA ischemic stroke\n\nSecondary:\nHTN"),
    note_chunk(2, BO, "Brief Hospital Course", "He underwent laparoscopic cholecystectomy without complication."),
    _stay(3, "Cy Moss", 31, 2021, "Discharge Diagnosis", "Primary:\nhip fracture"),
    _stay(3, "Cy Moss", 32, 2015, "Discharge Diagnosis", "Primary:\ncommunity-acquired pneumonia"),
    _stay(3, "Cy Moss", 33, 2018, "Chief Complaint", "chest pain"),
    _stay(3, "Cy Moss", 33, 2018, "Medications on Admission", "Aspirin 81 mg PO DAILY"),
    _stay(
        3,
        "Cy Moss",
        33,
        2018,
        "Brief Hospital Course",
        "Complications recorded during the chest pain admission were reviewed; not in distress at discharge.",
    ),
)


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Retriever]:
    found = index_in(tmp_path_factory.mktemp("meaning"), CHUNKS, OnnxMiniLmEmbedder(threads=1))
    yield found
    found.close()


def _answer(retriever: Retriever, question: str) -> str:
    answer = Answerer(retriever, AnswerSettings()).answer(question)
    assert not answer.abstained, answer.text
    return answer.text


def test_a_complication_question_finds_the_complication_not_the_uncomplicated_run(retriever: Retriever) -> None:
    text = _answer(retriever, "What complication did Ada Stone have after her coronary artery bypass?")
    assert "atrial fibrillation" in text
    assert "uncomplicated" not in text


def test_a_stay_without_complication_says_so(retriever: Retriever) -> None:
    text = _answer(retriever, "Did Bo Lind have any complications after the cholecystectomy?")
    assert "without complication" in text


def test_who_had_a_condition_is_not_who_was_warned_about_it(retriever: Retriever) -> None:
    text = _answer(retriever, "Who was treated for a stroke?")
    assert BO in text
    assert ADA not in text


def test_the_primary_diagnosis_keeps_its_label(retriever: Retriever) -> None:
    text = _answer(retriever, "What was Bo Lind's primary discharge diagnosis?")
    assert "Primary: right MCA ischemic stroke" in text


def test_a_summary_lists_every_admission_in_date_order_each_cited(retriever: Retriever) -> None:
    answer = Answerer(retriever, AnswerSettings()).answer("Summarize Cy Moss's hospital admissions over the years")
    lines = answer.text.splitlines()
    assert [line.split(": ")[1][:4] for line in lines] == ["2015", "2018", "2021"]
    assert all(line.rstrip().endswith("]") for line in lines)
    assert "pneumonia" in lines[0]
    assert "chest pain" in lines[1]
    assert "hip fracture" in lines[2]


@dataclass
class FederationLike:
    """A searcher over two hospitals where the asker may search only B (A denies every department)."""

    chunks: Sequence[Chunk]

    def scope_names(self) -> ScopeNames:
        return ScopeNames(orgs={"A": "Hospital A", "B": "Hospital B"})

    def retrieve(self, question: str, filters: SearchFilters | None = None, k: int | None = None) -> Retrieval:
        wanted = (filters.orgs if filters is not None else None) or ("A", "B")
        hits = tuple(
            Hit(chunk=c, score=0.9, rank=i + 1) for i, c in enumerate(c for c in self.chunks if c.org in wanted)
        )
        return Retrieval(
            hits=hits if "B" in wanted else (),
            understanding=understand(question),
            resolution=None,
            filters=filters or SearchFilters(),
            searched=("B",),
            denied=("A/medicine", "A/surgery"),
        )


def test_a_named_hospital_the_asker_may_not_search_is_said_so_not_answered_from_elsewhere() -> None:
    elsewhere = note_chunk(9, "Di Hale", "Social History", "Heavy alcohol use, 10 drinks a day.", org="B")
    answer = Answerer(FederationLike([elsewhere]), AnswerSettings()).answer("Who drinks heavily at Hospital A?")
    assert answer.abstained
    assert "Hospital A is not accessible to you" in answer.text
    assert "Di Hale" not in answer.text
    answered = Answerer(FederationLike([elsewhere]), AnswerSettings()).answer("Who drinks heavily at Hospital B?")
    assert "Di Hale" in answered.text


def test_every_new_module_documents_itself_with_examples_that_run() -> None:
    import doctest

    from clinrag.generate import contradiction, extractive
    from clinrag.retrieve import intent, scope, vocabulary

    for module in (contradiction, extractive, intent, scope, vocabulary):
        outcome = doctest.testmod(module)
        assert outcome.attempted > 0, module.__name__
        assert outcome.failed == 0, module.__name__


def test_a_model_sentence_the_same_stay_contradicts_is_not_given_as_fact(retriever: Retriever) -> None:
    from tests.generate.test_answerer import ScriptedGenerator

    chosen = AnswerSettings.model_validate({"generator": "openai", "model_fallback": False})
    question = "What complication did Ada Stone have after her coronary artery bypass?"
    wrong = Answerer(retriever, chosen, ScriptedGenerator("The bypass run was uncomplicated [1][2].")).answer(question)
    assert wrong.abstained
    assert wrong.abstention is not None
    assert "contradicted by another record of the same stay" in wrong.abstention.reason
    right = "Course complicated by new atrial fibrillation on POD 2 [1][2]."
    assert not Answerer(retriever, chosen, ScriptedGenerator(right)).answer(question).abstained


def test_a_contradicted_model_draft_is_replaced_by_the_lines_that_answer(retriever: Retriever) -> None:
    from tests.generate.test_answerer import ScriptedGenerator

    chosen = AnswerSettings.model_validate({"generator": "openai"})  # model_fallback on: the default
    question = "What complication did Ada Stone have after her coronary artery bypass?"
    answer = Answerer(retriever, chosen, ScriptedGenerator("The bypass run was uncomplicated [1][2].")).answer(question)
    assert not answer.abstained
    assert (answer.generator, answer.fallback_from) == ("extractive", "scripted")
    assert "atrial fibrillation" in answer.text
    assert "uncomplicated" not in answer.text
    assert all(sentence.supported for sentence in answer.sentences)


def test_no_known_allergies_is_contradicted_by_a_listed_allergy() -> None:
    allergy = note_chunk(1, ADA, "Allergies", "Lisinopril (angioedema)")
    assert contradicted("Ada Stone has no known allergies.", [allergy])
    assert not contradicted("Ada Stone is allergic to lisinopril.", [allergy])


def test_a_model_sentence_stating_an_absence_rests_on_a_line_that_states_it(retriever: Retriever) -> None:
    from tests.generate.test_answerer import ScriptedGenerator

    chosen = AnswerSettings.model_validate({"generator": "openai", "model_fallback": False})
    silent = "Were any complications recorded during Cy Moss's chest pain admission?"
    cited = [source.number for source in Answerer(retriever, chosen).answer(silent).sources]
    marks = "".join(f"[{n}]" for n in cited)
    # the course line shares the sentence's words and a negation, but states no absence of complications
    unfounded = ScriptedGenerator(f"No complications were recorded during the chest pain admission {marks}.")
    answer = Answerer(retriever, chosen, unfounded).answer(silent)
    assert answer.abstained
    stated = "Did Bo Lind have any complications after his cholecystectomy?"
    founded = ScriptedGenerator("He had no complications after the cholecystectomy [1][2].")
    assert not Answerer(retriever, chosen, founded).answer(stated).abstained


def test_a_model_draft_mostly_unsupported_is_replaced_by_the_lines_that_answer(retriever: Retriever) -> None:
    from tests.generate.test_answerer import ScriptedGenerator

    chosen = AnswerSettings.model_validate({"generator": "openai"})  # model_fallback on: the default
    question = "What complication did Ada Stone have after her coronary artery bypass?"
    draft = (
        "Course complicated by new atrial fibrillation on POD 2 [1][2]. A pacemaker was implanted on day 4 [1]. "
        "She needed dialysis for kidney failure [2]."
    )
    answer = Answerer(retriever, chosen, ScriptedGenerator(draft)).answer(question)
    assert (answer.generator, answer.fallback_from) == ("extractive", "scripted")
    assert "atrial fibrillation" in answer.text
    assert "pacemaker" not in answer.text


def test_what_a_stay_cost_or_a_chaplain_gave_is_not_answered_from_the_stays_lines(retriever: Retriever) -> None:
    """A bill and a visitor no record names are said to be missing, not answered with whatever the stay's lines say."""
    for question in (
        "How much was the TV rental by the bed when Ada Stone was in? She says they charged her for the whole week.",
        "Did Ada Stone receive Holy Communion from the hospital chaplain during her admission?",
    ):
        answer = Answerer(retriever, AnswerSettings()).answer(question)
        assert answer.abstained, question


def test_a_name_asked_of_someone_no_record_names_is_not_answered(retriever: Retriever) -> None:
    """The porter who took her to theatre, or her blood group, is said to be missing, not answered with the
    procedure line or a line about group therapy."""
    for question in (
        "Ada Stone says the porter who took her to theatre used to be a thatcher. What was the porter's name?",
        "What blood group is Ada Stone? The group is organising a blood donation trip.",
        "Can anastrozole slow a fielder's reactions at first slip? Ada Stone is on it.",
        "What make of bypass graft did Ada Stone get, and the serial number? The insurer wants an implant card.",
    ):
        answer = Answerer(retriever, AnswerSettings()).answer(question)
        assert answer.abstained, question


def test_a_complication_is_searched_for_in_the_whole_course(tmp_path: Path) -> None:
    """One course chunk retrieved ("# asthma: stable") says nothing of the others: the course is searched for the
    complication all the same."""

    def chunk(section: str, text: str, part: int = 0) -> Chunk:
        return Chunk.create(
            source_id=f"note:9-DS-91#{section}#{part}",
            text=f"{section}: {text}",
            org="A",
            dept="surgery",
            subject_id=9,
            hadm_id=91,
            patient_name="Di Roe",
            note_id="9-DS-91",
            section=section,
        )

    chunks = [
        chunk("Brief Hospital Course", "# asthma: stable during the admission; continued home inhaler.", 1),
        chunk("Brief Hospital Course", "Postoperatively her hemoglobin fell to 7.2; transfused one unit PRBC.", 2),
        chunk("Physical Exam", "Comfortable in bed during the admission, lungs clear."),
        chunk("Pertinent Results", "Admission labs during the admission: WBC 4.6, Hgb 12.8, Creat 1.9."),
        chunk("Chief Complaint", "right hip pain after a fall"),
        chunk("History of Present Illness", "Fell at home; brought in by ambulance for the admission."),
        chunk("Medications on Admission", "Lisinopril 10 mg PO daily during the admission."),
        chunk("Discharge Instructions", "You were admitted for a hip fracture; the admission went well."),
    ]
    found = index_in(tmp_path, chunks, OnnxMiniLmEmbedder(threads=1))
    try:
        answer = Answerer(found, AnswerSettings(sources=5)).answer("Any complication during Di Roe's admission?")
    finally:
        found.close()
    assert "hemoglobin fell" in answer.text, answer.text
