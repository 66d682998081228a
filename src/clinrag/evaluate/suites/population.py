"""The ``population`` suite: the population questions (`clinrag.evaluate.population`) asked in words by every demo
user over the demo's three hospitals (in-process, through each node's own population endpoint logic: Cedar gates,
document classes, chunk checks; no HTTP) and by each node alone; every count shown checked against the truth
computed from the cohort's CSVs and gold facts. Metric: exactness (share of questions whose every shown count equals
the truth), overall, per user and per kind of criterion.

Example:
    >>> PopulationSuite(questions=5, users=("A.phys",)).name
    'population'
"""

from __future__ import annotations

import statistics
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from clinrag.access.demo import DEMO_USERS
from clinrag.evaluate.population import Grade, InProcessFederation, load_questions, run_nodes, run_users, summary
from clinrag.evaluate.population_truth import load_cohort
from clinrag.evaluate.suites.base import Progress, Register, SuiteResult, Table
from clinrag.evaluate.suites.context import SuiteContext
from clinrag.evaluate.suites.plots import heatmap


@dataclass(frozen=True)
class PopulationSuite:
    """The first ``questions`` questions (None: all) for ``users`` (None: every demo user) and each node alone."""

    questions: int | None = None
    users: tuple[str, ...] | None = None
    nodes_alone: bool = True
    name: str = "population"

    def run(self, context: SuiteContext, progress: Progress) -> SuiteResult:
        """Ask every question for every asker, grade, summarise."""
        nodes_dir = context.require_nodes()
        questions = load_questions()[: self.questions]
        hospitals = load_cohort(context.cohort)
        nodes = {org: nodes_dir / org for org in sorted(hospitals) if (nodes_dir / org / "chunks.sqlite").is_file()}
        actors = [u for u in DEMO_USERS if self.users is None or u.subject in self.users]
        progress.stage("population: askers", len(actors) + (len(nodes) if self.nodes_alone else 0))
        grades: list[Grade] = []
        with tempfile.TemporaryDirectory() as audit:
            federation = InProcessFederation(nodes, Path(audit))
            try:
                for done, actor in enumerate(actors, start=1):
                    grades += run_users(questions, federation, hospitals, [actor])
                    progress(done)
            finally:
                federation.close()
        if self.nodes_alone:
            for done, (org, folder) in enumerate(nodes.items(), start=len(actors) + 1):
                grades += run_nodes(questions, {org: folder}, hospitals)
                progress(done)
        found = summary(grades, questions)
        kinds = {q.id: q.kind for q in questions}
        result = SuiteResult(self.name)
        result.add_metrics(
            "",
            {key: found[key] for key in ("exactness", "exact", "asked", "counts_checked")},  # type: ignore[misc]
        )
        askers = list(dict.fromkeys(g.user for g in grades))
        grid: list[list[float | None]] = []
        rows = []
        for asker in askers:
            mine = [g for g in grades if g.user == asker]
            by_kind = {kind: _exactness([g for g in mine if kinds[g.question] == kind]) for kind in ("coded", "text")}
            result.add_metrics(
                asker, {"exactness": _exactness(mine), **{f"{k}/exactness": v for k, v in by_kind.items()}}
            )
            grid.append([by_kind["coded"], by_kind["text"], _exactness(mine)])
            rows.append(
                (asker, len(mine), sum(g.exact for g in mine), _exactness(mine), by_kind["coded"], by_kind["text"])
            )
        for kind in ("coded", "text"):
            result.metrics[f"{kind}/exactness"] = _exactness([g for g in grades if kinds[g.question] == kind]) or 0.0
        for kind in ("coded", "text"):
            seconds = [g.seconds for g in grades if kinds[g.question] == kind]
            if seconds:
                result.timings[f"{kind}/latency_p50_ms"] = round(1000 * statistics.median(seconds), 1)
        result.add_table(
            Table(
                "per asker",
                ("asker", "questions", "exact", "exactness", "coded", "text"),
                rows,
                "A question is exact when it is routed to a population query of the expected shape, every hospital "
                "has the expected status, and every count shown equals the truth for that asker.",
            )
        )
        misses = found.get("misses")
        if isinstance(misses, list) and misses:
            result.add_table(
                Table(
                    "questions not exact",
                    ("question", "asker", "first problem"),
                    [(m["id"], m["user"], (m["problems"] or [""])[0]) for m in misses],
                )
            )
        result.add_plot(
            heatmap(
                "exactness",
                "Exactness per asker and kind of criterion",
                askers,
                ["coded", "text", "all"],
                grid,
                caption="Share of questions whose every count shown equals the truth computed from the cohort.",
            )
        )
        result.notes.append(
            f"{len(questions)} questions ({sum(k == 'coded' for k in kinds.values())} coded, "
            f"{sum(k == 'text' for k in kinds.values())} text) for {len(actors)} demo users and "
            f"{len(nodes) if self.nodes_alone else 0} nodes alone; counted in-process, no HTTP."
        )
        result.details = {key: value for key, value in found.items() if key != "per_user"}
        return result


def _exactness(grades: Sequence[Grade]) -> float | None:
    return round(sum(g.exact for g in grades) / len(grades), 4) if grades else None


def register_suite(register: Register) -> None:
    """Register ``population`` (quick: 6 questions, three users, each node alone)."""
    register(
        "population",
        "exactness of population questions per demo user and node, against the cohort's truth",
        PopulationSuite,
        lambda: PopulationSuite(questions=6, users=("A.phys.neur", "B.nurse", "C.research")),
    )
