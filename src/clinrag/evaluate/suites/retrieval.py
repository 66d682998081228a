"""The ``retrieval`` suite: the retrieval-quality benchmark (`clinrag.evaluate.retrieval`) on the demo cohort —
recall@5, recall@10, MRR@10 and nDCG@10 per question kind, wrong-patient hits and latency for every retrieval mode
× name prefix × patient resolution. Retrieval has no generator: the suite is the same for every one.

The cohort's ``full`` folder is ingested (notes only) once per name-prefix setting under the work folder and reused
by later runs.

Example:
    >>> RetrievalSuite(per_kind=5, modes=("hybrid",), prefixes=(True,)).configurations()[0].label
    'hybrid prefix=on resolve=on'
"""

from __future__ import annotations

from dataclasses import dataclass

from clinrag.evaluate.retrieval import evaluate_retrieval
from clinrag.evaluate.retrieval_gold import KINDS
from clinrag.evaluate.retrieval_report import ConfigurationResult, check_targets
from clinrag.evaluate.retrieval_runner import MODES, Configuration, all_configurations
from clinrag.evaluate.suites.base import Progress, Register, SuiteResult, Table
from clinrag.evaluate.suites.context import SuiteContext
from clinrag.evaluate.suites.plots import grouped_bars, scatter
from clinrag.index.store import Mode

SCORES = ("recall_at_5", "recall_at_10", "mrr_at_10", "ndcg_at_10")
SHORT = {"single_patient": "SP", "single_note": "SN", "multi_patient": "MP"}


@dataclass(frozen=True)
class RetrievalSuite:
    """Every configuration of ``modes`` × ``prefixes`` × ``resolutions`` on at most ``per_kind`` questions of each
    kind."""

    per_kind: int = 100
    modes: tuple[Mode, ...] = MODES
    prefixes: tuple[bool, ...] = (True, False)
    resolutions: tuple[bool, ...] = (True, False)
    k: int = 10
    name: str = "retrieval"

    def configurations(self) -> list[Configuration]:
        """The configurations measured."""
        return all_configurations(self.modes, self.prefixes, self.resolutions)

    def run(self, context: SuiteContext, progress: Progress) -> SuiteResult:
        """Build (or reuse) the nodes, ask every question in every configuration, score."""
        cohort = context.require_cohort()
        configurations = self.configurations()
        progress.stage("retrieval: preparing nodes", None)
        ran = [0]

        def said(message: str) -> None:
            if message.startswith("running "):
                if not ran[0]:
                    progress.stage("retrieval: configurations", len(configurations))
                ran[0] += 1
                progress(ran[0] - 1)

        report = evaluate_retrieval(
            cohort,
            context.cache("retrieval", context.cohort_key()),
            context.embedder(),
            configurations,
            seed=context.seed,
            per_kind=self.per_kind,
            k=self.k,
            on_progress=said,
        )
        progress(len(configurations))
        result = SuiteResult(self.name)
        for found in report.results:
            label = found.configuration.label
            for kind, scores in found.scores.items():
                if kind in (*KINDS, "all"):
                    result.add_metrics(f"{label}/{kind}", {s: round(getattr(scores, s), 4) for s in SCORES})
            result.add_metrics(
                label,
                {
                    "wrong_patient_rate": round(found.wrong_patient_rate, 4),
                    "wrong_patient_questions": found.wrong_patient_questions,
                    "no_such_patient": found.no_such_patient,
                },
            )
            result.timings.update({f"{label}/latency_{p}_ms": round(v, 2) for p, v in found.latency_ms.items()})
        checks = check_targets(report.results)
        result.metrics["targets_met"] = sum(check.met for check in checks)
        result.metrics["targets_checked"] = len(checks)
        result.metrics["questions"] = len(report.questions)
        for node in report.nodes:
            prefix = "on" if node.name_prefix else "off"
            result.timings[f"node prefix={prefix}/ingest_s"] = round(node.ingest_seconds, 2)
            result.timings[f"node prefix={prefix}/index_s"] = round(node.index_seconds, 2)
        result.add_table(_main_table(report.results))
        result.add_table(
            Table(
                "targets",
                ("target", "configuration", "value", "met"),
                [(c.target, c.configuration, round(c.value, 4), c.met) for c in checks],
            )
        )
        labels = [r.configuration.label for r in report.results]
        result.add_plot(
            grouped_bars(
                "recall-at-10",
                "Recall@10 per question kind",
                labels,
                {kind: [r.scores[kind].recall_at_10 for r in report.results] for kind in KINDS},
                ylabel="recall@10",
                caption="Share of each question's gold chunks in the top 10, averaged per kind.",
            )
        )
        result.add_plot(
            scatter(
                "ndcg-latency",
                "nDCG@10 against median latency",
                {r.configuration.label: (r.latency_ms["p50"], r.scores["all"].ndcg_at_10) for r in report.results},
                "median latency (ms)",
                "nDCG@10, all questions",
                caption="Each configuration's quality over all questions against its median search time.",
                timed=True,
            )
        )
        result.notes += [
            f"{len(report.questions)} questions from the cohort's gold facts (seed {context.seed}), k = {self.k}.",
            "Judgments are as complete as the gold facts: a chunk restating a fact the generator did not record "
            "there counts as not relevant.",
        ]
        details = report.to_json()
        details.pop("markdown", None)
        details.pop("results", None)  # every figure is in the metrics and the table
        result.details = details
        return result


def _main_table(results: list[ConfigurationResult]) -> Table:
    columns = ["mode", "prefix", "resolve"]
    columns += [f"{SHORT[kind]} {m}" for kind in KINDS for m in ("R@5", "R@10", "MRR", "nDCG")]
    columns += ["wrong-patient rate", "wrong-patient Qs"]
    rows = []
    for found in results:
        config = found.configuration
        row: list[str | float | int | bool | None] = [
            config.mode,
            "on" if config.name_prefix else "off",
            "on" if config.resolve_patients else "off",
        ]
        for kind in KINDS:
            row += [round(getattr(found.scores[kind], s), 4) for s in SCORES]
        row += [round(found.wrong_patient_rate, 4), f"{found.wrong_patient_questions}/{found.named_questions}"]
        rows.append(tuple(row))
    return Table(
        "configurations",
        tuple(columns),
        rows,
        "SP single patient, SN single note, MP multi patient; R recall, MRR and nDCG at 10.",
    )


def register_suite(register: Register) -> None:
    """Register ``retrieval`` (quick: hybrid and bm25, name prefix on, 6 questions per kind)."""
    register(
        "retrieval",
        "recall, MRR, nDCG and wrong-patient hits per retrieval configuration",
        RetrievalSuite,
        lambda: RetrievalSuite(per_kind=6, modes=("hybrid", "bm25"), prefixes=(True,)),
    )
