"""The phrasings of the held-out answer benchmark: for each kind of fact a clinician asks about one patient,
families of wordings (synonyms, clinical abbreviations, possessives, typos, lay words, other verbs), each family a
few templates. The benchmark splits by family: three of each intent's six families (``direct`` and two others)
are the dev half, the other three the test half, so no wording of the test half is ever seen while tuning.

``{name}`` is the patient's full name and ``{poss}`` its possessive ("Ada Stone's").

Example:
    >>> sorted(FAMILIES)[:2]
    ['admission_medications', 'admissions']
    >>> split_of("allergy", "direct"), split_of("allergy", "possessive")
    ('dev', 'dev')
"""

from __future__ import annotations

from typing import Final

FAMILIES: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    "allergy": {
        "direct": ("Is {name} allergic to anything?", "What allergies does {name} have?"),
        "possessive": ("{poss} allergies?", "What are {poss} drug allergies?"),
        "abbreviation": ("Any ADRs documented for {name}?", "Allergies / ADRs for {name}?"),
        "lay": (
            "Does any medicine make {name} react badly?",
            "Is there a drug {name} can't take because of a reaction?",
        ),
        "typo": ("Is {name} alergic to anythng?", "what alergies does {name} have"),
        "verb": ("What reactions has {name} had to drugs?", "Which drugs is {name} intolerant of?"),
    },
    "diagnosis": {
        "direct": ("What was {poss} primary discharge diagnosis?", "What was {name} diagnosed with?"),
        "possessive": ("{poss} main diagnosis at discharge?", "What is {poss} final diagnosis?"),
        "abbreviation": ("Primary dx for {name}?", "What was the d/c dx for {name}?"),
        "lay": ("What was wrong with {name}?", "What illness was {name} in hospital for?"),
        "typo": ("What was {poss} primary diagnosys?", "whats the discharge diagnossis for {name}"),
        "verb": ("What was {name} treated for?", "What was {name} admitted with?"),
    },
    "procedure": {
        "direct": (
            "What procedure did {name} undergo during the hospital stay?",
            "What procedure was performed on {name}?",
        ),
        "possessive": ("{poss} procedure?", "What was {poss} operation?"),
        "abbreviation": ("What surgery/procedure was done for {name} this admission?", "Any procedures for pt {name}?"),
        "lay": ("What operation did {name} have?", "Did {name} have surgery, and what was done?"),
        "typo": ("What procedre did {name} have?", "what surgury was done on {name}"),
        "verb": ("What did the surgeons do for {name}?", "Which intervention did {name} receive?"),
    },
    "discharge_medications": {
        "direct": ("What medications was {name} discharged on?", "What were {poss} discharge medications?"),
        "possessive": ("{poss} discharge meds?", "List {poss} medications at discharge."),
        "abbreviation": ("d/c meds for {name}?", "Discharge meds for pt {name}?"),
        "lay": ("What pills did {name} go home with?", "Which drugs was {name} sent home on?"),
        "typo": ("What medicatons was {name} discharged on?", "what are {poss} dischage medications"),
        "verb": ("What was {name} prescribed when leaving the hospital?", "What should {name} keep taking at home?"),
    },
    "admission_medications": {
        "direct": ("What medications was {name} taking before admission?", "What were {poss} home medications?"),
        "possessive": ("{poss} medications on admission?", "{poss} pre-admission meds?"),
        "abbreviation": ("Home meds for {name}?", "Meds on admission for pt {name}?"),
        "lay": ("What pills was {name} on before coming into hospital?", "What drugs did {name} take at home?"),
        "typo": ("What medicatons was {name} taking before admision?", "what were {poss} home medicatons"),
        "verb": ("What was {name} taking regularly before being admitted?", "What was {name} usually prescribed?"),
    },
    "complication": {
        "direct": ("What complication did {name} have?", "What complications did {name} develop during the stay?"),
        "possessive": ("{poss} complications?", "What went wrong in {poss} hospital course?"),
        "abbreviation": (
            "Any complications during {poss} hospital course?",
            "Complications this admission for pt {name}?",
        ),
        "lay": ("Did anything go wrong for {name} in hospital?", "What setbacks did {name} have while in hospital?"),
        "typo": ("What complicaton did {name} have?", "any complicatons for {name}"),
        "verb": ("What did {name} develop during the hospital stay?", "What problem arose during {poss} stay?"),
    },
    "presentation": {
        "direct": ("What was {poss} chief complaint?", "Why did {name} come to the hospital?"),
        "possessive": ("{poss} presenting complaint?", "{poss} reason for admission?"),
        "abbreviation": ("CC for {name}?", "Chief complaint of pt {name}?"),
        "lay": ("What brought {name} in?", "Why was {name} brought to the hospital?"),
        "typo": ("What was {poss} cheif complaint?", "why did {name} come to the hopsital"),
        "verb": ("What was {name} complaining of on arrival?", "What did {name} present with?"),
    },
    "smoking": {
        "direct": ("Does {name} smoke?", "What is {poss} smoking history?"),
        "possessive": ("{poss} tobacco use?", "{poss} smoking status?"),
        "abbreviation": ("Tobacco hx for {name}?", "SHx: does pt {name} smoke?"),
        "lay": ("Is {name} a smoker?", "Does {name} use cigarettes?"),
        "typo": ("Does {name} smokee?", "what is {poss} smokng history"),
        "verb": ("Has {name} ever smoked?", "How much does {name} smoke?"),
    },
    "alcohol": {
        "direct": ("Does {name} drink alcohol?", "What is {poss} alcohol use?"),
        "possessive": ("{poss} drinking habits?", "{poss} alcohol history?"),
        "abbreviation": ("EtOH use for {name}?", "SHx: EtOH for pt {name}?"),
        "lay": ("Does {name} drink?", "How much does {name} drink?"),
        "typo": ("Does {name} drink alchohol?", "what is {poss} alcohol usage"),
        "verb": ("Has {name} been drinking?", "Does {name} consume alcohol?"),
    },
    "living": {
        "direct": ("Who does {name} live with?", "What is {poss} living situation?"),
        "possessive": ("{poss} home situation?", "{poss} living arrangements?"),
        "abbreviation": ("SHx: living situation of pt {name}?", "Social hx for {name}: lives with?"),
        "lay": ("Does {name} live alone?", "Who is at home with {name}?"),
        "typo": ("Who does {name} live wiht?", "what is {poss} living situaton"),
        "verb": ("Where does {name} live and with whom?", "Is {name} living independently?"),
    },
    "followup": {
        "direct": ("What follow-up was arranged for {name} after discharge?", "What follow-up does {name} need?"),
        "possessive": ("{poss} follow-up plan?", "{poss} follow-up appointments?"),
        "abbreviation": ("f/u for {name}?", "F/u plan for pt {name} after d/c?"),
        "lay": ("When should {name} see a doctor again?", "Which clinic should {name} go back to?"),
        "typo": ("What folow-up was arranged for {name}?", "what followup apointments does {name} have"),
        "verb": ("Who is {name} to see after leaving hospital?", "What appointments were scheduled for {name}?"),
    },
    "admissions": {
        "direct": ("Summarize {poss} hospital admissions over the years.", "List all of {poss} admissions."),
        "possessive": ("{poss} admission history?", "{poss} hospital stays so far?"),
        "abbreviation": ("Summarise all admissions for pt {name}.", "Overview of {poss} hospitalizations?"),
        "lay": ("How many times has {name} been admitted, and for what?", "Give me a timeline of {poss} stays."),
        "typo": ("Sumarize {poss} hospital admissions over the years.", "list all of {poss} admisions"),
        "verb": ("Recap every admission of {name}.", "Outline {poss} hospitalizations in order."),
    },
}
"""Intent → family → templates."""


def split_of(intent: str, family: str) -> str:
    """The half a family belongs to. ``direct`` wordings are dev for every intent (the issue's own examples are
    among them, and the answer step was developed on those); of the other five families two are dev and three test,
    rotating with the intent so that each half holds every kind of wording (possessives, abbreviations, lay words,
    typos, other verbs) across intents.

    Example:
        >>> [split_of("allergy", family) for family in FAMILIES["allergy"]]
        ['dev', 'dev', 'test', 'dev', 'test', 'test']
    """
    if family == "direct":
        return "dev"
    others = [name for name in FAMILIES[intent] if name != "direct"]
    shift = list(FAMILIES).index(intent)
    dev = {others[shift % len(others)], others[(shift + 2) % len(others)]}
    return "dev" if family in dev else "test"
