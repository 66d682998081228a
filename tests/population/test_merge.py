"""The root's sum over organisations: exact parts add exactly, suppressed parts make bounds, nothing is subtracted."""

from __future__ import annotations

from pathlib import Path

from clinrag.population.count import count
from clinrag.population.merge import merge
from clinrag.population.query import Measure, PopulationQuery
from clinrag.population.results import Cell, Count, MergedAggregate, OrgAggregate, OrgStatus, UnknownTerm
from clinrag.population.tables import materialise

from .truth import Truth

QUERY = PopulationQuery(measure=Measure(kind="top", of="insurance", n=2), unit="admission")


def _part(org: str, cells: dict[str, Count], total: Count, unknown: tuple[str, ...] = ()) -> OrgAggregate:
    return OrgAggregate(
        org=org,
        query=QUERY,
        total=total,
        rows=tuple(Cell(item=item, count=c) for item, c in cells.items()),
        unknown=tuple(UnknownTerm(criterion="medication x", term=t, nearest=(f"{t}-{org}",)) for t in unknown),
    )


def test_sums_bounds_ranking_and_statuses() -> None:
    a = _part(
        "A",
        {"Medicare": Count.exact(40), "Medicaid": Count.small(5), "Other": Count.exact(9)},
        Count.exact(52),
        ("foo", "bar"),
    )
    b = _part("B", {"Medicare": Count.exact(7), "Medicaid": Count.exact(30)}, Count.exact(37), ("foo",))
    c = OrgAggregate(org="C", query=QUERY, status="refused", reason="refused: would reveal")
    merged = merge(QUERY, [a, b, c], [OrgStatus(org="D", status="denied", reason="no access")])
    assert merged.total == Count.exact(89)
    rows = {r.item: r.count for r in merged.rows}
    assert list(rows) == ["Medicare", "Medicaid"]  # top 2 of the sum
    assert rows["Medicare"] == Count.exact(47)
    assert rows["Medicaid"] == Count.between(31, 34)
    assert rows["Medicaid"].text(5) == "≥31"
    assert merged.contributed == ("A", "B")
    assert {s.org: s.status for s in merged.statuses} == {"A": "ok", "B": "ok", "C": "refused", "D": "denied"}
    assert [u.term for u in merged.unknown] == ["foo"]  # "bar" is known at B
    assert merged.unknown[0].nearest == ("foo-A", "foo-B")
    assert MergedAggregate.model_validate_json(merged.model_dump_json()) == merged


def test_small_parts_stay_small() -> None:
    q = PopulationQuery()
    merged = merge(
        q, [OrgAggregate(org="A", query=q, total=Count.small(5)), OrgAggregate(org="B", query=q, total=Count.exact(0))]
    )
    assert merged.total is not None
    assert merged.total.text(5) == "<5"
    two = merge(
        q, [OrgAggregate(org="A", query=q, total=Count.small(5)), OrgAggregate(org="B", query=q, total=Count.small(5))]
    )
    assert two.total == Count.between(2, 8)
    assert two.total.text(5) == "≥2"


def test_merged_counts_equal_the_summed_truth(cohort: Path, tmp_path: Path) -> None:
    query = PopulationQuery(group_by=("org", "dept"), unit="admission")
    parts, truth_total = [], 0
    for org in "ABC":
        path = materialise(cohort / "hospitals" / org, tmp_path / org / "population.duckdb").path
        parts.append(count(query, path, allowed_depts=None, text_matches={}, min_cell=1, org=org))
        truth_total += Truth(cohort / "hospitals" / org).answer(query, None)[0]
    merged = merge(query, parts)
    assert merged.total == Count.exact(truth_total)
    assert sum(r.count.estimate for r in merged.rows) == truth_total
    assert {r.group["org"] for r in merged.rows} == {"A", "B", "C"}
