"""The held-out answer benchmark's questions and grading, on the session cohort (issue 14)."""

from __future__ import annotations

import doctest
import hashlib
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from clinrag.evaluate import (
    answers,
    heldout,
    heldout_freeform,
    heldout_questions,
    heldout_questions_2,
    heldout_questions_3,
    heldout_questions_4,
    heldout_questions_5,
    heldout_wordings,
)
from clinrag.evaluate.heldout import (
    BLIND_SPLITS,
    BlindSplit,
    CohortView,
    HeldoutQuestion,
    build_blind_split,
    build_questions,
    build_questions_2,
    grade,
)
from clinrag.evaluate.heldout_freeform import FREEFORM_SETS
from clinrag.evaluate.heldout_questions import FAMILIES, split_of
from clinrag.types import Abstention, Answer, Chunk, Source


@pytest.mark.parametrize(
    "module",
    [
        heldout,
        heldout_questions,
        heldout_freeform,
        heldout_questions_2,
        heldout_questions_3,
        heldout_questions_4,
        heldout_questions_5,
        heldout_wordings,
    ],
)
def test_examples_in_docstrings(module: object) -> None:
    outcome = doctest.testmod(module)  # type: ignore[arg-type]
    assert outcome.attempted > 0
    assert outcome.failed == 0


@pytest.fixture(scope="module")
def view(cohort: Path) -> CohortView:
    return CohortView.load(cohort, "A")


@pytest.fixture(scope="module")
def questions(view: CohortView) -> list[HeldoutQuestion]:
    return build_questions(view, seed=11)


def test_families_split_by_wording_never_by_question(questions: list[HeldoutQuestion]) -> None:
    for intent, families in FAMILIES.items():
        halves = {family: split_of(intent, family) for family in families}
        assert halves["direct"] == "dev"
        assert Counter(halves.values()) == {"dev": 3, "test": 3}, intent
    for question in questions:
        if not question.abstain:
            assert question.split == split_of(question.intent, question.family)
    templated = {(q.intent, q.family, q.split) for q in questions if not q.abstain}
    for intent, family, _ in templated:
        assert len({split for i, f, split in templated if (i, f) == (intent, family)}) == 1


def test_every_answerable_question_names_its_patient_and_gold_from_the_note(
    view: CohortView, questions: list[HeldoutQuestion]
) -> None:
    answerable = [q for q in questions if not q.abstain]
    assert {q.intent for q in answerable} == set(FAMILIES)  # every fact kind the cohort holds is asked
    for question in answerable:
        assert question.subject_id is not None
        assert view.names[question.subject_id] in question.text
        assert 1 <= question.need <= len(question.expected)
        if question.intent == "admissions":
            assert question.ordered
            assert list(question.expected) == sorted(question.expected)
            continue
        notes = " ".join(
            " ".join(text.split()).lower() for sid, _, text in view.notes.values() if sid == question.subject_id
        )
        assert all(" ".join(item.split()).lower() in notes for item in question.expected), question


def test_must_abstain_questions_name_no_registry_patient(view: CohortView, questions: list[HeldoutQuestion]) -> None:
    rejecting = [q for q in questions if q.abstain]
    assert {q.intent for q in rejecting} >= {"negative", "noise", "unseen", "wrong_name"}
    full_names = set(view.names.values())
    surnames = {name.split()[-1] for name in full_names}
    for question in (q for q in rejecting if q.intent == "wrong_name"):
        assert not any(name in question.text for name in full_names), question.text
        assert any(surname in question.text for surname in surnames)  # a real surname, an invented first name
    for question in (q for q in rejecting if q.intent == "unseen"):
        assert not any(name in question.text for name in full_names)


def _answer(text: str, subject_ids: list[int], abstained: bool = False) -> Answer:
    sources = tuple(
        Source(
            number=n,
            chunk=Chunk.create(source_id=f"note:{sid}", org="A", dept="medicine", subject_id=sid, text="x"),
            score=1.0,
        )
        for n, sid in enumerate(subject_ids, 1)
    )
    cited = tuple(range(1, len(sources) + 1))
    declined = Abstention(reason="Not enough information.") if abstained else None
    return Answer(question="q", text=text, generator="extractive", sources=sources, cited=cited, abstention=declined)


def test_grades_put_the_worst_error_first() -> None:
    question = HeldoutQuestion(
        "What complication did Ada Stone have?",
        "complication",
        "direct",
        "dev",
        7,
        ("atrial fibrillation",),
        forbidden=("uncomplicated",),
    )
    assert grade(question, _answer("Ada Stone: new atrial fibrillation [1]", [7])) == "correct"
    assert grade(question, _answer("Ada Stone: new atrial fibrillation [1][2]", [7, 8])) == "wrong_patient"
    assert grade(question, _answer("Ada Stone: uncomplicated bypass run [1]", [7])) == "contradicts"
    assert grade(question, _answer("Ada Stone: no atrial fibrillation [1]", [7])) == "contradicts"
    assert grade(question, _answer("Ada Stone: chest tube removed [1]", [7])) == "incomplete"
    assert grade(question, _answer("Not enough information.", [], abstained=True)) == "wrong_abstain"
    named_wrong = HeldoutQuestion(
        "Did Alexandra Stone have anemia?", "wrong_name", "wrong_name", "dev", None, abstain=True
    )
    assert grade(named_wrong, _answer("Not enough information.", [], abstained=True)) == "correct_abstain"
    assert grade(named_wrong, _answer("Tracie Stone: anemia [1]", [9])) == "wrong_patient"


def test_admissions_must_come_in_date_order() -> None:
    question = HeldoutQuestion(
        "Summarize Ada Stone's admissions",
        "admissions",
        "direct",
        "dev",
        7,
        ("2019-01-02", "2021-03-04"),
        need=2,
        ordered=True,
    )
    assert grade(question, _answer("2019-01-02 … [1]\n2021-03-04 … [1]", [7])) == "correct"
    assert grade(question, _answer("2021-03-04 … [1]\n2019-01-02 … [1]", [7])) == "incomplete"


@pytest.mark.parametrize(
    "path",
    [path for name, path in FREEFORM_SETS.items() if name != "freeform2"],
    ids=[name for name in FREEFORM_SETS if name != "freeform2"],
)
def test_the_free_form_questions_are_well_formed(path: Path) -> None:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    assert len(rows) >= 50
    intents = set(FAMILIES) | {"negative", "noise", "unseen", "wrong_name"}
    for row in rows:
        assert {"text", "patient", "intent"} <= row.keys()
        assert row["intent"] in intents, row
        assert row.get("abstain", False) or row["expected"], row
        assert 1 <= int(row.get("need", 1)) <= max(len(row.get("expected", ())), 1)
    assert sum(bool(row.get("abstain")) for row in rows) >= 10


def test_every_heldout_data_file_loads_and_is_a_split() -> None:
    files = sorted(path.stem for path in heldout_wordings.HELDOUT_DATA.glob("*.toml"))
    assert files[0] == "dev_test"
    assert heldout_wordings.load_families("dev_test") is FAMILIES
    for name in files[1:]:
        assert name.startswith("test"), name
        assert heldout.BlindSplit.load(name).families == heldout_wordings.load_blind_split(name).families
    assert heldout.SPLIT_2.families is heldout_questions_2.FAMILIES_2  # loaded once


def _wording(template: str) -> str:
    """A template with its placeholders, case and punctuation made alike, to compare wordings."""
    return " ".join(re.sub(r"[^a-z0-9/ ]+", " ", re.sub(r"\{\w+\}", "N", template).lower()).split())


def _templates(split: BlindSplit) -> tuple[list[str], list[str]]:
    templated = [t for families in split.families.values() for templates in families.values() for t in templates]
    rejecting = [
        *split.negative_templates,
        *split.noise_templates,
        *split.unseen_templates,
        *split.wrong_name_templates,
    ]
    return templated, rejecting


@pytest.mark.parametrize("split", BLIND_SPLITS, ids=[split.name for split in BLIND_SPLITS])
def test_each_blind_split_uses_only_new_wordings(split: BlindSplit) -> None:
    assert set(split.families) == set(FAMILIES)
    seen = {_wording(t) for families in FAMILIES.values() for templates in families.values() for t in templates}
    seen |= {_wording(t) for t in answers.NEGATIVE_TEMPLATES + answers.NOISE_TEMPLATES}
    invented = set(heldout._INVENTED_FIRST_NAMES)
    for earlier in BLIND_SPLITS[: BLIND_SPLITS.index(split)]:
        templated, rejecting = _templates(earlier)
        seen |= {_wording(t) for t in templated + rejecting}
        invented |= set(earlier.invented_first_names)
    templated, rejecting = _templates(split)
    for families in split.families.values():
        assert len(families) >= 2
        assert all(len(templates) >= 2 for templates in families.values())
    for new in (templated, rejecting):  # unseen patients may be asked in the new split's own wordings
        assert len({_wording(t) for t in new}) == len(new)
        assert not {_wording(t) for t in new} & seen
    assert not set(split.invented_first_names) & invented


def test_the_first_splits_are_unchanged(view: CohortView, questions: list[HeldoutQuestion]) -> None:
    pinned = {
        "families": FAMILIES,
        "splits": {intent: {f: split_of(intent, f) for f in families} for intent, families in FAMILIES.items()},
        "neg": answers.NEGATIVE_TEMPLATES,
        "noise": answers.NOISE_TEMPLATES,
        "invented": heldout._INVENTED_FIRST_NAMES,
    }
    digest = hashlib.sha256(json.dumps(pinned, sort_keys=True).encode()).hexdigest()
    assert digest == "701810a432fd8c97d87af58ad625b89e4f2a1253bc01d70e75d8082c70b2aa81"
    assert {q.split for q in questions} == {"dev", "test"}
    build_questions_2(view, seed=11)
    assert build_questions(view, seed=11) == questions  # the second split draws from its own random stream


@pytest.mark.parametrize("split", BLIND_SPLITS, ids=[split.name for split in BLIND_SPLITS])
def test_each_blind_split_names_its_patients(view: CohortView, split: BlindSplit) -> None:
    second = build_blind_split(view, split, seed=11)
    assert {q.split for q in second} == {split.name}
    answerable = [q for q in second if not q.abstain]
    assert {q.intent for q in answerable} == set(FAMILIES)
    for question in answerable:
        assert question.subject_id is not None
        first, _, last = view.names[question.subject_id].partition(" ")
        forms = (f"{first} {last}", f"{last}, {first}", f"{first} {last}".lower())
        assert any(form in question.text for form in forms), question.text
    rejecting = [q for q in second if q.abstain]
    assert {q.intent for q in rejecting} >= {"negative", "noise", "unseen", "wrong_name"}
    full_names = set(view.names.values())
    for question in rejecting:
        if question.intent in ("unseen", "wrong_name"):
            assert not any(name in question.text for name in full_names), question.text
