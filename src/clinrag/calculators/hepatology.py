"""Liver and gastrointestinal scores (issue 19): Child-Pugh, MELD (UNOS, three variables) and MELD-Na, FIB-4, the
Glasgow-Blatchford bleeding score, and Ranson's criteria for acute pancreatitis (at admission, and in full at 48 h).

Example:
    >>> MELD.run({"creatinine": 1.0, "bilirubin": 1.5, "inr": 1.5}).value
    13.0
"""

from __future__ import annotations

import math

from clinrag.calculators.common import SEX
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
    criterion,
)
from clinrag.calculators.spec import Band, Calculator, CalculatorInputError, Input, Source, Steps, Values

INR = Input(
    name="inr",
    label="international normalised ratio (INR)",
    minimum=0.5,
    maximum=20,
    synonyms=("INR", "international normalized ratio", "PT/INR"),
)
ALBUMIN = Input(
    name="albumin",
    label="serum albumin",
    unit="g/dL",
    minimum=0.5,
    maximum=7,
    synonyms=("albumin", "serum albumin", "alb"),
)
AST = Input(
    name="ast",
    label="aspartate aminotransferase (AST)",
    unit="U/L",
    minimum=1,
    maximum=20000,
    synonyms=("AST", "aspartate aminotransferase", "SGOT", "GOT"),
)
ALT = Input(
    name="alt",
    label="alanine aminotransferase (ALT)",
    unit="U/L",
    minimum=1,
    maximum=20000,
    synonyms=("ALT", "alanine aminotransferase", "SGPT", "GPT"),
)


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


CHILD_PUGH = Calculator(
    name="child_pugh",
    title="Child-Pugh score (cirrhosis severity)",
    inputs=(
        BILIRUBIN,
        ALBUMIN,
        INR,
        Input(
            name="ascites",
            label="ascites",
            kind="choice",
            choices=tuple(ASCITES),
            synonyms=("ascites", "fluid in the abdomen"),
        ),
        Input(
            name="encephalopathy",
            label="hepatic encephalopathy",
            kind="choice",
            choices=tuple(ENCEPHALOPATHY),
            synonyms=("encephalopathy", "hepatic encephalopathy", "HE", "asterixis"),
        ),
    ),
    unit="points",
    source=Source(
        citation="Pugh RN, Murray-Lyon IM, Dawson JL, Pietroni MC, Williams R. Transection of the oesophagus for "
        "bleeding oesophageal varices. Br J Surg 1973;60(8):646-649 (prothrombin time there; INR thresholds < 1.7, "
        "1.7-2.3, > 2.3 as in current use).",
    ),
    compute=_child_pugh,
    bands=(
        Band(high=7, label="class A (5-6)", meaning="well-compensated cirrhosis"),
        Band(low=7, high=10, label="class B (7-9)", meaning="significant functional compromise"),
        Band(low=10, label="class C (10-15)", meaning="decompensated cirrhosis"),
    ),
    synonyms=("Child-Pugh", "Child Pugh", "Child-Turcotte-Pugh", "CTP", "Child's class"),
    indications=("cirrhosis severity", "liver disease prognosis", "liver function"),
    digits=0,
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


MELD_BANDS = (
    Band(high=10, label="below 10", meaning="3-month mortality about 1.9%"),
    Band(low=10, high=20, label="10-19", meaning="3-month mortality about 6.0%"),
    Band(low=20, high=30, label="20-29", meaning="3-month mortality about 19.6%"),
    Band(low=30, high=40, label="30-39", meaning="3-month mortality about 52.6%"),
    Band(low=40, label="40", meaning="3-month mortality about 71.3%"),
)
MELD_BANDS_CITATION = (
    "Wiesner R, Edwards E, Freeman R, et al. Model for end-stage liver disease (MELD) and allocation of donor "
    "livers. Gastroenterology 2003;124(1):91-96."
)
MELD_INPUTS = (
    CREATININE,
    BILIRUBIN,
    INR,
    DIALYSIS,
)

MELD = Calculator(
    name="meld",
    title="MELD score (UNOS, creatinine, bilirubin, INR)",
    inputs=MELD_INPUTS,
    unit="points",
    source=Source(
        citation="Kamath PS, Wiesner RH, Malinchoc M, et al. A model to predict survival in patients with end-stage "
        "liver disease. Hepatology 2001;33(2):464-470; as adopted by UNOS/OPTN (etiology term dropped; values below "
        "1.0 set to 1.0, creatinine capped at 4.0 mg/dL or set to 4.0 after dialysis; score capped at 40).",
        bands_citation=MELD_BANDS_CITATION,
    ),
    compute=_meld,
    bands=MELD_BANDS,
    synonyms=("MELD", "model for end-stage liver disease", "UNOS MELD", "original MELD"),
    indications=("liver disease mortality", "liver transplant priority", "cirrhosis prognosis"),
    digits=0,
)

MELD_NA = Calculator(
    name="meld_na",
    title="MELD-Na score (MELD with serum sodium, OPTN 2016)",
    inputs=(*MELD_INPUTS, SODIUM.model_copy(update={"minimum": 100, "maximum": 180})),
    unit="points",
    source=Source(
        citation="Kim WR, Biggins SW, Kremers WK, et al. Hyponatremia and mortality among patients on the "
        "liver-transplant waiting list. N Engl J Med 2008;359(10):1018-1026; as implemented by OPTN policy 9.1 "
        "(2016): sodium bounded to 125-137 mmol/L and added only when MELD(i) > 11; score capped at 40.",
        bands_citation=MELD_BANDS_CITATION,
    ),
    compute=_meld_na,
    bands=MELD_BANDS,
    synonyms=("MELD-Na", "MELDNa", "MELD sodium", "MELD Na"),
    indications=("liver disease mortality", "liver transplant priority", "cirrhosis prognosis"),
    digits=0,
)


# --- FIB-4 ---------------------------------------------------------------------------------------------------------


def _fib_4(v: Values, steps: Steps) -> float:
    age, ast, alt, platelets = v["age"], v["ast"], v["alt"], v["platelets"]
    if platelets <= 0:
        raise CalculatorInputError("platelets (platelet count) must be above 0 for FIB-4 (it divides by it)")
    value = float(age * ast / (platelets * math.sqrt(alt)))
    steps.add(f"FIB-4 = age × AST / (platelets × √ALT) = {age:g} × {ast:g} / ({platelets:g} × √{alt:g}) = {value:.3f}")
    return value


FIB_4 = Calculator(
    name="fib_4",
    title="Fibrosis-4 (FIB-4) index for liver fibrosis",
    inputs=(AGE.model_copy(update={"minimum": 18}), AST, ALT, PLATELETS),
    unit="",
    source=Source(
        citation="Sterling RK, Lissen E, Clumeck N, et al. Development of a simple noninvasive index to predict "
        "significant fibrosis in patients with HIV/HCV coinfection. Hepatology 2006;43(6):1317-1325.",
    ),
    compute=_fib_4,
    bands=(
        Band(high=1.45, label="below 1.45", meaning="advanced fibrosis unlikely (negative predictive value 90%)"),
        Band(low=1.45, high=3.25, label="1.45-3.25", meaning="indeterminate: further testing (elastography)"),
        Band(low=3.25, label="above 3.25", meaning="advanced fibrosis likely (positive predictive value 65%)"),
    ),
    synonyms=("FIB-4", "FIB4", "fibrosis-4", "fibrosis 4 index"),
    indications=("liver fibrosis", "advanced fibrosis", "NAFLD fibrosis", "hepatitis C fibrosis", "cirrhosis risk"),
    digits=2,
)


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

GLASGOW_BLATCHFORD = Calculator(
    name="glasgow_blatchford",
    title="Glasgow-Blatchford bleeding score (upper GI bleeding)",
    inputs=(
        UREA,
        Input(
            name="hemoglobin",
            label="haemoglobin",
            unit="g/dL",
            minimum=1,
            maximum=25,
            synonyms=("hemoglobin", "haemoglobin", "Hb", "Hgb"),
        ),
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
    unit="points",
    source=Source(
        citation="Blatchford O, Murray WR, Blatchford M. A risk score to predict need for treatment for "
        "upper-gastrointestinal haemorrhage. Lancet 2000;356(9238):1318-1321.",
        bands_citation="Stanley AJ, Ashley D, Dalton HR, et al. Outpatient management of patients with low-risk "
        "upper-gastrointestinal haemorrhage: multicentre validation and prospective evaluation. Lancet "
        "2009;373(9657):42-47.",
    ),
    compute=_glasgow_blatchford,
    bands=(
        Band(high=1, label="0", meaning="low risk: outpatient management may be considered (Stanley 2009)"),
        Band(low=1, high=6, label="1-5", meaning="not low risk: admission and endoscopy"),
        Band(
            low=6,
            label="6 or more",
            meaning="high risk: more than half need an intervention (transfusion, endoscopic therapy or surgery)",
        ),
    ),
    synonyms=("Glasgow-Blatchford", "Blatchford score", "GBS", "Glasgow Blatchford bleeding score"),
    indications=("upper GI bleeding", "gastrointestinal haemorrhage risk", "need for endoscopic intervention"),
    digits=0,
)


# --- Ranson --------------------------------------------------------------------------------------------------------

GLUCOSE = Input(
    name="glucose",
    label="blood glucose",
    unit="mg/dL",
    substance="glucose",
    minimum=10,
    maximum=3000,
    synonyms=("glucose", "blood glucose", "blood sugar", "BG"),
)
LDH = Input(
    name="ldh",
    label="lactate dehydrogenase (LDH)",
    unit="U/L",
    minimum=10,
    maximum=50000,
    synonyms=("LDH", "lactate dehydrogenase", "LD"),
)


def _ranson_admission_criteria(v: Values, steps: Steps, total: float) -> float:
    total = _met(steps, f"age {v['age']:g} > 55 years", v["age"] > 55, total)
    total = _met(steps, f"white cells {v['wbc']:g} × 10⁹/L > 16", v["wbc"] > 16, total)
    total = _met(steps, f"glucose {v['glucose']:g} mg/dL > 200", v["glucose"] > 200, total)
    total = _met(steps, f"LDH {v['ldh']:g} U/L > 350", v["ldh"] > 350, total)
    return _met(steps, f"AST {v['ast']:g} U/L > 250", v["ast"] > 250, total)


def _met(steps: Steps, label: str, met: bool, total: float) -> float:
    return steps.points(f"{label}: {'yes' if met else 'no'}", 1 if met else 0, total)


def _ranson_admission(v: Values, steps: Steps) -> float:
    total = _ranson_admission_criteria(v, steps, 0)
    steps.add("the 48-hour criteria are not included (calculator 'ranson' takes them)")
    return total


def _ranson(v: Values, steps: Steps) -> float:
    total = _ranson_admission_criteria(v, steps, 0)
    fall = v["hematocrit"] - v["hematocrit_48h"]
    total = _met(
        steps,
        f"hematocrit fall {v['hematocrit']:g} → {v['hematocrit_48h']:g}% = {fall:g} > 10 points",
        fall > 10,
        total,
    )
    rise = v["bun_48h"] - v["bun"]
    total = _met(steps, f"BUN rise {v['bun']:g} → {v['bun_48h']:g} mg/dL = {rise:g} > 5", rise > 5, total)
    total = _met(steps, f"calcium {v['calcium']:g} mg/dL < 8", v["calcium"] < 8, total)
    total = _met(steps, f"PaO₂ {v['pao2']:g} mmHg < 60", v["pao2"] < 60, total)
    total = _met(steps, f"base deficit {v['base_deficit']:g} mmol/L > 4", v["base_deficit"] > 4, total)
    return _met(steps, f"fluid sequestration {v['fluid_sequestration']:g} L > 6", v["fluid_sequestration"] > 6, total)


RANSON_ADMISSION_INPUTS = (AGE, WBC, GLUCOSE, LDH, AST)
RANSON_CITATION = (
    "Ranson JH, Rifkind KM, Roses DF, Fink SD, Eng K, Spencer FC. Prognostic signs and the role of operative "
    "management in acute pancreatitis. Surg Gynecol Obstet 1974;139(1):69-81 (the criteria for non-gallstone "
    "pancreatitis)."
)
RANSON_INDICATIONS = ("acute pancreatitis severity", "pancreatitis mortality", "pancreatitis prognosis")

RANSON_ADMISSION = Calculator(
    name="ranson_admission",
    title="Ranson's criteria at admission (acute pancreatitis)",
    inputs=RANSON_ADMISSION_INPUTS,
    unit="criteria",
    source=Source(citation=RANSON_CITATION),
    compute=_ranson_admission,
    synonyms=("Ranson at admission", "Ranson admission criteria", "Ranson 0 h"),
    indications=RANSON_INDICATIONS,
    digits=0,
)

RANSON = Calculator(
    name="ranson",
    title="Ranson's criteria (acute pancreatitis, admission and 48 hours)",
    inputs=(
        *RANSON_ADMISSION_INPUTS,
        HEMATOCRIT.model_copy(update={"label": "hematocrit at admission"}),
        HEMATOCRIT.model_copy(update={"name": "hematocrit_48h", "label": "hematocrit at 48 hours"}),
        Input(
            name="bun",
            label="blood urea nitrogen at admission",
            unit="mg/dL",
            substance="urea_nitrogen",
            minimum=1,
            maximum=300,
            synonyms=("BUN", "blood urea nitrogen", "urea"),
        ),
        Input(
            name="bun_48h",
            label="blood urea nitrogen at 48 hours",
            unit="mg/dL",
            substance="urea_nitrogen",
            minimum=1,
            maximum=300,
            synonyms=("BUN at 48 hours", "repeat BUN"),
        ),
        Input(
            name="calcium",
            label="serum calcium within 48 hours",
            unit="mg/dL",
            substance="calcium",
            minimum=2,
            maximum=20,
            synonyms=("calcium", "Ca", "serum calcium"),
        ),
        PAO2.model_copy(update={"label": "arterial PaO₂ within 48 hours"}),
        Input(
            name="base_deficit",
            label="base deficit within 48 hours (negative base excess)",
            unit="mmol/L",
            substance="bicarbonate",
            minimum=-30,
            maximum=40,
            synonyms=("base deficit", "negative base excess", "BD"),
        ),
        Input(
            name="fluid_sequestration",
            label="estimated fluid sequestration in 48 hours (fluid in minus out)",
            unit="L",
            minimum=-20,
            maximum=40,
            synonyms=("fluid sequestration", "third spacing", "fluid balance"),
        ),
    ),
    unit="criteria",
    source=Source(citation=RANSON_CITATION),
    compute=_ranson,
    bands=(
        Band(high=3, label="0-2", meaning="mortality about 1%: severe pancreatitis unlikely"),
        Band(low=3, high=5, label="3-4", meaning="mortality about 15%: severe pancreatitis"),
        Band(low=5, high=7, label="5-6", meaning="mortality about 40%"),
        Band(low=7, label="7-11", meaning="mortality about 90-100%"),
    ),
    synonyms=("Ranson", "Ranson's criteria", "Ranson score", "Ranson criteria"),
    indications=RANSON_INDICATIONS,
    digits=0,
)

CALCULATORS = (CHILD_PUGH, MELD, MELD_NA, FIB_4, GLASGOW_BLATCHFORD, RANSON_ADMISSION, RANSON)
