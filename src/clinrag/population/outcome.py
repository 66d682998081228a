"""What a population question came to, wherever it was counted: the merged aggregate and each organisation's part.

One node (``clinrag ask --node``) and the federation (``clinrag ask --as``) both produce a `PopulationOutcome`, so
the answer (`clinrag.generate.population_answer`) reads one shape. An `OrgPart` says how the organisation took part
(``ok``, ``refused``, ``denied``, ``unreachable``, ``error``), the departments counted and those the asker's
policies denied (never counted), and carries its aggregate — counts only, never a patient.

Example:
    >>> from clinrag.population.merge import merge
    >>> from clinrag.population.query import PopulationQuery
    >>> from clinrag.population.results import Count, OrgAggregate
    >>> query = PopulationQuery()
    >>> part = OrgPart(org="A", status="ok", counted=("medicine",),
    ...                aggregate=OrgAggregate(org="A", query=query, total=Count.exact(7)))
    >>> outcome = PopulationOutcome.of(query, [part])
    >>> outcome.merged.total.text(5), outcome.parts[0].counted
    ('7', ('medicine',))
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from clinrag.population.merge import merge
from clinrag.population.query import PopulationQuery
from clinrag.population.results import MergedAggregate, OrgAggregate, OrgStatus, Status


class OrgPart(BaseModel):
    """One organisation's part in a population answer: status, why, departments counted and denied, its aggregate
    (None unless it counted), and the seconds it took."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    org: str
    name: str = ""
    status: Status
    reason: str = ""
    counted: tuple[str, ...] = ()
    denied: tuple[str, ...] = Field((), description="Routers and departments the asker's policies denied: not counted.")
    aggregate: OrgAggregate | None = None
    seconds: float = 0.0

    @property
    def label(self) -> str:
        """``Hospital A`` or the org code."""
        return self.name or self.org


class PopulationOutcome(BaseModel):
    """A query counted: the root's (or the one node's) merged aggregate and every organisation's part."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    query: PopulationQuery
    merged: MergedAggregate
    parts: tuple[OrgPart, ...] = ()

    @classmethod
    def of(cls, query: PopulationQuery, parts: Sequence[OrgPart]) -> PopulationOutcome:
        """Merge the parts' aggregates (`population.merge`); parts without one are listed by their status."""
        aggregates = [part.aggregate for part in parts if part.aggregate is not None]
        others = [
            OrgStatus(org=part.org, status=part.status, reason=part.reason) for part in parts if part.aggregate is None
        ]
        return cls(query=query, merged=merge(query, aggregates, others), parts=tuple(parts))
