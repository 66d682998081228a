"""Drug conversions: morphine milligram equivalents (CDC 2022) and equivalent corticosteroid doses.

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

from clinrag.calculators.content import content
from clinrag.calculators.spec import Input, Steps, Values

_DATA = content(__name__)


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


MME = _DATA.calculator(
    "morphine_milligram_equivalents", inputs=tuple(_opioid_input(opioid) for opioid in OPIOIDS), compute=_mme
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

STEROID = _DATA.input("steroid", choices=tuple(EQUIVALENT_MG))
DOSE = _DATA.input("dose")
TARGET = _DATA.input("target", choices=tuple(EQUIVALENT_MG))


def _steroid(v: Values, steps: Steps) -> float:
    drug, target, dose = v["drug"], v["target"], v["dose"]
    given, wanted = EQUIVALENT_MG[drug], EQUIVALENT_MG[target]
    value = float(dose / given * wanted)
    steps.add(f"equivalent doses: {drug} {given:g} mg ≡ {target} {wanted:g} mg")
    steps.add(f"{target} = {dose:g} mg {drug} × {wanted:g} / {given:g} = {value:.2f} mg")
    steps.add("equivalence is for glucocorticoid (anti-inflammatory) effect; mineralocorticoid effects differ")
    return value


STEROID_CONVERSION = _DATA.calculator("steroid_conversion", inputs=(STEROID, DOSE, TARGET), compute=_steroid)

CALCULATORS = (MME, STEROID_CONVERSION)
