"""A second, blind test split of the held-out answer benchmark (``test2``): new phrasing families for the same
twelve intents, written after the first test half had been seen and tuned on, in the way clinicians type —
terse notes-style queries, the name at the end, other verbs, lay words, abbreviations, typos, and now and then the
name as a list shows it ("Stone, Ada") or typed in lower case. No template here equals or rephrases one of
:data:`clinrag.evaluate.heldout_questions.FAMILIES`; the questions were committed before the answerer was ever run
on them and are not to be changed after.

Placeholders: ``{name}`` the full name ("Ada Stone"), ``{poss}`` its possessive ("Ada Stone's"), ``{listed}`` the
name as a patient list shows it ("Stone, Ada"), ``{lower}`` the full name in lower case ("ada stone").

The questions that must abstain use new wordings and new facts no record holds (tests and drugs checked absent from
the node's notes when the questions are built), patients of other hospitals, and real surnames with invented first
names not used by the first split.

Example:
    >>> sorted(FAMILIES_2) == sorted(__import__("clinrag.evaluate.heldout_questions", fromlist=["x"]).FAMILIES)
    True
    >>> all(len(families) >= 2 and all(len(t) >= 2 for t in families.values()) for families in FAMILIES_2.values())
    True
"""

from __future__ import annotations

from typing import Final

FAMILIES_2: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    "allergy": {
        "terse": ("allergies, {name}?", "Known allergies: {listed}"),
        "clinical": ("Any drug sensitivities on file for {name}?", "What is {name} sensitive to?"),
        "lay_typo": ("anything {name} cant be given bc of an allergy?", "does {lower} have any allergys"),
    },
    "diagnosis": {
        "terse": ("dx on discharge - {name}", "Final dx? pt is {name}"),
        "clinical": (
            "What was the working diagnosis for {name} at d/c?",
            "What condition was {name} managed for this stay?",
        ),
        "lay_typo": ("what did {name} end up having", "whats {poss} diagnoisis"),
    },
    "procedure": {
        "terse": ("procedures this stay: {name}", "{listed} - what op?"),
        "clinical": ("What was {name} taken to theatre for?", "Did {name} get any procedures done while inpatient?"),
        "lay_typo": ("what procdure did {name} get", "what op did {name} have done"),
    },
    "discharge_medications": {
        "terse": ("{name} - meds at discharge?", "discharge rx list for {name}"),
        "clinical": ("What was {name} sent out on?", "Which medications were on {poss} discharge reconciliation?"),
        "lay_typo": ("what meds does {name} need to take after going home", "dischrage meds {name}"),
    },
    "admission_medications": {
        "terse": ("{name}: outpatient meds?", "prior to admission meds - {name}"),
        "clinical": ("PTA meds for {name}?", "What was on {poss} med list when admitted?"),
        "lay_typo": (
            "what was {name} already taking at home befor coming in",
            "which tablets did {name} use to take at home",
        ),
    },
    "complication": {
        "terse": ("complications - {name}", "hospital course complicated by what? {name}"),
        "clinical": ("Was {poss} course complicated by anything?", "Any adverse events during {poss} admission?"),
        "lay_typo": ("did {name} run into any trouble while inpatient", "any complciations for {lower}"),
    },
    "presentation": {
        "terse": ("CC - {name}", "presenting sx for {name}?"),
        "clinical": ("What symptoms did {name} present to the ED with?", "Reason for presentation, {name}?"),
        "lay_typo": ("what made {name} come in to hospital", "why was {name} admited in the first place"),
    },
    "smoking": {
        "terse": ("smoker? {name}", "{name} - tobacco?"),
        "clinical": ("Pack-year history for {name}?", "Is {name} a current or former smoker?"),
        "lay_typo": ("does {name} smoke cigarets", "has {name} ever used tobaco"),
    },
    "alcohol": {
        "terse": ("etoh? {name}", "{name} - drinks per week?"),
        "clinical": ("Any alcohol misuse documented for {name}?", "How many units of alcohol does {name} take?"),
        "lay_typo": ("is {name} a drinker", "does {name} drink beer or wine or anythign"),
    },
    "living": {
        "terse": ("lives with? - {name}", "{name} home setup?"),
        "clinical": ("What is {poss} social situation at home?", "Does {name} have support at home?"),
        "lay_typo": ("does {name} live by themselves", "who looks after {name} at home"),
    },
    "followup": {
        "terse": ("f/u appts - {name}", "{name} follow up with whom?"),
        "clinical": (
            "Which outpatient appointments are booked for {name}?",
            "Who should {name} follow up with after discharge?",
        ),
        "lay_typo": ("when is {poss} next apointment", "does {name} need to come back to clinic"),
    },
    "admissions": {
        "terse": ("prior admits - {name}", "{name} all hospitalisations, by date"),
        "clinical": (
            "Can you go through {poss} previous inpatient stays?",
            "Chronological list of every admission for {name}",
        ),
        "lay_typo": ("how often has {name} been in hospital and why", "list {poss} hopsital visits over time"),
    },
}
"""Intent → family → templates, all in the split ``test2``."""

ABSENT_TOPICS_2: Final[tuple[str, ...]] = (
    "bronchoscopy",
    "renal biopsy",
    "PET scan",
    "sleep study",
    "mammogram",
    "bariatric surgery",
    "carotid endarterectomy",
    "plasmapheresis",
    "electroconvulsive therapy",
)
"""Tests and treatments a must-abstain question asks about; those a note of the node mentions are left out."""

NEGATIVE_TEMPLATES_2: Final[tuple[str, ...]] = (
    "{poss} {topic} result?",
    "{topic} findings for {name}",
    "any {topic} done for {name}? what did it show",
)

ABSENT_DRUGS_2: Final[tuple[str, ...]] = (
    "infliximab",
    "rituximab",
    "mycophenolate",
    "hydroxychloroquine",
    "isotretinoin",
    "sumatriptan",
)
"""Drugs a must-abstain question asks about; those a note of the node mentions are left out."""

NOISE_TEMPLATES_2: Final[tuple[str, ...]] = (
    "{drug} dose for {name} at d/c?",
    "why is {name} on {drug}",
    "when was {drug} started - {name}",
)

UNSEEN_TEMPLATES_2: Final[tuple[str, ...]] = (
    "allergies - {name}?",
    "{name} meds at discharge?",
    "dx for {name}?",
)
"""For patients of the other hospitals only."""

WRONG_NAME_TEMPLATES_2: Final[tuple[str, ...]] = (
    "{name} - hb low this admission?",
    "d/c med rec - {name}",
    "any allergies, {name}?",
)
"""For a real surname with an invented first name."""

INVENTED_FIRST_NAMES_2: Final[tuple[str, ...]] = ("Percival", "Ottilie", "Leopold", "Philippa", "Ignatius", "Rosalind")
