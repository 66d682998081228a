"""PolicyEngine: loading and schema validation, Cedar semantics with reasons, and the demo federation's access."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import cedarpy
import pytest

from clinrag.access.demo import DEMO_TREES, DEMO_USERS, POLICY_ROOT, demo_user
from clinrag.access.entities import (
    DOCUMENT_ATTRIBUTES,
    DOCUMENT_FIELDS,
    SCHEMA_PATH,
    document_attrs,
    document_entity,
    node_entity,
    user_entity,
)
from clinrag.access.policy import Decision, PolicyEngine, Verdict
from clinrag.errors import ConfigError
from clinrag.types import Actor, Chunk, SourceKind

# The search matrix; columns: A: router adm med psy sur ort | B: router adm med car | C: router adm neu.
MATRIX = """
| A.phys.neur | ✓ ✓ ✓ ✓ ✓ ✓ | ✓ ✓ ✓ ✓ | ✓ ✓ ✓ |
| A.phys      | ✓ ✓ ✓ ✓ ✓ ✓ | ✓ ✓ ✓ ✓ | ✓ × × |
| A.nurse     | ✓ ✓ ✓ ✓ ✓ ✓ | ✓ ✓ ✓ ✓ | ✓ × × |
| A.tech.rad  | ✓ × × × × ✓ | ✓ × × × | ✓ × × |
| A.admin     | ✓ ✓ × × × × | ✓ × × × | ✓ × × |
| B.phys      | ✓ ✓ ✓ ✓ ✓ ✓ | ✓ ✓ ✓ ✓ | × × × |
| B.nurse     | ✓ ✓ × × × × | ✓ ✓ ✓ ✓ | × × × |
| C.research  | × × × × × × | × × × × | ✓ ✓ ✓ |
"""

NODES = [
    node
    for org, leaves in DEMO_TREES.items()
    for node in [(org, org, "router"), *((org, f"{org}/{leaf}", "leaf") for leaf in leaves)]
]


def expected_matrix() -> dict[str, list[bool]]:
    rows = {}
    for line in MATRIX.strip().splitlines():
        subject, *groups = (cell.strip() for cell in line.strip("|").split("|"))
        rows[subject] = [mark == "✓" for group in groups for mark in group.split()]
    return rows


@pytest.fixture(scope="module")
def engines() -> dict[str, PolicyEngine]:
    return {org: PolicyEngine.load(POLICY_ROOT / org) for org in DEMO_TREES}


def note(org: str, leaf: str, **fields: Any) -> Chunk:
    fields.setdefault("source_kind", SourceKind.NOTE)
    return Chunk.create(
        source_id=f"note:{org}:{leaf}:{fields}", text="Aspirin 81 mg daily.", org=org, dept=leaf, leaf=leaf, **fields
    )


ANYONE = Actor(subject="u1", org="A", role="physician", dept="medicine", affiliations=("C_neuro",))


# --- loading and validation -------------------------------------------------------------------------------------


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    return folder


def test_bad_attribute_names_file_policy_and_validator_message(tmp_path: Path) -> None:
    write(tmp_path, "a_good.cedar", '@id("fine") permit(principal, action == Action::"search", resource);')
    write(
        tmp_path,
        "b_bad.cedar",
        '@id("typo") permit(principal, action == Action::"retrieve", resource) when { resource.lef == "x" };',
    )
    with pytest.raises(ConfigError) as caught:
        PolicyEngine.load(tmp_path)
    message = str(caught.value)
    assert "b_bad.cedar" in message
    assert "'typo'" in message
    assert "lef" in message
    assert "a_good.cedar" not in message


def test_syntax_error_names_file(tmp_path: Path) -> None:
    write(tmp_path, "broken.cedar", "permit(principal, action, resource) when { principal.org == ")
    with pytest.raises(ConfigError, match=r"broken\.cedar: Cedar syntax error"):
        PolicyEngine.load(tmp_path)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('permit(principal, action == Action::"delete", resource);', "delete"),
        ("permit(principal is Patient, action, resource);", "Patient"),
        ('permit(principal, action == Action::"search", resource) when { principal.org == 3 };', "type"),
        ('permit(principal, action, resource) when { resource.leaf == "x" };', "leaf"),
        ('permit(principal, action == Action::"search", resource) when { principal.age > 3 };', "age"),
    ],
)
def test_schema_violations_are_config_errors(text: str, fragment: str) -> None:
    with pytest.raises(ConfigError, match="invalid against the clinrag Cedar schema") as caught:
        PolicyEngine.from_text(text, "rules.cedar")
    assert "rules.cedar" in str(caught.value)
    assert fragment.lower() in str(caught.value).lower()


def test_unannotated_policy_error_uses_source_and_cedar_id() -> None:
    text = "permit(principal, action, resource is Document);\npermit(principal, action, resource is Nodes);"
    with pytest.raises(ConfigError, match=r"x\.cedar:policy1"):
        PolicyEngine.from_text(text, "x.cedar")


def test_duplicate_and_reserved_ids_and_templates_are_refused(tmp_path: Path) -> None:
    rule = '@id("same") permit(principal, action == Action::"search", resource);'
    write(tmp_path, "one.cedar", rule)
    write(tmp_path, "two.cedar", rule)
    with pytest.raises(ConfigError, match=r"two\.cedar: policy id 'same' is already used in one\.cedar"):
        PolicyEngine.load(tmp_path)
    with pytest.raises(ConfigError, match="reserved"):
        PolicyEngine.from_text('@id("allow-all") permit(principal, action, resource);')
    with pytest.raises(ConfigError, match="templates"):
        PolicyEngine.from_text("permit(principal == ?principal, action, resource);")


def test_missing_or_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        PolicyEngine.load(tmp_path / "nope")
    with pytest.raises(ConfigError, match=r"no \*\.cedar files"):
        PolicyEngine.load(tmp_path)


def test_load_reads_every_cedar_file_sorted(tmp_path: Path) -> None:
    write(tmp_path, "b.cedar", '@id("second") permit(principal, action == Action::"search", resource);')
    write(tmp_path, "a.cedar", '@id("first") permit(principal, action == Action::"retrieve", resource);')
    write(tmp_path, "notes.txt", "not a policy")
    engine = PolicyEngine.load(tmp_path)
    assert engine.sources == ("a.cedar", "b.cedar")
    assert engine.policy_ids == ("first", "second")


# --- Cedar semantics and reasons --------------------------------------------------------------------------------


def test_default_deny() -> None:
    engine = PolicyEngine.from_text("")
    assert engine.can_search(ANYONE, "A", "A", "router") == Decision(False, ("default-deny",))
    assert engine.can_retrieve(ANYONE, [note("A", "medicine")]) == [Decision(False, ("default-deny",))]
    search_only = PolicyEngine.from_text('permit(principal, action == Action::"search", resource);')
    assert not search_only.can_retrieve(ANYONE, [note("A", "medicine")])[0].allowed


def test_permits_combine_with_or() -> None:
    engine = PolicyEngine.from_text(
        """
        @id("physicians") permit(principal, action == Action::"search", resource)
            when { principal.role == "physician" };
        @id("medicine") permit(principal, action == Action::"search", resource)
            when { principal.dept == "medicine" };
        """
    )
    physician = Actor(subject="p", org="A", role="physician", dept="surgery")
    medic = Actor(subject="m", org="A", role="nurse", dept="medicine")
    both = Actor(subject="b", org="A", role="physician", dept="medicine")
    neither = Actor(subject="n", org="A", role="nurse", dept="surgery")
    assert engine.can_search(physician, "A", "A", "router").reasons == ("physicians",)
    assert engine.can_search(medic, "A", "A", "router").reasons == ("medicine",)
    assert set(engine.can_search(both, "A", "A", "router").reasons) == {"physicians", "medicine"}
    assert engine.can_search(neither, "A", "A", "router") == Decision(False, ("default-deny",))


def test_conditions_in_one_policy_combine_with_and() -> None:
    engine = PolicyEngine.from_text(
        """@id("both") permit(principal, action == Action::"search", resource)
           when { principal.role == "physician" } when { principal.dept == "medicine" && resource.kind == "leaf" };"""
    )
    assert engine.can_search(Actor(subject="x", org="A", role="physician", dept="medicine"), "A", "A/m", "leaf").allowed
    for actor, kind in [
        (Actor(subject="x", org="A", role="physician", dept="surgery"), "leaf"),
        (Actor(subject="x", org="A", role="nurse", dept="medicine"), "leaf"),
        (Actor(subject="x", org="A", role="physician", dept="medicine"), "router"),
    ]:
        assert not engine.can_search(actor, "A", "A/m", kind).allowed  # type: ignore[arg-type]


def test_forbid_wins_and_names_itself() -> None:
    engine = PolicyEngine.from_text(
        """
        @id("everyone") permit(principal, action, resource);
        @id("no-psychiatry") forbid(principal, action == Action::"retrieve", resource)
            when { resource.service == "PSYCH" } unless { principal.role == "physician" };
        """
    )
    nurse = Actor(subject="n", org="A", role="nurse")
    chunks = [note("A", "medicine", service="MED"), note("A", "medicine", service="PSYCH")]
    assert engine.can_retrieve(nurse, chunks) == [
        Decision(True, ("everyone",)),
        Decision(False, ("no-psychiatry",)),
    ]
    physician = Actor(subject="p", org="A", role="physician")
    assert all(decision.allowed for decision in engine.can_retrieve(physician, chunks))


def test_reasons_fall_back_to_source_and_cedar_id() -> None:
    engine = PolicyEngine.from_text(
        'permit(principal, action, resource is Node);\n@id("x") forbid(principal, action, resource) when { false };',
        "r.cedar",
    )
    assert engine.policy_ids == ("r.cedar:policy0", "x")
    assert engine.can_search(ANYONE, "A", "A", "router").reasons == ("r.cedar:policy0",)


def test_allow_all() -> None:
    engine = PolicyEngine.allow_all()
    stranger = Actor(subject="s", org="Z", role="visitor")
    assert engine.can_search(stranger, "C", "C/neurology", "leaf") == Decision(True, ("allow-all",))
    chunks = [note("A", "psychiatry"), note("C", "neurology", source_kind=SourceKind.CALCULATOR)]
    assert engine.can_retrieve(stranger, chunks) == [Decision(True, ("allow-all",))] * 2
    assert engine.policy_ids == ()


def test_bad_node_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="router"):
        PolicyEngine.allow_all().can_search(ANYONE, "A", "A", "root")  # type: ignore[arg-type]


def test_evaluation_errors_name_the_policy_without_values() -> None:
    engine = PolicyEngine.from_text(
        """
        @id("overflow") permit(principal, action == Action::"retrieve", resource)
            when { resource.patient + 9223372036854775807 > 0 };
        @id("plain") permit(principal, action == Action::"retrieve", resource) when { resource.org == "A" };
        """
    )
    chunk = note("A", "medicine", subject_id=10012345)
    [decision] = engine.can_retrieve(ANYONE, [chunk])
    assert decision.allowed
    assert decision.reasons == ("plain",)
    assert len(decision.errors) == 1
    assert decision.errors[0].startswith("overflow: ")
    assert "10012345" not in decision.errors[0]


# --- entities ---------------------------------------------------------------------------------------------------


def test_entities_conform_to_the_schema() -> None:
    chunks = [
        note("A", "medicine", subject_id=1, service="MED", section="Discharge Medications", note_type="DS"),
        Chunk.create(source_id="row:1", text="hadm_id: 1", org="B", dept="admissions", source_kind=SourceKind.ROW),
        note("A", "orthopaedics", sensitivity=("mental_health", "substance_use")),
    ]
    entities = [user_entity(user) for user in DEMO_USERS]
    entities += [node_entity("A", "A", "router"), node_entity("A", "A/psychiatry", "leaf", "psychiatry")]
    entities += [document_entity(chunk.chunk_id, document_attrs(chunk)) for chunk in chunks]
    parsed = cedarpy.Entities.from_json_str(json.dumps(entities), SCHEMA_PATH.read_text())
    assert len(parsed) == len(entities) + 2  # the schema adds its two actions
    row = document_attrs(chunks[1])
    assert row == {
        "org": "B",
        "leaf": "",
        "dept": "admissions",
        "service": "",
        "section": "",
        "section_group": "",
        "note_type": "",
        "source_kind": "row",
        "patient": -1,
        "sensitivity": [],
    }
    assert document_attrs(chunks[2])["sensitivity"] == ["mental_health", "substance_use"]


# --- the demo federation ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("user", DEMO_USERS, ids=lambda user: user.subject)
def test_demo_search_matrix(user: Actor, engines: dict[str, PolicyEngine]) -> None:
    got = [engines[org].can_search(user, org, path, kind).allowed for org, path, kind in NODES]  # type: ignore[arg-type]
    assert got == expected_matrix()[user.subject]


def test_demo_matrix_holds_with_all_hospitals_policies_in_one_engine() -> None:
    text = "\n".join(path.read_text() for org in DEMO_TREES for path in sorted((POLICY_ROOT / org).glob("*.cedar")))
    engine = PolicyEngine.from_text(text, "all")
    for user in DEMO_USERS:
        got = [engine.can_search(user, org, path, kind).allowed for org, path, kind in NODES]  # type: ignore[arg-type]
        assert got == expected_matrix()[user.subject], user.subject


def test_demo_decisions_carry_policy_ids(engines: dict[str, PolicyEngine]) -> None:
    assert engines["A"].can_search(demo_user("A.tech.rad"), "A", "A/orthopaedics", "leaf").reasons == (
        "a-orthopaedics-radiology-technicians",
    )
    assert engines["C"].can_search(demo_user("A.phys.neur"), "C", "C/neurology", "leaf").reasons == (
        "c-neurology-research-group",
    )
    assert engines["C"].can_search(demo_user("B.phys"), "C", "C", "router").reasons == ("default-deny",)


def test_demo_retrieve_follows_search(engines: dict[str, PolicyEngine]) -> None:
    """A plain note stored in a leaf is retrievable exactly by those who may search that leaf (one batch per user)."""
    leaves = [(org, leaf) for org, names in DEMO_TREES.items() for leaf in names]
    for user in DEMO_USERS:
        for org in DEMO_TREES:
            chunks = [note(org, leaf, service="MED", subject_id=7) for o, leaf in leaves if o == org]
            decisions = engines[org].can_retrieve(user, chunks)
            assert len(decisions) == len(chunks)
            for chunk, decision in zip(chunks, decisions, strict=True):
                searchable = engines[org].can_search(user, org, f"{org}/{chunk.leaf}", "leaf").allowed
                assert decision.allowed == searchable, (user.subject, chunk.leaf)


def test_demo_document_level_rules(engines: dict[str, PolicyEngine]) -> None:
    a_admin, research = demo_user("A.admin"), demo_user("C.research")
    admission = note("A", "admissions", service="MED")
    psych_admission = note("A", "admissions", service="PSYCH")
    assert [d.allowed for d in engines["A"].can_retrieve(a_admin, [admission, psych_admission])] == [True, False]
    assert engines["A"].can_retrieve(demo_user("A.nurse"), [psych_admission])[0].allowed

    kinds = [SourceKind.NOTE, SourceKind.ROW, SourceKind.ABSTRACT, SourceKind.CALCULATOR]
    chunks = [note("C", "neurology", source_kind=kind) for kind in kinds]
    decisions = engines["C"].can_retrieve(research, chunks)
    assert [d.allowed for d in decisions] == [True, True, False, False]
    assert decisions[3].reasons == ("c-researchers-notes-and-rows-only",)
    assert all(d.allowed for d in engines["C"].can_retrieve(demo_user("A.phys.neur"), chunks))

    b_admin = Actor(subject="B.admin", org="B", role="admin")
    rows_and_notes = [note("B", "admissions", source_kind=SourceKind.ROW), note("B", "admissions")]
    assert [d.allowed for d in engines["B"].can_retrieve(b_admin, rows_and_notes)] == [True, False]


SENSITIVE_CATEGORIES = ("mental_health", "substance_use", "hiv", "reproductive", "genetic")
# Who may read a sensitive passage in a department they may otherwise read: physicians and nurses only.
SENSITIVE_READERS = {
    "A": {"A.phys.neur", "A.phys", "A.nurse", "B.phys", "B.nurse"},
    "B": {"A.phys.neur", "A.phys", "A.nurse", "B.phys", "B.nurse"},
    "C": {"A.phys.neur"},
}


@pytest.mark.parametrize("category", SENSITIVE_CATEGORIES)
def test_demo_sensitive_passages_are_for_physicians_and_nurses(category: str, engines: dict[str, PolicyEngine]) -> None:
    """Every demo user, every leaf of every hospital: a sensitive passage is retrievable exactly when the same
    passage without its label is and the user is a physician or nurse; otherwise it is withheld for its label
    (`Verdict.WITHHELD_SENSITIVE`) when the plain passage is retrievable, and refused as before when it is not."""
    for org, leaves in DEMO_TREES.items():
        plain = [note(org, leaf, subject_id=7) for leaf in leaves]
        sensitive = [chunk.model_copy(update={"sensitivity": (category,)}) for chunk in plain]
        for user in DEMO_USERS:
            before = [d.allowed for d in engines[org].can_retrieve(user, plain)]
            verdicts = engines[org].verdicts(user, sensitive)
            for leaf, readable, verdict in zip(leaves, before, verdicts, strict=True):
                if not readable:
                    assert verdict == Verdict.REFUSED, (user.subject, org, leaf)
                elif user.subject in SENSITIVE_READERS[org]:
                    assert verdict == Verdict.ALLOWED, (user.subject, org, leaf)
                else:
                    assert verdict == Verdict.WITHHELD_SENSITIVE, (user.subject, org, leaf)


def test_demo_technician_reads_the_orthopaedic_note_but_not_its_psychiatric_history(
    engines: dict[str, PolicyEngine],
) -> None:
    technician = demo_user("A.tech.rad")
    hip = note("A", "orthopaedics", section="Brief Hospital Course")
    history = note("A", "orthopaedics", section="Past Medical History", sensitivity=("mental_health",))
    allowed, withheld = engines["A"].can_retrieve(technician, [hip, history])
    assert allowed.allowed
    assert allowed.reasons == ("a-orthopaedics-documents-radiology-technicians",)
    assert not withheld.allowed
    assert withheld.reasons == ("a-sensitive-clinicians-only",)
    research = engines["C"].can_retrieve(demo_user("C.research"), [note("C", "neurology", sensitivity=("hiv",))])
    assert research[0].reasons == ("c-sensitive-clinicians-only",)


def test_verdicts_tell_sensitive_withholding_from_other_refusals() -> None:
    engine = PolicyEngine.from_text(
        """
        @id("medicine") permit(principal, action == Action::"retrieve", resource) when { resource.leaf == "medicine" };
        @id("no-hiv") forbid(principal, action == Action::"retrieve", resource)
            when { resource.sensitivity.contains("hiv") } unless { principal.role == "physician" };
        """
    )
    nurse = Actor(subject="n", org="A", role="nurse")
    chunks = [
        note("A", "medicine"),
        note("A", "medicine", sensitivity=("hiv",)),
        note("A", "surgery", sensitivity=("hiv",)),  # refused anyway: not withheld for its label
        note("A", "medicine", sensitivity=("genetic",)),
    ]
    assert engine.verdicts(nurse, chunks) == [
        Verdict.ALLOWED,
        Verdict.WITHHELD_SENSITIVE,
        Verdict.REFUSED,
        Verdict.ALLOWED,
    ]
    assert engine.verdicts(ANYONE, chunks)[:2] == [Verdict.ALLOWED, Verdict.ALLOWED]
    assert PolicyEngine.allow_all().verdicts(nurse, chunks) == [Verdict.ALLOWED] * 4


def test_document_keys_read_the_sensitivity_when_a_policy_does(engines: dict[str, PolicyEngine]) -> None:
    plain, labelled = note("A", "medicine"), note("A", "medicine", sensitivity=("hiv",))
    first, second = engines["A"].document_keys([plain, labelled.model_copy(update={"chunk_id": plain.chunk_id})])
    assert first != second
    blind = PolicyEngine.from_text(
        '@id("m") permit(principal, action, resource is Document) when { resource.leaf == "medicine" };'
    )
    first, second = blind.document_keys([plain, labelled])
    assert first == second


# --- batching ---------------------------------------------------------------------------------------------------


def test_documents_named_by_a_policy_are_told_apart_from_equal_ones() -> None:
    twins = [Chunk.create(source_id=f"note:{i}", text="same", org="A", dept="m", leaf="m") for i in range(3)]
    engine = PolicyEngine.from_text(
        f"""
        @id("all") permit(principal, action == Action::"retrieve", resource);
        @id("hide-one") forbid(principal, action, resource == Document::"{twins[1].chunk_id}");
        """
    )
    assert [d.allowed for d in engine.can_retrieve(ANYONE, twins + twins[:2])] == [True, False, True, True, False]


def test_policies_using_the_document_as_a_whole_still_decide_per_document() -> None:
    chunks = [note("A", "medicine", subject_id=subject) for subject in (1, 2, 3)]
    engine = PolicyEngine.from_text(
        f"""
        @id("patient-two") permit(principal, action == Action::"retrieve", resource)
            when {{ (if true then resource else resource).patient == 2 }};
        @id("first") permit(principal, action == Action::"retrieve", resource)
            when {{ resource in [Document::"{chunks[0].chunk_id}"] }};
        """
    )
    assert [d.reasons for d in engine.can_retrieve(ANYONE, chunks)] == [("first",), ("patient-two",), ("default-deny",)]


def test_document_keys_tell_apart_exactly_what_the_policies_read() -> None:
    engine = PolicyEngine.from_text(
        '@id("patient-two") permit(principal, action == Action::"retrieve", resource) when { resource.patient == 2 };'
    )
    two_here, two_there = note("A", "medicine", subject_id=2), note("B", "neurology", subject_id=2)
    three = note("A", "medicine", subject_id=3)
    keys = engine.document_keys([two_here, two_there, three])
    assert keys[0] == keys[1]  # org, leaf and dept are not read: one decision serves both
    assert keys[0] != keys[2]
    assert PolicyEngine.allow_all().document_keys([two_here, three]) == [(), ()]


def test_document_keys_follow_every_attribute_when_policies_read_the_whole_document() -> None:
    engine = PolicyEngine.from_text(
        '@id("all") permit(principal, action == Action::"retrieve", resource) when { resource == resource };'
    )
    base = note("A", "medicine", subject_id=1, service="MED", section="Brief Hospital Course", note_type="DS")
    assert set(DOCUMENT_FIELDS) == set(DOCUMENT_ATTRIBUTES)
    others = {"patient": 7, "source_kind": SourceKind.ROW, "sensitivity": ("hiv",)}
    for name, field in DOCUMENT_FIELDS.items():
        changed = base.model_copy(update={field: others.get(name, "other")})
        assert document_attrs(changed)[name] != document_attrs(base)[name], name
        before, after = engine.document_keys([base, changed])
        assert before != after, name


def test_can_retrieve_of_nothing_is_empty(engines: dict[str, PolicyEngine]) -> None:
    assert engines["A"].can_retrieve(ANYONE, []) == []


def test_can_retrieve_2000_chunks_is_fast(engines: dict[str, PolicyEngine]) -> None:
    sections = ["Chief Complaint", "Brief Hospital Course", "Discharge Medications", "Discharge Instructions"]
    chunks = [
        Chunk.create(
            source_id=f"note:{i}",
            text=f"passage {i}",
            org="A",
            dept=DEMO_TREES["A"][i % 5],
            leaf=DEMO_TREES["A"][i % 5],
            subject_id=10_000_000 + i % 300,
            section=sections[i % 4],
            service=("MED", "SURG", "PSYCH", "ORTHO")[i % 4],
            source_kind=(SourceKind.NOTE, SourceKind.ROW)[i % 2],
        )
        for i in range(2000)
    ]
    engine = engines["A"]
    timings = []
    for _ in range(5):
        start = time.perf_counter()
        decisions = engine.can_retrieve(demo_user("A.admin"), chunks)
        timings.append(time.perf_counter() - start)
    assert len(decisions) == 2000
    assert sum(d.allowed for d in decisions) == sum(
        1 for c in chunks if c.leaf == "admissions" and c.service != "PSYCH"
    )
    assert min(timings) < 0.1, f"can_retrieve of 2,000 chunks took {min(timings) * 1000:.1f} ms"


def test_engine_is_safe_to_share_between_threads(engines: dict[str, PolicyEngine]) -> None:
    chunks = [note("A", leaf, service=service) for leaf in DEMO_TREES["A"] for service in ("MED", "PSYCH")]
    expected = {user.subject: engines["A"].can_retrieve(user, chunks) for user in DEMO_USERS}

    def decide(user: Actor) -> list[Decision]:
        return engines["A"].can_retrieve(user, chunks)

    with ThreadPoolExecutor(max_workers=8) as pool:
        for user, decisions in zip(DEMO_USERS * 10, pool.map(decide, DEMO_USERS * 10), strict=True):
            assert decisions == expected[user.subject]


def test_unreadable_policy_file(tmp_path: Path) -> None:
    (tmp_path / "latin1.cedar").write_bytes(b"// caf\xe9\npermit(principal, action, resource);")
    with pytest.raises(ConfigError, match="cannot read policy files"):
        PolicyEngine.load(tmp_path)
