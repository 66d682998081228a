"""Property test: PolicyEngine.can_retrieve agrees with a reference evaluator written in Python.

Each example draws users, documents and a policy set from a small grammar (permit / forbid; action scopes; ``when``
conditions joined by AND, an optional ``unless``; attribute comparisons, set membership, negation, disjunction,
principal-to-resource comparisons and named documents), renders the policies as Cedar, and compares every
(user, document) decision — allowed and reasons — with the reference semantics: default deny, permits OR,
conditions AND, forbid wins. Documents carry sensitivity labels (a set) that policies test with ``contains`` and
``containsAny``. At least 200 × 2 × 25 = 10,000 pairs are checked per run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clinrag.access.entities import document_attrs
from clinrag.access.policy import PolicyEngine, Verdict
from clinrag.types import Actor, Chunk, SourceKind

EXAMPLES = 200
MIN_USERS, MIN_DOCS = 2, 25

ORGS = ("A", "B", "C")
ROLES = ("physician", "nurse", "admin", "researcher")
DEPTS = ("", "medicine", "neurology")
AFFILIATIONS = ("C_neuro", "A_cardio")
STRING_VALUES: dict[str, tuple[str, ...]] = {
    "org": ORGS,
    "leaf": ("", "admissions", "medicine", "neurology"),
    "dept": DEPTS[1:],
    "service": ("", "MED", "PSYCH"),
    "section": ("", "Discharge Medications", "Brief Hospital Course"),
    "note_type": ("", "DS"),
    "source_kind": ("note", "row", "abstract", "calculator"),
    "section_group": ("", "discharge_plan"),
}
PATIENTS = (None, 1, 2, 3)
CATEGORIES = ("mental_health", "substance_use", "hiv")
LABELS: tuple[tuple[str, ...], ...] = ((), ("hiv",), ("mental_health", "substance_use"), CATEGORIES)
PRINCIPAL_VALUES: dict[str, tuple[str, ...]] = {"org": ORGS, "role": ROLES, "dept": DEPTS}

Attributes = dict[str, Any]


@dataclass(frozen=True)
class Condition:
    """A boolean expression: its Cedar text and its meaning over (principal attributes, document attributes)."""

    cedar: str
    holds: Callable[[Attributes, Attributes], bool]


def _quote(value: str) -> str:
    return '"' + value + '"'


@st.composite
def atoms(draw: st.DrawFn, chunk_ids: tuple[str, ...], *, documents: bool = True) -> Condition:
    """One comparison; with ``documents`` False only the principal is read (valid for search policies too)."""
    kinds = ["p_eq", "p_aff", "true"]
    if documents:
        kinds += ["r_eq", "r_in", "patient", "same", "named", "label", "labels"]
    kind = draw(st.sampled_from(kinds))
    if kind == "p_eq":
        attr = draw(st.sampled_from(sorted(PRINCIPAL_VALUES)))
        value = draw(st.sampled_from(PRINCIPAL_VALUES[attr]))
        return Condition(f"principal.{attr} == {_quote(value)}", lambda p, r: p[attr] == value)
    if kind == "p_aff":
        value = draw(st.sampled_from(AFFILIATIONS))
        return Condition(f"principal.affiliations.contains({_quote(value)})", lambda p, r: value in p["affiliations"])
    if kind == "r_eq":
        attr = draw(st.sampled_from(sorted(STRING_VALUES)))
        value = draw(st.sampled_from(STRING_VALUES[attr]))
        return Condition(f"resource.{attr} == {_quote(value)}", lambda p, r: r[attr] == value)
    if kind == "r_in":
        attr = draw(st.sampled_from(sorted(STRING_VALUES)))
        values = draw(st.lists(st.sampled_from(STRING_VALUES[attr]), min_size=1, max_size=3, unique=True))
        listed = ", ".join(_quote(value) for value in values)
        return Condition(f"[{listed}].contains(resource.{attr})", lambda p, r: r[attr] in values)
    if kind == "patient":
        op = draw(st.sampled_from(["==", "<", ">="]))
        number = draw(st.integers(min_value=-1, max_value=3))
        compare = {"==": int.__eq__, "<": int.__lt__, ">=": int.__ge__}[op]
        return Condition(f"resource.patient {op} {number}", lambda p, r: bool(compare(r["patient"], number)))
    if kind == "label":
        value = draw(st.sampled_from(CATEGORIES))
        return Condition(f"resource.sensitivity.contains({_quote(value)})", lambda p, r: value in r["sensitivity"])
    if kind == "labels":
        values = draw(st.lists(st.sampled_from(CATEGORIES), min_size=1, max_size=2, unique=True))
        listed = ", ".join(_quote(value) for value in values)
        return Condition(
            f"resource.sensitivity.containsAny([{listed}])", lambda p, r: bool(set(values) & set(r["sensitivity"]))
        )
    if kind == "same":
        attr = draw(st.sampled_from(["org", "dept"]))
        return Condition(f"principal.{attr} == resource.{attr}", lambda p, r: p[attr] == r[attr])
    if kind == "named" and chunk_ids:
        named = draw(st.lists(st.sampled_from(chunk_ids), min_size=1, max_size=3, unique=True))
        listed = ", ".join(f'Document::"{chunk_id}"' for chunk_id in named)
        return Condition(f"resource in [{listed}]", lambda p, r: r["id"] in named)
    return Condition("true", lambda p, r: True)


@st.composite
def conditions(draw: st.DrawFn, chunk_ids: tuple[str, ...], *, documents: bool = True) -> Condition:
    """An atom, a negated atom, or a disjunction of two atoms."""
    shape = draw(st.sampled_from(["atom", "atom", "not", "or"]))
    first = draw(atoms(chunk_ids, documents=documents))
    if shape == "not":
        return Condition(f"!({first.cedar})", lambda p, r: not first.holds(p, r))
    if shape == "or":
        second = draw(atoms(chunk_ids, documents=documents))
        return Condition(f"({first.cedar} || {second.cedar})", lambda p, r: first.holds(p, r) or second.holds(p, r))
    return first


@dataclass(frozen=True)
class Policy:
    policy_id: str
    effect: str
    applies_to_retrieve: bool
    when: tuple[Condition, ...]
    unless: Condition | None

    def cedar(self) -> str:
        if self.applies_to_retrieve:
            scope = 'principal, action == Action::"retrieve", resource'
            if self.effect == "forbid":  # also exercise "any action" scopes, restricted to documents
                scope = "principal, action, resource is Document"
        else:
            scope = 'principal, action == Action::"search", resource'
        text = f'@id("{self.policy_id}")\n{self.effect} ({scope})'
        if self.when:
            text += " when { " + " && ".join(condition.cedar for condition in self.when) + " }"
        if self.unless is not None:
            text += f" unless {{ {self.unless.cedar} }}"
        return text + ";"

    def satisfied(self, principal: Attributes, resource: Attributes) -> bool:
        if not self.applies_to_retrieve:
            return False
        if not all(condition.holds(principal, resource) for condition in self.when):
            return False
        return self.unless is None or not self.unless.holds(principal, resource)


@st.composite
def policies(draw: st.DrawFn, chunk_ids: tuple[str, ...], index: int) -> Policy:
    retrieve = draw(st.sampled_from([True, True, True, False]))
    condition = conditions(chunk_ids, documents=retrieve)  # search policies read only the principal
    return Policy(
        policy_id=f"p{index}",
        effect=draw(st.sampled_from(["permit", "permit", "forbid"])),
        applies_to_retrieve=retrieve,
        when=tuple(draw(st.lists(condition, min_size=0, max_size=3))),
        unless=draw(st.none() | condition),
    )


users = st.builds(
    Actor,
    subject=st.sampled_from(["u1", "u2", "u3", "u4"]),
    org=st.sampled_from(ORGS),
    role=st.sampled_from(ROLES),
    dept=st.sampled_from((None, *DEPTS)),
    affiliations=st.lists(st.sampled_from(AFFILIATIONS), max_size=2, unique=True).map(tuple),
)


@st.composite
def documents(draw: st.DrawFn, base: dict[str, Any], varying: frozenset[str]) -> Chunk:
    """A chunk like ``base`` except in the ``varying`` attributes, so batches hold many near-twins (the engine must
    still tell them apart); texts repeat, so some chunks share an id but not their attributes."""
    value = {
        name: draw(st.sampled_from(values)) if name in varying else base[name] for name, values in STRING_VALUES.items()
    }
    text = draw(st.sampled_from(["a", "b", "c", "d", "e", "f"]))
    return Chunk.create(
        source_id=f"note:{text}",
        text=text,
        org=value["org"],
        dept=value["dept"],
        leaf=value["leaf"],
        service=value["service"] or None,
        section=value["section"] or None,
        note_type=value["note_type"] or None,
        source_kind=SourceKind(value["source_kind"]),
        section_group=value["section_group"] or None,
        subject_id=draw(st.sampled_from(PATIENTS)) if "patient" in varying else base["patient"],
        sensitivity=draw(st.sampled_from(LABELS)) if "sensitivity" in varying else base["sensitivity"],
    )


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[list[Actor], list[Chunk], list[Policy]]:
    people = draw(st.lists(users, min_size=MIN_USERS, max_size=4))
    base: dict[str, Any] = {name: draw(st.sampled_from(values)) for name, values in STRING_VALUES.items()}
    base["patient"] = draw(st.sampled_from(PATIENTS))
    base["sensitivity"] = draw(st.sampled_from(LABELS))
    varying = draw(st.frozensets(st.sampled_from(sorted(base)), min_size=1, max_size=4))
    chunks = draw(st.lists(documents(base, varying), min_size=MIN_DOCS, max_size=40))
    chunk_ids = tuple(sorted({chunk.chunk_id for chunk in chunks}))
    count = draw(st.integers(min_value=0, max_value=6))
    return people, chunks, [draw(policies(chunk_ids, index)) for index in range(count)]


def principal_attrs(actor: Actor) -> Attributes:
    return {"org": actor.org, "role": actor.role, "dept": actor.dept or "", "affiliations": set(actor.affiliations)}


def reference(policy_set: list[Policy], actor: Actor, chunk: Chunk) -> tuple[bool, frozenset[str]]:
    """Cedar's semantics, by hand: default deny, any permit allows, any forbid wins; reasons are the deciders."""
    principal = principal_attrs(actor)
    resource = document_attrs(chunk) | {"id": chunk.chunk_id}
    permits = {p.policy_id for p in policy_set if p.effect == "permit" and p.satisfied(principal, resource)}
    forbids = {p.policy_id for p in policy_set if p.effect == "forbid" and p.satisfied(principal, resource)}
    if forbids:
        return False, frozenset(forbids)
    if permits:
        return True, frozenset(permits)
    return False, frozenset({"default-deny"})


@settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(scenarios())
def test_can_retrieve_matches_reference(scenario: tuple[list[Actor], list[Chunk], list[Policy]]) -> None:
    people, chunks, policy_set = scenario
    engine = PolicyEngine.from_text("\n".join(policy.cedar() for policy in policy_set), "generated.cedar")
    for actor in people:
        decisions = engine.can_retrieve(actor, chunks)
        assert len(decisions) == len(chunks)
        for chunk, decision in zip(chunks, decisions, strict=True):
            allowed, reasons = reference(policy_set, actor, chunk)
            assert decision.allowed == allowed, (actor, document_attrs(chunk))
            assert frozenset(decision.reasons) == reasons
            assert decision.errors == ()
        visible = [chunk for chunk, decision in zip(chunks, decisions, strict=True) if decision.allowed]
        assert all(reference(policy_set, actor, chunk)[0] for chunk in visible)
        # Withheld for its label: refused, and allowed once the label is taken away.
        for chunk, verdict in zip(chunks, engine.verdicts(actor, chunks), strict=True):
            allowed = reference(policy_set, actor, chunk)[0]
            bare = reference(policy_set, actor, chunk.model_copy(update={"sensitivity": ()}))[0]
            expected = Verdict.ALLOWED if allowed else Verdict.WITHHELD_SENSITIVE if bare else Verdict.REFUSED
            assert verdict == expected, (actor, document_attrs(chunk))
