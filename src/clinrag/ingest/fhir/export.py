"""Writes a MIMIC-IV folder (the synthetic cohort's) as a FHIR R4 Bulk Data export: one NDJSON file per resource type
and a ``manifest.json``, beside the folder's ``clinrag-source.toml``.

Each MIMIC row becomes the resource MIMIC-IV on FHIR would make of it, with the identifiers that keep its numbers
(subject_id, hadm_id, pharmacy_id, note_id): Patient (name, sex, birth year as a partial date, race, language,
marital status), Encounter (period, admission type, source and disposition, service, diagnoses ranked by
``seq_num``) and an emergency Encounter ``partOf`` it for the ED times, Condition (ICD-10-CM), Procedure
(ICD-10-PCS), MedicationRequest (a contained Medication), DocumentReference (the note as base64 ``text/plain``) and
Coverage (the stay's insurance). `clinrag.ingest.fhir.reader.FhirReader` reads it back into the same rows.

Example:
    >>> import tempfile, pathlib
    >>> from clinrag.ingest.synthetic.cohort import generate_cohort
    >>> out = pathlib.Path(tempfile.mkdtemp())
    >>> _ = generate_cohort(out, patients=10, seed=3, workers=1)
    >>> counts = write_export(out / "hospitals" / "A", out / "fhir" / "A")
    >>> counts["Patient"] > 0, (out / "fhir" / "A" / "manifest.json").is_file()
    (True, True)
"""

from __future__ import annotations

import base64
import gzip
import json
import re
import shutil
from collections import defaultdict
from collections.abc import Iterator
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from clinrag.ingest.fhir.codes import ICD9CM, ICD10CM, ICD10PCS, LOINC, dotted_icd10cm
from clinrag.ingest.fhir.medications import DRUG_TYPE, PRODUCT_STRENGTH
from clinrag.ingest.fhir.people import RACE_EXTENSION
from clinrag.ingest.mimic import IngestReport, read_rows, table_path
from clinrag.ingest.mimic_schema import TABLES
from clinrag.ingest.source import SOURCE_FILE

MIMIC_IDENTIFIER = "http://mimic.mit.edu/fhir/mimic/identifier/"
SERVICE_SYSTEM = "http://clinrag.example/fhir/CodeSystem/mimic-service"
ACT_CODE = "http://terminology.hl7.org/CodeSystem/v3-ActCode"
DISPOSITION = "http://terminology.hl7.org/CodeSystem/discharge-disposition"
RESOURCE_FILES = (
    "Patient",
    "Encounter",
    "Condition",
    "Procedure",
    "MedicationRequest",
    "DocumentReference",
    "Coverage",
)
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")
_FHIR_ID = re.compile(r"[^A-Za-z0-9\-.]")
Json = dict[str, Any]


def _raw(root: Path, table: str, report: IngestReport) -> Iterator[dict[str, str]]:
    path = table_path(root, TABLES[table])
    if path is None:
        return
    for _, row in read_rows(path, TABLES[table], [c.name for c in TABLES[table].all_columns], report):
        yield {key: value.strip() if key != "text" else value for key, value in row.items()}


def _moment(value: str) -> str | None:
    """A MIMIC datetime (``2150-01-01 10:22:00``) as a FHIR dateTime (times are written as UTC wall-clock)."""
    return f"{value.replace(' ', 'T')}Z" if value else None


def _ref(kind: str, key: str) -> Json:
    return {"reference": f"{kind}/{key}"}


def _id(value: str) -> str:
    return _FHIR_ID.sub("-", value)[:64]


def _number(value: str) -> int | float:
    return float(value) if "." in value else int(value)


def _quantity(value: str, unit: str) -> Json:
    return {"value": _number(value), **({"unit": unit} if unit else {})}


class _Writer:
    """Open NDJSON files, one per resource type, and their counts."""

    def __init__(self, out: Path, compress: bool, stack: ExitStack) -> None:
        self.counts = dict.fromkeys(RESOURCE_FILES, 0)
        self.names: dict[str, str] = {}
        self.handles: dict[str, IO[str]] = {}
        for kind in RESOURCE_FILES:
            name = f"{kind}.ndjson" + (".gz" if compress else "")
            path = out / name
            if compress:
                self.handles[kind] = stack.enter_context(gzip.open(path, "wt", encoding="utf-8", compresslevel=1))  # noqa: SIM115
            else:
                self.handles[kind] = stack.enter_context(path.open("w", encoding="utf-8"))
            self.names[kind] = name

    def write(self, resource: Json) -> None:
        kind = resource["resourceType"]
        self.handles[kind].write(json.dumps(resource, separators=(",", ":"), ensure_ascii=False) + "\n")
        self.counts[kind] += 1


def _patient(row: dict[str, str], stay: dict[str, str] | None) -> Json:
    subject, name = row["subject_id"], row.get("name", "")
    resource: Json = {
        "resourceType": "Patient",
        "id": subject,
        "identifier": [{"system": MIMIC_IDENTIFIER + "patient", "value": subject}],
        "gender": {"M": "male", "F": "female"}.get(row["gender"], "unknown"),
    }
    if name:
        parts = name.split()
        resource["name"] = [{"use": "official", "text": name, "family": parts[-1], "given": parts[:-1] or parts}]
    if row["anchor_age"] and row["anchor_year"]:
        resource["birthDate"] = str(int(row["anchor_year"]) - int(row["anchor_age"])).zfill(4)
    if row.get("dod"):
        resource["deceasedDateTime"] = row["dod"]
    if stay is not None:
        if stay.get("race"):
            text = {"url": "text", "valueString": stay["race"]}
            resource["extension"] = [{"url": RACE_EXTENSION, "extension": [text]}]
        if stay.get("language"):
            resource["communication"] = [{"language": {"text": stay["language"]}}]
        if stay.get("marital_status"):
            resource["maritalStatus"] = {"text": stay["marital_status"]}
    return resource


def _encounters(row: dict[str, str], service: str | None, ranks: list[str]) -> list[Json]:
    hadm, subject = row["hadm_id"], row["subject_id"]
    period = {k: v for k, v in (("start", _moment(row["admittime"])), ("end", _moment(row["dischtime"]))) if v}
    disposition: Json = {"text": row["discharge_location"]} if row.get("discharge_location") else {}
    if row.get("hospital_expire_flag") == "1":
        disposition["coding"] = [
            {"system": "http://terminology.hl7.org/CodeSystem/discharge-disposition", "code": "exp"}
        ]
    hospitalization = {
        k: v
        for k, v in (
            ("admitSource", {"text": row["admission_location"]} if row.get("admission_location") else None),
            ("dischargeDisposition", disposition or None),
        )
        if v
    }
    stay: Json = {
        "resourceType": "Encounter",
        "id": hadm,
        "identifier": [{"system": MIMIC_IDENTIFIER + "encounter-hosp", "value": hadm}],
        "status": "finished",
        "class": {"system": ACT_CODE, "code": "IMP", "display": "inpatient encounter"},
        "subject": _ref("Patient", subject),
        "period": period,
    }
    if row.get("admission_type"):
        stay["type"] = [{"text": row["admission_type"]}]
    if service:
        stay["serviceType"] = {"coding": [{"system": SERVICE_SYSTEM, "code": service}]}
    if ranks:
        stay["diagnosis"] = [{"condition": _ref("Condition", f"{hadm}-{seq}"), "rank": int(seq)} for seq in ranks]
    if hospitalization:
        stay["hospitalization"] = hospitalization
    found = [stay]
    if row.get("edregtime"):
        emergency = {k: v for k, v in (("start", _moment(row["edregtime"])), ("end", _moment(row["edouttime"]))) if v}
        found.append(
            {
                "resourceType": "Encounter",
                "id": f"{hadm}-ed",
                "identifier": [{"system": MIMIC_IDENTIFIER + "encounter-ed", "value": f"{hadm}-ed"}],
                "status": "finished",
                "class": {"system": ACT_CODE, "code": "EMER", "display": "emergency"},
                "subject": _ref("Patient", subject),
                "period": emergency,
                "partOf": _ref("Encounter", hadm),
            }
        )
    return found


def _condition(row: dict[str, str], title: str | None) -> Json:
    version = row["icd_version"]
    code = dotted_icd10cm(row["icd_code"]) if version == "10" else row["icd_code"]
    coding = {"system": ICD10CM if version == "10" else ICD9CM, "code": code, **({"display": title} if title else {})}
    return {
        "resourceType": "Condition",
        "id": f"{row['hadm_id']}-{row['seq_num']}",
        "category": [
            {
                "coding": [
                    {
                        "system": "http://terminology.hl7.org/CodeSystem/condition-category",
                        "code": "encounter-diagnosis",
                    }
                ]
            }
        ],
        "code": {"coding": [coding]},
        "subject": _ref("Patient", row["subject_id"]),
        "encounter": _ref("Encounter", row["hadm_id"]),
    }


def _procedure(row: dict[str, str], title: str | None) -> Json:
    system = ICD10PCS if row["icd_version"] == "10" else ICD9CM
    return {
        "resourceType": "Procedure",
        "id": f"{row['hadm_id']}-p{row['seq_num']}",
        "status": "completed",
        "code": {"coding": [{"system": system, "code": row["icd_code"], **({"display": title} if title else {})}]},
        "subject": _ref("Patient", row["subject_id"]),
        "encounter": _ref("Encounter", row["hadm_id"]),
        "performedDateTime": row["chartdate"][:10],
    }


def _dosage(row: dict[str, str]) -> Json:
    dosage: Json = {}
    if row.get("route"):
        dosage["route"] = {"text": row["route"]}
    repeat: Json = {}
    bounds = {k: v for k, v in (("start", _moment(row["starttime"])), ("end", _moment(row["stoptime"]))) if v}
    if bounds:
        repeat["boundsPeriod"] = bounds
    per_day = row.get("doses_per_24_hrs", "")
    if _NUMBER.match(per_day) and float(per_day) > 0:
        number = float(per_day)
        repeat.update(
            {"frequency": int(number), "period": 1, "periodUnit": "d"}
            if number.is_integer()
            else {"frequency": 1, "period": round(1 / number, 6), "periodUnit": "d"}
        )
    if repeat:
        dosage["timing"] = {"repeat": repeat}
    dose, unit = row.get("dose_val_rx", ""), row.get("dose_unit_rx", "")
    low_high = dose.split("-")
    if _NUMBER.match(dose):
        dosage["doseAndRate"] = [{"doseQuantity": _quantity(dose, unit)}]
    elif len(low_high) == 2 and all(_NUMBER.match(part) for part in low_high):
        dose_range = {"low": _quantity(low_high[0], unit), "high": _quantity(low_high[1], unit)}
        dosage["doseAndRate"] = [{"doseRange": dose_range}]
    return dosage


def _request(row: dict[str, str]) -> Json:
    medication: Json = {"resourceType": "Medication", "id": "med", "code": {"text": row["drug"]}}
    if row.get("form_rx"):
        medication["form"] = {"text": row["form_rx"]}
    if row.get("prod_strength"):
        medication["extension"] = [{"url": PRODUCT_STRENGTH, "valueString": row["prod_strength"]}]
    request: Json = {
        "resourceType": "MedicationRequest",
        "id": _id(f"{row['hadm_id']}-{row['pharmacy_id']}"),
        "contained": [medication],
        "identifier": [{"system": MIMIC_IDENTIFIER + "medication-request-phid", "value": row["pharmacy_id"]}],
        "status": "completed",
        "intent": "order",
        "category": [{"coding": [{"system": DRUG_TYPE, "code": row.get("drug_type") or "MAIN"}]}],
        "medicationReference": {"reference": "#med"},
        "subject": _ref("Patient", row["subject_id"]),
        "encounter": _ref("Encounter", row["hadm_id"]),
    }
    dosage = _dosage(row)
    if dosage:
        request["dosageInstruction"] = [dosage]
    return request


def _document(row: dict[str, str]) -> Json:
    note_id = row["note_id"]
    kind = {"DS": "18842-5", "RR": "18748-4"}.get(row.get("note_type", ""), "")
    document: Json = {
        "resourceType": "DocumentReference",
        "id": _id(note_id),
        "identifier": [{"system": MIMIC_IDENTIFIER + "note", "value": note_id}],
        "status": "current",
        "type": {"coding": [{"system": LOINC, "code": kind}]} if kind else {"text": row.get("note_type", "")},
        "subject": _ref("Patient", row["subject_id"]),
        "content": [
            {
                "attachment": {
                    "contentType": "text/plain; charset=utf-8",
                    "data": base64.b64encode(row["text"].encode("utf-8")).decode("ascii"),
                }
            }
        ],
    }
    if row.get("charttime"):
        document["date"] = _moment(row["charttime"])
    if row.get("hadm_id"):
        document["context"] = {"encounter": [_ref("Encounter", row["hadm_id"])]}
    return document


def _coverage(row: dict[str, str]) -> Json | None:
    insurance = row.get("insurance")
    if not insurance:
        return None
    period = {k: v for k, v in (("start", _moment(row["admittime"])), ("end", _moment(row["dischtime"]))) if v}
    return {
        "resourceType": "Coverage",
        "id": f"{row['hadm_id']}-coverage",
        "status": "active",
        "type": {"text": insurance},
        "beneficiary": _ref("Patient", row["subject_id"]),
        "payor": [{"display": insurance}],
        "period": period,
    }


def write_export(source: Path, out: Path, compress: bool = False) -> dict[str, int]:
    """Write the MIMIC-IV folder ``source`` as a Bulk Data export in ``out``; returns resources written by type."""
    report = IngestReport()
    out.mkdir(parents=True, exist_ok=True)
    admissions = list(_raw(source, "admissions", report))
    services: dict[str, tuple[str, str]] = {}
    for row in _raw(source, "services", report):
        if row["hadm_id"] not in services or services[row["hadm_id"]][0] <= row["transfertime"]:
            services[row["hadm_id"]] = (row["transfertime"], row["curr_service"])
    ranks: dict[str, list[str]] = defaultdict(list)
    for row in _raw(source, "diagnoses_icd", report):
        ranks[row["hadm_id"]].append(row["seq_num"])
    first_stay: dict[str, dict[str, str]] = {}
    for row in sorted(admissions, key=lambda r: r["admittime"]):
        first_stay.setdefault(row["subject_id"], row)
    titles = {
        table: {(r["icd_code"], r["icd_version"]): r["long_title"] for r in _raw(source, table, report)}
        for table in ("d_icd_diagnoses", "d_icd_procedures")
    }
    with ExitStack() as stack:
        writer = _Writer(out, compress, stack)
        for row in _raw(source, "patients", report):
            writer.write(_patient(row, first_stay.get(row["subject_id"])))
        for row in admissions:
            service = services.get(row["hadm_id"], ("", ""))[1] or None
            for encounter in _encounters(row, service, ranks.get(row["hadm_id"], [])):
                writer.write(encounter)
            coverage = _coverage(row)
            if coverage is not None:
                writer.write(coverage)
        for row in _raw(source, "diagnoses_icd", report):
            writer.write(_condition(row, titles["d_icd_diagnoses"].get((row["icd_code"], row["icd_version"]))))
        for row in _raw(source, "procedures_icd", report):
            writer.write(_procedure(row, titles["d_icd_procedures"].get((row["icd_code"], row["icd_version"]))))
        for row in _raw(source, "prescriptions", report):
            writer.write(_request(row))
        for row in _raw(source, "discharge", report):
            writer.write(_document(row))
    manifest = {
        "transactionTime": datetime.now(UTC).isoformat(timespec="seconds"),
        "request": "[base]/$export",
        "requiresAccessToken": False,
        "output": [{"type": kind, "url": writer.names[kind], "count": writer.counts[kind]} for kind in RESOURCE_FILES],
        "error": [],
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    if (source / SOURCE_FILE).is_file():
        shutil.copyfile(source / SOURCE_FILE, out / SOURCE_FILE)
    return writer.counts


def write_cohort_exports(cohort: Path, compress: bool = False) -> dict[str, dict[str, int]]:
    """Write every folder of a synthetic cohort (``full`` and ``hospitals/*``) as an export under ``cohort/fhir``."""
    folders = {"full": cohort / "full"} | {p.name: p for p in sorted((cohort / "hospitals").iterdir()) if p.is_dir()}
    return {name: write_export(folder, cohort / "fhir" / name, compress) for name, folder in folders.items()}
