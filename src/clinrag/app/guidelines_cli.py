"""``clinrag guidelines``: curated guidelines into a library node.

``clinrag guidelines ingest DIR --node NODE`` reads the HTML, PDF and Markdown guidelines under DIR, each described
by a TOML manifest, into the node's chunk store beside its citations; ``clinrag index build NODE`` then indexes
them and ``clinrag ask --node NODE`` answers from them, citing publisher, title, date and URL.

Example:
    >>> from typer.testing import CliRunner
    >>> "allow-list" in CliRunner().invoke(guidelines_app, ["ingest", "--help"]).output
    True
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from clinrag.app.console import ConfigOption, console, errors, progress, settings_for
from clinrag.app.exits import exit_on_error
from clinrag.app.library_options import LibraryNodeOption, LibraryOrgOption, ingested_into
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.guidelines.ingest import GUIDELINES_DEPT, find_documents, ingest_guidelines
from clinrag.ingest.guidelines.manifest import allow_publishers, load_allow_list

guidelines_app = typer.Typer(
    help="Curated guidelines: ingest HTML, PDF and Markdown documents into a library node.", no_args_is_help=True
)


@guidelines_app.command("ingest")
def ingest_command(
    folder: Annotated[Path, typer.Argument(help="The folder of guideline documents and their TOML manifests.")],
    node: LibraryNodeOption,
    allow: Annotated[
        list[str] | None,
        typer.Option(help="Add a publisher to the node's allow-list (guideline-publishers.toml) first; repeatable."),
    ] = None,
    org: LibraryOrgOption = "LIBRARY",
    dept: Annotated[str, typer.Option(help="The department (leaf) the guidelines go to.")] = GUIDELINES_DEPT,
    config: ConfigOption = None,
) -> None:
    """Read the guidelines under FOLDER into a library node: HTML (.html, .htm), PDF and Markdown (.md).

    Each document needs a TOML manifest — NAME.toml beside it, or guideline.toml in its folder — with title,
    publisher, url, date and licence. Headings become sections, tables rows of 'cell | cell', and sections chunks
    of whole sentences. Only publishers on the node's allow-list (NODE/guideline-publishers.toml; --allow adds one)
    are ingested. FOLDER is the library's whole guideline collection: running it again skips unchanged documents,
    replaces changed ones and removes those no longer there. Bad documents and manifests are reported with the
    file and the reason and skipped; the rest is kept.

    Example: clinrag guidelines ingest guidelines/ --node data/library --allow "Example Cardiology Society"
    """
    if not folder.is_dir():
        errors.print(f"[red]error:[/red] no such folder: {folder}", highlight=False)
        raise typer.Exit(2)
    loaded = settings_for(config).settings
    with exit_on_error(highlight=False):
        allowed = allow_publishers(node, tuple(allow)) if allow else load_allow_list(node)
        total = len(find_documents(folder)[0])
        with ChunkStore.open(node / "chunks.sqlite") as store, progress("guideline documents", total) as report:
            done = ingest_guidelines(folder, store, allowed, org, dept, loaded.ingest.chunk_max_chars, progress=report)
    console.print(
        f"{done.documents} document(s): {done.new} new, {done.changed} replaced, {done.unchanged} unchanged, "
        f"{done.removed} removed, {done.not_allowed} not allowed, {done.skipped} skipped"
        f"{f' ({done.kept} kept as stored before)' if done.kept else ''}; {done.chunks} chunks written to "
        f"{node / 'chunks.sqlite'}" + (f"; {done.ignored} other file(s) ignored" if done.ignored else ""),
        highlight=False,
    )
    ingested_into(node, [str(problem) for problem in done.problems])
