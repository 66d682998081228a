"""Scores and questionnaires: the Charlson comorbidity index (with its age points), GAD-7 and PHQ-9.

Example:
    >>> CHARLSON.run({"age": 72, "diabetes": "end-organ damage", "congestive_heart_failure": True}).value
    6.0
    >>> GAD7.run(dict(zip([spec.name for spec in GAD7.inputs], [2, 2, 1, 1, 1, 2, 1], strict=True))).value
    10.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from clinrag.calculators.content import content
from clinrag.calculators.spec import Input, Steps, Values

_DATA = content(__name__)

_ABSENT = (
    "a condition not documented counts as absent (Charlson 1987: the index sums the weights of the conditions present)"
)


@dataclass(frozen=True)
class Condition:
    """A Charlson condition scored yes or no: its input's key, words and weight."""

    name: str
    label: str
    points: int
    synonyms: tuple[str, ...] = ()


CONDITIONS: Final = (
    Condition("myocardial_infarction", "myocardial infarction (history)", 1, ("MI", "heart attack", "old MI")),
    Condition("congestive_heart_failure", "congestive heart failure", 1, ("CHF", "heart failure", "HFrEF", "HFpEF")),
    Condition(
        "peripheral_vascular_disease",
        "peripheral vascular disease (claudication, arterial bypass, gangrene, aneurysm ≥ 6 cm)",
        1,
        ("PVD", "PAD", "peripheral arterial disease", "claudication", "aortic aneurysm"),
    ),
    Condition(
        "cerebrovascular_disease",
        "cerebrovascular disease (stroke with minor or no residua, or TIA)",
        1,
        ("CVA", "stroke", "TIA", "transient ischemic attack"),
    ),
    Condition("dementia", "dementia (chronic cognitive deficit)", 1, ("dementia", "Alzheimer's disease")),
    Condition(
        "chronic_pulmonary_disease",
        "chronic pulmonary disease",
        1,
        ("COPD", "chronic lung disease", "emphysema", "chronic bronchitis", "asthma"),
    ),
    Condition(
        "connective_tissue_disease",
        "connective tissue disease",
        1,
        ("SLE", "lupus", "polymyositis", "rheumatoid arthritis", "polymyalgia rheumatica", "mixed connective tissue"),
    ),
    Condition(
        "peptic_ulcer_disease",
        "peptic ulcer disease (treated, or ulcer bleeding)",
        1,
        ("PUD", "peptic ulcer", "gastric ulcer", "duodenal ulcer"),
    ),
    Condition("hemiplegia", "hemiplegia or paraplegia", 2, ("hemiplegia", "hemiparesis", "paraplegia")),
    Condition(
        "renal_disease",
        "moderate to severe renal disease (creatinine > 3 mg/dL, dialysis, transplant, uraemia)",
        2,
        ("moderate to severe CKD", "chronic kidney disease", "dialysis", "ESRD", "kidney transplant"),
    ),
    Condition("leukemia", "leukaemia", 2, ("leukemia", "leukaemia", "CLL", "CML", "AML", "ALL")),
    Condition("lymphoma", "lymphoma", 2, ("lymphoma", "Hodgkin", "non-Hodgkin lymphoma", "NHL")),
    Condition("aids", "AIDS (not HIV infection alone)", 6, ("AIDS", "acquired immunodeficiency syndrome")),
)
"""Charlson 1987, Table 3: the weights of the conditions scored present or absent."""

GRADED: Final = {
    "liver_disease": {"none": 0, "mild": 1, "moderate to severe": 3},
    "diabetes": {"none": 0, "diet-controlled": 0, "uncomplicated": 1, "end-organ damage": 2},
    "solid_tumor": {"none": 0, "localized": 2, "metastatic": 6},
}
"""Charlson 1987: the conditions with grades (mild liver disease 1, moderate or severe 3; diabetes 1, with end-organ
damage 2, diet alone not counted; any tumour 2, metastatic solid tumour 6)."""

_GRADED_INPUTS = (
    _DATA.input("liver_disease", choices=tuple(GRADED["liver_disease"]), default_rule=_ABSENT),
    _DATA.input("diabetes", choices=tuple(GRADED["diabetes"]), default_rule=_ABSENT),
    _DATA.input("solid_tumor", choices=tuple(GRADED["solid_tumor"]), default_rule=_ABSENT),
)

AGE = _DATA.input("age")


def _condition_input(condition: Condition) -> Input:
    return Input(
        name=condition.name,
        label=condition.label,
        kind="boolean",
        required=False,
        default=False,
        default_rule=_ABSENT,
        synonyms=condition.synonyms,
    )


def age_points(age: float) -> int:
    """Charlson's age weight: one point for each decade of age over 40 (50-59: 1, 60-69: 2, ... 90-99: 5).

    Example:
        >>> age_points(49.9), age_points(50), age_points(79), age_points(85), age_points(93)
        (0, 1, 3, 4, 5)
    """
    return max(0, int(age // 10) - 4)


def ten_year_survival(score: float) -> float:
    """The estimated 10-year survival of a combined age-comorbidity score, 0.983^(e^(0.9 × score)).

    Example:
        >>> round(ten_year_survival(0), 3), round(ten_year_survival(4), 3)
        (0.983, 0.534)
    """
    return float(0.983 ** math.exp(0.9 * score))


_ONE_YEAR_MORTALITY: Final = ((0, 0, "12%"), (1, 2, "26%"), (3, 4, "52%"), (5, math.inf, "85%"))
"""Charlson 1987: 1-year mortality of the development cohort by comorbidity index (without age)."""


def _one_year(index: int) -> str:
    return next(rate for low, high, rate in _ONE_YEAR_MORTALITY if low <= index <= high)


def _charlson(v: Values, steps: Steps) -> float:
    total = 0.0
    for condition in CONDITIONS:
        if v[condition.name]:
            total = steps.points(condition.label, condition.points, total)
    for name, grades in GRADED.items():
        grade = v[name]
        if grades[grade]:
            total = steps.points(f"{name.replace('_', ' ')}: {grade}", grades[grade], total)
        elif grade == "diet-controlled":
            steps.add("diabetes treated with diet alone is not counted (Charlson 1987)")
    comorbidity = int(total)
    steps.add(
        f"comorbidity index (without age) = {comorbidity}: 1-year mortality {_one_year(comorbidity)} in Charlson's "
        "1987 development cohort"
    )
    points = age_points(v["age"])
    total = steps.points(f"age {v['age']:g} years (1 point per decade over 40)", points, total)
    steps.add(f"estimated 10-year survival = 0.983^(e^(0.9 × {total:g})) = {100 * ten_year_survival(total):.0f}%")
    return total


CHARLSON = _DATA.calculator(
    "charlson_comorbidity_index",
    inputs=(
        AGE,
        *(_condition_input(condition) for condition in CONDITIONS),
        *_GRADED_INPUTS,
    ),
    compute=_charlson,
)


@dataclass(frozen=True)
class Item:
    """A questionnaire item: its input's key and the question ("over the last 2 weeks, how often...")."""

    name: str
    question: str
    synonyms: tuple[str, ...] = ()


ANSWERS: Final = "0 not at all, 1 several days, 2 more than half the days, 3 nearly every day"

GAD7_ITEMS: Final = (
    Item("nervous", "feeling nervous, anxious or on edge", ("anxious", "on edge")),
    Item("uncontrolled_worry", "not being able to stop or control worrying", ("can't stop worrying",)),
    Item("excessive_worry", "worrying too much about different things", ("worrying too much",)),
    Item("trouble_relaxing", "trouble relaxing", ("can't relax",)),
    Item("restless", "being so restless that it is hard to sit still", ("restlessness",)),
    Item("irritable", "becoming easily annoyed or irritable", ("irritability", "annoyed")),
    Item("afraid", "feeling afraid as if something awful might happen", ("fear", "dread")),
)
"""Spitzer et al. 2006: the seven items, each scored 0-3 over the last 2 weeks."""

PHQ9_ITEMS: Final = (
    Item("anhedonia", "little interest or pleasure in doing things", ("little interest", "anhedonia")),
    Item("depressed_mood", "feeling down, depressed, or hopeless", ("depressed", "hopeless", "low mood")),
    Item("sleep", "trouble falling or staying asleep, or sleeping too much", ("insomnia", "hypersomnia")),
    Item("fatigue", "feeling tired or having little energy", ("tired", "low energy")),
    Item("appetite", "poor appetite or overeating", ("poor appetite", "overeating")),
    Item("worthlessness", "feeling bad about yourself, or that you are a failure", ("guilt", "failure")),
    Item("concentration", "trouble concentrating on things", ("poor concentration",)),
    Item(
        "psychomotor",
        "moving or speaking so slowly that others could notice, or being fidgety or restless",
        ("psychomotor retardation", "psychomotor agitation"),
    ),
    Item(
        "self_harm",
        "thoughts that you would be better off dead or of hurting yourself",
        ("suicidal thoughts", "suicidal ideation", "self-harm"),
    ),
)
"""Kroenke et al. 2001: the nine DSM-IV criteria, each scored 0-3 over the last 2 weeks."""


def _item_input(item: Item) -> Input:
    return Input(
        name=item.name,
        label=f"{item.question} ({ANSWERS})",
        kind="integer",
        minimum=0,
        maximum=3,
        synonyms=item.synonyms,
    )


def _sum_items(items: tuple[Item, ...], v: Values, steps: Steps) -> float:
    total = 0.0
    for item in items:
        total = steps.points(item.question, int(v[item.name]), total)
    return total


def _gad7(v: Values, steps: Steps) -> float:
    return _sum_items(GAD7_ITEMS, v, steps)


GAD7 = _DATA.calculator("gad7", inputs=tuple(_item_input(item) for item in GAD7_ITEMS), compute=_gad7)


def _phq9(v: Values, steps: Steps) -> float:
    total = _sum_items(PHQ9_ITEMS, v, steps)
    if v["self_harm"] > 0:
        steps.add("item 9 (thoughts of death or self-harm) is positive: assess suicide risk, whatever the total")
    return total


PHQ9 = _DATA.calculator("phq9", inputs=tuple(_item_input(item) for item in PHQ9_ITEMS), compute=_phq9)

CALCULATORS = (CHARLSON, GAD7, PHQ9)
