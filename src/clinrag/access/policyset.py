"""Read Cedar policy files, validate them against clinrag's schema, and give every policy a readable id.

A policy's id is its ``@id("...")`` annotation, else ``<source>:policy<N>`` (N counts the policies of that file
from 0). Ids are unique across all files; ``allow-all`` and ``default-deny`` are reserved for the engine's own
decisions. Any problem — a syntax error, a schema violation, a duplicate id, a template — raises ConfigError
naming the file, the policy and Cedar's message.

Example:
    >>> policies = parse_policies([("demo.cedar", 'permit(principal, action == Action::"search", resource);')])
    >>> list(policies.ids), policies.documents.attributes
    (['demo.cedar:policy0'], frozenset())
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import cedarpy
from cedarpy import pst

from clinrag.access.entities import DOCUMENT, RETRIEVE, SCHEMA_PATH
from clinrag.errors import ConfigError

RESERVED_IDS = frozenset({"allow-all", "default-deny"})


@cache
def schema_text() -> str:
    """The text of ``clinrag.cedarschema``."""
    return SCHEMA_PATH.read_text(encoding="utf-8")


@cache
def schema() -> cedarpy.Schema:
    """The parsed schema, shared by every engine (Cedar handles are immutable)."""
    return cedarpy.Schema.from_str(schema_text())


@dataclass(frozen=True)
class ParsedPolicies:
    """Validated policies as one Cedar policy set.

    ``documents`` says what retrieve decisions depend on, so equal documents are evaluated once.
    """

    policy_set: cedarpy.PolicySet
    ids: tuple[str, ...]
    sources: tuple[str, ...]
    documents: DocumentDependence


def read_folder(folder: Path) -> list[tuple[str, str]]:
    """``(file name, text)`` of every ``*.cedar`` file directly in ``folder``, sorted by name."""
    if not folder.is_dir():
        raise ConfigError(f"policy folder {folder} does not exist")
    files = sorted(folder.glob("*.cedar"))
    if not files:
        raise ConfigError(f"policy folder {folder} holds no *.cedar files")
    try:
        return [(path.name, path.read_text(encoding="utf-8")) for path in files]
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"cannot read policy files in {folder}: {type(error).__name__}") from None


def parse_policies(files: Iterable[tuple[str, str]]) -> ParsedPolicies:
    """Parse and validate ``(source, text)`` pairs into one policy set with readable, unique ids."""
    static: dict[str, pst.Template] = {}
    origin: dict[str, str] = {}
    sources: list[str] = []
    for source, text in files:
        sources.append(source)
        for policy_id, template in _parse_file(source, text).items():
            if policy_id in RESERVED_IDS:
                raise ConfigError(f"{source}: policy id '{policy_id}' is reserved; choose another @id")
            if policy_id in static:
                raise ConfigError(f"{source}: policy id '{policy_id}' is already used in {origin[policy_id]}")
            static[policy_id] = template
            origin[policy_id] = source
    nodes = pst.PolicySet(templates={}, static_policies=static, template_links=())
    return ParsedPolicies(
        policy_set=cedarpy.PolicySet.from_pst(nodes),
        ids=tuple(static),
        sources=tuple(sources),
        documents=document_dependence(static.values()),
    )


def _parse_file(source: str, text: str) -> dict[str, pst.Template]:
    """One file's policies keyed by their readable ids, after schema validation."""
    try:
        parsed = cedarpy.policies_to_pst(text)
    except ValueError as error:
        raise ConfigError(f"{source}: Cedar syntax error: {error}") from None
    if parsed.templates or parsed.template_links:
        raise ConfigError(f"{source}: policy templates (?principal / ?resource slots) are not supported")
    labels = {cedar_id: _label(source, cedar_id, policy) for cedar_id, policy in parsed.static_policies.items()}
    result = cedarpy.validate_policies(text, schema())
    if not result.validation_passed:
        problems = []
        for problem in result.errors:
            label = labels.get(problem.policy_id, problem.policy_id)
            message = problem.error.replace(f"`{problem.policy_id}`", f"`{label}`") if label else problem.error
            problems.append(f"policy '{label}': {message}" if label else message)
        raise ConfigError(f"{source}: invalid against the clinrag Cedar schema: {'; '.join(problems)}")
    return {
        labels[cedar_id]: dataclasses.replace(policy, id=labels[cedar_id])
        for cedar_id, policy in parsed.static_policies.items()
    }


def _label(source: str, cedar_id: str, policy: pst.Template) -> str:
    """The policy's ``@id`` annotation, else ``<source>:<cedar id>``."""
    annotated = policy.annotations.get("id")
    return annotated if annotated else f"{source}:{cedar_id}"


@dataclass(frozen=True)
class DocumentDependence:
    """What retrieve decisions can depend on besides the user: the ``Document`` attributes policies read (None:
    possibly all of them, as when a policy uses ``resource`` as a whole), and the documents policies name
    (``resource == Document::"<id>"``). Two chunks that agree on these attributes and that no policy names get
    the same decision, so they need only one evaluation.
    """

    attributes: frozenset[str] | None
    named_ids: frozenset[str]


def document_dependence(policies: Iterable[pst.Template]) -> DocumentDependence:
    """How the policies that can apply to ``retrieve`` depend on the document."""
    used: set[str] = set()
    named: set[str] = set()
    whole = False
    for policy in policies:
        if not _may_retrieve(policy.action):
            continue
        scope = policy.resource
        scoped = scope.entity if isinstance(scope, (pst.ScopeEq, pst.ScopeIn, pst.ScopeIsIn)) else None
        if isinstance(scoped, pst.EntityUid) and scoped.type.basename == DOCUMENT:
            named.add(scoped.id)
        for clause in policy.clauses:
            whole |= _collect(clause.expr, used, named)
    return DocumentDependence(attributes=None if whole else frozenset(used), named_ids=frozenset(named))


def _may_retrieve(action: pst.ActionConstraint) -> bool:
    """Whether a policy's action scope can match ``Action::"retrieve"``."""
    if isinstance(action, pst.ActionEq):
        return action.entity.id == RETRIEVE
    if isinstance(action, pst.ActionIn):
        return any(entity.id == RETRIEVE for entity in action.entities)
    return True


_RESOURCE = pst.Var(name="resource")


def _collect(expr: pst.Expr, used: set[str], named: set[str]) -> bool:
    """Add the resource attributes ``expr`` reads to ``used`` and the documents it names to ``named``; True when
    it also uses the resource as a whole (so any attribute may matter)."""
    whole = False
    stack: list[Any] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, pst.GetAttr) and node.base == _RESOURCE:
            used.add(node.attr)
        elif isinstance(node, pst.HasAttr) and node.base == _RESOURCE:
            used.update(node.attrs)
        elif isinstance(node, pst.Is) and node.base == _RESOURCE:
            stack.append(node.in_expr)
        elif node == _RESOURCE:
            whole = True
        elif isinstance(node, pst.EntityUid) and node.type.basename == DOCUMENT:
            named.add(node.id)
        elif isinstance(node, Mapping):
            stack.extend(node.values())
        elif isinstance(node, tuple):
            stack.extend(node)
        elif dataclasses.is_dataclass(node) and not isinstance(node, type):
            stack.extend(getattr(node, field.name) for field in dataclasses.fields(node))
    return whole
