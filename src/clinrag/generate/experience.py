"""Answers from experience: a question about patients similar to one patient, answered from the
similar patients' records.

"What were patients like Betty Henry discharged with?" goes here (the planner's ``experience`` route). A
`SimilarFinder` finds the one patient the question names and ranks the patients the asker may see by shared
diagnoses, medications and procedures (`clinrag.population.similar`; over the federation, every hospital ranks its
own). The question, without the patient's name and the similarity words, is then answered by ordinary retrieval
restricted to those similar patients: the named patient is never among them, so their own record — their own
discharge plan — never enters the context. The answer says how many similar patients, at which hospitals, it drew
on, cites their passages, and carries the similar patients themselves (`ExperiencePart`) for every face to show.
A question that asks for nothing but the patients ("Which patients are similar to Betty Henry?") is answered by
the list alone.

Example:
    >>> experience_query("What were patients similar to Betty Henry discharged with?", "Betty Henry")
    'What were patients discharged with?'
    >>> experience_query("Find patients like Betty Henry", "Betty Henry") is None
    True
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from pydantic import BaseModel, ConfigDict

from clinrag.types import Abstention, Answer, SearchFilters

SIMILAR_K: Final = 15
"""Similar patients drawn on by default (the published method's default)."""
_SIMILARITY_WORDS = re.compile(
    r"\b(?:(?:who\s+are|that\s+are|are)\s+)?(?:similar|comparable|alike)\s+(?:to|with)\s+(?:the\s+)?(?:patient\s+)?"
    r"|\b(?:like|such\s+as|to|as)\s+(?:the\s+)?(?:patient\s+)?(?=\uFFFC)|\bsimilar\s+(?=patients|people|cases)"
    r"|\b(?:other|comparable)\s+(?=patients|people|cases)",
    re.IGNORECASE,
)
_LIST_WORDS: Final = frozenset(
    re.findall(
        r"\w+",
        "which what who whom find show list give tell me us all the a an are is were was be to of at in for with by "
        "and or patients patient people cases case others other most more similar like any there do does did have "
        "has please can could you our my",
    )
)
_PLACEHOLDER: Final = "\ufffc"


def experience_query(question: str, patient_text: str) -> str | None:
    """The question to search the similar patients' records with: without the patient's name and the similarity
    words; None when nothing is left to look for but the patients themselves.

    Example:
        >>> experience_query("Which patients are similar to MRN 10000032?", "MRN 10000032") is None
        True
    """
    marked = question.replace(patient_text, _PLACEHOLDER, 1) if patient_text else question
    marked = re.sub(rf"{_PLACEHOLDER}(?:'s|’s)?", _PLACEHOLDER, marked)
    stripped = _SIMILARITY_WORDS.sub("", marked).replace(_PLACEHOLDER, "")
    stripped = re.sub(r"\s+([?.!,;:])", r"\1", re.sub(r"\s{2,}", " ", stripped)).strip()
    words = re.findall(r"[a-z0-9]+", stripped.lower())
    if not [word for word in words if word not in _LIST_WORDS]:
        return None
    return stripped


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SharedView(_Model):
    """A code (or drug) two patients share: the code, its title, the ICD version (None for a drug)."""

    code: str
    title: str = ""
    version: int | None = None


class SimilarView(_Model):
    """One similar patient: the organisation whose id ``subject_id`` is, the score, each kind's Jaccard index and
    the items shared with the named patient per kind (``dx``, ``med``, ``proc``)."""

    org: str
    subject_id: int
    score: float
    jaccard: dict[str, float] = {}
    shared: dict[str, tuple[SharedView, ...]] = {}
    hadm_id: int | None = None


class ExperienceOrg(_Model):
    """How one organisation took part in the ranking: ``ok``, ``denied``, ``unreachable`` or ``error``."""

    org: str
    name: str = ""
    status: str
    reason: str = ""


class ExperiencePart(_Model):
    """The experience part of an answer: the patient named (as written, with their organisation and id), the
    similar patients best first, each organisation's part, the similar patients whose passages the answer cites,
    and the lead sentence in words. ``error`` says why no similar patient could be looked for."""

    patient: str
    org: str = ""
    subject_id: int | None = None
    patients: tuple[SimilarView, ...] = ()
    orgs: tuple[ExperienceOrg, ...] = ()
    cited_patients: tuple[SimilarView, ...] = ()
    text: str = ""
    error: str = ""


@dataclass(frozen=True)
class Found:
    """What a finder found: the patient named (span as written, organisation, id), the similar patients and each
    organisation's part; ``error`` when the patient could not be settled (unknown, ambiguous, not visible)."""

    patient: str
    org: str
    subject_id: int | None
    matches: tuple[SimilarView, ...] = ()
    orgs: tuple[ExperienceOrg, ...] = ()
    error: str = ""


class SimilarFinder(Protocol):
    """Finds the one patient a question names and the ``k`` patients most similar to them the asker may see."""

    def find(self, question: str, k: int) -> Found:
        """The named patient and their similar patients (or why none could be looked for)."""
        ...


Records = Callable[[str, SearchFilters], Answer]
"""Answers a question from the records within filters (an `Answerer.answer` bound to its searcher)."""


def _orgs_in_words(views: Sequence[SimilarView], names: dict[str, str]) -> str:
    orgs = list(dict.fromkeys(view.org for view in views))
    labels = [names.get(org) or org for org in orgs]
    if len(labels) <= 1:
        return labels[0] if labels else ""
    return ", ".join(labels[:-1]) + " and " + labels[-1]


def answer_experience(
    question: str, finder: SimilarFinder, records: Records, *, k: int = SIMILAR_K
) -> tuple[Answer, ExperiencePart]:
    """``question`` answered from the records of the patients most similar to the patient it names, and the
    experience part listing them."""
    found = finder.find(question, k)
    names = {part.org: part.name for part in found.orgs if part.name}
    part = ExperiencePart(
        patient=found.patient,
        org=found.org,
        subject_id=found.subject_id,
        patients=found.matches,
        orgs=found.orgs,
        error=found.error,
    )
    who = found.patient or "the patient"
    if found.error:
        reason = f"Similar patients could not be looked for: {found.error}"
        return _experience(question, _abstained(question, reason, found), part.model_copy(update={"text": reason}))
    if not found.matches:
        reason = f"No patient you may see shares diagnoses, medications or procedures with {who}."
        return _experience(question, _abstained(question, reason, found), part.model_copy(update={"text": reason}))
    where = _orgs_in_words(found.matches, names)
    count = len(found.matches)
    asked = experience_query(question, found.patient)
    if asked is None:
        text = (
            f"The {count} patient{'s' if count != 1 else ''} most similar to {who} by shared diagnoses, medications "
            f"and procedures, at {where}, are listed with the codes they share."
        )
        answer = Answer(question=question, text=text, generator="similar", support=1.0)
        return _experience(question, answer, part.model_copy(update={"text": text}))
    orgs = tuple(dict.fromkeys(view.org for view in found.matches))
    filters = SearchFilters(subject_ids=tuple(sorted({view.subject_id for view in found.matches})), orgs=orgs)
    answer = records(asked, filters)
    chosen = {(view.org, view.subject_id): view for view in found.matches}
    cited_keys = dict.fromkeys(
        (source.chunk.org, source.chunk.subject_id)
        for source in answer.sources
        if source.number in answer.cited and source.chunk.subject_id is not None
    )
    cited = tuple(chosen[key] for key in cited_keys if key in chosen)
    if answer.abstained or not cited:
        lead = f"Among the {count} patients most similar to {who} (at {where}):"
    else:
        lead = (
            f"In {len(cited)} of the {count} patients most similar to {who} "
            f"(at {_orgs_in_words(cited, names)}), the records say:"
        )
    text = f"{lead}\n\n{answer.text}"
    part = part.model_copy(update={"text": lead, "cited_patients": cited})
    return _experience(question, answer.model_copy(update={"question": question, "text": text}), part)


def _experience(question: str, answer: Answer, part: ExperiencePart) -> tuple[Answer, ExperiencePart]:
    return answer.model_copy(update={"question": question}), part


def _abstained(question: str, reason: str, found: Found) -> Answer:
    searched = tuple(part.org for part in found.orgs if part.status == "ok")
    denied = tuple(part.org for part in found.orgs if part.status == "denied")
    unreachable = tuple(part.org for part in found.orgs if part.status == "unreachable")
    abstention = Abstention(reason=reason, searched=searched, denied=denied, unreachable=unreachable)
    return Answer(question=question, text=reason, generator="similar", abstention=abstention)
