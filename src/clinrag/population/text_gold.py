"""The truth text criteria are measured against: which admissions of a synthetic cohort each criterion describes,
derived from the cohort's gold facts (``gold_facts.jsonl``), never from note text.

Social-history facts carry their meaning: the shared lines as values (``alcohol:heavy``, ``tobacco:former``,
``living:alone``), a storyline's own lines as their text, which `SOCIAL_TEXTS` labels by hand (a storyline line
without a label raises KeyError, so a new one cannot be silently ignored). Coded facts add what their codes mean:
alcohol-related disorders (ICD-10 F10) are heavy alcohol use, nicotine dependence (F17) current smoking, external
causes W00–W19 a fall. Quantities follow `phrases.toml`: 3 or more drinks a day is heavy.

Example:
    >>> fact = {"kind": "social", "value": "alcohol:heavy", "label": "EtOH: Reports 3-4 beers daily; ...",
    ...         "subject_id": 1, "hadm_id": 10}
    >>> sorted(truth_of([fact])["alcohol_heavy"])
    [(1, 10)]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Final

TRUTHS: Final = (
    "alcohol_heavy",
    "alcohol_use",
    "smoking_current",
    "smoking_former",
    "smoking_ever",
    "drug_use",
    "fall",
    "lives_alone",
)
"""Every truth this module derives."""

CRITERIA: Final[Mapping[str, str]] = MappingProxyType(
    {
        "reports heavy alcohol use": "alcohol_heavy",
        "heavy drinkers": "alcohol_heavy",
        "drinks alcohol": "alcohol_use",
        "current smokers": "smoking_current",
        "former smokers": "smoking_former",
        "history of smoking": "smoking_ever",
        "illicit drug use": "drug_use",
        "presented after a mechanical fall": "fall",
        "admitted after a fall": "fall",
        "lives alone": "lives_alone",
    }
)
"""Phrases measured against the truth they should find (two wordings for some, one read word by word)."""

_SHARED: Final[Mapping[str, frozenset[str]]] = MappingProxyType(
    {
        "alcohol:heavy": frozenset({"alcohol_heavy", "alcohol_use"}),
        "alcohol:social": frozenset({"alcohol_use"}),
        "tobacco:current": frozenset({"smoking_current"}),
        "tobacco:former": frozenset({"smoking_former"}),
        "living:alone": frozenset({"lives_alone"}),
    }
)

SOCIAL_TEXTS: Final[Mapping[str, frozenset[str]]] = MappingProxyType(
    {
        "Current smoker, 1 ppd x 25 years.": frozenset({"smoking_current"}),
        "Current smoker, about half a pack per day; 40+ pack-years. No illicit drug use.": frozenset(
            {"smoking_current"}
        ),
        "Divorced, lives with a roommate; drinks socially, denies illicit drugs.": frozenset({"alcohol_use"}),
        "Drinks 1 pint of vodka daily for the past ___ years; prior withdrawal without seizures or DTs.": frozenset(
            {"alcohol_heavy", "alcohol_use"}
        ),
        "Drinks little water at work; 2-3 sodas per day.": frozenset(),
        "Former smoker, 30 pack-years, quit 5 years ago. Drinks socially.": frozenset(
            {"smoking_former", "alcohol_use"}
        ),
        "Former smoker, quit ___ years ago; drinks 1-2 glasses of wine per week.": frozenset(
            {"smoking_former", "alcohol_use"}
        ),
        "Lives alone in a second-floor apartment; uses a cane outdoors.": frozenset({"lives_alone"}),
        "Lives alone in supported housing; has a case manager and receives disability benefits.": frozenset(
            {"lives_alone"}
        ),
        "Lives alone; drives; quit smoking ___ years ago; rare alcohol.": frozenset(
            {"lives_alone", "smoking_former", "alcohol_use"}
        ),
        "Lives alone; independent; quit smoking ___ years ago. No alcohol.": frozenset(
            {"lives_alone", "smoking_former"}
        ),
        "Lives alone; recently lost {his} job as a ___. Denies alcohol or drug use.": frozenset({"lives_alone"}),
        "Lives in a group residence; smokes 1 ppd; uses cannabis several times a week.": frozenset(
            {"smoking_current", "drug_use"}
        ),
        "Lives with a partner; works in retail. Denies substance use.": frozenset(),
        "Lives with {his} daughter; admits to frequently eating takeout and canned soup.": frozenset(),
        "Lives with {his} parents; unemployed. Occasional cannabis use, denies alcohol.": frozenset({"drug_use"}),
        "Lives with {his} partner in a house with 3 steps to enter.": frozenset(),
        "Lives with {his} partner; plans to breastfeed.": frozenset(),
        "Lives with {his} spouse in a two-story home with 12 stairs.": frozenset(),
        "Lives with {his} spouse; ambulates with a walker at baseline.": frozenset(),
        "Lives with {his} spouse; independent at baseline; former smoker.": frozenset({"smoking_former"}),
        "Lives with {his} spouse; no alcohol or drug use.": frozenset(),
        "Married, works as a ___; no tobacco or EtOH.": frozenset(),
        "Never smoker. Retired, lives with {his} spouse; independent in ADLs.": frozenset(),
        "Reports 12-18 beers daily; last drink the morning of admission. Smokes 1 ppd. Denies other drugs.": frozenset(
            {"alcohol_heavy", "alcohol_use", "smoking_current"}
        ),
        "Retired mechanic; lives with family.": frozenset(),
        "Retired teacher; lives alone.": frozenset({"lives_alone"}),
        "Smokes 1 ppd, 50 pack-year history. Drinks 2-3 beers on weekends.": frozenset(
            {"smoking_current", "alcohol_use"}
        ),
        "Smokes about 1 pack a day; drinks 2-3 beers daily.": frozenset(
            {"smoking_current", "alcohol_use", "alcohol_heavy"}
        ),
        "Smokes half a pack per day; counselled on cessation. Works as a ___.": frozenset({"smoking_current"}),
        "Works as a ___. Drinks 1-2 beers on weekends. Not currently driving.": frozenset({"alcohol_use"}),
        "Works as a ___; non-smoker.": frozenset(),
        "Works in construction; lifts heavy objects daily.": frozenset(),
        "Works outdoors; no tobacco.": frozenset(),
    }
)
"""What each storyline's own social-history line says (pronouns written ``{his}``), labelled by hand."""

_PRONOUN = re.compile(r"\b(?:his|her)\b")
_FALL = re.compile(r"^W(?:0\d|1[0-9])")


def _codes(kind: object, value: str) -> frozenset[str]:
    if kind not in ("diagnosis", "complication"):
        return frozenset()
    if value.startswith("F10"):
        return frozenset({"alcohol_heavy", "alcohol_use"})
    if value.startswith("F17"):
        return frozenset({"smoking_current"})
    if _FALL.match(value):
        return frozenset({"fall"})
    return frozenset()


def facts_say(fact: Mapping[str, object]) -> frozenset[str]:
    """The truths one gold fact supports (``smoking_ever`` is derived from current and former by `truth_of`).

    Example:
        >>> sorted(facts_say({"kind": "diagnosis", "value": "W010XXA", "label": "Fall on same level ..."}))
        ['fall']
    """
    kind, value = fact.get("kind"), str(fact.get("value", ""))
    if kind != "social":
        return _codes(kind, value)
    if value in _SHARED:
        return _SHARED[value]
    if ":" in value:
        return frozenset()
    return SOCIAL_TEXTS[_PRONOUN.sub("{his}", str(fact.get("label", "")))]


def truth_of(facts: Iterable[Mapping[str, object]]) -> dict[str, set[tuple[int, int]]]:
    """For every truth of `TRUTHS`, the (subject_id, hadm_id) admissions whose gold facts support it."""
    truth: dict[str, set[tuple[int, int]]] = {name: set() for name in TRUTHS}
    for fact in facts:
        admission = (int(str(fact["subject_id"])), int(str(fact["hadm_id"])))
        for name in facts_say(fact):
            truth[name].add(admission)
    truth["smoking_ever"] = truth["smoking_current"] | truth["smoking_former"]
    return truth
