"""Counting at a node: every count equals the truth computed independently from the CSVs (tests/population/truth.py),
for every asker's departments; small cells, the difference refusal and unknown terms."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest

from clinrag.population.count import count
from clinrag.population.matches import TextMatch
from clinrag.population.query import (
    CodeCriterion,
    Measure,
    MedicationCriterion,
    PopulationQuery,
    RangeCriterion,
    TextCriterion,
    ValueCriterion,
)
from clinrag.population.results import Count, OrgAggregate
from clinrag.population.tables import PopulationTablesMissingError, materialise

from .truth import Truth

ALCOHOL = TextCriterion(phrase="reports alcohol use")


@pytest.fixture(scope="module")
def nodes(cohort: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("population")
    return {org: materialise(cohort / "hospitals" / org, out / org / "population.duckdb").path for org in "ABC"}


@pytest.fixture(scope="module")
def truths(cohort: Path) -> dict[str, Truth]:
    return {org: Truth(cohort / "hospitals" / org) for org in "ABC"}


def _alcohol(cohort: Path, org: str, truth: Truth) -> list[TextMatch]:
    """Stand-in text matches: every note mentioning alcohol (text matching itself is tested elsewhere)."""
    with (cohort / "hospitals" / org / "note" / "discharge.csv").open(newline="") as handle:
        return [
            TextMatch(int(r["subject_id"]), int(r["hadm_id"]), truth.stays[int(r["hadm_id"])].dept, r["note_id"], "…")
            for r in csv.DictReader(handle)
            if "alcohol" in r["text"].lower()
        ]


def _frequent(truth: Truth) -> tuple[str, str, str]:
    """A frequent diagnosis code, procedure prefix and drug of the hospital (so the queries select someone)."""
    diagnoses = Counter(c for s in truth.stays.values() for _, c in s.diagnoses)
    procedures = Counter(c[:3] for s in truth.stays.values() for c in s.procedures)
    drugs = Counter(d.split()[0] for s in truth.stays.values() for d in s.drugs)
    return diagnoses.most_common(1)[0][0], procedures.most_common(1)[0][0], drugs.most_common(1)[0][0]


def _queries(truth: Truth) -> list[PopulationQuery]:
    diagnosis, procedure, drug = _frequent(truth)
    dept = sorted({s.dept for s in truth.stays.values()})[0]
    top = [
        PopulationQuery(measure=Measure(kind="top", of=of, n=5), unit=unit)  # type: ignore[arg-type]
        for of in ("diagnosis", "procedure", "medication", "insurance", "admission_type", "dept", "complication")
        for unit in ("patient", "admission")
    ]
    return [
        PopulationQuery(),
        PopulationQuery(unit="admission"),
        PopulationQuery(cohort=(CodeCriterion(kind="diagnosis", prefixes=(diagnosis,)),)),
        PopulationQuery(cohort=(CodeCriterion(kind="diagnosis", prefixes=(diagnosis[:1], "Z99")),), unit="admission"),
        PopulationQuery(cohort=(CodeCriterion(kind="procedure", prefixes=(procedure,)),)),
        PopulationQuery(cohort=(MedicationCriterion(drugs=(drug,)),)),
        PopulationQuery(cohort=(MedicationCriterion(drugs=(drug.upper(), "acetaminophen")),), unit="admission"),
        PopulationQuery(cohort=(ValueCriterion(kind="dept", values=(dept,)),)),
        PopulationQuery(cohort=(ValueCriterion(kind="service", values=("ORTHOPAEDICS", "MED", "NEUROLOGY")),)),
        PopulationQuery(cohort=(ValueCriterion(kind="admission_type", values=("EW EMER.", "elective")),)),
        PopulationQuery(cohort=(ValueCriterion(kind="insurance", values=("Medicare", "Medicaid")),), unit="admission"),
        PopulationQuery(cohort=(ValueCriterion(kind="sex", values=("F",)),)),
        PopulationQuery(cohort=(RangeCriterion(kind="age", low=65),)),
        PopulationQuery(cohort=(RangeCriterion(kind="year", low=2015, high=2019),), unit="admission"),
        PopulationQuery(
            cohort=(CodeCriterion(kind="diagnosis", prefixes=(diagnosis,)), ValueCriterion(kind="sex", values=("M",)))
        ),
        PopulationQuery(cohort=(ALCOHOL,)),
        PopulationQuery(
            cohort=(ALCOHOL, RangeCriterion(kind="age", high=60)), measure=Measure(kind="top", of="diagnosis")
        ),
        PopulationQuery(
            cohort=(ValueCriterion(kind="insurance", values=("Medicare",)),), measure=Measure(kind="share")
        ),
        PopulationQuery(
            measure=Measure(kind="share"),
            unit="admission",
            group_by=("dept",),
            cohort=(RangeCriterion(kind="age", low=50),),
        ),
        PopulationQuery(group_by=("year",), unit="admission"),
        PopulationQuery(group_by=("dept",)),
        PopulationQuery(group_by=("org", "year"), cohort=(ValueCriterion(kind="sex", values=("F",)),)),
        PopulationQuery(
            group_by=("dept",),
            measure=Measure(kind="top", of="medication"),
            cohort=(CodeCriterion(kind="procedure", prefixes=(procedure[:1],)),),
        ),
        *top,
    ]


def _check(
    result: OrgAggregate,
    truth: Truth,
    query: PopulationQuery,
    allowed: frozenset[str] | None,
    text: dict[object, set[int]],
) -> None:
    total, denominator, cells = truth.answer(query, allowed, text)
    assert result.status == "ok", result.reason
    assert result.total == Count.exact(total), query.describe()
    if query.measure.kind == "share":
        assert result.denominator == Count.exact(denominator)
    got = {(tuple(c.group[g] for g in query.group_by), c.item): c.count.value for c in result.rows}
    if query.measure.kind == "share" and query.group_by:
        dens = truth.denominators(query, allowed)
        assert {tuple(c.group[g] for g in query.group_by): c.denominator for c in result.rows} == {
            k: Count.exact(v) for k, v in dens.items()
        }
        got = {k: v for k, v in got.items() if v}
    if query.group_by or query.measure.kind == "top":
        assert got == cells, query.describe()


@pytest.mark.parametrize(
    ("org", "allowed"),
    [
        ("A", None),
        ("A", frozenset({"admissions", "medicine"})),
        ("A", frozenset({"surgery", "orthopaedics", "psychiatry"})),
        ("A", frozenset({"admissions"})),
        ("B", None),
        ("C", frozenset({"neurology"})),
    ],
)
def test_counts_equal_the_truth(
    nodes: dict[str, Path], truths: dict[str, Truth], cohort: Path, org: str, allowed: frozenset[str] | None
) -> None:
    truth = truths[org]
    matches = _alcohol(cohort, org, truth)
    text = {ALCOHOL: {m.hadm_id for m in matches if m.hadm_id is not None and (allowed is None or m.dept in allowed)}}
    queries = _queries(truth)
    assert len(queries) >= 20
    for query in queries:
        given = {ALCOHOL: matches} if ALCOHOL in query.cohort else {}
        result = count(query, nodes[org], allowed_depts=allowed, text_matches=given, min_cell=1, org=org)
        _check(result, truth, query, allowed, text)  # type: ignore[arg-type]


def test_small_cells_are_suppressed_never_subtracted(nodes: dict[str, Path], truths: dict[str, Truth]) -> None:
    query = PopulationQuery(measure=Measure(kind="top", of="diagnosis"), unit="admission")
    result = count(query, nodes["A"], allowed_depts=None, text_matches={}, min_cell=5, org="A")
    total, _, cells = truths["A"].answer(query, None)
    assert result.total == Count.exact(total)
    for cell in result.rows:
        true = cells[(), cell.item]
        assert cell.count == (Count.small(5) if true < 5 else Count.exact(true))
        assert cell.count.text(5) == ("<5" if true < 5 else str(true))
    assert any(c.count.suppressed for c in result.rows)


def test_a_tiny_cohort_is_suppressed_whole(nodes: dict[str, Path], truths: dict[str, Truth]) -> None:
    stay = next(iter(truths["C"].stays.values()))
    query = PopulationQuery(
        cohort=(
            RangeCriterion(kind="year", low=stay.year, high=stay.year),
            RangeCriterion(kind="age", low=stay.age, high=stay.age),
        ),
        group_by=("dept",),
    )
    total, _, _ = truths["C"].answer(query, None)
    result = count(query, nodes["C"], allowed_depts=None, text_matches={}, min_cell=total + 1, org="C")
    assert result.status == "ok"
    assert result.total is not None
    assert result.total.text(total + 1) == f"<{total + 1}"
    assert all(c.count.suppressed for c in result.rows)


def test_revealing_a_hidden_cell_by_difference_is_refused(nodes: dict[str, Path], truths: dict[str, Truth]) -> None:
    query = PopulationQuery(group_by=("year",), unit="admission")
    _, _, cells = truths["A"].answer(query, None)
    for min_cell in range(2, max(cells.values()) + 1):
        hidden = [v for v in cells.values() if v < min_cell]
        result = count(query, nodes["A"], allowed_depts=None, text_matches={}, min_cell=min_cell, org="A")
        if hidden and sum(hidden) < min_cell:  # the total minus the shown years would give the hidden ones
            assert result.status == "refused"
            assert "hidden" in result.reason
            assert result.total is None
            assert not result.rows
            break
        assert result.status == "ok"
    else:
        pytest.fail("no threshold hides a small remainder")


def test_share_hides_a_small_complement(nodes: dict[str, Path], truths: dict[str, Truth]) -> None:
    query = PopulationQuery(measure=Measure(kind="share"), cohort=(RangeCriterion(kind="age", low=0),))
    total, denominator, _ = truths["B"].answer(query, None)
    assert total == denominator
    result = count(query, nodes["B"], allowed_depts=None, text_matches={}, min_cell=5, org="B")
    assert result.total == Count.exact(total)  # nobody outside: nothing to hide
    narrower = PopulationQuery(
        measure=Measure(kind="share"), cohort=(RangeCriterion(kind="age", low=0, high=200),), unit="admission"
    )
    assert count(narrower, nodes["B"], allowed_depts=None, text_matches={}, min_cell=5, org="B").total is not None


def test_unknown_terms_are_reported_with_the_nearest(nodes: dict[str, Path], truths: dict[str, Truth]) -> None:
    _, _, drug = _frequent(truths["A"])
    query = PopulationQuery(
        cohort=(
            MedicationCriterion(drugs=(drug + "x", drug)),
            CodeCriterion(kind="diagnosis", prefixes=("Q999Z",)),
            ValueCriterion(kind="insurance", values=("Medicar",)),
        )
    )
    result = count(query, nodes["A"], allowed_depts=None, text_matches={}, min_cell=5, org="A")
    unknown = {u.term: u.nearest for u in result.unknown}
    assert set(unknown) == {drug + "x", "Q999Z", "Medicar"}
    assert any(n.startswith(drug) for n in unknown[drug + "x"])
    assert "Medicare" in unknown["Medicar"]
    assert unknown["Q999Z"]
    assert all(n.startswith("Q") for n in unknown["Q999Z"])


def test_a_node_without_tables_names_the_folder_and_the_command(tmp_path: Path) -> None:
    with pytest.raises(PopulationTablesMissingError, match=r"clinrag ingest") as error:
        count(
            PopulationQuery(), tmp_path / "population.duckdb", allowed_depts=None, text_matches={}, min_cell=5, org="A"
        )
    assert str(tmp_path) in str(error.value)


def test_evidence_is_a_few_sentences_of_the_cohort(
    nodes: dict[str, Path], truths: dict[str, Truth], cohort: Path
) -> None:
    matches = _alcohol(cohort, "A", truths["A"])
    result = count(
        PopulationQuery(cohort=(ALCOHOL,)),
        nodes["A"],
        allowed_depts=None,
        text_matches={ALCOHOL: matches},
        min_cell=1,
        org="A",
    )
    assert 0 < len(result.evidence) <= 3
    assert {e.chunk_id for e in result.evidence} <= {m.chunk_id for m in matches}
    assert "subject_id" not in result.model_dump_json()
