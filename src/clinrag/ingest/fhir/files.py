"""The files of a FHIR export and the resources in them, each with the file and line it came from.

A Bulk Data export is one NDJSON file per resource type (``Patient.ndjson``, ``Observation.000.ndjson.gz`` ...) with
an optional ``manifest.json`` naming them; Bundles are JSON files whose ``resourceType`` is ``Bundle``. A line that is
not JSON is reported and skipped; a half-written last line (no newline, not JSON) or a compressed file that ends early
is reported and everything before it kept.

Example:
    >>> import tempfile, pathlib
    >>> from clinrag.ingest.mimic import IngestReport
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (root / "Patient.ndjson").write_text('{"resourceType": "Patient", "id": "p1"}\\n{"resourceType": "Pat')
    >>> report = IngestReport()
    >>> [(f.resource_type, [r.resource["id"] for r in read_file(f, report)]) for f in find_files(root, report)]
    [('Patient', ['p1'])]
    >>> str(report.problems[0]).endswith("half-written line at the end of the file (the lines before it are kept)")
    True
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal, cast

from clinrag.ingest.fhir.values import Json, string
from clinrag.ingest.mimic import IngestReport, Problem

MANIFEST = "manifest.json"
NDJSON_SUFFIXES = (".ndjson", ".ndjson.gz")
_TYPE_TOKEN = re.compile(r"[A-Z][A-Za-z]+")


@dataclass(frozen=True)
class ExportFile:
    """One file of an export: NDJSON (one resource a line) or a JSON Bundle, and the resource type it declares."""

    path: Path
    kind: Literal["ndjson", "bundle"]
    resource_type: str | None


@dataclass(frozen=True)
class Located:
    """A resource and where it is: file and line (for a Bundle, the entry's number) and the entry's fullUrl."""

    file: str
    line: int
    resource: Json
    full_url: str | None = None

    @property
    def key(self) -> str:
        """``Type/id`` of the resource."""
        return f"{self.resource.get('resourceType')}/{self.resource.get('id')}"

    def problem(self, reason: str) -> Problem:
        """A problem with this resource, named by type and id (never by its content)."""
        return Problem(self.file, self.line, self.key, reason)


def _type_from_name(path: Path) -> str | None:
    """The resource type a Bulk Data file name starts with (``Observation.000.ndjson`` -> ``Observation``)."""
    name = path.name
    for suffix in NDJSON_SUFFIXES:
        name = name.removesuffix(suffix)
    match = _TYPE_TOKEN.search(name)
    return match.group(0) if match else None


def _manifest_types(root: Path, report: IngestReport) -> dict[str, str]:
    """File name -> resource type from ``manifest.json``'s ``output`` (a file it names but lacks is reported)."""
    path = root / MANIFEST
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        report.skip("manifest", Problem(str(path), 1, None, f"not valid JSON ({type(exc).__name__})"))
        return {}
    types: dict[str, str] = {}
    outputs = data.get("output") if isinstance(data, dict) else None
    for number, item in enumerate(outputs if isinstance(outputs, list) else [], start=1):
        url, kind = string(item, "url"), string(item, "type")
        if not url or not kind:
            continue
        name = url.rstrip("/").rsplit("/", 1)[-1]
        types[name] = kind
        if not any(root.rglob(name)):
            report.skip(
                "manifest", Problem(str(path), number, "output", f"file {name} is listed but not in the export")
            )
    return types


def _is_bundle(path: Path) -> bool:
    """Whether a JSON file holds a FHIR resource (a Bundle or a single resource), judged by its first bytes."""
    with path.open("rb") as handle:
        head = handle.read(4096)
    return b'"resourceType"' in head


def find_files(root: Path, report: IngestReport) -> list[ExportFile]:
    """The NDJSON files and Bundles under ``root`` (sorted by path, so every run reads them in one order)."""
    declared = _manifest_types(root, report)
    found: list[ExportFile] = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        if path.name.endswith(NDJSON_SUFFIXES):
            found.append(ExportFile(path, "ndjson", declared.get(path.name) or _type_from_name(path)))
        elif path.suffix == ".json" and path.name != MANIFEST and _is_bundle(path):
            found.append(ExportFile(path, "bundle", None))
    return found


def has_export(root: Path) -> bool:
    """Whether ``root`` looks like a FHIR export: a manifest, NDJSON files, or JSON files holding resources."""
    if (root / MANIFEST).is_file():
        return True
    for path in root.rglob("*"):
        if path.name.endswith(NDJSON_SUFFIXES) or (
            path.suffix == ".json" and path.name != MANIFEST and path.is_file() and _is_bundle(path)
        ):
            return True
    return False


def _open(path: Path) -> IO[bytes]:
    if path.name.endswith(".gz"):
        return cast(IO[bytes], gzip.open(path, "rb"))
    return path.open("rb")


def _ndjson(file: ExportFile, report: IngestReport) -> Iterator[Located]:
    name = str(file.path)
    line = 0
    with _open(file.path) as handle:
        try:
            for raw in handle:
                line += 1
                if not raw.strip():
                    continue
                try:
                    resource = json.loads(raw)
                except ValueError:
                    reason = (
                        "half-written line at the end of the file (the lines before it are kept)"
                        if not raw.endswith(b"\n")
                        else "not valid JSON"
                    )
                    report.skip(file.resource_type or "fhir", Problem(name, line, None, reason))
                    continue
                if not isinstance(resource, dict) or not isinstance(resource.get("resourceType"), str):
                    report.skip(file.resource_type or "fhir", Problem(name, line, None, "not a FHIR resource"))
                    continue
                yield Located(name, line, resource)
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            reason = f"compressed file ends early or is damaged ({type(exc).__name__}); the lines before it are kept"
            report.skip(file.resource_type or "fhir", Problem(name, line + 1, None, reason))


def _bundle(file: ExportFile, report: IngestReport) -> Iterator[Located]:
    name = str(file.path)
    try:
        data = json.loads(file.path.read_bytes())
    except ValueError:
        report.skip("Bundle", Problem(name, 1, None, "not valid JSON"))
        return
    if not isinstance(data, dict):
        report.skip("Bundle", Problem(name, 1, None, "not a FHIR resource"))
        return
    if data.get("resourceType") != "Bundle":
        yield Located(name, 1, data)
        return
    entries = data.get("entry")
    for number, entry in enumerate(entries if isinstance(entries, list) else [], start=1):
        resource = entry.get("resource") if isinstance(entry, dict) else None
        if not isinstance(resource, dict) or not isinstance(resource.get("resourceType"), str):
            report.skip("Bundle", Problem(f"{name} (Bundle entry)", number, None, "entry without a resource"))
            continue
        full_url = string(entry, "fullUrl")
        if "id" not in resource and full_url:  # transaction bundles name new resources by their fullUrl only
            resource = {**resource, "id": full_url.rsplit(":", 1)[-1].rsplit("/", 1)[-1]}
        yield Located(f"{name} (Bundle entry)", number, resource, full_url)


def read_file(file: ExportFile, report: IngestReport) -> Iterator[Located]:
    """The resources of one export file, in order; unreadable lines and entries are reported and skipped."""
    return _ndjson(file, report) if file.kind == "ndjson" else _bundle(file, report)
