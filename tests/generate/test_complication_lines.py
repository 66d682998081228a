"""Every complication the synthetic cohort's notes record is among the lines a complication question is answered
from (the hospital course, unwrapped as ingestion stores it), whichever way the storyline words it."""

from __future__ import annotations

import csv
from pathlib import Path

from clinrag.generate.contradiction import reports_complication
from clinrag.generate.extractive import complication_lines
from clinrag.ingest.notes import unwrap


def _folded(text: str) -> str:
    return " ".join(text.casefold().split())


def test_every_recorded_complication_is_found_in_its_hospital_course(
    cohort: Path, gold_facts: list[dict[str, object]]
) -> None:
    csv.field_size_limit(1 << 30)
    with (cohort / "full/note/discharge.csv").open(newline="") as handle:
        notes = {row["note_id"]: row["text"] for row in csv.DictReader(handle)}
    checked, missed = 0, []
    for fact in gold_facts:
        if fact["kind"] != "complication" or fact["noise"] or fact["history"]:
            continue
        text = notes[str(fact["note_id"])]
        start = text.index("Brief Hospital Course")
        course = unwrap(text[start : text.index("Medications on Admission", start)])
        wanted = _folded(text[int(str(fact["start"])) : int(str(fact["end"]))])
        checked += 1
        if not any(wanted in _folded(line) for line in complication_lines(course, negations=False)):
            missed.append((fact["storyline"], wanted))
    assert checked >= 10
    assert missed == []


def test_new_phrasings_report_a_complication_and_a_resolved_symptom_alone_does_not() -> None:
    for line in (
        "Recovery was slowed by ileus, with distension and emesis on POD#2.",
        "On HD2 she had a 20-beat run of VT on telemetry, hemodynamically stable.",
        "An incidental dural tear was identified intraoperatively and repaired primarily.",
        "She had hypokalemia to 2.9 from NGT losses, repleted intravenously.",
    ):
        assert reports_complication(line), line
    assert not reports_complication("Leg pain resolved post-op.")
    assert not reports_complication("He underwent decompressive lumbar laminectomy without complication.")
