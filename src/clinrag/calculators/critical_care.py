"""Critical care and acute infection scores (issue 19): APACHE II, SOFA, qSOFA, SIRS, the Glasgow Coma Scale,
CURB-65, the Pneumonia Severity Index (PSI/PORT), Centor with McIsaac's age modification, and FeverPAIN.

Each physiological variable is scored from its published table read as lower bounds: a value between two printed
ranges (MAP 109.7 between "70-109" and "110-129") belongs to the lower one, as the table's integer ranges imply.

Example:
    >>> CURB_65.run({"age": 72, "bun": "25 mg/dL", "respiratory_rate": 24, "systolic_bp": 110,
    ...              "diastolic_bp": 70}).value
    2.0
"""

from __future__ import annotations

from collections.abc import Sequence

from clinrag.calculators.common import SEX
from clinrag.calculators.spec import Band, Calculator, CalculatorInputError, Input, Source, Steps, Values

# --- shared inputs -------------------------------------------------------------------------------------------------

AGE = Input(name="age", label="age", unit="year", minimum=0, maximum=120, synonyms=("age", "years old", "yo"))
ADULT_AGE = AGE.model_copy(update={"minimum": 16})
TEMPERATURE = Input(
    name="temperature",
    label="body temperature",
    unit="degC",
    minimum=25,
    maximum=45,
    synonyms=("temperature", "temp", "T", "fever"),
)
HEART_RATE = Input(
    name="heart_rate",
    label="heart rate",
    unit="bpm",
    minimum=10,
    maximum=300,
    synonyms=("heart rate", "HR", "pulse", "P"),
)
RESPIRATORY_RATE = Input(
    name="respiratory_rate",
    label="respiratory rate",
    unit="brpm",
    minimum=0,
    maximum=80,
    synonyms=("respiratory rate", "RR", "resp rate", "breaths per minute"),
)
SYSTOLIC_BP = Input(
    name="systolic_bp",
    label="systolic blood pressure",
    unit="mmHg",
    minimum=20,
    maximum=300,
    synonyms=("systolic blood pressure", "SBP", "systolic", "BP"),
)
DIASTOLIC_BP = Input(
    name="diastolic_bp",
    label="diastolic blood pressure",
    unit="mmHg",
    minimum=10,
    maximum=200,
    synonyms=("diastolic blood pressure", "DBP", "diastolic", "BP"),
)
PH = Input(name="ph", label="arterial pH", minimum=6.5, maximum=8.0, synonyms=("pH", "arterial pH", "ABG pH"))
SODIUM = Input(
    name="sodium",
    label="serum sodium",
    unit="mmol/L",
    substance="sodium",
    minimum=90,
    maximum=210,
    synonyms=("sodium", "Na", "serum sodium"),
)
POTASSIUM = Input(
    name="potassium",
    label="serum potassium",
    unit="mmol/L",
    substance="potassium",
    minimum=1,
    maximum=12,
    synonyms=("potassium", "K", "serum potassium"),
)
CREATININE = Input(
    name="creatinine",
    label="serum creatinine",
    unit="mg/dL",
    substance="creatinine",
    minimum=0.1,
    maximum=30,
    synonyms=("creatinine", "Cr", "serum creatinine", "SCr"),
)
HEMATOCRIT = Input(
    name="hematocrit",
    label="hematocrit",
    unit="%",
    minimum=5,
    maximum=80,
    synonyms=("hematocrit", "haematocrit", "Hct", "PCV"),
)
WBC = Input(
    name="wbc",
    label="white blood cell count (10⁹/L = 10³/µL)",
    unit="1/nL",
    minimum=0,
    maximum=500,
    synonyms=("white blood cell count", "WBC", "white count", "leukocytes", "leucocytes"),
)
PLATELETS = Input(
    name="platelets",
    label="platelet count (10⁹/L = 10³/µL)",
    unit="1/nL",
    minimum=0,
    maximum=2000,
    synonyms=("platelet count", "platelets", "PLT", "plt"),
)
GCS = Input(
    name="gcs",
    label="Glasgow Coma Scale total",
    kind="integer",
    minimum=3,
    maximum=15,
    synonyms=("Glasgow Coma Scale", "GCS", "Glasgow coma score"),
)
FIO2 = Input(
    name="fio2",
    label="fraction of inspired oxygen (FiO₂)",
    unit="%",
    minimum=21,
    maximum=100,
    synonyms=("FiO2", "fraction of inspired oxygen", "inspired oxygen"),
)
PAO2 = Input(
    name="pao2",
    label="arterial partial pressure of oxygen (PaO₂)",
    unit="mmHg",
    minimum=10,
    maximum=700,
    synonyms=("PaO2", "partial pressure of oxygen", "arterial oxygen", "pO2"),
)
PACO2 = Input(
    name="paco2",
    label="arterial partial pressure of carbon dioxide (PaCO₂)",
    unit="mmHg",
    minimum=5,
    maximum=150,
    synonyms=("PaCO2", "partial pressure of carbon dioxide", "pCO2"),
)
BILIRUBIN = Input(
    name="bilirubin",
    label="total bilirubin",
    unit="mg/dL",
    substance="bilirubin",
    minimum=0.1,
    maximum=60,
    synonyms=("bilirubin", "total bilirubin", "T bili", "TBil"),
)
BUN = Input(
    name="bun",
    label="blood urea nitrogen (BUN) or urea (mg/dL are read as urea nitrogen)",
    unit="mg/dL",
    substance="urea_nitrogen",
    minimum=1,
    maximum=300,
    synonyms=("blood urea nitrogen", "BUN", "urea", "serum urea"),
)
UREA = BUN.model_copy(update={"unit": "mmol/L", "minimum": 0.3, "maximum": 110})
"""Urea in mmol/L (the CURB-65 and Glasgow-Blatchford sources' unit); a BUN in mg/dL converts as urea nitrogen."""


def criterion(name: str, label: str, synonyms: tuple[str, ...], rule: str) -> Input:
    """A yes/no criterion that counts as absent unless documented, by ``rule`` (the score's own)."""
    return Input(name=name, label=label, kind="boolean", default=False, default_rule=rule, synonyms=synonyms)


# --- helpers -------------------------------------------------------------------------------------------------------

Table = Sequence[tuple[float, int]]


def _table_points(value: float, high: Table = (), low: Table = ()) -> int:
    """Points of ``value`` in a published table read as lower bounds: ``high`` lists (threshold, points) from the
    most abnormal down, scored when value ≥ threshold; ``low`` lists them from the most abnormal up, scored when
    value < threshold. Normal values score 0.

    Example:
        >>> _table_points(38.7, high=((41, 4), (39, 3), (38.5, 1)), low=((30, 4), (32, 3), (34, 2), (36, 1)))
        1
    """
    for threshold, points in high:
        if value >= threshold:
            return points
    for threshold, points in low:
        if value < threshold:
            return points
    return 0


def check_blood_pressure(v: Values) -> None:
    """Refuse a diastolic pressure above the systolic.

    Raises:
        CalculatorInputError: naming both.
    """
    systolic, diastolic = v["systolic_bp"], v["diastolic_bp"]
    if diastolic > systolic:
        raise CalculatorInputError(
            f"diastolic_bp ({diastolic:g} mmHg) is above systolic_bp ({systolic:g} mmHg): one of them is wrong"
        )


def mean_arterial_pressure(v: Values, steps: Steps) -> float:
    """MAP = (systolic + 2 × diastolic) / 3, refusing a diastolic above the systolic."""
    check_blood_pressure(v)
    systolic, diastolic = v["systolic_bp"], v["diastolic_bp"]
    value = float((systolic + 2 * diastolic) / 3)
    steps.add(f"MAP = (systolic + 2 × diastolic) / 3 = ({systolic:g} + 2 × {diastolic:g}) / 3 = {value:.1f} mmHg")
    return value


def _flag(steps: Steps, label: str, present: bool, points: float, total: float) -> float:
    return steps.points(f"{label}: {'yes' if present else 'no'}", points if present else 0, total)


# --- APACHE II -----------------------------------------------------------------------------------------------------

APACHE_TEMPERATURE = {"high": ((41, 4), (39, 3), (38.5, 1)), "low": ((30, 4), (32, 3), (34, 2), (36, 1))}
APACHE_MAP = {"high": ((160, 4), (130, 3), (110, 2)), "low": ((50, 4), (70, 2))}
APACHE_HEART_RATE = {"high": ((180, 4), (140, 3), (110, 2)), "low": ((40, 4), (55, 3), (70, 2))}
APACHE_RESPIRATORY_RATE = {"high": ((50, 4), (35, 3), (25, 1)), "low": ((6, 4), (10, 2), (12, 1))}
APACHE_A_A_GRADIENT = {"high": ((500, 4), (350, 3), (200, 2))}
APACHE_PH = {"high": ((7.7, 4), (7.6, 3), (7.5, 1)), "low": ((7.15, 4), (7.25, 3), (7.33, 2))}
APACHE_SODIUM = {"high": ((180, 4), (160, 3), (155, 2), (150, 1)), "low": ((111, 4), (120, 3), (130, 2))}
APACHE_POTASSIUM = {"high": ((7, 4), (6, 3), (5.5, 1)), "low": ((2.5, 4), (3, 2), (3.5, 1))}
APACHE_CREATININE = {"high": ((3.5, 4), (2, 3), (1.5, 2)), "low": ((0.6, 2),)}
APACHE_HEMATOCRIT = {"high": ((60, 4), (50, 2), (46, 1)), "low": ((20, 4), (30, 2))}
APACHE_WBC = {"high": ((40, 4), (20, 2), (15, 1)), "low": ((1, 4), (3, 2))}
APACHE_AGE = {"high": ((75, 6), (65, 5), (55, 3), (45, 2))}
CHRONIC_HEALTH = ("none", "nonoperative or emergency postoperative", "elective postoperative")
CHRONIC_HEALTH_POINTS = {"none": 0, "nonoperative or emergency postoperative": 5, "elective postoperative": 2}
BAROMETRIC_PRESSURE = 760.0  # mmHg, sea level
WATER_VAPOUR_PRESSURE = 47.0  # mmHg at 37 °C
RESPIRATORY_QUOTIENT = 0.8


def alveolar_arterial_gradient(fio2_percent: float, paco2: float, pao2: float) -> float:
    """A-a O₂ gradient = FiO₂ × (760 − 47) − PaCO₂ / 0.8 − PaO₂ (mmHg, sea level).

    Example:
        >>> round(alveolar_arterial_gradient(60, 40, 80), 1)
        297.8
    """
    alveolar = fio2_percent / 100 * (BAROMETRIC_PRESSURE - WATER_VAPOUR_PRESSURE) - paco2 / RESPIRATORY_QUOTIENT
    return alveolar - pao2


def _apache_oxygenation(v: Values, steps: Steps, total: float) -> float:
    fio2, pao2 = v["fio2"], v["pao2"]
    if fio2 >= 50:
        gradient = alveolar_arterial_gradient(fio2, v["paco2"], pao2)
        steps.add(
            f"FiO₂ {fio2:g}% ≥ 50%: the A-a gradient is scored; A-a = {fio2 / 100:g} × (760 − 47) − "
            f"{v['paco2']:g} / 0.8 − {pao2:g} = {gradient:.1f} mmHg (sea level)"
        )
        return steps.points(f"A-a gradient {gradient:.1f} mmHg", _table_points(gradient, **APACHE_A_A_GRADIENT), total)
    if pao2 > 70:
        points = 0
    elif pao2 >= 61:
        points = 1
    elif pao2 >= 55:
        points = 3
    else:
        points = 4
    return steps.points(f"FiO₂ {fio2:g}% < 50%: PaO₂ {pao2:g} mmHg", points, total)


def _apache_creatinine(v: Values, steps: Steps, total: float) -> float:
    points = _table_points(v["creatinine"], **APACHE_CREATININE)
    if v["acute_renal_failure"]:
        return steps.points(f"creatinine {v['creatinine']:g} mg/dL, doubled for acute renal failure", 2 * points, total)
    return steps.points(f"creatinine {v['creatinine']:g} mg/dL", points, total)


def _apache_ii(v: Values, steps: Steps) -> float:
    total = steps.points(
        f"temperature {v['temperature']:g} °C", _table_points(v["temperature"], **APACHE_TEMPERATURE), 0
    )
    pressure = mean_arterial_pressure(v, steps)
    total = steps.points(f"mean arterial pressure {pressure:.1f} mmHg", _table_points(pressure, **APACHE_MAP), total)
    total = steps.points(
        f"heart rate {v['heart_rate']:g}/min", _table_points(v["heart_rate"], **APACHE_HEART_RATE), total
    )
    total = steps.points(
        f"respiratory rate {v['respiratory_rate']:g}/min",
        _table_points(v["respiratory_rate"], **APACHE_RESPIRATORY_RATE),
        total,
    )
    total = _apache_oxygenation(v, steps, total)
    total = steps.points(f"arterial pH {v['ph']:g}", _table_points(v["ph"], **APACHE_PH), total)
    total = steps.points(f"sodium {v['sodium']:g} mmol/L", _table_points(v["sodium"], **APACHE_SODIUM), total)
    total = steps.points(
        f"potassium {v['potassium']:g} mmol/L", _table_points(v["potassium"], **APACHE_POTASSIUM), total
    )
    total = _apache_creatinine(v, steps, total)
    total = steps.points(f"hematocrit {v['hematocrit']:g}%", _table_points(v["hematocrit"], **APACHE_HEMATOCRIT), total)
    total = steps.points(f"white cells {v['wbc']:g} × 10⁹/L", _table_points(v["wbc"], **APACHE_WBC), total)
    total = steps.points(f"Glasgow Coma Scale {v['gcs']}: 15 − {v['gcs']}", 15 - v["gcs"], total)
    steps.add(f"acute physiology score = {total:g}")
    total = steps.points(f"age {v['age']:g} years", _table_points(v["age"], **APACHE_AGE), total)
    return steps.points(f"chronic health: {v['chronic_health']}", CHRONIC_HEALTH_POINTS[v["chronic_health"]], total)


APACHE_II = Calculator(
    name="apache_ii",
    title="APACHE II score",
    inputs=(
        ADULT_AGE,
        TEMPERATURE.model_copy(update={"label": "temperature (rectal)"}),
        SYSTOLIC_BP,
        DIASTOLIC_BP,
        HEART_RATE,
        RESPIRATORY_RATE,
        FIO2,
        PAO2,
        PACO2,
        PH,
        SODIUM,
        POTASSIUM,
        CREATININE,
        criterion(
            "acute_renal_failure",
            "acute renal failure",
            ("acute renal failure", "acute kidney injury", "AKI", "ARF"),
            "acute renal failure not documented counts as absent: creatinine points are doubled only for acute renal "
            "failure (Knaus 1985)",
        ),
        HEMATOCRIT,
        WBC,
        GCS,
        Input(
            name="chronic_health",
            label="history of severe organ insufficiency or immunocompromise, and admission type",
            kind="choice",
            choices=CHRONIC_HEALTH,
            default="none",
            default_rule="severe organ insufficiency or immunocompromise not documented counts as absent: chronic "
            "health points apply only to such a history (Knaus 1985)",
            synonyms=("chronic health", "organ insufficiency", "immunocompromised", "cirrhosis", "dialysis"),
        ),
    ),
    unit="points",
    source=Source(
        citation="Knaus WA, Draper EA, Wagner DP, Zimmerman JE. APACHE II: a severity of disease classification "
        "system. Crit Care Med 1985;13(10):818-829.",
    ),
    compute=_apache_ii,
    bands=(
        Band(high=5, label="0-4", meaning="hospital death rate about 4% (nonoperative), 1% (postoperative)"),
        Band(low=5, high=10, label="5-9", meaning="about 8% (nonoperative), 3% (postoperative)"),
        Band(low=10, high=15, label="10-14", meaning="about 15% (nonoperative), 7% (postoperative)"),
        Band(low=15, high=20, label="15-19", meaning="about 25% (nonoperative), 12% (postoperative)"),
        Band(low=20, high=25, label="20-24", meaning="about 40% (nonoperative), 30% (postoperative)"),
        Band(low=25, high=30, label="25-29", meaning="about 55% (nonoperative), 35% (postoperative)"),
        Band(low=30, high=35, label="30-34", meaning="about 73% (nonoperative and postoperative)"),
        Band(low=35, label="35-71", meaning="about 85% (nonoperative), 88% (postoperative)"),
    ),
    synonyms=("APACHE II", "APACHE 2", "acute physiology and chronic health evaluation", "APACHE"),
    indications=("ICU mortality", "severity of illness in intensive care", "ICU admission severity"),
    digits=0,
)


# --- SOFA ----------------------------------------------------------------------------------------------------------


def _sofa_respiration(v: Values, steps: Steps, total: float) -> float:
    ratio = v["pao2"] / (v["fio2"] / 100)
    steps.add(f"PaO₂/FiO₂ = {v['pao2']:g} / {v['fio2'] / 100:g} = {ratio:.0f} mmHg")
    supported = v["mechanical_ventilation"]
    points = _table_points(ratio, low=((100, 4), (200, 3), (300, 2), (400, 1)))
    if points > 2 and not supported:
        steps.add("below 200 without respiratory support: scored 2 (3 and 4 need respiratory support)")
        points = 2
    label = f"respiration: PaO₂/FiO₂ {ratio:.0f}" + (" on respiratory support" if supported else "")
    return steps.points(label, points, total)


def _sofa_cardiovascular(v: Values, steps: Steps, total: float) -> float:
    dopamine, dobutamine = v["dopamine"], v["dobutamine"]
    epinephrine, norepinephrine = v["epinephrine"], v["norepinephrine"]
    pressure = mean_arterial_pressure(v, steps)
    if dopamine > 15 or epinephrine > 0.1 or norepinephrine > 0.1:
        points, why = 4, "dopamine > 15 or epinephrine > 0.1 or norepinephrine > 0.1 µg/kg/min"
    elif dopamine > 5 or epinephrine > 0 or norepinephrine > 0:
        points, why = 3, "dopamine > 5 or epinephrine ≤ 0.1 or norepinephrine ≤ 0.1 µg/kg/min"
    elif dopamine > 0 or dobutamine > 0:
        points, why = 2, "dopamine ≤ 5 or dobutamine (any dose)"
    elif pressure < 70:
        points, why = 1, f"MAP {pressure:.1f} < 70 mmHg"
    else:
        points, why = 0, f"MAP {pressure:.1f} ≥ 70 mmHg, no vasoactive agent"
    return steps.points(f"cardiovascular: {why}", points, total)


def _sofa_renal(v: Values, steps: Steps, total: float) -> float:
    points = _table_points(v["creatinine"], high=((5, 4), (3.5, 3), (2, 2), (1.2, 1)))
    why = f"creatinine {v['creatinine']:g} mg/dL"
    urine = v.get("urine_output")
    if urine is None:
        steps.add("urine output not given: renal scored on creatinine")
    else:
        by_urine = _table_points(urine, low=((200, 4), (500, 3)))
        if by_urine > points:
            points, why = by_urine, f"urine output {urine:g} mL/day"
    return steps.points(f"renal: {why}", points, total)


def _sofa(v: Values, steps: Steps) -> float:
    total = _sofa_respiration(v, steps, 0)
    total = steps.points(
        f"coagulation: platelets {v['platelets']:g} × 10⁹/L",
        _table_points(v["platelets"], low=((20, 4), (50, 3), (100, 2), (150, 1))),
        total,
    )
    total = steps.points(
        f"liver: bilirubin {v['bilirubin']:g} mg/dL",
        _table_points(v["bilirubin"], high=((12, 4), (6, 3), (2, 2), (1.2, 1))),
        total,
    )
    total = _sofa_cardiovascular(v, steps, total)
    total = steps.points(
        f"central nervous system: GCS {v['gcs']}",
        _table_points(v["gcs"], low=((6, 4), (10, 3), (13, 2), (15, 1))),
        total,
    )
    return _sofa_renal(v, steps, total)


def _vasoactive(name: str, label: str, maximum: float) -> Input:
    return Input(
        name=name,
        label=f"{label} dose (given for at least 1 hour)",
        unit="ug/kg/min",
        minimum=0,
        maximum=maximum,
        default=0.0,
        default_rule=f"{label} not documented counts as not given (Vincent 1996 scores the agents administered)",
        synonyms=(label,),
    )


SOFA = Calculator(
    name="sofa",
    title="Sequential (sepsis-related) Organ Failure Assessment (SOFA) score",
    inputs=(
        PAO2,
        FIO2,
        criterion(
            "mechanical_ventilation",
            "on respiratory support (mechanical ventilation)",
            ("mechanical ventilation", "ventilated", "intubated", "respiratory support", "CPAP", "NIV"),
            "respiratory support not documented counts as none: a PaO₂/FiO₂ below 200 scores 3 or 4 only "
            "with respiratory support (Vincent 1996)",
        ),
        PLATELETS,
        GCS,
        BILIRUBIN,
        SYSTOLIC_BP,
        DIASTOLIC_BP,
        _vasoactive("dopamine", "dopamine", 50),
        _vasoactive("dobutamine", "dobutamine", 50),
        _vasoactive("epinephrine", "epinephrine", 5),
        _vasoactive("norepinephrine", "norepinephrine", 5),
        CREATININE,
        Input(
            name="urine_output",
            label="urine output (an alternative renal criterion)",
            unit="mL/day",
            minimum=0,
            maximum=20000,
            required=False,
            synonyms=("urine output", "UOP", "diuresis"),
        ),
    ),
    unit="points",
    source=Source(
        citation="Vincent JL, Moreno R, Takala J, et al. The SOFA (Sepsis-related Organ Failure Assessment) score to "
        "describe organ dysfunction/failure. Intensive Care Med 1996;22(7):707-710.",
        bands_citation="Singer M, Deutschman CS, Seymour CW, et al. The Third International Consensus Definitions "
        "for Sepsis and Septic Shock (Sepsis-3). JAMA 2016;315(8):801-810.",
    ),
    compute=_sofa,
    bands=(
        Band(high=2, label="below 2", meaning="no organ dysfunction by SOFA (baseline assumed 0)"),
        Band(
            low=2,
            label="2 or more",
            meaning="organ dysfunction: an acute rise of ≥ 2 points with infection defines sepsis (Sepsis-3), "
            "in-hospital mortality above 10%",
        ),
    ),
    synonyms=("SOFA", "sequential organ failure assessment", "sepsis-related organ failure assessment"),
    indications=("organ dysfunction", "sepsis", "ICU mortality", "organ failure"),
    digits=0,
)


# --- qSOFA ---------------------------------------------------------------------------------------------------------


def _qsofa(v: Values, steps: Steps) -> float:
    total = _flag(steps, f"respiratory rate {v['respiratory_rate']:g} ≥ 22/min", v["respiratory_rate"] >= 22, 1, 0)
    total = _flag(steps, "altered mentation (GCS < 15)", v["altered_mentation"], 1, total)
    return _flag(steps, f"systolic BP {v['systolic_bp']:g} ≤ 100 mmHg", v["systolic_bp"] <= 100, 1, total)


QSOFA = Calculator(
    name="qsofa",
    title="Quick SOFA (qSOFA)",
    inputs=(
        RESPIRATORY_RATE,
        criterion(
            "altered_mentation",
            "altered mentation (GCS < 15)",
            ("altered mentation", "altered mental status", "confusion", "GCS < 15", "AMS"),
            "altered mentation not documented counts as absent: each qSOFA criterion scores only when "
            "present (Seymour 2016)",
        ),
        SYSTOLIC_BP,
    ),
    unit="points",
    source=Source(
        citation="Seymour CW, Liu VX, Iwashyna TJ, et al. Assessment of clinical criteria for sepsis: for the Third "
        "International Consensus Definitions for Sepsis and Septic Shock (Sepsis-3). JAMA 2016;315(8):762-774.",
        bands_citation="Singer M, Deutschman CS, Seymour CW, et al. The Third International Consensus Definitions "
        "for Sepsis and Septic Shock (Sepsis-3). JAMA 2016;315(8):801-810.",
    ),
    compute=_qsofa,
    bands=(
        Band(high=2, label="0-1", meaning="not high risk by qSOFA; keep assessing if infection is suspected"),
        Band(
            low=2,
            label="2-3",
            meaning="high risk of poor outcome (death or ICU stay ≥ 3 days) with suspected infection: assess "
            "for organ dysfunction",
        ),
    ),
    synonyms=("qSOFA", "quick SOFA", "quickSOFA"),
    indications=("sepsis screening", "suspected infection outside the ICU", "sepsis risk"),
    digits=0,
)


# --- SIRS ----------------------------------------------------------------------------------------------------------


def _sirs(v: Values, steps: Steps) -> float:
    temperature = v["temperature"]
    total = _flag(steps, f"temperature {temperature:g} °C > 38 or < 36", temperature > 38 or temperature < 36, 1, 0)
    total = _flag(steps, f"heart rate {v['heart_rate']:g} > 90/min", v["heart_rate"] > 90, 1, total)
    paco2 = v.get("paco2")
    breathing = v["respiratory_rate"] > 20 or (paco2 is not None and paco2 < 32)
    words = f"respiratory rate {v['respiratory_rate']:g} > 20/min" + (
        f" or PaCO₂ {paco2:g} < 32 mmHg" if paco2 is not None else ""
    )
    total = _flag(steps, words, breathing, 1, total)
    wbc, bands = v["wbc"], v.get("bands")
    white = wbc > 12 or wbc < 4 or (bands is not None and bands > 10)
    words = f"white cells {wbc:g} × 10⁹/L > 12 or < 4" + (f", or bands {bands:g}% > 10%" if bands is not None else "")
    return _flag(steps, words, white, 1, total)


SIRS = Calculator(
    name="sirs",
    title="SIRS criteria (count met)",
    inputs=(
        TEMPERATURE,
        HEART_RATE,
        RESPIRATORY_RATE,
        PACO2.model_copy(update={"required": False, "label": PACO2.label + " (an alternative to the rate)"}),
        WBC,
        Input(
            name="bands",
            label="immature (band) neutrophils",
            unit="%",
            minimum=0,
            maximum=100,
            required=False,
            synonyms=("bands", "band forms", "immature neutrophils", "left shift"),
        ),
    ),
    unit="criteria",
    source=Source(
        citation="Bone RC, Balk RA, Cerra FB, et al. Definitions for sepsis and organ failure and guidelines for the "
        "use of innovative therapies in sepsis. The ACCP/SCCM Consensus Conference Committee. Chest "
        "1992;101(6):1644-1655.",
    ),
    compute=_sirs,
    bands=(
        Band(high=2, label="0-1", meaning="SIRS criteria not met"),
        Band(
            low=2,
            label="2-4",
            meaning="SIRS present (with a confirmed or suspected infection: sepsis by the 1992 definition)",
        ),
    ),
    synonyms=("SIRS", "systemic inflammatory response syndrome", "SIRS criteria"),
    indications=("systemic inflammatory response", "sepsis screening", "sepsis 1992 definition"),
    digits=0,
)


# --- Glasgow Coma Scale --------------------------------------------------------------------------------------------

EYE = {"spontaneous": 4, "to speech": 3, "to pain": 2, "none": 1}
VERBAL = {"oriented": 5, "confused": 4, "inappropriate words": 3, "incomprehensible sounds": 2, "none": 1}
MOTOR = {"obeys commands": 6, "localises pain": 5, "withdraws": 4, "abnormal flexion": 3, "extension": 2, "none": 1}


def _gcs(v: Values, steps: Steps) -> float:
    total = steps.points(f"eye opening: {v['eye']}", EYE[v["eye"]], 0)
    total = steps.points(f"best verbal response: {v['verbal']}", VERBAL[v["verbal"]], total)
    return steps.points(f"best motor response: {v['motor']}", MOTOR[v["motor"]], total)


GLASGOW_COMA_SCALE = Calculator(
    name="gcs",
    title="Glasgow Coma Scale (GCS)",
    inputs=(
        Input(
            name="eye",
            label="eye opening",
            kind="choice",
            choices=tuple(EYE),
            synonyms=("eye opening", "eyes", "E"),
        ),
        Input(
            name="verbal",
            label="best verbal response",
            kind="choice",
            choices=tuple(VERBAL),
            synonyms=("verbal response", "verbal", "V"),
        ),
        Input(
            name="motor",
            label="best motor response",
            kind="choice",
            choices=tuple(MOTOR),
            synonyms=("motor response", "motor", "M"),
        ),
    ),
    unit="points",
    source=Source(
        citation="Teasdale G, Jennett B. Assessment of coma and impaired consciousness. A practical scale. Lancet "
        "1974;2(7872):81-84; six motor levels from Teasdale G, Jennett B. Assessment and prognosis of coma after "
        "head injury. Acta Neurochir (Wien) 1976;34:45-55.",
        bands_citation="Rimel RW, Giordani B, Barth JT, Jane JA. Moderate head injury: completing the clinical "
        "spectrum of brain trauma. Neurosurgery 1982;11(3):344-351.",
    ),
    compute=_gcs,
    bands=(
        Band(high=9, label="severe (3-8)", meaning="severe brain injury; coma; consider airway protection"),
        Band(low=9, high=13, label="moderate (9-12)", meaning="moderate brain injury"),
        Band(low=13, label="mild (13-15)", meaning="mild brain injury or normal (15)"),
    ),
    synonyms=("GCS", "Glasgow Coma Scale", "Glasgow coma score", "coma scale"),
    indications=("level of consciousness", "coma", "head injury severity", "brain injury"),
    digits=0,
)


# --- CURB-65 -------------------------------------------------------------------------------------------------------


def _curb_65(v: Values, steps: Steps) -> float:
    total = _flag(steps, "confusion", v["confusion"], 1, 0)
    total = _flag(steps, f"urea {v['bun']:g} mmol/L > 7", v["bun"] > 7, 1, total)
    total = _flag(steps, f"respiratory rate {v['respiratory_rate']:g} ≥ 30/min", v["respiratory_rate"] >= 30, 1, total)
    check_blood_pressure(v)
    low_bp = v["systolic_bp"] < 90 or v["diastolic_bp"] <= 60
    total = _flag(
        steps,
        f"blood pressure {v['systolic_bp']:g}/{v['diastolic_bp']:g}: systolic < 90 or diastolic ≤ 60",
        low_bp,
        1,
        total,
    )
    return _flag(steps, f"age {v['age']:g} ≥ 65", v["age"] >= 65, 1, total)


CURB_65 = Calculator(
    name="curb_65",
    title="CURB-65 pneumonia severity score",
    inputs=(
        criterion(
            "confusion",
            "new confusion (abbreviated mental test ≤ 8 or new disorientation)",
            ("confusion", "confused", "disoriented", "altered mental status"),
            "confusion not documented counts as absent: each CURB-65 feature scores only when present (Lim 2003)",
        ),
        UREA,
        RESPIRATORY_RATE,
        SYSTOLIC_BP,
        DIASTOLIC_BP,
        AGE,
    ),
    unit="points",
    source=Source(
        citation="Lim WS, van der Eerden MM, Laing R, et al. Defining community acquired pneumonia severity on "
        "presentation to hospital: an international derivation and validation study. Thorax 2003;58(5):377-382.",
    ),
    compute=_curb_65,
    bands=(
        Band(high=2, label="0-1: low severity", meaning="30-day mortality about 1.5%; consider home treatment"),
        Band(
            low=2,
            high=3,
            label="2: moderate severity",
            meaning="30-day mortality about 9%; consider hospital treatment",
        ),
        Band(
            low=3,
            label="3-5: high severity",
            meaning="30-day mortality about 22%; manage in hospital as severe pneumonia, assess for ICU (4-5)",
        ),
    ),
    synonyms=("CURB-65", "CURB65", "CURB 65"),
    indications=("pneumonia severity", "community-acquired pneumonia mortality", "pneumonia admission decision"),
    digits=0,
)


# --- PSI / PORT ----------------------------------------------------------------------------------------------------

PSI_HISTORY = (
    ("nursing_home", "nursing home resident", 10, ("nursing home resident", "nursing home", "long-term care")),
    ("neoplastic_disease", "neoplastic disease (active cancer)", 30, ("cancer", "neoplastic disease", "malignancy")),
    ("liver_disease", "liver disease", 20, ("liver disease", "cirrhosis", "chronic hepatitis")),
    ("heart_failure", "congestive heart failure", 10, ("congestive heart failure", "CHF", "heart failure")),
    ("cerebrovascular_disease", "cerebrovascular disease", 10, ("stroke", "TIA", "cerebrovascular disease")),
    ("renal_disease", "renal disease", 10, ("chronic kidney disease", "renal disease", "CKD")),
    ("altered_mental_status", "altered mental status", 20, ("altered mental status", "confusion", "disorientation")),
)


def _psi_findings(v: Values, steps: Steps, total: float) -> float:
    temperature = v["temperature"]
    total = _flag(steps, f"respiratory rate {v['respiratory_rate']:g} ≥ 30/min", v["respiratory_rate"] >= 30, 20, total)
    total = _flag(steps, f"systolic BP {v['systolic_bp']:g} < 90 mmHg", v["systolic_bp"] < 90, 20, total)
    total = _flag(
        steps, f"temperature {temperature:g} °C < 35 or ≥ 40", temperature < 35 or temperature >= 40, 15, total
    )
    total = _flag(steps, f"pulse {v['heart_rate']:g} ≥ 125/min", v["heart_rate"] >= 125, 10, total)
    total = _flag(steps, f"arterial pH {v['ph']:g} < 7.35", v["ph"] < 7.35, 30, total)
    total = _flag(steps, f"BUN {v['bun']:g} ≥ 30 mg/dL", v["bun"] >= 30, 20, total)
    total = _flag(steps, f"sodium {v['sodium']:g} < 130 mmol/L", v["sodium"] < 130, 20, total)
    total = _flag(steps, f"glucose {v['glucose']:g} ≥ 250 mg/dL", v["glucose"] >= 250, 10, total)
    total = _flag(steps, f"hematocrit {v['hematocrit']:g} < 30%", v["hematocrit"] < 30, 10, total)
    total = _flag(steps, f"PaO₂ {v['pao2']:g} < 60 mmHg", v["pao2"] < 60, 10, total)
    return _flag(steps, "pleural effusion", v["pleural_effusion"], 10, total)


def _psi_class_one(v: Values, steps: Steps) -> None:
    """Step 1 of Fine 1997: class I needs no points (age ≤ 50, no comorbidity, normal vital signs, no confusion)."""
    vital_signs_normal = (
        v["respiratory_rate"] < 30 and v["systolic_bp"] >= 90 and 35 <= v["temperature"] < 40 and v["heart_rate"] < 125
    )
    no_history = not any(v[name] for name, *_ in PSI_HISTORY if name != "nursing_home")
    if v["age"] <= 50 and no_history and vital_signs_normal:
        steps.add("step 1: age ≤ 50, none of the comorbidities, normal mental status and vital signs → risk class I")


def _psi(v: Values, steps: Steps) -> float:
    _psi_class_one(v, steps)
    female = v["sex"] == "female"
    total = steps.points(
        f"age {v['age']:g}" + (" − 10 (female)" if female else ""), v["age"] - (10 if female else 0), 0
    )
    for name, label, points, _ in PSI_HISTORY:
        total = _flag(steps, label, v[name], points, total)
    return _psi_findings(v, steps, total)


PSI = Calculator(
    name="psi",
    title="Pneumonia Severity Index (PSI/PORT score)",
    inputs=(
        AGE.model_copy(update={"minimum": 18}),
        SEX,
        *(
            criterion(
                name,
                label,
                words,
                f"{label} not documented counts as absent: PSI adds points only for findings present (Fine 1997)",
            )
            for name, label, _, words in PSI_HISTORY
        ),
        RESPIRATORY_RATE,
        SYSTOLIC_BP,
        TEMPERATURE,
        HEART_RATE,
        PH,
        BUN,
        SODIUM,
        Input(
            name="glucose",
            label="serum glucose",
            unit="mg/dL",
            substance="glucose",
            minimum=10,
            maximum=3000,
            synonyms=("glucose", "blood glucose", "blood sugar", "BG"),
        ),
        HEMATOCRIT,
        PAO2,
        criterion(
            "pleural_effusion",
            "pleural effusion on chest radiograph",
            ("pleural effusion", "effusion"),
            "a pleural effusion not documented counts as absent: PSI adds points only for findings present (Fine 1997)",
        ),
    ),
    unit="points",
    source=Source(
        citation="Fine MJ, Auble TE, Yealy DM, et al. A prediction rule to identify low-risk patients with "
        "community-acquired pneumonia. N Engl J Med 1997;336(4):243-250.",
    ),
    compute=_psi,
    bands=(
        Band(
            high=71,
            label="class I-II (≤ 70)",
            meaning="class I when step 1 says so (mortality 0.1-0.4%), "
            "otherwise class II (0.6-0.7%): outpatient treatment",
        ),
        Band(low=71, high=91, label="class III (71-90)", meaning="mortality 0.9-2.8%: outpatient or brief observation"),
        Band(low=91, high=131, label="class IV (91-130)", meaning="mortality 8.2-9.3%: inpatient treatment"),
        Band(low=131, label="class V (> 130)", meaning="mortality 27.0-31.1%: inpatient treatment, consider ICU"),
    ),
    synonyms=("PSI", "pneumonia severity index", "PORT score", "Fine score"),
    indications=("pneumonia severity", "community-acquired pneumonia mortality", "pneumonia admission decision"),
    digits=0,
)


# --- Centor (McIsaac) ----------------------------------------------------------------------------------------------


def _centor(v: Values, steps: Steps) -> float:
    age = v["age"]
    age_points = 1 if age < 15 else (0 if age < 45 else -1)
    total = steps.points(f"age {age:g} (3-14: +1, 15-44: 0, ≥ 45: −1)", age_points, 0)
    total = _flag(steps, "tonsillar exudate or swelling", v["tonsillar_exudate"], 1, total)
    total = _flag(steps, "tender or swollen anterior cervical nodes", v["tender_anterior_nodes"], 1, total)
    total = _flag(steps, f"temperature {v['temperature']:g} °C > 38", v["temperature"] > 38, 1, total)
    return _flag(steps, "cough absent", v["cough_absent"], 1, total)


CENTOR = Calculator(
    name="centor_mcisaac",
    title="Centor score, modified by McIsaac (streptococcal pharyngitis)",
    inputs=(
        AGE.model_copy(update={"minimum": 3}),
        criterion(
            "tonsillar_exudate",
            "tonsillar exudate or swelling",
            ("tonsillar exudate", "exudate", "tonsillar swelling", "swollen tonsils"),
            "a finding not documented counts as absent: each criterion scores only when present (McIsaac 1998)",
        ),
        criterion(
            "tender_anterior_nodes",
            "tender or swollen anterior cervical lymph nodes",
            ("anterior cervical lymphadenopathy", "tender nodes", "swollen lymph nodes"),
            "a finding not documented counts as absent: each criterion scores only when present (McIsaac 1998)",
        ),
        TEMPERATURE,
        criterion(
            "cough_absent",
            "cough absent",
            ("no cough", "absence of cough", "cough absent"),
            "absence of cough is a criterion: it scores only when the absence is documented (McIsaac 1998)",
        ),
    ),
    unit="points",
    source=Source(
        citation="McIsaac WJ, White D, Tannenbaum D, Low DE. A clinical score to reduce unnecessary antibiotic use "
        "in patients with sore throat. CMAJ 1998;158(1):75-83; after Centor RM, Witherspoon JM, Dalton HP, Brody "
        "CE, Link K. The diagnosis of strep throat in adults in the emergency room. Med Decis Making 1981;1:239-246.",
    ),
    compute=_centor,
    bands=(
        Band(high=1, label="≤ 0", meaning="streptococcal infection 1-2.5%: no culture, no antibiotic"),
        Band(low=1, high=2, label="1", meaning="5-10%: no culture, no antibiotic"),
        Band(low=2, high=4, label="2-3", meaning="11-35%: culture or rapid test, antibiotic if positive"),
        Band(low=4, label="4-5", meaning="51-53%: culture or rapid test; consider empirical antibiotic"),
    ),
    synonyms=("Centor", "McIsaac", "modified Centor", "Centor score", "McIsaac score"),
    indications=("strep throat", "streptococcal pharyngitis", "sore throat antibiotics", "pharyngitis"),
    digits=0,
)


# --- FeverPAIN -----------------------------------------------------------------------------------------------------

FEVERPAIN_ITEMS = (
    ("fever", "fever in the past 24 hours", ("fever in past 24 hours", "fever", "febrile")),
    ("purulence", "purulence (pharyngeal or tonsillar exudate)", ("purulence", "pus on tonsils", "exudate")),
    (
        "attend_rapidly",
        "attended rapidly (symptoms for 3 days or less)",
        ("symptom onset ≤ 3 days", "rapid attendance"),
    ),
    ("inflamed_tonsils", "severely inflamed tonsils", ("severely inflamed tonsils", "severe tonsillar inflammation")),
    ("no_cough_coryza", "no cough or coryza", ("no cough or coryza", "absence of cough or coryza", "no cough")),
)


def _feverpain(v: Values, steps: Steps) -> float:
    total = 0.0
    for name, label, _ in FEVERPAIN_ITEMS:
        total = _flag(steps, label, v[name], 1, total)
    return total


FEVERPAIN = Calculator(
    name="feverpain",
    title="FeverPAIN score (streptococcal pharyngitis)",
    inputs=tuple(
        criterion(
            name,
            label,
            words,
            "a feature not documented counts as absent: each FeverPAIN item scores only when present (Little 2013)",
        )
        for name, label, words in FEVERPAIN_ITEMS
    ),
    unit="points",
    source=Source(
        citation="Little P, Moore M, Hobbs FD, et al. PRImary care Streptococcal Management (PRISM) study: "
        "identifying clinical variables associated with Lancefield group A β-haemolytic streptococci and Lancefield "
        "non-Group A streptococcal throat infections from two cohorts of patients presenting with an acute sore "
        "throat. BMJ Open 2013;3(10):e003943; Little P, Hobbs FD, Moore M, et al. Clinical score and rapid antigen "
        "detection test to guide antibiotic use for sore throats: randomised controlled trial of PRISM. BMJ "
        "2013;347:f5806.",
    ),
    compute=_feverpain,
    bands=(
        Band(high=2, label="0-1", meaning="streptococcus isolated in 13-18%: no antibiotic"),
        Band(low=2, high=4, label="2-3", meaning="34-40%: no antibiotic or a delayed prescription"),
        Band(low=4, label="4-5", meaning="62-65%: immediate antibiotic if severe, or a delayed prescription"),
    ),
    synonyms=("FeverPAIN", "Fever PAIN", "FeverPAIN score"),
    indications=("strep throat", "sore throat antibiotics", "pharyngitis", "streptococcal pharyngitis"),
    digits=0,
)

CALCULATORS = (APACHE_II, SOFA, QSOFA, SIRS, GLASGOW_COMA_SCALE, CURB_65, PSI, CENTOR, FEVERPAIN)
