"""Text criteria with recall: every admission of a node whose notes support a phrase, each sentence verified.

A population question's text criterion ("reports heavy alcohol use", "presented after a mechanical fall") must find
every patient it describes, not the ten best passages. The node's whole chunk store is searched: note chunks of the
departments the asker may read that contain one of the words the phrase's concept needs (`SentenceMatcher.like`,
SQLite ``LIKE``), restricted to the criterion's sections when it names some; each such chunk is split into sentences
(`clinrag.ingest.sentences`) and every sentence is verified (`clinrag.population.phrases`: the concept's patterns,
negation, relatives, advice, past use, qualifiers). A chunk with a supporting sentence counts only if ``may_read``
(built by the node from the same Cedar policies as retrieval) allows it. Deterministic, no model.

Example:
    >>> import tempfile, pathlib
    >>> from clinrag.ingest.chunkstore import ChunkStore
    >>> from clinrag.population.query import TextCriterion
    >>> from clinrag.types import Chunk
    >>> store = ChunkStore.open(pathlib.Path(tempfile.mkdtemp()) / "chunks.sqlite")
    >>> run = store.begin_run("example")
    >>> notes = {1: "EtOH: Reports 3-4 beers daily.", 2: "EtOH: Denies alcohol use."}
    >>> for n, text in notes.items():
    ...     chunk = Chunk.create(source_id=f"note:{n}", text=text, org="A", dept="medicine", subject_id=n, hadm_id=n)
    ...     _ = store.put_source(run, "A:note", f"note:{n}", "d", [chunk])
    >>> store.commit()
    >>> [m.admission for m in text_matches(TextCriterion(phrase="reports heavy alcohol use"), store)]
    [(1, 1)]
"""

from __future__ import annotations

import logging
import re
import sqlite3
import time
from collections.abc import Callable, Collection, Iterable
from pathlib import Path

from clinrag.errors import StoreError
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.sentences import split_sentences
from clinrag.population.matches import TextMatch
from clinrag.population.phrases import SentenceMatcher, matcher_for
from clinrag.population.query import TextCriterion
from clinrag.types import Chunk, SourceKind

log = logging.getLogger("clinrag.population")

CHUNKS_FILE = "chunks.sqlite"
"""The chunk store's file name inside a node's folder (as `clinrag.retrieve.hybrid` names it)."""

_HEADING_REST = re.compile(r"^(?:\s|___)*")

MayRead = Callable[[Chunk], bool]
"""Whether the asker may read one chunk (the node builds it from its Cedar policies)."""


def allow_all(chunk: Chunk) -> bool:
    """The permission of a single-node CLI run: every chunk may be read.

    Example:
        >>> allow_all(Chunk.create(source_id="note:1", text="Falls.", org="A", dept="medicine"))
        True
    """
    return True


def text_matches(
    criterion: TextCriterion,
    chunks: ChunkStore | Path,
    *,
    depts: Collection[str] | None = None,
    may_read: MayRead = allow_all,
) -> list[TextMatch]:
    """Every sentence of the node's notes that supports ``criterion``, oldest patient first.

    ``chunks`` is the node's open chunk store, or its folder (holding ``chunks.sqlite``) or the file itself.
    ``depts`` are the departments the asker may read (None: all; empty: none); ``may_read`` is asked about each
    chunk that has a supporting sentence, and a chunk it refuses contributes nothing. Admissions are the
    ``TextMatch.admission`` of the result; several sentences of one admission are all returned (evidence).

    Raises:
        StoreError: the chunk store cannot be read.
        ValueError: the phrase has no word to look for.

    Example:
        >>> import tempfile, pathlib
        >>> text_matches(TextCriterion(phrase="mechanical fall"), pathlib.Path(tempfile.mkdtemp()) / "none.sqlite")
        Traceback (most recent call last):
        ...
        clinrag.errors.StoreError: chunk store none.sqlite cannot be read (unable to open database file)
    """
    started = time.perf_counter()
    matcher = matcher_for(criterion.phrase)
    if depts is not None and not depts:
        return []
    sections = {section.casefold() for section in criterion.sections}
    matches: list[TextMatch] = []
    candidates = refused = 0
    for chunk in _candidates(_store_file(chunks), matcher, depts):
        if chunk.subject_id is None or not matcher.reads_section(chunk.section):
            continue
        if sections and (chunk.section or "").casefold() not in sections:
            continue
        candidates += 1
        sentences = supporting_sentences(matcher, chunk.text)
        if not sentences:
            continue
        if not may_read(chunk):
            refused += 1
            continue
        matches += [
            TextMatch(chunk.subject_id, chunk.hadm_id, chunk.dept, chunk.chunk_id, _without_heading(s, chunk.section))
            for s in sentences
        ]
    matches.sort(key=lambda match: (match.subject_id, match.hadm_id or 0))
    log.info(
        "text criterion %s: %d candidate chunks, %d sentences, %d admissions, %d chunks refused, %.0f ms",
        matcher.interpretation.concept or "words",
        candidates,
        len(matches),
        len({match.admission for match in matches}),
        refused,
        (time.perf_counter() - started) * 1000,
    )
    return matches


def text_matches_of(
    criteria: Iterable[object],
    chunks: ChunkStore | Path,
    *,
    depts: Collection[str] | None = None,
    may_read: MayRead = allow_all,
) -> dict[TextCriterion, list[TextMatch]]:
    """`text_matches` of every text criterion among ``criteria`` (a query's cohort; other criteria are skipped), as
    counting (`clinrag.population.count`) takes them.

    Example:
        >>> import tempfile, pathlib
        >>> store = ChunkStore.open(pathlib.Path(tempfile.mkdtemp()) / "chunks.sqlite")
        >>> text_matches_of([TextCriterion(phrase="current smokers")], store)
        {TextCriterion(kind='text', phrase='current smokers', sections=()): []}
    """
    return {
        criterion: text_matches(criterion, chunks, depts=depts, may_read=may_read)
        for criterion in criteria
        if isinstance(criterion, TextCriterion)
    }


def supporting_sentences(matcher: SentenceMatcher, text: str) -> list[str]:
    """The sentences of ``text`` (a chunk's body) that support the matcher's phrase, each once, in order.

    Example:
        >>> supporting_sentences(matcher_for("smokers"), "Tobacco: Never smoker.\\nSmokes 1 ppd. Quit cocaine.")
        ['Smokes 1 ppd.']
    """
    if not matcher.mentions(text):
        return []
    return list(dict.fromkeys(s for s in split_sentences(text) if matcher.supports(s)))


def _without_heading(sentence: str, section: str | None) -> str:
    """The sentence without the chunk's section heading and a blank placeholder before it (``Social History: ___
    EtOH: ...`` quotes as ``EtOH: ...``); still exactly as written in the note."""
    if section and sentence.casefold().startswith(section.casefold() + ":"):
        rest = _HEADING_REST.sub("", sentence[len(section) + 1 :])
        return rest or sentence
    return sentence


def _store_file(chunks: ChunkStore | Path) -> Path:
    if isinstance(chunks, ChunkStore):
        return chunks.path
    return chunks / CHUNKS_FILE if chunks.is_dir() else chunks


def _candidates(path: Path, matcher: SentenceMatcher, depts: Collection[str] | None) -> list[Chunk]:
    """Note chunks of ``depts`` whose stored form contains a word of every group of ``matcher.like``, in source
    order; read through a connection of its own, read-only (the node's store keeps writing in its own)."""
    where = ["source_kind = ?"]
    values: list[str] = [SourceKind.NOTE.value]
    if depts is not None:
        chosen = sorted(set(depts))
        where.append(f"dept IN ({', '.join('?' * len(chosen))})")
        values += chosen
    for group in matcher.like:
        where.append("(" + " OR ".join("body LIKE ?" for _ in group) + ")")
        values += [f"%{word}%" for word in group]
    sql = f"SELECT body FROM chunks WHERE {' AND '.join(where)} ORDER BY source_id, position"
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            rows = connection.execute(sql, values).fetchall()
        finally:
            connection.close()
    except sqlite3.Error as exc:
        raise StoreError(f"chunk store {path.name} cannot be read ({exc})") from None
    return [Chunk.model_validate_json(body) for (body,) in rows]
