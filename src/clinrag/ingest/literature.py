"""Literature into a library node: MEDLINE citations become chunks in the node's chunk store, with the
citation's metadata in every chunk (`types.Citation`), ready for `clinrag index build` like any node.

Chunks, selectable:

- ``abstract`` (default): the whole abstract, title first, one chunk per citation;
- ``paragraphs``: semantic paragraphs, as the published PubMed assistant made them — the abstract's sentences are
  embedded and split where the similarity of neighbouring sentences has a local minimum below the abstract's mean
  (`semantic_paragraphs`), each paragraph opening with the title.

Each chunk's ``context`` (indexed, never shown as text) is the metadata header: first author, journal, year,
publication types and MeSH terms, so a search for "randomised trial of apixaban" finds the trial. The chunk's date
is the publication's (year and month), so "since 2020" filters as it does for notes.

Ingestion is idempotent and follows update files: a citation stored with the same content is unchanged; a revised
version replaces an older one and never the reverse; ``DeleteCitation`` removes it; malformed records and cut-short
files are reported with file, line and PMID and the rest is kept.

Example:
    >>> from clinrag.ingest.synthetic.medline import synthetic_records
    >>> chunks = abstract_chunks(synthetic_records(1, seed=2)[0], org="LIB", dept="literature")
    >>> chunks[0].source_kind.value, chunks[0].citation.pmid, chunks[0].text.split("\\n")[0].endswith(".")
    ('abstract', 30000000, True)
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Final, Literal

import numpy as np

from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.medline import Deletion, MedlineRecord, Problem, read_medline
from clinrag.ingest.sentences import split_sentences
from clinrag.types import Chunk, Citation, SourceKind

ChunkMode = Literal["abstract", "paragraphs"]
LITERATURE_DEPT: Final = "literature"
SCOPE: Final = "literature"
Embed = Callable[[Sequence[str]], "np.typing.NDArray[np.float32]"]
"""Normalised sentence vectors, one row per text (for semantic paragraphs)."""


def citation_of(record: MedlineRecord) -> Citation:
    """The citation metadata kept with every chunk of ``record``."""
    return Citation(
        pmid=record.pmid,
        title=record.title,
        authors=tuple(author.display for author in record.authors if author.display),
        year=record.year,
        month=record.month,
        journal=record.journal,
        journal_abbrev=record.journal_abbrev,
        volume=record.volume,
        issue=record.issue,
        pages=record.pages,
        doi=record.doi,
        languages=record.languages,
        publication_types=record.publication_types,
        mesh=tuple(heading.descriptor for heading in record.mesh),
        mesh_major=tuple(heading.descriptor for heading in record.mesh if heading.major),
        keywords=record.keywords,
    )


def metadata_header(citation: Citation) -> str:
    """The indexed header of a citation's chunks: who, where, when, what kind of study, about what."""
    kinds = ", ".join(t for t in citation.publication_types if t != "Journal Article")
    parts = [citation.short, kinds, "; ".join(citation.mesh)]
    return " | ".join(part for part in parts if part) + ": "


def semantic_paragraphs(sentences: Sequence[str], vectors: np.ndarray) -> list[list[str]]:
    """Sentences grouped into paragraphs, split after sentence i where the cosine similarity of sentences i and i+1
    is a local minimum below the mean of all neighbouring similarities.

    Example:
        >>> v = np.array([[1, 0], [1, 0], [0, 1], [0, 1]], dtype=float)
        >>> semantic_paragraphs(["a", "b", "c", "d"], v)
        [['a', 'b'], ['c', 'd']]
    """
    if len(sentences) < 3:
        return [list(sentences)] if sentences else []
    similarity = np.sum(vectors[:-1] * vectors[1:], axis=1)
    mean = float(similarity.mean())
    cuts = [
        i
        for i in range(len(similarity))
        if similarity[i] < mean
        and (i == 0 or similarity[i] <= similarity[i - 1])
        and (i == len(similarity) - 1 or similarity[i] <= similarity[i + 1])
    ]
    paragraphs, start = [], 0
    for cut in cuts:
        paragraphs.append(list(sentences[start : cut + 1]))
        start = cut + 1
    paragraphs.append(list(sentences[start:]))
    return [p for p in paragraphs if p]


def abstract_chunks(
    record: MedlineRecord, org: str, dept: str, mode: ChunkMode = "abstract", embed: Embed | None = None
) -> list[Chunk]:
    """The chunks of one citation (see the module docstring); ``embed`` is needed for ``paragraphs``."""
    citation = citation_of(record)
    when = datetime(record.year, record.month or 1, 1) if record.year else None
    bodies: list[tuple[str, str]]
    if mode == "paragraphs" and record.abstract:
        if embed is None:
            raise ValueError("semantic paragraphs need an embedder")
        sentences = [s for section in record.abstract for s in split_sentences(section.text)]
        groups = semantic_paragraphs(sentences, embed(sentences)) if sentences else []
        bodies = [(f"Paragraph {i}", f"{record.title}\n{' '.join(group)}") for i, group in enumerate(groups, start=1)]
    else:
        bodies = [("Abstract", f"{record.title}\n{record.abstract_text}".strip())]
    return [
        Chunk.create(
            source_id=f"pubmed:{record.pmid}",
            text=text,
            context=metadata_header(citation),
            source_kind=SourceKind.ABSTRACT,
            position=position,
            org=org,
            dept=dept,
            leaf=dept,
            note_id=f"PMID:{record.pmid}",
            section=section,
            charttime=when,
            citation=citation,
        )
        for position, (section, text) in enumerate(bodies)
    ]


def _digest(record: MedlineRecord, mode: ChunkMode) -> str:
    content = record.model_dump_json(exclude={"line"})
    return f"v{record.version}:{mode}:{hashlib.blake2b(content.encode(), digest_size=16).hexdigest()}"


def _version(digest: str | None) -> int:
    if not digest or not digest.startswith("v"):
        return 0
    head = digest[1:].split(":", 1)[0]
    return int(head) if head.isdigit() else 0


VOCABULARY_FILE: Final = "library.json"
_WORDS: Final = re.compile(r"[a-z][a-z-]{3,}[a-z]")
"""Words of five letters or more: what a question's misspellings are corrected to."""
"""Beside a library's chunk store: what its citations may be filtered on (`library_vocabulary`)."""


def library_vocabulary(store: ChunkStore) -> dict[str, object]:
    """What a library's questions may filter on, from its stored citations: authors by surname (the forms cited,
    ``Smith J``), journals (title and abbreviation → title), publication types and MeSH descriptors, each with how
    many citations have it; how many citations and guidelines it holds; the years they were published (a citation's
    year, a guideline's date) with their counts, so that a year no source has is not filtered on; and the words of
    its titles, abstracts, keywords and MeSH terms (and of its guidelines' sections and text) with their counts,
    which misspelt question words are corrected to.

    Example:
        >>> import tempfile, pathlib
        >>> from clinrag.ingest.synthetic.medline import synthetic_records
        >>> store = ChunkStore.open(pathlib.Path(tempfile.mkdtemp()) / "chunks.sqlite")
        >>> run = store.begin_run("x")
        >>> record = synthetic_records(1, seed=2)[0]
        >>> _ = store.put_source(run, SCOPE, "pubmed:1", "d", abstract_chunks(record, "LIB", "literature"))
        >>> vocabulary = library_vocabulary(store)
        >>> vocabulary["journals"][record.journal_abbrev.lower()] == record.journal
        True
    """
    authors: dict[str, dict[str, int]] = {}
    words: dict[str, int] = {}
    journals: dict[str, str] = {}
    types: dict[str, int] = {}
    mesh: dict[str, int] = {}
    years: dict[str, int] = {}
    seen: set[int] = set()
    for chunk in store.chunks(source_kind=SourceKind.ABSTRACT.value):
        citation = chunk.citation
        if citation is None or citation.pmid in seen:
            continue
        seen.add(citation.pmid)
        for author in citation.authors:
            surname = author.rsplit(" ", 1)[0] if " " in author else author
            forms = authors.setdefault(surname.casefold(), {})
            forms[author] = forms.get(author, 0) + 1
        if citation.journal:
            journals[citation.journal.casefold()] = citation.journal
            if citation.journal_abbrev:
                journals[citation.journal_abbrev.casefold()] = citation.journal
        for kind in citation.publication_types:
            types[kind] = types.get(kind, 0) + 1
        for descriptor in citation.mesh:
            mesh[descriptor] = mesh.get(descriptor, 0) + 1
        if citation.year:
            years[str(citation.year)] = years.get(str(citation.year), 0) + 1
        for word in _WORDS.findall(" ".join((chunk.text, *citation.keywords, *citation.mesh)).lower()):
            words[word] = words.get(word, 0) + 1
    guidelines: set[str] = set()
    for chunk in store.chunks(source_kind=SourceKind.GUIDELINE.value):  # a guideline's words are the library's too
        if chunk.guideline is not None and chunk.source_id not in guidelines:
            year = str(chunk.guideline.date.year)
            years[year] = years.get(year, 0) + 1
        guidelines.add(chunk.source_id)
        for word in _WORDS.findall(f"{chunk.section or ''} {chunk.text}".lower()):
            words[word] = words.get(word, 0) + 1
    return {
        "citations": len(seen),
        "guidelines": len(guidelines),
        "authors": authors,
        "journals": journals,
        "publication_types": types,
        "mesh": mesh,
        "years": years,
        "words": words,
    }


def write_library_vocabulary(store: ChunkStore) -> Path:
    """Write `library_vocabulary` beside the store (``library.json``, replaced atomically); returns its path."""
    path = store.path.parent / VOCABULARY_FILE
    partial = path.with_suffix(".json.tmp")
    partial.write_text(json.dumps(library_vocabulary(store), sort_keys=True))
    partial.replace(path)
    return path


@dataclass
class LiteratureReport:
    """What an ingestion did: citations new, changed (revised), unchanged, older versions ignored, deleted, and the
    problems (file, line, PMID, why)."""

    files: int = 0
    new: int = 0
    changed: int = 0
    unchanged: int = 0
    older: int = 0
    deleted: int = 0
    chunks: int = 0
    problems: list[Problem] = field(default_factory=list)


def ingest_medline(
    files: Iterable[Path],
    store: ChunkStore,
    org: str,
    dept: str = LITERATURE_DEPT,
    mode: ChunkMode = "abstract",
    embed: Embed | None = None,
    progress: Callable[[int], None] | None = None,
    batch: int = 500,
) -> LiteratureReport:
    """Ingest MEDLINE XML ``files`` into ``store`` (see the module docstring); committed every ``batch`` citations,
    so a killed run loses at most one batch and running it again finishes it."""
    report = LiteratureReport()
    run = store.begin_run("pubmed")
    seen = 0
    for path in files:
        report.files += 1
        for event in read_medline(path):
            if isinstance(event, Problem):
                report.problems.append(event)
                continue
            if isinstance(event, Deletion):
                report.deleted += sum(store.remove_source(f"pubmed:{pmid}") for pmid in event.pmids)
                continue
            source_id = f"pubmed:{event.pmid}"
            if _version(store.digest_of(source_id)) > event.version:
                report.older += 1
                continue
            chunks = abstract_chunks(event, org, dept, mode, embed)
            outcome = store.put_source(run, SCOPE, source_id, _digest(event, mode), chunks)
            setattr(report, outcome, getattr(report, outcome) + 1)
            report.chunks += len(chunks) if outcome != "unchanged" else 0
            seen += 1
            if seen % batch == 0:
                store.commit()
                if progress is not None:
                    progress(seen)
    store.commit()
    store.finish_run(run)
    write_library_vocabulary(store)
    if progress is not None:
        progress(seen)
    return report
