"""Liver and gastrointestinal scores: Child-Pugh, MELD (UNOS, three variables) and MELD-Na, FIB-4, the
Glasgow-Blatchford bleeding score, and Ranson's criteria for acute pancreatitis (at admission, and in full at 48 h).

Example:
    >>> MELD.run({"creatinine": 1.0, "bilirubin": 1.5, "inr": 1.5}).value
    13.0
"""

from __future__ import annotations

import math

from clinrag.calculators.common import SEX, criterion, flag
from clinrag.calculators.content import content
from clinrag.calculators.critical_care import (
    AGE,
    BILIRUBIN,
    CREATININE,
    HEART_RATE,
    HEMATOCRIT,
    PAO2,
    PLATELETS,
    SODIUM,
    SYSTOLIC_BP,
    UREA,
    WBC,
)
from clinrag.calculators.spec import CalculatorInputError, Steps, Values

_DATA = content(__name__)

INR = _DATA.input("inr")
ALBUMIN = _DATA.input("albumin")
AST = _DATA.input("ast")
ALT = _DATA.input("alt")


def half_up(value: float) -> int:
    """``value`` rounded to the nearest integer, halves upward (as the OPTN rounds MELD).

    Example:
        >>> half_up(14.5), half_up(14.49)
        (15, 14)
    """
    return math.floor(value + 0.5)


# --- Child-Pugh ----------------------------------------------------------------------------------------------------

ASCITES = {"absent": 1, "slight": 2, "moderate": 3}
ENCEPHALOPATHY = {"none": 1, "grade 1-2": 2, "grade 3-4": 3}


def _child_pugh(v: Values, steps: Steps) -> float:
    bilirubin, albumin, inr = v["bilirubin"], v["albumin"], v["inr"]
    points = 1 if bilirubin < 2 else (2 if bilirubin <= 3 else 3)
    total = steps.points(f"bilirubin {bilirubin:g} mg/dL (< 2: 1, 2-3: 2, > 3: 3)", points, 0)
    points = 1 if albumin > 3.5 else (2 if albumin >= 2.8 else 3)
    total = steps.points(f"albumin {albumin:g} g/dL (> 3.5: 1, 2.8-3.5: 2, < 2.8: 3)", points, total)
    points = 1 if inr < 1.7 else (2 if inr <= 2.3 else 3)
    total = steps.points(f"INR {inr:g} (< 1.7: 1, 1.7-2.3: 2, > 2.3: 3)", points, total)
    total = steps.points(f"ascites: {v['ascites']}", ASCITES[v["ascites"]], total)
    return steps.points(f"encephalopathy: {v['encephalopathy']}", ENCEPHALOPATHY[v["encephalopathy"]], total)


CHILD_PUGH = _DATA.calculator(
    "child_pugh",
    inputs=(
        BILIRUBIN,
        ALBUMIN,
        INR,
        _DATA.input("ascites", choices=tuple(ASCITES)),
        _DATA.input("encephalopathy", choices=tuple(ENCEPHALOPATHY)),
    ),
    compute=_child_pugh,
)


# --- MELD and MELD-Na ----------------------------------------------------------------------------------------------

DIALYSIS = criterion(
    "dialysis",
    "dialysis at least twice, or CVVHD for 24 hours, in the past week",
    ("dialysis", "hemodialysis", "haemodialysis", "CVVHD", "renal replacement therapy"),
    "dialysis not documented counts as none: creatinine is set to 4.0 mg/dL only for dialysis twice or CVVHD "
    "24 hours in the prior week (OPTN policy)",
)
MELD_BOUNDS_RULE = "values below 1.0 are set to 1.0, creatinine is capped at 4.0 mg/dL"


def _bounded(name: str, value: float, steps: Steps, *, ceiling: float | None = None) -> float:
    used = max(value, 1.0)
    if ceiling is not None:
        used = min(used, ceiling)
    if used != value:
        steps.add(f"{name} {value:g} is taken as {used:g} ({MELD_BOUNDS_RULE})")
    return used


def _meld_initial(v: Values, steps: Steps) -> int:
    """MELD(i) = 10 × (0.957 ln Cr + 0.378 ln bilirubin + 1.120 ln INR + 0.643), rounded (OPTN)."""
    if v["dialysis"]:
        creatinine = 4.0
        steps.add("dialysis in the past week: creatinine is taken as 4.0 mg/dL")
    else:
        creatinine = _bounded("creatinine", v["creatinine"], steps, ceiling=4.0)
    bilirubin = _bounded("bilirubin", v["bilirubin"], steps)
    inr = _bounded("INR", v["inr"], steps)
    raw = 10 * (0.957 * math.log(creatinine) + 0.378 * math.log(bilirubin) + 1.120 * math.log(inr) + 0.643)
    value = half_up(raw)
    steps.add(
        f"MELD = 10 × (0.957 × ln {creatinine:g} + 0.378 × ln {bilirubin:g} + 1.120 × ln {inr:g} + 0.643) = "
        f"{raw:.2f}, rounded to {value}"
    )
    return value


def _capped(value: int, steps: Steps) -> int:
    if value > 40:
        steps.add(f"{value} is capped at 40")
        return 40
    return value


def _meld(v: Values, steps: Steps) -> float:
    return _capped(_meld_initial(v, steps), steps)


def _meld_na(v: Values, steps: Steps) -> float:
    initial = _meld_initial(v, steps)
    if initial <= 11:
        steps.add(f"MELD {initial} ≤ 11: sodium is not added (OPTN 2016)")
        return initial
    sodium = min(max(v["sodium"], 125.0), 137.0)
    if sodium != v["sodium"]:
        steps.add(f"sodium {v['sodium']:g} is taken as {sodium:g} (bounded to 125-137 mmol/L)")
    raw = initial + 1.32 * (137 - sodium) - 0.033 * initial * (137 - sodium)
    value = half_up(raw)
    steps.add(
        f"MELD-Na = {initial} + 1.32 × (137 − {sodium:g}) − 0.033 × {initial} × (137 − {sodium:g}) = {raw:.2f}, "
        f"rounded to {value}"
    )
    return _capped(value, steps)


MELD_INPUTS = (
    CREATININE,
    BILIRUBIN,
    INR,
    DIALYSIS,
)

MELD = _DATA.calculator("meld", inputs=MELD_INPUTS, compute=_meld)

MELD_NA = _DATA.calculator(
    "meld_na", inputs=(*MELD_INPUTS, SODIUM.model_copy(update={"minimum": 100, "maximum": 180})), compute=_meld_na
)


# --- FIB-4 ---------------------------------------------------------------------------------------------------------


def _fib_4(v: Values, steps: Steps) -> float:
    age, ast, alt, platelets = v["age"], v["ast"], v["alt"], v["platelets"]
    if platelets <= 0:
        raise CalculatorInputError("platelets (platelet count) must be above 0 for FIB-4 (it divides by it)")
    value = float(age * ast / (platelets * math.sqrt(alt)))
    steps.add(f"FIB-4 = age × AST / (platelets × √ALT) = {age:g} × {ast:g} / ({platelets:g} × √{alt:g}) = {value:.3f}")
    return value


FIB_4 = _DATA.calculator("fib_4", inputs=(AGE.model_copy(update={"minimum": 18}), AST, ALT, PLATELETS), compute=_fib_4)


# --- Glasgow-Blatchford --------------------------------------------------------------------------------------------


def _blatchford_hemoglobin(v: Values) -> int:
    hemoglobin = v["hemoglobin"]
    if v["sex"] == "male":
        return 0 if hemoglobin >= 13 else (1 if hemoglobin >= 12 else (3 if hemoglobin >= 10 else 6))
    return 0 if hemoglobin >= 12 else (1 if hemoglobin >= 10 else 6)


def _glasgow_blatchford(v: Values, steps: Steps) -> float:
    urea = v["bun"]
    points = 6 if urea >= 25 else (4 if urea >= 10 else (3 if urea >= 8 else (2 if urea >= 6.5 else 0)))
    total = steps.points(f"blood urea {urea:g} mmol/L (6.5-8: 2, 8-10: 3, 10-25: 4, ≥ 25: 6)", points, 0)
    cutoffs = "men 12-13: 1, 10-12: 3, < 10: 6" if v["sex"] == "male" else "women 10-12: 1, < 10: 6"
    total = steps.points(f"haemoglobin {v['hemoglobin']:g} g/dL ({cutoffs})", _blatchford_hemoglobin(v), total)
    systolic = v["systolic_bp"]
    points = 0 if systolic >= 110 else (1 if systolic >= 100 else (2 if systolic >= 90 else 3))
    total = steps.points(f"systolic BP {systolic:g} mmHg (100-109: 1, 90-99: 2, < 90: 3)", points, total)
    total = steps.points(f"pulse {v['heart_rate']:g} ≥ 100/min", 1 if v["heart_rate"] >= 100 else 0, total)
    for name, label, points in BLATCHFORD_MARKERS:
        total = steps.points(f"{label}: {'yes' if v[name] else 'no'}", points if v[name] else 0, total)
    return total


BLATCHFORD_MARKERS = (
    ("melena", "presentation with melaena", 1),
    ("syncope", "presentation with syncope", 2),
    ("hepatic_disease", "hepatic disease", 2),
    ("cardiac_failure", "cardiac failure", 2),
)
BLATCHFORD_WORDS = {
    "melena": ("melena", "melaena", "black stools", "tarry stools"),
    "syncope": ("syncope", "fainted", "collapse"),
    "hepatic_disease": ("liver disease", "hepatic disease", "cirrhosis"),
    "cardiac_failure": ("heart failure", "cardiac failure", "CHF"),
}

GLASGOW_BLATCHFORD = _DATA.calculator(
    "glasgow_blatchford",
    inputs=(
        UREA,
        _DATA.input("hemoglobin"),
        SEX,
        SYSTOLIC_BP,
        HEART_RATE,
        *(
            criterion(
                name,
                label,
                BLATCHFORD_WORDS[name],
                f"{label} not documented counts as absent: the score adds points only for markers present "
                "(Blatchford 2000)",
            )
            for name, label, _ in BLATCHFORD_MARKERS
        ),
    ),
    compute=_glasgow_blatchford,
)


# --- Ranson --------------------------------------------------------------------------------------------------------

GLUCOSE = _DATA.input("glucose")
LDH = _DATA.input("ldh")


def _ranson_admission_criteria(v: Values, steps: Steps, total: float) -> float:
    total = flag(steps, f"age {v['age']:g} > 55 years", v["age"] > 55, 1, total)
    total = flag(steps, f"white cells {v['wbc']:g} × 10⁹/L > 16", v["wbc"] > 16, 1, total)
    total = flag(steps, f"glucose {v['glucose']:g} mg/dL > 200", v["glucose"] > 200, 1, total)
    total = flag(steps, f"LDH {v['ldh']:g} U/L > 350", v["ldh"] > 350, 1, total)
    return flag(steps, f"AST {v['ast']:g} U/L > 250", v["ast"] > 250, 1, total)


def _ranson_admission(v: Values, steps: Steps) -> float:
    total = _ranson_admission_criteria(v, steps, 0)
    steps.add("the 48-hour criteria are not included (calculator 'ranson' takes them)")
    return total


def _ranson(v: Values, steps: Steps) -> float:
    total = _ranson_admission_criteria(v, steps, 0)
    fall = v["hematocrit"] - v["hematocrit_48h"]
    total = flag(
        steps,
        f"hematocrit fall {v['hematocrit']:g} → {v['hematocrit_48h']:g}% = {fall:g} > 10 points",
        fall > 10,
        1,
        total,
    )
    rise = v["bun_48h"] - v["bun"]
    total = flag(steps, f"BUN rise {v['bun']:g} → {v['bun_48h']:g} mg/dL = {rise:g} > 5", rise > 5, 1, total)
    total = flag(steps, f"calcium {v['calcium']:g} mg/dL < 8", v["calcium"] < 8, 1, total)
    total = flag(steps, f"PaO₂ {v['pao2']:g} mmHg < 60", v["pao2"] < 60, 1, total)
    total = flag(steps, f"base deficit {v['base_deficit']:g} mmol/L > 4", v["base_deficit"] > 4, 1, total)
    return flag(
        steps, f"fluid sequestration {v['fluid_sequestration']:g} L > 6", v["fluid_sequestration"] > 6, 1, total
    )


RANSON_ADMISSION_INPUTS = (AGE, WBC, GLUCOSE, LDH, AST)

RANSON_ADMISSION = _DATA.calculator("ranson_admission", inputs=RANSON_ADMISSION_INPUTS, compute=_ranson_admission)

RANSON = _DATA.calculator(
    "ranson",
    inputs=(
        *RANSON_ADMISSION_INPUTS,
        HEMATOCRIT.model_copy(update={"label": "hematocrit at admission"}),
        HEMATOCRIT.model_copy(update={"name": "hematocrit_48h", "label": "hematocrit at 48 hours"}),
        _DATA.input("bun"),
        _DATA.input("bun_48h"),
        _DATA.input("calcium"),
        PAO2.model_copy(update={"label": "arterial PaO₂ within 48 hours"}),
        _DATA.input("base_deficit"),
        _DATA.input("fluid_sequestration"),
    ),
    compute=_ranson,
)

CALCULATORS = (CHILD_PUGH, MELD, MELD_NA, FIB_4, GLASGOW_BLATCHFORD, RANSON_ADMISSION, RANSON)
