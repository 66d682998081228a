"""Cedar entities for clinrag's users, tree nodes and documents, shaped by ``clinrag.cedarschema``.

Every attribute the schema declares is always present: a value a record lacks becomes ``""`` (strings) or ``-1``
(the patient), so policies never meet a missing attribute. Entities are plain JSON-ready dicts in Cedar's entity
format (``{"uid": {"type": ..., "id": ...}, "attrs": {...}, "parents": []}``).

Example:
    >>> from clinrag.types import Actor
    >>> user_entity(Actor(subject="A.admin", org="A", role="admin"))["attrs"]
    {'org': 'A', 'role': 'admin', 'dept': '', 'affiliations': []}
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Any, Literal

from clinrag.types import Actor, Chunk

SCHEMA_PATH = Path(__file__).parent / "clinrag.cedarschema"
"""The Cedar schema (human-readable syntax) every policy is validated against."""

USER, NODE, DOCUMENT = "User", "Node", "Document"
SEARCH, RETRIEVE = "search", "retrieve"

Entity = dict[str, Any]
AttrValue = str | int | list[str]


def _text(value: object) -> str:
    """A string attribute: ``""`` for None, an enum's value, else ``str(value)``."""
    if value is None:
        return ""
    if isinstance(value, Enum):
        return str(value.value)
    return str(value)


def uid(entity_type: str, entity_id: str) -> dict[str, str]:
    """A Cedar entity uid in JSON form, which accepts any id text (no escaping needed)."""
    return {"type": entity_type, "id": entity_id}


def user_entity(actor: Actor) -> Entity:
    """The ``User`` entity of a verified actor; its id is the actor's subject.

    Example:
        >>> user_entity(Actor(subject="u", org="C", role="researcher", dept="neurology"))["uid"]
        {'type': 'User', 'id': 'u'}
    """
    affiliations = sorted(set(actor.affiliations))
    attrs = {"org": actor.org, "role": actor.role, "dept": _text(actor.dept), "affiliations": affiliations}
    return {"uid": uid(USER, actor.subject), "attrs": attrs, "parents": []}


def node_entity(org: str, path: str, kind: Literal["router", "leaf"], dept: str | None = None) -> Entity:
    """The ``Node`` entity of a router or leaf at ``path`` (``"A"``, ``"A/psychiatry"``); its id is the path.

    Example:
        >>> node_entity("A", "A/psychiatry", "leaf")["attrs"]["name"]
        'psychiatry'
    """
    if kind not in ("router", "leaf"):
        raise ValueError(f"node kind must be 'router' or 'leaf', not {kind!r}")
    name = path.rstrip("/").rsplit("/", 1)[-1]
    attrs = {"org": org, "path": path, "name": name, "kind": kind, "dept": _text(dept)}
    return {"uid": uid(NODE, path), "attrs": attrs, "parents": []}


DOCUMENT_ATTRIBUTES: dict[str, Callable[[Chunk], AttrValue]] = {
    "org": lambda chunk: chunk.org,
    "leaf": lambda chunk: chunk.leaf,
    "dept": lambda chunk: chunk.dept,
    "service": lambda chunk: _text(chunk.service),
    "section": lambda chunk: _text(chunk.section),
    "section_group": lambda chunk: _text(chunk.section_group),
    "note_type": lambda chunk: _text(chunk.note_type),
    "source_kind": lambda chunk: _text(chunk.source_kind),
    "patient": lambda chunk: -1 if chunk.subject_id is None else chunk.subject_id,
    "sensitivity": lambda chunk: sorted(chunk.sensitivity),
}
"""How each ``Document`` attribute is read from a chunk (missing values become ``""``, ``-1`` or ``[]``)."""

DOCUMENT_FIELDS: dict[str, str] = {
    "org": "org",
    "leaf": "leaf",
    "dept": "dept",
    "service": "service",
    "section": "section",
    "section_group": "section_group",
    "note_type": "note_type",
    "source_kind": "source_kind",
    "patient": "subject_id",
    "sensitivity": "sensitivity",
}
"""The chunk field each ``Document`` attribute is read from: chunks equal in these fields have equal attributes."""


def document_attrs(chunk: Chunk) -> dict[str, AttrValue]:
    """The ``Document`` attributes of a chunk.

    Example:
        >>> chunk = Chunk.create(source_id="note:1", text="t", org="A", dept="psychiatry", leaf="psychiatry")
        >>> document_attrs(chunk)["patient"], document_attrs(chunk)["source_kind"], document_attrs(chunk)["sensitivity"]
        (-1, 'note', [])
    """
    return {name: read(chunk) for name, read in DOCUMENT_ATTRIBUTES.items()}


def document_entity(entity_id: str, attrs: dict[str, AttrValue]) -> Entity:
    """A ``Document`` entity with the given id and attributes."""
    return {"uid": uid(DOCUMENT, entity_id), "attrs": attrs, "parents": []}
