"""The ``discharge`` suite: multiple-choice discharge questions built from the demo cohort, answered
within each question's own hospital with no retrieval, the text report ranker and the EHR ranker
(`clinrag.evaluate.discharge`): accuracy and F1 per task and configuration, for the extractive reader (threshold
tuned on ``dev``; ``test`` reported) and, when ``local`` is among the generators, the local model on a sample of
``test`` questions. Writes ``OUT/discharge/discharge.json`` and ``OUT/discharge/questions.jsonl`` as before.

Example:
    >>> DischargeSuite(every=3).name
    'discharge'
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

from clinrag.evaluate.discharge import (
    PUBLISHED,
    Config,
    Experience,
    Row,
    Run,
    extractive_grid,
    local_grid,
    local_sample,
    report,
    rows,
    run_extractive,
    run_local,
)
from clinrag.evaluate.discharge_corpus import HospitalCorpus
from clinrag.evaluate.discharge_questions import build_question_set, write_questions
from clinrag.evaluate.suites.base import Progress, Register, SuiteInputError, SuiteResult, Table
from clinrag.evaluate.suites.context import SuiteContext
from clinrag.evaluate.suites.plots import grouped_bars

TASKS = ("instruction", "diagnosis", "medication")
HEADLINE = {
    "none": "extractive/none",
    "text": "extractive/text/k15/auto-merging",
    "ehr": "extractive/ehr/k15/uniform/auto-merging",
}


@dataclass(frozen=True)
class DischargeSuite:
    """The discharge questions; ``every`` keeps every n-th question (1: all), ``orgs`` only the questions of those
    hospitals (None: every one), ``grid`` the extractive reader's configurations (None: `extractive_grid`),
    ``local_per_task`` the local model's ``test`` questions per task."""

    every: int = 1
    grid: tuple[Config, ...] | None = None
    orgs: tuple[str, ...] | None = None
    local_per_task: int = 20
    name: str = "discharge"
    local_configs: tuple[Config, ...] = field(default_factory=lambda: tuple(local_grid()))

    def run(self, context: SuiteContext, progress: Progress) -> SuiteResult:
        """Build the questions, open each hospital's corpus, answer in every configuration, tabulate."""
        nodes = context.require_nodes()
        readers = [g for g in context.generators if g in ("extractive", "local")]
        if not readers:
            raise SuiteInputError("the discharge suite reads with extractive or local; neither was asked for")
        question_set = build_question_set(context.cohort, seed=context.seed)
        questions = [q for q in question_set.questions if self.orgs is None or q.org in self.orgs][:: self.every]
        files = context.files(self.name)
        if files is not None:
            write_questions(questions, files / "questions.jsonl")
        orgs = sorted({q.org for q in questions})
        missing = [org for org in orgs if not (nodes / org / "population.duckdb").exists()]
        if missing:
            raise SuiteInputError(f"{nodes}: no node with population tables for {', '.join(missing)}")
        progress.stage("discharge: reading hospitals", len(orgs))
        corpora = {}
        for done, org in enumerate(orgs, start=1):
            corpora[org] = HospitalCorpus.open(nodes / org, context.embedder(), context.cache("discharge-vectors"))
            progress(done)
        experience = Experience(corpora)
        stage = _stages(progress)
        extractive = local = None
        if "extractive" in readers:
            grid = list(self.grid) if self.grid is not None else extractive_grid()
            extractive = run_extractive(questions, experience, grid, stage)
        if "local" in readers:
            generator = context.generator("local")
            if generator is None:  # pragma: no cover - generator_from gives a model for "local"
                raise SuiteInputError("no local model is configured (answer.model_path)")
            sample = local_sample(questions, self.local_per_task)
            local = run_local(sample, experience, self.local_configs, generator, stage)
        body = report(extractive, local, questions, 0.0)
        body.pop("seconds", None)
        body["skipped"] = {f"{task}/{reason}": n for (task, reason), n in sorted(question_set.skipped.items())}
        if files is not None:
            (files / "discharge.json").write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
        return _result(self.name, extractive, local, body, len(questions), context.seed)


def _stages(progress: Progress) -> Callable[[str, int], Callable[[int], None]]:
    def stage(name: str, total: int) -> Callable[[int], None]:
        progress.stage(f"discharge: {name}", total)
        return progress

    return stage


def _add_rows(result: SuiteResult, table: list[Row]) -> None:
    for row in table:
        prefix = f"{row.config}/{row.split}/{row.task}"
        result.add_metrics(prefix, {"accuracy": row.accuracy, "f1": row.f1, "questions": row.questions})
        result.timings[f"{prefix}/p50_ms"] = row.p50_ms


def _result(
    name: str, extractive: Run | None, local: Run | None, body: dict[str, object], questions: int, seed: int
) -> SuiteResult:
    result = SuiteResult(name)
    result.metrics["questions"] = questions
    tables: list[tuple[str, list[Row], str]] = []
    if extractive is not None:
        found = rows(extractive)
        _add_rows(result, found)
        tables += [("extractive reader, test split (τ tuned on dev)", found, "test")]
        tables += [("extractive reader, dev split", found, "dev")]
    if local is not None:
        found = rows(local, ("test",))
        _add_rows(result, found)
        tables += [("local model, test sample", found, "test")]
    for title, found, split in tables:
        result.add_table(_table(title, found, split))
    if extractive is not None:
        test = {(r.config, r.task): r.accuracy for r in rows(extractive) if r.split == "test"}
        series = {
            ranker: [test.get((label, task)) for task in TASKS]
            for ranker, label in HEADLINE.items()
            if (label, TASKS[0]) in test
        }
        if series:
            result.add_plot(
                grouped_bars(
                    "accuracy-by-task",
                    "Discharge questions: accuracy by ranker (extractive, test split)",
                    list(TASKS),
                    series,
                    ylabel="accuracy",
                    caption="No retrieval, the text report ranker and the EHR ranker (k 15, uniform, auto-merging).",
                )
            )
    result.notes += [
        f"{questions} questions built from the demo cohort (seed {seed}; dev/test split by patient); each answered "
        "within its own hospital, the question's own patient never ranked.",
        f"Published for comparison: {PUBLISHED['source']}.",
    ]
    result.details = body
    return result


def _table(title: str, found: list[Row], split: str) -> Table:
    configs = list(dict.fromkeys(r.config for r in found if r.split == split))
    cells = {(r.config, r.task): r for r in found if r.split == split}
    table_rows = []
    for config in configs:
        row: list[str | float | int | None] = [config]
        for task in TASKS:
            cell = cells.get((config, task))
            row.append(cell.accuracy if cell else None)
            if task != "instruction":
                row.append(cell.f1 if cell else None)
        row.append(sum(cells[config, t].questions for t in TASKS if (config, t) in cells))
        table_rows.append(tuple(row))
    columns = (
        "configuration",
        "instruction acc",
        "diagnosis acc",
        "diagnosis F1",
        "medication acc",
        "medication F1",
        "n",
    )
    return Table(
        title, columns, table_rows, "Accuracy: every correct option chosen and no wrong one; F1 of the options chosen."
    )


def register_suite(register: Register) -> None:
    """Register ``discharge`` (quick: every third question, four configurations, 2 local questions per task)."""
    register(
        "discharge",
        "accuracy and F1 of multiple-choice discharge questions with no retrieval, the text and the EHR ranker",
        DischargeSuite,
        lambda: DischargeSuite(
            every=3,
            grid=(Config("none"), Config("text", 15), Config("ehr", 15), Config("ehr", 5, "complementary", "bm25")),
            local_per_task=2,
        ),
    )
