"""The web app's state in one SQLite file: browser sessions (with a pending sign-in or a signed-in user) and each
user's conversations and their turns. Every conversation query names its owner: histories are private.

A session row is keyed by the SHA-256 of the cookie's random id, so the file alone does not give anyone a cookie.

Example:
    >>> store = WebStore(Path(":memory:"))
    >>> session = store.new_session(lifetime=3600)
    >>> conversation = store.new_conversation("issuer|A.phys", "Who had a stroke?")
    >>> [c.title for c in store.conversations("issuer|A.phys")], store.conversations("issuer|B.phys")
    (['Who had a stroke?'], [])
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TITLE_CHARS = 80
_SCHEMA = """
create table if not exists sessions (
    key text primary key, created real not null, expires real not null, csrf text not null,
    owner text, subject text, org text, role text, dept text, affiliations text, name text, token text,
    login_org text, login_state text, login_nonce text, login_verifier text, login_started real
);
create table if not exists conversations (
    id text primary key, owner text not null, title text not null, created real not null, updated real not null
);
create index if not exists conversations_owner on conversations(owner, updated);
create table if not exists turns (
    id text primary key, conversation text not null references conversations(id) on delete cascade,
    owner text not null, created real not null, question text not null, options text not null,
    status text not null, result text, error text, finished real
);
create index if not exists turns_conversation on turns(conversation, created);
"""


def session_key(cookie_id: str) -> str:
    """The database key of a session cookie's id.

    Example:
        >>> len(session_key("abc"))
        64
    """
    return hashlib.sha256(cookie_id.encode()).hexdigest()


@dataclass(frozen=True)
class Session:
    """A browser session: its cookie id (only in memory), CSRF token, and the signed-in user if any."""

    cookie_id: str
    csrf: str
    expires: float
    owner: str | None = None
    subject: str | None = None
    org: str | None = None
    role: str | None = None
    dept: str | None = None
    affiliations: tuple[str, ...] = ()
    name: str | None = None
    token: str | None = None
    login_org: str | None = None
    login_state: str | None = None
    login_nonce: str | None = None
    login_verifier: str | None = None
    login_started: float | None = None

    @property
    def signed_in(self) -> bool:
        """True when a verified user holds this session."""
        return self.owner is not None and self.token is not None


@dataclass(frozen=True)
class SignedInUser:
    """What the web app keeps of a verified sign-in."""

    owner: str
    subject: str
    org: str
    role: str
    dept: str | None
    affiliations: tuple[str, ...]
    name: str
    token: str
    expires: float


@dataclass(frozen=True)
class Conversation:
    """One conversation of a user: an id, a title (its first question) and when it last changed."""

    id: str
    title: str
    updated: float


@dataclass(frozen=True)
class Turn:
    """One question of a conversation and, once answered, its result (the answer and its evidence, as JSON)."""

    id: str
    conversation: str
    question: str
    options: dict[str, Any]
    status: str
    result: dict[str, Any] | None
    error: str | None
    created: float


class WebStore:
    """Sessions and histories in SQLite; safe to share between threads.

    Example:
        >>> store = WebStore(Path(":memory:"))
        >>> store.session("nonexistent") is None
        True
    """

    def __init__(self, path: Path) -> None:
        if str(path) != ":memory:":
            path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._lock = threading.Lock()
        with self._cursor() as db:
            db.execute("pragma foreign_keys = on")
            if str(path) != ":memory:":
                db.execute("pragma journal_mode = wal")
            db.executescript(_SCHEMA)

    @contextmanager
    def _cursor(self) -> Iterator[sqlite3.Cursor]:
        with self._lock:
            cursor = self._db.cursor()
            try:
                yield cursor
            finally:
                cursor.close()

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()

    # --- sessions ----------------------------------------------------------------------------------------------

    def new_session(self, lifetime: float, user: SignedInUser | None = None) -> Session:
        """A new session with a fresh cookie id and CSRF token (signed in as ``user`` when given)."""
        cookie_id, csrf, now = secrets.token_urlsafe(32), secrets.token_urlsafe(32), time.time()
        expires = now + lifetime if user is None else min(now + lifetime, user.expires)
        with self._cursor() as db:
            db.execute("delete from sessions where expires < ?", (now,))
            db.execute(
                "insert into sessions (key, created, expires, csrf, owner, subject, org, role, dept, affiliations,"
                " name, token) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session_key(cookie_id),
                    now,
                    expires,
                    csrf,
                    *(
                        (
                            user.owner,
                            user.subject,
                            user.org,
                            user.role,
                            user.dept,
                            json.dumps(list(user.affiliations)),
                            user.name,
                            user.token,
                        )
                        if user is not None
                        else (None,) * 8
                    ),
                ),
            )
        return self.session(cookie_id) or Session(cookie_id, csrf, expires)

    def session(self, cookie_id: str) -> Session | None:
        """The live session of a cookie id, or None (unknown or expired)."""
        with self._cursor() as db:
            row = db.execute(
                "select * from sessions where key = ? and expires >= ?", (session_key(cookie_id), time.time())
            ).fetchone()
        if row is None:
            return None
        fields = dict(row)
        fields.pop("key")
        fields.pop("created")
        fields["affiliations"] = tuple(json.loads(fields["affiliations"] or "[]"))
        return Session(cookie_id=cookie_id, **fields)

    def start_login(self, cookie_id: str, org: str, state: str, nonce: str, verifier: str) -> None:
        """Remember a sign-in begun in this session (one at a time: a new one replaces the last)."""
        with self._cursor() as db:
            db.execute(
                "update sessions set login_org = ?, login_state = ?, login_nonce = ?, login_verifier = ?,"
                " login_started = ? where key = ?",
                (org, state, nonce, verifier, time.time(), session_key(cookie_id)),
            )

    def end_session(self, cookie_id: str) -> None:
        """Forget a session (sign-out, or the anonymous session a sign-in replaces)."""
        with self._cursor() as db:
            db.execute("delete from sessions where key = ?", (session_key(cookie_id),))

    # --- conversations -----------------------------------------------------------------------------------------

    def new_conversation(self, owner: str, first_question: str) -> Conversation:
        """A new conversation of ``owner`` titled after its first question."""
        title = " ".join(first_question.split())
        title = title if len(title) <= TITLE_CHARS else title[: TITLE_CHARS - 1].rstrip() + "…"
        conversation = Conversation(uuid.uuid4().hex, title, time.time())
        with self._cursor() as db:
            db.execute(
                "insert into conversations (id, owner, title, created, updated) values (?, ?, ?, ?, ?)",
                (conversation.id, owner, conversation.title, conversation.updated, conversation.updated),
            )
        return conversation

    def conversations(self, owner: str, most: int = 100) -> list[Conversation]:
        """``owner``'s conversations, the most recently changed first."""
        with self._cursor() as db:
            rows = db.execute(
                "select id, title, updated from conversations where owner = ? order by updated desc limit ?",
                (owner, most),
            ).fetchall()
        return [Conversation(row["id"], row["title"], row["updated"]) for row in rows]

    def conversation(self, owner: str, conversation_id: str) -> Conversation | None:
        """One of ``owner``'s conversations, or None (unknown, or someone else's)."""
        with self._cursor() as db:
            row = db.execute(
                "select id, title, updated from conversations where owner = ? and id = ?", (owner, conversation_id)
            ).fetchone()
        return None if row is None else Conversation(row["id"], row["title"], row["updated"])

    def delete_conversation(self, owner: str, conversation_id: str) -> bool:
        """Delete one of ``owner``'s conversations and its turns; False if there was none to delete."""
        with self._cursor() as db:
            deleted = db.execute(
                "delete from conversations where owner = ? and id = ?", (owner, conversation_id)
            ).rowcount
        return deleted > 0

    # --- turns -------------------------------------------------------------------------------------------------

    def add_turn(self, owner: str, conversation_id: str, question: str, options: Mapping[str, Any]) -> Turn:
        """A pending turn asking ``question`` in one of ``owner``'s conversations."""
        turn = Turn(uuid.uuid4().hex, conversation_id, question, dict(options), "pending", None, None, time.time())
        with self._cursor() as db:
            db.execute(
                "insert into turns (id, conversation, owner, created, question, options, status)"
                " values (?, ?, ?, ?, ?, ?, ?)",
                (turn.id, conversation_id, owner, turn.created, question, json.dumps(turn.options), turn.status),
            )
            db.execute("update conversations set updated = ? where id = ?", (turn.created, conversation_id))
        return turn

    def claim_turn(self, owner: str, turn_id: str) -> bool:
        """Mark a pending turn as running; False when it is not pending (already running or finished)."""
        with self._cursor() as db:
            claimed = db.execute(
                "update turns set status = 'running' where owner = ? and id = ? and status = 'pending'",
                (owner, turn_id),
            ).rowcount
        return claimed > 0

    def finish_turn(self, owner: str, turn_id: str, result: Mapping[str, Any] | None, error: str | None) -> None:
        """Store a turn's result, or the error that ended it (a message safe to show its owner)."""
        status = "failed" if result is None else "done"
        with self._cursor() as db:
            db.execute(
                "update turns set status = ?, result = ?, error = ?, finished = ? where owner = ? and id = ?",
                (status, None if result is None else json.dumps(result), error, time.time(), owner, turn_id),
            )

    def turn(self, owner: str, turn_id: str) -> Turn | None:
        """One of ``owner``'s turns, or None."""
        with self._cursor() as db:
            row = db.execute("select * from turns where owner = ? and id = ?", (owner, turn_id)).fetchone()
        return None if row is None else _turn(row)

    def turns(self, owner: str, conversation_id: str) -> list[Turn]:
        """The turns of one of ``owner``'s conversations, oldest first."""
        with self._cursor() as db:
            rows = db.execute(
                "select * from turns where owner = ? and conversation = ? order by created", (owner, conversation_id)
            ).fetchall()
        return [_turn(row) for row in rows]


def _turn(row: sqlite3.Row) -> Turn:
    return Turn(
        id=row["id"],
        conversation=row["conversation"],
        question=row["question"],
        options=json.loads(row["options"]),
        status=row["status"],
        result=None if row["result"] is None else json.loads(row["result"]),
        error=row["error"],
        created=row["created"],
    )
