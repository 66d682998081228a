"""``clinrag eval``: evaluation suites that write JSON and a readable report. Today: ``discharge`` (issue 18)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from clinrag.app.console import ConfigOption, ProgressReport, console, errors, progress, settings_for
from clinrag.errors import ClinragError
from clinrag.evaluate.discharge import (
    Experience,
    Run,
    extractive_grid,
    local_grid,
    local_sample,
    markdown,
    report,
    rows,
    run_extractive,
    run_local,
)
from clinrag.evaluate.discharge_corpus import HospitalCorpus
from clinrag.evaluate.discharge_questions import build_question_set, write_questions
from clinrag.generate.llm import generator_from
from clinrag.index.embed import embedder_from

eval_app = typer.Typer(
    help="Evaluate clinrag the way the published work measured it; each suite writes JSON and a report.",
    no_args_is_help=True,
)


class UsageError(ClinragError):
    """A suite asked for with inputs that do not exist: exit status 2."""

    exit_code = 2


@contextmanager
def _stages(report_to: ProgressReport) -> Iterator[Callable[[str, int], Callable[[int], None]]]:
    def stage(name: str, total: int) -> Callable[[int], None]:
        report_to.stage(name, total)
        return report_to

    yield stage


@eval_app.command("discharge")
def discharge_command(
    demo: Annotated[
        Path, typer.Option(help="Demo folder: its cohort/ makes the questions, nodes/ORG the hospitals searched.")
    ] = Path("data/demo"),
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the JSON, the report and the questions.")] = Path(
        "eval/discharge"
    ),
    seed: Annotated[int, typer.Option(help="Seed of the question builder (options, distractors, split).")] = 0,
    readers: Annotated[
        str, typer.Option(help="extractive (no model), local (llama.cpp GGUF), or both: extractive,local.")
    ] = "extractive",
    local_per_task: Annotated[
        int, typer.Option(help="Test questions per task the local model answers (it takes seconds each).", min=1)
    ] = 20,
    config: ConfigOption = None,
) -> None:
    """Answer multiple-choice discharge questions with no retrieval, the text report ranker and the EHR ranker
    (similar patients by codes), and report accuracy and F1 per task.

    Builds diagnosis, medication and instruction questions from the demo cohort (backgrounds stop before the
    discharge plan; a dev/test split by patient), then answers each within its own hospital: k = 5 to 25 similar
    patients, the three weight presets and four passage retrievers for the extractive reader (its threshold is
    tuned on dev only); the local model on --local-per-task test questions of each task. Writes OUT/discharge.json,
    OUT/report.md and OUT/questions.jsonl.

    Example: clinrag eval discharge --demo data/demo --out eval/discharge
    Example: clinrag eval discharge --readers extractive,local --local-per-task 10
    """
    chosen = {reader.strip() for reader in readers.split(",") if reader.strip()}
    if not chosen or chosen - {"extractive", "local"}:
        errors.print(f"[red]error:[/red] --readers takes extractive, local or both, not {readers!r}")
        raise typer.Exit(2)
    loaded = settings_for(config).settings
    started = time.perf_counter()
    try:
        cohort, nodes = demo / "cohort", demo / "nodes"
        if not (cohort / "gold_facts.jsonl").exists() or not nodes.is_dir():
            raise UsageError(f"{demo}: no demo cohort and nodes here; build them with 'clinrag demo --no-serve'")
        question_set = build_question_set(cohort, seed=seed)
        questions = question_set.questions
        out.mkdir(parents=True, exist_ok=True)
        write_questions(questions, out / "questions.jsonl")
        embedder = embedder_from(loaded.index, loaded.paths.cache_dir)
        orgs = sorted({q.org for q in questions})
        missing = [org for org in orgs if not (nodes / org / "population.duckdb").exists()]
        if missing:
            raise UsageError(f"{nodes}: no node with population tables for {', '.join(missing)}")
        with progress("reading hospitals", len(orgs)) as advance:
            corpora = {}
            for done, org in enumerate(orgs, start=1):
                corpora[org] = HospitalCorpus.open(nodes / org, embedder, out / "cache")
                advance(done)
        experience = Experience(corpora)
        extractive: Run | None = None
        local: Run | None = None
        if "extractive" in chosen:
            with progress("extractive", len(questions)) as report_to, _stages(report_to) as stage:
                extractive = run_extractive(questions, experience, extractive_grid(), stage)
        if "local" in chosen:
            generator = generator_from(loaded.answer.model_copy(update={"generator": "local"}), loaded.paths)
            if generator is None:
                raise UsageError("no local model is configured (answer.model_path)")
            sample = local_sample(questions, local_per_task)
            with progress("local", len(sample)) as report_to, _stages(report_to) as stage:
                local = run_local(sample, experience, local_grid(), generator, stage)
    except ClinragError as exc:
        errors.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(exc.exit_code) from None
    body = report(extractive, local, questions, time.perf_counter() - started)
    body["skipped"] = {f"{task}/{reason}": n for (task, reason), n in sorted(question_set.skipped.items())}
    (out / "discharge.json").write_text(json.dumps(body, indent=1) + "\n")
    text = _report_text(extractive, local)
    (out / "report.md").write_text(text)
    console.print(text, markup=False, highlight=False)
    console.print(f"[dim]wrote {out / 'discharge.json'}, {out / 'report.md'}[/dim]", highlight=False)


def _report_text(extractive: Run | None, local: Run | None) -> str:
    parts = ["# Discharge questions (clinrag eval discharge)\n"]
    if extractive is not None:
        table = rows(extractive)
        parts += ["## Extractive reader, test split (threshold tuned on dev)\n", markdown(table, "test"), ""]
        parts += ["## Extractive reader, dev split\n", markdown(table, "dev"), ""]
    if local is not None:
        parts += ["## Local model, test sample\n", markdown(rows(local, ("test",)), "test"), ""]
    return "\n".join(parts) + "\n"
