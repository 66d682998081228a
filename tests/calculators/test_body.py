"""Dosing weights (issue 19): ideal and adjusted body weight, target weight — and BMI and BSA (anthropometry) —
against their sources' worked examples and, differentially, against the independent medcalc-bench package."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from clinrag.calculators.anthropometry import BMI, BSA
from clinrag.calculators.body import ADJUSTED_BODY_WEIGHT, IBW, TARGET_WEIGHT
from clinrag.calculators.spec import CalculatorInputError

CASES = 200


def _target_weight_explanation() -> Callable[[dict[str, Any]], dict[str, Any]]:
    """medcalc-bench's target weight. Its target_weight.py imports ``convert_height_to_target_unit_explanation``,
    which its utils do not define (ImportError, a packaging error of medcalc-bench 1.7.0); the upstream
    MedCalc-Bench target_weight.py calls ``height_conversion_explanation`` (height in metres), so that name is
    supplied before the import."""
    from medcalc.utils import height_conversion

    if not hasattr(height_conversion, "convert_height_to_target_unit_explanation"):
        height_conversion.convert_height_to_target_unit_explanation = height_conversion.height_conversion_explanation
    from medcalc.target_weight import targetweight_explanation

    return targetweight_explanation  # type: ignore[no-any-return]


# --- worked examples -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sex", "height", "expected"),
    [
        # Devine 1974: 50 kg (men) or 45.5 kg (women) at five feet, plus 2.3 kg per inch over five feet.
        ("male", "72 in", 77.6),  # 50 + 2.3 × 12
        ("female", "64 in", 54.7),  # 45.5 + 2.3 × 4
        ("male", "60 in", 50.0),  # five feet: the base weight
        ("female", "5 ft", 45.5),
        ("male", "70 in", 73.0),  # the gentamicin teaching example: 50 + 2.3 × 10
    ],
)
def test_ideal_body_weight_devine(sex: str, height: str, expected: float) -> None:
    assert IBW.run({"sex": sex, "height": height}).value == pytest.approx(expected, abs=1e-6)


def test_adjusted_body_weight_worked_example() -> None:
    # The standard aminoglycoside example of the 0.4 factor (Bauer 1983): a man of 70 in and 190 kg has an IBW of
    # 73 kg and an adjusted weight of 73 + 0.4 × (190 − 73) = 119.8 kg.
    result = ADJUSTED_BODY_WEIGHT.run({"sex": "male", "height": "70 in", "weight": 190})
    assert result.value == pytest.approx(119.8, abs=1e-6)
    assert result.steps[-1].startswith("adjusted body weight = IBW + 0.4 × (actual weight − IBW) = 73.0 kg")


def test_adjusted_body_weight_below_ideal_is_flagged() -> None:
    result = ADJUSTED_BODY_WEIGHT.run({"sex": "female", "height": 165, "weight": 50})
    assert result.value is not None
    assert result.value == pytest.approx(50 + 0.6 * (45.5 + 2.3 * (165 / 2.54 - 60) - 50), abs=1e-3)
    assert "is not above the ideal weight" in result.steps[-1]


def test_target_weight_is_bmi_times_height_squared() -> None:
    # BMI = weight / height² (WHO 2000) solved for the weight: 22 kg/m² at 1.75 m is 67.375 kg.
    assert TARGET_WEIGHT.run({"target_bmi": 22, "height": 175}).value == pytest.approx(67.375, abs=1e-9)
    assert TARGET_WEIGHT.run({"target_bmi": 25, "height": "2 m"}).value == pytest.approx(100.0)


def test_bmi_and_bsa_worked_examples() -> None:
    # WHO 2000: 70 kg at 1.75 m is 22.9 kg/m², normal weight. Mosteller 1987: √(cm × kg / 3600); 180 cm, 80 kg →
    # √4 = 2.00 m².
    bmi = BMI.run({"weight": 70, "height": 175})
    assert bmi.value == pytest.approx(22.857, abs=1e-3)
    assert bmi.interpretation is not None
    assert bmi.interpretation.label == "normal weight"
    assert BSA.run({"weight": 80, "height": 180}).value == pytest.approx(2.0)


# --- refusals, missing inputs, units ---------------------------------------------------------------------------


def test_out_of_range_inputs_are_refused_by_name() -> None:
    with pytest.raises(CalculatorInputError, match=r"height \(height\) = 100 is outside 120 to 250 cm"):
        IBW.run({"sex": "male", "height": 100})
    with pytest.raises(CalculatorInputError, match=r"^weight \(body weight\) = 500 is outside"):
        ADJUSTED_BODY_WEIGHT.run({"sex": "male", "height": 170, "weight": 500})
    with pytest.raises(CalculatorInputError, match=r"target_bmi \(target body mass index\) = 80 is outside 10 to 60"):
        TARGET_WEIGHT.run({"target_bmi": 80, "height": 170})
    with pytest.raises(CalculatorInputError, match=r"sex \(sex\) is one of male, female, not 'other'"):
        IBW.run({"sex": "other", "height": 170})


def test_missing_inputs_are_reported_not_guessed() -> None:
    assert IBW.run({"height": 170}).missing == ("sex",)
    result = ADJUSTED_BODY_WEIGHT.run({"sex": "female"})
    assert result.value is None
    assert result.missing == ("height", "weight")
    assert TARGET_WEIGHT.run({"height": 170}).missing == ("target_bmi",)


def test_units_are_converted() -> None:
    # 5 ft 10 in = 70 in = 177.8 cm; 419 lb × 0.45359237 kg/lb = 190.055 kg (to the gram)
    assert IBW.run({"sex": "male", "height": "177.8 cm"}).value == pytest.approx(73.0, abs=1e-3)
    result = ADJUSTED_BODY_WEIGHT.run({"sex": "male", "height": "70 in", "weight": "419 lb"})
    assert result.inputs[2].value == 190.055
    assert result.value == pytest.approx(73 + 0.4 * (190.055 - 73), abs=1e-9)
    assert TARGET_WEIGHT.run({"target_bmi": "22 kg/m**2", "height": "1.75 m"}).value == pytest.approx(67.375)


# --- differential tests against medcalc-bench ------------------------------------------------------------------


def _sexes_heights(seed: int) -> list[tuple[str, float]]:
    rng = random.Random(seed)
    return [(rng.choice(("male", "female")), round(rng.uniform(140, 210), 1)) for _ in range(CASES)]


def test_ideal_body_weight_matches_medcalc() -> None:
    from medcalc.ideal_body_weight import ibw_explanation

    for sex, height in _sexes_heights(19):
        ours = IBW.run({"sex": sex, "height": height}).value
        theirs = ibw_explanation({"height": (height, "cm"), "sex": sex.capitalize()})["Answer"]
        # medcalc rounds the height in inches to 3 decimals (× 2.3 kg/in ≤ 0.0012 kg) and the answer to 3 decimals
        assert theirs == pytest.approx(ours, abs=2e-3), (sex, height)


def test_adjusted_body_weight_matches_medcalc() -> None:
    from medcalc.adjusted_body_weight import abw_explanation

    rng = random.Random(1983)
    for sex, height in _sexes_heights(20):
        weight = round(rng.uniform(40, 250), 1)
        ours = ADJUSTED_BODY_WEIGHT.run({"sex": sex, "height": height, "weight": weight}).value
        theirs = abw_explanation({"weight": (weight, "kg"), "height": (height, "cm"), "sex": sex.capitalize()})
        # the same rounding of the height in inches, then of the IBW and of the answer to 3 decimals
        assert theirs["Answer"] == pytest.approx(ours, abs=2e-3), (sex, height, weight)


def test_target_weight_matches_medcalc() -> None:
    explanation = _target_weight_explanation()
    rng = random.Random(2000)
    for _ in range(CASES):
        bmi, height = round(rng.uniform(16, 40), 1), round(rng.uniform(140, 210), 1)
        ours = TARGET_WEIGHT.run({"target_bmi": bmi, "height": height}).value
        theirs = explanation({"body_mass_index": (bmi, "kg/m^2"), "height": (height, "cm")})["Answer"]
        assert theirs == pytest.approx(ours, abs=5e-4 + 1e-9), (bmi, height)


def test_target_weight_medcalc_rounds_the_height_before_squaring() -> None:
    # Documented disagreement: medcalc rounds a height in inches to whole millimetres (72 in → 1.829 m) before
    # squaring; clinrag converts exactly (1.8288 m). 20.1 × 1.8288² = 67.225 kg, not 67.239.
    theirs = _target_weight_explanation()({"body_mass_index": (20.1, "kg/m^2"), "height": (72, "in")})["Answer"]
    ours = TARGET_WEIGHT.run({"target_bmi": 20.1, "height": "72 in"}).value
    assert theirs == 67.239
    assert ours == pytest.approx(20.1 * 1.8288**2, abs=1e-9)
    assert round(ours, 3) == 67.225


def test_bmi_matches_medcalc() -> None:
    from medcalc.bmi_calculator import bmi_calculator_explanation

    rng = random.Random(894)
    for _ in range(CASES):
        weight, height = round(rng.uniform(30, 200), 1), round(rng.uniform(140, 210), 1)
        ours = BMI.run({"weight": weight, "height": height}).value
        theirs = bmi_calculator_explanation({"weight": (weight, "kg"), "height": (height, "cm")})["Answer"]
        assert theirs == pytest.approx(ours, abs=5e-4 + 1e-9), (weight, height)


def test_bsa_matches_medcalc() -> None:
    from medcalc.bsa_calculator import bsa_calculator_explaination

    rng = random.Random(1987)
    for _ in range(CASES):
        weight, height = round(rng.uniform(3, 200), 1), round(rng.uniform(50, 210), 1)
        ours = BSA.run({"weight": weight, "height": height}).value
        theirs = bsa_calculator_explaination({"weight": (weight, "kg"), "height": (height, "cm")})["Answer"]
        assert theirs == pytest.approx(ours, abs=5e-4 + 1e-9), (weight, height)


def test_bmi_in_pounds_and_inches_matches_medcalc() -> None:
    # medcalc converts with 0.453592 kg/lb and 0.0254 m/in rounded to 3 decimals; clinrag through pint
    from medcalc.bmi_calculator import bmi_calculator_explanation

    theirs = bmi_calculator_explanation({"weight": (154, "lbs"), "height": (70, "in")})["Answer"]
    assert theirs == 22.096
    assert BMI.run({"weight": "154 lb", "height": "70 in"}).value == pytest.approx(22.096, abs=5e-4)
