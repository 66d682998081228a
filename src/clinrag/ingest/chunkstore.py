"""The chunk store of one node: chunks, the sources they came from, and the patient registry, in SQLite.

Ingestion is idempotent and resumable. Every source (a note, a table row) is stored with a digest of its
inputs; re-ingesting an unchanged source only marks it as seen, a changed one has its chunks replaced, and
when a full pass over a scope (an organisation's notes, or one of its tables) completes, sources of that scope
not seen in the pass are removed. Work is committed in batches, so a killed ingestion loses at most one batch,
and running it again ends with exactly the chunk set of an uninterrupted run.

Every chunk is stored with its sensitivity label (`clinrag.ingest.sensitivity`): `put_source` labels the chunks
it stores, and a run begun under another version of the rule table first labels every stored chunk again (its id
and text never change; the index update then rewrites those chunks' payloads without embedding them again).

Example:
    >>> import tempfile, pathlib
    >>> from clinrag.types import Chunk
    >>> store = ChunkStore.open(pathlib.Path(tempfile.mkdtemp()) / "chunks.sqlite")
    >>> run = store.begin_run("example")
    >>> chunk = Chunk.create(source_id="note:1", text="Aspirin daily.", org="A", dept="medicine")
    >>> store.put_source(run, "A:note", "note:1", "digest-1", [chunk]), store.put_source(run, "A:note", "note:1",
    ...                                                                                   "digest-1", [chunk])
    ('new', 'unchanged')
    >>> store.count()
    1
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from clinrag.errors import StoreError
from clinrag.ingest.sensitivity import Labeller, rules_version
from clinrag.types import Chunk, Patient

SCHEMA_VERSION = "1"
SENSITIVITY_KEY = "sensitivity_rules"
"""The ``meta`` key holding the version of the sensitivity rules the stored chunks were labelled with."""
Outcome = Literal["new", "changed", "unchanged"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run INTEGER PRIMARY KEY AUTOINCREMENT, source TEXT NOT NULL, started TEXT NOT NULL, finished TEXT
);
CREATE TABLE IF NOT EXISTS sources (
    source_id TEXT PRIMARY KEY, scope TEXT NOT NULL, digest TEXT NOT NULL, run INTEGER NOT NULL,
    chunks INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sources_scope_run ON sources (scope, run);
CREATE TABLE IF NOT EXISTS chunks (
    chunk_id TEXT PRIMARY KEY, source_id TEXT NOT NULL, position INTEGER NOT NULL, org TEXT NOT NULL,
    dept TEXT NOT NULL, source_kind TEXT NOT NULL, subject_id INTEGER, body TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_source ON chunks (source_id);
CREATE TABLE IF NOT EXISTS patients (
    subject_id INTEGER PRIMARY KEY, name TEXT, gender TEXT, anchor_age INTEGER, anchor_year INTEGER
);
"""


class ChunkStore:
    """A SQLite file of chunks. Open it with `ChunkStore.open`; close it with `close` (or use ``with``)."""

    def __init__(self, connection: sqlite3.Connection, path: Path, labeller: Labeller | None = None) -> None:
        self._db = connection
        self.path = path
        self._digests: dict[str, tuple[str, str]] | None = None
        self.labeller = labeller or Labeller.default()

    @classmethod
    def open(cls, path: Path) -> ChunkStore:
        """Open (creating if needed) the store at ``path``."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.executescript(_SCHEMA)
            connection.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
        except sqlite3.Error as exc:
            raise StoreError(f"{path}: cannot open chunk store ({exc})") from None
        store = cls(connection, path)
        store._db.execute("BEGIN")
        return store

    def __enter__(self) -> ChunkStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Commit what is pending and close the file."""
        if self._db.in_transaction:
            self._db.execute("COMMIT")
        self._db.close()

    def commit(self) -> None:
        """Make everything written so far durable; a crash after this loses nothing before it."""
        self._db.execute("COMMIT")
        self._db.execute("BEGIN")

    def begin_run(self, source: str) -> int:
        """Start an ingestion pass over ``source`` (a path or name, for the record); returns its run number.

        Chunks stored under another version of the sensitivity rules are labelled again first (`relabel`)."""
        self.relabel()
        cursor = self._db.execute(
            "INSERT INTO runs (source, started) VALUES (?, ?)", (source, datetime.now(UTC).isoformat())
        )
        self.commit()
        self._digests = None
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def finish_run(self, run: int) -> None:
        """Mark a run complete."""
        self._db.execute("UPDATE runs SET finished = ? WHERE run = ?", (datetime.now(UTC).isoformat(), run))
        self.commit()

    def _known(self) -> dict[str, tuple[str, str]]:
        if self._digests is None:
            rows = self._db.execute("SELECT source_id, digest, scope FROM sources")
            self._digests = {source_id: (digest, scope) for source_id, digest, scope in rows}
        return self._digests

    def is_current(self, run: int, source_id: str, digest: str) -> bool:
        """True (and the source marked as seen in ``run``) when the source is stored with this digest."""
        known = self._known().get(source_id)
        if known is None or known[0] != digest:
            return False
        self._db.execute("UPDATE sources SET run = ? WHERE source_id = ?", (run, source_id))
        return True

    def relabel(self) -> int:
        """Label every stored chunk with the sensitivity rules in force, unless they were labelled with these rules
        already; returns how many chunks changed. Ids and text never change, so this is safe at any time."""
        version = rules_version(self.labeller)
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (SENSITIVITY_KEY,)).fetchone()
        if row is not None and row[0] == version:
            return 0
        changed = []
        for chunk_id, body in self._db.execute("SELECT chunk_id, body FROM chunks"):
            chunk = Chunk.model_validate_json(body)
            labelled = self.labeller.label(chunk)
            if labelled is not chunk:
                changed.append((labelled.model_dump_json(exclude_defaults=True), chunk_id))
        self._db.executemany("UPDATE chunks SET body = ? WHERE chunk_id = ?", changed)
        self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (SENSITIVITY_KEY, version))
        self.commit()
        return len(changed)

    def put_source(self, run: int, scope: str, source_id: str, digest: str, chunks: Sequence[Chunk]) -> Outcome:
        """Store the chunks of one source, labelled (`clinrag.ingest.sensitivity`), unless it is already stored with
        the same digest."""
        if self.is_current(run, source_id, digest):
            return "unchanged"
        chunks = [self.labeller.label(chunk) for chunk in chunks]
        known = self._known()
        outcome: Outcome = "changed" if source_id in known else "new"
        if outcome == "changed":
            self._db.execute("DELETE FROM chunks WHERE source_id = ?", (source_id,))
        self._db.executemany(
            "INSERT OR IGNORE INTO chunks VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    c.chunk_id,
                    c.source_id,
                    c.position,
                    c.org,
                    c.dept,
                    c.source_kind.value,
                    c.subject_id,
                    c.model_dump_json(exclude_defaults=True),
                )
                for c in chunks
            ],
        )
        self._db.execute(
            "INSERT OR REPLACE INTO sources VALUES (?, ?, ?, ?, ?)", (source_id, scope, digest, run, len(chunks))
        )
        known[source_id] = (digest, scope)
        return outcome

    def digest_of(self, source_id: str) -> str | None:
        """The digest ``source_id`` is stored with, or None when it is not stored."""
        known = self._known().get(source_id)
        return known[0] if known else None

    def remove_source(self, source_id: str) -> bool:
        """Remove one source and its chunks (a withdrawn citation); whether it was stored."""
        if source_id not in self._known():
            return False
        self._db.execute("DELETE FROM chunks WHERE source_id = ?", (source_id,))
        self._db.execute("DELETE FROM sources WHERE source_id = ?", (source_id,))
        self._known().pop(source_id, None)
        return True

    def sweep(self, run: int, scope: str) -> int:
        """Remove the sources of ``scope`` not seen in ``run`` (they disappeared from the input); returns how many."""
        stale = [
            row[0]
            for row in self._db.execute("SELECT source_id FROM sources WHERE scope = ? AND run != ?", (scope, run))
        ]
        for source_id in stale:
            self._db.execute("DELETE FROM chunks WHERE source_id = ?", (source_id,))
            self._db.execute("DELETE FROM sources WHERE source_id = ?", (source_id,))
            self._known().pop(source_id, None)
        self.commit()
        return len(stale)

    def put_patients(self, patients: Iterable[Patient]) -> int:
        """Insert or update patients in the registry; returns how many were given."""
        rows = [(p.subject_id, p.name, p.gender, p.anchor_age, p.anchor_year) for p in patients]
        self._db.executemany("INSERT OR REPLACE INTO patients VALUES (?, ?, ?, ?, ?)", rows)
        return len(rows)

    def patients(self, dept: str | None = None) -> Iterator[tuple[int, str | None]]:
        """The registry: (subject_id, name) of every patient this store knows, or only of those with chunks in
        department ``dept`` (a leaf's own registry)."""
        if dept is None:
            yield from self._db.execute("SELECT subject_id, name FROM patients ORDER BY subject_id")
            return
        yield from self._db.execute(
            "SELECT subject_id, name FROM patients WHERE subject_id IN "
            "(SELECT DISTINCT subject_id FROM chunks WHERE dept = ? AND subject_id IS NOT NULL) ORDER BY subject_id",
            (dept,),
        )

    def admissions(self, subject_id: int) -> list[int]:
        """The patient's admissions (hadm_id) that have chunks here, oldest first."""
        rows = self._db.execute(
            "SELECT json_extract(body, '$.hadm_id') AS hadm, MIN(json_extract(body, '$.admittime')) AS admitted "
            "FROM chunks WHERE subject_id = ? AND hadm IS NOT NULL GROUP BY hadm ORDER BY admitted, hadm",
            (subject_id,),
        )
        return [int(hadm) for hadm, _ in rows]

    def admission_spans(self, subject_id: int) -> list[tuple[int, datetime | None, datetime | None]]:
        """The patient's admissions that have chunks here, oldest first, each with when it began and ended (the
        earliest admit and latest discharge time its chunks carry; None where none does)."""
        rows = self._db.execute(
            "SELECT json_extract(body, '$.hadm_id') AS hadm, MIN(json_extract(body, '$.admittime')) AS admitted, "
            "MAX(json_extract(body, '$.dischtime')) FROM chunks WHERE subject_id = ? AND hadm IS NOT NULL "
            "GROUP BY hadm ORDER BY admitted, hadm",
            (subject_id,),
        )
        return [(int(hadm), _moment(admitted), _moment(discharged)) for hadm, admitted, discharged in rows]

    def count(self, **where: str | int) -> int:
        """Number of chunks, optionally filtered on org, dept, source_kind or subject_id."""
        clause, values = _where(where)
        return int(self._db.execute(f"SELECT COUNT(*) FROM chunks{clause}", values).fetchone()[0])

    def chunk_ids(self, **where: str | int) -> set[str]:
        """Every chunk id in the store, optionally filtered like `count`."""
        clause, values = _where(where)
        return {row[0] for row in self._db.execute(f"SELECT chunk_id FROM chunks{clause}", values)}

    def chunks(self, **where: str | int) -> Iterator[Chunk]:
        """Chunks in source order, optionally filtered on org, dept, source_kind or subject_id."""
        clause, values = _where(where)
        for (body,) in self._db.execute(f"SELECT body FROM chunks{clause} ORDER BY source_id, position", values):
            yield Chunk.model_validate_json(body)

    def breakdown(self) -> list[tuple[str, str, str, int, int]]:
        """(org, dept, source_kind, chunks, patients) for every department, for summaries."""
        return list(
            self._db.execute(
                "SELECT org, dept, source_kind, COUNT(*), COUNT(DISTINCT subject_id) FROM chunks "
                "GROUP BY org, dept, source_kind ORDER BY org, dept, source_kind"
            )
        )

    def source_counts(self) -> dict[str, int]:
        """Number of stored sources per scope."""
        return dict(self._db.execute("SELECT scope, COUNT(*) FROM sources GROUP BY scope").fetchall())


_FILTERABLE = frozenset({"org", "dept", "source_kind", "subject_id"})


def _where(where: dict[str, str | int]) -> tuple[str, list[str | int]]:
    unknown = set(where) - _FILTERABLE
    if unknown:
        raise ValueError(f"cannot filter chunks on {sorted(unknown)}; use {sorted(_FILTERABLE)}")
    if not where:
        return "", []
    return " WHERE " + " AND ".join(f"{key} = ?" for key in where), list(where.values())


def _moment(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None
