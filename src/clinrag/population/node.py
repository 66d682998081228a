"""A population query at one node folder: text criteria matched, then counted, for an asker (or for everyone).

`count_at_node` is what both faces run: ``clinrag ask --node DIR`` with no asker (every department and chunk may
be read), and the federation's node for a verified user (the departments its Cedar search gates allow, every
supporting chunk checked with the retrieve policy, every document class with `count.cedar_may_see`). Only the
`OrgAggregate` leaves: counts, suppressed small cells, example sentences for text criteria.

`node_terms` reads what a question may name from the node's population tables (the ICD dictionary, which is public
knowledge, and the drugs, services, admission types and insurances of the departments the asker may see), and
`NodeTerms.vocabulary` turns it, or several nodes' at once, into the parser's `Vocabulary`.

Example:
    >>> import tempfile, pathlib
    >>> from clinrag.ingest.synthetic.cohort import generate_cohort
    >>> from clinrag.population.query import CodeCriterion, PopulationQuery
    >>> from clinrag.population.tables import materialise, population_path
    >>> out = pathlib.Path(tempfile.mkdtemp())
    >>> _ = generate_cohort(out, patients=20, seed=3, workers=1)
    >>> _ = materialise(out / "hospitals" / "A", population_path(out / "A"))
    >>> query = PopulationQuery(cohort=(CodeCriterion(kind="diagnosis", prefixes=("I",)),))
    >>> LocalCounter(out / "A", min_cell=1).count(query).parts[0].status
    'ok'
"""

from __future__ import annotations

import logging
import time
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from clinrag.population import vocabulary as vocab
from clinrag.population.count import count
from clinrag.population.outcome import OrgPart, PopulationOutcome
from clinrag.population.query import PopulationQuery
from clinrag.population.results import OrgAggregate
from clinrag.population.tables import MaySee, connect, document_classes, meta, population_path
from clinrag.population.text import MayRead, allow_all, text_matches_of

log = logging.getLogger("clinrag.population")

MAX_TERMS = 200_000
"""Most entries of one list of `NodeTerms` (MIMIC's ICD-10 dictionary has ~74,000 diagnoses)."""


def count_at_node(
    node_dir: Path,
    query: PopulationQuery,
    *,
    min_cell: int,
    depts: Collection[str] | None = None,
    may_read: MayRead = allow_all,
    may_see: MaySee | None = None,
) -> OrgAggregate:
    """Count ``query`` over the node folder ``node_dir`` (``chunks.sqlite`` and ``population.duckdb``) for an
    asker who may read ``depts`` (None: all), each supporting chunk checked by ``may_read`` and each document
    class by ``may_see``.

    Raises:
        PopulationTablesMissing: the folder has no population tables.
    """
    started = time.perf_counter()
    allowed = frozenset(depts) if depts is not None else None
    path = population_path(node_dir)
    with connect(path) as connection:  # PopulationTablesMissing before any text is read
        org = meta(connection)["org"]
    matches = text_matches_of(query.cohort, node_dir, depts=allowed, may_read=may_read)
    aggregate = count(
        query, path, allowed_depts=allowed, text_matches=matches, min_cell=min_cell, org=org, may_see=may_see
    )
    log.info(
        "population org=%s status=%s criteria=%d depts=%s %.0f ms",
        org,
        aggregate.status,
        len(query.cohort),
        "all" if allowed is None else len(allowed),
        (time.perf_counter() - started) * 1000,
    )
    return aggregate


class LocalCounter:
    """One node folder as a population counter (``clinrag ask --node``): everything in it may be counted.

    Example:
        >>> LocalCounter(Path("data/demo/nodes/A"), min_cell=5).node_dir.name
        'A'
    """

    def __init__(self, node_dir: Path, min_cell: int) -> None:
        self.node_dir = node_dir
        self.min_cell = min_cell

    def count(self, query: PopulationQuery, orgs: Sequence[str] = ()) -> PopulationOutcome:
        """The node's aggregate as a `PopulationOutcome` (``orgs``: the organisations the question names; a node
        not among them is listed as not asked)."""
        started = time.perf_counter()
        with connect(population_path(self.node_dir)) as connection:
            org = meta(connection)["org"]
            depts = tuple(sorted({c.leaf for c in document_classes(connection)}))
        if orgs and org not in orgs:
            part = OrgPart(org=org, status="denied", reason="not among the organisations the question names")
            return PopulationOutcome.of(query, [part])
        aggregate = count_at_node(self.node_dir, query, min_cell=self.min_cell)
        part = OrgPart(
            org=org,
            status=aggregate.status,
            reason=aggregate.reason,
            counted=depts,
            aggregate=aggregate,
            seconds=time.perf_counter() - started,
        )
        return PopulationOutcome.of(query, [part])

    def vocabulary(self) -> vocab.Vocabulary:
        """The parser's vocabulary of the node (`node_terms`)."""
        return node_terms(self.node_dir).vocabulary()


class NodeTerms(BaseModel):
    """What a question may name at one node, as it travels (`POST /v1/vocabulary`): ICD-10 codes with titles
    (the node's dictionary), and the drugs, services (with their departments), admission types and insurances of
    the departments the asker may see."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    org: str = Field(min_length=1, max_length=100)
    name: str = Field("", max_length=200)
    diagnoses: tuple[tuple[str, str], ...] = Field((), max_length=MAX_TERMS)
    procedures: tuple[tuple[str, str], ...] = Field((), max_length=MAX_TERMS)
    drugs: tuple[str, ...] = Field((), max_length=MAX_TERMS)
    services: tuple[tuple[str, str], ...] = Field((), max_length=MAX_TERMS)
    admission_types: tuple[str, ...] = Field((), max_length=MAX_TERMS)
    insurances: tuple[str, ...] = Field((), max_length=MAX_TERMS)

    def vocabulary(self, others: Iterable[NodeTerms] = (), names: dict[str, str] | None = None) -> vocab.Vocabulary:
        """The parser's vocabulary of these terms and ``others`` (the root reads questions with every node's),
        ICD-10-CM category titles added (MIMIC's dictionary lists billable codes only); ``names`` labels the
        organisations ("A": "Hospital A"; "Hospital A" is understood without it too).

        Example:
            >>> terms = NodeTerms(org="A", insurances=("Medicare",))
            >>> dict(terms.vocabulary([NodeTerms(org="B")], {"A": "St Mary's"}).organisations)
            {'A': "St Mary's"}
        """
        every = [self, *others]
        diagnoses = [pair for terms in every for pair in terms.diagnoses]
        headers = _headers() if diagnoses else {}
        labels = names or {}
        return vocab.Vocabulary.build(
            diagnoses=[*headers.items(), *diagnoses],
            procedures=[pair for terms in every for pair in terms.procedures],
            drugs=[drug for terms in every for drug in terms.drugs],
            services=[pair for terms in every for pair in terms.services],
            admission_types=[value for terms in every for value in terms.admission_types],
            insurances=[value for terms in every for value in terms.insurances],
            # An organisation is named by its label only when it has one: a bare code ("A") would read the article.
            organisations=[(t.org, name) for t in every if (name := labels.get(t.org) or t.name) and name != t.org],
        )


def _headers() -> dict[str, str]:
    # vocabulary.py keeps the ICD-10-CM category titles private; it is the one place that reads them.
    return vocab._diagnosis_headers()


_VISIBLE_SQL = {
    "drugs": "SELECT DISTINCT drug FROM prescriptions WHERE list_contains($vis, class_id) ORDER BY 1",
    "services": "SELECT DISTINCT service, dept FROM admissions WHERE list_contains($vis, clin_class) ORDER BY 1, 2",
    "admission_types": "SELECT DISTINCT admission_type FROM admissions WHERE list_contains($vis, adm_class) ORDER BY 1",
    "insurances": "SELECT DISTINCT insurance FROM admissions WHERE list_contains($vis, adm_class) ORDER BY 1",
}


_DICTIONARY_SQL = dict.fromkeys(
    ("diagnosis", "procedure"),
    "SELECT code, any_value(title) FROM icd WHERE kind = $kind AND version = 10 GROUP BY code ORDER BY code",
)
_RECORDED_SQL = {
    kind: f"SELECT code, any_value(title) FROM {table} WHERE version = 10 AND list_contains($vis, class_id) "
    "GROUP BY code ORDER BY code"
    for kind, table in (("diagnosis", "diagnoses"), ("procedure", "procedures"))
}


def node_terms(
    node_dir: Path,
    depts: Collection[str] | None = None,
    may_see: MaySee | None = None,
    *,
    dictionary: bool = True,
) -> NodeTerms:
    """The `NodeTerms` of a node folder for an asker who may see ``depts`` (None: all) and the document classes
    ``may_see`` allows. ``dictionary``: every ICD-10 code of the node's dictionary (public knowledge; ~140,000
    titles), else only the codes recorded in what the asker may see (a few hundred: what a node sends the root).

    Raises:
        PopulationTablesMissing: the folder has no population tables.
    """
    with connect(population_path(node_dir)) as connection:
        org = meta(connection)["org"]
        visible = [
            c.class_id
            for c in document_classes(connection)
            if (depts is None or c.leaf in depts) and (may_see is None or may_see(c))
        ]
        found = {name: connection.execute(sql, {"vis": visible}).fetchall() for name, sql in _VISIBLE_SQL.items()}
        codes = {
            kind: tuple(
                (str(code), str(title or ""))
                for code, title in connection.execute(
                    *(
                        (_DICTIONARY_SQL[kind], {"kind": kind})
                        if dictionary
                        else (_RECORDED_SQL[kind], {"vis": visible})
                    )
                ).fetchall()
            )
            for kind in ("diagnosis", "procedure")
        }
    return NodeTerms(
        org=org,
        diagnoses=codes["diagnosis"],
        procedures=codes["procedure"],
        drugs=tuple(str(row[0]) for row in found["drugs"] if row[0]),
        services=tuple((str(row[0]), str(row[1])) for row in found["services"] if row[0]),
        admission_types=tuple(str(row[0]) for row in found["admission_types"] if row[0]),
        insurances=tuple(str(row[0]) for row in found["insurances"] if row[0]),
    )
