"""A fourth blind test split of the held-out answer benchmark (``test4``), written by someone who had not read the
question-reading code, and committed before the answerer was ever run on it: a ward nurse asking a colleague
(``nurse_to_nurse``: ward shorthand, UK and US abbreviations, the odd typo), a medical student asking plainly in
full, sometimes long and wordy sentences (``student``), and search-box keyword queries with no grammar at all
(``terse_query``). No template here equals or rephrases one of the earlier splits' templates on purpose; the
questions are not to be changed after their first run.

Placeholders as in :mod:`clinrag.evaluate.heldout_questions_2`: ``{name}``, ``{poss}``, ``{listed}``, ``{lower}``.

The questions that must abstain use their own wordings, tests and drugs (those a note of the node mentions are left
out when the questions are built), patients of other hospitals, and real surnames with first names no earlier split
invented.

Example:
    >>> sorted(FAMILIES_4) == sorted(__import__("clinrag.evaluate.heldout_questions", fromlist=["x"]).FAMILIES)
    True
    >>> all(len(families) == 3 and all(len(t) == 2 for t in families.values()) for families in FAMILIES_4.values())
    True
    >>> sorted({family for families in FAMILIES_4.values() for family in families})
    ['nurse_to_nurse', 'student', 'terse_query']
"""

from __future__ import annotations

from typing import Final

FAMILIES_4: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    "allergy": {
        "nurse_to_nurse": (
            "about to hang abx for {name} - do we know of any allergies?",
            "checking {poss} wristband - any allergies documented or are they NKDA?",
        ),
        "student": (
            "Sorry if this is a basic question, but does {name} have any documented allergies, and what kind of "
            "reaction did they have?",
            "I'm a medical student reviewing {poss} notes: which substances is the patient recorded as allergic to?",
        ),
        "terse_query": ("{name} allergies meds reaction", "{lower} alergy list nkda"),
    },
    "diagnosis": {
        "nurse_to_nurse": (
            "remind me what {name} was in with? need the final dx for the transfer form",
            "what did the doctors put down as {poss} diagnosis when they d/c'd them",
        ),
        "student": (
            "For my case presentation, what was the principal diagnosis {name} was discharged with?",
            "I'm trying to understand {poss} admission - what did the team ultimately conclude was going on?",
        ),
        "terse_query": ("{name} final diagnosis discharge summary", "{lower} primary diagnsis"),
    },
    "procedure": {
        "nurse_to_nurse": (
            "is {name} post-op? what did they actualy have done",
            "doing {poss} wound check, which procedure was it again?",
        ),
        "student": (
            "Which surgical or invasive procedure did {name} undergo during this admission, and was it open or "
            "laparoscopic?",
            "I read that {name} went for an operation - could someone explain what exactly was performed?",
        ),
        "terse_query": ("{name} procedure surgery performed", "{lower} operation which one"),
    },
    "discharge_medications": {
        "nurse_to_nurse": (
            "doing the TTOs for {name}, what's on the discharge med list?",
            "{name} is going home today, which meds are they taking out with them?",
        ),
        "student": (
            "What medications were on {poss} list at the point of discharge, including any that were newly "
            "started in hospital?",
            "As part of my write-up I need to know what {name} was told to take after leaving the ward; what was "
            "prescribed?",
        ),
        "terse_query": ("{name} discharge medication list dose", "{lower} take home meds dc"),
    },
    "admission_medications": {
        "nurse_to_nurse": (
            "doing the med rec for {name} - what were they on at home before they came in?",
            "did {name} bring their own meds in? what do they normally take",
        ),
        "student": (
            "Could you list the medicines {name} was already taking in the community before this hospital admission?",
            "Before being admitted, what was {name} prescribed by their regular doctor, according to the notes?",
        ),
        "terse_query": ("{name} home medications pre admission", "{lower} usual regular meds"),
    },
    "complication": {
        "nurse_to_nurse": (
            "did {name} have any complications while on the ward?",
            "was {poss} stay eventful at all? any complicatons post op",
        ),
        "student": (
            "Did {name} experience any complications during the hospital course, and if so how were they managed?",
            "I noticed {poss} stay was longer than I expected - was there a complication that explains that?",
        ),
        "terse_query": ("{name} complications hospital course", "{lower} post op complication adverse event"),
    },
    "presentation": {
        "nurse_to_nurse": (
            "just got {name} up from ED, what were they admitted with symptom-wise?",
            "what was {name} like when they first came in, what was the main problem?",
        ),
        "student": (
            "In the history, what was the main symptom that made {name} seek medical attention?",
            "Could you summarise the symptoms {name} initially presented with, before any diagnosis was made?",
        ),
        "terse_query": ("{name} chief complaint symptoms admission", "{lower} presenting symptom reason"),
    },
    "smoking": {
        "nurse_to_nurse": (
            "is {name} going to want nicotine patches? do they smoke",
            "does {name} pop outside for a cigarette?",
        ),
        "student": (
            "Could you tell me about {poss} smoking history, including pack-years if they are recorded?",
            "I need the tobacco part of {poss} social history for my notes - how much, and are they still smoking?",
        ),
        "terse_query": ("{name} smoking pack years", "{lower} cigarettes tobacco status"),
    },
    "alcohol": {
        "nurse_to_nurse": (
            "do we need to watch {name} for withdrawl? how much do they drink",
            "is {name} a big drinker, should I be starting a CIWA?",
        ),
        "student": (
            "What does the social history say about {poss} alcohol intake, in units or drinks per week?",
            "Is there any mention of alcohol in {poss} history, for example how many drinks they have in a typical "
            "week?",
        ),
        "terse_query": ("{name} alcohol intake units", "{lower} alcohol beer wine intake"),
    },
    "living": {
        "nurse_to_nurse": (
            "for discharge planning - has {name} got anyone living with them?",
            "does {name} manage on their own at home or live with family?",
        ),
        "student": (
            "I'm writing up the social history for {name}; is there a partner or family in the household, or are "
            "they on their own?",
            "What kind of place does {name} live in, and does anyone else live there with them?",
        ),
        "terse_query": ("{name} lives with social history", "{lower} home alone spouse family"),
    },
    "followup": {
        "nurse_to_nurse": (
            "{name} going home - any appts I need to tell them about?",
            "has {name} got a clinic appointment booked after d/c or do they need to ring up?",
        ),
        "student": (
            "Which team is responsible for seeing {name} after discharge, and how soon should that review happen?",
            "After leaving hospital, when and where is {name} supposed to be reviewed?",
        ),
        "terse_query": ("{name} follow up appointment clinic weeks", "{lower} folow up plan outpatient"),
    },
    "admissions": {
        "nurse_to_nurse": (
            "has {name} been in before? feel like I've nursed them on a previous admission",
            "{name} seems to be a regular here, how many admissions have there been?",
        ),
        "student": (
            "Could you outline each of {poss} hospital admissions, with dates, from the earliest to the most recent?",
            "For my longitudinal case study I need every time {name} has been admitted and the reason for each one.",
        ),
        "terse_query": ("{name} admissions all dates reasons", "{lower} previous admissions timeline"),
    },
}
"""Intent → family → templates, all in the split ``test4``."""

ABSENT_TOPICS_4: Final[tuple[str, ...]] = (
    "colonoscopy",
    "DEXA scan",
    "ERCP",
    "echocardiogram",
    "thyroid ultrasound",
    "Holter monitor",
    "nerve conduction study",
    "bone marrow biopsy",
)
"""Tests and treatments a must-abstain question asks about; those a note of the node mentions are left out."""

NEGATIVE_TEMPLATES_4: Final[tuple[str, ...]] = (
    "has {name} had a {topic} done? what was the result",
    "I can't find {poss} {topic} report anywhere, what did it show?",
    "{name} {topic} report outcome",
)

ABSENT_DRUGS_4: Final[tuple[str, ...]] = (
    "warfarin",
    "clozapine",
    "etanercept",
    "semaglutide",
    "digoxin",
    "amiodarone",
)
"""Drugs a must-abstain question asks about; those a note of the node mentions are left out."""

NOISE_TEMPLATES_4: Final[tuple[str, ...]] = (
    "what dose of {drug} is {name} meant to be having?",
    "is {name} due their {drug} tonight?",
    "{name} {drug} levels monitoring",
)

UNSEEN_TEMPLATES_4: Final[tuple[str, ...]] = (
    "{name} discharge medication list dose",
    "what is {name} allergic to? writing up the drug chart",
    "Could you tell me what {poss} final diagnosis was when they went home?",
)
"""For patients of the other hospitals only."""

WRONG_NAME_TEMPLATES_4: Final[tuple[str, ...]] = (
    "remind me what {name} was in with?",
    "does {name} live with anyone at home",
    "{name} home medications pre admission list",
)
"""For a real surname with an invented first name."""

INVENTED_FIRST_NAMES_4: Final[tuple[str, ...]] = ("Leonard", "Marjorie", "Ansel", "Gwendolyn", "Rupert", "Imogen")
