"""Discharge questions (DischargeQA after ExpRAG) built from the session cohort (issue 18)."""

from __future__ import annotations

import csv
import doctest
import re
import shutil
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from clinrag.errors import InputError
from clinrag.evaluate import discharge_questions
from clinrag.evaluate.discharge_questions import (
    INSTRUCTION_OPTIONS,
    TASKS,
    DischargeQuestion,
    QuestionSet,
    build_question_set,
    build_questions,
    ingredients,
    load_questions,
    near_copy,
    normalise,
    split_of,
    write_questions,
)
from clinrag.ingest.notes import CANONICAL
from clinrag.types import SectionGroup

SEED = 7
Facts = list[dict[str, object]]


def _titles(group: SectionGroup) -> list[str]:
    return [title for title, (of, _) in CANONICAL.items() if of is group]


def _admissions(cohort: Path) -> int:
    with (cohort / "full/hosp/admissions.csv").open() as handle:
        return sum(1 for _ in csv.DictReader(handle))


@pytest.fixture(scope="module")
def built(cohort: Path) -> QuestionSet:
    return build_question_set(cohort, seed=SEED)


@pytest.fixture(scope="module")
def questions(built: QuestionSet) -> list[DischargeQuestion]:
    return list(built.questions)


def _wrong(question: DischargeQuestion) -> list[str]:
    return [o for i, o in enumerate(question.options) if i not in question.correct]


def _right(question: DischargeQuestion) -> list[str]:
    return [question.options[i] for i in question.correct]


def test_examples_in_docstrings() -> None:
    outcome = doctest.testmod(discharge_questions)
    assert outcome.attempted > 0
    assert outcome.failed == 0


def test_every_task_is_built_and_every_admission_is_accounted_for(cohort: Path, built: QuestionSet) -> None:
    made = Counter(q.task for q in built.questions)
    admissions = _admissions(cohort)
    for task in TASKS:
        skipped = sum(n for (of, _), n in built.skipped.items() if of == task)
        assert made[task] > 0
        assert made[task] + skipped == admissions, task
    assert len({q.qid for q in built.questions}) == len(built.questions)
    assert all(q.qid == f"{q.task}-{q.hadm_id}" for q in built.questions)


def test_same_cohort_and_seed_give_identical_jsonl(
    cohort: Path, questions: list[DischargeQuestion], tmp_path: Path
) -> None:
    again = build_questions(cohort, seed=SEED)
    assert again == questions
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    write_questions(questions, first)
    write_questions(again, second)
    assert first.read_bytes() == second.read_bytes()
    assert load_questions(first) == questions
    assert build_questions(cohort, seed=SEED + 1) != questions


def test_split_is_by_patient(questions: list[DischargeQuestion]) -> None:
    splits: dict[int, set[str]] = defaultdict(set)
    for question in questions:
        splits[question.subject_id].add(question.split)
        assert question.split == split_of(question.subject_id, SEED)
    assert all(len(found) == 1 for found in splits.values())
    halves = Counter(found.pop() for found in splits.values())
    assert halves["dev"] > 0
    assert halves["test"] > 0


def test_correct_indices_are_valid_and_counts_within_bounds(questions: list[DischargeQuestion]) -> None:
    bounds = {"diagnosis": (2, 5), "medication": (2, 6)}
    for q in questions:
        assert list(q.correct) == sorted(set(q.correct))
        assert all(0 <= i < len(q.options) for i in q.correct)
        assert len(set(q.options)) == len(q.options)
        if q.task == "instruction":
            assert not q.multi
            assert len(q.options) == INSTRUCTION_OPTIONS
            assert len(q.correct) == 1
        else:
            low, high = bounds[q.task]
            assert q.multi
            assert low <= len(q.correct) <= high, q.qid
            assert 3 <= len(_wrong(q)) <= 6, q.qid
            assert len(q.options) <= 10


def test_no_distractor_is_also_correct(questions: list[DischargeQuestion]) -> None:
    for q in questions:
        for wrong in _wrong(q):
            for right in _right(q):
                assert normalise(wrong) != normalise(right), q.qid
                assert normalise(wrong) not in normalise(right), q.qid
                assert normalise(right) not in normalise(wrong), q.qid
                assert not near_copy(wrong, right), q.qid
                if q.task == "medication":
                    assert not ingredients(wrong) & ingredients(right), q.qid


def test_background_stops_before_the_discharge_plan(questions: list[DischargeQuestion]) -> None:
    plan, progress = _titles(SectionGroup.DISCHARGE_PLAN), _titles(SectionGroup.IN_HOSPITAL_PROGRESS)
    for q in questions:
        assert re.match(r"Sex: [FM]\. Age: \d+\.", q.background), q.qid
        lowered = q.background.lower()
        assert not [t for t in plan if f"{t.lower()}:" in lowered], q.qid
        if q.task == "diagnosis":
            assert not [t for t in progress if f"{t}:" in q.background], q.qid
        else:
            assert "Brief Hospital Course:" in q.background
        if q.task == "instruction":
            right = q.options[q.correct[0]]
            assert normalise(right) not in normalise(q.background), q.qid
            for sentence in re.split(r"(?<=[.!?]) ", right):
                if len(sentence) > 40:
                    assert normalise(sentence) not in normalise(q.background), q.qid


def test_diagnosis_answers_are_the_gold_discharge_diagnoses(
    questions: list[DischargeQuestion], gold_facts: Facts
) -> None:
    gold: dict[str, dict[str, str]] = defaultdict(dict)  # note_id → label → code
    for fact in gold_facts:
        if fact["section"] == "Discharge Diagnosis" and fact["kind"] == "diagnosis" and not fact["noise"]:
            gold[str(fact["note_id"])][str(fact["label"])] = str(fact["value"])
    checked = 0
    for q in (q for q in questions if q.task == "diagnosis"):
        labels = gold[q.note_id]
        codes = [labels[right] for right in _right(q)]
        assert len(set(codes)) == len(codes)
        assert len(codes) == min(5, len(set(labels.values()))), q.qid
        assert not [wrong for wrong in _wrong(q) if wrong in labels], q.qid
        checked += 1
    assert checked > 20


def test_medication_answers_are_the_gold_discharge_drugs(questions: list[DischargeQuestion], gold_facts: Facts) -> None:
    gold: dict[str, set[str]] = defaultdict(set)
    for fact in gold_facts:
        if fact["section"] == "Discharge Medications" and not fact["noise"]:
            gold[str(fact["note_id"])].add(normalise(str(fact["value"])))
    for q in (q for q in questions if q.task == "medication"):
        assert {normalise(r) for r in _right(q)} <= gold[q.note_id], q.qid
        assert not {normalise(w) for w in _wrong(q)} & gold[q.note_id], q.qid


def test_instruction_distractors_come_from_other_storylines(
    questions: list[DischargeQuestion], gold_facts: Facts
) -> None:
    storyline = {str(f["note_id"]): str(f["storyline"]) for f in gold_facts}
    instructions = [q for q in questions if q.task == "instruction"]
    note_of = {q.options[q.correct[0]]: q.note_id for q in instructions}
    for q in instructions:
        others = [storyline[note_of[wrong]] for wrong in _wrong(q)]
        assert storyline[q.note_id] not in others, q.qid
        assert len(set(others)) == len(others), q.qid
        assert len(q.options[q.correct[0]]) >= 60
        assert not re.search(r"\bDear\b|Care Team|pleasure", " ".join(q.options)), q.qid


def test_per_task_caps_with_a_seeded_choice(cohort: Path, questions: list[DischargeQuestion]) -> None:
    capped = build_question_set(cohort, seed=SEED, per_task=5)
    assert Counter(q.task for q in capped.questions) == dict.fromkeys(TASKS, 5)
    assert set(capped.questions) <= set(questions)
    assert capped.questions == build_question_set(cohort, seed=SEED, per_task=5).questions
    assert all(capped.skipped[task, "over_per_task"] > 0 for task in TASKS)


def test_skips_are_counted_by_reason(cohort: Path, built: QuestionSet, tmp_path: Path) -> None:
    copy = tmp_path / "cohort"
    shutil.copytree(cohort / "full", copy / "full")
    shutil.copy(cohort / "gold_facts.jsonl", copy / "gold_facts.jsonl")
    notes_file = copy / "full/note/discharge.csv"
    with notes_file.open(newline="") as handle:
        reader = csv.DictReader(handle)
        fields, rows = list(reader.fieldnames or []), list(reader)
    dropped = rows.pop(0)
    text = rows[0]["text"]
    start, end = text.index("Discharge Instructions:"), text.index("Followup Instructions:")
    rows[0]["text"] = text[:start] + "Discharge Instructions:\nDear Ms. ___,\nRest.\n\n" + text[end:]
    with notes_file.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fields)
        writer.writeheader()
        writer.writerows(rows)

    broken = build_question_set(copy, seed=SEED)
    for task in TASKS:
        assert broken.skipped[task, "no_note"] == 1
    assert broken.skipped["instruction", "too_short"] == built.skipped["instruction", "too_short"] + 1
    assert not [q for q in broken.questions if q.note_id == dropped["note_id"]]
    assert f"instruction-{rows[0]['hadm_id']}" not in {q.qid for q in broken.questions}
    assert sum(built.skipped.values()) > 0  # single-diagnosis admissions cannot make a multi-select question


def test_a_bad_line_names_file_and_line_never_its_text(questions: list[DischargeQuestion], tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    write_questions(questions[:2], path)
    secret = questions[0].background[:40]
    path.write_text(path.read_text() + '{"qid": "x", "background": ' + repr(secret).replace("'", '"') + "}\n")
    with pytest.raises(InputError, match=r"q\.jsonl:3: not a discharge question") as raised:
        load_questions(path)
    assert secret not in str(raised.value)


def test_an_inconsistent_question_is_refused() -> None:
    fields = {
        "qid": "instruction-1",
        "split": "dev",
        "task": "instruction",
        "org": "A",
        "subject_id": 1,
        "hadm_id": 1,
        "note_id": "1-DS-1",
        "background": "Sex: F. Age: 60.",
        "question": "q",
    }
    with pytest.raises(ValueError, match="one correct"):
        DischargeQuestion(**fields, options=("a", "b", "c", "d"), correct=(0, 1))
    with pytest.raises(ValueError, match="out of range"):
        DischargeQuestion(**fields, options=("a", "b", "c", "d"), correct=(4,))
    with pytest.raises(ValueError, match="sorted"):
        DischargeQuestion(**{**fields, "task": "diagnosis"}, options=("a", "b", "c"), correct=(2, 0))
