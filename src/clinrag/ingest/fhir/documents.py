"""Notes from DocumentReference, Composition and DiagnosticReport resources, as MIMIC-IV-Note rows.

Attachments are read as ``text/plain`` (preferred) or ``text/html``, from base64 ``data`` or from a ``url`` inside
the export: a file path relative to the export folder, or ``Binary/id`` of a Binary resource in it. URLs outside the
export are never fetched; they are reported. A Composition's sections become ``Title:`` headings, so the note is
sectioned like a MIMIC discharge summary.

Example:
    >>> import base64, pathlib
    >>> data = base64.b64encode(b"Service: MEDICINE\\nHPI: cough").decode()
    >>> record = document_note(Origin("f", 1, "DocumentReference/n1"), {"resourceType": "DocumentReference",
    ...     "id": "n1", "type": {"coding": [{"system": "http://loinc.org", "code": "18842-5"}]},
    ...     "content": [{"attachment": {"contentType": "text/plain", "data": data}}]}, Attachments(pathlib.Path(".")))
    >>> record.note_id, record.note_type, record.text
    ('n1', 'DS', 'Service: MEDICINE\\nHPI: cough')
    >>> html_to_text("<div><p>Plan:</p><ul><li>Aspirin &amp; rest</li></ul></div>")
    'Plan:\\n\\n- Aspirin & rest'
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from datetime import datetime
from html.parser import HTMLParser
from pathlib import Path

from clinrag.ingest.fhir.clinical import effective
from clinrag.ingest.fhir.codes import LOINC
from clinrag.ingest.fhir.references import Origin, reference_key
from clinrag.ingest.fhir.values import Json, codings, identifier, obj, objs, parse_datetime, string, text_of

NOTE_IDENTIFIERS = ("/identifier/note",)
"""Identifier systems whose value is the note id (else the resource id)."""
NOTE_TYPES = {"18842-5": "DS", "18748-4": "RR", "11506-3": "PN", "34117-2": "HP", "11488-4": "CN"}
"""LOINC document types and the short note types MIMIC-IV uses (DS discharge summary, RR radiology report)."""
_BLOCKS = frozenset({"p", "div", "br", "tr", "table", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "section"})


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self.skipping += 1
        elif tag == "li":
            self.parts.append("\n- ")
        elif tag in ("td", "th"):
            self.parts.append(" | ")
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self.skipping = max(0, self.skipping - 1)
        elif tag in _BLOCKS or tag == "li":
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    """The text of an HTML or XHTML fragment: block elements on lines of their own, list items as ``- ``."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    lines = [" ".join(line.split()) for line in "".join(parser.parts).split("\n")]
    text = "\n".join(line.strip(" |") if line.startswith("|") else line for line in lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


@dataclass
class Attachments:
    """Reads attachments inside one export: base64 data, files under ``root``, and Binary resources by id."""

    root: Path
    binaries: dict[str, Json] = field(default_factory=dict)

    def _bytes(self, attachment: Json) -> tuple[bytes | None, str | None, str | None]:
        """(content, its content type, why it could not be read)."""
        kind = string(attachment, "contentType")
        data = string(attachment, "data")
        if data is not None:
            try:
                return base64.b64decode(data, validate=True), kind, None
            except (binascii.Error, ValueError):
                return None, kind, "attachment data is not valid base64"
        url = string(attachment, "url")
        if not url:
            return None, kind, "attachment has neither data nor url"
        key = reference_key({"reference": url})
        if key and key.startswith("Binary/"):
            binary = self.binaries.get(key)
            if binary is None:
                return None, kind, f"reference to missing {key}"
            return self._bytes({"contentType": string(binary, "contentType") or kind, "data": binary.get("data")})
        if "://" in url or url.startswith(("/", "file:", "urn:")):
            return None, kind, "attachment url outside the export (not fetched)"
        path = (self.root / url).resolve()
        if not path.is_relative_to(self.root.resolve()) or not path.is_file():
            return None, kind, "attachment url names no file inside the export"
        return path.read_bytes(), kind, None

    def text(self, attachments: list[Json]) -> tuple[str | None, str | None]:
        """The text of the first readable attachment (plain text before HTML), else (None, why)."""

        def order(attachment: Json) -> int:
            kind = (string(attachment, "contentType") or "").lower()
            return 0 if kind.startswith("text/plain") else 1 if "html" in kind else 2

        why: str | None = "no attachment"
        for attachment in sorted(attachments, key=order):
            content, kind, problem = self._bytes(attachment)
            if content is None:
                why = problem
                continue
            kind = (kind or "text/plain").lower()
            charset = re.search(r"charset=([\w-]+)", kind)
            try:
                decoded = content.decode(charset.group(1) if charset else "utf-8", errors="replace")
            except LookupError:
                decoded = content.decode("utf-8", errors="replace")
            if kind.startswith("text/plain"):
                return decoded, None
            if "html" in kind:
                return html_to_text(decoded), None
            why = f"attachment of type {kind.split(';')[0]} is not text"
        return None, why


@dataclass
class NoteRecord:
    """A note read from the export, its patient and stay still references."""

    origin: Origin
    note_id: str
    subject_ref: str | None
    encounter_ref: str | None
    note_type: str
    charttime: datetime | None
    text: str | None
    problem: str | None = None


def note_type(concept: object) -> str:
    """MIMIC's short note type for a LOINC document type ("DS"), else the type's code or text."""
    for system, code, _ in codings(concept):
        if system == LOINC and code in NOTE_TYPES:
            return NOTE_TYPES[code]
    return text_of(concept) or ""


def document_note(origin: Origin, resource: Json, attachments: Attachments) -> NoteRecord:
    """A DocumentReference's note (see the module example)."""
    context = obj(resource, "context")
    encounters = objs(context, "encounter")
    text, problem = attachments.text([obj(item, "attachment") for item in objs(resource, "content")])
    return NoteRecord(
        origin=origin,
        note_id=identifier(resource, NOTE_IDENTIFIERS) or str(resource.get("id")),
        subject_ref=reference_key(obj(resource, "subject")),
        encounter_ref=reference_key(encounters[0]) if encounters else None,
        note_type=note_type(obj(resource, "type")),
        charttime=parse_datetime(string(resource, "date")) or parse_datetime(string(obj(context, "period"), "start")),
        text=text,
        problem=problem,
    )


def _sections(sections: list[Json], depth: int = 0) -> list[str]:
    parts = []
    for section in sections:
        title = string(section, "title") or text_of(obj(section, "code"))
        body = html_to_text(string(obj(section, "text"), "div") or "")
        parts.append(f"{title}:\n{body}" if title else body)
        parts.extend(_sections(objs(section, "section"), depth + 1))
    return [part for part in parts if part.strip()]


def composition_note(origin: Origin, resource: Json) -> NoteRecord:
    """A Composition's note: its title, then each section as ``Title:`` and the section's narrative."""
    parts = [string(resource, "title") or "", *_sections(objs(resource, "section"))]
    text = "\n\n".join(part for part in parts if part)
    return NoteRecord(
        origin=origin,
        note_id=f"Composition-{resource.get('id')}",
        subject_ref=reference_key(obj(resource, "subject")),
        encounter_ref=reference_key(obj(resource, "encounter")),
        note_type=note_type(obj(resource, "type")),
        charttime=parse_datetime(string(resource, "date")),
        text=text or None,
        problem=None if text else "composition has no text",
    )


def report_note(origin: Origin, resource: Json, attachments: Attachments) -> NoteRecord | None:
    """The note of a DiagnosticReport's ``presentedForm``, when it has one."""
    forms = objs(resource, "presentedForm")
    if not forms:
        return None
    text, problem = attachments.text(forms)
    return NoteRecord(
        origin=origin,
        note_id=f"DiagnosticReport-{resource.get('id')}",
        subject_ref=reference_key(obj(resource, "subject")),
        encounter_ref=reference_key(obj(resource, "encounter")),
        note_type="RR" if "RAD" in {c for _, c, _ in codings(obj(resource, "category"))} else "DR",
        charttime=effective(resource),
        text=text,
        problem=problem,
    )
