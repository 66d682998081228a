"""``clinrag pubmed``: literature into a library node.

``clinrag pubmed fetch --query TEXT --out DIR`` fetches the records of a PubMed query with NCBI E-utilities into
gzipped PubmedArticleSet files, resumably (``ingest/pubmed_fetch.py``).
``clinrag pubmed ingest FILE… --node DIR`` reads MEDLINE/PubMed XML (annual baseline and update files, plain or
gzipped) into the node's chunk store; ``clinrag index build DIR`` then indexes it like any node, and ``clinrag
search`` / ``clinrag ask --node DIR`` search and answer from it.

Example:
    >>> from typer.testing import CliRunner
    >>> "MEDLINE" in CliRunner().invoke(pubmed_app, ["ingest", "--help"]).output
    True
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from clinrag.app.console import ConfigOption, console, errors, progress, settings_for
from clinrag.app.exits import exit_on_error
from clinrag.app.library_options import LibraryNodeOption, LibraryOrgOption, ingested_into
from clinrag.errors import ConfigError
from clinrag.index.embed import embedder_from
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.eutils import EutilsClient, EutilsConfig
from clinrag.ingest.literature import LITERATURE_DEPT, ChunkMode, Embed, ingest_medline
from clinrag.ingest.pubmed_fetch import FILE_PATTERN, FetchSummary, fetch_pubmed, parse_day

pubmed_app = typer.Typer(
    help="PubMed literature: fetch it with E-utilities, ingest MEDLINE XML into a library node.", no_args_is_help=True
)


@pubmed_app.command("ingest")
def ingest_command(
    files: Annotated[list[Path], typer.Argument(help="MEDLINE/PubMed XML files (.xml or .xml.gz), in order.")],
    node: LibraryNodeOption,
    org: LibraryOrgOption = "LIBRARY",
    dept: Annotated[str, typer.Option(help="The department (leaf) the citations go to.")] = LITERATURE_DEPT,
    chunks: Annotated[
        str, typer.Option(help="abstract: one chunk per citation; paragraphs: semantic paragraphs (embeds sentences).")
    ] = "abstract",
    config: ConfigOption = None,
) -> None:
    """Read MEDLINE/PubMed XML into a library node, streamed in constant memory.

    Every citation keeps its metadata (PMID, DOI, title, authors, journal, year, publication types, MeSH, keywords).
    Update files are honoured: a revised version replaces the stored one, DeleteCitation removes it. Running it
    again adds only what changed. Malformed records and cut-short files are reported with file, line and PMID; the
    rest is kept.

    Example: clinrag pubmed ingest pubmed25n0001.xml.gz pubmed25n1275.xml.gz --node data/library
    """
    if chunks not in ("abstract", "paragraphs"):
        errors.print(f"[red]error:[/red] --chunks is abstract or paragraphs, not {chunks!r}")
        raise typer.Exit(2)
    missing = [str(path) for path in files if not path.is_file()]
    if missing:
        errors.print(f"[red]error:[/red] no such file: {', '.join(missing)}")
        raise typer.Exit(2)
    mode: ChunkMode = "paragraphs" if chunks == "paragraphs" else "abstract"
    embed: Embed | None = None
    if mode == "paragraphs":
        loaded = settings_for(config).settings
        embed = embedder_from(loaded.index, loaded.paths.cache_dir).embed
    with exit_on_error():
        node.mkdir(parents=True, exist_ok=True)
        with ChunkStore.open(node / "chunks.sqlite") as store, progress("citations", None) as report:
            done = ingest_medline(files, store, org, dept, mode, embed, progress=report)
    console.print(
        f"{done.files} file(s): {done.new} new, {done.changed} revised, {done.unchanged} unchanged, {done.older} "
        f"older versions ignored, {done.deleted} deleted; {done.chunks} chunks written to {node / 'chunks.sqlite'}",
        highlight=False,
    )
    ingested_into(
        node,
        [
            f"{p.file}, line {p.line}{f', PMID {p.pmid}' if p.pmid is not None else ''}: {p.message}"
            for p in done.problems
        ],
    )


@pubmed_app.command("fetch")
def fetch_command(
    query: Annotated[str, typer.Option(help="PubMed query, as typed in PubMed's search box.")],
    out: Annotated[Path, typer.Option(help="Folder for the XML files and the checkpoint (created if new).")],
    from_: Annotated[
        str | None, typer.Option("--from", help="First publication date, YYYY/MM/DD (default 1781/01/01).")
    ] = None,
    to: Annotated[
        str | None, typer.Option(help="Last publication date, YYYY/MM/DD (default: end of next year).")
    ] = None,
    batch: Annotated[int | None, typer.Option(help="Records per efetch request and file (1 to 10,000).")] = None,
    email: Annotated[str | None, typer.Option(help="Your email, sent to NCBI (setting pubmed.email).")] = None,
    api_key: Annotated[
        str | None, typer.Option(help="NCBI API key: 10 requests/s instead of 3 (setting pubmed.api_key).")
    ] = None,
    config: ConfigOption = None,
) -> None:
    """Fetch the PubMed records of a query with NCBI E-utilities into gzipped XML files, resumably.

    The date range is searched in windows of publication dates small enough for E-utilities' 10,000-result cap
    (split in halves while a window holds more), each kept on the history server and fetched in batches, within
    NCBI's rate limits, retrying on 429 and 5xx. A checkpoint in --out lets an interrupted fetch resume when run
    again; a finished one fetches nothing. The files go unchanged into clinrag pubmed ingest.

    Example: clinrag pubmed fetch --query "apixaban AND atrial fibrillation" --from 2020/01/01 --to 2024/12/31
    --out data/pubmed --email me@example.org
    """
    with exit_on_error(highlight=False):
        start = parse_day(from_, "--from") if from_ is not None else None
        end = parse_day(to, "--to") if to is not None else None
        if start is not None and end is not None and start > end:
            raise ConfigError(f"--from {from_} is after --to {to}")
        settings = settings_for(config, {"pubmed": {"email": email, "api_key": api_key, "batch": batch}}).settings
    wanted = settings.pubmed
    if not wanted.email:
        errors.print(
            "[yellow]warning:[/yellow] no email set (--email or pubmed.email): NCBI asks every E-utilities user for "
            "one, to write before blocking",
            highlight=False,
        )
    try:
        with (
            exit_on_error("what was fetched is kept: run the same command again to resume", highlight=False),
            EutilsClient(EutilsConfig.from_settings(wanted)) as client,
            progress("searching", None) as report,
        ):
            done = fetch_pubmed(
                query,
                out,
                client,
                start,
                end,
                batch=wanted.batch,
                cap=wanted.window_cap,
                on_total=lambda total: report.stage("records", total),
                on_progress=report,
            )
    except KeyboardInterrupt:
        errors.print("interrupted: run the same command again to resume", highlight=False)
        raise typer.Exit(130) from None
    _print_fetch_summary(done, out)


def _print_fetch_summary(done: FetchSummary, out: Path) -> None:
    if done.already_complete:
        console.print(
            f"{out} already holds this whole fetch: {done.total_records:,} records in {done.total_files:,} files "
            f"from {done.windows:,} date windows; nothing fetched",
            highlight=False,
        )
    else:
        console.print(
            f"fetched {done.records:,} records into {done.files:,} files ({done.requests:,} requests, "
            f"{done.retries:,} retries, {done.splits:,} window splits); {out} holds {done.total_records:,} records in "
            f"{done.total_files:,} files from {done.windows:,} date windows",
            highlight=False,
        )
    for warning in done.truncated:
        errors.print(f"[yellow]warning:[/yellow] {warning}", highlight=False)
    if done.short_batches:
        errors.print(
            f"[yellow]note:[/yellow] {done.short_batches} batch(es) held fewer records than asked for (withdrawn "
            "since the search)",
            highlight=False,
        )
    console.print(f"[dim]next: clinrag pubmed ingest {out}/{FILE_PATTERN} --node data/library[/dim]", highlight=False)
