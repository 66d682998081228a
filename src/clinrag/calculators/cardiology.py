"""Cardiology and venous thromboembolism calculators: stroke and bleeding risk in atrial fibrillation
(CHA2DS2-VASc, HAS-BLED), chest pain (HEART, TIMI), perioperative cardiac risk (RCRI), pulmonary embolism and deep
vein thrombosis (Wells, PERC), VTE risk of inpatients (Caprini, Padua), 10-year coronary risk (Framingham), the
corrected QT interval (Bazett, Fridericia, Framingham, Hodges, Rautaharju) and the mean arterial pressure.

Scores count a criterion only when it is present; a criterion the caller does not give is therefore scored absent,
and the result says so (each criterion's ``default_rule``). Measured values (age, heart rate, creatinine, BMI,
blood pressure, cholesterol) are never defaulted: without them the result lists what is missing.

Example:
    >>> result = CHA2DS2_VASC.run({"age": 72, "sex": "female", "hypertension": True})
    >>> result.value, result.interpretation.label
    (3.0, 'high risk')
    >>> round(QTC_BAZETT.run({"qt": "0.4 s", "heart_rate": 100}).value)
    516
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from clinrag.calculators.common import criterion
from clinrag.calculators.content import content
from clinrag.calculators.spec import Band, Calculator, CalculatorInputError, Input, Source, Steps, Values

_DATA = content(__name__)

Item = tuple[Input, float]
"""A criterion of a score and the points it gives when present."""


def _criterion(name: str, label: str, source: str, *synonyms: str) -> Input:
    """A yes/no criterion scored only when present; not given, it counts as absent by the score's own rule."""
    rule = f"a criterion not documented scores 0: {source} gives points only for criteria present"
    return criterion(name, label, synonyms, rule)


Row = tuple[str, str, float, tuple[str, ...]]
"""A criterion as a row of a score's table: its key, its words, the points it gives when present, its synonyms."""


def _items(source: str, *rows: Row) -> tuple[Item, ...]:
    """The criteria of ``source``'s table, in order, each scored only when present (`_criterion`)."""
    return tuple((_criterion(name, label, source, *synonyms), points) for name, label, points, synonyms in rows)


def _age(maximum: float = 120, minimum: float = 0) -> Input:
    return Input(
        name="age", label="age", unit="year", minimum=minimum, maximum=maximum, synonyms=("age", "years old", "yo")
    )


def _choice(name: str, label: str, choices: tuple[str, ...], *synonyms: str) -> Input:
    return Input(name=name, label=label, kind="choice", choices=choices, synonyms=synonyms)


SEX = _choice("sex", "sex", ("female", "male"), "sex", "gender", "woman", "man")
HEART_RATE = _DATA.input("heart_rate")
BMI_INPUT = _DATA.input("bmi_input")


def _years(v: Values) -> int:
    """Age in completed years (the scores' age bands are in whole years)."""
    return math.floor(float(v["age"]))


def _by_age(steps: Steps, v: Values, total: float, cuts: Sequence[tuple[int, float, str]], below: str) -> float:
    """Points for age from ``cuts`` (lowest age in completed years, points, words), checked from the oldest."""
    age = _years(v)
    for low, points, words in cuts:
        if age >= low:
            return steps.points(f"age {age} years ({words})", points, total)
    return steps.points(f"age {age} years ({below})", 0, total)


def _present(v: Values, steps: Steps, items: Sequence[Item], total: float = 0) -> float:
    """Adds each criterion's points when present, one step each, and names the absent ones in one step."""
    absent: list[str] = []
    for spec, points in items:
        if v[spec.name]:
            total = steps.points(spec.label, points, total)
        else:
            absent.append(spec.label)
    if absent:
        steps.add(f"absent (0 points): {'; '.join(absent)} → {total:g}")
    return total


def _inputs(*groups: Input | Sequence[Item]) -> tuple[Input, ...]:
    """The inputs of a calculator: single inputs and the criteria of item lists, in order."""
    found: list[Input] = []
    for group in groups:
        if isinstance(group, Input):
            found.append(group)
        else:
            found.extend(spec for spec, _ in group)
    return tuple(found)


# --- CHA2DS2-VASc ---------------------------------------------------------------------------------------------------

_LIP = "CHA2DS2-VASc (Lip 2010)"
_CHA2DS2_VASC_ITEMS: tuple[Item, ...] = _items(
    _LIP,
    (
        "chf",
        "congestive heart failure or LV dysfunction",
        1,
        ("CHF", "heart failure", "HFrEF", "LV dysfunction", "reduced ejection fraction"),
    ),
    ("hypertension", "hypertension", 1, ("HTN", "hypertension", "high blood pressure")),
    (
        "stroke_tia_thromboembolism",
        "prior stroke, TIA or thromboembolism",
        2,
        ("stroke", "CVA", "TIA", "transient ischemic attack", "systemic embolism", "thromboembolism"),
    ),
    (
        "vascular_disease",
        "vascular disease (prior MI, peripheral artery disease, aortic plaque)",
        1,
        ("prior MI", "myocardial infarction", "PAD", "peripheral artery disease", "aortic plaque"),
    ),
    ("diabetes", "diabetes mellitus", 1, ("DM", "diabetes", "T2DM", "T1DM")),
)


def _cha2ds2_vasc(v: Values, steps: Steps) -> float:
    total = _by_age(steps, v, 0, ((75, 2, "≥ 75"), (65, 1, "65–74")), "< 65")
    total = steps.points(f"sex: {v['sex']}", 1 if v["sex"] == "female" else 0, total)
    return _present(v, steps, _CHA2DS2_VASC_ITEMS, total)


CHA2DS2_VASC = _DATA.calculator("cha2ds2_vasc", inputs=_inputs(_age(), SEX, _CHA2DS2_VASC_ITEMS), compute=_cha2ds2_vasc)

# --- HAS-BLED -------------------------------------------------------------------------------------------------------

_PISTERS = "HAS-BLED (Pisters 2010)"
_HAS_BLED_ITEMS: tuple[Item, ...] = _items(
    _PISTERS,
    (
        "uncontrolled_hypertension",
        "uncontrolled hypertension (systolic > 160 mmHg)",
        1,
        ("uncontrolled hypertension", "HTN"),
    ),
    (
        "renal_disease",
        "abnormal renal function (dialysis, transplant, creatinine ≥ 200 µmol/L)",
        1,
        ("dialysis", "renal transplant", "CKD", "renal disease"),
    ),
    (
        "liver_disease",
        "abnormal liver function (cirrhosis, or bilirubin > 2× ULN with AST/ALT/ALP > 3× ULN)",
        1,
        ("cirrhosis", "liver disease", "hepatic dysfunction"),
    ),
    ("stroke", "prior stroke", 1, ("stroke", "CVA")),
    (
        "bleeding",
        "prior major bleeding or predisposition to bleeding",
        1,
        ("bleeding history", "major bleeding", "anaemia", "bleeding diathesis"),
    ),
    (
        "labile_inr",
        "labile INR (unstable or high INRs, time in therapeutic range < 60%)",
        1,
        ("labile INR", "TTR < 60%"),
    ),
)
_HAS_BLED_DRUGS: tuple[Item, ...] = _items(
    _PISTERS,
    ("drugs", "antiplatelet agents or NSAIDs", 1, ("aspirin", "clopidogrel", "NSAID", "antiplatelet")),
    ("alcohol", "alcohol excess (≥ 8 drinks a week)", 1, ("alcohol", "drinks per week", "EtOH")),
)


def _has_bled(v: Values, steps: Steps) -> float:
    total = _present(v, steps, _HAS_BLED_ITEMS)
    total = _by_age(steps, v, total, ((66, 1, "elderly, > 65"),), "≤ 65")
    return _present(v, steps, _HAS_BLED_DRUGS, total)


HAS_BLED = _DATA.calculator("has_bled", inputs=_inputs(_age(), _HAS_BLED_ITEMS, _HAS_BLED_DRUGS), compute=_has_bled)

# --- HEART score ----------------------------------------------------------------------------------------------------

_SIX = "the HEART score (Six 2008)"
HEART_HISTORY = ("slightly suspicious", "moderately suspicious", "highly suspicious")
HEART_ECG = ("normal", "non-specific repolarization disturbance", "significant ST deviation")
HEART_TROPONIN = ("normal limit or below", "1 to 3 times normal limit", "more than 3 times normal limit")
_HEART_FACTORS: tuple[Item, ...] = _items(
    _SIX,
    ("hypertension", "hypertension", 1, ("HTN", "hypertension")),
    ("hypercholesterolemia", "hypercholesterolemia", 1, ("hyperlipidemia", "high cholesterol", "dyslipidemia")),
    ("diabetes", "diabetes mellitus", 1, ("DM", "diabetes")),
    ("obesity", "obesity (BMI > 30 kg/m²)", 1, ("obese", "obesity")),
    ("smoking", "smoking (current, or stopped < 3 months ago)", 1, ("smoker", "tobacco", "cigarettes")),
    (
        "family_history",
        "family history of cardiovascular disease (parent or sibling before 65)",
        1,
        ("family history of CAD", "premature CAD in family"),
    ),
)
_HEART_ATHEROSCLEROSIS = _criterion(
    "atherosclerotic_disease",
    "known atherosclerotic disease (prior MI, PCI/CABG, stroke/TIA, peripheral arterial disease)",
    _SIX,
    "CAD",
    "prior MI",
    "PCI",
    "CABG",
    "PAD",
    "atherosclerosis",
)


def _heart_risk_factors(v: Values, steps: Steps, total: float) -> float:
    present = [spec.label for spec, _ in _HEART_FACTORS if v[spec.name]]
    athero = bool(v[_HEART_ATHEROSCLEROSIS.name])
    if athero:
        points, words = 2, "known atherosclerotic disease"
    elif len(present) >= 3:
        points, words = 2, f"{len(present)} risk factors (≥ 3)"
    elif present:
        points, words = 1, f"{len(present)} risk factor{'s' if len(present) > 1 else ''} (1-2)"
    else:
        points, words = 0, "no known risk factors"
    listed = f": {', '.join(present)}" if present else ""
    return steps.points(f"risk factors — {words}{listed}", points, total)


def _heart(v: Values, steps: Steps) -> float:
    total = steps.points(f"history: {v['history']}", HEART_HISTORY.index(v["history"]), 0)
    total = steps.points(f"ECG: {v['ecg']}", HEART_ECG.index(v["ecg"]), total)
    total = _by_age(steps, v, total, ((65, 2, "≥ 65"), (45, 1, "45–64")), "< 45")
    total = _heart_risk_factors(v, steps, total)
    return steps.points(f"initial troponin: {v['troponin']}", HEART_TROPONIN.index(v["troponin"]), total)


HEART = _DATA.calculator(
    "heart_score",
    inputs=_inputs(
        _choice("history", "history (suspicion of ACS)", HEART_HISTORY, "history", "anamnesis", "chest pain story"),
        _choice("ecg", "ECG", HEART_ECG, "ECG", "EKG", "electrocardiogram", "ST depression", "repolarization"),
        _age(),
        _HEART_FACTORS,
        _HEART_ATHEROSCLEROSIS,
        _choice(
            "troponin",
            "initial troponin (relative to the normal limit)",
            HEART_TROPONIN,
            "troponin",
            "TnI",
            "TnT",
            "hs-troponin",
        ),
    ),
    compute=_heart,
)

# --- Revised Cardiac Risk Index -------------------------------------------------------------------------------------

_LEE = "the Revised Cardiac Risk Index (Lee 1999)"
_RCRI_ITEMS: tuple[Item, ...] = _items(
    _LEE,
    (
        "high_risk_surgery",
        "high-risk surgery (intraperitoneal, intrathoracic or suprainguinal vascular)",
        1,
        ("intraperitoneal surgery", "intrathoracic surgery", "vascular surgery"),
    ),
    (
        "ischemic_heart_disease",
        "ischemic heart disease (MI, positive exercise test, angina, nitrates, pathological Q waves)",
        1,
        ("CAD", "IHD", "prior MI", "angina", "Q waves"),
    ),
    (
        "heart_failure",
        "congestive heart failure (pulmonary edema, PND, bilateral rales, S3, redistribution on X-ray)",
        1,
        ("CHF", "heart failure"),
    ),
    ("cerebrovascular_disease", "cerebrovascular disease (stroke or TIA)", 1, ("stroke", "TIA", "CVA")),
    ("insulin", "preoperative treatment with insulin", 1, ("insulin", "insulin-treated diabetes")),
)
CREATININE = _DATA.input("creatinine")


def _rcri(v: Values, steps: Steps) -> float:
    total = _present(v, steps, _RCRI_ITEMS)
    high = v["creatinine"] > 2.0
    return steps.points(
        f"creatinine {v['creatinine']:g} mg/dL ({'> 2.0' if high else '≤ 2.0'} mg/dL)", 1 if high else 0, total
    )


RCRI = _DATA.calculator("rcri", inputs=_inputs(_RCRI_ITEMS, CREATININE), compute=_rcri)

# --- Wells criteria for pulmonary embolism --------------------------------------------------------------------------

_WELLS_PE = "the Wells PE score (Wells 2000)"
_WELLS_PE_ITEMS: tuple[Item, ...] = _items(
    _WELLS_PE,
    (
        "clinical_dvt",
        "clinical signs and symptoms of DVT (leg swelling and pain on palpation of the deep veins)",
        3,
        ("signs of DVT", "leg swelling", "calf tenderness"),
    ),
    (
        "pe_most_likely",
        "PE the most likely diagnosis (an alternative diagnosis less likely than PE)",
        3,
        ("PE most likely", "alternative diagnosis less likely"),
    ),
)
_WELLS_PE_REST: tuple[Item, ...] = _items(
    _WELLS_PE,
    (
        "immobilization_or_surgery",
        "immobilization ≥ 3 days or surgery in the previous 4 weeks",
        1.5,
        ("immobilization", "recent surgery", "bedridden"),
    ),
    ("previous_vte", "previous, objectively diagnosed DVT or PE", 1.5, ("prior DVT", "prior PE", "VTE")),
    ("hemoptysis", "hemoptysis", 1, ("hemoptysis", "haemoptysis", "coughing blood")),
    (
        "malignancy",
        "malignancy (treated in the last 6 months or palliative)",
        1,
        ("cancer", "active malignancy", "chemotherapy"),
    ),
)


def _wells_pe(v: Values, steps: Steps) -> float:
    total = _present(v, steps, _WELLS_PE_ITEMS)
    fast = v["heart_rate"] > 100
    total = steps.points(
        f"heart rate {v['heart_rate']:g} bpm ({'> 100' if fast else '≤ 100'})", 1.5 if fast else 0, total
    )
    return _present(v, steps, _WELLS_PE_REST, total)


WELLS_PE = _DATA.calculator("wells_pe", inputs=_inputs(_WELLS_PE_ITEMS, HEART_RATE, _WELLS_PE_REST), compute=_wells_pe)

# --- Wells criteria for deep vein thrombosis ------------------------------------------------------------------------

_WELLS_DVT = "the Wells DVT score (Wells 2003)"
_WELLS_DVT_ITEMS: tuple[Item, ...] = _items(
    _WELLS_DVT,
    (
        "active_cancer",
        "active cancer (treatment within 6 months or palliative)",
        1,
        ("cancer", "malignancy", "chemotherapy"),
    ),
    (
        "paralysis_or_cast",
        "paralysis, paresis or recent plaster immobilization of the legs",
        1,
        ("paresis", "plaster cast", "paralysis"),
    ),
    (
        "bedridden_or_surgery",
        "recently bedridden ≥ 3 days or major surgery within 12 weeks",
        1,
        ("bedridden", "major surgery", "bed rest"),
    ),
    (
        "deep_vein_tenderness",
        "localized tenderness along the deep venous system",
        1,
        ("tenderness along the deep veins", "calf tenderness"),
    ),
    ("entire_leg_swollen", "entire leg swollen", 1, ("whole leg swelling", "leg swollen")),
    ("calf_swelling", "calf swelling > 3 cm compared with the other leg", 1, ("calf swelling", "calf circumference")),
    ("pitting_edema", "pitting edema confined to the symptomatic leg", 1, ("pitting edema", "oedema")),
    ("collateral_veins", "collateral superficial veins (nonvaricose)", 1, ("collateral veins", "superficial veins")),
    ("previous_dvt", "previously documented DVT", 1, ("prior DVT", "history of DVT")),
    (
        "alternative_diagnosis",
        "alternative diagnosis at least as likely as DVT",
        -2,
        ("alternative diagnosis", "cellulitis", "Baker's cyst"),
    ),
)


def _wells_dvt(v: Values, steps: Steps) -> float:
    return _present(v, steps, _WELLS_DVT_ITEMS)


WELLS_DVT = _DATA.calculator("wells_dvt", inputs=_inputs(_WELLS_DVT_ITEMS), compute=_wells_dvt)

# --- PERC rule ------------------------------------------------------------------------------------------------------

_KLINE = "the PERC rule (Kline 2004)"
OXYGEN_SATURATION = _DATA.input("oxygen_saturation")
_PERC_ITEMS: tuple[Item, ...] = _items(
    _KLINE,
    ("unilateral_leg_swelling", "unilateral leg swelling", 1, ("leg swelling", "unilateral edema")),
    ("hemoptysis", "hemoptysis", 1, ("hemoptysis", "haemoptysis")),
    (
        "recent_surgery_or_trauma",
        "surgery or trauma within 4 weeks requiring hospital treatment",
        1,
        ("recent surgery", "trauma"),
    ),
    ("previous_vte", "prior PE or DVT", 1, ("prior DVT", "prior PE", "VTE")),
    (
        "hormone_use",
        "hormone use (oral contraceptives, hormone replacement or estrogen)",
        1,
        ("OCP", "oral contraceptive", "HRT", "estrogen"),
    ),
)


def _perc(v: Values, steps: Steps) -> float:
    total = _by_age(steps, v, 0, ((50, 1, "≥ 50"),), "< 50")
    fast = v["heart_rate"] >= 100
    total = steps.points(f"heart rate {v['heart_rate']:g} bpm ({'≥ 100' if fast else '< 100'})", int(fast), total)
    low = v["oxygen_saturation"] < 95
    total = steps.points(f"SaO₂ {v['oxygen_saturation']:g}% ({'< 95%' if low else '≥ 95%'})", int(low), total)
    return _present(v, steps, _PERC_ITEMS, total)


PERC = _DATA.calculator("perc", inputs=_inputs(_age(), HEART_RATE, OXYGEN_SATURATION, _PERC_ITEMS), compute=_perc)

# --- Framingham risk score (hard CHD, ATP III) ----------------------------------------------------------------------


@dataclass(frozen=True)
class FraminghamCoefficients:
    """A sex's coefficients of the ATP III Framingham hard-CHD equation (cholesterol in mg/dL, SBP in mmHg)."""

    ln_age: float
    ln_total_cholesterol: float
    ln_hdl: float
    ln_sbp: float
    treated: float
    smoker: float
    ln_age_ln_total_cholesterol: float
    ln_age_smoker: float
    ln_age_squared: float
    constant: float
    baseline_survival: float
    smoker_age_cap: float


FRAMINGHAM_COEFFICIENTS = {
    "male": FraminghamCoefficients(
        ln_age=52.00961,
        ln_total_cholesterol=20.014077,
        ln_hdl=-0.905964,
        ln_sbp=1.305784,
        treated=0.241549,
        smoker=12.096316,
        ln_age_ln_total_cholesterol=-4.605038,
        ln_age_smoker=-2.84367,
        ln_age_squared=-2.93323,
        constant=-172.300168,
        baseline_survival=0.9402,
        smoker_age_cap=70,
    ),
    "female": FraminghamCoefficients(
        ln_age=31.764001,
        ln_total_cholesterol=22.465206,
        ln_hdl=-1.187731,
        ln_sbp=2.552905,
        treated=0.420251,
        smoker=13.07543,
        ln_age_ln_total_cholesterol=-5.060998,
        ln_age_smoker=-2.996945,
        ln_age_squared=0.0,
        constant=-146.5933061,
        baseline_survival=0.98767,
        smoker_age_cap=78,
    ),
}
"""The published coefficients and 10-year baseline survival, by sex; the age in the ln(age) × smoker term is capped
(70 for men, 78 for women)."""


def framingham_sum(v: Values) -> float:
    """The linear predictor Σβx of the ATP III hard-CHD equation for inputs ``v`` (in the calculator's units).

    Example:
        >>> round(framingham_sum({"sex": "male", "age": 55, "total_cholesterol": 213, "hdl": 50, "sbp": 120,
        ...                       "bp_treated": False, "smoker": False}), 4)
        0.0875
    """
    c = FRAMINGHAM_COEFFICIENTS[v["sex"]]
    ln_age = math.log(v["age"])
    ln_tc = math.log(v["total_cholesterol"])
    smoker = 1.0 if v["smoker"] else 0.0
    return (
        c.ln_age * ln_age
        + c.ln_total_cholesterol * ln_tc
        + c.ln_hdl * math.log(v["hdl"])
        + c.ln_sbp * math.log(v["sbp"])
        + c.treated * (1.0 if v["bp_treated"] else 0.0)
        + c.smoker * smoker
        + c.ln_age_ln_total_cholesterol * ln_age * ln_tc
        + c.ln_age_smoker * math.log(min(v["age"], c.smoker_age_cap)) * smoker
        + c.ln_age_squared * ln_age * ln_age
        + c.constant
    )


def _framingham(v: Values, steps: Steps) -> float:
    if v["hdl"] >= v["total_cholesterol"]:
        raise CalculatorInputError(
            f"hdl (HDL cholesterol) = {v['hdl']:g} mg/dL is not below total_cholesterol (total cholesterol) = "
            f"{v['total_cholesterol']:g} mg/dL"
        )
    c = FRAMINGHAM_COEFFICIENTS[v["sex"]]
    age, tc, smoker = v["age"], v["total_cholesterol"], int(bool(v["smoker"]))
    terms = [
        (c.ln_age, f"ln(age {age:g})"),
        (c.ln_total_cholesterol, f"ln(total cholesterol {tc:g})"),
        (c.ln_hdl, f"ln(HDL {v['hdl']:g})"),
        (c.ln_sbp, f"ln(SBP {v['sbp']:g})"),
        (c.treated, f"treated {int(bool(v['bp_treated']))}"),
        (c.smoker, f"smoker {smoker}"),
        (c.ln_age_ln_total_cholesterol, "ln(age)·ln(total cholesterol)"),
        (c.ln_age_smoker, f"ln({min(age, c.smoker_age_cap):g}, age capped at {c.smoker_age_cap:g})·smoker {smoker}"),
        (c.ln_age_squared, "ln(age)²"),
    ]
    written = " ".join(f"{'−' if b < 0 else '+'} {abs(b)}·{words}" for b, words in terms if b).removeprefix("+ ")
    steps.add(f"{v['sex']}: Σβx = {written} − {abs(c.constant)}")
    total = framingham_sum(v)
    risk = 100 * (1 - float(c.baseline_survival ** math.exp(total)))
    steps.add(f"Σβx = {total:.4f}; 10-year risk = 1 − {c.baseline_survival}^exp({total:.4f}) = {risk:.2f}%")
    return risk


FRAMINGHAM = _DATA.calculator(
    "framingham_chd",
    inputs=(
        _age(maximum=79, minimum=20),
        SEX,
        _DATA.input("total_cholesterol"),
        _DATA.input("hdl"),
        _DATA.input("framingham_sbp"),
        _DATA.input("bp_treated"),
        _DATA.input("smoker"),
    ),
    compute=_framingham,
)

# --- Corrected QT interval ------------------------------------------------------------------------------------------

QT = _DATA.input("qt")
Correction = Callable[[float, float, float], tuple[float, str]]
"""QTc from the QT (ms), heart rate (bpm) and RR (s): the value and the formula with its numbers."""
_QTC_BANDS = (
    Band(high=450, label="not prolonged", meaning="QTc < 450 ms"),
    Band(low=450, high=460, label="borderline", meaning="prolonged in men (≥ 450 ms), not in women (≥ 460 ms)"),
    Band(low=460, high=500, label="prolonged", meaning="≥ 450 ms in men, ≥ 460 ms in women"),
    Band(low=500, label="markedly prolonged", meaning="QTc of 500 ms or more: risk of torsade de pointes"),
)
_QTC_BANDS_CITATION = (
    "Rautaharju PM, Surawicz B, Gettes LS. AHA/ACCF/HRS recommendations for the standardization and interpretation "
    "of the electrocardiogram, part IV: the ST segment, T and U waves, and the QT interval. Circulation "
    "2009;119(10):e241-e250; Drew BJ, Ackerman MJ, Funk M, et al. Prevention of torsade de pointes in hospital "
    "settings. Circulation 2010;121(8):1047-1060."
)


def _qtc(name: str, title: str, citation: str, correct: Correction, *synonyms: str) -> Calculator:
    def compute(v: Values, steps: Steps) -> float:
        rr = 60 / v["heart_rate"]
        steps.add(f"RR = 60 / {v['heart_rate']:g} bpm = {rr:.4f} s")
        value, formula = correct(v["qt"], v["heart_rate"], rr)
        steps.add(f"QTc = {formula} = {value:.1f} ms")
        return value

    return Calculator(
        name=name,
        title=title,
        inputs=(QT, HEART_RATE),
        unit="ms",
        source=Source(citation=citation, bands_citation=_QTC_BANDS_CITATION),
        compute=compute,
        bands=_QTC_BANDS,
        synonyms=("QTc", "corrected QT", *synonyms),
        indications=("corrected QT interval", "QT prolongation", "drug-induced QT prolongation"),
        digits=0,
    )


QTC_BAZETT = _qtc(
    "qtc_bazett",
    "Corrected QT interval (Bazett)",
    "Bazett HC. An analysis of the time-relations of electrocardiograms. Heart 1920;7:353-370.",
    lambda qt, hr, rr: (qt / math.sqrt(rr), f"QT / √RR = {qt:g} / √{rr:.4f}"),
    "Bazett",
    "QTc Bazett",
)
QTC_FRIDERICIA = _qtc(
    "qtc_fridericia",
    "Corrected QT interval (Fridericia)",
    "Fridericia LS. Die Systolendauer im Elektrokardiogramm bei normalen Menschen und bei Herzkranken. "
    "Acta Med Scand 1920;53:469-486.",
    lambda qt, hr, rr: (qt / rr ** (1 / 3), f"QT / ∛RR = {qt:g} / ∛{rr:.4f}"),
    "Fridericia",
    "Fredericia",
    "QTc Fridericia",
)
QTC_FRAMINGHAM = _qtc(
    "qtc_framingham",
    "Corrected QT interval (Framingham, Sagie)",
    "Sagie A, Larson MG, Goldberg RJ, Bengtson JR, Levy D. An improved method for adjusting the QT interval for "
    "heart rate (the Framingham Heart Study). Am J Cardiol 1992;70(7):797-801.",
    lambda qt, hr, rr: (qt + 154 * (1 - rr), f"QT + 154 ms × (1 − RR) = {qt:g} + 154 × (1 − {rr:.4f})"),
    "Framingham QTc",
    "Sagie",
)
QTC_HODGES = _qtc(
    "qtc_hodges",
    "Corrected QT interval (Hodges)",
    "Hodges M, Salerno D, Erlien D. Bazett's QT correction reviewed: evidence that a linear QT correction for heart "
    "rate is better. J Am Coll Cardiol 1983;1(2):694 (abstract).",
    lambda qt, hr, rr: (qt + 1.75 * (hr - 60), f"QT + 1.75 × (HR − 60) = {qt:g} + 1.75 × ({hr:g} − 60)"),
    "Hodges",
    "QTc Hodges",
)
QTC_RAUTAHARJU = _qtc(
    "qtc_rautaharju",
    "Corrected QT interval (Rautaharju)",
    "Rautaharju PM, Mason JW, Akiyama T. New age- and sex-specific criteria for QT prolongation based on rate "
    "correction formulas that minimize bias at the upper normal limits. Int J Cardiol 2014;174(3):535-540.",
    lambda qt, hr, rr: (qt * (120 + hr) / 180, f"QT × (120 + HR) / 180 = {qt:g} × (120 + {hr:g}) / 180"),
    "Rautaharju",
    "QTc Rautaharju",
)

# --- Mean arterial pressure -----------------------------------------------------------------------------------------

SBP = _DATA.input("sbp")
DBP = _DATA.input("dbp")


def _map(v: Values, steps: Steps) -> float:
    if v["dbp"] >= v["sbp"]:
        raise CalculatorInputError(
            f"dbp (diastolic blood pressure) = {v['dbp']:g} mmHg is not below sbp (systolic blood pressure) = "
            f"{v['sbp']:g} mmHg"
        )
    value = float(v["dbp"] + (v["sbp"] - v["dbp"]) / 3)
    steps.add(f"MAP = DBP + (SBP − DBP) / 3 = {v['dbp']:g} + ({v['sbp']:g} − {v['dbp']:g}) / 3 = {value:.1f} mmHg")
    return value


MAP = _DATA.calculator("map", inputs=(SBP, DBP), compute=_map)

# --- TIMI risk score for UA/NSTEMI ----------------------------------------------------------------------------------

_ANTMAN = "the TIMI risk score (Antman 2000)"
_TIMI_RISK_FACTORS: tuple[Item, ...] = _items(
    _ANTMAN,
    ("family_history", "family history of coronary artery disease", 1, ("family history of CAD",)),
    ("hypertension", "hypertension", 1, ("HTN", "hypertension")),
    ("hypercholesterolemia", "hypercholesterolemia", 1, ("hyperlipidemia", "high cholesterol")),
    ("diabetes", "diabetes mellitus", 1, ("DM", "diabetes")),
    ("current_smoker", "current smoker", 1, ("smoker", "smoking", "tobacco")),
)
_TIMI_ITEMS: tuple[Item, ...] = _items(
    _ANTMAN,
    ("known_cad", "known coronary stenosis ≥ 50%", 1, ("known CAD", "prior stenosis", "prior PCI")),
    ("aspirin", "aspirin use in the past 7 days", 1, ("aspirin", "ASA")),
    ("severe_angina", "severe angina (≥ 2 episodes in 24 hours)", 1, ("recurrent angina", "angina")),
    ("st_deviation", "ST deviation ≥ 0.5 mm on the presenting ECG", 1, ("ST depression", "ST changes")),
    (
        "positive_marker",
        "elevated cardiac marker (troponin or CK-MB)",
        1,
        ("positive troponin", "elevated troponin", "CK-MB"),
    ),
)


def _timi(v: Values, steps: Steps) -> float:
    total = _by_age(steps, v, 0, ((65, 1, "≥ 65"),), "< 65")
    present = [spec.label for spec, _ in _TIMI_RISK_FACTORS if v[spec.name]]
    enough = len(present) >= 3
    listed = f": {', '.join(present)}" if present else ""
    total = steps.points(
        f"{len(present)} coronary risk factor{'s' if len(present) != 1 else ''} ({'≥ 3' if enough else '< 3'}){listed}",
        int(enough),
        total,
    )
    return _present(v, steps, _TIMI_ITEMS, total)


TIMI = _DATA.calculator("timi_ua_nstemi", inputs=_inputs(_age(), _TIMI_RISK_FACTORS, _TIMI_ITEMS), compute=_timi)

# --- Caprini VTE risk -----------------------------------------------------------------------------------------------

_CAPRINI = "the Caprini score (Caprini 2005)"
CAPRINI_SURGERY = {
    "none": 0,
    "minor": 1,
    "major": 2,
    "laparoscopic": 2,
    "arthroscopic": 2,
    "elective major lower extremity arthroplasty": 5,
}
"""Type of surgery: minor 1; major (> 45 min), laparoscopic (> 45 min) or arthroscopic 2; elective arthroplasty 5."""
CAPRINI_MOBILITY = {"normal": 0, "bed rest": 1, "confined to bed >72 hours": 2}
"""Mobility: ambulatory 0; medical patient at bed rest 1; confined to bed > 72 hours 2."""
_CAPRINI_ITEMS: tuple[Item, ...] = _items(
    _CAPRINI,
    ("recent_major_surgery", "major surgery within 1 month", 1, ("recent major surgery",)),
    ("chf", "congestive heart failure within 1 month", 1, ("CHF", "heart failure")),
    ("sepsis", "sepsis within 1 month", 1, ("sepsis",)),
    ("pneumonia", "serious lung disease incl. pneumonia within 1 month", 1, ("pneumonia",)),
    ("plaster_cast", "immobilizing plaster cast within 1 month", 2, ("cast", "plaster cast")),
    ("fracture", "hip, pelvis or leg fracture within 1 month", 5, ("hip fracture", "pelvic fracture")),
    ("stroke", "stroke within 1 month", 5, ("stroke", "CVA")),
    ("multiple_trauma", "multiple trauma within 1 month", 5, ("polytrauma", "multiple trauma")),
    (
        "spinal_cord_injury",
        "acute spinal cord injury with paralysis within 1 month",
        5,
        ("spinal cord injury", "paralysis"),
    ),
    ("varicose_veins", "varicose veins", 1, ("varicose veins",)),
    ("swollen_legs", "current swollen legs", 1, ("leg swelling", "edema")),
    ("central_venous_access", "current central venous access", 2, ("central line", "PICC")),
    ("history_vte", "history of DVT or PE", 3, ("prior DVT", "prior PE", "VTE")),
    ("family_history_vte", "family history of thrombosis", 3, ("family history of VTE",)),
    ("factor_v_leiden", "factor V Leiden", 3, ("factor V Leiden", "FVL")),
    ("prothrombin_20210a", "prothrombin 20210A", 3, ("prothrombin mutation",)),
    ("homocysteine", "elevated serum homocysteine", 3, ("hyperhomocysteinemia",)),
    ("lupus_anticoagulant", "lupus anticoagulant", 3, ("lupus anticoagulant",)),
    ("anticardiolipin", "elevated anticardiolipin antibodies", 3, ("anticardiolipin",)),
    ("hit", "heparin-induced thrombocytopenia", 3, ("HIT",)),
    ("other_thrombophilia", "other congenital or acquired thrombophilia", 3, ("thrombophilia",)),
    ("ibd", "history of inflammatory bowel disease", 1, ("IBD", "Crohn's", "ulcerative colitis")),
    ("acute_mi", "acute myocardial infarction", 1, ("acute MI", "STEMI", "NSTEMI")),
    ("copd", "COPD or abnormal pulmonary function", 1, ("COPD", "emphysema")),
    ("malignancy", "present or previous malignancy", 2, ("cancer", "malignancy")),
    ("pregnancy", "pregnancy or postpartum", 1, ("pregnant", "postpartum")),
    (
        "pregnancy_loss",
        "unexplained stillbirth or ≥ 3 spontaneous abortions, toxemia or growth-restricted infant",
        1,
        ("stillbirth", "recurrent miscarriage"),
    ),
    ("hormones", "oral contraceptives or hormone replacement", 1, ("OCP", "HRT", "oral contraceptive")),
)


def _caprini(v: Values, steps: Steps) -> float:
    total = _by_age(steps, v, 0, ((75, 3, "≥ 75"), (61, 2, "61–74"), (41, 1, "41–60")), "≤ 40")
    total = steps.points(f"surgery: {v['surgery']}", CAPRINI_SURGERY[v["surgery"]], total)
    total = steps.points(f"mobility: {v['mobility']}", CAPRINI_MOBILITY[v["mobility"]], total)
    heavy = v["bmi"] > 25
    total = steps.points(f"BMI {v['bmi']:g} kg/m² ({'> 25' if heavy else '≤ 25'})", int(heavy), total)
    return _present(v, steps, _CAPRINI_ITEMS, total)


CAPRINI = _DATA.calculator(
    "caprini",
    inputs=_inputs(
        _age(),
        _DATA.input("surgery", choices=tuple(CAPRINI_SURGERY)),
        _DATA.input("mobility", choices=tuple(CAPRINI_MOBILITY)),
        BMI_INPUT,
        _CAPRINI_ITEMS,
    ),
    compute=_caprini,
)

# --- Padua prediction score -----------------------------------------------------------------------------------------

_BARBAR = "the Padua prediction score (Barbar 2010)"
_PADUA_ITEMS: tuple[Item, ...] = _items(
    _BARBAR,
    (
        "active_cancer",
        "active cancer (metastases, or chemo- or radiotherapy in the last 6 months)",
        3,
        ("cancer", "metastatic", "chemotherapy"),
    ),
    ("previous_vte", "previous VTE (excluding superficial vein thrombosis)", 3, ("prior DVT", "prior PE", "VTE")),
    (
        "reduced_mobility",
        "reduced mobility (bed rest with bathroom privileges ≥ 3 days)",
        3,
        ("bed rest", "immobile", "bedbound"),
    ),
    ("thrombophilia", "known thrombophilic condition", 3, ("thrombophilia", "factor V Leiden")),
    ("recent_trauma_or_surgery", "trauma or surgery within 1 month", 2, ("recent surgery", "trauma")),
)
_PADUA_LATER: tuple[Item, ...] = _items(
    _BARBAR,
    (
        "heart_or_respiratory_failure",
        "heart and/or respiratory failure",
        1,
        ("heart failure", "respiratory failure", "CHF"),
    ),
    ("acute_mi_or_stroke", "acute myocardial infarction or ischemic stroke", 1, ("acute MI", "stroke")),
    (
        "infection_or_rheumatologic",
        "acute infection and/or rheumatologic disorder",
        1,
        ("infection", "pneumonia", "rheumatologic"),
    ),
    ("hormonal_treatment", "ongoing hormonal treatment", 1, ("HRT", "oral contraceptive")),
)


def _padua(v: Values, steps: Steps) -> float:
    total = _present(v, steps, _PADUA_ITEMS)
    total = _by_age(steps, v, total, ((70, 1, "elderly, ≥ 70"),), "< 70")
    total = _present(v, steps, _PADUA_LATER, total)
    obese = v["bmi"] >= 30
    return steps.points(f"BMI {v['bmi']:g} kg/m² ({'obese, ≥ 30' if obese else '< 30'})", int(obese), total)


PADUA = _DATA.calculator("padua", inputs=_inputs(_PADUA_ITEMS, _age(), _PADUA_LATER, BMI_INPUT), compute=_padua)

CALCULATORS = (
    CHA2DS2_VASC,
    HAS_BLED,
    HEART,
    RCRI,
    WELLS_PE,
    WELLS_DVT,
    PERC,
    FRAMINGHAM,
    QTC_BAZETT,
    QTC_FRIDERICIA,
    QTC_FRAMINGHAM,
    QTC_HODGES,
    QTC_RAUTAHARJU,
    MAP,
    TIMI,
    CAPRINI,
    PADUA,
)
