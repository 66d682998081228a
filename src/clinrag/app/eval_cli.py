"""``clinrag eval``: evaluation suites that write ``run.json``, ``report.md`` and one self-contained
``report.html`` per run, and ``clinrag eval compare`` of two runs.

Every suite command takes the same options (`RunOptions`); a new suite's command builds its `Suite` and calls
`execute`, which shows a progress bar, writes the reports and prints the tables.

Example:
    >>> from typer.testing import CliRunner
    >>> CliRunner().invoke(eval_app, ["--help"]).exit_code
    0
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from clinrag.app.console import ConfigOption, console, errors, progress, settings_for
from clinrag.app.exits import exit_on_error
from clinrag.demo.local_federation import start_demo_federation
from clinrag.evaluate.suites import (
    RunReport,
    Suite,
    SuiteContext,
    compare_markdown,
    load_run,
    make,
    names,
    run_suites,
    write_run,
)
from clinrag.evaluate.suites.context import RunningFederation
from clinrag.evaluate.suites.discharge import DischargeSuite
from clinrag.evaluate.suites.grid import GridSuite
from clinrag.evaluate.suites.report import markdown_table

eval_app = typer.Typer(
    help="Evaluate clinrag the way the published work measured it; each run writes run.json, report.md and "
    "report.html.",
    no_args_is_help=True,
)

DemoOption = Annotated[
    Path, typer.Option(help="Demo folder (clinrag demo --no-serve): its cohort/ and nodes/ are evaluated.")
]
OutOption = Annotated[
    Path | None, typer.Option("--out", "-o", help="Folder for run.json, report.md and report.html [eval/SUITE].")
]
SeedOption = Annotated[int, typer.Option(help="Seed of every question set and sample; equal seeds, equal numbers.")]
GeneratorsOption = Annotated[
    str, typer.Option(help="Generators compared, comma-separated: extractive (no model), local (llama.cpp), openai.")
]
QuickOption = Annotated[bool, typer.Option("--quick", help="A small version of each suite (a smoke run: minutes).")]
WorkOption = Annotated[
    Path | None, typer.Option(help="Folder caching built nodes, libraries and vectors between runs [CACHE_DIR/eval].")
]


@dataclass(frozen=True)
class RunOptions:
    """The options every suite command takes."""

    demo: Path = Path("data/demo")
    out: Path | None = None
    seed: int = 0
    generators: str = "extractive"
    quick: bool = False
    work: Path | None = None
    config: Path | None = None

    def folder(self, default: str) -> Path:
        """``--out``, or ``eval/DEFAULT``."""
        return self.out or Path("eval") / default


def demo_federation(context: SuiteContext) -> AbstractContextManager[RunningFederation]:
    """The context's demo federation started in this process (`start_demo_federation`): what suites that measure
    through the federation (``trend``) run against."""
    return start_demo_federation(context.demo, context.embedder(), context.settings.retrieve)


def execute(suites: Sequence[Suite], options: RunOptions, default_out: str) -> RunReport:
    """Run ``suites`` with a progress bar, write the reports into ``--out`` and print each suite's tables; a
    `ClinragError` (missing inputs: exit 2) is shown and exits with its status."""
    loaded = settings_for(options.config).settings
    out = options.folder(default_out)
    generators = tuple(g.strip() for g in options.generators.split(",") if g.strip())
    context: SuiteContext | None = None
    try:
        with exit_on_error():
            context = SuiteContext(
                options.demo,
                options.work or loaded.paths.cache_dir / "eval",
                loaded,
                options.seed,
                generators,
                out,
                federation=demo_federation,
            )
            with progress("eval", None) as report_to:
                report = run_suites(suites, context, report_to)
    finally:
        if context is not None:
            context.close()
    written = write_run(report, out)
    for result in report.results:
        console.print(f"\n[bold]{result.suite}[/bold] ({len(result.metrics)} metrics, {result.seconds:.1f} s)")
        for table in result.tables[:2]:
            console.print(f"\n{table.name}\n", highlight=False, markup=False)
            console.print(markdown_table(table), markup=False, highlight=False)
    console.print(f"\n[dim]wrote {', '.join(str(p) for p in written[:3])}[/dim]", highlight=False)
    return report


def _suite_command(name: str, options: RunOptions) -> None:
    with exit_on_error():  # every command names a registered suite
        suite = make(name, options.quick)
    execute([suite], options, name)


def _demo_suite(name: str, doc: str) -> Callable[..., None]:
    """The command of suite ``name`` with --demo, --out, --seed, --quick, --work and --config; ``doc`` is its help."""

    def command(
        demo: DemoOption = Path("data/demo"),
        out: OutOption = None,
        seed: SeedOption = 0,
        quick: QuickOption = False,
        work: WorkOption = None,
        config: ConfigOption = None,
    ) -> None:
        _suite_command(name, RunOptions(demo, out, seed, "extractive", quick, work, config))

    command.__doc__ = doc
    return command


def _generator_suite(name: str, doc: str) -> Callable[..., None]:
    """The command of suite ``name`` with `_demo_suite`'s options and --generators; ``doc`` is its help."""

    def command(
        demo: DemoOption = Path("data/demo"),
        out: OutOption = None,
        seed: SeedOption = 0,
        generators: GeneratorsOption = "extractive",
        quick: QuickOption = False,
        work: WorkOption = None,
        config: ConfigOption = None,
    ) -> None:
        _suite_command(name, RunOptions(demo, out, seed, generators, quick, work, config))

    command.__doc__ = doc
    return command


def _offline_suite(name: str, doc: str) -> Callable[..., None]:
    """The command of suite ``name``, which needs no demo folder: --out, --seed, --quick, --work and --config;
    ``doc`` is its help."""

    def command(
        out: OutOption = None,
        seed: SeedOption = 0,
        quick: QuickOption = False,
        work: WorkOption = None,
        config: ConfigOption = None,
    ) -> None:
        _suite_command(name, RunOptions(Path("data/demo"), out, seed, "extractive", quick, work, config))

    command.__doc__ = doc
    return command


retrieval_command = eval_app.command("retrieval")(
    _demo_suite(
        "retrieval",
        """Retrieval quality on the demo cohort's gold facts: recall@5/10, MRR@10, nDCG@10 per question kind,
    wrong-patient hits and latency for every mode × name prefix × patient resolution.

    Example: clinrag eval retrieval --demo data/demo --out eval/retrieval
    """,
    )
)

answers_command = eval_app.command("answers")(
    _generator_suite(
        "answers",
        """Grounded answers at hospital A, per generator: answer rate, citation validity, sentence support, gold
    citations, latency.

    Example: clinrag eval answers --generators extractive,local --out eval/answers
    """,
    )
)

safety_command = eval_app.command("safety")(
    _generator_suite(
        "safety",
        """Refusing when it should, per generator: negative rejection, noise robustness, other hospitals' patients,
    and the adversarial cases (injected instructions, requests for other patients).

    Example: clinrag eval safety --generators extractive,local --out eval/safety
    """,
    )
)

calculators_command = eval_app.command("calculators")(
    _offline_suite(
        "calculators",
        """Calculation vignettes: calculator selection, value accuracy per vignette kind, missing inputs, extraction
    per input kind, against the question-only baseline (seeds SEED, SEED+1, SEED+2).

    Example: clinrag eval calculators --out eval/calculators
    """,
    )
)

literature_command = eval_app.command("literature")(
    _offline_suite(
        "literature",
        """Literature retrieval on a synthetic library: recall@10 per mode, plain and with filters stated.

    Example: clinrag eval literature --out eval/literature
    """,
    )
)


@eval_app.command("population")
def population_command(
    demo: DemoOption = Path("data/demo"),
    out: OutOption = None,
    quick: QuickOption = False,
    work: WorkOption = None,
    config: ConfigOption = None,
) -> None:
    """Population questions for every demo user and each node alone: exactness against the cohort's truth.

    Example: clinrag eval population --demo data/demo --out eval/population
    """
    _suite_command("population", RunOptions(demo, out, 0, "extractive", quick, work, config))


trend_command = eval_app.command("trend")(
    _generator_suite(
        "trend",
        """The federated-RAG evaluation on the demo federation, started here (identity providers, nodes, root on
    127.0.0.1): centralised, federated and each demo user; ixn, recall@10, nDCG@10, ROUGE-1/L, BLEU, faithfulness,
    answer and context relevance, negative rejection, noise robustness, information integration, population
    exactness; the access heatmap and answer relevance against ixn. Answers are extractive; a model among
    --generators (local, openai) also answers a subset in every scenario (9 retrieval questions, 2 negative and 2
    noise; --quick: 3, 1 and 1).

    Example: clinrag eval trend --demo data/demo --out eval/trend
    Example: clinrag eval trend --quick --generators extractive,local --out eval/trend-local
    """,
    )
)


@eval_app.command("grid")
def grid_command(
    grid: Annotated[
        Path | None,
        typer.Option(help="Grid file (YAML): values, questions and weights [the packaged 64-combination grid]."),
    ] = None,
    demo: DemoOption = Path("data/demo"),
    out: OutOption = None,
    seed: SeedOption = 0,
    quick: QuickOption = False,
    work: WorkOption = None,
    config: ConfigOption = None,
) -> None:
    """Every combination of a parameter grid (chunk size, name prefixing, k, fetch_k, mode, MMR λ, threshold,
    generator, temperature) run end to end on one hospital's notes and ranked by the grid's weighted score; nodes
    and runs that combinations share are built once.

    Example: clinrag eval grid --out eval/grid
    Example: clinrag eval grid --grid my-grid.yaml --out eval/my-grid
    """
    suite = GridSuite(grid=grid, limit=4, per_kind=3, rejection=2) if quick else GridSuite(grid=grid)
    execute([suite], RunOptions(demo, out, seed, "extractive", quick, work, config), "grid")


@eval_app.command("discharge")
def discharge_command(
    demo: DemoOption = Path("data/demo"),
    out: OutOption = None,
    seed: Annotated[int, typer.Option(help="Seed of the question builder (options, distractors, split).")] = 0,
    readers: Annotated[
        str, typer.Option(help="extractive (no model), local (llama.cpp GGUF), or both: extractive,local.")
    ] = "extractive",
    local_per_task: Annotated[
        int, typer.Option(help="Test questions per task the local model answers (it takes seconds each).", min=1)
    ] = 20,
    quick: QuickOption = False,
    work: WorkOption = None,
    config: ConfigOption = None,
) -> None:
    """Answer multiple-choice discharge questions with no retrieval, the text report ranker and the EHR ranker
    (similar patients by codes), and report accuracy and F1 per task.

    Builds diagnosis, medication and instruction questions from the demo cohort (backgrounds stop before the
    discharge plan; a dev/test split by patient), then answers each within its own hospital: k = 5 to 25 similar
    patients, the three weight presets and four passage retrievers for the extractive reader (its threshold is
    tuned on dev only); the local model on --local-per-task test questions of each task. Writes OUT/run.json,
    OUT/report.md, OUT/report.html, OUT/discharge/discharge.json and OUT/discharge/questions.jsonl.

    Example: clinrag eval discharge --demo data/demo --out eval/discharge
    Example: clinrag eval discharge --readers extractive,local --local-per-task 10
    """
    chosen = {reader.strip() for reader in readers.split(",") if reader.strip()}
    if not chosen or chosen - {"extractive", "local"}:
        errors.print(f"[red]error:[/red] --readers takes extractive, local or both, not {readers!r}")
        raise typer.Exit(2)
    suite = make("discharge", quick=True) if quick else DischargeSuite(local_per_task=local_per_task)
    execute([suite], RunOptions(demo, out, seed, ",".join(sorted(chosen)), quick, work, config), "discharge")


@eval_app.command("all")
def all_command(
    suites: Annotated[str, typer.Option(help="Suites to run, comma-separated [all registered].")] = "",
    demo: DemoOption = Path("data/demo"),
    out: OutOption = None,
    seed: SeedOption = 0,
    generators: GeneratorsOption = "extractive",
    quick: QuickOption = False,
    work: WorkOption = None,
    config: ConfigOption = None,
) -> None:
    """Run several suites into one report (default: every registered suite, in order).

    Example: clinrag eval all --quick --out eval/smoke
    Example: clinrag eval all --suites retrieval,answers,safety --generators extractive,local
    """
    chosen = [name.strip() for name in suites.split(",") if name.strip()] or names()
    with exit_on_error():
        built = [make(name, quick) for name in chosen]
    execute(built, RunOptions(demo, out, seed, generators, quick, work, config), "all")


@eval_app.command("compare")
def compare_command(
    run_a: Annotated[Path, typer.Argument(help="The first run's folder (or its run.json): A.")],
    run_b: Annotated[Path, typer.Argument(help="The second run's folder (or its run.json): B.")],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Markdown file for the comparison [RUN_B/compare.md].")
    ] = None,
) -> None:
    """Every metric of two runs side by side with its change (B − A), and the timings apart; printed and written
    as Markdown.

    Example: clinrag eval compare eval/before eval/after
    """
    with exit_on_error():
        a, b = load_run(run_a), load_run(run_b)
    text = compare_markdown(a, b, str(run_a), str(run_b))
    target = out or (run_b if run_b.is_dir() else run_b.parent) / "compare.md"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    console.print(text, markup=False, highlight=False)
    console.print(f"[dim]wrote {target}[/dim]", highlight=False)
