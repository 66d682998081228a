"""Electrolytes, lipids and metabolism (issue 19): each calculator against its source's formula and worked examples
and, differentially, against the independent medcalc-bench package (its known errors kept as documented, expected
disagreements)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import pytest
from medcalc.albumin_corrected_anion import compute_albumin_corrected_anion_explanation
from medcalc.albumin_corrected_delta_gap import compute_albumin_corrected_delta_gap_explanation
from medcalc.albumin_delta_ratio import compute_albumin_delta_ratio_explanation
from medcalc.anion_gap import compute_anion_gap_explanation
from medcalc.calcium_correction import calculate_corrected_calcium_explanation
from medcalc.delta_gap import compute_delta_gap_explanation
from medcalc.free_water_deficit import free_water_deficit_explanation
from medcalc.homa_ir import compute_homa_ir_explanation
from medcalc.ldl_calculated import compute_ldl_explanation
from medcalc.maintenance_fluid_calc import maintenance_fluid_explanation
from medcalc.sch import compute_sodium_correction_hyperglycemia_explanation
from medcalc.sOsm import compute_serum_osmolality_explanation

from clinrag.calculators.chemistry import (
    ALBUMIN_CORRECTED_ANION_GAP,
    ALBUMIN_CORRECTED_DELTA_GAP,
    ALBUMIN_CORRECTED_DELTA_RATIO,
    ANION_GAP,
    CORRECTED_CALCIUM,
    DELTA_GAP,
    DELTA_RATIO,
    FREE_WATER_DEFICIT,
    HOMA_IR,
    LDL_FRIEDEWALD,
    MAINTENANCE_FLUIDS,
    SERUM_OSMOLALITY,
    SODIUM_CORRECTION,
)
from clinrag.calculators.spec import Calculator, CalculatorInputError

CASES = 200


def _agrees(ours: float, theirs: float) -> bool:
    """medcalc-bench's `round_number` keeps 3 decimals above 0.001 but 3 significant digits otherwise — negative
    values included (−10.25 → −10.2), on intermediates too (a delta gap before it is divided). Positive values
    agree within a few thousandths; negative ones within 1% (two roundings to 3 significant digits)."""
    if theirs > 0.001:
        return math.isclose(ours, theirs, rel_tol=1e-4, abs_tol=2e-3)
    return math.isclose(ours, theirs, rel_tol=1e-2, abs_tol=2e-3)


def _value(calculator: Calculator, given: dict[str, Any]) -> float:
    value = calculator.run(given).value
    assert value is not None
    return value


def _label(calculator: Calculator, given: dict[str, Any]) -> str:
    band = calculator.run(given).interpretation
    assert band is not None
    return band.label


# --- worked examples -------------------------------------------------------------------------------------------

HIGH_GAP = {"sodium": 140, "chloride": 100, "bicarbonate": 14}


def test_anion_gap_and_delta_worked_example() -> None:
    # Emmett & Narins 1977: AG = Na − (Cl + HCO3) = 140 − (100 + 14) = 26 mEq/L (elevated, above 3-11).
    # Wrenn 1990: delta gap = AG − 12 = 14. Rastegar 2007: delta ratio = 14 / (24 − 14) = 1.4, a pure high anion
    # gap acidosis (0.8-2.0).
    assert _value(ANION_GAP, HIGH_GAP) == 26.0
    assert _label(ANION_GAP, HIGH_GAP) == "elevated"
    assert _value(DELTA_GAP, HIGH_GAP) == 14.0
    assert _value(DELTA_RATIO, HIGH_GAP) == pytest.approx(1.4)
    assert _label(DELTA_RATIO, HIGH_GAP) == "high anion gap acidosis"


@pytest.mark.parametrize(
    ("bicarbonate", "chloride", "label"),
    [
        # Rastegar 2007's bands, with Na 140 and the chloride chosen for the ratio:
        (14, 112, "hyperchloraemic acidosis"),  # AG 14: (14 − 12)/10 = 0.2
        (14, 108, "mixed acidosis"),  # AG 18: 6/10 = 0.6
        (14, 90, "with metabolic alkalosis"),  # AG 36: 24/10 = 2.4
    ],
)
def test_delta_ratio_bands(bicarbonate: int, chloride: int, label: str) -> None:
    assert _label(DELTA_RATIO, {"sodium": 140, "chloride": chloride, "bicarbonate": bicarbonate}) == label


def test_albumin_corrected_anion_gap_figge() -> None:
    # Figge 1998: adjusted AG = AG + 2.5 × (normal − observed albumin, g/dL). AG 10 (140 − 106 − 24) with albumin
    # 2.0 g/dL → 10 + 2.5 × 2 = 15 mEq/L: a gap acidosis the low albumin hid.
    given = {"sodium": 140, "chloride": 106, "bicarbonate": 24, "albumin": 2.0}
    assert _value(ALBUMIN_CORRECTED_ANION_GAP, given) == 15.0
    assert _label(ALBUMIN_CORRECTED_ANION_GAP, given) == "elevated"
    assert _label(ANION_GAP, {"sodium": 140, "chloride": 106, "bicarbonate": 24}) == "normal"
    # The corrected delta gap and delta ratio follow: 15 − 12 = 3; with HCO3 14 and AG 26 + 5 = 31: 19 / 10.
    assert _value(ALBUMIN_CORRECTED_DELTA_GAP, given) == 3.0
    assert _value(ALBUMIN_CORRECTED_DELTA_RATIO, HIGH_GAP | {"albumin": 2.0}) == pytest.approx(1.9)


def test_corrected_calcium_payne() -> None:
    # Payne 1973 in its common form: Ca + 0.8 × (4.0 − albumin). Ca 8.0 mg/dL, albumin 2.0 g/dL → 9.6 mg/dL.
    assert _value(CORRECTED_CALCIUM, {"calcium": 8.0, "albumin": 2.0}) == pytest.approx(9.6)
    assert _label(CORRECTED_CALCIUM, {"calcium": 8.0, "albumin": 2.0}) == "normal"
    assert _label(CORRECTED_CALCIUM, {"calcium": 7.0, "albumin": 3.5}) == "low"  # 7.4
    assert _label(CORRECTED_CALCIUM, {"calcium": 10.5, "albumin": 4.0}) == "normal"  # the upper limit itself
    assert _label(CORRECTED_CALCIUM, {"calcium": 10.6, "albumin": 4.0}) == "high"


def test_serum_osmolality_worked_example() -> None:
    # 2 × Na + BUN/2.8 + glucose/18: Na 140, BUN 14, glucose 90 → 280 + 5 + 5 = 290 mOsm/kg (normal 275-295).
    given = {"sodium": 140, "bun": 14, "glucose": 90}
    assert _value(SERUM_OSMOLALITY, given) == pytest.approx(290.0)
    assert _label(SERUM_OSMOLALITY, given) == "normal"


@pytest.mark.parametrize(
    ("age", "sex", "weight", "sodium", "expected"),
    [
        # Adrogué & Madias 2000: deficit = TBW fraction × weight × (Na/140 − 1).
        (40, "male", 70, 154, 0.6 * 70 * 0.1),  # 4.2 L
        (40, "female", 60, 161, 0.5 * 60 * 0.15),  # 4.5 L
        (80, "male", 70, 154, 0.5 * 70 * 0.1),  # elderly man: 3.5 L
        (80, "female", 50, 168, 0.45 * 50 * 0.2),  # elderly woman: 4.5 L
        (10, "female", 30, 147, 0.6 * 30 * 0.05),  # child: 0.9 L
    ],
)
def test_free_water_deficit_adrogue_madias(age: int, sex: str, weight: float, sodium: int, expected: float) -> None:
    given = {"age": age, "sex": sex, "weight": weight, "sodium": sodium}
    assert _value(FREE_WATER_DEFICIT, given) == pytest.approx(expected)


def test_sodium_correction_hillier() -> None:
    # Hillier 1999: 2.4 mEq/L per 100 mg/dL of glucose over 100. Na 130, glucose 600 → 130 + 2.4 × 5 = 142;
    # Katz 1973's 1.6 would give 138 (shown in the steps).
    result = SODIUM_CORRECTION.run({"sodium": 130, "glucose": 600})
    assert result.value == pytest.approx(142.0)
    assert result.interpretation is not None
    assert result.interpretation.label == "normal"
    assert "For comparison, Katz's 1.6 per 100 mg/dL would give 130 + 0.016 × (600 − 100) = 138.0" in result.steps


def test_ldl_friedewald_worked_example() -> None:
    # Friedewald 1972: LDL = TC − HDL − TG/5. TC 200, HDL 50, TG 150 → 120 mg/dL (ATP III: near optimal).
    given = {"total_cholesterol": 200, "hdl": 50, "triglycerides": 150}
    assert _value(LDL_FRIEDEWALD, given) == pytest.approx(120.0)
    assert _label(LDL_FRIEDEWALD, given) == "near or above optimal"


def test_homa_ir_matthews() -> None:
    # Matthews 1985: insulin (µU/mL) × glucose (mmol/L) / 22.5. Insulin 10, glucose 5 mmol/L = 90 mg/dL → 2.22.
    assert _value(HOMA_IR, {"insulin": 10, "glucose": 90}) == pytest.approx(900 / 405)
    assert _value(HOMA_IR, {"insulin": 10, "glucose": "5 mmol/L"}) == pytest.approx(10 * 5 / 22.5, rel=1e-3)


@pytest.mark.parametrize(
    ("weight", "expected"),
    [
        # Holliday & Segar 1957, hourly 4-2-1: 4 mL/kg/h to 10 kg, 2 to 20 kg, 1 above.
        (8, 32.0),
        (10, 40.0),
        (15, 50.0),
        (25, 65.0),
        (70, 110.0),
    ],
)
def test_maintenance_fluids_holliday_segar(weight: float, expected: float) -> None:
    assert _value(MAINTENANCE_FLUIDS, {"weight": weight}) == expected


# --- refusals, missing inputs, units -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("calculator", "given", "named"),
    [
        (ANION_GAP, {"sodium": 250, "chloride": 100, "bicarbonate": 24}, "sodium"),
        (CORRECTED_CALCIUM, {"calcium": 9, "albumin": 12}, "albumin"),
        (SERUM_OSMOLALITY, {"sodium": 140, "bun": 14, "glucose": 5000}, "glucose"),
        (FREE_WATER_DEFICIT, {"age": 150, "sex": "male", "weight": 70, "sodium": 150}, "age"),
        (HOMA_IR, {"insulin": 0, "glucose": 90}, "insulin"),
    ],
)
def test_out_of_range_is_refused_naming_the_input(calculator: Calculator, given: dict[str, Any], named: str) -> None:
    with pytest.raises(CalculatorInputError, match=rf"^{named} "):
        calculator.run(given)


def test_contradictions_and_inapplicable_inputs_are_refused() -> None:
    with pytest.raises(CalculatorInputError, match=r"hdl .* is above total_cholesterol"):
        LDL_FRIEDEWALD.run({"total_cholesterol": 150, "hdl": 160, "triglycerides": 100})
    with pytest.raises(CalculatorInputError, match=r"triglycerides .* above 400 mg/dL"):
        LDL_FRIEDEWALD.run({"total_cholesterol": 250, "hdl": 40, "triglycerides": 450})
    no_acidosis = {"sodium": 140, "chloride": 100, "bicarbonate": 24}
    for calculator, given in (
        (DELTA_RATIO, no_acidosis),
        (ALBUMIN_CORRECTED_DELTA_RATIO, no_acidosis | {"albumin": 4}),
    ):
        with pytest.raises(CalculatorInputError, match=r"^bicarbonate \(24 mEq/L\) is not below"):
            calculator.run(given)
    with pytest.raises(CalculatorInputError, match=r"^insulin .*cannot express pmol/L"):
        HOMA_IR.run({"insulin": "60 pmol/L", "glucose": 90})


def test_missing_required_inputs_are_reported_not_guessed() -> None:
    assert ANION_GAP.run({"sodium": 140, "chloride": 100}).missing == ("bicarbonate",)
    assert ALBUMIN_CORRECTED_ANION_GAP.run({"sodium": 140, "chloride": 100, "bicarbonate": 20}).missing == ("albumin",)
    result = FREE_WATER_DEFICIT.run({"weight": 70, "sodium": 150})
    assert (result.value, result.missing) == (None, ("age", "sex"))


def test_inputs_in_other_units_are_converted() -> None:
    # Albumin 25 g/L = 2.5 g/dL; calcium 2.0 mmol/L = 8.016 mg/dL (40.08 g/mol); glucose 5 mmol/L = 90.08 mg/dL;
    # urea 5 mmol/L = BUN 14.01 mg/dL; cholesterol 5.2 mmol/L = 201.06 mg/dL; triglycerides 2.0 mmol/L = 177.14 mg/dL
    # (triolein, 885.7 g/mol); sodium in mmol/L = mEq/L; insulin 10 mU/L = 10 µU/mL.
    corrected = CORRECTED_CALCIUM.run({"calcium": "2.0 mmol/L", "albumin": "25 g/L"})
    assert [used.value for used in corrected.inputs] == [8.016, 2.5]
    assert corrected.value == pytest.approx(8.016 + 0.8 * 1.5)
    osmolality = SERUM_OSMOLALITY.run({"sodium": "140 mmol/L", "bun": "5 mmol/L", "glucose": "5 mmol/L"})
    assert [used.value for used in osmolality.inputs] == [140.0, 14.01, 90.08]
    ldl = LDL_FRIEDEWALD.run({"total_cholesterol": "5.2 mmol/L", "hdl": "1.3 mmol/L", "triglycerides": "2 mmol/L"})
    assert ldl.value == pytest.approx(201.058 - 50.264 - 177.14 / 5)
    assert _value(HOMA_IR, {"insulin": "10 mU/L", "glucose": 90}) == pytest.approx(900 / 405)


# --- differential test against medcalc-bench ---------------------------------------------------------------------


def _mc(given: dict[str, Any], units: dict[str, str]) -> dict[str, Any]:
    return {key: (value, units[key]) for key, value in given.items()}


ELECTROLYTE_UNITS = {"sodium": "mEq/L", "chloride": "mEq/L", "bicarbonate": "mEq/L", "albumin": "g/dL"}


def _electrolytes(rng: random.Random, *, acidosis: bool = False, albumin: bool = False) -> dict[str, Any]:
    given: dict[str, Any] = {
        "sodium": rng.randint(120, 160),
        "chloride": rng.randint(80, 125),
        "bicarbonate": rng.randint(4, 23) if acidosis else rng.randint(4, 40),
    }
    if albumin:
        given["albumin"] = round(rng.uniform(1.0, 5.5), 1)
    return given


Medcalc = Callable[[dict[str, Any]], dict[str, Any]]

ELECTROLYTE_CASES: list[tuple[Calculator, Medcalc, bool, bool]] = [
    (ANION_GAP, compute_anion_gap_explanation, False, False),
    (DELTA_GAP, compute_delta_gap_explanation, False, False),
    (ALBUMIN_CORRECTED_ANION_GAP, compute_albumin_corrected_anion_explanation, False, True),
    (ALBUMIN_CORRECTED_DELTA_GAP, compute_albumin_corrected_delta_gap_explanation, False, True),
    (ALBUMIN_CORRECTED_DELTA_RATIO, compute_albumin_delta_ratio_explanation, True, True),
]


@pytest.mark.parametrize(("calculator", "medcalc", "acidosis", "albumin"), ELECTROLYTE_CASES)
def test_electrolytes_against_medcalc(calculator: Calculator, medcalc: Medcalc, acidosis: bool, albumin: bool) -> None:
    rng = random.Random(calculator.name)
    for _ in range(CASES):
        given = _electrolytes(rng, acidosis=acidosis, albumin=albumin)
        theirs = medcalc(_mc(given, ELECTROLYTE_UNITS))["Answer"]
        assert _agrees(_value(calculator, given), theirs), given


def test_delta_ratio_against_medcalc_with_normal_albumin() -> None:
    # medcalc-bench has no plain delta ratio; its albumin-corrected one with albumin 4.0 g/dL (no correction) is it.
    rng = random.Random("delta_ratio")
    for _ in range(CASES):
        given = _electrolytes(rng, acidosis=True)
        theirs = compute_albumin_delta_ratio_explanation(_mc(given | {"albumin": 4.0}, ELECTROLYTE_UNITS))["Answer"]
        assert _agrees(_value(DELTA_RATIO, given), theirs), given


def test_corrected_calcium_against_medcalc() -> None:
    rng = random.Random("corrected_calcium")
    for _ in range(CASES):
        given = {"calcium": round(rng.uniform(4, 15), 1), "albumin": round(rng.uniform(1, 5.5), 1)}
        theirs = calculate_corrected_calcium_explanation(_mc(given, {"calcium": "mg/dL", "albumin": "g/dL"}))
        assert _agrees(_value(CORRECTED_CALCIUM, given), theirs["Answer"]), given


def test_serum_osmolality_against_medcalc() -> None:
    rng = random.Random("serum_osmolality")
    units = {"sodium": "mEq/L", "bun": "mg/dL", "glucose": "mg/dL"}
    for _ in range(CASES):
        given = {
            "sodium": rng.randint(110, 175),
            "bun": round(rng.uniform(3, 150), 1),
            "glucose": rng.randint(40, 1500),
        }
        theirs = compute_serum_osmolality_explanation(_mc(given, units))["Answer"]
        assert _agrees(_value(SERUM_OSMOLALITY, given), theirs), given


def test_free_water_deficit_against_medcalc() -> None:
    rng = random.Random("free_water_deficit")
    for _ in range(CASES):
        age, sex = rng.randint(0, 100), rng.choice(["male", "female"])
        weight, sodium = round(rng.uniform(5, 150), 1), rng.randint(130, 180)
        params = {
            "age": (age, "years"),
            "sex": sex.capitalize(),
            "weight": (weight, "kg"),
            "sodium": (sodium, "mmol/L"),
        }
        ours = _value(FREE_WATER_DEFICIT, {"age": age, "sex": sex, "weight": weight, "sodium": sodium})
        assert _agrees(ours, free_water_deficit_explanation(params)["Answer"]), params


def test_sodium_correction_against_medcalc() -> None:
    rng = random.Random("sodium_correction")
    for _ in range(CASES):
        given = {"sodium": rng.randint(110, 160), "glucose": rng.randint(50, 2000)}
        theirs = compute_sodium_correction_hyperglycemia_explanation(
            _mc(given, {"sodium": "mEq/L", "glucose": "mg/dL"})
        )
        assert _agrees(_value(SODIUM_CORRECTION, given), theirs["Answer"]), given


def test_ldl_against_medcalc() -> None:
    rng = random.Random("ldl_friedewald")
    for _ in range(CASES):
        total = rng.randint(100, 400)
        given = {
            "total_cholesterol": total,
            "hdl": rng.randint(15, min(120, total)),
            "triglycerides": rng.randint(20, 400),
        }
        params = {
            "total_cholestrol": (given["total_cholesterol"], "mg/dL"),  # medcalc-bench's spelling
            "hdl_cholestrol": (given["hdl"], "mg/dL"),
            "triglycerides": (given["triglycerides"], "mg/dL"),
        }
        assert _agrees(_value(LDL_FRIEDEWALD, given), compute_ldl_explanation(params)["Answer"]), given


def test_homa_ir_against_medcalc() -> None:
    rng = random.Random("homa_ir")
    for _ in range(CASES):
        given = {"insulin": round(rng.uniform(1, 80), 1), "glucose": rng.randint(50, 400)}
        theirs = compute_homa_ir_explanation(_mc(given, {"insulin": "µIU/mL", "glucose": "mg/dL"}))["Answer"]
        assert _agrees(_value(HOMA_IR, given), theirs), given


def test_maintenance_fluids_against_medcalc() -> None:
    rng = random.Random("maintenance_fluids")
    for _ in range(CASES):
        weight = round(rng.uniform(1, 150), 1)
        theirs = maintenance_fluid_explanation({"weight": (weight, "kg")})["Answer"]
        assert _agrees(_value(MAINTENANCE_FLUIDS, {"weight": weight}), theirs), weight


# Documented disagreements (docs/calculators.md): clinrag's value, medcalc-bench's, and why clinrag is right.
DISAGREEMENTS: list[tuple[str, Calculator, dict[str, Any], Medcalc, dict[str, Any], float | None, float, str]] = [
    (
        "insulin in pmol/L",
        HOMA_IR,
        {"insulin": "60 pmol/L", "glucose": 90},
        compute_homa_ir_explanation,
        {"insulin": (60, "pmol/L"), "glucose": (90, "mg/dL")},
        None,
        80.0,
        "medcalc multiplies pmol/L by 6 (60 → 360 µIU/mL); 1 µIU/mL = 6 pmol/L, so 60 pmol/L is 10 µIU/mL "
        "(HOMA-IR 2.22). clinrag refuses pmol/L (units.py has no insulin conversion) rather than guess",
    ),
    (
        "cholesterol and triglycerides in mmol/L",
        LDL_FRIEDEWALD,
        {"total_cholesterol": "5.2 mmol/L", "hdl": "1.3 mmol/L", "triglycerides": "2.0 mmol/L"},
        compute_ldl_explanation,
        {"total_cholestrol": (5.2, "mmol/L"), "hdl_cholestrol": (1.3, "mmol/L"), "triglycerides": (2.0, "mmol/L")},
        115.37,
        120.14,
        "medcalc rounds moles to 3 decimals mid-conversion (5.2 mmol → 0.005 mol: 193.3 mg/dL, not 201.1; 1.3 mmol → "
        "0.001 mol: 38.7, not 50.3) and takes triglycerides at 861.3 g/mol (172.3 mg/dL, not 177.1 with the usual "
        "triolein 885.7): 193.3 − 38.7 − 34.46 = 120.14 where 201.06 − 50.26 − 35.43 = 115.37",
    ),
    (
        "calcium in mmol/L",
        CORRECTED_CALCIUM,
        {"calcium": "2.0 mmol/L", "albumin": 2.0},
        calculate_corrected_calcium_explanation,
        {"calcium": (2.0, "mmol/L"), "albumin": (2.0, "g/dL")},
        9.62,
        9.6,
        "medcalc rounds 0.0801 g to 0.080 g: 2.0 mmol/L becomes 8.0 mg/dL; 2.0 × 40.08 / 10 = 8.016 mg/dL",
    ),
]


@pytest.mark.parametrize(
    ("case", "calculator", "given", "medcalc", "params", "clinrag", "theirs", "reason"),
    DISAGREEMENTS,
    ids=[row[0] for row in DISAGREEMENTS],
)
def test_documented_disagreements(
    case: str,
    calculator: Calculator,
    given: dict[str, Any],
    medcalc: Medcalc,
    params: dict[str, Any],
    clinrag: float | None,
    theirs: float,
    reason: str,
) -> None:
    assert medcalc(params)["Answer"] == pytest.approx(theirs), reason
    if clinrag is None:
        with pytest.raises(CalculatorInputError):
            calculator.run(given)
    else:
        assert round(_value(calculator, given), 2) == clinrag, reason
