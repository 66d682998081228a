"""A fifth blind test split of the held-out answer benchmark (``test5``), written by someone who had not read the
question-reading code, and committed before the answerer was ever run on it: a clinician phoning another hospital's
ward (``phone_call``: spoken style with fillers and false starts, the request in the second half of a sentence), the
patient asking about themselves through a portal or a carer / relative asking for them (``patient_portal``: first
person or third person, lay words, the odd typo), and a clinical coder or auditor querying the record
(``coding_audit``: formal, coding and audit vocabulary, the name as a patient list shows it). Several ask two things
at once, put the clinical word at the end of the sentence, or mix British and American abbreviations. No template
here equals or rephrases one of the earlier splits' templates on purpose; the questions are not to be changed after
their first run.

Placeholders as in :mod:`clinrag.evaluate.heldout_questions_2`: ``{name}``, ``{poss}``, ``{listed}``, ``{lower}``.

The questions that must abstain use their own wordings, tests and drugs (those a note of the node mentions are left
out when the questions are built), patients of other hospitals, and real surnames with first names no earlier split
invented.

Example:
    >>> sorted(FAMILIES_5) == sorted(__import__("clinrag.evaluate.heldout_questions", fromlist=["x"]).FAMILIES)
    True
    >>> all(len(families) == 3 and all(len(t) == 2 for t in families.values()) for families in FAMILIES_5.values())
    True
    >>> sorted({family for families in FAMILIES_5.values() for family in families})
    ['coding_audit', 'patient_portal', 'phone_call']
"""

from __future__ import annotations

from typing import Final

FAMILIES_5: Final[dict[str, dict[str, tuple[str, ...]]]] = {
    "allergy": {
        "phone_call": (
            "hi, it's the on-call reg from the surgical side, calling about {name} - we're about to give contrast, "
            "is there any allergy on your discharge letter?",
            "yeah hello, um, I've got {poss} letter from your place but the allergy bit's cut off - what are they "
            "allergic to and what happened when they had it?",
        ),
        "patient_portal": (
            "I look after {name} at home, what allergys does the hospital have down for them? want to make sure "
            "the chemist has it right",
            "Portal message from {name}: which medicines am I recorded as being allergic to on your system?",
        ),
        "coding_audit": (
            "For coding purposes, please confirm the allergy status stated in {poss} discharge summary.",
            "Audit query: does the record for {listed} carry a drug allergy or adverse reaction, and to which agent?",
        ),
    },
    "diagnosis": {
        "phone_call": (
            "hi there, calling from the GP surgery about {name}, we haven't had the letter yet - what was the final "
            "verdict, diagnosis-wise?",
            "hello, er, ringing on behalf of the rehab unit re {name} - what's the diagnosis on your discharge "
            "paperwork? we need it for the referral",
        ),
        "patient_portal": (
            "Hi, I'm {poss} son - nobody really explained to us what the final diagnosis was, could you tell me?",
            "{name} here, what was my diagnois when I left? it isn't on the sheet they gave me",
        ),
        "coding_audit": (
            "For clinical coding: which primary diagnosis should be assigned for {poss} inpatient episode?",
            "Coding query re {listed} - principal diagnosis at discharge, and are any secondary diagnoses listed?",
        ),
    },
    "procedure": {
        "phone_call": (
            "hi, district nurse calling, I'm seeing {name} tomorrow for a dressing - what procedure did they have "
            "with you, was it keyhole?",
            "hello, sorry, calling from theatres at the other site about {name}, could you read me out the "
            "operation that was done?",
        ),
        "patient_portal": (
            "My partner {name} had an op with you, what was the name of the procedure? the letter is all jargon",
            "{name} here - which operation did I have while I was in, and was anything put in like mesh or screws?",
        ),
        "coding_audit": (
            "For OPCS / CPT coding, which procedure codes does {poss} admission need?",
            "Audit: is a surgical or invasive procedure documented for {listed}, and if so which one and by what "
            "approach?",
        ),
    },
    "discharge_medications": {
        "phone_call": (
            "hi, community pharmacy here, ringing about {name} - can you read me the TTO list so I can make up "
            "the blister pack?",
            "hello, it's the practice pharmacist, {name} was discharged recently - which meds did you send them "
            "home on, and at what doses?",
        ),
        "patient_portal": (
            "I'm {poss} daughter and I do the dosette box; which tablets is the hospital saying they should be on now?",
            "{name} here, I've lost the sheet from the ward. which medicines was I supposed to carry on with after "
            "discharge?",
        ),
        "coding_audit": (
            "Med rec audit: please extract the drugs {name} was discharged with from the letter.",
            "Audit check - {listed}: discharge medications with dose and frequency as documented.",
        ),
    },
    "admission_medications": {
        "phone_call": (
            "hi, ringing from the admissions unit about {name}, er, could you tell me the regular medicines they "
            "came in on?",
            "hello, quick one about {name} - what was on their drug history when they were admitted, before "
            "anything got changed?",
        ),
        "patient_portal": (
            "I'm {poss} carer - which of their usual tablets did the hospital note when they were admitted?",
            "{name} here. What medications did you have me down as taking before I was admitted?",
        ),
        "coding_audit": (
            "Med rec audit (admission side): what did {name} take in the community, per the notes?",
            "Coding check on {listed} - list the drugs entered under medications on admission.",
        ),
    },
    "complication": {
        "phone_call": (
            "hi, it's the ward doctor at the rehab hospital, {name} has come over to us from you - did anything "
            "go wrong during the admission we should know about?",
            "hello, calling about {name}, um, was the course straightforward or were there complications on your side?",
        ),
        "patient_portal": (
            "I'm {poss} next of kin, they said there was a hiccup on the ward after the op - what was it?",
            "{name} here. did I have any complications in hospital? nobody mentioned any but my letter has words "
            "I don't understand",
        ),
        "coding_audit": (
            "Coder here: does {poss} record contain any complication that needs a code? list them",
            "Audit query, {listed}: anything in the hospital course that would code as a complication of care?",
        ),
    },
    "presentation": {
        "phone_call": (
            "hi, ringing from the GP practice, {name} - what symptoms got them sent in originally?",
            "hello yes, calling about a patient of yours, {name}, what was the complaint on arrival? I only have "
            "the referral",
        ),
        "patient_portal": (
            "{name} here, what did you write down as the reason I came in to hospital?",
            "I'm the carer for {name} and wasn't with them that day - what symptoms did the hospital record when "
            "they first arrived?",
        ),
        "coding_audit": (
            "Coder query: {poss} complaint on attendance, as written in the notes?",
            "Audit of {listed}: symptoms at the time of admission, per the chief complaint field?",
        ),
    },
    "smoking": {
        "phone_call": (
            "hi, stop smoking service calling - is {name} still on the cigarettes, and roughly how many a day?",
            "hello, ringing about {name} for the anaesthetic pre-assessment, er, do you have a smoking status for "
            "them?",
        ),
        "patient_portal": (
            "{name} here - have you got me down as a smoker? I thought I'd told them I stopped",
            "I'm {poss} partner, does the hospital record say they smoke? they tell me they've quit",
        ),
        "coding_audit": (
            "For coding: which tobacco use code applies to {name}, going by the social history?",
            "Audit: pack-year figure for {listed}, if the social history gives one?",
        ),
    },
    "alcohol": {
        "phone_call": (
            "hi, calling from the liver clinic about {name} - what's documented about their drinking, units a week?",
            "hello, quick one on {name}, um, your notes - do they say anything about booze, units or whatever?",
        ),
        "patient_portal": (
            "{name} here. what does my hospital record say about how much alcohol I drink?",
            "I'm {poss} son. Did the ward note anything about their drinking? I worry they have too much",
        ),
        "coding_audit": (
            "For coding purposes, does {poss} record support an alcohol-use code, and at what intake?",
            "Audit query, {listed}: EtOH intake per the social history, quantified if stated.",
        ),
    },
    "living": {
        "phone_call": (
            "hi, social work calling from the other hospital about {name} - is there someone at home, or are they "
            "on their own?",
            "hello, calling re {poss} discharge planning... sorry, what's the home situation, is anyone there with "
            "them?",
        ),
        "patient_portal": (
            "{name} here - who have you got down as living with me?",
            "I'm {poss} carer from the agency. does the hospital have them as living alone or with someone?",
        ),
        "coding_audit": (
            "Audit: household composition for {name} per the social history section?",
            "Coding query re {listed}: lives alone or with others, as documented?",
        ),
    },
    "followup": {
        "phone_call": (
            "hi, calling from {poss} GP surgery, do we need to arrange follow up or has the hospital booked it? "
            "which clinic and when",
            "hello, ringing about {name}, er, did your lot book them into any clinic after discharge?",
        ),
        "patient_portal": (
            "{name} here. When is my folow up meant to be and at which clinic? I haven't had a letter",
            "I drive {name} to all their appointments - when do they need to go back to the hospital after this stay?",
        ),
        "coding_audit": (
            "For the audit of discharge letters: does {poss} letter state a follow-up clinic and timeframe?",
            "{listed}: was outpatient review requested on discharge, and with which specialty? (audit)",
        ),
    },
    "admissions": {
        "phone_call": (
            "hi, calling from another trust about {name}, could you tell me the dates they've been in with you?",
            "hello, um, ringing about {name} - can you run through their previous admissions with you, dates in "
            "order please",
        ),
        "patient_portal": (
            "{name} here, can I see a list of all the times I've been in your hospital, with the dates?",
            "I'm {poss} daughter, they've been in and out of your hospital - could you list the stays for me?",
        ),
        "coding_audit": (
            "For coding, how many inpatient episodes does {name} have on our system, and the admission date of each?",
            "Readmissions audit - {listed}: was this a readmission? give each stay's admission date",
        ),
    },
}
"""Intent → family → templates, all in the split ``test5``."""

ABSENT_TOPICS_5: Final[tuple[str, ...]] = (
    "gastroscopy",
    "spirometry",
    "coronary angiogram",
    "audiogram",
    "skin biopsy",
    "tilt table test",
    "cardiac MRI",
    "exercise tolerance test",
)
"""Tests and treatments a must-abstain question asks about; those a note of the node mentions are left out."""

NEGATIVE_TEMPLATES_5: Final[tuple[str, ...]] = (
    "hi, calling about {name} - did they have the {topic} while they were with you, and what did it say?",
    "{name} here, was I meant to have a {topic}? what was the result",
    "For audit: date and outcome of {poss} {topic}?",
)

ABSENT_DRUGS_5: Final[tuple[str, ...]] = (
    "tamoxifen",
    "donepezil",
    "carbimazole",
    "ivabradine",
    "baclofen",
    "alendronate",
)
"""Drugs a must-abstain question asks about; those a note of the node mentions are left out."""

NOISE_TEMPLATES_5: Final[tuple[str, ...]] = (
    "hi, pharmacy calling - {name} says they take {drug}, what dose did you have them on?",
    "I look after {name}, should they still be taking the {drug} the hospital gave them?",
    "Audit: indication for {drug} as documented for {name}?",
)

UNSEEN_TEMPLATES_5: Final[tuple[str, ...]] = (
    "hi, calling about {name}, could you read me their discharge meds?",
    "{name} here - is there an allergy on my hospital record?",
    "For coding: diagnosis codes to assign for {poss} admission?",
)
"""For patients of the other hospitals only."""

WRONG_NAME_TEMPLATES_5: Final[tuple[str, ...]] = (
    "hello, ringing re {name}, sorry, is there a next of kin at the same address?",
    "{name} here - the letter mentions a clinic review, when and where is it?",
    "Coding query: invasive procedures to capture for {name}?",
)
"""For a real surname with an invented first name."""

INVENTED_FIRST_NAMES_5: Final[tuple[str, ...]] = ("Ambrose", "Lysander", "Perpetua", "Octavius", "Araminta", "Eustace")
