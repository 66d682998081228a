"""Note processing: header scrubbing, hard-wrap repair and sectioning, on real-style notes and odd variants."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from clinrag.ingest.notes import parse_note, scrub_header, split_sections, unwrap
from clinrag.types import SectionGroup

REAL_STYLE = (Path(__file__).parents[1] / "fixtures/notes/real_style_discharge.txt").read_text()
"""A hand-written synthetic note in the layout of MIMIC-IV-Note discharge summaries, hard wraps included."""


def _titles(text: str) -> list[str]:
    return [section.title for section in parse_note(text).sections]


def test_real_style_note_sections_and_groups() -> None:
    parsed = parse_note(REAL_STYLE)
    assert parsed.service == "MEDICINE"
    titles = [s.title for s in parsed.sections]
    assert titles == [
        "Allergies",
        "Chief Complaint",
        "Major Surgical or Invasive Procedure",
        "History of Present Illness",
        "Past Medical History",
        "Social History",
        "Family History",
        "Physical Exam",
        "Pertinent Results",
        "Brief Hospital Course",
        "Medications on Admission",
        "Discharge Medications",
        "Discharge Disposition",
        "Discharge Diagnosis",
        "Discharge Condition",
        "Discharge Instructions",
        "Followup Instructions",
    ]
    groups = {s.title: s.group for s in parsed.sections}
    assert groups["History of Present Illness"] is SectionGroup.CLINICAL_PROFILE
    assert groups["Brief Hospital Course"] is SectionGroup.IN_HOSPITAL_PROGRESS
    assert groups["Discharge Medications"] is SectionGroup.DISCHARGE_PLAN


def test_header_fields_are_scrubbed() -> None:
    parsed = parse_note(REAL_STYLE)
    joined = "\n".join(s.text for s in parsed.sections)
    for field in ("Name:", "Unit No:", "Admission Date:", "Discharge Date:", "Date of Birth:", "Sex:", "Attending:"):
        assert field not in joined
    assert scrub_header("Admission Date:  ___   Discharge Date:   ___\nkeep me\n") == "keep me\n"


def test_hard_wraps_are_repaired_but_lists_and_labels_kept() -> None:
    sections = {s.title: s.text for s in parse_note(REAL_STYLE).sections}
    assert "worsening dyspnea and productive cough" in sections["History of Present Illness"]
    assert "Mr. ___ was admitted with a COPD exacerbation." in sections["Brief Hospital Course"]
    assert sections["Discharge Medications"] == "1. PredniSONE 40 mg PO DAILY\n2. Azithromycin 250 mg PO Q24H"
    assert "VS: T 98.1 BP 142/78 HR 88\nGEN: Alert" in sections["Physical Exam"]
    assert "WBC-8.2 Hgb-12.1\n___ 07:15AM" in sections["Pertinent Results"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("HPI: 70 yo F\nBRIEF HOSPITAL COURSE:\nadmitted\n", ["History of Present Illness", "Brief Hospital Course"]),
        ("Discharge Diagnoses:\nCHF\nFollow-up Instructions:\nPCP\n", ["Discharge Diagnosis", "Followup Instructions"]),
        ("Physical ___:\nGEN: well\n___ on Admission:\n1. Aspirin\n", ["Physical Exam", "Medications on Admission"]),
        ("Hospital Course:\nstable\nDischarge Meds:\n1. ASA\n", ["Brief Hospital Course", "Discharge Medications"]),
        ("Chief Complaint: chest pain\nPMH: CAD\n", ["Chief Complaint", "Past Medical History"]),
        ("free text before any heading\nDischarge Condition:\ngood\n", ["Header", "Discharge Condition"]),
    ],
)
def test_heading_variants(text: str, expected: list[str]) -> None:
    assert _titles(text) == expected


def test_inline_content_crlf_and_unknown_labels() -> None:
    text = (
        "Chief Complaint: fever\r\nBrief Hospital Course:\r\n# Sepsis: treated with\r\nantibiotics.\r\nPrimary: UTI\r\n"
    )
    sections = {s.title: s.text for s in split_sections(text)}
    assert sections["Chief Complaint"] == "fever"
    assert sections["Brief Hospital Course"] == "# Sepsis: treated with antibiotics.\nPrimary: UTI"


def test_repeated_headings_become_separate_sections() -> None:
    text = "Physical Exam:\nadmission exam\nPhysical Exam:\ndischarge exam\n"
    assert [s.text for s in parse_note(text).sections] == ["admission exam", "discharge exam"]


def test_missing_sections_and_no_service() -> None:
    parsed = parse_note("Discharge Instructions:\nRest.\n")
    assert parsed.service is None
    assert [s.title for s in parsed.sections] == ["Discharge Instructions"]
    assert parse_note("").sections == ()


def test_unwrap_keeps_words_and_order() -> None:
    wrapped = "a long sentence that was\nwrapped twice and\nthen ended.\n\nNew paragraph."
    assert unwrap(wrapped) == "a long sentence that was wrapped twice and then ended.\n\nNew paragraph."


def test_generated_notes_keep_every_word(cohort: Path) -> None:
    header = re.compile(r"\s*(Name|Admission Date|Date of Birth|Attending|Service)\s*:")
    with (cohort / "full/note/discharge.csv").open(newline="") as handle:
        notes = [row["text"] for row in csv.DictReader(handle)]
    for text in notes[:60]:
        expected = [word for line in text.split("\n") if not header.match(line) for word in line.split()]
        parsed = parse_note(text)
        got = [word for s in parsed.sections for word in [*f"{s.heading}:".split(), *s.text.split()]]
        assert got == expected


def test_unwrap_never_joins_list_items_or_heading_lines_to_the_line_before() -> None:
    wrapped = (
        "You were started on apixaban; do not miss\n"
        "doses. Call your doctor for any bleeding\n"
        "- Please take Apixaban (blood thinner).\n"
        "* Please take Metoprolol\n"
        "• Aspirin 81 mg\n"
        "1. Senna\n"
        "# HTN: stable.\n"
        "He went home with services\n"
        "Imaging / studies:\n"
        "CT negative\n"
        "CHRONIC ISSUES:\n"
        "Discharge Medications:"
    )
    assert unwrap(wrapped).split("\n") == [
        "You were started on apixaban; do not miss doses. Call your doctor for any bleeding",
        "- Please take Apixaban (blood thinner).",
        "* Please take Metoprolol",
        "• Aspirin 81 mg",
        "1. Senna",
        "# HTN: stable.",
        "He went home with services",
        "Imaging / studies:",
        "CT negative",
        "CHRONIC ISSUES:",
        "Discharge Medications:",
    ]
