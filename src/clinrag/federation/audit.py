"""The node's append-only audit log: who asked, when, a hash of the question, what was searched, denied and
returned (chunk ids and subject ids, never text).

Each line is a JSON object carrying the SHA-256 of the line before it, so an edited, removed or reordered line
breaks the chain, and `AuditLog.verify` says where.

Example:
    >>> import tempfile, pathlib
    >>> log = AuditLog(pathlib.Path(tempfile.mkdtemp()) / "audit.jsonl")
    >>> _ = log.record(AuditEntry(node="A", subject="A.phys", org="A", role="physician", outcome="ok",
    ...                            question_sha256=question_hash("Who had a stroke?")))
    >>> [entry.subject for entry in log.query(user="A.phys")], log.verify()
    (['A.phys'], 1)
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from clinrag.errors import StoreError

GENESIS = "0" * 64


def question_hash(question: str) -> str:
    """SHA-256 of the question's text: the log can show that two requests asked the same thing, not what.

    Example:
        >>> len(question_hash("Who had a stroke?"))
        64
    """
    return hashlib.sha256(question.encode()).hexdigest()


class AuditEntry(BaseModel):
    """One request to a node."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    time: datetime = Field(default_factory=lambda: datetime.now(UTC))
    node: str
    subject: str = ""
    org: str = ""
    role: str = ""
    outcome: Literal["ok", "denied", "unauthenticated", "too_large", "invalid", "rate_limited", "error"] = Field(
        description="ok; denied (at the gate); refused: unauthenticated (401), too_large (413), invalid (422), "
        "rate_limited (429); error."
    )
    status: int = Field(0, description="The HTTP status answered (0 in lines written before it was recorded).")
    client: str = Field("", description="The client's address, for requests refused before a user was verified.")
    question_sha256: str = ""
    mode: str = ""
    searched: tuple[str, ...] = ()
    denied: tuple[str, ...] = ()
    returned: tuple[str, ...] = ()
    patients: tuple[int, ...] = ()
    detail: str = ""
    previous: str = GENESIS


class AuditLog:
    """An append-only JSON-lines file, hash-chained; safe to share between a node's threads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._last: str | None = None

    def record(self, entry: AuditEntry, sync: bool = True) -> AuditEntry:
        """Append ``entry`` (chained to the last line) and flush it to disk; returns what was written.

        ``sync=False`` (a refused request) leaves the line with the operating system instead of waiting for the
        disk, so a flood of refusals costs no disk flush each; the next synced line flushes it with its own."""
        with self._lock:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                previous = self._last if self._last is not None else self._tail_hash()
                chained = entry.model_copy(update={"previous": previous})
                line = chained.model_dump_json()
                with self.path.open("a", encoding="utf-8") as handle:
                    handle.write(line + "\n")
                    handle.flush()
                    if sync:
                        os.fsync(handle.fileno())
            except OSError as exc:
                raise StoreError(f"{self.path}: cannot append to the audit log ({exc.strerror})") from None
            self._last = _line_hash(line)
            return chained

    def entries(self) -> Iterator[AuditEntry]:
        """Every entry, oldest first."""
        if not self.path.is_file():
            return
        with self.path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if line.strip():
                    try:
                        yield AuditEntry.model_validate_json(line)
                    except ValueError:
                        raise StoreError(f"{self.path}:{number}: not an audit entry") from None

    def query(
        self,
        user: str | None = None,
        patient: int | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        org: str | None = None,
    ) -> list[AuditEntry]:
        """Entries by ``user`` (subject), that returned records of ``patient``, from ``org``, in [since, until)."""
        found = []
        for entry in self.entries():
            if user is not None and entry.subject != user:
                continue
            if org is not None and entry.org != org:
                continue
            if patient is not None and patient not in entry.patients:
                continue
            if since is not None and entry.time < _aware(since):
                continue
            if until is not None and entry.time >= _aware(until):
                continue
            found.append(entry)
        return found

    def verify(self) -> int:
        """Check the hash chain; returns the number of entries.

        Raises:
            StoreError: naming the first line whose chain link is broken.
        """
        previous = GENESIS
        count = 0
        if not self.path.is_file():
            return 0
        with self.path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                text = line.rstrip("\n")
                if not text:
                    continue
                try:
                    link = json.loads(text).get("previous")
                except ValueError:
                    raise StoreError(f"{self.path}:{number}: not JSON; the log was altered") from None
                if link != previous:
                    raise StoreError(f"{self.path}:{number}: chain broken; the log was altered before this line")
                previous = _line_hash(text)
                count += 1
        return count

    def _tail_hash(self) -> str:
        if not self.path.is_file():
            return GENESIS
        last = ""
        with self.path.open(encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    last = line.rstrip("\n")
        return _line_hash(last) if last else GENESIS


def _line_hash(line: str) -> str:
    return hashlib.sha256(line.encode()).hexdigest()


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
