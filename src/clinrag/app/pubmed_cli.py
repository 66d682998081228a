"""``clinrag pubmed``: literature into a library node (issue 20).

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
from clinrag.errors import ClinragError
from clinrag.index.embed import embedder_from
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.literature import LITERATURE_DEPT, ChunkMode, Embed, ingest_medline

pubmed_app = typer.Typer(help="PubMed literature: ingest MEDLINE XML into a library node.", no_args_is_help=True)
SHOWN_PROBLEMS = 20


@pubmed_app.command("ingest")
def ingest_command(
    files: Annotated[list[Path], typer.Argument(help="MEDLINE/PubMed XML files (.xml or .xml.gz), in order.")],
    node: Annotated[Path, typer.Option(help="The library node's folder (created if new).")],
    org: Annotated[str, typer.Option(help="The library's organisation name.")] = "LIBRARY",
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
    try:
        node.mkdir(parents=True, exist_ok=True)
        with ChunkStore.open(node / "chunks.sqlite") as store, progress("citations", None) as report:
            done = ingest_medline(files, store, org, dept, mode, embed, progress=report)
    except ClinragError as exc:
        errors.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(exc.exit_code) from None
    console.print(
        f"{done.files} file(s): {done.new} new, {done.changed} revised, {done.unchanged} unchanged, {done.older} "
        f"older versions ignored, {done.deleted} deleted; {done.chunks} chunks written to {node / 'chunks.sqlite'}",
        highlight=False,
    )
    for problem in done.problems[:SHOWN_PROBLEMS]:
        pmid = f", PMID {problem.pmid}" if problem.pmid is not None else ""
        errors.print(
            f"[yellow]skipped:[/yellow] {problem.file}, line {problem.line}{pmid}: {problem.message}", highlight=False
        )
    if len(done.problems) > SHOWN_PROBLEMS:
        errors.print(f"… and {len(done.problems) - SHOWN_PROBLEMS} more problems", highlight=False)
    console.print(f"[dim]next: clinrag index build {node}[/dim]", highlight=False)
