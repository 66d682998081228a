"""Who may search which tree node and retrieve which document, decided by Cedar policies, with reasons.

Semantics are Cedar's: default deny; any satisfied ``permit`` allows (policies OR), the conditions of one policy
must all hold (AND), and any satisfied ``forbid`` wins. Two actions exist: ``Action::"search"`` on a ``Node``
(router or leaf) and ``Action::"retrieve"`` on a ``Document`` (a chunk). Every decision names the policies that
determined it; a denial no policy forbade carries the reason ``default-deny``.

Example:
    >>> from clinrag.types import Actor
    >>> engine = PolicyEngine.from_text('''
    ...     @id("clinicians-search")
    ...     permit(principal, action == Action::"search", resource)
    ...     when { principal.org == resource.org && ["physician", "nurse"].contains(principal.role) };
    ... ''')
    >>> nurse = Actor(subject="n1", org="A", role="nurse")
    >>> engine.can_search(nurse, "A", "A/psychiatry", "leaf")
    Decision(allowed=True, reasons=('clinicians-search',), errors=())
    >>> engine.can_search(nurse, "B", "B", "router").reasons
    ('default-deny',)
"""

from __future__ import annotations

import json
import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from typing import Any, Literal

import cedarpy

from clinrag.access.entities import (
    DOCUMENT_ATTRIBUTES,
    DOCUMENT_FIELDS,
    RETRIEVE,
    SEARCH,
    USER,
    AttrValue,
    Entity,
    document_attrs,
    document_entity,
    node_entity,
    uid,
    user_entity,
)
from clinrag.access.policyset import DocumentDependence, ParsedPolicies, parse_policies, read_folder
from clinrag.types import Actor, Chunk

ALLOW_ALL = "allow-all"
DEFAULT_DENY = "default-deny"


@dataclass(frozen=True)
class Decision:
    """An access decision and why: the ids (``@id`` annotations, else Cedar policy ids) of the policies that
    determined it — the satisfied permits when allowed, the satisfied forbids when forbidden, ``default-deny``
    when nothing permitted. ``errors`` names policies that failed to evaluate (values redacted); Cedar skips them.

    Example:
        >>> Decision(allowed=False, reasons=("default-deny",)).allowed
        False
    """

    allowed: bool
    reasons: tuple[str, ...]
    errors: tuple[str, ...] = ()


class Verdict(IntEnum):
    """A retrieve decision as a leaf counts it: allowed, refused, or refused only because of the document's
    sensitivity label (the same document without the label would be allowed)."""

    REFUSED = 0
    ALLOWED = 1
    WITHHELD_SENSITIVE = 2


_ALLOWED_BY_ALL = Decision(allowed=True, reasons=(ALLOW_ALL,))
_EVALUATION_ERROR = re.compile(r"^error while evaluating policy `(?P<policy>[^`]*)`: (?P<message>.*)$", re.DOTALL)
_QUOTED = re.compile(r"`[^`]*`")


class PolicyEngine:
    """Evaluates one organisation's Cedar policies. Immutable and thread-safe; build it once per node.

    Example:
        >>> from clinrag.access.demo import POLICY_ROOT, demo_user
        >>> engine = PolicyEngine.load(POLICY_ROOT / "A")
        >>> engine.can_search(demo_user("A.tech.rad"), "A", "A/orthopaedics", "leaf").allowed
        True
    """

    def __init__(self, policies: ParsedPolicies | None) -> None:
        """Wrap parsed policies; None means "policies off" (everything allowed). Prefer the class methods."""
        self._policies = policies
        self._key_of = _key_reader(policies.documents) if policies is not None else None

    @classmethod
    def load(cls, folder: Path) -> PolicyEngine:
        """Every ``*.cedar`` file in ``folder`` (sorted by name), validated against the clinrag schema.

        Raises ConfigError naming the file, the policy id and Cedar's message when a policy is invalid.

        Example:
            >>> from clinrag.access.demo import POLICY_ROOT
            >>> "c-router" in PolicyEngine.load(POLICY_ROOT / "C").policy_ids
            True
        """
        return cls(parse_policies(read_folder(Path(folder))))

    @classmethod
    def from_text(cls, text: str, source: str = "<policies>") -> PolicyEngine:
        """Policies from Cedar text; ``source`` names it in errors and in default policy ids.

        Example:
            >>> PolicyEngine.from_text('permit(principal, action, resource is Document);', "t.cedar").policy_ids
            ('t.cedar:policy0',)
        """
        return cls(parse_policies([(source, text)]))

    @classmethod
    def allow_all(cls) -> PolicyEngine:
        """Policies off: every search and every retrieval is allowed, with the reason ``allow-all``.

        Example:
            >>> PolicyEngine.allow_all().can_search(Actor(subject="x", org="Z", role="guest"), "A", "A", "router")
            Decision(allowed=True, reasons=('allow-all',), errors=())
        """
        return cls(None)

    @property
    def policy_ids(self) -> tuple[str, ...]:
        """The ids of the loaded policies, in file order (empty when everything is allowed)."""
        return () if self._policies is None else self._policies.ids

    @property
    def sources(self) -> tuple[str, ...]:
        """The files (or sources) the policies came from."""
        return () if self._policies is None else self._policies.sources

    def can_search(
        self,
        actor: Actor,
        org: str,
        path: str,
        kind: Literal["router", "leaf"],
        dept: str | None = None,
    ) -> Decision:
        """May ``actor`` search the ``kind`` node at ``path`` (``"A"``, ``"A/psychiatry"``) of organisation ``org``?

        Example:
            >>> from clinrag.access.demo import POLICY_ROOT, demo_user
            >>> engine = PolicyEngine.load(POLICY_ROOT / "C")
            >>> engine.can_search(demo_user("B.phys"), "C", "C", "router").allowed
            False
        """
        node = node_entity(org, path, kind, dept)
        if self._policies is None:
            return _ALLOWED_BY_ALL
        request = _request(actor, SEARCH, node["uid"])
        result = cedarpy.is_authorized_batch([request], self._policies.policy_set, [user_entity(actor), node])[0]
        return _decision(result)

    def document_keys(self, chunks: Sequence[Chunk]) -> list[tuple[object, ...]]:
        """What a retrieve decision on each chunk depends on besides the user (the fields the attributes the
        policies read come from, and the chunk id if a policy names it): chunks with equal keys get equal
        decisions, so callers may remember them.

        Example:
            >>> from clinrag.access.demo import POLICY_ROOT
            >>> note = Chunk.create(source_id="note:1", text="t", org="A", dept="psychiatry", leaf="psychiatry")
            >>> other = Chunk.create(source_id="note:2", text="u", org="A", dept="psychiatry", leaf="psychiatry")
            >>> keys = PolicyEngine.load(POLICY_ROOT / "A").document_keys([note, other])
            >>> keys[0] == keys[1]
            True
        """
        key_of = self._key_of
        return [()] * len(chunks) if key_of is None else [key_of(chunk) for chunk in chunks]

    def can_retrieve(self, actor: Actor, chunks: Sequence[Chunk]) -> list[Decision]:
        """One decision per chunk, in order: may ``actor`` retrieve it? Evaluated in one Cedar batch.

        Chunks whose attributes the policies cannot tell apart share one evaluation, so a typical batch of
        thousands of chunks costs a few distinct requests.

        Example:
            >>> from clinrag.access.demo import POLICY_ROOT, demo_user
            >>> note = Chunk.create(source_id="note:1", text="t", org="A", dept="psychiatry", leaf="psychiatry")
            >>> engine = PolicyEngine.load(POLICY_ROOT / "A")
            >>> [d.allowed for d in engine.can_retrieve(demo_user("A.nurse"), [note])]
            [True]
            >>> engine.can_retrieve(demo_user("A.admin"), [note])[0].reasons
            ('a-psychiatry-clinicians-only',)
        """
        if self._policies is None:
            return [_ALLOWED_BY_ALL] * len(chunks)
        if not chunks:
            return []
        assert self._key_of is not None
        groups, slots = _group(chunks, self._policies.documents, self._key_of)
        by_group: dict[int, Decision] = {}
        user = user_entity(actor)
        for batch in _batches(groups):
            entities: list[Entity] = [user]
            requests: list[dict[str, Any]] = []
            for index in batch:
                document = document_entity(*groups[index])
                entities.append(document)
                requests.append(_request(actor, RETRIEVE, document["uid"]))
            results = cedarpy.is_authorized_batch(requests, self._policies.policy_set, json.dumps(entities))
            by_group.update(zip(batch, map(_decision, results), strict=True))
        return [by_group[slot] for slot in slots]

    def verdicts(self, actor: Actor, chunks: Sequence[Chunk]) -> list[Verdict]:
        """`can_retrieve` as `Verdict`s: a refused chunk with a sensitivity label that would be allowed without it is
        `Verdict.WITHHELD_SENSITIVE` (whichever policy refused it), so a leaf can say how many sensitive passages
        the policies withheld, apart from other refusals.

        Example:
            >>> from clinrag.access.demo import POLICY_ROOT, demo_user
            >>> def ortho(text, *labels):
            ...     return Chunk.create(source_id="note:1", text=text, org="A", dept="orthopaedics",
            ...                         leaf="orthopaedics", sensitivity=labels)
            >>> engine = PolicyEngine.load(POLICY_ROOT / "A")
            >>> engine.verdicts(demo_user("A.tech.rad"), [ortho("Hip."), ortho("PMH: bipolar I.", "mental_health")])
            [<Verdict.ALLOWED: 1>, <Verdict.WITHHELD_SENSITIVE: 2>]
            >>> engine.verdicts(demo_user("A.admin"), [ortho("PMH: bipolar I.", "mental_health")])
            [<Verdict.REFUSED: 0>]
        """
        decisions = self.can_retrieve(actor, chunks)
        verdicts = [Verdict.ALLOWED if decision.allowed else Verdict.REFUSED for decision in decisions]
        labelled = [index for index, chunk in enumerate(chunks) if not decisions[index].allowed and chunk.sensitivity]
        if labelled:
            bare = [chunks[index].model_copy(update={"sensitivity": ()}) for index in labelled]
            for index, decision in zip(labelled, self.can_retrieve(actor, bare), strict=True):
                if decision.allowed:
                    verdicts[index] = Verdict.WITHHELD_SENSITIVE
        return verdicts


def _key_reader(depends: DocumentDependence) -> Callable[[Chunk], tuple[object, ...]]:
    """What a retrieve decision on a chunk depends on under these policies: the chunk id when a policy names it
    (else None), then the chunk fields the attributes the policies read come from (`DOCUMENT_FIELDS`)."""
    names = sorted(DOCUMENT_ATTRIBUTES if depends.attributes is None else depends.attributes)
    # The raw fields, read in one C call: attributes are functions of them, so equal fields mean equal decisions.
    fields = operator.attrgetter(*(DOCUMENT_FIELDS[name] for name in names)) if names else None
    named = depends.named_ids

    def key_of(chunk: Chunk) -> tuple[object, ...]:
        return (chunk.chunk_id if chunk.chunk_id in named else None, fields(chunk) if fields is not None else None)

    return key_of


def _group(
    chunks: Sequence[Chunk], depends: DocumentDependence, key_of: Callable[[Chunk], tuple[object, ...]]
) -> tuple[list[tuple[str, dict[str, AttrValue]]], list[int]]:
    """The distinct documents to evaluate as ``(entity id, attributes)``, and each chunk's index among them.

    Chunks that agree on every attribute the policies read, and that no policy names, get the same decision, so
    they share one Cedar document. A shared document gets a synthetic id no policy names; a named chunk keeps its
    chunk id.
    """
    named = depends.named_ids
    groups: list[tuple[str, dict[str, AttrValue]]] = []
    slots: list[int] = []
    seen: dict[tuple[object, ...], int] = {}
    for chunk in chunks:
        key = key_of(chunk)
        identity = chunk.chunk_id if key[0] is not None else None
        slot = seen.get(key)
        if slot is None:
            slot = seen[key] = len(groups)
            groups.append((identity or _synthetic_id(slot, named), document_attrs(chunk)))
        slots.append(slot)
    return groups, slots


def _batches(groups: list[tuple[str, dict[str, AttrValue]]]) -> list[list[int]]:
    """Group indices split into batches whose entity ids are distinct. One batch, unless a chunk id that a policy
    names occurs with different attributes (a chunk id is a content address, so that should not happen)."""
    batches: list[list[int]] = []
    uses: dict[str, int] = {}
    for index, (entity_id, _) in enumerate(groups):
        round_ = uses.get(entity_id, 0)
        uses[entity_id] = round_ + 1
        if round_ == len(batches):
            batches.append([])
        batches[round_].append(index)
    return batches


def _synthetic_id(slot: int, named: frozenset[str]) -> str:
    """An entity id for a shared document that no policy names (and no chunk id, which is hex, can equal)."""
    entity_id = f"group:{slot}"
    while entity_id in named:
        entity_id += "'"
    return entity_id


def _request(actor: Actor, action: str, resource: dict[str, str]) -> dict[str, Any]:
    """A Cedar request in the JSON uid form (any id text is accepted, nothing needs escaping)."""
    return {"principal": uid(USER, actor.subject), "action": uid("Action", action), "resource": resource}


def _decision(result: cedarpy.AuthzResult) -> Decision:
    """Our Decision from cedarpy's result: reasons are policy ids (we named the policies by their ``@id``)."""
    diagnostics = result.diagnostics
    errors = tuple(_redact(message) for message in diagnostics.errors)
    reasons = tuple(diagnostics.reasons)
    if result.allowed:
        return Decision(allowed=True, reasons=reasons, errors=errors)
    return Decision(allowed=False, reasons=reasons or (DEFAULT_DENY,), errors=errors)


def _redact(message: str) -> str:
    """An evaluation error as ``<policy id>: <message>`` with quoted values (attribute contents) removed."""
    match = _EVALUATION_ERROR.match(message)
    if match is None:
        return _QUOTED.sub("`…`", message)
    return f"{match['policy']}: {_QUOTED.sub('`…`', match['message'])}"
