"""What a text criterion found in a node's notes: one verified sentence of one admission, with its provenance.

Text matching (``population.text``) produces these; counting (``population.count``) treats the admissions they
name as the admissions that meet the criterion, and the answer quotes a few of them as evidence.

Example:
    >>> match = TextMatch(subject_id=10001, hadm_id=20001, dept="cardiology", chunk_id="c1",
    ...                   sentence="He drinks 6-8 beers daily.")
    >>> match.admission
    (10001, 20001)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TextMatch:
    """One sentence of one note that supports a text criterion (negations already excluded)."""

    subject_id: int
    hadm_id: int | None
    dept: str
    chunk_id: str
    sentence: str

    @property
    def admission(self) -> tuple[int, int | None]:
        """The (patient, admission) the sentence belongs to."""
        return (self.subject_id, self.hadm_id)
