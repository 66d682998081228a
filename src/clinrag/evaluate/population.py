"""Exactness of population questions: each question of ``data/population_questions.jsonl`` asked as a clinician
writes it, planned, counted and answered, and every count shown checked against the independent truth
(`population_truth`) for the asker.

Askers: one node folder with no asker (`LocalCounter`, ``clinrag ask --node``), or a demo user over the three
hospitals, counted in-process by each node's own population endpoint logic (`answer_population`: the same Cedar
gates, document classes and chunk checks as ``POST /v1/population``, minus HTTP). A question is exact for a user
when it is routed to a population query of the expected shape, every organisation has the expected status (ok,
refused by the difference rule, denied), and every count shown — each hospital's total, denominator and rows, the
merged total and rows (``<5``, ``≥``) — equals the truth's; a top-N shows a correct top. A question naming a term
the user may not see anywhere (unknown in their vocabulary) is exact when the truth has nothing for them.

Example:
    >>> questions = load_questions()
    >>> len(questions) >= 60, questions[0].truth[0].measure
    (True, 'top')
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict

from clinrag.access.demo import DEMO_TREES, POLICY_ROOT
from clinrag.access.identity import TokenVerifier, TrustedIssuer
from clinrag.access.policy import PolicyEngine
from clinrag.evaluate.population_truth import EVERYONE, Hospital, OrgTruth, TruthSpec, shown, shown_share, text, truths
from clinrag.federation.audit import AuditLog
from clinrag.federation.config import LeafSpec, NodeConfig, RouterSpec
from clinrag.federation.node import Node
from clinrag.federation.population_node import answer_population, answer_vocabulary
from clinrag.federation.population_root import part_of
from clinrag.federation.protocol import PopulationRequest
from clinrag.federation.tree import NodeTree
from clinrag.generate.planner import Plan, Planner
from clinrag.generate.population_answer import RoutedAnswer
from clinrag.generate.routed import PopulationCounter, answer_routed
from clinrag.index.embed import OnnxMiniLmEmbedder
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.population.node import LocalCounter
from clinrag.population.outcome import PopulationOutcome
from clinrag.population.query import PopulationQuery
from clinrag.population.results import Cell, Count, OrgAggregate
from clinrag.population.vocabulary import Vocabulary
from clinrag.settings import RetrieveSettings
from clinrag.types import Actor, Answer

QUESTIONS_FILE: Final = "population_questions.jsonl"


class Question(BaseModel):
    """One question: its wording, which set it belongs to (``issue``: the issue's five, ``trend``: the fifteen
    trend-style ones, ``more``), whether it has a text criterion, the criterion kinds its query should hold, and
    the truth of each query (one per alternative of a comparison)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    set: Literal["issue", "trend", "more"]
    kind: Literal["coded", "text"]
    question: str
    criteria: tuple[tuple[str, ...], ...]
    truth: tuple[TruthSpec, ...]


def load_questions(path: Path | None = None) -> list[Question]:
    """The packaged question set (or ``path``)."""
    raw = (
        path.read_text(encoding="utf-8")
        if path is not None
        else (resources.files("clinrag.evaluate") / "data" / QUESTIONS_FILE).read_text(encoding="utf-8")
    )
    return [Question.model_validate_json(line) for line in raw.splitlines() if line.strip()]


# --- counting in-process, as each node's endpoint would -----------------------------------------------------------


class InProcessFederation:
    """The demo hospitals' nodes, opened from their folders with the demo's policies (no index, no HTTP): each
    population request runs the node's own `answer_population` for the asker."""

    def __init__(self, node_dirs: Mapping[str, Path], audit_dir: Path, names: Mapping[str, str] | None = None) -> None:
        self.names = dict(names or {org: f"Hospital {org}" for org in node_dirs})
        self.nodes: dict[str, Node] = {}
        embedder = OnnxMiniLmEmbedder(threads=1)  # never loaded: counting embeds nothing
        for org, folder in sorted(node_dirs.items()):
            leaves = tuple(LeafSpec(name=leaf, path=f"{org}/{leaf}", dept=leaf) for leaf in DEMO_TREES[org])
            config = NodeConfig(
                org=org,
                name=self.names[org],
                data=folder,
                policies=POLICY_ROOT / org,
                audit_log=audit_dir / f"{org}.jsonl",
                issuers=(),
                tree=RouterSpec(name=org, path=org, children=leaves),
            )
            tree = NodeTree(config, {}, ChunkStore.open(folder / "chunks.sqlite"), embedder, RetrieveSettings())
            engine = PolicyEngine.load(config.policies)
            verifier = TokenVerifier([TrustedIssuer("http://127.0.0.1:9", org)], "clinrag")  # never asked
            self.nodes[org] = Node(config, tree, engine, verifier, AuditLog(config.audit_log))

    def close(self) -> None:
        """Close every node's chunk store."""
        for node in self.nodes.values():
            node.tree.close()

    def counter(self, actor: Actor) -> UserCounter:
        """A `PopulationCounter` for ``actor``."""
        return UserCounter(self, actor)


class UserCounter:
    """Population queries counted at every node for one user (`PopulationCounter`), and their vocabulary."""

    def __init__(self, federation: InProcessFederation, actor: Actor) -> None:
        self.federation, self.actor = federation, actor

    def count(self, query: PopulationQuery, orgs: Sequence[str] = ()) -> PopulationOutcome:
        """Each node's part, as `FederatedCounter` makes it from the node's reply."""
        parts = []
        for org, node in self.federation.nodes.items():
            if orgs and org not in orgs:
                continue
            started = time.perf_counter()
            reply = answer_population(node, self.actor, PopulationRequest(query=query), node.min_cell)
            name, seconds = self.federation.names[org], time.perf_counter() - started
            parts.append(part_of(org, name, reply, seconds))
        return PopulationOutcome.of(query, parts)

    def vocabulary(self) -> Vocabulary:
        """The union of what each node lets the user name (`answer_vocabulary`)."""
        found = [answer_vocabulary(node, self.actor).terms for node in self.federation.nodes.values()]
        terms = [t for t in found if t is not None]
        if not terms:
            return Vocabulary.build(organisations=self.federation.names.items())
        return terms[0].vocabulary(terms[1:], self.federation.names)


def node_vocabulary(counter: LocalCounter) -> Vocabulary:
    """A one-node run's vocabulary (`LocalCounter.vocabulary`)."""
    return counter.vocabulary()


# --- grading ------------------------------------------------------------------------------------------------------


@dataclass
class Grade:
    """One question asked by one user: exact or not, why not, counts checked and seconds taken."""

    question: str
    user: str
    exact: bool = True
    problems: list[str] = field(default_factory=list)
    checked: int = 0
    seconds: float = 0.0
    route: str = ""

    def fail(self, problem: str) -> None:
        """Record a problem (the question is then not exact)."""
        self.exact = False
        self.problems.append(problem)

    def same(self, what: str, got: str | None, want: str | None) -> None:
        """Check one shown figure."""
        self.checked += 1
        if got != want:
            self.fail(f"{what}: shown {got}, truth {want}")


def _shown(count: Count | None, min_cell: int) -> str | None:
    return count.text(min_cell) if count is not None else None


def _sum(bounds: Iterable[tuple[int, int]]) -> tuple[int, int]:
    lows, highs = zip(*bounds, strict=True) if bounds else ((), ())
    return sum(lows), sum(highs)


def _cell_bounds(truth: OrgTruth, spec: TruthSpec, key: tuple[tuple[str, ...], str | None]) -> tuple[int, int]:
    if spec.measure == "share" and spec.group_by:
        return shown_share(truth.cells.get(key, 0), truth.denominators.get(key[0], 0))[0]
    return shown(truth.cells.get(key, 0))


def _key(cell: Cell, spec: TruthSpec) -> tuple[tuple[str, ...], str | None]:
    return tuple(cell.group.get(g, "") for g in spec.group_by), cell.item


def _check_org(grade: Grade, org: str, aggregate: OrgAggregate, truth: OrgTruth, spec: TruthSpec) -> None:
    m = aggregate.min_cell
    if spec.measure == "share":
        num, den = shown_share(truth.total, truth.denominator or 0)
        grade.same(f"{org} total", _shown(aggregate.total, m), text(num))
        grade.same(f"{org} denominator", _shown(aggregate.denominator, m), text(den))
    else:
        grade.same(f"{org} total", _shown(aggregate.total, m), text(shown(truth.total)))
    seen = set()
    for cell in aggregate.rows:
        key = _key(cell, spec)
        seen.add(key)
        grade.same(f"{org} row {key}", cell.count.text(m), text(_cell_bounds(truth, spec, key)))
        if cell.denominator is not None:
            want = text(shown_share(0, truth.denominators.get(key[0], 0))[1])
            grade.same(f"{org} row {key} denominator", cell.denominator.text(m), want)
    if not aggregate.truncated and (spec.measure == "top" or spec.group_by):
        missing = [k for k, n in truth.cells.items() if n and k not in seen]
        if missing:
            grade.fail(f"{org}: rows missing from the answer: {missing[:5]}")


def _check_merged(grade: Grade, outcome: PopulationOutcome, found: Mapping[str, OrgTruth], spec: TruthSpec) -> None:
    merged, ok = outcome.merged, [t for t in found.values() if t.status == "ok"]
    if not ok:
        if merged.total is not None:
            grade.fail(f"merged total {merged.total.text(merged.min_cell)} with no hospital counting")
        return
    if spec.measure == "share":
        grade.same(
            "total",
            _shown(merged.total, merged.min_cell),
            text(_sum(shown_share(t.total, t.denominator or 0)[0] for t in ok)),
        )
        grade.same(
            "denominator",
            _shown(merged.denominator, merged.min_cell),
            text(_sum(shown(t.denominator or 0) for t in ok)),
        )
    else:
        grade.same("total", _shown(merged.total, merged.min_cell), text(_sum(shown(t.total) for t in ok)))
    keys = {k for t in ok for k in t.cells}
    sums = {k: _sum(_cell_bounds(t, spec, k) for t in ok) for k in keys}
    by_group: dict[tuple[str, ...], list[Cell]] = {}
    for cell in merged.rows:
        key = _key(cell, spec)
        by_group.setdefault(key[0], []).append(cell)
        grade.same(f"row {key}", cell.count.text(merged.min_cell), text(sums.get(key, (0, 0))))
    if spec.measure != "top":
        return
    for group in {k[0] for k, b in sums.items() if b[1]}:
        rows = by_group.get(group, [])
        items = {k[1] for k, b in sums.items() if k[0] == group and b[1]}
        if len(rows) != min(spec.n, len(items)):
            grade.fail(f"top {spec.n} of {group}: {len(rows)} rows for {len(items)} items")
            continue
        floor = min((c.count.estimate for c in rows), default=0)
        shown_items = {c.item for c in rows}
        better = [i for i in items - shown_items if sums[group, i][0] > floor]
        if better:
            grade.fail(f"top {spec.n} of {group}: {better[:3]} rank above a row shown")


_SAME: Final = {"service": "dept"}
"""Criterion kinds that read a question alike: a service names its department ("the neurology department" is the
service NMED to a user who may see no neurology department)."""


def _check_shape(grade: Grade, plan: Plan, question: Question) -> None:
    reading = plan.population
    for query, spec, kinds in zip(reading.queries, question.truth, question.criteria, strict=False):
        measure = query.measure
        shape = (measure.kind, measure.of, measure.n if measure.kind == "top" else None, query.unit)
        want = (spec.measure, spec.of, spec.n if spec.measure == "top" else None, spec.unit)
        if shape != want:
            grade.fail(f"query {query.describe()!r}: measure/unit {shape}, expected {want}")
        if set(query.group_by) != set(spec.group_by):
            grade.fail(f"query grouped by {query.group_by}, expected {spec.group_by}")
        if sorted(_SAME.get(c.kind, c.kind) for c in query.cohort) != sorted(_SAME.get(k, k) for k in kinds):
            grade.fail(f"query criteria {[c.kind for c in query.cohort]}, expected {list(kinds)}")
    if set(reading.orgs) != set(question.truth[0].orgs):
        grade.fail(f"hospitals asked {reading.orgs}, expected {question.truth[0].orgs}")


def grade(
    question: Question, user: str, plan: Plan, answer: RoutedAnswer, found: Sequence[Mapping[str, OrgTruth]]
) -> Grade:
    """Every figure of ``answer`` against the truth ``found`` (one mapping of hospitals per query)."""
    result = Grade(question.id, user, route=plan.route)
    if answer.population is None:
        nothing = all(t.status == "denied" or not t.total for per in found for t in per.values())
        if plan.population.unknown and nothing:
            return result  # the user may see nothing of what the question names: said, and not counted
        result.fail(f"not counted: {plan.reason}")
        return result
    if len(answer.population.results) != len(question.truth):
        result.fail(f"{len(answer.population.results)} queries, expected {len(question.truth)}")
        return result
    _check_shape(result, plan, question)
    for population, spec, per_org in zip(answer.population.results, question.truth, found, strict=True):
        outcome = PopulationOutcome(query=population.query, merged=population.merged, parts=population.orgs)
        parts = {p.org: p for p in population.orgs}
        for org, truth in per_org.items():
            part = parts.get(org)
            status = part.status if part is not None else "absent"
            if status != truth.status:
                result.fail(f"{org}: {status}, expected {truth.status} ({part.reason if part else ''})")
            elif part is not None and part.aggregate is not None and truth.status == "ok":
                _check_org(result, org, part.aggregate, truth, spec)
        extra = [o for o, p in parts.items() if o not in per_org and p.status == "ok"]
        if extra:
            result.fail(f"counted at hospitals not asked: {extra}")
        _check_merged(result, outcome, per_org, spec)
        words = "No " if population.total == "0" and spec.measure == "count" else population.total
        if words is not None and words not in answer.text:
            result.fail(f"total {population.total} not in the answer's words")
    return result


# --- running ------------------------------------------------------------------------------------------------------


def _no_records(question: str) -> Callable[[], Answer]:
    return lambda: Answer(question=question, text="(records retrieval)", generator="none")


def ask(
    question: Question,
    user: str,
    planner: Planner,
    counter: PopulationCounter,
    hospitals: Mapping[str, Hospital],
    label: str = "",
) -> Grade:
    """Plan, count and answer one question for ``user`` (a demo user, or `EVERYONE`), and grade it (reported as
    ``label``, default the user)."""
    started = time.perf_counter()
    plan = planner.plan(question.question)
    answer = answer_routed(plan, counter, _no_records(question.question))
    seconds = time.perf_counter() - started
    found = [truths(hospitals, spec, user) for spec in question.truth]
    result = grade(question, label or user, plan, answer, found)
    result.seconds = seconds
    return result


def run_users(
    questions: Sequence[Question],
    federation: InProcessFederation,
    hospitals: Mapping[str, Hospital],
    users: Iterable[Actor],
) -> list[Grade]:
    """Every question for every user, in-process over the federation's nodes."""
    grades = []
    for actor in users:
        counter = federation.counter(actor)
        planner = Planner(counter.vocabulary(), detect_persons=False)
        grades += [ask(q, actor.subject, planner, counter, hospitals) for q in questions]
    return grades


def run_nodes(
    questions: Sequence[Question], node_dirs: Mapping[str, Path], hospitals: Mapping[str, Hospital]
) -> list[Grade]:
    """Every question at each node folder alone, with no asker (``clinrag ask --node``)."""
    grades = []
    for org, folder in sorted(node_dirs.items()):
        counter = LocalCounter(folder, min_cell=5)
        planner = Planner(counter.vocabulary(), detect_persons=False)
        one = {org: hospitals[org]}
        grades += [ask(q, EVERYONE, planner, counter, one, f"node {org}") for q in questions]
    return grades


def summary(grades: Sequence[Grade], questions: Sequence[Question]) -> dict[str, object]:
    """Exactness per user (and per kind), and the questions that were not exact."""
    kinds = {q.id: q.kind for q in questions}
    users: dict[str, dict[str, float]] = {}
    for user in dict.fromkeys(g.user for g in grades):
        mine = [g for g in grades if g.user == user]
        row: dict[str, float] = {"questions": len(mine), "exact": sum(g.exact for g in mine)}
        row["exactness"] = round(row["exact"] / len(mine), 3)
        row["counts_checked"] = sum(g.checked for g in mine)
        users[user] = row
    misses = [{"id": g.question, "user": g.user, "problems": g.problems[:3]} for g in grades if not g.exact]
    exact = sum(g.exact for g in grades)
    return {
        "questions": len(questions),
        "coded": sum(k == "coded" for k in kinds.values()),
        "text": sum(k == "text" for k in kinds.values()),
        "asked": len(grades),
        "exact": exact,
        "exactness": round(exact / len(grades), 3) if grades else 0.0,
        "counts_checked": sum(g.checked for g in grades),
        "per_user": users,
        "misses": misses,
    }
