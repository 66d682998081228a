"""Drug conversions (issue 19): morphine milligram equivalents (CDC 2022) and equivalent corticosteroid doses.

Morphine milligram equivalents take one input per opioid, its total daily dose (mg/day; the fentanyl patch in
mcg/h, as the CDC table does); an opioid not given contributes 0. Buprenorphine and transmucosal (buccal) fentanyl
have no CDC 2022 conversion factor and no input here.

Example:
    >>> MME.run({"oxycodone": 20, "hydrocodone": "40 mg/day"}).value
    70.0
    >>> STEROID_CONVERSION.run({"drug": "prednisone", "dose": 60, "target": "dexamethasone"}).value
    9.0
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from clinrag.calculators.spec import Band, Calculator, Input, Source, Steps, Values


@dataclass(frozen=True)
class Opioid:
    """One row of the CDC 2022 table: the input's key, words, the unit the factor applies to, and the factor."""

    name: str
    label: str
    factor: float
    maximum: float
    unit: str = "mg/day"
    synonyms: tuple[str, ...] = ()


OPIOIDS: Final = (
    Opioid("codeine", "codeine (oral)", 0.15, 1000, synonyms=("codeine", "Tylenol #3", "Tylenol with codeine")),
    Opioid(
        "fentanyl_patch",
        "fentanyl transdermal patch",
        2.4,
        1000,
        unit="ug/h",
        synonyms=("fentanyl patch", "transdermal fentanyl", "Duragesic", "fentanyl mcg/hr"),
    ),
    Opioid("hydrocodone", "hydrocodone (oral)", 1.0, 1000, synonyms=("hydrocodone", "Norco", "Vicodin", "Hysingla")),
    Opioid("hydromorphone", "hydromorphone (oral)", 5.0, 500, synonyms=("hydromorphone", "Dilaudid", "Exalgo")),
    Opioid("methadone", "methadone (oral)", 4.7, 1000, synonyms=("methadone", "Dolophine", "Methadose")),
    Opioid("morphine", "morphine (oral)", 1.0, 5000, synonyms=("morphine", "MS Contin", "Kadian", "MSIR")),
    Opioid("oxycodone", "oxycodone (oral)", 1.5, 2000, synonyms=("oxycodone", "OxyContin", "Percocet", "Roxicodone")),
    Opioid("oxymorphone", "oxymorphone (oral)", 3.0, 1000, synonyms=("oxymorphone", "Opana")),
    Opioid("tapentadol", "tapentadol (oral)", 0.4, 1000, synonyms=("tapentadol", "Nucynta")),
    Opioid("tramadol", "tramadol (oral)", 0.2, 1000, synonyms=("tramadol", "Ultram")),
)
"""Dowell et al. 2022, Table: MME conversion factors (doses in mg/day; fentanyl transdermal in mcg/h)."""

_NOT_GIVEN = "an opioid not given contributes 0 MME/day (CDC 2022: the total is the sum over the opioids taken)"


def _opioid_input(opioid: Opioid) -> Input:
    per = "mcg/h" if opioid.unit == "ug/h" else "total mg per day"
    return Input(
        name=opioid.name,
        label=f"{opioid.label}, {per}",
        unit=opioid.unit,
        minimum=0,
        maximum=opioid.maximum,
        required=False,
        default=0.0,
        default_rule=_NOT_GIVEN,
        synonyms=opioid.synonyms,
    )


def _mme(v: Values, steps: Steps) -> float:
    total = 0.0
    for opioid in OPIOIDS:
        dose = v[opioid.name]
        if dose == 0:
            continue
        mme = dose * opioid.factor
        unit = "mcg/h" if opioid.unit == "ug/h" else "mg/day"
        total += mme
        steps.add(
            f"{opioid.label}: {dose:g} {unit} × {opioid.factor:g} = {mme:g} MME/day → running total {total:g} MME/day"
        )
        if opioid.name == "methadone":
            steps.add("methadone: conversion is particularly uncertain (long, variable half-life; CDC 2022)")
        if opioid.name == "fentanyl_patch":
            steps.add("fentanyl patch: dosed in mcg/h, the factor 2.4 gives MME per day (CDC 2022)")
    if total == 0:
        steps.add("no opioid dose was given: 0 MME/day")
    else:
        steps.add(f"total = {total:g} MME/day (an estimate: do not use it to convert one opioid to another)")
    return total


MME = Calculator(
    name="morphine_milligram_equivalents",
    title="Morphine milligram equivalents (MME/day, CDC 2022)",
    inputs=tuple(_opioid_input(opioid) for opioid in OPIOIDS),
    unit="MME/day",
    source=Source(
        citation="Dowell D, Ragan KR, Jones CM, Baldwin GT, Chou R. CDC Clinical Practice Guideline for Prescribing "
        "Opioids for Pain - United States, 2022. MMWR Recomm Rep 2022;71(No. RR-3):1-95 (Table: morphine "
        "milligram equivalent doses for commonly prescribed opioids).",
        url="https://www.cdc.gov/mmwr/volumes/71/rr/rr7103a1.htm",
        bands_citation="Dowell et al. 2022 (≥50 MME/day: additional precautions, reassess before increasing); "
        "Dowell D, Haegerich TM, Chou R. CDC Guideline for Prescribing Opioids for Chronic Pain - United States, "
        "2016. MMWR Recomm Rep 2016;65(No. RR-1):1-49 (avoid or carefully justify ≥90 MME/day).",
    ),
    compute=_mme,
    bands=(
        Band(high=50, label="below 50 MME/day"),
        Band(
            low=50,
            high=90,
            label="50 MME/day or more",
            meaning="overdose risk rises with dose while benefit rarely does; reassess benefits and risks before "
            "any increase, offer naloxone",
        ),
        Band(
            low=90,
            label="90 MME/day or more",
            meaning="high dosage: the 2016 CDC guideline advised avoiding or carefully justifying ≥90 MME/day",
        ),
    ),
    synonyms=("morphine milligram equivalents", "mme", "morphine equivalent dose", "med", "opioid conversion"),
    indications=("total opioid dose", "opioid overdose risk", "opioid dosage threshold"),
)


EQUIVALENT_MG: Final = {
    "cortisone": 25.0,
    "hydrocortisone": 20.0,
    "prednisone": 5.0,
    "prednisolone": 5.0,
    "methylprednisolone": 4.0,
    "triamcinolone": 4.0,
    "dexamethasone": 0.75,
    "betamethasone": 0.75,
}
"""Equivalent glucocorticoid (anti-inflammatory) doses in mg, oral or intravenous."""

_STEROID_SYNONYMS: Final = (
    "Solu-Cortef",
    "Cortef",
    "Deltasone",
    "Orapred",
    "Medrol",
    "Solu-Medrol",
    "Kenalog",
    "Decadron",
    "Celestone",
)
STEROID = Input(
    name="drug",
    label="corticosteroid given",
    kind="choice",
    choices=tuple(EQUIVALENT_MG),
    synonyms=("steroid", "corticosteroid", "from", *_STEROID_SYNONYMS),
)
DOSE = Input(
    name="dose",
    label="dose of the corticosteroid given",
    unit="mg",
    minimum=0.1,
    maximum=2000,
    synonyms=("dose", "steroid dose"),
)
TARGET = Input(
    name="target",
    label="corticosteroid to convert to",
    kind="choice",
    choices=tuple(EQUIVALENT_MG),
    synonyms=("to", "target steroid", "convert to", "equivalent of"),
)


def _steroid(v: Values, steps: Steps) -> float:
    drug, target, dose = v["drug"], v["target"], v["dose"]
    given, wanted = EQUIVALENT_MG[drug], EQUIVALENT_MG[target]
    value = float(dose / given * wanted)
    steps.add(f"equivalent doses: {drug} {given:g} mg ≡ {target} {wanted:g} mg")
    steps.add(f"{target} = {dose:g} mg {drug} × {wanted:g} / {given:g} = {value:.2f} mg")
    steps.add("equivalence is for glucocorticoid (anti-inflammatory) effect; mineralocorticoid effects differ")
    return value


STEROID_CONVERSION = Calculator(
    name="steroid_conversion",
    title="Corticosteroid dose conversion",
    inputs=(STEROID, DOSE, TARGET),
    unit="mg",
    source=Source(
        citation="Meikle AW, Tyler FH. Potency and duration of action of glucocorticoids: effects of hydrocortisone, "
        "prednisone and dexamethasone on human pituitary-adrenal function. Am J Med 1977;63:200-207; equivalent "
        "doses as tabulated in standard references (cortisone 25, hydrocortisone 20, prednisone and prednisolone "
        "5, methylprednisolone and triamcinolone 4, dexamethasone and betamethasone 0.75 mg; some tables give "
        "betamethasone 0.6 mg).",
    ),
    compute=_steroid,
    synonyms=(
        "steroid conversion",
        "corticosteroid conversion",
        "glucocorticoid equivalent dose",
        "prednisone equivalent",
        "steroid equivalence",
    ),
    indications=("switching corticosteroids", "equivalent steroid dose", "steroid dose comparison"),
    digits=2,
)

CALCULATORS = (MME, STEROID_CONVERSION)
