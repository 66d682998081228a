"""The extractive answerer: no model, deterministic, fast. It quotes the source lines that answer the question,
one per line, each labelled with its patient and followed by its citation.

A line answers when it shares content words with the question (after the same lay-word and abbreviation
expansion BM25 uses) or comes from a section the question asks about; short lists (medications, diagnoses) are
quoted whole. When the question names a specific thing (a drug, a condition, a test), only sources and lines
that mention it qualify, so related-but-irrelevant hits give an abstention rather than an off-target quote.
Lines are taken from the sources in rank order, at most ``max_lines`` in all, and grouped by patient (or, for
sources about no patient, by organisation): the group holding the best-ranked line comes first, and lines keep
their rank order within a group.

Example:
    >>> from clinrag.types import Chunk, Source
    >>> chunk = Chunk.create(source_id="note:1-DS-1", org="A", dept="medicine", subject_id=7, note_id="1-DS-1",
    ...                      section="Allergies", text="Allergies: Penicillin (rash)")
    >>> print(extract_answer("Is she allergic to anything?", [Source(number=1, chunk=chunk, score=1.0)]))
    Patient 7: Allergies: Penicillin (rash) [1]
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Final

from clinrag.generate.sanitize import sanitize_source
from clinrag.index.lexical import tokenize
from clinrag.retrieve.query import understand
from clinrag.types import Source

MAX_LINES: Final = 8
_LINE = re.compile(r"[^\n]+")
_SENTENCE = re.compile(r".+?(?:[.!?](?=\s|$)|$)")
_SHORT_LIST: Final = 400  # characters: a section this short is quoted whole


_QUESTION_WORDS: Final = """
    what which who whom whose when where why how does did do was were is are be been has have had any anything
    anyone everyone everybody all patient patients person people list show tell give find name named find see
    dose doses take takes taking taken took get got go went gone come came leave left sent send home hospital
    stay stays admission admitted admit discharge discharged inpatient ward during while before after end start
    kind type sort about also other else still ever currently recent latest last first time times day days year
    years month months history background long term problem problems issue issues condition conditions
    medications medicine medicines drug drugs pill pills prescription prescriptions prescribed regular usual
    diagnosis diagnosed diagnoses final found wrong complication complications develop developed setback
    setbacks go wrong operation operations procedure procedures surgery surgeries operated underwent performed
    allergy allergies allergic react reaction reactions badly intolerance intolerances test tests result results
    show showed reveal revealed investigation investigations workup imaging lab labs key stood out symptom
    symptoms complaint complaining arrival reason bring brought lead led smoke smoking smoker tobacco drink
    drinking alcohol habit habits live lives living situation social follow followup appointment instructions
    take-home once back keep start started starting stop stopped stopping give given treat treated treatment
    change changed switch switched increase increased decrease decreased reason because cause caused happen
    happened occur occurred need needed use used new prior current much many often
    health medical long-term leaving consume consumes themselves himself herself themself etoh
"""
GENERIC: Final[frozenset[str]] = frozenset(tokenize(_QUESTION_WORDS))
"""Words that say what kind of thing is asked, not which thing; a line need not contain them. (``etoh`` is here
because query understanding adds it for "drink" and "alcohol", which are kinds of information too.)"""


def specific_terms(question: str, lexical_text: str) -> frozenset[str]:
    """The words that name the thing asked about (a drug, a condition, a test), with their expansions; empty when
    the question only names a kind of information ("What was she sent home on?").

    Example:
        >>> sorted(specific_terms("Was Ada sent home on warfarin?", "Was Ada sent home on warfarin? discharge"))
        ['ada', 'warfarin']
    """
    return frozenset(tokenize(lexical_text)) - GENERIC


def question_terms(question: str, names: Iterable[str] = ()) -> frozenset[str]:
    """The :func:`specific_terms` of ``question`` (after query understanding), less the words of ``names`` (the
    patients it names, or whose records answer it: they are filters, not things to find). Empty when the question
    only names a kind of information. The extractive answerer quotes only lines holding one of these terms, and
    verification holds every generator to the same test (:mod:`clinrag.generate.answer`).

    Example:
        >>> sorted(question_terms("What dose of warfarin was Ada Stone discharged on?", ["Ada Stone"]))
        ['warfarin']
        >>> question_terms("What was Ada Stone sent home on?", ["Ada Stone"])
        frozenset()
    """
    understanding = understand(question)
    named = {token for name in names for token in tokenize(name)}
    return specific_terms(question, understanding.lexical_text) - named


def _lines(text: str) -> list[str]:
    """Sentences of a source, one per line or sentence, stripped."""
    out: list[str] = []
    for line in _LINE.findall(text):
        out += [s.strip() for s in _SENTENCE.findall(line.strip()) if s.strip()]
    return out


def _label(source: Source) -> str:
    chunk = source.chunk
    if chunk.subject_id is None:
        return chunk.org
    return f"{chunk.patient_name} ({chunk.subject_id})" if chunk.patient_name else f"Patient {chunk.subject_id}"


_NUMBERED = re.compile(r"^\s*(?:\d{1,3}[.)]|[-*•])\s+")


def _as_one_line(text: str) -> str:
    """A short section on one line: list items joined with "; " and their numbers or bullets dropped.

    Example:
        >>> _as_one_line("Discharge Medications: 1. Aspirin 81 mg\\n2. Apixaban 5 mg BID")
        'Discharge Medications: Aspirin 81 mg; Apixaban 5 mg BID'
    """
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    head, *items = lines
    if ":" in head:
        label, first = head.split(":", 1)
        items = [first, *items] if first.strip() else items
        head = label + ":"
    else:
        items, head = [head, *items], ""
    cleaned = [_NUMBERED.sub("", " ".join(item.split())) for item in items]
    return (head + " " + "; ".join(c for c in cleaned if c)).strip()


def extract_answer(
    question: str, sources: Sequence[Source], max_lines: int = MAX_LINES, names: Iterable[str] = ()
) -> str:
    """A cited answer quoting the lines of ``sources`` that answer ``question`` ("" when none does); ``names``
    are the patient names the question mentions (they are filters, not things to find in a line). A line quoted
    from several sources (the same allergy in two stays) is written once with all its citations."""
    understanding = understand(question)
    wanted = set(tokenize(understanding.lexical_text))
    sections = set(understanding.sections)
    specific = question_terms(question, [*names, *(source.chunk.patient_name or "" for source in sources)])
    if sections and any(source.chunk.section in sections for source in sources):
        sources = [source for source in sources if source.chunk.section in sections]
    chosen: dict[tuple[str, str], list[int]] = {}
    for source in sources:
        for line in _picked_lines(source, wanted, specific, sections):
            key = (_label(source), line)
            if key not in chosen and len(chosen) >= max_lines:
                break
            chosen.setdefault(key, []).append(source.number)
    return "\n".join(
        f"{label}: {line} " + "".join(f"[{n}]" for n in numbers) for (label, line), numbers in _grouped(chosen)
    )


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


def _picked_lines(source: Source, wanted: set[str], specific: frozenset[str], sections: set[str]) -> list[str]:
    """The lines of one source worth quoting (none when it is not about the thing asked)."""
    text = sanitize_source(source.chunk.text).text
    if not text or (specific and not specific & set(tokenize(text))):
        return []
    in_section = source.chunk.section in sections
    if in_section and len(text) <= _SHORT_LIST:
        return [_as_one_line(text)]
    lines = [line for line in _lines(text) if not specific or specific & set(tokenize(line))]
    scored = [(len(wanted & set(tokenize(line))), i, line) for i, line in enumerate(lines)]
    best = max((score for score, _, _ in scored), default=0)
    if best == 0 and not in_section:
        return []
    return [line.rstrip() for score, _, line in sorted(scored, key=lambda t: (-t[0], t[1]))[:2] if score == best]
