"""Discharge-note processing: scrub de-identified header fields, repair hard wraps, split into MIMIC sections.

Sections are recognised by their heading at the start of a line (case-insensitive, with the variants real
MIMIC-IV notes use: ``HPI:``, ``Discharge Diagnoses:``, ``Physical ___:`` ...) and mapped to a canonical title
and one of three groups: clinical profile, in-hospital progress, discharge plan. Unknown ``Label:`` lines
inside a section (``VS:``, ``Primary:``) stay part of it.

Example:
    >>> note = parse_note("Name: ___  Unit No: ___\\nService: MEDICINE\\nHPI: 72 yo man with\\ncough.\\n")
    >>> note.service, note.sections[0].title, note.sections[0].text
    ('MEDICINE', 'History of Present Illness', '72 yo man with cough.')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from clinrag.types import SectionGroup

P, H, D = SectionGroup.CLINICAL_PROFILE, SectionGroup.IN_HOSPITAL_PROGRESS, SectionGroup.DISCHARGE_PLAN

CANONICAL: dict[str, tuple[SectionGroup, tuple[str, ...]]] = {
    "Allergies": (P, ("allergies", "allergy")),
    "Chief Complaint": (P, ("chief complaint", "cc", "reason for admission")),
    "Major Surgical or Invasive Procedure": (
        H,
        ("major surgical or invasive procedure", "major surgical procedure", "major procedures"),
    ),
    "History of Present Illness": (P, ("history of present illness", "history of the present illness", "hpi")),
    "Past Medical History": (
        P,
        (
            "past medical history",
            "pmh",
            "past medical/surgical history",
            "past medical and surgical history",
            "past surgical history",
            "psh",
        ),
    ),
    "Social History": (P, ("social history", "sh", "social hx")),
    "Family History": (P, ("family history", "fh", "family hx")),
    "Physical Exam": (H, ("physical exam", "physical examination", "physical ___", "exam on admission")),
    "Pertinent Results": (H, ("pertinent results", "pertinent labs", "labs and studies")),
    "Brief Hospital Course": (
        H,
        ("brief hospital course", "hospital course", "brief summary of hospital course", "summary of hospital course"),
    ),
    "Medications on Admission": (
        P,
        (
            "medications on admission",
            "___ on admission",
            "admission medications",
            "home medications",
            "meds on admission",
            "outpatient medications",
        ),
    ),
    "Discharge Medications": (D, ("discharge medications", "discharge meds", "medications on discharge")),
    "Discharge Disposition": (D, ("discharge disposition", "disposition")),
    "Facility": (D, ("facility",)),
    "Discharge Diagnosis": (
        D,
        ("discharge diagnosis", "discharge diagnoses", "final diagnosis", "final diagnoses"),
    ),
    "Discharge Condition": (D, ("discharge condition", "condition at discharge", "condition on discharge")),
    "Discharge Instructions": (D, ("discharge instructions", "instructions on discharge")),
    "Followup Instructions": (
        D,
        ("followup instructions", "follow-up instructions", "follow up instructions", "followup", "follow-up"),
    ),
}
ALIASES: dict[str, str] = {alias: title for title, (_, aliases) in CANONICAL.items() for alias in aliases}
GROUP_OF: dict[str, SectionGroup] = {title: group for title, (group, _) in CANONICAL.items()}

_HEADING = re.compile(
    r"^[ \t]*(?P<name>"
    + "|".join(re.escape(a) for a in sorted(ALIASES, key=len, reverse=True))
    + r")[ \t]*:(?P<rest>.*)$",
    re.IGNORECASE,
)
_SCRUB_FIELDS = re.compile(
    r"(?:Name|Unit No|Admission Date|Discharge Date|Date of Birth|Sex|Attending)[ \t]*:[ \t]*\S*",
    re.IGNORECASE,
)
_HEADER_LINE = re.compile(
    r"^[ \t]*(?:Name|Unit No|Admission Date|Discharge Date|Date of Birth|Sex|Attending)[ \t]*:", re.IGNORECASE
)
_SERVICE = re.compile(r"^[ \t]*Service[ \t]*:[ \t]*(?P<service>.*?)[ \t]*$", re.IGNORECASE | re.MULTILINE)
_LIST_ITEM = re.compile(r"^\s*(?:[-*•–#]|\d{1,3}[.)]|[a-zA-Z][.)])\s")
# A heading written on its own line ("CHRONIC ISSUES:", "Imaging / studies:"): capitalised, a few words, then a colon.
_HEADING_LINE = re.compile(r"^\s*[A-Z][A-Za-z0-9/&()#'-]*(?:[ \t]+[A-Za-z0-9/&()#'-]+){0,5}[ \t]*:\s*$")
_LABEL = re.compile(r"^\s*[A-Za-z][A-Za-z0-9 /&()#'-]{0,40}:(?:\s|$)")
_TIMED_LINE = re.compile(r"^\s*___ \d{1,2}:\d{2}")  # lab lines start with a de-identified date and a time
_SENTENCE_END = re.compile(r"[.!?:;]['\")\]]?$")


@dataclass(frozen=True)
class Section:
    """One section of a note: canonical title, its group, the cleaned text, and the heading as written."""

    title: str
    group: SectionGroup
    text: str
    heading: str


@dataclass(frozen=True)
class ParsedNote:
    """A note after scrubbing and sectioning; ``service`` is the header's Service value, if any."""

    service: str | None
    sections: tuple[Section, ...]


def scrub_header(text: str) -> str:
    """Remove the de-identified header fields (Name, Unit No, dates, Date of Birth, Sex, Attending).

    Example:
        >>> scrub_header("Name:  ___   Unit No:   ___\\nService: SURGERY\\nAttending: ___.\\n")
        'Service: SURGERY\\n'
    """
    kept = []
    for line in text.splitlines(keepends=True):
        if not _HEADER_LINE.match(line):
            kept.append(line)
            continue
        remainder = _SCRUB_FIELDS.sub("", line).strip(" \t\r\n.")
        if remainder:
            kept.append(remainder + "\n")
    return "".join(kept)


def _starts_unit(line: str) -> bool:
    """Whether a line begins a unit of its own: a list item, a heading (known or ``Short Label:``), a timed lab."""
    return bool(
        _LIST_ITEM.match(line)
        or _TIMED_LINE.match(line)
        or _HEADING_LINE.match(line)
        or (":" in line and _HEADING.match(line))
    )


def _joins(previous: str, following: str) -> bool:
    """Whether a line break between these two lines is a hard wrap inside a sentence."""
    if not previous.strip() or not following.strip():
        return False
    if _starts_unit(following):
        return False
    if previous.rstrip().endswith(":"):
        return False
    if following.lstrip()[:1].islower():
        return True
    if _LABEL.match(following) and following.strip().split(":")[0].isupper():
        return False
    return not _SENTENCE_END.search(previous.rstrip())


def unwrap(text: str) -> str:
    """Join lines that a hard wrap broke inside a sentence; keep paragraph breaks, lists and labelled lines.

    Example:
        >>> unwrap("She was admitted with a\\nright hip fracture.\\n1. Aspirin 81 mg\\n2. Senna")
        'She was admitted with a right hip fracture.\\n1. Aspirin 81 mg\\n2. Senna'
    """
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    out: list[str] = []
    for line in lines:
        if out and _joins(out[-1], line):
            out[-1] = out[-1] + " " + line.strip()
        else:
            out.append(line)
    return "\n".join(out).strip("\n")


def _clean(text: str) -> str:
    unwrapped = unwrap(text)
    lines = [line.strip() for line in unwrapped.split("\n")]
    cleaned: list[str] = []
    for line in lines:
        if line or (cleaned and cleaned[-1]):
            cleaned.append(line)
    return "\n".join(cleaned).strip()


def split_sections(text: str) -> list[Section]:
    """Split scrubbed note text into sections; text before the first heading is kept as a 'Header' section."""
    sections: list[Section] = []
    title, heading = "Header", ""
    body: list[str] = []
    for line in text.replace("\r\n", "\n").split("\n"):
        match = _HEADING.match(line) if ":" in line else None
        if match:
            sections.append(Section(title, GROUP_OF.get(title, SectionGroup.OTHER), _clean("\n".join(body)), heading))
            title = ALIASES[match.group("name").lower()]
            heading = match.group("name")
            body = [match.group("rest").strip()]
        else:
            body.append(line)
    sections.append(Section(title, GROUP_OF.get(title, SectionGroup.OTHER), _clean("\n".join(body)), heading))
    return [section for section in sections if section.text]


def note_service(text: str) -> str | None:
    """The value of the note's ``Service:`` line, if it has one.

    Example:
        >>> note_service("Sex: F\nService: NEUROLOGY\n")
        'NEUROLOGY'
    """
    match = _SERVICE.search(text)
    return (match.group("service").strip() or None) if match else None


def parse_note(text: str) -> ParsedNote:
    """Scrub, find the service, and section a discharge note."""
    scrubbed = scrub_header(text)
    service_match = _SERVICE.search(scrubbed)
    service = service_match.group("service").strip() or None if service_match else None
    if service_match:
        scrubbed = scrubbed[: service_match.start()] + scrubbed[service_match.end() :]
    return ParsedNote(service=service, sections=tuple(split_sections(scrubbed)))
