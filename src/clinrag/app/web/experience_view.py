"""What the web app shows beside an answer from experience: the lead sentence, each similar patient
(hospital, patient, score, the diagnoses, medications and procedures they share with the patient named, and a mark
linking to the cited passages when the answer cites their records), and every hospital that took no part in the
ranking (denied, unreachable, failed). Everything is plain text here; the template escapes it.

Example:
    >>> from clinrag.generate.experience import ExperiencePart, SharedView, SimilarView
    >>> view = SimilarView(org="A", subject_id=7, score=0.41, shared={"dx": (SharedView(code="I10", title="HTN"),)})
    >>> shown = experience_view(ExperiencePart(patient="Betty Henry", patients=(view,), text="Among the 1 …"), ())
    >>> shown.rows[0].hospital, shown.rows[0].shared[0].words, shown.rows[0].shared[0].items
    ('A', 'diagnoses', ('HTN (I10)',))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from clinrag.app.openai_models import SourceInfo
from clinrag.app.population_tables import (
    EXPERIENCE_STATUS,
    SHARED_KINDS,
    cited_keys,
    experience_org_names,
    patient_text,
    shared_text,
)
from clinrag.generate.experience import ExperiencePart


@dataclass(frozen=True)
class SharedGroup:
    """The items of one kind a similar patient shares with the patient named (``diagnoses``: titles with codes)."""

    kind: str
    words: str
    items: tuple[str, ...]


@dataclass(frozen=True)
class SimilarRow:
    """One similar patient as the panel lists them; ``sources``: the numbers of the cited passages from their
    records (empty when the answer cites none)."""

    org: str
    hospital: str
    subject_id: int
    patient: str
    score: str
    shared: tuple[SharedGroup, ...]
    cited: bool
    sources: tuple[int, ...]


@dataclass(frozen=True)
class StatusView:
    """One hospital that took no part in the ranking, and why."""

    name: str
    status: str
    words: str
    reason: str


@dataclass(frozen=True)
class ExperienceView:
    """Everything the similar-patients panel of a turn shows."""

    patient: str
    lead: str
    error: str
    rows: tuple[SimilarRow, ...]
    statuses: tuple[StatusView, ...]

    @property
    def cited(self) -> int:
        """How many of the similar patients the answer cites."""
        return sum(row.cited for row in self.rows)


def experience_view(part: ExperiencePart, sources: Sequence[SourceInfo]) -> ExperienceView:
    """The panel of ``part``; ``sources`` (the answer's numbered sources) name the patients they belong to and
    link each cited patient to their cited passages.

    Example:
        >>> experience_view(ExperiencePart(patient="Betty Henry", error="no such patient"), ()).rows
        ()
    """
    names = {(s.org, s.subject_id): s.patient_name for s in sources if s.subject_id is not None and s.patient_name}
    hospitals = experience_org_names(part)
    cited = cited_keys(part)
    rows = []
    for view in part.patients:
        key = (view.org, view.subject_id)
        numbers = tuple(s.number for s in sources if s.cited and (s.org, s.subject_id) == key)
        shared = tuple(
            SharedGroup(kind, words, tuple(shared_text(item) for item in view.shared.get(kind, ())))
            for kind, words in SHARED_KINDS.items()
            if view.shared.get(kind)
        )
        rows.append(
            SimilarRow(
                view.org,
                hospitals.get(view.org, view.org),
                view.subject_id,
                patient_text(view, names),
                f"{view.score:.3f}",
                shared,
                key in cited,
                numbers if key in cited else (),
            )
        )
    statuses = tuple(
        StatusView(org.name or org.org, org.status, EXPERIENCE_STATUS.get(org.status, org.status), org.reason)
        for org in part.orgs
        if org.status != "ok"
    )
    return ExperienceView(part.patient, part.text, part.error, tuple(rows), statuses)
