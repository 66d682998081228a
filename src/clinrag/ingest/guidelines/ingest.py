"""A folder of curated guidelines into a library node's chunk store, beside its citations.

Every HTML (``.html``, ``.htm``), PDF (``.pdf``) and Markdown (``.md``, ``.markdown``) document under the folder is a
guideline document, described by its manifest (`clinrag.ingest.guidelines.manifest`: ``NAME.toml`` beside it, else
the nearest ``guideline.toml`` in its folder or above). Its headings become sections; each section's lines are
packed into chunks of whole sentences (``ingest.chunk_max_chars``), each carrying the `types.Guideline` (publisher,
title, URL, date, licence), its section path in ``section`` and the document's path in ``note_id``; its ``context``
(indexed, never shown) is "publisher, title (year) | section". The chunk's date is the guideline's, so date filters
apply; ``source_kind`` is ``guideline``, the department ``guidelines`` unless told otherwise.

The folder is the library's whole guideline collection, mirrored: a document stored with the same content, manifest
and settings is unchanged (not even read again), a changed one is replaced, and one no longer in the folder is
removed. A document whose publisher is not on the node's allow-list is reported and not stored (removed if it was).
Bad input — no manifest, an invalid manifest, a file that cannot be read or holds no text — is reported with the
file and the reason and skipped; a version stored by an earlier run is kept. Work is committed every ``batch``
documents, so a killed run loses at most one batch and running it again finishes it.

Example:
    >>> import tempfile, pathlib
    >>> from clinrag.ingest.guidelines.manifest import AllowList
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "af.md").write_text("# Dose\\n\\nGive 5 mg twice daily.\\n")
    >>> _ = (folder / "af.toml").write_text('title = "AF"\\npublisher = "ECS"\\nurl = "https://x.org/af"\\n'
    ...                                     'date = 2024-03-15\\nlicence = "CC BY 4.0"\\n')
    >>> with ChunkStore.open(folder / "node" / "chunks.sqlite") as store:
    ...     report = ingest_guidelines(folder, store, AllowList(publishers=("ECS",)), org="LIB")
    ...     chunk = next(store.chunks())
    >>> report.new, chunk.section, chunk.text, chunk.guideline.short
    (1, 'Dose', 'Give 5 mg twice daily.', 'ECS, AF, 2024-03-15, https://x.org/af')
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Final, Literal

from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.guidelines.blocks import Block, section_chunks, sections
from clinrag.ingest.guidelines.html_reader import read_html
from clinrag.ingest.guidelines.manifest import (
    ALLOW_LIST,
    FOLDER_MANIFEST,
    AllowList,
    GuidelineManifest,
    ManifestError,
    load_manifest,
)
from clinrag.ingest.guidelines.markdown_reader import read_markdown
from clinrag.ingest.guidelines.pdf_reader import PDF_ERRORS, read_pdf
from clinrag.ingest.literature import write_library_vocabulary
from clinrag.types import Chunk, Guideline, SourceKind

GUIDELINES_DEPT: Final = "guidelines"
SCOPE: Final = "guidelines"
READER_VERSION: Final = "1"
"""Part of every document's digest: a change to the readers re-reads every document."""
DocumentKind = Literal["html", "pdf", "markdown"]
KINDS: Final[dict[str, DocumentKind]] = {
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    ".pdf": "pdf",
    ".md": "markdown",
    ".markdown": "markdown",
}
_READERS: Final[dict[DocumentKind, Callable[[bytes], list[Block]]]] = {
    "html": read_html,
    "pdf": read_pdf,
    "markdown": read_markdown,
}


@dataclass(frozen=True)
class GuidelineProblem:
    """A document skipped: the file at fault (the document, or its manifest), why, and the document concerned."""

    file: Path
    reason: str
    document: Path | None = None

    def __str__(self) -> str:
        about = f" (for {self.document})" if self.document is not None and self.document != self.file else ""
        return f"{self.file}: {self.reason}{about}"


@dataclass
class GuidelineReport:
    """What an ingestion did: documents new, changed (replaced), unchanged, removed (gone from the folder or their
    publisher no longer allowed), not allowed, skipped as bad input (``kept``: of those, how many kept a version
    stored before), files ignored (not HTML, PDF or Markdown), chunks written, and the problems."""

    documents: int = 0
    new: int = 0
    changed: int = 0
    unchanged: int = 0
    removed: int = 0
    not_allowed: int = 0
    skipped: int = 0
    kept: int = 0
    ignored: int = 0
    chunks: int = 0
    problems: list[GuidelineProblem] = field(default_factory=list)


def source_id_of(folder: Path, document: Path) -> str:
    """The chunk store's id of ``document``: its path under the guidelines folder.

    Example:
        >>> source_id_of(Path("guidelines"), Path("guidelines/ecs/af.html"))
        'guideline:ecs/af.html'
    """
    return f"guideline:{document.relative_to(folder).as_posix()}"


def find_documents(folder: Path) -> tuple[list[Path], int]:
    """The guideline documents under ``folder`` in path order, and how many other files were ignored (manifests,
    the allow-list and hidden files not counted)."""
    documents: list[Path] = []
    ignored = 0
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if any(part.startswith(".") for part in relative.parts) or not path.is_file():
            continue
        if path.suffix.lower() in KINDS:
            documents.append(path)
        elif path.suffix.lower() != ".toml" and path.name != ALLOW_LIST:
            ignored += 1
    return documents, ignored


def manifest_path(folder: Path, document: Path) -> Path | None:
    """The manifest of ``document``: ``NAME.toml`` beside it, else the nearest ``guideline.toml`` in its folder or
    a folder above it, up to ``folder``; None when there is none."""
    beside = document.with_suffix(".toml")
    if beside.is_file():
        return beside
    for parent in document.parents:
        if (parent / FOLDER_MANIFEST).is_file():
            return parent / FOLDER_MANIFEST
        if parent == folder:
            break
    return None


def header(guideline: Guideline, section: str) -> str:
    """The indexed context of a guideline chunk: publisher, title, year and section.

    Example:
        >>> from datetime import date
        >>> header(Guideline(title="AF", publisher="ECS", url="https://x.org", date=date(2024, 3, 1), licence="x"),
        ...        "Management > Dose")
        'ECS, AF (2024) | Management > Dose: '
    """
    parts = [f"{guideline.publisher}, {guideline.title} ({guideline.date.year})", section]
    return " | ".join(part for part in parts if part) + ": "


def guideline_chunks(
    blocks: list[Block], guideline: Guideline, source_id: str, document: str, org: str, dept: str, max_chars: int
) -> list[Chunk]:
    """The chunks of one document's blocks (see the module docstring)."""
    when = datetime(guideline.date.year, guideline.date.month, guideline.date.day)
    chunks: list[Chunk] = []
    for section in sections(blocks, title=guideline.title):
        for body in section_chunks(section, max_chars):
            chunks.append(
                Chunk.create(
                    source_id=source_id,
                    text=body,
                    context=header(guideline, section.title),
                    source_kind=SourceKind.GUIDELINE,
                    position=len(chunks),
                    org=org,
                    dept=dept,
                    leaf=dept,
                    note_id=document,
                    section=section.title or None,
                    charttime=when,
                    guideline=guideline,
                )
            )
    return chunks


def _digest(content: bytes, manifest: GuidelineManifest, org: str, dept: str, max_chars: int) -> str:
    digest = hashlib.blake2b(content, digest_size=16)
    digest.update(f"\x1f{manifest.model_dump_json()}\x1f{org}\x1f{dept}\x1f{max_chars}".encode())
    return f"r{READER_VERSION}:{digest.hexdigest()}"


class _SkipError(Exception):
    """A document that cannot be used this time (bad input); carries the problem to report."""

    def __init__(self, problem: GuidelineProblem) -> None:
        super().__init__(str(problem))
        self.problem = problem


class _Manifests:
    """Each manifest loaded once per run."""

    def __init__(self) -> None:
        self._loaded: dict[Path, GuidelineManifest | ManifestError] = {}

    def get(self, path: Path) -> GuidelineManifest | ManifestError:
        if path not in self._loaded:
            try:
                self._loaded[path] = load_manifest(path)
            except ManifestError as exc:
                self._loaded[path] = exc
        return self._loaded[path]


def _manifest_of(folder: Path, document: Path, manifests: _Manifests) -> GuidelineManifest:
    path = manifest_path(folder, document)
    if path is None:
        reason = f"no manifest: write {document.with_suffix('.toml').name} beside it or {FOLDER_MANIFEST} in its folder"
        raise _SkipError(GuidelineProblem(document, reason, document))
    manifest = manifests.get(path)
    if isinstance(manifest, ManifestError):
        raise _SkipError(GuidelineProblem(path, "; ".join(manifest.reasons), document))
    return manifest


def _blocks_of(document: Path, content: bytes) -> list[Block]:
    kind = KINDS[document.suffix.lower()]
    try:
        return _READERS[kind](content)
    except PDF_ERRORS as exc:
        raise _SkipError(GuidelineProblem(document, f"not a readable PDF ({type(exc).__name__})", document)) from None
    except UnicodeDecodeError:
        raise _SkipError(GuidelineProblem(document, "not UTF-8 text", document)) from None


def _ingest_one(
    folder: Path,
    document: Path,
    store: ChunkStore,
    run: int,
    allowed: AllowList,
    manifests: _Manifests,
    where: tuple[str, str, int],
) -> tuple[Literal["new", "changed", "unchanged", "not_allowed"], int]:
    """Ingest one document: its outcome and the chunks written; raises `_SkipError` for bad input."""
    org, dept, max_chars = where
    manifest = _manifest_of(folder, document, manifests)
    if not allowed.allows(manifest.publisher):
        return "not_allowed", 0
    try:
        content = document.read_bytes()
    except OSError as exc:
        raise _SkipError(GuidelineProblem(document, f"cannot be read ({exc.strerror})", document)) from None
    source_id = source_id_of(folder, document)
    digest = _digest(content, manifest, org, dept, max_chars)
    if store.is_current(run, source_id, digest):
        return "unchanged", 0
    relative = document.relative_to(folder).as_posix()
    chunks = guideline_chunks(
        _blocks_of(document, content), manifest.guideline(), source_id, relative, org, dept, max_chars
    )
    if not chunks:
        raise _SkipError(GuidelineProblem(document, "no text found (a scanned PDF needs OCR first)", document))
    return store.put_source(run, SCOPE, source_id, digest, chunks), len(chunks)


def ingest_guidelines(
    folder: Path,
    store: ChunkStore,
    allowed: AllowList,
    org: str,
    dept: str = GUIDELINES_DEPT,
    max_chars: int = 800,
    progress: Callable[[int], None] | None = None,
    batch: int = 50,
) -> GuidelineReport:
    """Ingest the guideline documents under ``folder`` into ``store`` (see the module docstring)."""
    report = GuidelineReport()
    documents, report.ignored = find_documents(folder)
    manifests = _Manifests()
    run = store.begin_run(f"guidelines:{folder}")
    for done, document in enumerate(documents, start=1):
        report.documents += 1
        try:
            outcome, written = _ingest_one(folder, document, store, run, allowed, manifests, (org, dept, max_chars))
        except _SkipError as skip:
            report.problems.append(skip.problem)
            report.skipped += 1
            source_id = source_id_of(folder, document)
            stored = store.digest_of(source_id)
            if stored is not None and store.is_current(run, source_id, stored):
                report.kept += 1
        else:
            setattr(report, outcome, getattr(report, outcome) + 1)
            report.chunks += written
            if outcome == "not_allowed":
                publisher = _manifest_of(folder, document, manifests).publisher
                reason = f"publisher '{publisher}' is not on the library's allow-list ({ALLOW_LIST})"
                report.problems.append(GuidelineProblem(document, reason, document))
        if done % batch == 0:
            store.commit()
        if progress is not None:
            progress(done)
    store.commit()
    report.removed = store.sweep(run, SCOPE)
    store.finish_run(run)
    write_library_vocabulary(store)
    return report
