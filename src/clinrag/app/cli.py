"""The ``clinrag`` command line.

Every command reads the same settings (``clinrag.toml``, ``CLINRAG_*`` variables, then options) and reports
errors as one line naming the file, row or setting at fault, never a traceback and never note text.

Example:
    >>> from typer.testing import CliRunner
    >>> "synth" in CliRunner().invoke(app, ["--help"]).output
    True
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from clinrag.app.ask_cli import ask_command, token_command
from clinrag.app.calc_cli import calc_app
from clinrag.app.console import ConfigOption, console, errors, progress, settings_for
from clinrag.app.eval_cli import eval_app
from clinrag.app.exits import run_program
from clinrag.app.guidelines_cli import guidelines_app
from clinrag.app.idp_cli import idp_app
from clinrag.app.index_cli import index_app
from clinrag.app.node_cli import audit_command, node_app
from clinrag.app.openai_api import api_app
from clinrag.app.pubmed_cli import pubmed_app
from clinrag.app.scale_cli import (
    EngineOption,
    RayAddressOption,
    WorkersOption,
    engine_session,
    note_chunker,
    scale_overrides,
)
from clinrag.app.search_cli import search_command
from clinrag.app.similar_cli import similar_command
from clinrag.app.web.launch import web_command
from clinrag.demo.build import build_demo
from clinrag.demo.federation_files import DemoPorts, write_federation
from clinrag.demo.serve import serve_demo
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.fhir.export import write_cohort_exports
from clinrag.ingest.formats import open_reader
from clinrag.ingest.pipeline import IngestSummary, ingest_mimic
from clinrag.ingest.source import load_source_config
from clinrag.ingest.synthetic.cohort import CohortSummary, generate_cohort
from clinrag.population.tables import materialise, population_path
from clinrag.settings import describe, iter_settings

app = typer.Typer(
    name="clinrag",
    help="Answer clinical questions from evidence you may see, with a checked citation on every sentence.",
    no_args_is_help=True,
    rich_markup_mode="rich",
    pretty_exceptions_enable=False,
)


@app.command("settings")
def settings_command(config: ConfigOption = None) -> None:
    """Print the effective settings, where each value came from, and what it means.

    Values come from defaults, then clinrag.toml, then CLINRAG_* variables (nested with __, e.g.
    CLINRAG_INGEST__CHUNK_MAX_CHARS=600), then command-line options.
    """
    loaded = settings_for(config)
    table = Table(title=f"clinrag settings (file: {loaded.config_file or 'none'})")
    for column in ("setting", "value", "source", "meaning"):
        table.add_column(column, overflow="fold")
    for key, value in iter_settings(loaded.settings):
        table.add_row(key, str(value), loaded.sources[key], describe(key))
    console.print(table)


@app.command("synth")
def synth_command(
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write the cohort into.")] = Path("data/cohort"),
    patients: Annotated[int | None, typer.Option(help="Number of patients (10 to 100,000).")] = None,
    seed: Annotated[int | None, typer.Option(help="Random seed; the same seed gives identical files.")] = None,
    workers: Annotated[int | None, typer.Option(help="Worker processes (0: one per core).")] = None,
    gzip: Annotated[bool, typer.Option("--gzip", help="Write .csv.gz files as MIMIC-IV ships them.")] = False,
    fmt: Annotated[
        str,
        typer.Option("--format", help="mimic, or fhir: also a FHIR R4 Bulk Data export of each folder under OUT/fhir."),
    ] = "mimic",
    config: ConfigOption = None,
) -> None:
    """Generate a synthetic cohort in the MIMIC-IV layout, split into the three case-study hospitals.

    Writes OUT/full (every patient), OUT/hospitals/{A,B,C} (each hospital's share, MIMIC layout) and
    OUT/gold_facts.jsonl (which note and section states which diagnosis, medication, procedure, ...). With
    --format fhir, also OUT/fhir/{full,A,B,C}: the same patients as FHIR R4 Bulk Data exports (NDJSON, .ndjson.gz
    with --gzip).

    Example: clinrag synth --patients 1000 --seed 7 --out data/cohort
    """
    if fmt not in ("mimic", "fhir"):
        raise typer.BadParameter(f"--format must be mimic or fhir, not {fmt!r}")
    synth = settings_for(config, {"synth": {"patients": patients, "seed": seed, "workers": workers}}).settings.synth
    started = time.perf_counter()
    with progress("generating patients", synth.patients) as advance:
        summary = generate_cohort(
            out,
            synth.patients,
            synth.seed,
            synth.workers,
            synth.start_year,
            synth.end_year,
            compress=gzip,
            on_progress=advance,
        )
    if fmt == "fhir":
        for name, counts in write_cohort_exports(out, compress=gzip).items():
            console.print(f"FHIR export {out / 'fhir' / name}: {sum(counts.values()):,} resources")
    _print_cohort(summary, time.perf_counter() - started)


def _print_cohort(summary: CohortSummary, seconds: float) -> None:
    table = Table(title=f"Synthetic cohort: {summary.patients} patients, seed {summary.seed}, {seconds:.1f} s")
    tables = ("patients", "admissions", "discharge", "diagnoses_icd", "procedures_icd", "prescriptions")
    table.add_column("folder")
    for name in tables:
        table.add_column(name, justify="right")
    for destination, counts in summary.counts.items():
        table.add_row(destination, *(f"{counts.get(name, 0):,}" for name in tables))
    console.print(table)
    console.print(f"{summary.facts:,} gold facts in {summary.out / 'gold_facts.jsonl'}")


@app.command("ingest")
def ingest_command(
    source: Annotated[
        Path,
        typer.Argument(
            help="A MIMIC-IV folder (hosp/ and note/, CSV or CSV.GZ) or a FHIR R4 export (NDJSON, Bundles)."
        ),
    ],
    org: Annotated[
        str | None, typer.Option(help="Organisation code; defaults to the folder's clinrag-source.toml.")
    ] = None,
    store: Annotated[Path | None, typer.Option(help="Chunk store file (default: DATA_DIR/ORG/chunks.sqlite).")] = None,
    chunk_max_chars: Annotated[int | None, typer.Option(help="Longest chunk body in characters.")] = None,
    engine: EngineOption = None,
    ray_address: RayAddressOption = None,
    workers: WorkersOption = None,
    config: ConfigOption = None,
) -> None:
    """Turn MIMIC-IV (or FHIR R4) notes and tables into chunks, idempotently.

    Running it again adds nothing for unchanged data, replaces the chunks of changed notes, and removes notes
    that disappeared from the source. An interrupted run is finished by running the same command again.
    Malformed rows are reported with file and line and skipped; the rest is ingested. A FHIR export (Bulk Data
    NDJSON or Bundles) is read as the same rows; see docs/ingestion.md.

    With --engine ray, notes are chunked by a Ray Data pipeline (docs/scaling.md); the chunks are the same.

    Example: clinrag ingest data/cohort/hospitals/A
    """
    overrides = {"ingest": {"chunk_max_chars": chunk_max_chars}, **scale_overrides(engine, ray_address, workers)}
    loaded = settings_for(config, overrides)
    reader = open_reader(source)  # MIMIC-IV or FHIR; says what it looked for when the folder is neither
    chosen = load_source_config(source, org)
    path = store or loaded.settings.paths.data_dir / chosen.org / "chunks.sqlite"
    started = time.perf_counter()
    scale = loaded.settings.scale
    with (
        engine_session(scale),
        ChunkStore.open(path) as chunk_store,
        progress(f"ingesting {chosen.org}", None) as advance,
    ):
        summary = ingest_mimic(
            source,
            chunk_store,
            loaded.settings.ingest,
            chosen.org,
            on_progress=lambda stage, done: advance(done),
            reader=reader,
            chunker=note_chunker(scale),
        )
        total = chunk_store.count()
    materialise(source, population_path(path.parent), chosen.org, reader)  # the node's counting tables
    print_ingest(summary, time.perf_counter() - started, total, path)


def print_ingest(summary: IngestSummary, seconds: float, total: int, path: Path) -> None:
    """Print what an ingestion did: outcomes per scope, skipped rows and why, speed."""
    table = Table(title=f"Ingested {summary.source} as {summary.org} into {path} ({seconds:.1f} s)")
    for column in ("scope", "read", "new", "changed", "unchanged", "removed", "skipped"):
        table.add_column(column, justify="right" if column != "scope" else "left")
    for scope, outcomes in summary.outcomes.items():
        table_name = "discharge" if scope == "note" else scope
        skipped = sum(n for (name, _), n in summary.report.skipped.items() if name == table_name)
        table.add_row(
            scope,
            f"{summary.report.read[table_name]:,}",
            *(f"{outcomes.get(k, 0):,}" for k in ("new", "changed", "unchanged", "removed")),
            f"{skipped:,}",
        )
    console.print(table)
    note_seconds = summary.seconds.get("notes", 0.0)
    if summary.notes and note_seconds:
        console.print(
            f"notes: {summary.notes:,} in {note_seconds:.1f} s ({summary.notes / note_seconds:,.0f}/s); "
            f"chunks in store: {total:,}"
        )
    for (table_name, reason), count in sorted(summary.report.skipped.items()):
        errors.print(f"[yellow]skipped {count:,} row(s) of {table_name}: {reason}[/yellow]")
    for problem in summary.report.problems[:20]:
        errors.print(f"  {problem}")


@app.command("demo")
def demo_command(
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the demo cohort and node stores.")] = Path(
        "data/demo"
    ),
    patients: Annotated[int, typer.Option(help="Patients in the demo cohort.")] = 300,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 42,
    serve: Annotated[
        bool, typer.Option(help="Start the identity providers and nodes on 127.0.0.1 and serve until Ctrl-C.")
    ] = True,
    idp_port: Annotated[int, typer.Option(help="Port of Hospital A's identity provider (B, C: the next two).")] = 9401,
    node_port: Annotated[
        int, typer.Option(help="Port of Hospital A's node (B, C: the next two; the library: the one after).")
    ] = 8101,
    web_port: Annotated[int, typer.Option(help="Port of the web app.")] = 8300,
    config: ConfigOption = None,
) -> None:
    """Build the three-hospital demo federation and its library, and serve them.

    Generates the cohort (or reuses it), ingests and indexes each hospital and the library (synthetic citations and
    fictional guidelines), writes each node's config and Cedar policies under OUT/federation, then starts one
    identity provider and one node per hospital, the library's node and the web app on 127.0.0.1, prints their URLs
    and the demo users, and stops them all on Ctrl-C. Run it twice: the second build adds nothing.
    """
    loaded = settings_for(config)
    with progress("building demo", None) as advance:
        demo = build_demo(out, patients, seed, loaded.settings, on_progress=advance, on_stage=advance.stage)
    table = Table(title=f"Demo federation in {out} ({patients} synthetic patients)")
    for column in ("hospital", "department", "kind", "chunks", "patients"):
        table.add_column(column, justify="right" if column in ("chunks", "patients") else "left")
    for org, rows in demo.breakdown.items():
        for _, dept, kind, chunks, people in rows:
            table.add_row(org, dept, kind, f"{chunks:,}", f"{people:,}")
    console.print(table)
    for org, path in demo.stores.items():
        indexed = demo.indexes[org]
        added = sum(leaf.added for leaf in indexed.leaves.values())
        console.print(
            f"Hospital {org}: chunk store {path}; {len(indexed.leaves)} leaf indexes "
            f"({indexed.embedder_id}, {added:,} chunks newly embedded)"
        )
    if demo.library is not None:
        console.print(
            f"Library: {demo.library.node} ({sum(leaf.added for leaf in demo.library.indexes.leaves.values()):,} "
            f"chunks newly embedded; citations from {demo.library.citations})"
        )
    console.print(f"Gold facts: {demo.gold_facts}")
    ports = DemoPorts(idp=idp_port, node=node_port, web=web_port)
    files = write_federation(out, ports)
    console.print(f"Federation files: {files.federation} and one node config per node in {files.folder}")
    if serve:
        serve_demo(files, ports, out / "logs", config, cli=main, console=console)
    else:
        console.print(f'Try: clinrag search "What was the patient discharged on?" --node {out}/nodes/A')


app.add_typer(index_app, name="index")
app.add_typer(node_app, name="node")
app.add_typer(idp_app, name="idp")
app.add_typer(api_app, name="api")
app.add_typer(eval_app, name="eval")
app.add_typer(calc_app, name="calc")
app.add_typer(pubmed_app, name="pubmed")
app.add_typer(guidelines_app, name="guidelines")
app.command("search")(search_command)
app.command("similar")(similar_command)
app.command("ask")(ask_command)
app.command("token")(token_command)
app.command("audit")(audit_command)
app.command("web")(web_command)


def main() -> None:
    """Entry point of the ``clinrag`` console script: errors become one clear line and an exit code."""
    run_program(app)
