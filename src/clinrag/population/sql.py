"""A population query compiled to parameterised DuckDB SQL over the tables of `population.tables`.

The SQL text is built only from this module's constants and the query's shape (which criteria, how many values);
every value (codes, drugs, ages, admission ids, the visible document classes) is a bound parameter.

Semantics: an admission is in the cohort when every criterion holds for it (AND), each criterion holding when any
of its values does (OR); counts are distinct patients or admissions. The asker sees an admission when they may see
its department's documents (clinical facts: department, service, codes, drugs, complaints, text) or its
administrative row in the admissions department (admission type, insurance); year, age and sex come with either.
Each fact counts only if its own document class is visible.

Example:
    >>> from clinrag.population.query import Measure, PopulationQuery, RangeCriterion
    >>> sql = compile_query(PopulationQuery(cohort=(RangeCriterion(kind="age", low=65),)), "A", [0, 1], {})
    >>> sql.params["p0"], "s.age >= $p0" in sql.cohort
    (65, True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from clinrag.ingest.source import SourceConfig
from clinrag.population.query import (
    CodeCriterion,
    Criterion,
    MedicationCriterion,
    PopulationQuery,
    RangeCriterion,
    TextCriterion,
    ValueCriterion,
)
from clinrag.population.tables import normalise_drug

EXCLUSIVE_ITEMS: Final = frozenset({"insurance", "admission_type", "dept"})
"""Top-N items an admission has exactly one of: their rows each count a part of the total."""

_FACTS: Final = {"diagnosis": "diagnoses", "procedure": "procedures"}
_ITEMS: Final = {
    "diagnosis": ("JOIN diagnoses f ON f.hadm_id = c.hadm_id AND list_contains($vis, f.class_id)", "f.code", "f.title"),
    "complication": (
        "JOIN diagnoses f ON f.hadm_id = c.hadm_id AND list_contains($vis, f.class_id) AND f.seq_num > 1",
        "f.code",
        "f.title",
    ),
    "procedure": (
        "JOIN procedures f ON f.hadm_id = c.hadm_id AND list_contains($vis, f.class_id)",
        "f.code",
        "f.title",
    ),
    "medication": ("JOIN prescriptions f ON f.hadm_id = c.hadm_id AND list_contains($vis, f.class_id)", "f.drug", "''"),
    "chief_complaint": (
        "JOIN complaints f ON f.hadm_id = c.hadm_id AND list_contains($vis, f.class_id)",
        "f.complaint",
        "''",
    ),
    "insurance": ("", "CASE WHEN c.adm_ok THEN c.insurance END", "''"),
    "admission_type": ("", "CASE WHEN c.adm_ok THEN c.admission_type END", "''"),
    "dept": ("", "CASE WHEN c.clin_ok THEN c.dept END", "''"),
}
_GROUPS: Final = {"org": "$org", "dept": "c.gdept", "year": "CAST(c.year AS VARCHAR)"}
_VALUE_COLUMNS: Final = {
    "service": ("s.clin_ok", "upper(s.service)"),
    "dept": ("s.clin_ok", "lower(s.dept)"),
    "admission_type": ("s.adm_ok", "upper(s.admission_type)"),
    "insurance": ("s.adm_ok", "upper(s.insurance)"),
    "sex": ("TRUE", "upper(s.sex)"),
}


@dataclass
class CompiledQuery:
    """The SQL pieces of one query and their parameters (``$name`` placeholders)."""

    base: str
    cohort: str
    params: dict[str, object] = field(default_factory=dict)

    def counts(self, source: str, groups: Sequence[str], unit: str) -> str:
        """Distinct units of ``source`` (``cohort`` or ``seen``) per group (none: one row)."""
        keys = [f"{_GROUPS[g]} AS g_{g}" for g in groups]
        select = ", ".join([*keys, f"count(DISTINCT c.{unit}) AS n"])
        grouping = " GROUP BY ALL" if groups else ""
        return f"{self.base} SELECT {select} FROM {source} c{grouping}"

    def top(self, of: str, groups: Sequence[str], unit: str, limit: int) -> str:
        """Distinct units of the cohort per group and item, most frequent first."""
        join, item, label = _ITEMS[of]
        keys = [f"{_GROUPS[g]} AS g_{g}" for g in groups]
        select = ", ".join([*keys, f"{item} AS item", f"any_value({label}) AS label", f"count(DISTINCT c.{unit}) AS n"])
        return (
            f"{self.base} SELECT {select} FROM cohort c {join} WHERE {item} IS NOT NULL "
            f"GROUP BY ALL ORDER BY n DESC, item LIMIT {int(limit)}"
        )


class _Params:
    def __init__(self) -> None:
        self.values: dict[str, object] = {}
        self.used = 0

    def add(self, value: object) -> str:
        name = f"p{self.used}"
        self.used += 1
        self.values[name] = value
        return f"${name}"


def _any(column: str, values: Sequence[str], params: _Params) -> str:
    return "(" + " OR ".join(f"{column} = {params.add(v)}" for v in values) + ")"


def _predicate(criterion: Criterion, params: _Params, text_admissions: Mapping[TextCriterion, Sequence[int]]) -> str:
    if isinstance(criterion, CodeCriterion):
        prefixes = " OR ".join(f"starts_with(f.code, {params.add(p.upper())})" for p in criterion.prefixes)
        return (
            f"EXISTS (SELECT 1 FROM {_FACTS[criterion.kind]} f WHERE f.hadm_id = s.hadm_id "
            f"AND f.version = {params.add(criterion.version)} AND list_contains($vis, f.class_id) AND ({prefixes}))"
        )
    if isinstance(criterion, MedicationCriterion):
        drugs = []
        for drug in criterion.drugs:
            name = params.add(normalise_drug(drug))
            drugs.append(f"f.drug = {name} OR starts_with(f.drug, {name} || ' ')")
        return (
            "EXISTS (SELECT 1 FROM prescriptions f WHERE f.hadm_id = s.hadm_id AND list_contains($vis, f.class_id) "
            f"AND ({' OR '.join(drugs)}))"
        )
    if isinstance(criterion, ValueCriterion):
        gate, column = _VALUE_COLUMNS[criterion.kind]
        if criterion.kind == "service":
            values = [SourceConfig(org="").service_code(v) or v for v in criterion.values]
        else:
            values = [v.lower() if criterion.kind == "dept" else v.upper() for v in criterion.values]
        return f"({gate} AND {_any(column, values, params)})"
    if isinstance(criterion, RangeCriterion):
        column = "s.age" if criterion.kind == "age" else "s.year"
        ends = []
        if criterion.low is not None:
            ends.append(f"{column} >= {params.add(criterion.low)}")
        if criterion.high is not None:
            ends.append(f"{column} <= {params.add(criterion.high)}")
        return "(" + " AND ".join(ends) + ")"
    return f"(s.clin_ok AND list_contains({params.add(sorted(text_admissions.get(criterion, ())))}, s.hadm_id))"


def compile_query(
    query: PopulationQuery,
    org: str,
    visible: Sequence[int],
    text_admissions: Mapping[TextCriterion, Sequence[int]],
    admissions_leaf: str = "admissions",
) -> CompiledQuery:
    """The CTEs ``seen`` (admissions the asker sees) and ``cohort`` (those meeting every criterion) with their
    parameters; ``text_admissions`` gives the admissions each text criterion's verified matches name."""
    params = _Params()
    params.values.update({"vis": sorted(visible), "org": org, "admleaf": admissions_leaf})
    predicates = [_predicate(criterion, params, text_admissions) for criterion in query.cohort]
    base = (
        "WITH u AS (SELECT a.*, list_contains($vis, a.clin_class) AS clin_ok, "
        "list_contains($vis, a.adm_class) AS adm_ok FROM admissions a), "
        "seen AS (SELECT *, CASE WHEN clin_ok THEN dept ELSE $admleaf END AS gdept FROM u WHERE clin_ok OR adm_ok), "
        f"cohort AS (SELECT * FROM seen s WHERE {' AND '.join(predicates) or 'TRUE'})"
    )
    return CompiledQuery(base=base, cohort=" AND ".join(predicates), params=params.values)
