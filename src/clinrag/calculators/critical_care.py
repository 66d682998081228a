"""Critical care and acute infection scores: APACHE II, SOFA, qSOFA, SIRS, the Glasgow Coma Scale,
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

from clinrag.calculators.common import SEX, criterion, flag
from clinrag.calculators.content import content
from clinrag.calculators.spec import CalculatorInputError, Input, Steps, Values

_DATA = content(__name__)

# --- shared inputs -------------------------------------------------------------------------------------------------

AGE = _DATA.input("age")
ADULT_AGE = AGE.model_copy(update={"minimum": 16})
TEMPERATURE = _DATA.input("temperature")
HEART_RATE = _DATA.input("heart_rate")
RESPIRATORY_RATE = _DATA.input("respiratory_rate")
SYSTOLIC_BP = _DATA.input("systolic_bp")
DIASTOLIC_BP = _DATA.input("diastolic_bp")
PH = _DATA.input("ph")
SODIUM = _DATA.input("sodium")
POTASSIUM = _DATA.input("potassium")
CREATININE = _DATA.input("creatinine")
HEMATOCRIT = _DATA.input("hematocrit")
WBC = _DATA.input("wbc")
PLATELETS = _DATA.input("platelets")
GCS = _DATA.input("gcs")
FIO2 = _DATA.input("fio2")
PAO2 = _DATA.input("pao2")
PACO2 = _DATA.input("paco2")
BILIRUBIN = _DATA.input("bilirubin")
BUN = _DATA.input("bun")
UREA = BUN.model_copy(update={"unit": "mmol/L", "minimum": 0.3, "maximum": 110})
"""Urea in mmol/L (the CURB-65 and Glasgow-Blatchford sources' unit); a BUN in mg/dL converts as urea nitrogen."""


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


APACHE_II = _DATA.calculator(
    "apache_ii",
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
        _DATA.input("chronic_health", choices=CHRONIC_HEALTH),
    ),
    compute=_apache_ii,
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


SOFA = _DATA.calculator(
    "sofa",
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
        _DATA.input("urine_output"),
    ),
    compute=_sofa,
)


# --- qSOFA ---------------------------------------------------------------------------------------------------------


def _qsofa(v: Values, steps: Steps) -> float:
    total = flag(steps, f"respiratory rate {v['respiratory_rate']:g} ≥ 22/min", v["respiratory_rate"] >= 22, 1, 0)
    total = flag(steps, "altered mentation (GCS < 15)", v["altered_mentation"], 1, total)
    return flag(steps, f"systolic BP {v['systolic_bp']:g} ≤ 100 mmHg", v["systolic_bp"] <= 100, 1, total)


QSOFA = _DATA.calculator(
    "qsofa",
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
    compute=_qsofa,
)


# --- SIRS ----------------------------------------------------------------------------------------------------------


def _sirs(v: Values, steps: Steps) -> float:
    temperature = v["temperature"]
    total = flag(steps, f"temperature {temperature:g} °C > 38 or < 36", temperature > 38 or temperature < 36, 1, 0)
    total = flag(steps, f"heart rate {v['heart_rate']:g} > 90/min", v["heart_rate"] > 90, 1, total)
    paco2 = v.get("paco2")
    breathing = v["respiratory_rate"] > 20 or (paco2 is not None and paco2 < 32)
    words = f"respiratory rate {v['respiratory_rate']:g} > 20/min" + (
        f" or PaCO₂ {paco2:g} < 32 mmHg" if paco2 is not None else ""
    )
    total = flag(steps, words, breathing, 1, total)
    wbc, bands = v["wbc"], v.get("bands")
    white = wbc > 12 or wbc < 4 or (bands is not None and bands > 10)
    words = f"white cells {wbc:g} × 10⁹/L > 12 or < 4" + (f", or bands {bands:g}% > 10%" if bands is not None else "")
    return flag(steps, words, white, 1, total)


SIRS = _DATA.calculator(
    "sirs",
    inputs=(
        TEMPERATURE,
        HEART_RATE,
        RESPIRATORY_RATE,
        PACO2.model_copy(update={"required": False, "label": PACO2.label + " (an alternative to the rate)"}),
        WBC,
        _DATA.input("bands"),
    ),
    compute=_sirs,
)


# --- Glasgow Coma Scale --------------------------------------------------------------------------------------------

EYE = {"spontaneous": 4, "to speech": 3, "to pain": 2, "none": 1}
VERBAL = {"oriented": 5, "confused": 4, "inappropriate words": 3, "incomprehensible sounds": 2, "none": 1}
MOTOR = {"obeys commands": 6, "localises pain": 5, "withdraws": 4, "abnormal flexion": 3, "extension": 2, "none": 1}


def _gcs(v: Values, steps: Steps) -> float:
    total = steps.points(f"eye opening: {v['eye']}", EYE[v["eye"]], 0)
    total = steps.points(f"best verbal response: {v['verbal']}", VERBAL[v["verbal"]], total)
    return steps.points(f"best motor response: {v['motor']}", MOTOR[v["motor"]], total)


GLASGOW_COMA_SCALE = _DATA.calculator(
    "gcs",
    inputs=(
        _DATA.input("eye", choices=tuple(EYE)),
        _DATA.input("verbal", choices=tuple(VERBAL)),
        _DATA.input("motor", choices=tuple(MOTOR)),
    ),
    compute=_gcs,
)


# --- CURB-65 -------------------------------------------------------------------------------------------------------


def _curb_65(v: Values, steps: Steps) -> float:
    total = flag(steps, "confusion", v["confusion"], 1, 0)
    total = flag(steps, f"urea {v['bun']:g} mmol/L > 7", v["bun"] > 7, 1, total)
    total = flag(steps, f"respiratory rate {v['respiratory_rate']:g} ≥ 30/min", v["respiratory_rate"] >= 30, 1, total)
    check_blood_pressure(v)
    low_bp = v["systolic_bp"] < 90 or v["diastolic_bp"] <= 60
    total = flag(
        steps,
        f"blood pressure {v['systolic_bp']:g}/{v['diastolic_bp']:g}: systolic < 90 or diastolic ≤ 60",
        low_bp,
        1,
        total,
    )
    return flag(steps, f"age {v['age']:g} ≥ 65", v["age"] >= 65, 1, total)


CURB_65 = _DATA.calculator(
    "curb_65",
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
    compute=_curb_65,
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
    total = flag(steps, f"respiratory rate {v['respiratory_rate']:g} ≥ 30/min", v["respiratory_rate"] >= 30, 20, total)
    total = flag(steps, f"systolic BP {v['systolic_bp']:g} < 90 mmHg", v["systolic_bp"] < 90, 20, total)
    total = flag(
        steps, f"temperature {temperature:g} °C < 35 or ≥ 40", temperature < 35 or temperature >= 40, 15, total
    )
    total = flag(steps, f"pulse {v['heart_rate']:g} ≥ 125/min", v["heart_rate"] >= 125, 10, total)
    total = flag(steps, f"arterial pH {v['ph']:g} < 7.35", v["ph"] < 7.35, 30, total)
    total = flag(steps, f"BUN {v['bun']:g} ≥ 30 mg/dL", v["bun"] >= 30, 20, total)
    total = flag(steps, f"sodium {v['sodium']:g} < 130 mmol/L", v["sodium"] < 130, 20, total)
    total = flag(steps, f"glucose {v['glucose']:g} ≥ 250 mg/dL", v["glucose"] >= 250, 10, total)
    total = flag(steps, f"hematocrit {v['hematocrit']:g} < 30%", v["hematocrit"] < 30, 10, total)
    total = flag(steps, f"PaO₂ {v['pao2']:g} < 60 mmHg", v["pao2"] < 60, 10, total)
    return flag(steps, "pleural effusion", v["pleural_effusion"], 10, total)


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
        total = flag(steps, label, v[name], points, total)
    return _psi_findings(v, steps, total)


PSI = _DATA.calculator(
    "psi",
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
        _DATA.input("glucose"),
        HEMATOCRIT,
        PAO2,
        criterion(
            "pleural_effusion",
            "pleural effusion on chest radiograph",
            ("pleural effusion", "effusion"),
            "a pleural effusion not documented counts as absent: PSI adds points only for findings present (Fine 1997)",
        ),
    ),
    compute=_psi,
)


# --- Centor (McIsaac) ----------------------------------------------------------------------------------------------


def _centor(v: Values, steps: Steps) -> float:
    age = v["age"]
    age_points = 1 if age < 15 else (0 if age < 45 else -1)
    total = steps.points(f"age {age:g} (3-14: +1, 15-44: 0, ≥ 45: −1)", age_points, 0)
    total = flag(steps, "tonsillar exudate or swelling", v["tonsillar_exudate"], 1, total)
    total = flag(steps, "tender or swollen anterior cervical nodes", v["tender_anterior_nodes"], 1, total)
    total = flag(steps, f"temperature {v['temperature']:g} °C > 38", v["temperature"] > 38, 1, total)
    return flag(steps, "cough absent", v["cough_absent"], 1, total)


CENTOR = _DATA.calculator(
    "centor_mcisaac",
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
    compute=_centor,
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
        total = flag(steps, label, v[name], 1, total)
    return total


FEVERPAIN = _DATA.calculator(
    "feverpain",
    inputs=tuple(
        criterion(
            name,
            label,
            words,
            "a feature not documented counts as absent: each FeverPAIN item scores only when present (Little 2013)",
        )
        for name, label, words in FEVERPAIN_ITEMS
    ),
    compute=_feverpain,
)

CALCULATORS = (APACHE_II, SOFA, QSOFA, SIRS, GLASGOW_COMA_SCALE, CURB_65, PSI, CENTOR, FEVERPAIN)
