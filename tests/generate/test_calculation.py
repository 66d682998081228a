"""Calculators in questions (issue 19): the calculator a question asks for, inputs read from its words, nothing
guessed, refusals said."""

from __future__ import annotations

import doctest

import pytest

from clinrag.calculators.registry import registry
from clinrag.generate import calc_inputs, calculation
from clinrag.generate.calculation import answer_calculation, find_calculator
from clinrag.generate.planner import Planner
from clinrag.population.vocabulary import Vocabulary


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("What is the CHA2DS2-VASc score of a 72-year-old woman with hypertension?", "cha2ds2_vasc"),
        ("Calculate the BMI for 80 kg and 180 cm", "bmi"),
        ("What is the stroke risk in AF for a 70 year old man?", "cha2ds2_vasc"),
        ("Cockcroft-Gault for a 60 year old man, 70 kg, creatinine 1.2", "cockcroft_gault"),
    ],
)
def test_the_calculator_is_found_by_name_synonym_or_indication(question: str, name: str) -> None:
    found = find_calculator(question, registry().values())
    assert found is not None
    assert found.calculator.name == name


@pytest.mark.parametrize(
    "question",
    ["What was Ada Stone discharged on?", "Tell me about atrial fibrillation", "Who had a stroke?"],
)
def test_nothing_is_forced_below_the_threshold(question: str) -> None:
    assert find_calculator(question, registry().values()) is None


def test_a_complete_question_is_computed_with_every_input_said() -> None:
    question = "CHA2DS2-VASc for a 72-year-old woman with hypertension and no diabetes"
    answer, calc = answer_calculation(question, registry()["cha2ds2_vasc"])
    assert calc.value == 3
    assert calc.missing == ()
    origins = {i.name: i.origin for i in calc.inputs}
    assert origins["age"] == "given"
    assert origins["hypertension"] == "given"
    assert "defaulted" in origins.values()  # criteria not stated count as absent, by the score's own rule
    assert answer.text.startswith("CHA₂DS₂-VASc") or answer.text.startswith("CHA2DS2-VASc")
    assert "Formula:" in answer.text


def test_a_missing_measurement_is_asked_for_never_guessed() -> None:
    answer, calc = answer_calculation("What is the BMI of a man weighing 80 kg?", registry()["bmi"])
    assert calc.value is None
    assert calc.missing == ("height",)
    assert "needs height (cm)" in answer.text
    assert "nothing was guessed" in answer.text
    assert answer.support == 0.0


def test_an_implausible_value_is_refused_naming_it() -> None:
    answer, calc = answer_calculation("BMI for weight 900 kg, height 170 cm", registry()["bmi"])
    assert calc.value is None
    assert "weight (body weight) = 900 is outside 0.5 to 400 kg" in calc.refused
    assert "cannot be computed" in answer.text


def test_units_in_the_question_are_converted() -> None:
    _, calc = answer_calculation("BMI of a woman, 154 lb, 5 ft 6 in", registry()["bmi"])
    assert calc.value == pytest.approx(24.9, abs=0.05)


def test_the_planner_routes_calculations_first() -> None:
    planner = Planner(Vocabulary.build(), detect_persons=False)
    assert planner.plan("What is the CHA2DS2-VASc score of patient 10000032?").destinations == ("calculator", "records")
    assert planner.plan("BMI for 80 kg and 180 cm?").route == "calculator"
    assert planner.plan("How many patients had a stroke?").route == "population"


def test_the_modules_examples_hold() -> None:
    for module in (calc_inputs, calculation):
        outcome = doctest.testmod(module)
        assert outcome.attempted > 0
        assert outcome.failed == 0


def test_the_calculators_own_words_are_not_read_as_inputs() -> None:
    # "175" in the MDRD title is not a creatinine; "unstable angina" in TIMI's title is not the patient's angina
    mdrd = registry()["mdrd_gfr"]
    _, calc = answer_calculation(f"What is the {mdrd.title} for this patient?", mdrd)
    assert "creatinine" in calc.missing
    assert calc.refused == ""
    timi = registry()["timi_ua_nstemi"]
    _, calc = answer_calculation(f"What is the {timi.title} for a 70 year old?", timi)
    assert {i.name: i.origin for i in calc.inputs}.get("severe_angina") != "given"


def test_a_short_acronym_that_is_a_word_is_matched_in_capitals_only() -> None:
    found = find_calculator("Calculate the 10-year coronary heart disease risk for this patient.", registry().values())
    assert found is not None
    assert found.calculator.name == "framingham_chd"
    heart = find_calculator("What is the HEART score for this chest pain?", registry().values())
    assert heart is not None
    assert heart.calculator.name == "heart_score"


def test_a_negation_reaches_the_words_after_it() -> None:
    has_bled = registry()["has_bled"]
    question = "HAS-BLED for a 70 year old with no prior major bleeding or predisposition to bleeding"
    _, calc = answer_calculation(question, has_bled)
    assert {i.name: i.value for i in calc.inputs}["bleeding"] is False


@pytest.mark.parametrize(
    "question",
    ["Cohort studies published in Ann Intern Med in 2003?", "Did the scan map the lesion?", "Any change to his meds?"],
)
def test_a_short_name_that_is_a_word_counts_only_in_capitals(question: str) -> None:
    assert find_calculator(question, registry().values()) is None
    assert find_calculator("What is the MAP for BP 120/80?", registry().values()) is not None
