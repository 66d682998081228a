"""What leaves a node for a population query, and what the root makes of all nodes: aggregates only.

A `Count` is exact, or a range: a node's small cell is ``1..min_cell-1`` (shown ``<5``); a sum at the root with
suppressed parts is ``≥`` the sum of its known parts plus one per suppressed part. No patient or admission id ever
appears; evidence for text criteria is a chunk id and one shortened sentence.

Example:
    >>> Count.exact(12).text(5), Count.small(5).text(5), (Count.exact(12) + Count.small(5)).text(5)
    ('12', '<5', '≥13')
    >>> Count.model_validate_json(Count.small(5).model_dump_json()) == Count.small(5)
    True
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from clinrag.population.query import PopulationQuery

MAX_EVIDENCE_CHARS: Final = 240


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Count(_Model):
    """A count as reported: ``value`` when exact, else the range [``low``, ``high``] (``high`` None: unbounded)."""

    value: int | None = None
    low: int = Field(0, ge=0)
    high: int | None = None

    @classmethod
    def exact(cls, value: int) -> Count:
        """A count shown as it is."""
        return cls(value=value, low=value, high=value)

    @classmethod
    def small(cls, min_cell: int) -> Count:
        """A suppressed count: somewhere in 1..min_cell-1."""
        return cls(value=None, low=1, high=min_cell - 1)

    @classmethod
    def between(cls, low: int, high: int | None) -> Count:
        """A count known only within [low, high]."""
        return cls(value=None, low=low, high=high)

    @property
    def suppressed(self) -> bool:
        """Whether the exact value is withheld."""
        return self.value is None

    @property
    def estimate(self) -> int:
        """The value when exact, else the lower bound (what rankings sort by)."""
        return self.value if self.value is not None else self.low

    def __add__(self, other: Count) -> Count:
        if self.value is not None and other.value is not None:
            return Count.exact(self.value + other.value)
        high = self.high + other.high if self.high is not None and other.high is not None else None
        return Count.between(self.low + other.low, high)

    def text(self, min_cell: int) -> str:
        """``12``, ``<5`` (every part small), ``≥13`` (known parts plus one per suppressed part)."""
        if self.value is not None:
            return str(self.value)
        if self.high is not None and self.high < min_cell:
            return f"<{min_cell}"
        return f"≥{self.low}"


class Cell(_Model):
    """One row of an aggregate: its group (``{"org": "A", "dept": "medicine", "year": "2019"}``), the ranked item
    for top-N (a code, drug, insurance...; None otherwise) with its ``label``, the count and, for shares, the
    denominator (everyone the asker may see in that group)."""

    group: dict[str, str] = Field(default_factory=dict)
    item: str | None = None
    label: str = ""
    count: Count
    denominator: Count | None = None

    @property
    def share(self) -> float | None:
        """count / denominator when both are exact and the denominator is not zero."""
        if self.denominator is None or self.count.value is None or not self.denominator.value:
            return None
        return self.count.value / self.denominator.value


class UnknownTerm(_Model):
    """A criterion value this node does not know (no such code, drug or value among what the asker may see),
    with the nearest ones it does know."""

    criterion: str
    term: str
    nearest: tuple[str, ...] = ()


class Evidence(_Model):
    """One example sentence behind a text criterion: its chunk and the sentence, shortened."""

    org: str
    phrase: str
    chunk_id: str
    sentence: str = Field(max_length=MAX_EVIDENCE_CHARS + 1)


Status = Literal["ok", "refused", "denied", "unreachable", "error"]


class OrgAggregate(_Model):
    """One organisation's answer to a population query. ``status`` "refused" (with ``reason``) carries no
    numbers; ``total`` is the cohort size (patients or admissions), ``denominator`` everyone the asker may see
    (shares), ``rows`` the grouped or ranked cells (every value for top-N, so the root can rank the sum)."""

    org: str
    query: PopulationQuery
    status: Literal["ok", "refused"] = "ok"
    reason: str = ""
    min_cell: int = Field(5, ge=1)
    total: Count | None = None
    denominator: Count | None = None
    rows: tuple[Cell, ...] = ()
    truncated: bool = False
    notes: tuple[str, ...] = ()
    unknown: tuple[UnknownTerm, ...] = ()
    evidence: tuple[Evidence, ...] = ()


class OrgStatus(_Model):
    """How one organisation took part: ``ok`` (its aggregate is in the sum), ``refused`` (it would have revealed
    a small cell), ``denied`` (the asker may not query it), ``unreachable`` or ``error``."""

    org: str
    status: Status
    reason: str = ""


class MergedAggregate(_Model):
    """The root's sum over organisations: totals and cells added (a sum with suppressed parts is a lower bound,
    or ``<min_cell`` when every part is small), top-N ranked on the sum, and who contributed."""

    query: PopulationQuery
    min_cell: int = Field(5, ge=1)
    statuses: tuple[OrgStatus, ...] = ()
    total: Count | None = None
    denominator: Count | None = None
    rows: tuple[Cell, ...] = ()
    notes: tuple[str, ...] = ()
    unknown: tuple[UnknownTerm, ...] = ()
    evidence: tuple[Evidence, ...] = ()

    @property
    def contributed(self) -> tuple[str, ...]:
        """Organisations whose aggregate is in the sum."""
        return tuple(s.org for s in self.statuses if s.status == "ok")
