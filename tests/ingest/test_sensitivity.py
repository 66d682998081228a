"""Sensitivity labels at ingestion: section and content rules, the rule recorded, negation, false positives kept out,
the rule table validated, ids and text unchanged, and the chunk store labelling (and relabelling) idempotently."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from pydantic import ValidationError

from clinrag.ingest.chunkstore import SENSITIVITY_KEY, ChunkStore
from clinrag.ingest.sensitivity import CATEGORIES, Labeller, RuleTable, _literal, label_chunk, rules_version
from clinrag.types import Chunk, SectionGroup

LABELLER = Labeller.default()


def chunk(text: str, section: str | None = "Past Medical History", **fields: object) -> Chunk:
    return Chunk.create(
        source_id="note:1-DS-1",
        text=text,
        org="A",
        dept="orthopaedics",
        leaf="orthopaedics",
        section=section,
        section_group=SectionGroup.CLINICAL_PROFILE,
        **fields,
    )


@pytest.mark.parametrize(
    ("text", "section", "categories", "rule"),
    [
        (
            "Past Medical History: - HTN\n- bipolar I disorder on lithium",
            None,
            ("mental_health",),
            "term:psychiatric-diagnosis",
        ),
        (
            "History of Present Illness: 54M with schizophrenia admitted after a fall.",
            None,
            ("mental_health",),
            "term:psychiatric-diagnosis",
        ),
        ("Past Medical History: - HTN\n- anxiety", None, ("mental_health",), "term:anxiety-listed"),
        (
            "Social History: EtOH: Reports 3-4 beers daily; denies history of withdrawal.",
            "Social History",
            ("substance_use",),
            "term:alcohol",
        ),
        (
            "Social History: Drinks 1 pint of vodka daily for the past ___ years.",
            "Social History",
            ("substance_use",),
            "term:alcohol",
        ),
        (
            "Social History: Occasional cannabis use, denies alcohol.",
            "Social History",
            ("substance_use",),
            "term:drugs",
        ),
        ("Brief Hospital Course: history of IVDU, on methadone maintenance.", None, ("substance_use",), "term:drugs"),
        ("Past Medical History: - HIV on Biktarvy, CD4 count 650", None, ("hiv",), "term:HIV"),
        ("Pertinent Results: HIV antibody negative.", "Pertinent Results", ("hiv",), "term:HIV"),
        (
            "Brief Hospital Course: # left tubal ectopic pregnancy: taken to the OR.",
            None,
            ("reproductive",),
            "term:pregnancy",
        ),
        ("Past Medical History: - G2P1, 39 weeks gestation", None, ("reproductive",), "term:pregnancy"),
        ("Past Medical History: - BRCA1 carrier, s/p genetic counseling", None, ("genetic",), "term:genetic"),
        ("Family History: Father with Huntington's disease.", "Family History", ("genetic",), "term:genetic"),
    ],
)
def test_content_rules_label_and_record_the_rule(
    text: str, section: str | None, categories: tuple[str, ...], rule: str
) -> None:
    labelled = label_chunk(chunk(text, section or "Past Medical History"))
    assert labelled.sensitivity == categories
    assert rule in labelled.sensitivity_rules


@pytest.mark.parametrize(
    "text",
    [
        "Social History: Tobacco: Never smoker.\nEtOH: Denies alcohol use.\nLives alone; independent in ADLs.",
        "Social History: Drinks 1-2 glasses of wine per week.",
        "Social History: Divorced, lives with a roommate; drinks socially, denies illicit drugs.",
        "Social History: Former smoker, 30 pack-years, quit 5 years ago. Drinks socially.",
        "Pertinent Results: EKG: 1-2 mm ST depressions in V4-V6, no ST elevation.",
        "Brief Hospital Course: Opioids were limited because of respiratory depression.",
        "Major Surgical or Invasive Procedure: bipolar transurethral resection of prostate (TURP)",
        "Major Surgical or Invasive Procedure: left bipolar hemiarthroplasty",
        "Brief Hospital Course: She was anxious about the surgery; reassured.",
        "Brief Hospital Course: Resuscitated with IVF while awaiting the OR.",
        "Discharge Disposition: Extended Care. Facility: ___ rehab.",
        "Family History: Sister with breast cancer. No family history of early cardiac death.",
        "Physical Exam: Hearing aids in place bilaterally.",
        "Safety: no history of depression or suicidal ideation.",
    ],
)
def test_negations_and_look_alikes_are_not_labelled(text: str) -> None:
    labelled = label_chunk(chunk(text, text.split(":", 1)[0]))
    assert labelled.sensitivity == ()
    assert labelled.sensitivity_rules == ()


def test_a_contrast_ends_the_negation() -> None:
    labelled = label_chunk(chunk("Social History: Denies alcohol but reports daily heroin use.", "Social History"))
    assert labelled.sensitivity == ("substance_use",)


def test_section_rules_fire_on_the_section_and_on_a_labelled_history_line() -> None:
    whole = label_chunk(chunk("Psychiatric History: two admissions for depression.", "Psychiatric History"))
    assert "section:Psychiatric History" in whole.sensitivity_rules
    inside = label_chunk(chunk("Past Medical History: - HTN\nPast Psychiatric History: inpatient stay ___"))
    assert inside.sensitivity == ("mental_health",)
    assert inside.sensitivity_rules == ("section:Past Medical History/Past Psychiatric History",)
    listed = label_chunk(chunk("Past Medical History: - HTN\nSubstance Use History:\n- prior daily use, in remission"))
    assert "section:Past Medical History/Substance Use History" in listed.sensitivity_rules


def test_a_history_line_that_says_none_is_not_sensitive() -> None:
    for body in ("None.", "denies", "N/A", "Non-contributory", ""):
        labelled = label_chunk(chunk(f"Past Medical History: - HTN\nPast Psychiatric History: {body}"))
        assert labelled.sensitivity == (), body


def test_several_categories_are_listed_in_a_fixed_order_with_every_rule() -> None:
    text = "Past Medical History: - HIV\n- alcohol use disorder\n- major depressive disorder\n- pregnant, 10 weeks"
    labelled = label_chunk(chunk(text))
    assert labelled.sensitivity == ("mental_health", "substance_use", "hiv", "reproductive")
    assert labelled.sensitivity_rules == ("term:HIV", "term:alcohol", "term:pregnancy", "term:psychiatric-diagnosis")
    assert set(labelled.sensitivity) <= set(CATEGORIES)


def test_labelling_keeps_id_and_text_and_is_idempotent() -> None:
    plain = chunk("Past Medical History: - schizoaffective disorder")
    labelled = label_chunk(plain)
    assert (labelled.chunk_id, labelled.text, labelled.context) == (plain.chunk_id, plain.text, plain.context)
    assert label_chunk(labelled) is labelled
    ordinary = chunk("Past Medical History: - HTN")
    assert label_chunk(ordinary) is ordinary


def test_coded_rows_are_labelled_by_their_titles() -> None:
    row = Chunk.create(
        source_id="row:diagnoses_icd:1",
        text="icd_code: F332 | long_title: Major depressive disorder, recurrent severe without psychotic features",
        org="A",
        dept="psychiatry",
        source_kind="row",
    )
    assert label_chunk(row).sensitivity == ("mental_health",)


def test_the_rule_table_is_validated() -> None:
    with pytest.raises(ValidationError, match="not a valid regular expression"):
        RuleTable.model_validate({"version": 1, "term": [{"id": "x", "category": "hiv", "patterns": ["(unclosed"]}]})
    with pytest.raises(ValidationError):
        RuleTable.model_validate({"version": 1, "term": [{"id": "x", "category": "finance", "patterns": ["a"]}]})
    with pytest.raises(ValidationError):
        RuleTable.model_validate({"version": 1, "section": [{"category": "hiv", "names": []}], "extra": 1})


def test_a_custom_table_is_loaded_from_toml(tmp_path: Path) -> None:
    table = tmp_path / "rules.toml"
    table.write_text(
        'version = 7\n[[term]]\nid = "ink"\ncategory = "genetic"\npatterns = [\'\\bsquid\\b\']\n', encoding="utf-8"
    )
    labeller = Labeller.load(table)
    assert labeller.label(chunk("Past Medical History: squid allergy")).sensitivity_rules == ("term:ink",)
    assert rules_version(labeller).startswith("7:")
    assert rules_version(labeller) != rules_version(LABELLER)


def test_the_chunk_store_labels_what_it_stores(tmp_path: Path) -> None:
    with ChunkStore.open(tmp_path / "chunks.sqlite") as store:
        run = store.begin_run("test")
        sensitive, plain = chunk("Past Medical History: - alcohol use disorder"), chunk("Past Medical History: - gout")
        assert store.put_source(run, "A:note", "note:1-DS-1", "d1", [sensitive, plain]) == "new"
        stored = {c.chunk_id: c for c in store.chunks()}
        assert stored[sensitive.chunk_id].sensitivity == ("substance_use",)
        assert stored[sensitive.chunk_id].sensitivity_rules == ("term:alcohol",)
        assert stored[plain.chunk_id].sensitivity == ()
        assert store.put_source(run, "A:note", "note:1-DS-1", "d1", [sensitive, plain]) == "unchanged"
        assert store.relabel() == 0  # labelled with the rules in force already


def test_a_store_labelled_under_other_rules_is_labelled_again_on_the_next_run(tmp_path: Path) -> None:
    path = tmp_path / "chunks.sqlite"
    sensitive = chunk("Past Medical History: - alcohol use disorder")
    with ChunkStore.open(path) as store:
        store.put_source(store.begin_run("first"), "A:note", "note:1-DS-1", "d1", [sensitive])
    # A store written before labels existed: bodies without them, no rules version recorded.
    with sqlite3.connect(path) as db:
        db.execute("UPDATE chunks SET body = ?", (sensitive.model_dump_json(exclude_defaults=True),))
        db.execute("DELETE FROM meta WHERE key = ?", (SENSITIVITY_KEY,))
    with ChunkStore.open(path) as store:
        assert next(store.chunks()).sensitivity == ()
        run = store.begin_run("second")
        [again] = store.chunks()
        assert again.sensitivity == ("substance_use",)
        assert again.chunk_id == sensitive.chunk_id
        assert store.put_source(run, "A:note", "note:1-DS-1", "d1", [sensitive]) == "unchanged"
        assert store.relabel() == 0


def test_a_pattern_is_skipped_only_when_its_match_is_impossible() -> None:
    """The literal each pattern is pre-checked with is in every text the pattern matches (so skipping it is exact)."""
    samples = [
        "G2P1 at 39 weeks gestation, s/p C-section; pre-eclampsia; gonorrhea and chlamydia treated; on OCPs",
        "Major depressive disorder, PTSD, OCD; self-harm; post traumatic stress; psychotic features; mania",
        "Reports 12-18 beers daily; 1 pint of vodka daily; AA meetings; CIWA; DTs; IVDU; crack cocaine",
        "HIV on Biktarvy, CD4 count 600; PrEP; AIDS; BRCA2; APOE4; Huntington's disease; Factor V Leiden",
    ]
    for rule in LABELLER.table.term:
        for pattern in rule.patterns:
            literal = _literal(pattern)
            compiled = re.compile(pattern, re.I | re.M)
            for text in samples:
                for match in compiled.finditer(text):
                    assert literal in match.group(0).lower(), (pattern, literal, match.group(0))
