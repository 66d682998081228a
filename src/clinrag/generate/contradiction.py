"""A sentence of an answer that another retrieved passage about the same admission contradicts is not given as a
fact, whoever wrote it (the extractive answerer or a model).

Two contradictions are recognised, the ones a reader of a discharge summary meets:

- a statement that something went without complication ("uncomplicated", "without complication", "no
  complications") while a passage of the same stay reports a complication ("course complicated by", "developed",
  "consistent with …");
- a statement of no allergies ("No Known Allergies", "NKDA", "no allergies") while a passage of the same stay lists
  an allergy.

A statement of such an absence is kept only when a passage it cites states the absence itself: silence in the
retrieved lines is no record that nothing happened.

Example:
    >>> from clinrag.evaluate.adversarial import note_chunk
    >>> course = note_chunk(1, "Ada Stone", "Brief Hospital Course", "Course complicated by new AF on POD 2.")
    >>> contradicted("The bypass was uncomplicated.", [course])
    True
    >>> contradicted("She developed new AF on POD 2.", [course])
    False
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from clinrag.generate.sanitize import sanitize_source
from clinrag.ingest.sentences import split_sentences
from clinrag.types import Chunk

COMPLICATION_CUE = re.compile(
    r"\bcomplicat\w* by\b|\bcourse (?:was )?complicated\b|\bdevelop\w*|\bnew(?:-onset| onset)?\s+(?!medications?\b)\w+"
    r"|\bconsistent with\b|\bfelt to be\b|\bepisodes? of\b|\btransfus\w*"
    r"|\b(?:rose|fell|dropped|drifted|increased|decreased) (?:to|from)\b"
    r"|\bslowed by\b|\brun of\b|\bincidental\b|\bintra-?operatively\b"
    r"|\b(?:he|she|they) had\b|\b(?:concerning|notable) for\b|\brequiring\b|\btransferred to the \w*ICU\b"
    r"|\b(?:hypo|hyper)(?:kal|natr|magnes|calc|phosphat|glyc)\w*emia\b",
    re.IGNORECASE,
)
"""Phrasings that report a complication in a hospital course."""
WEAKCOMPLICATION_CUE = re.compile(
    r"\btreated (?:with|for)\b|\bpost-?op(?:erative(?:ly)?)?\b|\bresolved\b|\brequired\b|\bfailed to\b"
    r"|\bfailed (?:an? |the )?\w+ trial\b|\breplaced\b"
    r"|\breturned to\b",
    re.IGNORECASE,
)
"""Phrasings that may report one, taken only when no line has a clearer one."""
_NO_COMPLICATION = re.compile(
    r"\b(?:un|non-?)complicated\b|\bwithout (?:any )?(?:\w+ )?complications?\b|\bno (?:\w+ )?complications?\b"
    r"|\bcomplications?: none\b",
    re.IGNORECASE,
)


def denies_complication(line: str) -> bool:
    """Whether ``line`` states that something went without complication ("uncomplicated", "without complication").

    Example:
        >>> denies_complication("He underwent CABG x3 without complication.")
        True
        >>> denies_complication("Course was complicated by AF.")
        False
    """
    return _NO_COMPLICATION.search(line) is not None


def reports_complication(line: str) -> bool:
    """Whether ``line`` reports a complication in clear words (and does not deny one).

    Example:
        >>> reports_complication("He developed postoperative ileus."), reports_complication("Diet was advanced.")
        (True, False)
    """
    return COMPLICATION_CUE.search(line) is not None and not denies_complication(line)


_NO_ALLERGY = re.compile(
    r"\bno known (?:drug )?allergies\b|\bnkda\b|\bno (?:drug )?allergies\b|\bnot allergic\b|\bno allergy\b",
    re.IGNORECASE,
)


def _no_allergy(text: str) -> bool:
    return _NO_ALLERGY.search(text) is not None


def _lists_allergy(chunk: Chunk) -> bool:
    if chunk.section != "Allergies":
        return False
    body = sanitize_source(chunk.text).text.split(":", 1)[-1]
    return bool(body.strip(" .\n")) and not _no_allergy(body)


def contradicted(sentence: str, same_stay: Sequence[Chunk]) -> bool:
    """Whether ``sentence`` is contradicted by a passage of ``same_stay`` (passages of the admission it is about)."""
    if denies_complication(sentence):
        return any(
            reports_complication(line)
            for chunk in same_stay
            for line in split_sentences(sanitize_source(chunk.text).text)
        )
    if _no_allergy(sentence):
        return any(_lists_allergy(chunk) for chunk in same_stay)
    return False


def unfounded_absence(sentence: str, cited: Sequence[Chunk]) -> bool:
    """Whether ``sentence`` states an absence (no complication, no allergy) that none of the passages it ``cited``
    states itself: "No complications were recorded" rests on a line that says so, not on silence.

    Example:
        >>> from clinrag.evaluate.adversarial import note_chunk
        >>> social = note_chunk(1, "Ada Stone", "Social History", "Prior withdrawal without seizures.")
        >>> unfounded_absence("No complications were recorded.", [social])
        True
        >>> course = note_chunk(1, "Ada Stone", "Brief Hospital Course", "Recovery was uncomplicated.")
        >>> unfounded_absence("No complications were recorded.", [course])
        False
    """
    for states_absence in (denies_complication, _no_allergy):
        if states_absence(sentence):
            return not any(states_absence(sanitize_source(chunk.text).text) for chunk in cited)
    return False


def stay_of(chunk: Chunk) -> tuple[int | None, int | str | None]:
    """The admission a chunk is about: (patient, admission or note)."""
    return chunk.subject_id, chunk.hadm_id or chunk.note_id
