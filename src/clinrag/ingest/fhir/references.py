"""References between resources: ``Patient/123``, absolute URLs, ``urn:uuid:`` entries of a Bundle, ``#contained``.

Example:
    >>> reference_key({"reference": "https://ehr.example/fhir/Patient/123/_history/2"})
    'Patient/123'
    >>> contained({"contained": [{"resourceType": "Medication", "id": "m"}]}, {"reference": "#m"})["resourceType"]
    'Medication'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from clinrag.ingest.fhir.values import Json, objs, string
from clinrag.ingest.mimic import Problem

_TYPED = re.compile(r"(?:^|/)([A-Z][A-Za-z]+)/([A-Za-z0-9\-.]{1,64})(?:/_history/[^/]+)?$")


@dataclass(frozen=True)
class Origin:
    """Where a resource was read: file, line (a Bundle's entry number) and ``Type/id``; never its content."""

    file: str
    line: int
    key: str

    def problem(self, reason: str) -> Problem:
        """A reportable problem of this resource."""
        return Problem(self.file, self.line, self.key, reason)


def reference_key(reference: object) -> str | None:
    """``Type/id`` of a Reference (relative or absolute URL), a ``urn:`` as written, None for none or ``#local``."""
    text = string(reference, "reference")
    if not text or text.startswith("#"):
        return None
    if text.startswith("urn:"):
        return text
    match = _TYPED.search(text)
    return f"{match.group(1)}/{match.group(2)}" if match else text


def contained(resource: Json, reference: object) -> Json | None:
    """The contained resource a ``#id`` Reference points to, else None."""
    text = string(reference, "reference")
    if not text or not text.startswith("#"):
        return None
    for item in objs(resource, "contained"):
        if item.get("id") == text[1:]:
            return item
    return None
