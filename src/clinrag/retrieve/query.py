"""Query understanding for clinical questions: abbreviation expansion, date ranges and admission hints.

Everything here is a pure function of the question (plus ``today`` for relative dates). Abbreviations are expanded
for the lexical (BM25) query, by appending the expansion after the token that holds the abbreviation, so the
original wording is kept intact for citations and display; documents get the same expansion in their BM25 vectors
(`clinrag.index.abbreviations`). The dense query is the question itself, except for a question about a set of
patients ("Which patients had low magnesium?"): its topic (`asked_about`) with the same expansions is embedded.

Example:
    >>> found = understand("Has she had AF since 2019?", today=date(2024, 5, 1))
    >>> found.lexical_text
    'Has she had AF atrial fibrillation since 2019?'
    >>> found.date_range
    DateRange(start=datetime.datetime(2019, 1, 1, 0, 0), end=None)
"""

from __future__ import annotations

import calendar
import functools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from types import MappingProxyType
from typing import Final

from clinrag.index import abbreviations
from clinrag.index.abbreviations import PREFERRED_EXPANSIONS, STOPLIST, addable, expand_abbreviations
from clinrag.index.lexical import tokenize
from clinrag.ingest.sentences import sentence_spans
from clinrag.retrieve.classes import asked_classes, vocabulary
from clinrag.retrieve.intent import (
    ADMISSIONS_SUMMARY,
    INTERROGATIVE,
    KIND_SECTIONS,
    REFERS_BACK,
    anchor_spans,
    aside_span,
    asker_spans,
    clause_spans,
    cue_spans,
    fact_kind,
    kind_candidates,
    phrase_tokens,
    planned_spans,
    section_intent,
)
from clinrag.retrieve.shorthand import expand_shorthand
from clinrag.retrieve.spoken import written_form
from clinrag.retrieve.vocabulary import (
    KIND_WORDS,
    LAB_TESTS,
    THERAPIES,
    clinical_words,
    correct_spelling,
    is_drug_name,
    is_thing,
)

__all__ = [
    "PREFERRED_EXPANSIONS",
    "STOPLIST",
    "DateRange",
    "QueryUnderstanding",
    "asked_about",
    "asked_things",
    "expand_abbreviations",
    "parse_date_range",
    "understand",
]


@dataclass(frozen=True)
class DateRange:
    """A span of time: ``start`` inclusive, ``end`` exclusive; ``None`` leaves that side open."""

    start: datetime | None
    end: datetime | None


@dataclass(frozen=True)
class QueryUnderstanding:
    """What :func:`understand` found in a question."""

    text: str
    """The question, unchanged."""
    lexical_text: str
    """The question with clinical abbreviations, everyday words and synonyms expanded after them, for BM25 (and, for
    questions about a set of patients, the dense query)."""
    date_range: DateRange | None
    """The time span the question asks about, if it names one."""
    latest_admission: bool
    """The question is about the most recent admission (stay, visit)."""
    first_admission: bool
    """The question is about the first admission."""
    expansions: tuple[tuple[str, str], ...]
    """What was added for BM25, as ``(found in the question, added)`` pairs: abbreviations and their expansions,
    everyday words and their clinical words, spelled-out terms and their abbreviations."""
    sections: tuple[str, ...] = ()
    """The note sections the question asks about (a soft preference, see :mod:`clinrag.retrieve.intent`)."""
    fact_kind: str | None = None
    """The kind of fact asked for (``allergy``, ``procedure``, ``complication``, ``admissions_summary`` …), see
    :func:`clinrag.retrieve.intent.fact_kind`."""
    things: frozenset[str] = frozenset()
    """The BM25 tokens that name the clinical things the question is about (a drug, a condition, a test) with
    their expansions; empty when it only names a kind of information. Patient names are still among them: who a
    name refers to is known only where a registry resolves it."""
    corrections: tuple[tuple[str, str], ...] = ()
    """Misspelt words read as the words they were meant to be (``alergic`` → ``allergic``); ``lexical_text`` ends
    with the corrected words, after the expansions."""
    about_patients: bool = False
    """The question asks which patients have something ("Who was treated for a stroke?"), not about one patient."""
    anchors: frozenset[str] = frozenset()
    """The clinical things the question names as a *time* ("after his knee replacement", "following the
    pneumonia"): they choose the admission a source must belong to, but the line that answers need not name them.
    Their classes are among them."""
    classes: tuple[str, ...] = ()
    """The clinical classes the question names (:mod:`clinrag.retrieve.classes`: "antidepressant", "urologic
    procedure", "delirium", and topics such as "tobacco use"); the non-topic ones are also among :attr:`things`
    (or :attr:`anchors`), where a source naming a member counts as naming the class."""
    context: frozenset[str] = frozenset()
    """Clinical-looking words of a question about one section-kind of fact that say why it is asked, not what to
    find ("about to hang abx — any allergies?", "nicotine patches? do they smoke"): set aside from :attr:`things`,
    since that section answers the question whatever it says of them (see :data:`SECTION_KINDS`)."""
    kind_candidates: tuple[str, ...] = ()
    """Every kind of fact the phrasing rules found cues for, in the order they come (:attr:`fact_kind` is the first
    unless the kind read by meaning settled on another of them)."""
    kind_similarity: float | None = None
    """Set when :attr:`fact_kind` was read by meaning, not by a phrasing rule: the cosine of the question to the
    nearest example question of that kind (:mod:`clinrag.retrieve.kind_meaning`)."""


def understand(question: str, today: date | None = None, expand_abbreviations: bool = True) -> QueryUnderstanding:
    """Read a clinical question: expand abbreviations, find a date range and first/latest-admission hints.

    Args:
        question: the user's question.
        today: the reference date for relative expressions such as "in the past 2 years" (default: today).
        expand_abbreviations: whether to expand abbreviations into ``lexical_text``.

    Example:
        >>> found = understand("SOB in the last admission?")
        >>> found.lexical_text, found.latest_admission, found.expansions
        ('SOB shortness of breath in the last admission?', True, (('SOB', 'shortness of breath'),))
    """
    read, corrections = correct_spelling(written_form(question)[0])
    read, shorthand = expand_shorthand(read)
    lexical, expansions = abbreviations.expand_abbreviations(question) if expand_abbreviations else (question, ())
    if expand_abbreviations:
        lexical, lay = _expand_lay_terms(lexical)
        lexical, shortened = _add_abbreviations(read, lexical)
        expansions += lay + shortened + shorthand
        lexical += "".join(" " + meaning for _, meaning in shorthand)
    kind, cueing = fact_kind(read), read
    if kind is not None and (told := _told_after(read)) and (besides := _kind_besides(read, told, kind)) != kind:
        # "Was she given her flu jab? Our nurse runs the flu clinic": the clinic is the asker's; "Which meds, at
        # what doses? Nobody operates the grinder on anything that makes them drowsy": the rest asks for medicines
        kind, cueing = besides, blanked(read, told) if besides is not None else read
    things = asked_things(read, expansions)
    anchors = anchored_things(read, expansions)
    kept = blanked(read, [*anchor_spans(read), *asker_spans(read), *planned_spans(read), *aside_span(read)])
    procedure_asked = kind == "procedure"
    classes = asked_classes(kept, procedure_asked=procedure_asked)
    anchor_classes = asked_classes(_only(read, anchor_spans(read)), procedure_asked=True)
    things |= {found.name for found in classes if found.kind != "topic"}
    sections, cued = section_intent(cueing), kind_candidates(cueing)
    if kind == "complication" and not cued and classes and all(found.kind == "drug" for found in classes):
        kind = "discharge_medications"  # "pain relief for after the op": drugs after an event, not a complication
    if kind == "discharge_medications" and not cued:  # read from medicines after an event, not from a cue
        sections = KIND_SECTIONS[kind]
    anchors |= {found.name for found in anchor_classes if found.kind != "topic"}
    # "the sleep study", "a renal biopsy", "a repeat VQ scan": which examination, a thing to find whatever the kind
    qualifiers = examination_qualifiers(read) if kind in (None, "results", "procedure", "followup") else frozenset()
    if kind != "results":  # "a blood test booked after discharge" is answered by "BMP and TSH in 5-7 days"
        qualifiers -= _SAMPLES
    things |= qualifiers
    if kind == "procedure":  # "which operation for the diverticulitis?": the indication chooses the stay, as a time
        anchors |= _things_in(_only(read, indication_spans(read)), expansions) & things

    if not things and kind is None:  # "anything notable after the CABG?": the event is all it names
        things, anchors = anchors, frozenset()
    about = asked_about(read) != read
    # "I had a septoplasty - what did it show?": the thing pointed back at is asked for, not context
    refers_back = REFERS_BACK.search(blanked(read, aside_span(read))) is not None  # not "get it sorted with the CVS"
    # "FEV1 / FEV1:FVC from his PFTs? trying to stage him for clinic": a kind cued only after the question asks
    # nothing of the things the question names
    aside = [(start, end) for start, end in aside_span(read) if _REASON.match(read[start:end])]
    aside_only = bool(aside) and kind is not None and fact_kind(blanked(read, aside)) is None
    context = (
        frozenset()
        if refers_back or aside_only
        else context_words(kind, things - anchors - qualifiers, {c.name for c in classes}, about)
    )
    things -= context
    # "… at the temple for the evening pooja. What operation did he have?": a section or the procedure asked, what
    # the statement tells is not what is asked (unlike "she always wears her thali. Did they write down whether she
    # took it off?", or "her voice has been croaky since. Did anyone assess her voice after the operation?")
    background = background_words(read) if kind in SECTION_KINDS or kind == "procedure" else frozenset()
    things -= background
    context |= background
    named = tuple(dict.fromkeys(found.name for found in (*classes, *anchor_classes)))
    if expand_abbreviations:
        for found in dict.fromkeys((*classes, *anchor_classes)):
            lexical += " " + found.expansion
            expansions += ((found.name, found.expansion),)
    for _, right in corrections:  # the words as written stay (a citation quotes them); the corrections go last
        lexical += " " + right
    return QueryUnderstanding(
        text=question,
        lexical_text=lexical,
        date_range=parse_date_range(_without_told_spans(question), today or date.today()),
        latest_admission=_LATEST_ADMISSION.search(read) is not None,
        first_admission=_FIRST_ADMISSION.search(read) is not None,
        expansions=expansions,
        sections=sections,
        fact_kind=kind,
        things=things - anchors,
        corrections=corrections,
        about_patients=about,
        anchors=anchors,
        classes=named,
        context=context,
        kind_candidates=cued if kind is not None and kind != ADMISSIONS_SUMMARY else (),
    )


SECTION_KINDS: Final = frozenset(
    {
        "allergy",
        "social",
        "followup",
        "admissions_summary",
        "family_history",
        "disposition",
        "presentation",
        "diagnosis",
        "discharge_medications",
        "admission_medications",
    }
)
"""Kinds of fact one section of a patient's record answers whole: a question asking for one is answered by that
section, whatever else it names (the allergy list answers "any allergies before I give abx?")."""
MEDICATION_KINDS: Final = frozenset({"discharge_medications", "admission_medications"})


@functools.cache
def _drug_classes() -> frozenset[str]:
    return frozenset(item.name for item in vocabulary().classes if item.kind == "drug")


_REASON: Final = re.compile(
    r"\s*(?:trying|doing|working|writing|checking|getting|preparing|planning|for|to|so|because|as|since)\b", re.I
)
"""An aside that says why the question is asked ("trying to stage him for clinic"), not what it asks for."""


def context_words(kind: str | None, things: frozenset[str], classes: set[str], about_patients: bool) -> frozenset[str]:
    """The ``things`` that are context of a question about one patient's :data:`SECTION_KINDS` section. A drug or a
    laboratory test it names stays a thing to find ("should he still take the alendronate?" is not answered by his
    social history, "her INR on the day of discharge?" by her discharge medications)
    unless the question is about allergies, and so does a class of drugs a medication question names ("which
    antidepressants?" is not answered by the whole list); a class another section's question names is context
    ("about to give contrast: allergies?").

    Example:
        >>> sorted(context_words("allergy", frozenset({"abx", "antibiotic"}), {"antibiotic"}, about_patients=False))
        ['abx', 'antibiotic']
        >>> context_words("discharge_medications", frozenset({"ttos", "warfarin"}), set(), about_patients=False)
        frozenset({'ttos'})
    """
    if kind not in SECTION_KINDS or about_patients:
        return frozenset()
    if kind == "allergy":  # the allergy list answers "is she allergic to X?", drug or not
        return things
    # "her INR on the day of discharge?"; "referred for acupuncture?" (but "starting acupuncture - what was she on?")
    kept = LAB_TESTS | (THERAPIES if kind == "followup" else frozenset())
    drugs = {thing for thing in things - classes if is_drug_name(thing) or thing in kept}
    if kind in MEDICATION_KINDS:  # "what was Dad taking before he went in all confused?": delirium is why he went in
        return frozenset(things - drugs - (classes & _drug_classes()))
    return frozenset(things - drugs)


_EXAMINATION = re.compile(
    r"((?:[\w'’-]+\s+){0,3})(scans?|stud(?:y|ies)|biops(?:y|ies)|tests?|imaging|series|panels?|assays?|monitoring"
    r"|photo(?:graph)?s?|groups?|typing|screens?|swabs?|pcrs?)\b",
    re.IGNORECASE,
)
"""An examination: up to three words before a word for an examination (the words that say which are the ones
next to it, up to a function word or a possessive: "a 24-hour blood pressure monitoring", "her sleep study")."""
_ASKED_ITSELF: Final = re.compile(r"biops|group|typing", re.IGNORECASE)
"""Examinations that are themselves what is asked, unlike a "test": "a renal biopsy", "her blood group"."""
_SAMPLES: Final = frozenset({"blood", "bloods", "urine", "lab", "labs"})
"""What a test is taken from: it says which examination only of results already taken."""
_NOT_QUALIFIERS: Final = frozenset(
    {"recent", "last", "latest", "first", "previous", "prior", "other", "any", "new", "repeat", "further", "routine"}
)


def examination_qualifiers(question: str) -> frozenset[str]:
    """The words that say which examination a results question asks about ("sleep" study, "PET" scan, "renal"
    biopsy, and the biopsy itself, "tau protein" assay): things to find, however common in English, so that a
    record of other results does not answer it.

    Example:
        >>> sorted(examination_qualifiers("Sleep study findings for Ada Stone? Any recent tests?"))
        ['sleep']
        >>> sorted(examination_qualifiers("Did Ada Stone's repeat VQ scan show a clot?"))
        ['vq']
    """
    found: set[str] = set()
    for match in _EXAMINATION.finditer(question):
        which: list[str] = []
        for word in reversed(match.group(1).split()):
            tokens = tokenize(word)
            if not tokens or word.lower().endswith(("'s", "’s")):  # "did she have a", "Ada Stone's"
                break
            which[:0] = [token for token in tokens if token not in KIND_WORDS and token not in _NOT_QUALIFIERS]
        found.update(which)
        if which and _ASKED_ITSELF.match(match.group(2)):
            found.update(tokenize(match.group(2)))
    return frozenset(found)


_PROVIDED: Final = re.compile(
    r"\b(?:set (?:him|her|them) up with "
    r"|(?<!\bto )(?<!\bI )(?<!\bwe )(?<!\bmust )(?<!\bwill )(?<!\bcan )(?<!'ll )(?<!’ll )"
    r"(?:give|gave|given|provided?|fit(?:ted)?|issued?|supplied|lent)"
    r" (?:him|her|them) (?:with )?"
    r"|(?:was|were) (?:he|she|they)"
    r" (?:given|provided with|fitted with|issued(?: with)?|supplied with|set up with|lent) )"
    r"(?:a|an|any|some) ((?:[a-z][\w-]* ){0,2}[a-z][\w-]*)"
    r"|\bdid (?:the )?(?:[\w'’-]+ ){1,2}?give (?:him|her|them) the ((?:[a-z][\w-]* ){0,2}[a-z][\w-]*)",
    re.IGNORECASE,
)
"""What the patient was given or set up with: "did they set her up with a …", "was he given a …"; not what the
asker gives ("want to give them some Panadol", "I'll give her a lift", "I must give him a correct answer") or is
given ("give me a timeline")."""


def provided_things(question: str) -> frozenset[str]:
    """The words of what ``question`` asks whether the patient was given or set up with ("set her up with a personal
    alarm", "gave him a walking frame"): however common in English, a record must name them, or a record of
    something else given answers a question about a thing nobody gave.

    Example:
        >>> sorted(provided_things("Did they set her up with a personal alarm before she went home?"))
        ['alarm', 'personal']
        >>> provided_things("Did they give her any medication for the pain?")
        frozenset()
    """
    return frozenset(
        token
        for match in _PROVIDED.finditer(question)
        for token in phrase_tokens(next(group for group in match.groups() if group is not None), KIND_WORDS)
    )


def blanked(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """``text`` with the characters of ``spans`` blanked (positions kept).

    Example:
        >>> blanked("after the op", [(0, 5)])
        '      the op'
    """
    for start, end in spans:
        text = text[:start] + " " * (end - start) + text[end:]
    return text


@functools.lru_cache(maxsize=256)
def _sentences(question: str) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """The spans of ``question``'s sentences (:func:`clinrag.ingest.sentences.sentence_spans`: "e.g.", "s/p" and an
    ellipsis end none) that ask — end in "?", open as a question or a request — and of those that tell. Read once
    per question: the kind told beside it and its background words both need them."""
    sentences = sentence_spans(question)
    asking = tuple(
        (start, end)
        for start, end in sentences
        if question[start:end].rstrip().endswith("?") or _ASKS.match(question[start:end])  # "do they smoke"
    )
    return asking, tuple(span for span in sentences if span not in asking)


_ASKS: Final = re.compile(rf"{INTERROGATIVE.pattern}|\s*(?:please|kindly|pls|tell me|can you|could you)\b", re.I)
_OWN_WORLD: Final = re.compile(
    r"\b(?:I|I'm|we|we're|our|my|nobody|no one|no-one|everybody|everyone|anybody|anyone)\b", re.IGNORECASE
)
"""Who a sentence after the question tells of, when it is not the patient: the asker's world, or people at large."""


def _told_after(question: str) -> list[tuple[int, int]]:
    """The sentences after ``question``'s first question that tell of the asker's own world or of people in general
    before any kind cue of theirs ("Our nurse runs the flu clinic on nights.", "Nobody operates the grinder on
    anything that makes them drowsy."): what such a sentence cues is not what is asked."""
    asking, telling = _sentences(question)
    if not asking:
        return []
    return [
        (start, end)
        for start, end in telling
        if start > asking[0][1]
        and (cues := cue_spans(question[start:end]))
        and _OWN_WORLD.search(question, start, start + cues[0][0])
    ]


def _kind_besides(question: str, told: Sequence[tuple[int, int]], kind: str) -> str | None:
    """The kind of fact ``question`` asks once the sentences ``told`` after it are set aside: the kind the rest
    cues; else none when the question names a clinical thing of its own (the thing is asked for), else ``kind``, the
    kind as read. A sentence that only says which kind ("Symptoms, I mean") or sets the question up before it ("She
    had the op for the ectopic. Did they take out the tube?") is never set aside."""
    rest = fact_kind(blanked(question, told))
    if rest is not None:
        return rest
    asking, _ = _sentences(question)
    return None if _things_in(_only(question, asking), ()) else kind


def _without_told_spans(question: str) -> str:
    """``question`` with the relative spans of its statements blanked ("I smelled cigarette on her at the party last
    month. What did the hospital write about her smoking?"): the asker's own time, not a filter on the records. A
    date a statement names ("She was admitted in January 2022.") still pins the stay."""
    asking, telling = _sentences(question)
    if not asking:
        return question
    told = [
        (start + match.start(), start + match.end())
        for start, end in telling
        for match in _RELATIVE.finditer(question, start, end)
    ]
    return blanked(question, told)


def told_only(question: str, words: Iterable[str]) -> frozenset[str]:
    """Those of ``words`` (BM25-folded, or clinical classes' names) named only in ``question``'s statements, none of
    whose words its questions name (and no drug: "sick after taking the prochlorperazine this morning. Take another
    one?" names a drug a record must hold), when another of its sentences asks: "I'll run her to the hospital after the
    morning crossing. What follow-up was arranged?" — the crossing is the asker's morning, not an event a record
    must name.

    Example:
        >>> sorted(told_only("I'll take her after the morning crossing. What follow-up was arranged?", ["crossing"]))
        ['crossing']
        >>> told_only("What follow-up was arranged after the knee replacement?", ["knee"])
        frozenset()
    """
    asking, telling = _sentences(question)
    if not asking or not telling:
        return frozenset()
    asked, told = set(tokenize(_only(question, asking))), set(tokenize(_only(question, telling)))
    candidates = [word for word in words if not is_drug_name(word)]
    in_asked = [word for word in candidates if asked & {word, *tokenize(word)}]
    in_told = [word for word in candidates if told & {word, *tokenize(word)} and word not in in_asked]
    # an abbreviation or class read from a told word ("pna" of "after the pneumonia") goes with it, unless the
    # question names an event of its own, whose readings they may be
    read = [word for word in candidates if word not in in_asked and word not in in_told]
    return frozenset(in_told + ([] if in_asked else read))


def background_words(question: str) -> frozenset[str]:
    """The rare words of ``question``'s statements that name nothing clinical, when another of its sentences asks:
    the asker's world ("the evening pooja", "the mews"), which no record need name when a kind of fact is asked.

    Example:
        >>> sorted(background_words("We were at the evening pooja. What operation did he have?"))
        ['pooja']
        >>> background_words("He had a hip fracture. What operation did he have?")
        frozenset()
    """
    asking, statements = _sentences(question)
    if not asking:
        return frozenset()
    told = _things_in(_only(question, statements), ()) - _things_in(blanked(question, statements), ())
    return frozenset(word for word in told if word not in clinical_words() and not is_drug_name(word))


def _only(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """The characters of ``spans`` of ``text``, each span on its own."""
    return " . ".join(text[start:end] for start, end in spans)


_INDICATION: Final = re.compile(
    r"\bfor\s+(?:(?:the|his|her|their|its|a|an|this|that|my|your)\s+)?"
    r"([a-z][\w/'-]*(?:\s+(?!(?:and|or|but|with|was|is|did|does|to|for|in|on|at|when|what|why|how)\b)"
    r"[a-z][\w/'-]*){0,2})",
    re.IGNORECASE,
)


_SUBORDINATE: Final = re.compile(r"\b(?:while|whilst|when|because|although|though|but)\b", re.IGNORECASE)


def indication_spans(question: str) -> list[tuple[int, int]]:
    """Where ``question`` names what something it asks for was done for ("which operation … for the
    diverticulitis"): after its first kind-of-information phrase (a "for" before it says why the question is asked,
    "for coding purposes, which procedures?"). In a question asking for a procedure, the indication says which stay,
    not what the line that answers must name.

    Example:
        >>> q = "For the audit: which operation did she have for the diverticulitis?"
        >>> [q[start:end] for start, end in indication_spans(q)]
        ['diverticulitis']
    """
    cues = cue_spans(question)
    after = cues[0][1] if cues else len(question)
    # in the cue's own clause, before a clause of its own ("an operation while the family was at the temple for
    # the evening pooja": the pooja is no indication)
    end = next((stop for start, stop in clause_spans(question) if start <= after <= stop), len(question))
    subordinate = _SUBORDINATE.search(question, after, end)
    end = subordinate.start() if subordinate else end
    return [(match.start(1), match.end(1)) for match in _INDICATION.finditer(question, after, end)]


def anchored_things(question: str, expansions: tuple[tuple[str, str], ...] = ()) -> frozenset[str]:
    """The tokens naming clinical things inside the events ``question`` names as a time ("after his knee
    replacement"), with their expansions.

    Example:
        >>> sorted(anchored_things("Any problems after his knee replacement?"))
        ['knee', 'replacement']
    """
    spans = anchor_spans(question)
    if not spans:
        return frozenset()
    return _things_in(_only(question, spans), expansions)


def asked_things(question: str, expansions: tuple[tuple[str, str], ...] = ()) -> frozenset[str]:
    """The tokens of ``question`` that name clinical things (:func:`clinrag.retrieve.vocabulary.is_thing`), outside
    the phrases that say which section is asked about, with the expansions of those phrases' neighbours.

    Example:
        >>> sorted(asked_things("What procedure did she undergo for her hip fracture?"))
        ['fracture', 'hip']
        >>> asked_things("What follow-up was arranged for her after discharge?")
        frozenset()
    """
    spans = [
        *cue_spans(question),
        *anchor_spans(question),
        *asker_spans(question),
        *planned_spans(question),
        *aside_span(question),  # "… sent home on? Need to check it against the antimalarials."
    ]
    return _things_in(blanked(question, spans), expansions)


def _things_in(kept: str, expansions: tuple[tuple[str, str], ...]) -> frozenset[str]:
    written = {token for token in tokenize(kept) if is_thing(token)}
    added = {
        token
        for found, meaning in expansions
        if written & set(tokenize(found))
        for token in tokenize(meaning)
        if is_thing(token)
    }
    return frozenset(written | added)


# --- questions about a set of patients ---------------------------------------------------------------------------

_COHORT_FRAME = re.compile(
    # "who does Ada Stone live with?" asks about Ada Stone: a name or a pronoun after the verb is who is asked about
    r"^\s*(?:(?:which|what)\s+(?:patients|people)|in\s+which\s+patients"
    r"|(?:who|whose)(?!\s+(?:does|did|do|is|was|has|had)\s+(?:(?-i:[A-Z])|(?:he|she|they|the\s+patient)\b))"
    r"|how\s+many\s+patients"
    r"|find\s+(?:all\s+)?(?:the\s+)?patients(?:\s+(?:with|who))?|list\s+(?:everyone|all\s+(?:the\s+)?patients))\b"
    r"\s*(?:(?:have|had|has|were|was|are|is|did|do|does|underwent|developed|went)\b\s*)?(?:a\s+|an\s+)?",
    re.IGNORECASE,
)


def asked_about(question: str) -> str:
    """A question about a set of patients without its opening frame ("Which patients had", "Who was") and its
    closing punctuation, which say
    nothing about the notes that answer it; other questions are returned unchanged. For the dense query: with a
    small embedder the frame weighs as much as the condition asked about and pulls in narrative chunks.

    Example:
        >>> asked_about("Which patients had low magnesium?"), asked_about("Who was diagnosed with CHB?")
        ('low magnesium', 'diagnosed with CHB')
        >>> asked_about("What is the dose of aspirin?")
        'What is the dose of aspirin?'
    """
    rest = _COHORT_FRAME.sub("", question, count=1)
    if rest == question:
        return question
    return rest.strip(" ?.!") or question


# --- lay words -----------------------------------------------------------------------------------------------------

LAY_TERMS: Final[tuple[tuple[str, str], ...]] = (
    (r"drugs?|meds|medicines?|pills|prescriptions?|prescribed", "medications"),
    (r"sent home|went home|go home|going home|left the hospital|discharged", "discharge"),
    (r"surgery|surgeries|operations?|operated( on)?", "procedure"),
    (r"allergic", "allergies"),
    (r"smok(?:e|es|ed|ing|er)|cigarettes?|tobacco use", "tobacco smoker"),
    (r"drink(?:s|ing)?|alcohol use|booze|beer", "alcohol EtOH"),
    (r"went wrong|complicat(?:ed|ions?)", "complication"),
    (r"diagnosed( with)?|what (?:was|is) wrong", "diagnosis"),
    (r"lives?|living situation|home situation", "lives social history"),
    (r"tests?|labs?|imaging|scans?|x-?rays?", "results"),
    (r"follow[- ]?ups?|appointments?", "followup"),
    (r"appy", "appendectomy"),
    (r"chole", "cholecystectomy"),
    (r"lap", "laparoscopic"),
    (r"ex[- ]?lap", "exploratory laparotomy"),
    (r"cath", "catheterization"),
    # plain words for abnormal values and their clinical names, both ways
    (r"(?:high|raised|elevated) potassium", "hyperkalemia"),
    (r"low potassium", "hypokalemia"),
    (r"(?:high|raised|elevated) sodium", "hypernatremia"),
    (r"low sodium", "hyponatremia"),
    (r"low magnesium", "hypomagnesemia"),
    (r"(?:high|raised|elevated) (?:blood )?(?:sugars?|glucose)", "hyperglycemia"),
    (r"low (?:blood )?(?:sugars?|glucose)", "hypoglycemia"),
    (r"low platelets?(?: count)?", "thrombocytopenia"),
    (r"heart attack", "myocardial infarction"),
    (r"keyhole", "laparoscopic"),
    (
        r"stomach (?:bleed|bleeding)|bleed(?:ing)? (?:in|from) (?:the|his|her|their) stomach",
        "gastrointestinal hemorrhage",
    ),
    (r"hyperkal(?:a)?emia", "high potassium"),
    (r"hypokal(?:a)?emia", "low potassium"),
    (r"hypernatr(?:a)?emia", "high sodium"),
    (r"hyponatr(?:a)?emia", "low sodium"),
    (r"hypomagnes(?:a)?emia", "low magnesium"),
    # synonyms notes and questions both use
    (r"a-?fib", "atrial fibrillation"),
    (r"systolic heart failure|heart failure with reduced ejection fraction", "HFrEF"),
    (r"diastolic heart failure|heart failure with preserved ejection fraction", "HFpEF"),
    (r"HFrEF", "systolic heart failure"),
    (r"HFpEF", "diastolic heart failure"),
)
"""Everyday words in questions and the discharge-summary words that state the same thing (for the lexical text).

The abnormal-value pairs (high potassium / hyperkalemia …) and the synonyms were added after reading the retrieval
benchmark's misses (docs/retrieval.md): the synthetic notes use both wordings."""

_LAY_PATTERNS = tuple((re.compile(rf"\b(?:{pattern})\b", re.IGNORECASE), terms) for pattern, terms in LAY_TERMS)


def _expand_lay_terms(text: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Append the clinical words for everyday words found in ``text`` (each once, only if absent)."""
    added: list[tuple[str, str]] = []
    lowered = text.lower()
    for pattern, terms in _LAY_PATTERNS:
        match = pattern.search(text)
        if match and terms.lower() not in lowered:
            added.append((match.group(0), terms))
            lowered += " " + terms.lower()
    if not added:
        return text, ()
    return text + " " + " ".join(terms for _, terms in added), tuple(added)


def _add_abbreviations(question: str, text: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """Append to ``text`` the abbreviation of each term spelled out in ``question`` (notes write "CAD" where
    questions say "coronary artery disease"): one abbreviation per term, none that is an English word, and none
    when the question already uses an abbreviation of that term."""
    added: list[tuple[str, str]] = []
    for pattern, long, shorts in _SPELLED_OUT:
        if pattern.search(question) and not any(re.search(rf"\b{re.escape(s)}\b", question) for s in shorts):
            added.append((long, shorts[0]))
            text += " " + shorts[0]
    return text, tuple(added)


# --- abbreviations (the tables and the expansion itself live in clinrag.index.abbreviations) --------------------

_SPELLED_OUT: Final[tuple[tuple[re.Pattern[str], str, tuple[str, ...]], ...]] = tuple(
    (re.compile(rf"\b{re.escape(long)}\b", re.IGNORECASE), long, shorts)
    for long in dict.fromkeys(PREFERRED_EXPANSIONS.values())
    if (shorts := tuple(sorted((s for s, m in PREFERRED_EXPANSIONS.items() if m == long), key=addable, reverse=True)))
    and addable(shorts[0])
)
"""Each spelled-out term of :data:`PREFERRED_EXPANSIONS` with its abbreviations, an addable one first."""


# --- first / latest admission -------------------------------------------------------------------------------------

_ENCOUNTER = (
    r"(?:(?:hospital|inpatient|icu|ed|er|emergency(?:\s+department)?)\s+)?"
    r"(?:admissions?|stays?|visits?|hospitali[sz]ations?|encounters?|discharges?|discharge\s+summar(?:y|ies))"
)
_LATEST_WORD = r"(?:last|latest|most\s+recent|current)"
_FIRST_WORD = r"(?:first|initial|earliest)"
_LATEST_ADMISSION = re.compile(
    rf"\b{_LATEST_WORD}(?:\s+(?:and|or|vs\.?|versus)\s+(?:the\s+)?{_FIRST_WORD})?\s+{_ENCOUNTER}\b"
    r"|\b(?:last|most\s+recently)\s+(?:admitted|hospitali[sz]ed|discharged)\b"
    r"|\b(?:in|into)\s+(?:the\s+)?hospital\s+(?:the\s+)?(?:last|latest|most\s+recent)\s+time\b",
    re.IGNORECASE,
)
_FIRST_ADMISSION = re.compile(
    rf"\b{_FIRST_WORD}(?:\s+(?:and|or|vs\.?|versus)\s+(?:the\s+)?{_LATEST_WORD})?\s+{_ENCOUNTER}\b"
    r"|\b(?:first|initially)\s+(?:admitted|hospitali[sz]ed)\b",
    re.IGNORECASE,
)


# --- dates --------------------------------------------------------------------------------------------------------

_MONTH_NAMES = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTHS: Final[Mapping[str, int]] = MappingProxyType(
    {name: number for number, name in enumerate(_MONTH_NAMES, start=1)}
    | {name[:3]: number for number, name in enumerate(_MONTH_NAMES, start=1)}
    | {"sept": 9}
)
_YEAR = r"(?:19\d\d|20\d\d|2100)"
_MONTH = r"\b(?:" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_UNITS = (
    r"%|(?:mg|mcg|ug|µg|g|gm|grams?|kg|lbs?|ml|cc|units?|iu|meq|mmol|mol|kcal|cal|calories|mm|cm|km|ft|feet"
    r"|miles?|hours?|hrs?|minutes?|mins?|seconds?|secs?|steps|times|patients?|people|persons|subjects?|cases"
    r"|cells|copies|beds)\b"
)
_BEFORE = r"(?<![\w.,\-/:#$])"
_AFTER = rf"(?![\w\-/]|[.,]\d)(?!\s*(?:(?:-|–|to|and|or)\s*\d[\d.,]*\s*)?(?:{_UNITS}))"
_PERIOD = (
    rf"{_BEFORE}(?:{_YEAR}[-/]\d{{1,2}}[-/]\d{{1,2}}|{_YEAR}-\d{{1,2}}|{_MONTH}\s+{_DAY},?\s+{_YEAR}"
    rf"|{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}|{_MONTH},?\s+(?:of\s+)?{_YEAR}|{_YEAR}){_AFTER}"
)
_BARE_PERIOD = (
    rf"{_BEFORE}(?:{_YEAR}[-/]\d{{1,2}}[-/]\d{{1,2}}|{_MONTH}\s+{_DAY},?\s+{_YEAR}"
    rf"|{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}|{_MONTH},?\s+(?:of\s+)?{_YEAR}){_AFTER}"
)
_NUMBER_WORDS: Final[Mapping[str, int]] = MappingProxyType(
    {
        word: number
        for number, word in enumerate(
            ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")
        )
    }
)
_COUNT = r"\d{1,4}|" + "|".join(_NUMBER_WORDS)
_THE_YEAR = r"(?:the\s+(?:year|month)\s+(?:of\s+)?)?"

_Span = tuple[datetime | None, datetime | None]


def _between(first: str, second: str) -> _Span | None:
    one, two = _period(first), _period(second)
    if one is None or two is None:
        return None
    return min(one[0], two[0]), max(one[1], two[1])


def _since(text: str) -> _Span | None:
    period = _period(text)
    return None if period is None else (period[0], None)


def _after(text: str) -> _Span | None:
    period = _period(text)
    return None if period is None else (period[1], None)


def _before(text: str) -> _Span | None:
    period = _period(text)
    return None if period is None else (None, period[0])


def _until(text: str) -> _Span | None:
    period = _period(text)
    return None if period is None else (None, period[1])


def _during(text: str) -> _Span | None:
    period = _period(text)
    return None if period is None else (period[0], period[1])


_PART_OF_MONTH: Final[Mapping[str, tuple[int, int | None]]] = MappingProxyType(
    {"early": (1, 16), "beginning": (1, 16), "start": (1, 16), "mid": (8, 24), "middle": (8, 24)}
    | {"late": (15, None), "end": (15, None)}
)
"""The days ``[first, last)`` of a month that "early", "mid" or "late" name, generously (a stay "at the end of
September" may have begun mid-month); ``None``: to the month's end."""


def _part_of_month(part: str, month: str) -> _Span | None:
    period = _period(month)
    if period is None:
        return None
    first, last = _PART_OF_MONTH[part.lower()]
    start = period[0].replace(day=first)
    return start, period[1] if last is None else period[0].replace(day=last)


_RULES: Final[tuple[tuple[re.Pattern[str], Callable[..., _Span | None]], ...]] = tuple(
    (re.compile(pattern, re.IGNORECASE), rule)
    for pattern, rule in (
        (rf"\bbetween\s+{_THE_YEAR}({_PERIOD})\s+and\s+({_PERIOD})", _between),
        (rf"\bfrom\s+{_THE_YEAR}({_PERIOD})\s*(?:to|until|till|through|thru|-|–)\s*({_PERIOD})", _between),
        (rf"{_BEFORE}({_YEAR})\s*[-–]\s*({_YEAR}){_AFTER}", _between),
        (rf"({_PERIOD})\s+(?:onwards?|and\s+(?:later|after|beyond|onwards?)|or\s+later)\b", _since),
        (rf"\b(?:after|later\s+than)\s+{_THE_YEAR}({_PERIOD})", _after),
        (rf"\b(?:since|from|starting(?:\s+(?:in|from))?|beginning(?:\s+in)?)\s+{_THE_YEAR}({_PERIOD})", _since),
        (rf"\b(?:before|prior\s+to|earlier\s+than)\s+{_THE_YEAR}({_PERIOD})", _before),
        (rf"\b(?:until|till|through|thru|up\s+(?:to|until))\s+(?:the\s+end\s+of\s+)?{_THE_YEAR}({_PERIOD})", _until),
        (
            rf"\b(?:the\s+)?(early|beginning|start|mid|middle|late|end)(?:\s+of)?[\s-]+(?:the\s+)?"
            rf"({_MONTH},?\s+(?:of\s+)?{_YEAR}){_AFTER}",
            _part_of_month,
        ),  # "mid-March 2018", "the end of Sept 2017"
        (rf"\b(?:in|during|within|throughout)\s+{_THE_YEAR}({_PERIOD})", _during),
        (rf"({_BARE_PERIOD})", _during),
    )
)
_RELATIVE = re.compile(
    rf"\b(?:last|past|previous|preceding|prior)\s+(?:({_COUNT})\s+(day|week|month|year)s?|(day|week|month|year))\b",
    re.IGNORECASE,
)


def parse_date_range(text: str, today: date) -> DateRange | None:
    """The date range a question names, or ``None`` when it names none.

    Understood (case-insensitive; years 1900–2100): "since/from 2019", "2019 onwards", "after 2019", "before/prior to
    2015", "until/through 2015", "in/during 2020", "between 2018 and 2020", "from 2018 to 2020", "2018-2020",
    "(in) March 2021", part of a month ("mid-March 2018", "the end of Sept 2017": generous thirds of it), ISO dates
    ("since 2019-06-01") and relative spans ("in the last 2 years", "past year",
    "last 6 months", relative to ``today``; they end after ``today``). Numbers that are not years in context (doses,
    measurements, identifiers, a bare "2100") are ignored. Several expressions are intersected.

    Example:
        >>> parse_date_range("admissions between 2018 and 2020", today=date(2024, 1, 1))
        DateRange(start=datetime.datetime(2018, 1, 1, 0, 0), end=datetime.datetime(2021, 1, 1, 0, 0))
        >>> parse_date_range("aspirin 325 mg, BP 2100", today=date(2024, 1, 1)) is None
        True
    """
    spans = list(_spans(text, today))
    if not spans:
        return None
    starts = [start for start, _ in spans if start is not None]
    ends = [end for _, end in spans if end is not None]
    return DateRange(start=max(starts, default=None), end=min(ends, default=None))


def _spans(text: str, today: date) -> Iterator[_Span]:
    """Every span named in ``text``; each character is read by at most one rule (the first that matches it)."""
    remaining = text
    for pattern, rule in _RULES:
        for match in pattern.finditer(remaining):
            span = rule(*match.groups())
            if span is not None:
                remaining = remaining[: match.start()] + " " * len(match.group()) + remaining[match.end() :]
                yield span
    for match in _RELATIVE.finditer(remaining):
        span = _relative(match.group(1), match.group(2) or match.group(3), today)
        if span is not None:
            yield span


def _period(text: str) -> tuple[datetime, datetime] | None:
    """The ``[start, end)`` of a year, month or day written as matched by ``_PERIOD``, or ``None`` if invalid."""
    words = re.findall(r"[a-z]+|\d+", text.lower())
    numbers = [int(word) for word in words if word.isdigit()]
    month = next((_MONTHS[word] for word in words if word in _MONTHS), None)
    year = max(numbers)  # the pattern guarantees one year; other numbers are a month or day
    others = [number for number in numbers if number < 1900]
    try:
        if month is None and len(others) == 2:  # ISO year-month-day
            start = datetime(year, others[0], others[1])
            return start, start + timedelta(days=1)
        if month is None and len(others) == 1:  # ISO year-month
            start = datetime(year, others[0], 1)
            return start, _add_months(start, 1)
        if month is not None and others:  # a day of a named month
            start = datetime(year, month, others[0])
            return start, start + timedelta(days=1)
        if month is not None:
            start = datetime(year, month, 1)
            return start, _add_months(start, 1)
    except ValueError:
        return None
    return datetime(year, 1, 1), datetime(year + 1, 1, 1)


def _add_months(moment: datetime, months: int) -> datetime:
    """``moment`` moved by ``months`` calendar months, the day clamped to the target month's length."""
    index = moment.year * 12 + moment.month - 1 + months
    year, month = divmod(index, 12)
    day = min(moment.day, calendar.monthrange(year, month + 1)[1])
    return moment.replace(year=year, month=month + 1, day=day)


def _relative(count: str | None, unit: str, today: date) -> _Span | None:
    """The span from ``count`` ``unit``s before ``today`` up to the end of ``today``."""
    number = 1 if count is None else _NUMBER_WORDS.get(count.lower(), None)
    number = int(count) if number is None and count is not None else number
    if not number:
        return None
    end = datetime(today.year, today.month, today.day) + timedelta(days=1)
    midnight = end - timedelta(days=1)
    unit = unit.lower()
    try:
        if unit in {"day", "week"}:
            return midnight - timedelta(days=number * (7 if unit == "week" else 1)), end
        return _add_months(midnight, -number * (12 if unit == "year" else 1)), end
    except (ValueError, OverflowError):
        return None
