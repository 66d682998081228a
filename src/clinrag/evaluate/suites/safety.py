"""The ``safety`` suite, per generator: questions that must not be answered from the records — negative rejection
(tests no record mentions), noise robustness (drugs the patient never had: only related-but-irrelevant hits) and
patients of other hospitals — scored by the share that abstains; and the adversarial suite
(`clinrag.evaluate.adversarial`: instructions hidden in notes and questions, requests for other patients), scored
by the share of cases passed (grounded or abstaining, never following the instruction, citing only the patient).

Example:
    >>> SafetySuite(per_kind=3, cases=5).name
    'safety'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from clinrag.evaluate.adversarial import CASES, Case, figures, run_suite
from clinrag.evaluate.answers import first_of_each_kind, summarise
from clinrag.evaluate.suites.answering import answer_all, answer_setup, answerer, kind_metrics
from clinrag.evaluate.suites.base import Number, Progress, Register, SuiteResult, Table
from clinrag.evaluate.suites.context import SuiteContext
from clinrag.evaluate.suites.plots import grouped_bars

REJECTION: Final = ("negative", "noise", "unseen_patient")
LABELS: Final = {
    "negative": "negative rejection",
    "noise": "noise robustness",
    "unseen_patient": "other hospital's patient",
    "adversarial": "adversarial pass rate",
}


@dataclass(frozen=True)
class SafetySuite:
    """Abstention on unanswerable questions and the adversarial cases, per generator; ``cases`` takes the first
    cases of the adversarial suite (None: all)."""

    per_kind: int = 30
    model_per_kind: int = 10
    cases: int | None = None
    sources: int = 5
    name: str = "safety"

    def _cases(self) -> tuple[Case, ...]:
        if self.cases is None:
            return CASES
        by_kind = {case.kind: case for case in CASES}  # at least one of each kind, then in order
        chosen = list(dict.fromkeys([*by_kind.values(), *CASES]))[: max(self.cases, len(by_kind))]
        return tuple(chosen)

    def run(self, context: SuiteContext, progress: Progress) -> SuiteResult:
        """Ask, check and score, per generator in ``context.generators``."""
        setup = answer_setup(context, self.per_kind, progress)
        unanswerable = [q for q in setup.questions if q.kind in REJECTION]
        cases = self._cases()
        result = SuiteResult(self.name)
        rows = []
        outcomes: dict[str, dict[str, str]] = {}
        for generator in context.generators:
            limit = self.per_kind if generator == "extractive" else self.model_per_kind
            chosen = first_of_each_kind(unanswerable, limit)
            with answerer(context, setup.node, generator, self.sources) as answering:
                runs = answer_all(answering, chosen, progress, f"safety: {generator}")
            summary = summarise(runs)
            row: dict[str, Number | None] = {}
            for kind in REJECTION:
                found = summary.get(kind)
                if isinstance(found, dict):
                    metrics, timings = kind_metrics(found)
                    result.add_metrics(f"{generator}/{kind}", metrics)
                    result.timings.update({f"{generator}/{kind}/{k}": v for k, v in timings.items()})
                    row[kind] = metrics.get("abstained")
            progress.stage(f"safety: {generator} adversarial cases", None)
            answer_settings = context.settings.answer.model_copy(
                update={"generator": generator, "sources": self.sources}
            )
            attacked = run_suite(context.embedder(), context.generator(generator), answer_settings, cases)
            adversarial = figures(attacked)
            result.add_metrics(
                f"{generator}/adversarial",
                {
                    "cases": len(attacked),
                    "pass_rate": adversarial["pass_rate"],
                    "passed_grounded": adversarial["passed_grounded"],
                    "passed_abstained": adversarial["passed_abstained"],
                },
            )
            for kind, rate in adversarial["pass_rate_by_kind"].items():
                result.metrics[f"{generator}/adversarial/{kind}/pass_rate"] = rate
            row["adversarial"] = adversarial["pass_rate"]
            outcomes[generator] = {r.name: ("pass" if r.passed else "FAIL") + f" ({r.why})" for r in attacked}
            rows.append((generator, *(row.get(kind) for kind in LABELS)))
            result.details[generator] = {
                "rejection": {k: summary.get(k) for k in REJECTION},
                "adversarial": adversarial,
            }
        result.add_table(
            Table(
                "per generator",
                ("generator", *LABELS.values()),
                rows,
                "Rejection columns: share of unanswerable questions that abstain; adversarial: share of cases passed.",
            )
        )
        names = list(dict.fromkeys(name for found in outcomes.values() for name in found))
        kinds = {case.name: case.kind for case in CASES}
        result.add_table(
            Table(
                "adversarial cases",
                ("case", "kind", *outcomes),
                [(name, kinds.get(name, ""), *(outcomes[g].get(name, "") for g in outcomes)) for name in names],
            )
        )
        result.add_plot(
            grouped_bars(
                "safety",
                "Refusing when it should",
                list(LABELS.values()),
                {str(r[0]): [v if isinstance(v, int | float) else None for v in r[1:]] for r in rows},
                ylabel="share",
            )
        )
        result.notes.append(
            f"Hospital A of the demo cohort (seed {context.seed}); {len(unanswerable)} unanswerable questions, "
            f"{len(cases)} adversarial cases in their own small index; model generators answer the first "
            f"{self.model_per_kind} questions of each kind."
        )
        return result


def register_suite(register: Register) -> None:
    """Register ``safety`` (quick: 3 questions of each kind, 2 for a model, 5 adversarial cases)."""
    register(
        "safety",
        "negative rejection, noise robustness, other hospitals' patients and the adversarial cases per generator",
        SafetySuite,
        lambda: SafetySuite(per_kind=3, model_per_kind=2, cases=5),
    )
