"""Calculation vignettes (issue 19): every calculator covered, the four kinds written as they say, deterministic
for a seed, and scored against the truth."""

from __future__ import annotations

import dataclasses
import doctest

from clinrag.calculators.registry import registry
from clinrag.evaluate import calc_vignettes
from clinrag.evaluate.calc_vignettes import answer_vignette, build_vignettes, score


def test_every_calculator_has_vignettes_and_there_are_at_least_200() -> None:
    vignettes = build_vignettes(seed=0)
    assert len(vignettes) >= 200
    assert {v.calculator for v in vignettes} == set(registry())
    assert {v.kind for v in vignettes} == {"complete", "units", "distracting", "missing"}


def test_the_kinds_are_what_they_say() -> None:
    for vignette in build_vignettes(seed=3, names=("cha2ds2_vasc", "bmi", "cockcroft_gault", "ckd_epi_2021")):
        if vignette.kind == "missing":
            assert vignette.value is None
            assert vignette.missing not in vignette.stated
        else:
            assert vignette.value is not None
        if vignette.kind == "distracting" and vignette.older_note:
            assert vignette.older_note not in vignette.note
        assert vignette.question.rstrip("?.").endswith("for this patient")  # the question never gives a value


def test_a_missing_input_is_named_and_nothing_computed() -> None:
    (missing,) = [v for v in build_vignettes(seed=1, names=("bmi",)) if v.kind == "missing"]
    outcome = answer_vignette(missing)
    assert outcome.calculation is not None
    assert outcome.calculation.value is None
    assert missing.missing in outcome.calculation.missing
    assert outcome.value_right


def test_the_most_recent_value_wins_and_the_conflict_is_listed() -> None:
    (distracting,) = [v for v in build_vignettes(seed=2, names=("ckd_epi_2021",)) if v.kind == "distracting"]
    assert distracting.older_note
    outcome = answer_vignette(distracting)
    assert outcome.value_right
    assert outcome.calculation is not None
    assert outcome.calculation.conflicts


def test_two_runs_give_equal_figures() -> None:
    names = ("cha2ds2_vasc", "has_bled", "meld_na", "curb_65", "wells_pe", "estimated_due_date")
    first = dataclasses.asdict(score(build_vignettes(seed=5, names=names)))
    second = dataclasses.asdict(score(build_vignettes(seed=5, names=names)))
    first.pop("latency_ms"), second.pop("latency_ms")
    assert first == second
    assert first["vignettes"] == 4 * len(names)


def test_the_module_examples_hold() -> None:
    outcome = doctest.testmod(calc_vignettes)
    assert outcome.attempted > 0
    assert outcome.failed == 0
