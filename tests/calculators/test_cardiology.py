"""Cardiology and VTE calculators (issue 19): the primary sources' worked examples and point tables, a differential
test against the independent medcalc-bench package, range refusal, missing inputs, unit conversion and contradictory
inputs.

Where medcalc-bench disagrees with the primary source, the disagreement is modelled exactly (``_MEDCALC_DEFECTS``)
and asserted: medcalc-bench must give the value its documented defect predicts, clinrag the source's value; every
other case must agree exactly.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import pytest
from medcalc.caprini_score import caprini_score_explanation
from medcalc.cardiac_risk_index import compute_cardiac_index_explanation
from medcalc.cha2ds2_vasc_score import generate_cha2ds2_vasc_explanation
from medcalc.framingham_risk_score import framingham_risk_score_explanation
from medcalc.has_bled_score import compute_has_bled_score_explanation
from medcalc.heart_score import compute_heart_score_explanation
from medcalc.mean_arterial_pressure import mean_arterial_pressure_explanation
from medcalc.perc_rule import compute_perc_rule_explanation
from medcalc.qt_calculator_bazett import bazett_calculator_explanation
from medcalc.qt_calculator_framingham import framingham_calculator_explanation
from medcalc.qt_calculator_fredericia import fredericia_calculator_explanation
from medcalc.qt_calculator_hodges import hodges_calculator_explanation
from medcalc.qt_calculator_rautaharju import rautaharju_calculator_explanation
from medcalc.wells_criteria_dvt import compute_wells_criteria_dvt_explanation
from medcalc.wells_criteria_pe import calculate_pe_wells_explanation

from clinrag.calculators.cardiology import (
    CALCULATORS,
    CAPRINI,
    CAPRINI_MOBILITY,
    CAPRINI_SURGERY,
    CHA2DS2_VASC,
    FRAMINGHAM,
    FRAMINGHAM_COEFFICIENTS,
    HAS_BLED,
    HEART,
    HEART_ECG,
    HEART_HISTORY,
    HEART_TROPONIN,
    MAP,
    PADUA,
    PERC,
    QTC_BAZETT,
    QTC_FRAMINGHAM,
    QTC_FRIDERICIA,
    QTC_HODGES,
    QTC_RAUTAHARJU,
    RCRI,
    TIMI,
    WELLS_DVT,
    WELLS_PE,
    framingham_sum,
)
from clinrag.calculators.registry import registry
from clinrag.calculators.spec import Calculator, CalculatorInputError

CASES = 200
Case = dict[str, Any]


def _value(calculator: Calculator, given: Case) -> float:
    result = calculator.run(given)
    assert result.value is not None, result.missing
    return result.value


def _maybe(rng: random.Random, p: float = 0.3) -> bool:
    return rng.random() < p


def _flags(rng: random.Random, names: list[str]) -> dict[str, bool]:
    """Random yes/no criteria; about one in six is left out altogether (both tools then score it absent)."""
    return {name: _maybe(rng) for name in names if rng.random() > 1 / 6}


# --- worked examples from the primary sources ----------------------------------------------------------------------


def test_cha2ds2_vasc_point_table() -> None:
    # Lip 2010, Table 1 (CHA2DS2-VASc): CHF 1, hypertension 1, age ≥ 75 2, diabetes 1, stroke/TIA/TE 2, vascular
    # disease 1, age 65-74 1, female sex 1; "maximum score is 9".
    everything = {
        "age": 80,
        "sex": "female",
        "chf": True,
        "hypertension": True,
        "stroke_tia_thromboembolism": True,
        "vascular_disease": True,
        "diabetes": True,
    }
    assert _value(CHA2DS2_VASC, everything) == 9
    # A 72-year-old woman with hypertension: age 65-74 (1) + female (1) + hypertension (1) = 3.
    woman = CHA2DS2_VASC.run({"age": 72, "sex": "female", "hypertension": True})
    assert woman.value == 3
    assert woman.interpretation is not None
    assert woman.interpretation.label == "high risk"
    # A man under 65 with no risk factor scores 0 (Lip 2010: the "truly low risk" patient).
    assert _value(CHA2DS2_VASC, {"age": 50, "sex": "male"}) == 0
    # The age bands are in completed years: 64.9 is "< 65", 65 and 74 are "65-74", 75 is "≥ 75".
    assert [_value(CHA2DS2_VASC, {"age": a, "sex": "male"}) for a in (64.9, 65, 74, 75)] == [0, 1, 1, 2]


def test_cha2ds2_vasc_says_which_criteria_were_defaulted() -> None:
    result = CHA2DS2_VASC.run({"age": 72, "sex": "female", "hypertension": True})
    defaulted = {used.name: used.source for used in result.inputs if used.origin == "defaulted"}
    assert set(defaulted) == {"chf", "stroke_tia_thromboembolism", "vascular_disease", "diabetes"}
    assert "Lip 2010" in defaulted["chf"]


def test_has_bled_point_table() -> None:
    # Pisters 2010, Table 3: H, A (renal and liver 1 each), S, B, L, E (> 65), D (drugs and alcohol 1 each);
    # maximum 9.
    everything = {
        "age": 70,
        "uncontrolled_hypertension": True,
        "renal_disease": True,
        "liver_disease": True,
        "stroke": True,
        "bleeding": True,
        "labile_inr": True,
        "drugs": True,
        "alcohol": True,
    }
    assert _value(HAS_BLED, everything) == 9
    # A 70-year-old with uncontrolled hypertension on aspirin: H 1 + E 1 + D 1 = 3, "high risk" (score ≥ 3).
    result = HAS_BLED.run({"age": 70, "uncontrolled_hypertension": True, "drugs": True})
    assert result.value == 3
    assert result.interpretation is not None
    assert result.interpretation.label == "high bleeding risk"
    # "Elderly (> 65 years)": 65 scores 0, 66 scores 1.
    assert _value(HAS_BLED, {"age": 65}) == 0
    assert _value(HAS_BLED, {"age": 66}) == 1


def test_heart_score_point_table() -> None:
    # Six 2008, Table 1: each of History, ECG, Age, Risk factors, Troponin scores 0-2; maximum 10.
    highest = {
        "history": "highly suspicious",
        "ecg": "significant ST deviation",
        "age": 70,
        "atherosclerotic_disease": True,
        "troponin": "more than 3 times normal limit",
    }
    assert _value(HEART, highest) == 10
    lowest = {"history": "slightly suspicious", "ecg": "normal", "age": 30, "troponin": "normal limit or below"}
    assert _value(HEART, lowest) == 0
    # Risk factors: 1-2 risk factors 1 point; ≥ 3 risk factors OR history of atherosclerotic disease 2 points.
    assert _value(HEART, {**lowest, "smoking": True}) == 1
    assert _value(HEART, {**lowest, "smoking": True, "diabetes": True}) == 1
    assert _value(HEART, {**lowest, "smoking": True, "diabetes": True, "obesity": True}) == 2
    assert _value(HEART, {**lowest, "atherosclerotic_disease": True}) == 2
    # Age: < 45 0, 45-64 1, ≥ 65 2.
    assert [_value(HEART, {**lowest, "age": a}) for a in (44, 45, 64, 65)] == [0, 1, 1, 2]
    # Backus 2013 bands: 0-3 low, 4-6 moderate, 7-10 high.
    moderate = HEART.run({**lowest, "history": "moderately suspicious", "age": 50, "atherosclerotic_disease": True})
    assert moderate.value == 4
    assert moderate.interpretation is not None
    assert moderate.interpretation.label == "moderate risk"


def test_rcri_point_table() -> None:
    # Lee 1999: six independent predictors, one point each; class IV (≥ 3 points) had 11% major cardiac
    # complications in the validation cohort. A patient with ischemic heart disease on insulin having an
    # intraperitoneal operation scores 3.
    result = RCRI.run({"high_risk_surgery": True, "ischemic_heart_disease": True, "insulin": True, "creatinine": 1.0})
    assert result.value == 3
    assert result.interpretation is not None
    assert result.interpretation.label == "class IV"
    # Creatinine > 2.0 mg/dL scores; exactly 2.0 does not.
    assert _value(RCRI, {"creatinine": 2.0}) == 0
    assert _value(RCRI, {"creatinine": 2.1}) == 1
    everything = {spec.name: True for spec in RCRI.inputs if spec.kind == "boolean"} | {"creatinine": 3.0}
    assert _value(RCRI, everything) == 6


def test_wells_pe_point_table() -> None:
    # Wells 2000, Table 2: signs of DVT 3, PE most likely 3, HR > 100 1.5, immobilization/surgery 1.5, previous
    # DVT/PE 1.5, hemoptysis 1, malignancy 1: the maximum is 12.5.
    everything = {spec.name: True for spec in WELLS_PE.inputs if spec.kind == "boolean"} | {"heart_rate": 120}
    assert _value(WELLS_PE, everything) == 12.5
    # Signs of DVT and a heart rate of 110: 4.5, "moderate" (2-6).
    result = WELLS_PE.run({"clinical_dvt": True, "heart_rate": 110})
    assert result.value == 4.5
    assert result.interpretation is not None
    assert result.interpretation.label == "moderate probability"
    # "Heart rate > 100": 100 does not score.
    assert _value(WELLS_PE, {"heart_rate": 100}) == 0
    assert _value(WELLS_PE, {"heart_rate": 101}) == 1.5


def test_wells_dvt_point_table() -> None:
    # Wells 2003, Table 1: nine criteria 1 point each, an alternative diagnosis at least as likely -2: range -2 to 9;
    # "DVT likely" from 2 points.
    criteria = [spec.name for spec in WELLS_DVT.inputs if spec.name != "alternative_diagnosis"]
    assert _value(WELLS_DVT, dict.fromkeys(criteria, True)) == 9
    assert _value(WELLS_DVT, {"alternative_diagnosis": True}) == -2
    likely = WELLS_DVT.run({"active_cancer": True, "calf_swelling": True})
    assert likely.value == 2
    assert likely.interpretation is not None
    assert likely.interpretation.label == "DVT likely"
    unlikely = WELLS_DVT.run({"active_cancer": True, "calf_swelling": True, "alternative_diagnosis": True})
    assert unlikely.value == 0
    assert unlikely.interpretation is not None
    assert unlikely.interpretation.label == "DVT unlikely"


def test_perc_rule_criteria() -> None:
    # Kline 2004: eight criteria (age ≥ 50, HR ≥ 100, SaO2 < 95%, unilateral leg swelling, hemoptysis, recent surgery
    # or trauma, prior PE or DVT, hormone use); PE is ruled out when none is present.
    negative = PERC.run({"age": 35, "heart_rate": 80, "oxygen_saturation": 98})
    assert negative.value == 0
    assert negative.interpretation is not None
    assert negative.interpretation.label == "PERC negative: PE ruled out by PERC"
    # The thresholds are inclusive for age and heart rate, strict for saturation.
    assert _value(PERC, {"age": 50, "heart_rate": 100, "oxygen_saturation": 95}) == 2
    assert _value(PERC, {"age": 49, "heart_rate": 99, "oxygen_saturation": 94}) == 1
    booleans = {spec.name: True for spec in PERC.inputs if spec.kind == "boolean"}
    assert _value(PERC, {"age": 60, "heart_rate": 120, "oxygen_saturation": 90, **booleans}) == 8


def test_framingham_equation_by_hand() -> None:
    # The ATP III hard-CHD equation (men): Σβx = 52.00961 ln(age) + 20.014077 ln(TC) − 0.905964 ln(HDL)
    # + 1.305784 ln(SBP) + 0.241549 treated + 12.096316 smoker − 4.605038 ln(age) ln(TC) − 2.84367 ln(age ≤ 70) smoker
    # − 2.93323 ln(age)² − 172.300168; risk = 1 − 0.9402^exp(Σβx). Written out here for a 55-year-old man, TC 213,
    # HDL 50, SBP 120, untreated, non-smoker.
    ln_age, ln_tc = math.log(55), math.log(213)
    by_hand = (
        52.00961 * ln_age
        + 20.014077 * ln_tc
        - 0.905964 * math.log(50)
        + 1.305784 * math.log(120)
        - 4.605038 * ln_age * ln_tc
        - 2.93323 * ln_age**2
        - 172.300168
    )
    given = {"sex": "male", "age": 55, "total_cholesterol": 213, "hdl": 50, "sbp": 120, "bp_treated": False}
    result = FRAMINGHAM.run({**given, "smoker": False})
    assert result.value == pytest.approx(100 * (1 - 0.9402 ** math.exp(by_hand)), abs=1e-9)
    assert round(result.value or 0, 2) == 6.51
    # ATP III score sheet for men (Appendix III-A) gives the same category: age 55-59 8, TC 200-239 at 50-59 3,
    # HDL 50-59 0, SBP 120-129 untreated 0, non-smoker 0 = 11 points → 8%: both below 10%.
    assert result.interpretation is not None
    assert result.interpretation.label == "lower risk"
    # Women: the age in the ln(age) × smoker term is capped at 78; ages 78 and 79 then differ only by the other terms.
    woman = {"sex": "female", "total_cholesterol": 240, "hdl": 45, "sbp": 150, "bp_treated": True, "smoker": True}
    c = FRAMINGHAM_COEFFICIENTS["female"]
    for age in (60, 79):
        ln_a, ln_t = math.log(age), math.log(240)
        sum_by_hand = (
            c.ln_age * ln_a
            + c.ln_total_cholesterol * ln_t
            + c.ln_hdl * math.log(45)
            + c.ln_sbp * math.log(150)
            + c.treated
            + c.smoker
            + c.ln_age_ln_total_cholesterol * ln_a * ln_t
            + c.ln_age_smoker * math.log(min(age, 78))
            + c.constant
        )
        assert framingham_sum({**woman, "age": age}) == pytest.approx(sum_by_hand, abs=1e-9)
        assert _value(FRAMINGHAM, {**woman, "age": age}) == pytest.approx(100 * (1 - 0.98767 ** math.exp(sum_by_hand)))


def test_framingham_requires_smoking_and_treatment() -> None:
    # The equation's smoking and treatment terms are variables, not criteria: never defaulted.
    result = FRAMINGHAM.run({"sex": "male", "age": 55, "total_cholesterol": 213, "hdl": 50, "sbp": 120})
    assert result.value is None
    assert result.missing == ("bp_treated", "smoker")


@pytest.mark.parametrize(
    ("calculator", "expected"),
    [
        # QT 350 ms at 100 bpm (RR 0.6 s) through each published formula.
        (QTC_BAZETT, 350 / math.sqrt(0.6)),  # Bazett 1920: QT / √RR = 451.85
        (QTC_FRIDERICIA, 350 / 0.6 ** (1 / 3)),  # Fridericia 1920: QT / ∛RR = 415.07
        (QTC_FRAMINGHAM, 350 + 154 * (1 - 0.6)),  # Sagie 1992: QT + 0.154 s (1 − RR) = 411.6
        (QTC_HODGES, 350 + 1.75 * (100 - 60)),  # Hodges 1983: QT + 1.75 (HR − 60) = 420
        (QTC_RAUTAHARJU, 350 * (120 + 100) / 180),  # Rautaharju 2014: QT × (120 + HR) / 180 = 427.78
    ],
)
def test_qtc_formulas(calculator: Calculator, expected: float) -> None:
    assert _value(calculator, {"qt": 350, "heart_rate": 100}) == pytest.approx(expected, abs=1e-9)
    # Every formula corrects to a heart rate of 60 (RR 1 s): there QTc equals QT.
    assert _value(calculator, {"qt": 420, "heart_rate": 60}) == pytest.approx(420)


def test_qtc_bands() -> None:
    # AHA/ACCF/HRS 2009: prolonged from 450 ms (men) / 460 ms (women); Drew 2010: 500 ms and above.
    labels = [QTC_HODGES.run({"qt": qt, "heart_rate": 60}).interpretation for qt in (440, 455, 470, 520)]
    assert [band.label if band else None for band in labels] == [
        "not prolonged",
        "borderline",
        "prolonged",
        "markedly prolonged",
    ]


def test_mean_arterial_pressure() -> None:
    # MAP = DBP + (SBP − DBP) / 3: 120/80 mmHg gives 93.3 mmHg, the textbook example.
    result = MAP.run({"sbp": 120, "dbp": 80})
    assert result.value == pytest.approx(93.333, abs=1e-3)
    assert result.interpretation is not None
    assert result.interpretation.label == "65 mmHg or more"
    assert _value(MAP, {"sbp": 80, "dbp": 50}) == 60


def test_timi_point_table() -> None:
    # Antman 2000, Table 2 and Figure 2: seven variables, one point each. A 70-year-old who took aspirin this week,
    # with ST deviation and a positive troponin, scores 4: 19.9% death, MI or urgent revascularization by day 14.
    result = TIMI.run({"age": 70, "aspirin": True, "st_deviation": True, "positive_marker": True})
    assert result.value == 4
    assert result.interpretation is not None
    assert "19.9%" in result.interpretation.meaning
    # "≥ 3 risk factors for CAD" is one point; two risk factors score nothing.
    assert _value(TIMI, {"age": 50, "hypertension": True, "diabetes": True}) == 0
    assert _value(TIMI, {"age": 50, "hypertension": True, "diabetes": True, "current_smoker": True}) == 1
    everything = {spec.name: True for spec in TIMI.inputs if spec.kind == "boolean"} | {"age": 80}
    assert _value(TIMI, everything) == 7


def test_caprini_point_table() -> None:
    # Caprini 2005 risk assessment form: a 65-year-old (61-74: 2) having an elective hip arthroplasty (5) with a BMI
    # of 27 (> 25: 1) scores 8, "highest risk" (≥ 5).
    result = CAPRINI.run({"age": 65, "surgery": "elective major lower extremity arthroplasty", "bmi": 27})
    assert result.value == 8
    assert result.interpretation is not None
    assert result.interpretation.label == "highest risk"
    # A 35-year-old having minor surgery, BMI 22: 1 point, low risk; age bands ≤ 40, 41-60, 61-74, ≥ 75.
    assert _value(CAPRINI, {"age": 35, "surgery": "minor", "bmi": 22}) == 1
    assert [_value(CAPRINI, {"age": a, "bmi": 22}) for a in (40, 41, 60, 61, 74, 75)] == [0, 1, 1, 2, 2, 3]
    # Three-point items (history of VTE, thrombophilias) and five-point items (fracture, stroke) within 1 month.
    assert _value(CAPRINI, {"age": 30, "bmi": 22, "history_vte": True, "factor_v_leiden": True}) == 6
    assert _value(CAPRINI, {"age": 30, "bmi": 22, "fracture": True, "mobility": "confined to bed >72 hours"}) == 7
    # BMI "> 25": 25 itself does not score.
    assert _value(CAPRINI, {"age": 30, "bmi": 25}) == 0


def test_padua_point_table() -> None:
    # Barbar 2010, Table 2: a 75-year-old (≥ 70: 1) with heart failure (1), reduced mobility (3) and an acute
    # infection (1) scores 6: high risk (≥ 4).
    result = PADUA.run(
        {
            "age": 75,
            "bmi": 24,
            "heart_or_respiratory_failure": True,
            "reduced_mobility": True,
            "infection_or_rheumatologic": True,
        }
    )
    assert result.value == 6
    assert result.interpretation is not None
    assert result.interpretation.label == "high risk"
    # Age 72 and BMI 31 (obesity ≥ 30): 2 points, low risk.
    low = PADUA.run({"age": 72, "bmi": 31})
    assert low.value == 2
    assert low.interpretation is not None
    assert low.interpretation.label == "low risk"
    everything = {spec.name: True for spec in PADUA.inputs if spec.kind == "boolean"} | {"age": 80, "bmi": 35}
    assert _value(PADUA, everything) == 20


# --- range refusal, missing inputs, units, contradictions ----------------------------------------------------------


@pytest.mark.parametrize(
    ("calculator", "given", "name"),
    [
        (HAS_BLED, {"age": 130}, "age"),
        (WELLS_PE, {"heart_rate": 400}, "heart_rate"),
        (PERC, {"age": 40, "heart_rate": 80, "oxygen_saturation": 120}, "oxygen_saturation"),
        (RCRI, {"creatinine": 40}, "creatinine"),
        (QTC_BAZETT, {"qt": 1200, "heart_rate": 70}, "qt"),
        (FRAMINGHAM, {"sex": "male", "age": 90, "total_cholesterol": 200, "hdl": 50, "sbp": 120}, "age"),
        (CAPRINI, {"age": 40, "bmi": 5}, "bmi"),
    ],
)
def test_out_of_range_values_are_refused_naming_the_input(calculator: Calculator, given: Case, name: str) -> None:
    with pytest.raises(CalculatorInputError, match=rf"^{name} \("):
        calculator.run(given)


def test_choices_outside_the_list_are_refused() -> None:
    with pytest.raises(CalculatorInputError, match=r"history .* is one of slightly suspicious"):
        HEART.run({"history": "very", "ecg": "normal", "age": 50, "troponin": "normal limit or below"})


@pytest.mark.parametrize(
    ("calculator", "given", "missing"),
    [
        (WELLS_PE, {"clinical_dvt": True}, ("heart_rate",)),
        (CHA2DS2_VASC, {"hypertension": True}, ("age", "sex")),
        (HEART, {"age": 50}, ("history", "ecg", "troponin")),
        (RCRI, {"insulin": True}, ("creatinine",)),
        (PADUA, {"age": 80}, ("bmi",)),
        (QTC_FRIDERICIA, {"qt": 400}, ("heart_rate",)),
        (MAP, {"sbp": 120}, ("dbp",)),
    ],
)
def test_a_missing_measurement_is_reported_not_guessed(
    calculator: Calculator, given: Case, missing: tuple[str, ...]
) -> None:
    result = calculator.run(given)
    assert result.value is None
    assert result.missing == missing


def test_inputs_in_other_units_are_converted() -> None:
    # 200 µmol/L creatinine is 2.26 mg/dL: above Lee's 2.0 mg/dL.
    rcri = RCRI.run({"creatinine": "200 umol/L"})
    assert rcri.value == 1
    assert rcri.inputs[-1].value == pytest.approx(2.262, abs=1e-3)
    # QT 0.35 s is 350 ms.
    assert _value(QTC_HODGES, {"qt": "0.35 s", "heart_rate": 100}) == pytest.approx(420)
    # Cholesterol in mmol/L (386.65 g/mol): 5.5 mmol/L = 212.66 mg/dL, 1.3 mmol/L = 50.26 mg/dL.
    given = {"sex": "male", "age": 55, "sbp": 120, "bp_treated": False, "smoker": False}
    in_mmol = FRAMINGHAM.run({**given, "total_cholesterol": "5.5 mmol/L", "hdl": "1.3 mmol/L"})
    used = {spec.name: spec.value for spec in in_mmol.inputs}
    assert used["total_cholesterol"] == pytest.approx(212.66, abs=0.01)
    assert used["hdl"] == pytest.approx(50.26, abs=0.01)
    in_mg = _value(FRAMINGHAM, {**given, "total_cholesterol": used["total_cholesterol"], "hdl": used["hdl"]})
    assert in_mmol.value == pytest.approx(in_mg, abs=1e-9)
    # Age in months; blood pressure in kPa.
    assert _value(CHA2DS2_VASC, {"age": "800 months", "sex": "male"}) == 1  # 66.7 years
    assert _value(MAP, {"sbp": "16 kPa", "dbp": "10.667 kPa"}) == pytest.approx(93.34, abs=0.01)  # 120.01/80.01 mmHg


def test_contradictory_inputs_are_refused_naming_both() -> None:
    with pytest.raises(CalculatorInputError, match=r"dbp \(diastolic blood pressure\) = 90 .* sbp .* = 80"):
        MAP.run({"sbp": 80, "dbp": 90})
    with pytest.raises(CalculatorInputError, match=r"hdl \(HDL cholesterol\) = 150 .* total_cholesterol .* = 140"):
        FRAMINGHAM.run(
            {
                "sex": "male",
                "age": 50,
                "total_cholesterol": 140,
                "hdl": 150,
                "sbp": 120,
                "bp_treated": False,
                "smoker": False,
            }
        )


def test_steps_are_written_for_every_calculator() -> None:
    result = HEART.run(
        {
            "history": "moderately suspicious",
            "ecg": "normal",
            "age": 50,
            "troponin": "normal limit or below",
            "smoking": True,
        }
    )
    assert result.steps[0] == "history: moderately suspicious: +1 → 1"
    assert "risk factors — 1 risk factor (1-2): smoking (current, or stopped < 3 months ago): +1 → 3" in result.steps
    assert result.steps[-1].startswith("3 points: low risk")


def test_the_calculators_are_registered_under_unique_names() -> None:
    names = [calculator.name for calculator in CALCULATORS]
    assert len(names) == len(set(names)) == 17
    found = registry()
    assert all(found[name] is calculator for name, calculator in zip(names, CALCULATORS, strict=True))


# --- differential test against medcalc-bench -----------------------------------------------------------------------


def _years(age: int) -> tuple[int, str]:
    return (age, "years")


def test_cha2ds2_vasc_agrees_with_medcalc() -> None:
    rng = random.Random(1901)
    for _ in range(CASES):
        flags = _flags(rng, ["chf", "hypertension", "stroke", "tia", "thromboembolism", "vascular_disease", "diabetes"])
        age, sex = rng.randint(18, 100), rng.choice(["female", "male"])
        theirs = generate_cha2ds2_vasc_explanation({"age": _years(age), "sex": sex.title(), **flags})["Answer"]
        ours = {key: value for key, value in flags.items() if key not in {"stroke", "tia", "thromboembolism"}}
        stroke = [flags[key] for key in ("stroke", "tia", "thromboembolism") if key in flags]
        if stroke:
            ours["stroke_tia_thromboembolism"] = any(stroke)
        assert _value(CHA2DS2_VASC, {"age": age, "sex": sex, **ours}) == theirs


_HAS_BLED_KEYS = {
    "hypertension": "uncontrolled_hypertension",
    "renal_disease_has_bled": "renal_disease",
    "liver_disease_has_bled": "liver_disease",
    "stroke": "stroke",
    "prior_bleeding": "bleeding",
    "labile_inr": "labile_inr",
    "medications_for_bleeding": "drugs",
}


def test_has_bled_agrees_with_medcalc() -> None:
    rng = random.Random(1902)
    for _ in range(CASES):
        flags = _flags(rng, list(_HAS_BLED_KEYS))
        age, drinks = rng.randint(18, 100), rng.choice([0, 2, 7, 8, 9, 14, 20])
        theirs = compute_has_bled_score_explanation({"age": _years(age), "alcoholic_drinks": drinks, **flags})
        ours = {_HAS_BLED_KEYS[key]: value for key, value in flags.items()}
        assert _value(HAS_BLED, {"age": age, "alcohol": drinks >= 8, **ours}) == theirs["Answer"]


_HEART_MEDCALC_CHOICES = {
    "history": dict(
        zip(HEART_HISTORY, ["Slightly suspicious", "Moderately suspicious", "Highly suspicious"], strict=True)
    ),
    "ecg": dict(
        zip(HEART_ECG, ["Normal", "Non-specific repolarization disturbance", "Significant ST deviation"], strict=True)
    ),
    "troponin": dict(
        zip(
            HEART_TROPONIN,
            [
                "less than or equal to normal limit",
                "between the normal limit or up to three times the normal limit",
                "greater than three times normal limit",
            ],
            strict=True,
        )
    ),
}
_HEART_FACTOR_KEYS = {
    "hypertension": "hypertension",
    "hypercholesterolemia": "hypercholesterolemia",
    "diabetes_mellitus": "diabetes",
    "obesity": "obesity",
    "smoking": "smoking",
    "family_with_cvd": "family_history",
    "atherosclerotic_disease": "atherosclerotic_disease",
}


def _medcalc_heart_defect(ours: Case) -> bool:
    """medcalc-bench counts atherosclerotic disease as one more risk factor and gives 1 point for 1-2 factors before
    testing for it, so atherosclerotic disease with at most one other risk factor scores 1 instead of 2 (Six 2008:
    "≥ 3 risk factors or history of atherosclerotic disease: 2 points")."""
    others = sum(1 for key in _HEART_FACTOR_KEYS.values() if key != "atherosclerotic_disease" and ours.get(key))
    return bool(ours.get("atherosclerotic_disease")) and others <= 1


def test_heart_score_agrees_with_medcalc_but_for_atherosclerotic_disease() -> None:
    rng = random.Random(1903)
    defects = 0
    for _ in range(CASES):
        flags = _flags(rng, list(_HEART_FACTOR_KEYS))
        choices = {key: rng.choice(list(options)) for key, options in _HEART_MEDCALC_CHOICES.items()}
        age = rng.randint(25, 95)
        theirs = compute_heart_score_explanation(
            {
                "age": [age, "years"],
                "history": _HEART_MEDCALC_CHOICES["history"][choices["history"]],
                "electrocardiogram": _HEART_MEDCALC_CHOICES["ecg"][choices["ecg"]],
                "initial_troponin": _HEART_MEDCALC_CHOICES["troponin"][choices["troponin"]],
                **flags,
            }
        )["Answer"]
        ours = {"age": age, **choices, **{_HEART_FACTOR_KEYS[key]: value for key, value in flags.items()}}
        value = _value(HEART, ours)
        if _medcalc_heart_defect(ours):
            defects += 1
            assert theirs == value - 1
        else:
            assert theirs == value
    assert 10 < defects < CASES / 2


def test_heart_score_disagreement_example() -> None:
    # docs/calculators.md: a 50-year-old, moderately suspicious history, normal ECG and troponin, prior MI only.
    case = {"age": 50, "history": "moderately suspicious", "ecg": "normal", "troponin": "normal limit or below"}
    assert _value(HEART, {**case, "atherosclerotic_disease": True}) == 4
    theirs = compute_heart_score_explanation(
        {
            "age": [50, "years"],
            "history": "Moderately suspicious",
            "electrocardiogram": "Normal",
            "initial_troponin": "less than or equal to normal limit",
            "atherosclerotic_disease": True,
        }
    )
    assert theirs["Answer"] == 3


_RCRI_KEYS = {
    "elevated_risk_surgery": "high_risk_surgery",
    "ischemetic_heart_disease": "ischemic_heart_disease",
    "congestive_heart_failure": "heart_failure",
    "cerebrovascular_disease": "cerebrovascular_disease",
    "pre_operative_insulin_treatment": "insulin",
}


def test_rcri_agrees_with_medcalc() -> None:
    rng = random.Random(1904)
    for _ in range(CASES):
        flags = _flags(rng, list(_RCRI_KEYS))
        creatinine = rng.choice([2.0, round(rng.uniform(0.4, 5.0), 1)])
        theirs = compute_cardiac_index_explanation({"pre_operative_creatinine": (creatinine, "mg/dL"), **flags})
        ours = {_RCRI_KEYS[key]: value for key, value in flags.items()}
        assert _value(RCRI, {"creatinine": creatinine, **ours}) == theirs["Answer"]


def test_wells_pe_agrees_with_medcalc() -> None:
    rng = random.Random(1905)
    keys = [
        "clinical_dvt",
        "pe_number_one",
        "immobilization_for_3days",
        "surgery_in_past4weeks",
        "previous_pe",
        "previous_dvt",
        "hemoptysis",
        "malignancy_with_treatment",
    ]
    for _ in range(CASES):
        flags = _flags(rng, keys)
        rate = rng.choice([100, rng.randint(45, 160)])
        theirs = calculate_pe_wells_explanation({"heart_rate": (rate, "beats per minute"), **flags})["Answer"]
        ours = {
            "heart_rate": rate,
            "clinical_dvt": flags.get("clinical_dvt", False),
            "pe_most_likely": flags.get("pe_number_one", False),
            "immobilization_or_surgery": flags.get("immobilization_for_3days", False)
            or flags.get("surgery_in_past4weeks", False),
            "previous_vte": flags.get("previous_pe", False) or flags.get("previous_dvt", False),
            "hemoptysis": flags.get("hemoptysis", False),
            "malignancy": flags.get("malignancy_with_treatment", False),
        }
        assert _value(WELLS_PE, ours) == theirs


_WELLS_DVT_KEYS = {
    "active_cancer": "active_cancer",
    "calf_swelling_3cm": "calf_swelling",
    "collateral_superficial_veins": "collateral_veins",
    "leg_swollen": "entire_leg_swollen",
    "localized_tenderness_on_deep_venuous_system": "deep_vein_tenderness",
    "pitting_edema_on_symptomatic_leg": "pitting_edema",
    "paralysis_paresis_immobilization_in_lower_extreme": "paralysis_or_cast",
    "previous_dvt": "previous_dvt",
    "alternative_to_dvt_diagnosis": "alternative_diagnosis",
}


def test_wells_dvt_agrees_with_medcalc() -> None:
    rng = random.Random(1906)
    for _ in range(CASES):
        flags = _flags(rng, [*_WELLS_DVT_KEYS, "bedridden_for_atleast_3_days", "major_surgery_in_last_12_weeks"])
        theirs = compute_wells_criteria_dvt_explanation(dict(flags))["Answer"]
        ours = {_WELLS_DVT_KEYS[key]: value for key, value in flags.items() if key in _WELLS_DVT_KEYS}
        ours["bedridden_or_surgery"] = flags.get("bedridden_for_atleast_3_days", False) or flags.get(
            "major_surgery_in_last_12_weeks", False
        )
        assert _value(WELLS_DVT, ours) == theirs


def test_perc_agrees_with_medcalc() -> None:
    rng = random.Random(1907)
    keys = ["unilateral_leg_swelling", "hemoptysis", "recent_surgery_or_trauma", "previous_pe", "previous_dvt"]
    for _ in range(CASES):
        flags = _flags(rng, [*keys, "hormonal_use"])
        age = rng.choice([50, rng.randint(18, 90)])
        rate = rng.choice([100, rng.randint(50, 140)])
        saturation = rng.choice([95, rng.randint(85, 100)])
        theirs = compute_perc_rule_explanation(
            {"age": _years(age), "heart_rate": (rate, "beats per minute"), "oxygen_sat": (saturation, "%"), **flags}
        )["Answer"]
        ours = {
            "age": age,
            "heart_rate": rate,
            "oxygen_saturation": saturation,
            "unilateral_leg_swelling": flags.get("unilateral_leg_swelling", False),
            "hemoptysis": flags.get("hemoptysis", False),
            "recent_surgery_or_trauma": flags.get("recent_surgery_or_trauma", False),
            "previous_vte": flags.get("previous_pe", False) or flags.get("previous_dvt", False),
            "hormone_use": flags.get("hormonal_use", False),
        }
        assert _value(PERC, ours) == theirs


def _framingham_case(rng: random.Random) -> Case:
    total = rng.randint(130, 320)
    return {
        "sex": rng.choice(["female", "male"]),
        "age": rng.randint(30, 79),
        "total_cholesterol": total,
        "hdl": rng.randint(20, min(100, total - 20)),
        "sbp": rng.randint(90, 200),
        "bp_treated": _maybe(rng),
        "smoker": _maybe(rng),
    }


def _medcalc_framingham(case: Case, cholesterol_unit: str) -> float:
    answer = framingham_risk_score_explanation(
        {
            "sex": case["sex"].title(),
            "age": _years(case["age"]),
            "sys_bp": (case["sbp"], "mm Hg"),
            "smoker": case["smoker"],
            "bp_medicine": case["bp_treated"],
            "total_cholestrol": (case["total_cholesterol"], cholesterol_unit),
            "hdl_cholestrol": (case["hdl"], cholesterol_unit),
        }
    )["Answer"]
    return float(answer)


def test_framingham_matches_medcalc_once_its_documented_defects_are_modelled() -> None:
    # medcalc-bench (1) converts the cholesterols to mmol/L although the coefficients take mg/dL, (2) rounds Σβx to
    # one decimal and (3) rounds the risk fraction to one decimal (whole tens of percent). Giving it the mg/dL
    # numbers labelled "mmol/L" skips (1); its answer must then be clinrag's Σβx passed through (2) and (3).
    rng = random.Random(1908)
    for _ in range(CASES):
        case = _framingham_case(rng)
        survival = FRAMINGHAM_COEFFICIENTS[case["sex"]].baseline_survival
        exact = framingham_sum(case)
        assert _value(FRAMINGHAM, case) == pytest.approx(100 * (1 - survival ** math.exp(exact)), abs=1e-9)
        rounded = round(round(1 - survival ** math.exp(round(exact, 1)), 1) * 100, 3)
        assert _medcalc_framingham(case, "mmol/L") == rounded


def test_framingham_disagreement_example() -> None:
    # docs/calculators.md: a 55-year-old man, TC 213 mg/dL, HDL 50 mg/dL, SBP 120 untreated, non-smoker.
    case = {
        "sex": "male",
        "age": 55,
        "total_cholesterol": 213,
        "hdl": 50,
        "sbp": 120,
        "bp_treated": False,
        "smoker": False,
    }
    assert round(_value(FRAMINGHAM, case), 1) == 6.5
    assert _medcalc_framingham(case, "mg/dL") == 0.0  # ln of mmol/L values: Σβx = -2.3
    # A 70-year-old male smoker, TC 280, HDL 35, SBP 160 treated: clinrag 34.2%, medcalc-bench 90% with mg/dL input,
    # 30% (rounded to tens) when its unit conversion is bypassed.
    high = {**case, "age": 70, "total_cholesterol": 280, "hdl": 35, "sbp": 160, "bp_treated": True, "smoker": True}
    assert round(_value(FRAMINGHAM, high), 1) == 34.2
    assert _medcalc_framingham(high, "mg/dL") == 90.0
    assert _medcalc_framingham(high, "mmol/L") == 30.0


_QTC = [
    (QTC_BAZETT, bazett_calculator_explanation),
    (QTC_FRIDERICIA, fredericia_calculator_explanation),
    (QTC_FRAMINGHAM, framingham_calculator_explanation),
    (QTC_HODGES, hodges_calculator_explanation),
    (QTC_RAUTAHARJU, rautaharju_calculator_explanation),
]


@pytest.mark.parametrize(("calculator", "theirs"), _QTC, ids=[calculator.name for calculator, _ in _QTC])
def test_qtc_agrees_with_medcalc(calculator: Calculator, theirs: Callable[[Case], dict[str, Any]]) -> None:
    # medcalc-bench rounds RR = 60/HR to 0.001 s before correcting (all but Rautaharju, which takes the heart rate),
    # and the answer to 0.001 ms. clinrag uses the unrounded RR as the formulas define it. At the heart rate that
    # medcalc-bench's rounded RR stands for, the two agree to the rounding of the answer; at the given heart rate
    # they differ by less than 1 ms.
    rng = random.Random(1909)
    largest = 0.0
    for _ in range(CASES):
        rate, qt = rng.randint(30, 200), rng.randint(250, 600)
        answer = theirs({"heart_rate": (rate, "beats per minute"), "qt_interval": (qt, "msec")})["Answer"]
        rounded_rate = rate if calculator is QTC_RAUTAHARJU else 60 / round(60 / rate, 3)
        assert _value(calculator, {"qt": qt, "heart_rate": rounded_rate}) == pytest.approx(answer, abs=6e-4)
        largest = max(largest, abs(_value(calculator, {"qt": qt, "heart_rate": rate}) - answer))
    assert largest < 1.0


def test_mean_arterial_pressure_agrees_with_medcalc() -> None:
    rng = random.Random(1910)
    for _ in range(CASES):
        systolic = rng.randint(70, 230)
        diastolic = rng.randint(30, systolic - 10)
        theirs = mean_arterial_pressure_explanation({"sys_bp": [systolic, "mm hg"], "dia_bp": [diastolic, "mm hg"]})
        assert _value(MAP, {"sbp": systolic, "dbp": diastolic}) == pytest.approx(theirs["Answer"], abs=6e-4)


_CAPRINI_KEYS = {
    "major_surgery": "recent_major_surgery",
    "chf": "chf",
    "sepsis": "sepsis",
    "pneumonia": "pneumonia",
    "immobilizing_plaster_case": "plaster_cast",
    "hip_pelvis_leg_fracture": "fracture",
    "stroke": "stroke",
    "multiple trauma": "multiple_trauma",
    "acute_spinal_chord_injury": "spinal_cord_injury",
    "varicose_veins": "varicose_veins",
    "current_swollen_legs": "swollen_legs",
    "current_central_venuous": "central_venous_access",
    "family_history_thrombosis": "family_history_vte",
    "positive_factor_v": "factor_v_leiden",
    "positive_prothrombin": "prothrombin_20210a",
    "serum_homocysteine": "homocysteine",
    "positive_lupus_anticoagulant": "lupus_anticoagulant",
    "elevated_anticardiolipin_antibody": "anticardiolipin",
    "heparin_induced_thrombocytopenia": "hit",
    "congenital_acquired_thrombophilia": "other_thrombophilia",
    "inflammatory_bowel_disease": "ibd",
    "acute_myocardial_infarction": "acute_mi",
    "copd": "copd",
    "malignancy": "malignancy",
}
_CAPRINI_MOBILITY = {
    "normal": "normal",
    "bed rest": "on bed rest",
    "confined to bed >72 hours": "confined to bed >72 hours",
}


def _caprini_items(ours: Case) -> int:
    """The points of the yes/no criteria of a case (Caprini 2005 weights, as clinrag declares them)."""
    weights = {
        "recent_major_surgery": 1, "chf": 1, "sepsis": 1, "pneumonia": 1, "plaster_cast": 2, "fracture": 5,
        "stroke": 5, "multiple_trauma": 5, "spinal_cord_injury": 5, "varicose_veins": 1, "swollen_legs": 1,
        "central_venous_access": 2, "history_vte": 3, "family_history_vte": 3, "factor_v_leiden": 3,
        "prothrombin_20210a": 3, "homocysteine": 3, "lupus_anticoagulant": 3, "anticardiolipin": 3, "hit": 3,
        "other_thrombophilia": 3, "ibd": 1, "acute_mi": 1, "copd": 1, "malignancy": 2,
    }  # fmt: skip
    return sum(points for name, points in weights.items() if ours.get(name))


def test_caprini_matches_medcalc_once_its_documented_defects_are_modelled() -> None:
    # medcalc-bench (1) never adds the points of the yes/no criteria (its explanation says "we add N", the score
    # stays), and (2) gives 2 points for BMI > 25 where Caprini 2005 gives 1. Age, surgery and mobility agree.
    rng = random.Random(1911)
    agreeing = 0
    for _ in range(CASES):
        flags = {key: _maybe(rng, 0.08) for key in [*_CAPRINI_KEYS, "previous_dvt", "previous_pe"]}
        age, bmi = rng.randint(18, 95), round(rng.uniform(17, 40), 1)
        surgery, mobility = rng.choice(list(CAPRINI_SURGERY)), rng.choice(list(CAPRINI_MOBILITY))
        theirs = caprini_score_explanation(
            {
                "sex": rng.choice(["Female", "Male"]),
                "age": _years(age),
                "surgery_type": surgery,
                "mobility": _CAPRINI_MOBILITY[mobility],
                "bmi": (bmi, "kg/m^2"),
                **flags,
            }
        )["Answer"]
        ours = {_CAPRINI_KEYS[key]: value for key, value in flags.items() if key in _CAPRINI_KEYS}
        ours["history_vte"] = flags["previous_dvt"] or flags["previous_pe"]
        value = _value(CAPRINI, {"age": age, "bmi": bmi, "surgery": surgery, "mobility": mobility, **ours})
        modelled = value - _caprini_items(ours) + (1 if bmi > 25 else 0)
        assert theirs == modelled
        agreeing += theirs == value
    assert 10 < agreeing < CASES / 2


def test_caprini_disagreement_example() -> None:
    # docs/calculators.md: a 50-year-old, BMI 27, hip fracture within the month, no surgery, ambulatory.
    assert _value(CAPRINI, {"age": 50, "bmi": 27, "fracture": True}) == 7  # age 1 + BMI 1 + fracture 5
    theirs = caprini_score_explanation(
        {
            "sex": "Male",
            "age": _years(50),
            "bmi": (27, "kg/m^2"),
            "hip_pelvis_leg_fracture": True,
            "surgery_type": "none",
            "mobility": "normal",
        }
    )
    assert theirs["Answer"] == 3  # age 1 + BMI 2, the fracture's 5 points never added
