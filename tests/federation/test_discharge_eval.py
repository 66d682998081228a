"""The discharge evaluation (issue 18) on the 40-patient demo of the federation tests: the question's own patient never
in the context, the retrievers do what their names say, two runs give equal numbers, and bad input is a clear
message with exit status 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinrag.app.cli import app
from clinrag.evaluate.discharge import (
    Config,
    Experience,
    exact,
    f1,
    markdown,
    report,
    rows,
    run_extractive,
)
from clinrag.evaluate.discharge_corpus import RETRIEVERS, HospitalCorpus
from clinrag.evaluate.discharge_questions import DischargeQuestion, build_questions
from clinrag.population.similar import Weights

from ..shared.federation import EMBEDDER, Federation

CONFIGS = [Config("none"), Config("text", 5), Config("ehr", 5), Config("ehr", 5, "complementary", "bm25")]


@pytest.fixture(scope="module")
def questions(federation: Federation) -> list[DischargeQuestion]:
    """The demo cohort's discharge questions."""
    return build_questions(federation.out / "cohort")


@pytest.fixture(scope="module")
def experience(federation: Federation, tmp_path_factory: pytest.TempPathFactory) -> Experience:
    """Every hospital's corpus, vectors cached in a temporary folder."""
    cache = tmp_path_factory.mktemp("discharge-cache")
    return Experience(
        {org: HospitalCorpus.open(federation.out / "nodes" / org, EMBEDDER, cache) for org in ("A", "B", "C")}
    )


def test_the_questions_own_patient_never_enters_the_context(
    questions: list[DischargeQuestion], experience: Experience
) -> None:
    assert questions
    for question in questions[:60]:
        for config in [*CONFIGS, *(Config("ehr", 25, retriever=r) for r in RETRIEVERS)]:
            passages = experience.passages(question, config)
            assert question.subject_id not in {p.subject_id for p in passages}
            if config.ranker == "none":
                assert passages == []


def test_the_retrievers_return_what_their_names_say(experience: Experience) -> None:
    corpus = experience.corpora["A"]
    subjects = sorted({chunk.subject_id or 0 for chunk in corpus.chunks})[:10]
    query = "Discharge Medications"
    window = corpus.retrieve("sentence-window", query, subjects, 5)
    for passage in window:
        assert 1 <= len(passage.sentences) <= 3
        assert passage.text == " ".join(corpus.sentences[s] for s in passage.sentences)
    for passage in corpus.retrieve("auto-merging", query, subjects, 40):
        section = [c.text for c in corpus.chunks if (c.note_id, c.section) == (passage.note_id, passage.section)]
        assert passage.text in section or passage.text == "\n".join(section)  # a child, or its whole section
    bm25 = corpus.retrieve("bm25", query, subjects, 5)
    assert all(p.subject_id in subjects for p in bm25)
    assert corpus.retrieve("dense", query, [], 5) == []
    ranked = corpus.rank_ehr(subjects[0], 5, Weights())
    assert subjects[0] not in ranked
    assert len(ranked) <= 5


def test_two_runs_give_equal_numbers(questions: list[DischargeQuestion], experience: Experience) -> None:
    sample = questions[::3]  # every task and both splits, a third of the time
    first = rows(run_extractive(sample, experience, CONFIGS))
    second = rows(run_extractive(sample, experience, CONFIGS))
    assert [(r.config, r.split, r.task, r.accuracy, r.f1) for r in first] == [
        (r.config, r.split, r.task, r.accuracy, r.f1) for r in second
    ]
    assert {r.config for r in first} == {c.label for c in CONFIGS}
    table = markdown(first)
    assert table.count("\n") == len(CONFIGS) + 1
    body = report(None, None, questions, 1.0)
    assert sum(body["questions"].values()) == len(questions)  # type: ignore[union-attr]


def test_the_metrics_are_the_papers() -> None:
    assert exact((1, 2), (2, 1))
    assert not exact((1,), (1, 2))
    assert f1((1,), (1, 2)) == pytest.approx(2 / 3)
    assert f1((3,), (1, 2)) == 0.0


def test_a_missing_demo_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["eval", "discharge", "--demo", str(tmp_path), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert "no demo cohort and nodes here" in result.output
    bad = CliRunner().invoke(app, ["eval", "discharge", "--readers", "gpt", "--out", str(tmp_path / "o")])
    assert bad.exit_code == 2
    assert "--readers takes extractive, local or both" in bad.output
