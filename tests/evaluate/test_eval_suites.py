"""The evaluation suites: every suite registered in both sizes, the docstring examples, and the suites that need no
cohort (calculators, literature) in a small version run twice — equal numbers — with the figures they exist to
report. The suites over the demo cohort are tested the same way in tests/federation/test_eval_suites.py, on the
federation tests' demo."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

from clinrag.evaluate.suites import Suite, SuiteContext, make, names
from clinrag.evaluate.suites.calculators import CalculatorsSuite
from clinrag.evaluate.suites.literature import LiteratureSuite

from .suite_checks import SETTINGS, twice

MODULES = [
    "clinrag.evaluate.suites",
    *(
        f"clinrag.evaluate.suites.{name}"
        for name in (
            "base",
            "context",
            "plots",
            "run",
            "report",
            "compare",
            "registry",
            "answering",
            "retrieval",
            "answers",
            "safety",
            "calculators",
            "discharge",
            "literature",
            "population",
            "trend",
            "grid",
        )
    ),
    "clinrag.evaluate.literature",
    "clinrag.evaluate.trend",
    "clinrag.evaluate.grid",
]


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples_run(module: str) -> None:
    outcome = doctest.testmod(importlib.import_module(module))
    assert outcome.failed == 0


def test_every_suite_of_the_issue_is_registered_in_both_sizes() -> None:
    assert names()[:7] == ["retrieval", "answers", "safety", "calculators", "discharge", "literature", "population"]
    for name in names():
        assert make(name).name == make(name, quick=True).name == name
        assert isinstance(make(name, quick=True), Suite)


def test_calculators_need_no_cohort(tmp_path: Path) -> None:
    context = SuiteContext(tmp_path / "no-demo", tmp_path / "work", SETTINGS, seed=0)
    result = twice(CalculatorsSuite(seeds=2, names=("bmi", "curb_65", "cha2ds2_vasc")), context)
    assert result.metric("vignettes") == 24
    assert result.metric("value_accuracy") >= 0.9
    assert result.metric("question_only_accuracy") < result.metric("value_accuracy")
    assert result.metric("value_accuracy/missing") == result.metric("missing_detected")


def test_literature_filters_help(tmp_path: Path) -> None:
    context = SuiteContext(tmp_path / "no-demo", tmp_path / "work", SETTINGS, seed=0)
    result = twice(LiteratureSuite(citations=150, questions=10, modes=("bm25", "hybrid")), context)
    assert result.metric("questions") == 10
    assert result.metric("with_filters/hybrid/recall_at_10") >= result.metric("plain/hybrid/recall_at_10")
