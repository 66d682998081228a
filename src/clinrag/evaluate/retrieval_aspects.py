"""What the benchmark's questions ask about, and how they phrase it.

An `Aspect` is what a single-patient or single-note question asks (the discharge medications, the allergies…): which
gold facts answer it and question templates; a `TrendAspect` is what a multi-patient question asks (who was
discharged on a drug…): facts grouped by value, a plain name for a value and templates. Questions paraphrase the
notes: templates and value names are worded as a clinician asks, not as the note writes.

Example:
    >>> [aspect.name for aspect in TREND_ASPECTS][:2]
    ['discharge_medication', 'home_medication']
    >>> fact = GoldFact("1", 1, "Discharge Medications", "medication", "Amiodarone", "", "amiodarone 200 mg")
    >>> [aspect.name for aspect in PATIENT_ASPECTS if aspect.select(fact)]
    ['discharge_medications']
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final

from clinrag.evaluate.retrieval_gold import GoldFact, normalise_space
from clinrag.ingest.synthetic.storylines import COMORBIDITIES, STORYLINES

MAX_VALUE_WORDS: Final = 5
"""A multi-patient question names a value in at most this many words when it can."""

Selector = Callable[[GoldFact], bool]


@dataclass(frozen=True)
class Aspect:
    """What a single-patient or single-note question asks about: the facts that answer it and its phrasings.

    ``patient_templates`` use ``{name}`` and ``{poss}`` (possessive); ``note_templates`` use ``{stay}`` (such as
    "Betty Henry's stay in March 2019"). An aspect without note templates is a property of the patient, not of a
    stay (allergies, smoking).
    """

    name: str
    select: Selector
    patient_templates: tuple[str, ...]
    note_templates: tuple[str, ...] = ()


@dataclass(frozen=True)
class TrendAspect:
    """What a multi-patient question asks about: facts grouped by value, a plain name for a value, phrasings."""

    name: str
    select: Selector
    describe: Callable[[GoldFact, random.Random], str]
    templates: tuple[str, ...]


def _in_section(section: str) -> Selector:
    return lambda fact: fact.section == section


def _of_kind(kind: str) -> Selector:
    return lambda fact: fact.kind == kind


def _social(prefix: str) -> Selector:
    return lambda fact: fact.kind == "social" and fact.value.startswith(prefix)


PATIENT_ASPECTS: Final[tuple[Aspect, ...]] = (
    Aspect(
        "discharge_medications",
        _in_section("Discharge Medications"),
        (
            "Which drugs was {name} sent home with?",
            "What medicines did {name} leave the hospital on?",
            "What is {poss} take-home prescription list?",
            "What should {name} keep taking once back home?",
        ),
        (
            "Which medicines were prescribed at the end of {stay}?",
            "What drugs did the patient go home with after {stay}?",
        ),
    ),
    Aspect(
        "discharge_diagnosis",
        _in_section("Discharge Diagnosis"),
        (
            "What was {name} diagnosed with?",
            "What were {poss} final diagnoses on leaving hospital?",
            "Which conditions was {name} found to have by the end of the admission?",
        ),
        ("What was the final diagnosis of {stay}?", "Which conditions were diagnosed by the end of {stay}?"),
    ),
    Aspect(
        "allergies",
        _of_kind("allergy"),
        (
            "Is {name} allergic to anything?",
            "Does {name} react badly to any medicines?",
            "Any drug intolerances for {name}?",
        ),
    ),
    Aspect(
        "procedures",
        _of_kind("procedure"),
        (
            "What operation did {name} have?",
            "Which procedures were performed on {name}?",
            "What did {name} have surgery for?",
            "Was {name} operated on, and what was done?",
        ),
        ("During {stay}, what procedure was done?", "What operation took place during {stay}?"),
    ),
    Aspect(
        "complications",
        _of_kind("complication"),
        (
            "Did anything go wrong during {poss} hospital stay?",
            "What complications did {name} develop in hospital?",
            "Were there any setbacks while {name} was an inpatient?",
        ),
        ("What complications arose during {stay}?", "Did anything go wrong during {stay}?"),
    ),
    Aspect(
        "smoking", _social("tobacco:"), ("Does {name} smoke?", "Is {name} a smoker?", "Has {name} ever used tobacco?")
    ),
    Aspect(
        "alcohol",
        _social("alcohol:"),
        ("Does {name} drink?", "How much alcohol does {name} consume?", "What are {poss} drinking habits?"),
    ),
    Aspect(
        "living",
        _social("living:"),
        ("Who does {name} live with?", "What is {poss} home situation?", "Does {name} live by themselves?"),
    ),
    Aspect(
        "findings",
        lambda fact: fact.kind == "finding" and fact.section == "Pertinent Results" and not fact.noise,
        (
            "What did {poss} tests and imaging show?",
            "What were the key results of {poss} workup?",
            "What did investigations reveal for {name}?",
        ),
        ("What did the tests show during {stay}?", "Which investigation results stood out in {stay}?"),
    ),
    Aspect(
        "presenting_complaint",
        _in_section("Chief Complaint"),
        (
            "Why did {name} come to hospital?",
            "What symptoms brought {name} in?",
            "What was {name} complaining of on arrival?",
        ),
        ("What was the reason for {stay}?", "What symptoms led to {stay}?"),
    ),
    Aspect(
        "home_medications",
        _in_section("Medications on Admission"),
        ("What was {name} taking before being admitted?", "Which regular medicines does {name} use at home?"),
        ("Which home medicines was the patient on at the start of {stay}?",),
    ),
    Aspect(
        "chronic_conditions",
        _in_section("Past Medical History"),
        ("What long-term health problems does {name} have?", "What is {poss} background medical history?"),
    ),
)


def _phrases() -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    diagnoses: dict[str, tuple[str, ...]] = {}
    procedures: dict[str, tuple[str, ...]] = {}
    for storyline in STORYLINES:
        for diagnosis in (
            storyline.diagnosis,
            *storyline.secondary,
            *(complication.diagnosis for complication in storyline.complications),
        ):
            diagnoses.setdefault(diagnosis.code, diagnosis.phrases)
        for procedure in storyline.procedures:
            procedures.setdefault(procedure.code, procedure.phrases)
    for comorbidity in COMORBIDITIES:
        diagnoses.setdefault(comorbidity.diagnosis.code, comorbidity.diagnosis.phrases)
    return diagnoses, procedures


DIAGNOSIS_PHRASES, PROCEDURE_PHRASES = _phrases()


def plain_title(title: str) -> str:
    """An ICD title as a clinician would say it: no "unspecified", encounter or bracketed qualifiers.

    Example:
        >>> plain_title("Ileus, unspecified"), plain_title("Resection of Appendix, Percutaneous Endoscopic Approach")
        ('ileus', 'resection of appendix')
    """
    text = re.sub(r"\s*\[[^\]]*\]|\s*\([^)]*\)", "", title)
    text = re.sub(r"\b(?:unspecified|initial encounter)\b", "", text, flags=re.IGNORECASE)
    text = re.split(r",|\bwith\b|\bvia\b", text, maxsplit=1)[0]
    words = normalise_space(text).strip(" ,").split()
    return " ".join(word if word[1:2].isupper() else word.lower() for word in words)


def drug_name(fact: GoldFact, rng: random.Random) -> str:
    """A drug in plain lower case, without formulation notes or strengths.

    Example:
        >>> fact = GoldFact("1", 1, "Discharge Medications", "medication", "OxyCODONE (Immediate Release)", "", "")
        >>> drug_name(fact, random.Random(0))
        'oxycodone'
    """
    return normalise_space(re.sub(r"\([^)]*\)|\S*\d\S*", "", fact.value)).lower()


def _named(phrases: Mapping[str, tuple[str, ...]], with_title: bool = True) -> Callable[[GoldFact, random.Random], str]:
    """A describer that picks one of a code's clinical phrases or (``with_title``) its plain ICD title."""

    def describe(fact: GoldFact, rng: random.Random) -> str:
        titles: tuple[str, ...] = (plain_title(fact.label),) if with_title or fact.value not in phrases else ()
        options: list[str] = [option for option in dict.fromkeys((*phrases.get(fact.value, ()), *titles)) if option]
        short = [option for option in options if len(option.split()) <= MAX_VALUE_WORDS]
        chosen: str = rng.choice(short or sorted(options, key=len)[:1] or [fact.value])
        return chosen

    return describe


TREND_ASPECTS: Final[tuple[TrendAspect, ...]] = (
    TrendAspect(
        "discharge_medication",
        _in_section("Discharge Medications"),
        drug_name,
        (
            "Which patients were discharged on {value}?",
            "Who went home with a prescription for {value}?",
            "List everyone sent home taking {value}.",
        ),
    ),
    TrendAspect(
        "home_medication",
        _in_section("Medications on Admission"),
        drug_name,
        ("Which patients were already on {value} before admission?", "Who takes {value} at home?"),
    ),
    TrendAspect(
        "complication",
        _of_kind("complication"),
        _named(DIAGNOSIS_PHRASES),
        (
            "Who developed {value} while in hospital?",
            "Which patients had {value} as a complication?",
            "In which patients did {value} occur during the admission?",
        ),
    ),
    TrendAspect(
        "discharge_diagnosis",
        _in_section("Discharge Diagnosis"),
        _named(DIAGNOSIS_PHRASES),
        (
            "Which patients had {value}?",
            "Who was diagnosed with {value}?",
            "Find the patients with a discharge diagnosis of {value}.",
        ),
    ),
    TrendAspect(
        "procedure",
        _of_kind("procedure"),
        _named(PROCEDURE_PHRASES, with_title=False),  # ICD-10-PCS titles are not how clinicians speak
        ("Which patients underwent {value}?", "Who had {value} performed?"),
    ),
    TrendAspect(
        "chronic_condition",
        _in_section("Past Medical History"),
        _named(DIAGNOSIS_PHRASES),
        ("Which patients have a history of {value}?", "Whose past medical history includes {value}?"),
    ),
)
