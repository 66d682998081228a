"""The extractive answerer: no model, deterministic, fast. It quotes the source lines that answer the question,
one per line, each labelled with its patient and followed by its citation.

It works from the question as read once by retrieval (`clinrag.retrieve.query.QueryUnderstanding`: the kind of
fact asked, the sections that hold it, the clinical things named), never from the question's literal words alone.
Lines come from the sections the question asks about (short lists — medications, diagnoses — quoted whole); when
the question names a specific thing (a drug, a condition, a test), only the admissions that mention it qualify,
so related-but-irrelevant hits give an abstention rather than an off-target quote. A question about complications
quotes the lines that report one, never an "uncomplicated" that another line of the same stay contradicts.
Lines are taken from the sources in rank order, at most ``max_lines`` in all, and grouped by patient (or, for
sources about no patient, by organisation): the group holding the best-ranked line comes first, and lines keep
their rank order within a group.

Example:
    >>> from clinrag.retrieve.query import understand
    >>> from clinrag.types import Chunk, Source
    >>> chunk = Chunk.create(source_id="note:1-DS-1", org="A", dept="medicine", subject_id=7, note_id="1-DS-1",
    ...                      section="Allergies", text="Allergies: Penicillin (rash)")
    >>> print(extract_answer(understand("Is she allergic to anything?"), [Source(number=1, chunk=chunk, score=1.0)]))
    Patient 7: Allergies: Penicillin (rash) [1]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence, Set
from datetime import datetime
from typing import Final

from clinrag.generate.citations import split_sentences as answer_sentences
from clinrag.generate.contradiction import (
    COMPLICATION_CUE,
    WEAKCOMPLICATION_CUE,
    denies_complication,
    reports_complication,
    stay_of,
)
from clinrag.generate.sanitize import sanitize_source
from clinrag.index.lexical import tokenize
from clinrag.ingest.sentences import split_sentences
from clinrag.retrieve.classes import member_words, mentioned
from clinrag.retrieve.intent import KIND_SECTIONS
from clinrag.retrieve.query import SECTION_KINDS, QueryUnderstanding
from clinrag.retrieve.vocabulary import is_drug_name
from clinrag.retrieve.word_forms import forms_mentioned, stem
from clinrag.types import Source

MAX_LINES: Final = 8
_SHORT_LIST: Final = 400  # characters: a section this short is quoted whole
_WHOLE_LIST: Final = 1500  # characters: the list a kind of fact is (medications, allergies …) quoted whole up to this


def question_terms(understanding: QueryUnderstanding, names: Iterable[str] = ()) -> frozenset[str]:
    """The clinical things ``understanding``'s question names (:attr:`QueryUnderstanding.things`), less the words of
    ``names`` (the patients it names, or whose records answer it: they are filters, not things to find). Empty
    when the question only names a kind of information ("What procedure did she undergo?").

    Example:
        >>> from clinrag.retrieve.query import understand
        >>> sorted(question_terms(understand("What dose of warfarin was Ada Stone discharged on?"), ["Ada Stone"]))
        ['warfarin']
        >>> question_terms(understand("What procedure did Ada Stone undergo?"), ["Ada Stone"])
        frozenset()
    """
    named = {token for name in names for token in tokenize(name)}
    return understanding.things - named


def _lines(text: str) -> list[str]:
    """Sentences of a source (list items and heading lines on their own), by the clinical sentence splitter."""
    return split_sentences(text)


def _label(source: Source) -> str:
    chunk = source.chunk
    if chunk.citation is not None:
        return chunk.citation.short
    if chunk.guideline is not None:
        return chunk.guideline.short
    if chunk.subject_id is None:
        return chunk.org
    return f"{chunk.patient_name} ({chunk.subject_id})" if chunk.patient_name else f"Patient {chunk.subject_id}"


_NUMBERED = re.compile(r"^\s*(?:\d{1,3}[.)]|[-*•])\s+")


_SUBHEADING = re.compile(
    r"^(?:primary|secondary|principal|active|chronic|resolved)(?: diagnos[ie]s)?:?$", re.IGNORECASE
)


_FINDING_LABELS: Final = ("RESULTS:", "CONCLUSIONS:", "CONCLUSION:", "FINDINGS:", "INTERPRETATION:")


def _findings(source: Source, text: str) -> str:
    """For an abstract, the lines that report what was found (RESULTS, CONCLUSIONS): the BACKGROUND asks the
    question the study answers, and quoting it would answer nothing. Other sources as they are.

    Example:
        >>> from clinrag.types import Chunk, Citation
        >>> chunk = Chunk.create(source_id="pubmed:1", text="T.\\nBACKGROUND: Is X better?\\nRESULTS: X was better.",
        ...                      org="L", dept="literature", citation=Citation(pmid=1, title="T."))
        >>> _findings(Source(number=1, chunk=chunk, score=1.0), chunk.text)
        'RESULTS: X was better.'
    """
    if source.chunk.citation is None:
        return text
    found = [line for line in text.splitlines() if line.upper().startswith(_FINDING_LABELS)]
    return "\n".join(found) if found else text


def _as_one_line(text: str) -> str:
    """A short section on one line: list items joined with "; ", their numbers or bullets dropped, and sub-headings
    ("Primary:", "Secondary:") kept as labels of the items after them.

    Example:
        >>> _as_one_line("Discharge Medications: 1. Aspirin 81 mg\\n2. Apixaban 5 mg BID")
        'Discharge Medications: Aspirin 81 mg; Apixaban 5 mg BID'
        >>> _as_one_line("Discharge Diagnosis:\\nPrimary:\\nhip fracture\\n\\nSecondary:\\nHTN\\nCKD")
        'Discharge Diagnosis: Primary: hip fracture; Secondary: HTN; CKD'
    """
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    head, *items = lines
    if ":" in head and not _SUBHEADING.match(head):
        label, first = head.split(":", 1)
        items = [first, *items] if first.strip() else items
        head = label + ":"
    else:
        items, head = [head, *items], ""
    groups: list[tuple[str, list[str]]] = [("", [])]
    for item in items:
        cleaned = _NUMBERED.sub("", " ".join(item.split()))
        if _GREETING.match(cleaned):  # "Dear Ms. ___,": a letter's courtesy, no item
            continue
        if _SUBHEADING.match(cleaned):
            groups.append((cleaned.rstrip(":").capitalize() + ":", []))
        elif cleaned:
            groups[-1][1].append(cleaned)
    body = "; ".join(" ".join(filter(None, (label, "; ".join(found)))) for label, found in groups if found)
    return (head + " " + body).strip()


def extract_answer(
    understanding: QueryUnderstanding,
    sources: Sequence[Source],
    max_lines: int = MAX_LINES,
    names: Iterable[str] = (),
) -> str:
    """A cited answer quoting the lines of ``sources`` that answer the question read as ``understanding`` ("" when
    none does); ``names`` are the patient names the question mentions (they are filters, not things to find in a
    line). A line quoted from several sources (the same allergy in two stays) is written once with all its
    citations. The lines are :func:`answering_lines`'."""
    chosen = answering_lines(understanding, sources, max_lines, names)
    return "\n".join(
        _cited(f"{label}: {line}", "".join(f"[{n}]" for n in numbers)) for (label, line), numbers in _grouped(chosen)
    )


def _cited(line: str, markers: str) -> str:
    """A quoted line with its citation markers after each of its sentences: a line of several sentences ("Never
    smoker. Retired, lives with his spouse.") is checked sentence by sentence, and each must cite its source.

    Example:
        >>> _cited("Ann (7): Social History: Never smoker. Lives alone.", "[1]")
        'Ann (7): Social History: Never smoker. [1] Lives alone. [1]'
    """
    pieces = answer_sentences(line)
    return " ".join(f"{piece} {markers}" for piece in pieces) if len(pieces) > 1 else f"{line} {markers}"


def focused_texts(
    understanding: QueryUnderstanding, sources: Sequence[Source], names: Iterable[str] = ()
) -> dict[int, str]:
    """For a model: each source's text reduced to the lines that answer the question (:func:`answering_lines`),
    by source number; empty when no line does (the model then reads the sources whole). A small model given the
    medication list alone writes about medications; given five sections, it writes about whichever it reads first.

    Example:
        >>> from clinrag.evaluate.adversarial import note_chunk
        >>> from clinrag.retrieve.query import understand
        >>> allergies = Source(number=1, chunk=note_chunk(7, "Ada Stone", "Allergies", "Codeine"), score=1.0)
        >>> course = Source(number=2, chunk=note_chunk(7, "Ada Stone", "Brief Hospital Course", "Stable."), score=1.0)
        >>> focused_texts(understand("Is Ada Stone allergic to anything?"), [allergies, course])
        {1: 'Allergies: Codeine'}
    """
    focused: dict[int, list[str]] = {}
    for (_, line), numbers in answering_lines(understanding, sources, MAX_LINES, names).items():
        for number in numbers:
            focused.setdefault(number, []).append(line)
    return {number: "\n".join(lines) for number, lines in sorted(focused.items())}


def answering_lines(
    understanding: QueryUnderstanding,
    sources: Sequence[Source],
    max_lines: int = MAX_LINES,
    names: Iterable[str] = (),
) -> dict[tuple[str, str], list[int]]:
    """The lines of ``sources`` that answer the question, keyed by (patient label, line), with the numbers of the
    sources holding each, in rank order.

    The question's clinical things (:func:`question_terms`) choose the admissions it is about: a source counts only
    if a source of the same admission mentions one. Within them, the lines are those of the sections the question
    asks about — short sections quoted whole — that mention a thing, or, for a question about complications, the
    lines that report one: a line saying that something went without complication is quoted only when no line of
    that admission reports a complication (it would contradict the record)."""
    wanted = set(tokenize(understanding.lexical_text))
    sections = set(understanding.sections)
    specific = question_terms(understanding, [*names, *(source.chunk.patient_name or "" for source in sources)])
    texts = {source.number: _findings(source, sanitize_source(source.chunk.text).text) for source in sources}
    named = {
        token for name in [*names, *(source.chunk.patient_name or "" for source in sources)] for token in tokenize(name)
    }
    for chosen_by in (specific, understanding.anchors - named):  # the thing asked, and the event it comes after
        if chosen_by:
            about = {stay_of(s.chunk) for s in sources if forms_mentioned(chosen_by, mentioned(texts[s.number]))}
            sources = [source for source in sources if stay_of(source.chunk) in about]
    reactions = reaction_lines(understanding, sources, texts)
    kind_sections = KIND_SECTIONS.get(understanding.fact_kind or "", ())
    # the section a kind of fact is (not the hospital course a procedure may also be told in): its list answers
    main_section = kind_sections[0] if kind_sections and understanding.fact_kind in SECTION_KINDS else None
    for wanted_sections in (set(kind_sections[:1]), set(kind_sections), sections):
        if wanted_sections and any(source.chunk.section in wanted_sections for source in sources):
            sources = [source for source in sources if source.chunk.section in wanted_sections]
            break
    if any(not says_none(texts[source.number]) for source in sources):  # one stay's "None", another's operation
        sources = [source for source in sources if not says_none(texts[source.number])]
    complication = understanding.fact_kind == "complication"
    reported = {
        stay_of(source.chunk)
        for source in sources
        if complication and any(reports_complication(line) for line in _lines(texts[source.number]))
    }
    if specific and understanding.about_patients:  # "who had a stroke?": the record's findings, not advice
        clinical = [source for source in sources if source.chunk.section not in PATIENT_ADVICE_SECTIONS]
        sources = clinical if any(_answers(s, texts[s.number], specific) for s in clinical) else sources
    chosen: dict[tuple[str, str], list[int]] = {}
    for source in sources:
        text = texts[source.number]
        if complication:
            lines = complication_lines(text, negations=stay_of(source.chunk) not in reported)
        else:
            whole = main_section is not None and source.chunk.section == main_section and not specific
            whole = whole and not understanding.about_patients
            lines = _picked_lines(source, text, wanted, specific, sections, understanding.about_patients, whole)
        section = source.chunk.section
        for found in lines:
            # labelled with its section: "Past Medical History: stroke" is not a stroke now
            literature = source.chunk.citation is not None  # its lines carry their own labels (RESULTS: …)
            line = (
                found
                if literature or not section or found.startswith(section)
                else f"{section}: {found.lstrip('-*• ')}"
            )
            key = (_label(source), line)
            if key not in chosen and len(chosen) >= max_lines:
                break
            chosen.setdefault(key, []).append(source.number)
    for source, line in reactions:  # "what reaction did he have to the antipsychotic?": the course records it
        key = (_label(source), line)
        if key in chosen or len(chosen) < max_lines:
            chosen.setdefault(key, []).append(source.number)
    return chosen


_NONE: Final = re.compile(r"^[^:\n]{1,60}:\s*(?:none|n/?a|nil)\.?\s*$", re.IGNORECASE)


def says_none(text: str) -> bool:
    """Whether a section's ``text`` says only that it holds nothing ("Major Surgical or Invasive Procedure: None").

    Example:
        >>> says_none("Major Surgical or Invasive Procedure:\\nNone"), says_none("Major Surgical …: lap appy")
        (True, False)
    """
    return _NONE.match(text.strip()) is not None


_ADVERSE: Final = re.compile(
    r"-induced\b|\binduced by\b|\breactions?\b|\bintoleran\w*|\badverse\b|\bside[- ]effects?\b", re.IGNORECASE
)
"""Words that report a drug's harm to the patient ("antipsychotic-induced dystonia", "a reaction to …")."""


def reaction_lines(
    understanding: QueryUnderstanding, sources: Sequence[Source], texts: dict[int, str] | None = None
) -> list[tuple[Source, str]]:
    """For a question about allergies that names a drug or a class of drugs, the lines outside the allergy list that
    report a harm from it ("an antipsychotic-induced acute dystonia"): an adverse reaction in hospital is often in
    the course, not the allergy list, and the list ("No Known Allergies") would not answer "what reaction did he
    have to the antipsychotic?". ``texts`` are the sources' texts by number (default: each chunk's own).

    Example:
        >>> from clinrag.evaluate.adversarial import note_chunk
        >>> from clinrag.retrieve.query import understand
        >>> course = note_chunk(7, "Ada Stone", "Brief Hospital Course", "Haloperidol-induced dystonia. Stable.")
        >>> sources = [Source(number=1, chunk=course, score=1.0)]
        >>> [line for _, line in reaction_lines(understand("Reaction to haloperidol?"), sources)]
        ['Brief Hospital Course: Haloperidol-induced dystonia.']
    """
    if understanding.fact_kind != "allergy":
        return []
    drugs = {
        word
        for word in understanding.context | understanding.things
        if is_drug_name(word) or word in understanding.classes
    }
    if not drugs:
        return []
    found: list[tuple[Source, str]] = []
    for source in sources:
        section = source.chunk.section
        if section == "Allergies" or source.chunk.subject_id is None:
            continue
        text = texts.get(source.number, "") if texts is not None else sanitize_source(source.chunk.text).text
        for line in _lines(text):
            if _ADVERSE.search(line) and forms_mentioned(drugs, mentioned(line)) and not _HEADING_ONLY.match(line):
                found.append((source, line if not section or line.startswith(section) else f"{section}: {line}"))
    return found


_NEGATED_BEFORE = re.compile(
    r"\b(?:no|not|never|without|denies|denied|negative for|ruled out|r/o|rule out|free of|absence of|no evidence of"
    r"|no signs? of|signs? of|symptoms? of|risk of|prevent\w*|prophylaxis (?:for|against)|concern for|to exclude"
    r"|call (?:for|if)|return (?:for|if)|watch for|warning signs? (?:of|for))\b[^.;:]{0,40}$",
    re.IGNORECASE,
)
_NEGATED_AFTER = re.compile(
    r"^(?:[^.;:]{0,30}\b(?:was|were|is|has been) (?:ruled out|excluded|unlikely)\b|\s*(?:prevention|prophylaxis|risk))",
    re.IGNORECASE,
)


PATIENT_ADVICE_SECTIONS: Final = frozenset({"Discharge Instructions", "Followup Instructions"})
"""Sections written to the patient ("call 911 for signs of stroke"): they answer "who had X" only when no finding
of the record does."""


def _answers(source: Source, text: str, terms: frozenset[str]) -> bool:
    """Whether a line of ``source`` states one of ``terms`` as a fact about its patient."""
    return any(affirms(line, terms) for line in _lines(text))


def affirms(line: str, terms: Set[str]) -> bool:
    """Whether ``line`` states one of ``terms`` as a fact about the patient: a mention that is negated ("no
    evidence of stroke", "stroke was ruled out"), hedged or hypothetical ("signs of stroke", "risk of DVT", "call
    for chest pain") does not count.

    Example:
        >>> affirms("Admitted with right MCA ischemic stroke.", frozenset({"stroke"}))
        True
        >>> affirms("Call 911 for signs of stroke such as facial droop.", frozenset({"stroke"}))
        False
        >>> affirms("You had a TIA, a warning sign for stroke. Take atorvastatin (stroke prevention).", {"stroke"})
        False
    """
    lowered = line.lower()
    for term in terms:
        forms = "|".join(re.escape(form) for form in (term, *_stemmed(term), *member_words(term)))
        for match in re.finditer(rf"\b(?:{forms})\w*", lowered):
            before, after = lowered[: match.start()], lowered[match.end() :]
            if not _NEGATED_BEFORE.search(before) and not _NEGATED_AFTER.search(after):
                return True
    return False


def _stemmed(term: str) -> tuple[str, ...]:
    """The stem of a one-word ``term`` as a further form to find ("voiding": "void" finds "unable to void")."""
    root = stem(term) if term.isalpha() else term
    return (root,) if len(root) >= 4 and root != term else ()


def complication_lines(text: str, negations: bool) -> list[str]:
    """Up to three lines of a hospital course that report a complication (clear phrasings first, then weaker
    ones), or, with ``negations`` and none found, the lines that say there was none.

    Example:
        >>> course = "Laminectomy without complication. Recovery was slowed by ileus. Diet was advanced."
        >>> complication_lines(course, negations=True)
        ['Recovery was slowed by ileus.']
    """
    lines = [line for line in _lines(text) if not denies_complication(line)]
    found = [line for line in lines if COMPLICATION_CUE.search(line)]
    found += [line for line in lines if WEAKCOMPLICATION_CUE.search(line) and line not in found]
    if not found and negations:
        found = [line for line in _lines(text) if denies_complication(line)]
    return [line.rstrip() for line in found[:3]]


def summarise_admissions(sources: Sequence[Source]) -> str:
    """One cited line per admission of the sources, in date order: the date, the department, and the primary
    discharge diagnosis (else the chief complaint) of that stay.

    Example:
        >>> from datetime import datetime
        >>> from clinrag.types import Chunk, Source
        >>> def chunk(section, text, hadm, when):
        ...     return Chunk.create(source_id=f"note:{hadm}", org="A", dept="surgery", subject_id=7, hadm_id=hadm,
        ...                         section=section, text=text, admittime=datetime(when, 1, 2))
        >>> diagnosis = chunk("Discharge Diagnosis", "Discharge Diagnosis:\\nhip fracture", 2, 2021)
        >>> complaint = chunk("Chief Complaint", "Chief Complaint:\\nchest pain", 1, 2019)
        >>> sources = [Source(number=1, chunk=diagnosis, score=1), Source(number=2, chunk=complaint, score=1)]
        >>> print(summarise_admissions(sources))
        Patient 7: 2019-01-02 (surgery): Chief Complaint: chest pain [2]
        Patient 7: 2021-01-02 (surgery): Discharge Diagnosis: hip fracture [1]
    """
    best: dict[int, Source] = {}
    for source in sources:
        hadm = source.chunk.hadm_id
        if hadm is None or source.chunk.section not in _SUMMARY_SECTIONS:
            continue
        current = best.get(hadm)
        if current is None or _SUMMARY_SECTIONS.index(source.chunk.section or "") < _SUMMARY_SECTIONS.index(
            current.chunk.section or ""
        ):
            best[hadm] = source
    ordered = sorted(best.values(), key=lambda s: (s.chunk.admittime or s.chunk.charttime or _EPOCH, s.number))
    lines = []
    for source in ordered:
        chunk = source.chunk
        when = chunk.admittime or chunk.charttime
        date = when.date().isoformat() if when is not None else "date unknown"
        text = _as_one_line(sanitize_source(chunk.text).text)
        lines.append(f"{_label(source)}: {date} ({chunk.dept}): {text} [{source.number}]")
    return "\n".join(lines)


_SUMMARY_SECTIONS: Final = ("Discharge Diagnosis", "Chief Complaint")
SUMMARY_SECTIONS: Final = _SUMMARY_SECTIONS
"""The sections an admissions summary is made of, the preferred first."""
_EPOCH: Final = datetime(1900, 1, 1)


def _grouped(
    chosen: dict[tuple[str, str], list[int]],
) -> list[tuple[tuple[str, str], list[int]]]:
    """The chosen lines grouped by label (patient or organisation): groups in the order of their best-ranked line,
    lines in rank order within each group (``chosen`` is in rank order, and ``sorted`` is stable).

    Example:
        >>> [key for key, _ in _grouped({("Ann", "a"): [1], ("Bo", "b"): [2], ("Ann", "c"): [3]})]
        [('Ann', 'a'), ('Ann', 'c'), ('Bo', 'b')]
    """
    first: dict[str, int] = {}
    for index, (label, _) in enumerate(chosen):
        first.setdefault(label, index)
    return sorted(chosen.items(), key=lambda item: first[item[0][0]])


_HEADING_ONLY: Final = re.compile(r"^\s*(?:[A-Za-z][A-Za-z /&'-]{0,40}:\s*)+$")
"""A line of headings and labels only ("Discharge Diagnosis: Primary:"): it answers nothing."""


_GREETING: Final = re.compile(
    r"^\s*(?:[A-Za-z][A-Za-z ]{0,30}:\s*)?"
    r"(?:dear\s+(?:(?:mr|mrs|ms|miss|mx|dr)\.?\s+)?[^\s,]{1,20}(?:\s+[^\s,]{1,20})?\s*,?"
    r"|it was a pleasure (?:taking care of|caring for|to care for) you\b[^.]*\.?"
    r"|we wish you (?:all )?the best\b[^.]*\.?)\s*$",
    re.IGNORECASE,
)
"""A letter's greeting or courtesy ("Dear Mr. ___,", "It was a pleasure taking care of you at ___."): no answer."""


_TABLE_CELLS: Final = " | "
"""How a guideline's table row joins its cells (`ingest.guidelines`): ``Edoxaban | 60 mg once daily | 30 mg``."""
_UNDER_HEADER: Final = " — "
"""Between a table's header row and the row quoted under it."""


def table_header(text: str) -> str | None:
    """The header row of the table in a guideline chunk's ``text``: its first ``cell | cell`` line (None without one).

    Example:
        >>> table_header("Doses.\\nDrug | Usual dose\\nEdoxaban | 60 mg once daily")
        'Drug | Usual dose'
    """
    return next((line.strip() for line in text.splitlines() if _TABLE_CELLS in line), None)


def _under_header(line: str, header: str | None) -> str:
    """A table row quoted with its table's header row before it, so that each cell's column can be read; other
    lines (and the header itself) as they are.

    Example:
        >>> _under_header("Edoxaban | 60 mg once daily", "Drug | Usual dose")
        'Drug | Usual dose — Edoxaban | 60 mg once daily'
    """
    if header is None or _TABLE_CELLS not in line or line.strip() == header:
        return line
    return f"{header}{_UNDER_HEADER}{line.strip()}"


def _picked_lines(
    source: Source,
    text: str,
    wanted: set[str],
    specific: frozenset[str],
    sections: set[str],
    about_patients: bool,
    whole: bool = False,
) -> list[str]:
    """The lines of one source worth quoting (none when it is not about the thing asked); all of it when it is
    short, or ``whole`` (the list a kind of fact is: "what was she taking before she came in?") and not long. A
    guideline's table row comes with its table's header row; the header row alone is never quoted (its words are
    column names, not an answer)."""
    if not text:
        return []
    in_section = source.chunk.section in sections
    if (in_section and len(text) <= _SHORT_LIST) or (whole and len(text) <= _WHOLE_LIST):
        return [_as_one_line(text)]
    header = table_header(text) if source.chunk.guideline is not None else None
    # "Discharge Diagnosis: Primary:", "Dear Mr. ___,": headings and greetings answer nothing
    lines = [line for line in _lines(text) if not _HEADING_ONLY.match(line) and not _GREETING.match(line)]
    lines = [line for line in lines if not specific or specific & mentioned(line)]
    if specific and about_patients:  # "who had a stroke?": not "no evidence of stroke", nor "signs of stroke"
        lines = [line for line in lines if affirms(line, specific)]
    if specific and not lines and in_section and not about_patients:
        lines = _lines(text)  # the admission is about the thing; this section of it answers the question
    lines = [line for line in lines if header is None or line.strip() != header]
    scored = [(len(wanted & set(tokenize(line))), i, line) for i, line in enumerate(lines)]
    best = max((score for score, _, _ in scored), default=0)
    if best == 0 and not in_section:
        return []
    picked = [line.rstrip() for score, _, line in sorted(scored, key=lambda t: (-t[0], t[1]))[:2] if score == best]
    return [_under_header(line, header) for line in picked]
