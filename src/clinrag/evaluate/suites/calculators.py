"""The ``calculators`` suite: the calculation vignettes (`clinrag.evaluate.calc_vignettes`) for ``seeds`` seeds
from ``context.seed`` — calculator selection, value accuracy (overall and per vignette kind), missing inputs
detected, conflicts listed, input extraction per input kind, and the question-only baseline — beside the published
MedCalc-Bench accuracies of large language models. It needs no cohort: vignettes are written per seed.

Example:
    >>> CalculatorsSuite(seeds=1, names=("bmi",)).name
    'calculators'
"""

from __future__ import annotations

import dataclasses
import statistics
from dataclasses import dataclass

from clinrag.evaluate.calc_vignettes import KINDS, PUBLISHED, Scores, build_vignettes, question_only_accuracy, score
from clinrag.evaluate.suites.base import Progress, Register, SuiteResult, Table
from clinrag.evaluate.suites.context import SuiteContext
from clinrag.evaluate.suites.plots import grouped_bars

QUICK = ("bmi", "cha2ds2_vasc", "meld_na", "curb_65", "wells_pe", "qtc_bazett")
HEADLINE = ("selection_accuracy", "value_accuracy", "missing_detected", "conflicts_listed")


@dataclass(frozen=True)
class CalculatorsSuite:
    """Vignettes of every calculator (or of ``names``) for ``seeds`` consecutive seeds."""

    seeds: int = 3
    names: tuple[str, ...] | None = None
    name: str = "calculators"

    def run(self, context: SuiteContext, progress: Progress) -> SuiteResult:
        """Write, answer and score the vignettes of each seed; metrics are means over the seeds."""
        seeds = range(context.seed, context.seed + self.seeds)
        progress.stage("calculators: seeds", self.seeds)
        per_seed: dict[int, tuple[Scores, float]] = {}
        for done, seed in enumerate(seeds, start=1):
            vignettes = build_vignettes(seed, self.names)
            per_seed[seed] = (score(vignettes), question_only_accuracy(vignettes))
            progress(done)
        result = SuiteResult(self.name)
        runs = [s for s, _ in per_seed.values()]

        def mean(values: list[float]) -> float:
            return round(statistics.fmean(values), 4)

        result.add_metrics("", {name: mean([getattr(s, name) for s in runs]) for name in HEADLINE})
        result.metrics["question_only_accuracy"] = mean([q for _, q in per_seed.values()])
        result.metrics["vignettes"] = sum(s.vignettes for s in runs)
        result.metrics["calculators"] = max(s.calculators for s in runs)
        result.metrics["failures"] = sum(len(s.failures) for s in runs)
        for vignette_kind in KINDS:
            result.metrics[f"value_accuracy/{vignette_kind}"] = mean([s.by_kind.get(vignette_kind, 0.0) for s in runs])
        for kind in sorted({k for s in runs for k in s.extraction}):
            found = [s.extraction[kind]["accuracy"] for s in runs if kind in s.extraction]
            result.metrics[f"extraction/{kind}"] = mean(found)
        if len(runs) > 1:
            result.metrics["value_accuracy/spread"] = round(
                max(s.value_accuracy for s in runs) - min(s.value_accuracy for s in runs), 4
            )
        result.timings = {
            "latency_p50_ms": round(statistics.fmean(s.latency_ms["p50"] for s in runs), 2),
            "latency_p95_ms": round(statistics.fmean(s.latency_ms["p95"] for s in runs), 2),
        }
        result.add_table(
            Table(
                "per seed",
                ("seed", "vignettes", "calculators", *HEADLINE, "question-only accuracy"),
                [
                    (seed, s.vignettes, s.calculators, *(getattr(s, h) for h in HEADLINE), q)
                    for seed, (s, q) in per_seed.items()
                ],
            )
        )
        result.add_table(
            Table(
                "value accuracy per vignette kind",
                ("kind", *(f"seed {seed}" for seed in per_seed)),
                [(kind, *(s.by_kind.get(kind) for s, _ in per_seed.values())) for kind in KINDS],
                "complete: every input stated; units: other units; distracting: a relative's condition and an older "
                "value; missing: an input left out (right = nothing computed and the input named).",
            )
        )
        result.add_plot(
            grouped_bars(
                "accuracy-by-kind",
                "Value accuracy per vignette kind",
                [*KINDS, "overall"],
                {
                    "clinrag (reads the record)": [
                        *(result.metrics[f"value_accuracy/{k}"] for k in KINDS),
                        result.metrics["value_accuracy"],
                    ],
                    "question only": [None] * len(KINDS) + [result.metrics["question_only_accuracy"]],
                },
                ylabel="accuracy",
                reference={"GPT-4, MedCalc-Bench (published)": next(iter(PUBLISHED.values()))},
            )
        )
        result.notes += [
            "In-sample: the vignettes are written by the same project as the reading rules, not clinicians' notes.",
            *(f"Published: {source}: {value}" for source, value in PUBLISHED.items()),
        ]
        result.details = {
            "published": PUBLISHED,
            "runs": {
                f"seed_{seed}": {**dataclasses.asdict(s), "question_only_accuracy": q}
                for seed, (s, q) in per_seed.items()
            },
        }
        return result


def register_suite(register: Register) -> None:
    """Register ``calculators`` (quick: one seed, six calculators)."""
    register(
        "calculators",
        "calculator selection, value accuracy, missing inputs and extraction on the calculation vignettes",
        CalculatorsSuite,
        lambda: CalculatorsSuite(
            seeds=1, names=("bmi", "cha2ds2_vasc", "meld_na", "curb_65", "wells_pe", "qtc_bazett")
        ),
    )
