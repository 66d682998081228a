"""A third blind test split of the held-out answer benchmark (``test3``), written after the question reading learnt
shorthand, more phrasings and the kind of fact read by meaning (all tuned on the splits before it), and committed
before the answerer was run on it: handover shorthand, the way a patient's family asks, and chart-review wordings
with other verbs. No template here equals or rephrases one of the earlier splits' templates on purpose; the
questions are not to be changed after their first run.

Placeholders as in :mod:`clinrag.evaluate.heldout_questions_2`: ``{name}``, ``{poss}``, ``{listed}``, ``{lower}``.

Example:
    >>> sorted(FAMILIES_3) == sorted(__import__("clinrag.evaluate.heldout_questions", fromlist=["x"]).FAMILIES)
    True
    >>> all(len(families) == 3 and all(len(t) == 2 for t in families.values()) for families in FAMILIES_3.values())
    True
"""

from __future__ import annotations

from typing import Final

FAMILIES_3: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    "allergy": {
        "handover": ("{name} allergy status?", "ADR history - {name}"),
        "family": (
            "is there any medicine {name} shouldn't get because of allergies",
            "which meds did {name} react to in the past",
        ),
        "chart_review": ("Document {poss} allergy list.", "Are any drug allergies recorded in {poss} chart?"),
    },
    "diagnosis": {
        "handover": ("Main problem this admission - {name}?", "{name} working dx at discharge"),
        "family": ("what did the doctors say {name} had", "what was the matter with {name} in hospital"),
        "chart_review": (
            "State the principal diagnosis recorded for {name}.",
            "Which diagnosis headed {poss} discharge summary?",
        ),
    },
    "procedure": {
        "handover": ("{name} s/p what?", "procedure list - {name}"),
        "family": ("what did they do to {name} in surgery", "did {name} have an operation and what for"),
        "chart_review": (
            "Which procedures are documented for {name}?",
            "Name the invasive procedure {name} underwent.",
        ),
    },
    "discharge_medications": {
        "handover": ("{name} going-home meds?", "meds on leaving hospital, {name}"),
        "family": (
            "what tablets is {name} supposed to be taking now they're home",
            "which prescriptions did {name} leave with",
        ),
        "chart_review": (
            "Enumerate {poss} discharge prescriptions.",
            "What medication regimen was {name} discharged with?",
        ),
    },
    "admission_medications": {
        "handover": ("{name} meds before admit?", "home med list {name}"),
        "family": ("what was {name} taking before they went into hospital", "what pills was {name} on beforehand"),
        "chart_review": (
            "Which medications were documented on admission for {name}?",
            "What was {poss} preadmission medication regimen?",
        ),
    },
    "complication": {
        "handover": ("{name} any issues during stay?", "{name} - complications post procedure?"),
        "family": ("did anything bad happen to {name} while in hospital", "was {poss} recovery rough"),
        "chart_review": (
            "Which complications are recorded in {poss} hospital course?",
            "Did {name} suffer any in-hospital complication?",
        ),
    },
    "presentation": {
        "handover": ("{name} presented with?", "{name} - c/o on arrival?"),
        "family": ("why did {name} have to go to hospital", "what symptoms did {name} have when they came in"),
        "chart_review": ("What was the presenting problem for {name}?", "Document {poss} chief complaint."),
    },
    "smoking": {
        "handover": ("any smoking on record for {name}", "{name} smoker or non-smoker?"),
        "family": ("does {name} still smoke", "did {name} ever smoke"),
        "chart_review": (
            "What tobacco history is documented for {name}?",
            "Is {name} a current smoker per the social history?",
        ),
    },
    "alcohol": {
        "handover": ("{name} alcohol?", "{name} etoh hx"),
        "family": ("does {name} drink a lot", "how much alcohol does {name} have"),
        "chart_review": ("What alcohol use is documented for {name}?", "Describe {poss} alcohol consumption."),
    },
    "living": {
        "handover": ("{name} social: lives where/with whom?", "{name} - lives alone?"),
        "family": ("who is at home to help {name}", "does {name} have family at home"),
        "chart_review": (
            "What living arrangements are documented for {name}?",
            "Describe {poss} home circumstances.",
        ),
    },
    "followup": {
        "handover": ("{name} f/u?", "{name} follow up plan after d/c"),
        "family": (
            "when does {name} need to go back to see the doctor",
            "what checkups does {name} have coming up",
        ),
        "chart_review": (
            "Which follow-up appointments were arranged for {name}?",
            "What outpatient follow-up is planned for {name}?",
        ),
    },
    "admissions": {
        "handover": ("{name} previous admissions?", "{name} admission list"),
        "family": ("how many times has {name} been in hospital", "when was {name} in hospital before"),
        "chart_review": (
            "List {poss} inpatient encounters chronologically.",
            "Provide a summary of all of {poss} hospitalizations.",
        ),
    },
}
"""Intent → family → templates, all in the split ``test3``."""

ABSENT_TOPICS_3: Final[tuple[str, ...]] = (
    "lumbar puncture",
    "EEG",
    "cardiac catheterization",
    "thyroidectomy",
    "liver biopsy",
    "cystoscopy",
    "skin graft",
    "pacemaker insertion",
)
"""Tests and treatments a must-abstain question asks about; those a note of the node mentions are left out."""

NEGATIVE_TEMPLATES_3: Final[tuple[str, ...]] = (
    "did {name} have a {topic}?",
    "{topic} result for {name}",
    "when was {poss} {topic}",
)

ABSENT_DRUGS_3: Final[tuple[str, ...]] = (
    "adalimumab",
    "tacrolimus",
    "lithium",
    "methotrexate",
    "dupilumab",
    "natalizumab",
)
"""Drugs a must-abstain question asks about; those a note of the node mentions are left out."""

NOISE_TEMPLATES_3: Final[tuple[str, ...]] = (
    "is {name} on {drug}?",
    "{drug} dose - {name}",
    "who started {name} on {drug}",
)

UNSEEN_TEMPLATES_3: Final[tuple[str, ...]] = (
    "{name} discharge dx?",
    "allergy list for {name}?",
    "{name} procedure list",
)
"""For patients of the other hospitals only."""

WRONG_NAME_TEMPLATES_3: Final[tuple[str, ...]] = (
    "{name} smoker?",
    "meds {name} left hospital on?",
    "{name} follow up",
)
"""For a real surname with an invented first name."""

INVENTED_FIRST_NAMES_3: Final[tuple[str, ...]] = (
    "Cornelius",
    "Henrietta",
    "Barnaby",
    "Wilhelmina",
    "Thaddeus",
    "Clementine",
)
