"""Which kinds of source a question asks: the records (notes and EHR rows of patients), the literature (a library's
citations and guidelines), or both — read by rules from the question's words, before anything is searched.

A federation root asks a library only when the question asks what the evidence says ("trials", "guidelines",
"Smith et al.", "what does the literature say"), and the hospitals only when it asks about patients, so that a
patient's answer never quotes an abstract and a question about trials never lists patients. A question that asks
both ("What do the guidelines recommend for Ada Stone's atrial fibrillation?") goes to both, and its answer labels
each part by the kind of source it cites; one that names no source goes to the records. A question about a treatment's
effect in general — "Did ramipril lower end-stage kidney disease?", "Is finerenone better than ramipril for CKD?",
"apixaban versus warfarin", "efficacy" — that names no patient and counts nothing asks the literature
(`asks_effect`); "Did apixaban lower Ada Stone's INR?" and "Was she better on ramipril?" stay with the records.

Example:
    >>> sorted(map(str, sources_asked("What do trials say about apixaban in atrial fibrillation?")))
    ['literature']
    >>> sorted(map(str, sources_asked("Who was treated for a stroke?")))
    ['records']
    >>> sorted(map(str, sources_asked("What is the edoxaban dose in atrial fibrillation?")))
    ['records']
    >>> sorted(map(str, sources_asked("What do the guidelines recommend for our patients with atrial fibrillation?")))
    ['literature', 'records']
    >>> sorted(map(str, sources_asked("Did ramipril lower end-stage kidney disease?")))
    ['literature']
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Final


class SourceFamily(StrEnum):
    """The two kinds of source a node may hold: a hospital's records, or a library's literature."""

    RECORDS = "records"
    LITERATURE = "literature"


LITERATURE_KINDS: Final = frozenset({"abstract", "guideline"})
"""`types.SourceKind` values of the literature; every other kind (notes, rows, a calculator's result computed from
them) is of the records."""

_LITERATURE = re.compile(
    r"\b(?:evidence|literature|trials?|studies|(?:a|the|one) study (?:of|by|in|showed|found)|meta-?analys[ie]s|"
    r"systematic reviews?|guidelines?|recommend(?:s|ed|ing|ation|ations)?|published|publications?|pubmed|pmid|papers?|"
    r"articles?|journals?|abstracts?|randomi[sz]ed|cohort studies|et al|authors?)\b",
    re.IGNORECASE,
)
"""Words that ask what the published evidence or a guideline says — whole words: "paperwork", "journalist" and
"trialled" are not."""

_RECORDS = re.compile(
    r"\b(?:patients?|who|whom|whose|our|admitted|admissions?|discharged?|his|her|he|she|him|hospitali[sz]ed|"
    r"hospitals?|records?|notes?|chart|stays?|wards?|mrn|subject)\b|\b[A-Z][a-z]+(?:'s|’s)\s",
    re.IGNORECASE,
)
"""Words that ask about patients, one or several, or a possessive name ("Ada Stone's")."""

_CAPITALISED_RUN = re.compile(r"(?<!^)(?<![.?!] )\b[A-Z][a-z]+(?: [A-Z][a-z]+)+\b(?! et al)")
"""Two or more capitalised words inside the question: a person's name ("Did Ada Stone have a sleep study?") unless
one of them names an organisation or a publication (`_NOT_A_PERSON`)."""

_NOT_A_PERSON: Final = frozenset(
    [
        "society",
        "association",
        "college",
        "foundation",
        "agency",
        "institute",
        "journal",
        "group",
        "trial",
        "trials",
        "study",
        "network",
        "collaboration",
        "council",
        "committee",
        "federation",
        "academy",
        "organization",
        "organisation",
        "guideline",
        "guidelines",
    ]
)

_LITERATURE_TERMS: Final = re.compile(r"\b(?:cohort stud|case report|case series)", re.IGNORECASE)
"""Study designs whose words are also record words ("cohort", "case")."""

_BEDSIDE_TRIALS: Final = re.compile(
    r"\b(?:voiding|void|extubation|weaning)\s+trials?\b|\btrials?\s+(?:of|without)\s+(?:void\w*|catheter|labou?r)\b",
    re.IGNORECASE,
)
"""A trial of one patient ("did he pass the voiding trial?", "trial without catheter"), not a published one."""

_HONORIFIC: Final = re.compile(r"\b(?:Mr|Mrs|Ms|Miss|Mx)\.?\s+[A-Z][a-z]+")
"""A patient by title and surname ("Mrs. Henry")."""


def asks_literature(question: str) -> bool:
    """Whether ``question`` asks what the literature or a guideline says.

    Example:
        >>> asks_literature("Apixaban versus warfarin, Smith et al.?"), asks_literature("What was Ada's dose?")
        (True, False)
    """
    asked = _BEDSIDE_TRIALS.sub(" ", question)
    return _LITERATURE.search(asked) is not None or _LITERATURE_TERMS.search(asked) is not None


def asks_records(question: str) -> bool:
    """Whether ``question`` asks about patients (one by name or pronoun, or a group of them).

    Example:
        >>> asks_records("Which patients had a stroke?"), asks_records("Do trials favour apixaban?")
        (True, False)
    """
    if _RECORDS.search(question) is not None or _HONORIFIC.search(question) is not None:
        return True
    return any(
        not {word.lower() for word in run.group().split()} & _NOT_A_PERSON
        for run in _CAPITALISED_RUN.finditer(question)
    )


_EFFECT: Final = re.compile(
    r"\b(?:did|does|do|can|could|will|would|might|may|is|are|was|were)\s+(?:[\w'’-]+\s+){1,6}?"
    r"(?:lower|reduce|improve|prevent|decrease|cut|increase|raise|prolong|shorten|slow|delay|halve|worsen)\s+"
    r"(?!(?:after|with|on|in|at|by|when|during|since|over|following|before|until|while|from|than|the\s+most)\b)\w"
    r"|\b(?:versus|vs\.?|compared\s+(?:with|to)|superior\s+to|inferior\s+to|non-?inferior\s+to)\s+\w"
    r"|\b(?:better|worse|safer|more\s+effective|less\s+effective)\s+than\s+(?!(?:yesterday|today|before|last|"
    r"previously|earlier|usual|normal|baseline|on\s+admission|at\s+admission|at\s+discharge|her|his|it)\b)\w"
    r"|\b(?:efficacy|effectiveness|efficacious|effective)\b",
    re.IGNORECASE,
)
"""The effect of a treatment in general: "did/does X lower|reduce|improve|prevent Y" (the verb with an object: "Did
the swelling improve after diuretics?" is about a stay), "X versus|vs|compared with Y", "X better than Y", "efficacy",
"effectiveness"."""

_COUNTING: Final = re.compile(
    r"\b(?:how\s+(?:many|often|common|frequent(?:ly)?)|number\s+of|count|proportion|percent(?:age)?|share\s+of"
    r"|most\s+common|commonest|top\s+\d+|per\s+year|by\s+year|each\s+year|over\s+time|trends?"
    r"|by\s+(?:hospital|department)|more\s+(?:common|often|frequent|prevalent)|less\s+(?:common|often|frequent))\b"
    r"|%",
    re.IGNORECASE,
)
"""Counting, ranking and trend cues: a question about how many of the hospitals' patients (a population question)."""

_GENERIC_PATIENTS: Final = re.compile(
    r"\b(?P<before>\w+\s+)?(?P<noun>patients|people|adults|men|women)\s+(?=(?:with|who|on|taking|after|undergoing|"
    r"receiving|having|treated|given|aged|over|under)\b)",
    re.IGNORECASE,
)
"""Patients described by what they have ("in patients with atrial fibrillation"): a trial's population, not ours —
unless a word before says which ("our", "these", "which", "the")."""

_WHICH_PATIENTS: Final = frozenset(
    ["our", "the", "these", "those", "this", "that", "which", "what", "my", "whose", "any", "all", "of", "many"]
)


def asks_effect(question: str) -> bool:
    """Whether ``question`` asks a treatment's effect in general — "Did ramipril lower end-stage kidney disease?",
    "Does apixaban lower stroke more than warfarin?", "Is finerenone better than ramipril for CKD?" — naming no
    patient (by name, pronoun or "our patients"; "patients with atrial fibrillation" are a trial's) and counting
    nothing (a population question).

    Example:
        >>> asks_effect("Is finerenone better than ramipril?"), asks_effect("Did apixaban lower Ada Stone's INR?")
        (True, False)
        >>> asks_effect("Was she better on ramipril?"), asks_effect("How many patients on apixaban versus warfarin?")
        (False, False)
    """
    if _EFFECT.search(question) is None or _COUNTING.search(question) is not None:
        return False
    return not asks_records(_TRIAL_OUTCOMES.sub(" ", _GENERIC_PATIENTS.sub(_generic, question)))


_TRIAL_OUTCOMES: Final = re.compile(r"\blength\s+of\s+(?:hospital\s+)?stay\b|\bhospitali[sz]ations?\s+for\b", re.I)
"""Outcomes a trial counts whose words are also record words."""


def _generic(match: re.Match[str]) -> str:
    """A trial's population left out ("among patients with AF" → "among with AF"); "our patients with" kept."""
    before = match.group("before") or ""
    if before.strip().lower() in _WHICH_PATIENTS:
        return match.group(0)
    return before


def sources_asked(question: str) -> frozenset[SourceFamily]:
    """The kinds of source that answer ``question``: the literature when it asks for evidence by name or asks a
    treatment's effect in general (`asks_effect`), the records when it asks about patients or does not name the
    literature ("weakness after a stroke", "What is the edoxaban dose in atrial fibrillation?": the records first,
    as the hospitals' users expect; "What do the guidelines say about the edoxaban dose?" asks the library)."""
    literature = asks_literature(question)
    if not literature and asks_effect(question):
        return frozenset({SourceFamily.LITERATURE})
    records = asks_records(question) or not literature
    return frozenset(
        family for family, asked in ((SourceFamily.RECORDS, records), (SourceFamily.LITERATURE, literature)) if asked
    )


def family_of(source_kind: str) -> SourceFamily:
    """The family of a chunk's `types.SourceKind` value.

    Example:
        >>> str(family_of("abstract")), str(family_of("note"))
        ('literature', 'records')
    """
    return SourceFamily.LITERATURE if source_kind in LITERATURE_KINDS else SourceFamily.RECORDS


_CLAUSE_END: Final = re.compile(
    r"(?<=[?!;])\s+|(?<=[a-z0-9)]\.)(?<!\bMr\.)(?<!\bMrs\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bal\.)(?<!\bvs\.)\s+(?=[A-Z])"
    r"|,?\s+(?:and|but|also|plus)\s+(?=(?:what|how|which|do|does|did|is|are|should|can|could|would|who|where|when|why)\b)"
    r"|,\s+(?=(?:what|how|which|do|does|did|is|are|should|can|could)\b)",
    re.IGNORECASE,
)
"""Where one question ends and another begins: after "?", "!" or ";", after a sentence, and before a new question
word joined by "and" or a comma ("How many of our patients …, and what do the trials say …?")."""


def literature_clauses(question: str) -> str:
    """The clauses of ``question`` that ask the literature, when others do not: what a library answers of a question
    whose other clauses are counted ("what do the trials say about apixaban versus warfarin?"); the whole question
    otherwise.

    Example:
        >>> literature_clauses("How many of our patients take apixaban, and what do the trials say about warfarin?")
        'what do the trials say about warfarin?'
    """
    return _clauses_asking(question, literature=True)


def records_clauses(question: str) -> str:
    """``question`` without the clauses that ask the literature, when some clause is left: what counting or the
    records answer ("How many of our patients with atrial fibrillation are on apixaban, and what do the trials say
    about apixaban versus warfarin?" is counted as its first clause); the whole question otherwise.

    Example:
        >>> records_clauses("How many of our patients take apixaban, and what do the trials say about warfarin?")
        'How many of our patients take apixaban'
        >>> records_clauses("What do the guidelines recommend for our patients with atrial fibrillation?")
        'What do the guidelines recommend for our patients with atrial fibrillation?'
    """
    return _clauses_asking(question, literature=False)


def _clauses_asking(question: str, *, literature: bool) -> str:
    """The clauses of ``question`` that ask the literature (``literature``) or do not, joined; the whole question
    when none or all of them do."""
    clauses = [clause for clause in _CLAUSE_END.split(question) if clause.strip()]
    kept = [clause for clause in clauses if asks_literature(clause) == literature]
    if not kept or len(kept) == len(clauses):
        return question
    return " ".join(clause.strip() for clause in kept)
