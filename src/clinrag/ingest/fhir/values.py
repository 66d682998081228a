"""Typed access to parsed FHIR JSON: elements, references, dates (partial ones too), numbers and stable ids.

Example:
    >>> text_of({"coding": [{"system": "http://loinc.org", "code": "8867-4", "display": "Heart rate"}]})
    'Heart rate'
    >>> parse_datetime("2015-03-04T10:22:00+02:00"), parse_date("1948")
    (datetime.datetime(2015, 3, 4, 10, 22), datetime.date(1948, 1, 1))
"""

from __future__ import annotations

import hashlib
from datetime import date, datetime
from typing import Any

Json = dict[str, Any]
"""One JSON object of a resource (a resource, a datatype, a backbone element)."""

HASHED_ID_BASE = 2**52
"""Ids that are not numbers become ``HASHED_ID_BASE + (blake2b of the id mod 2**52)``: stable, below 2**53."""


def obj(value: object, key: str) -> Json:
    """``value[key]`` when it is an object, else an empty one."""
    found = value.get(key) if isinstance(value, dict) else None
    return found if isinstance(found, dict) else {}


def objs(value: object, key: str) -> list[Json]:
    """The objects of the list ``value[key]`` (a single object counts as a list of one)."""
    found = value.get(key) if isinstance(value, dict) else None
    if isinstance(found, dict):
        return [found]
    return [item for item in found if isinstance(item, dict)] if isinstance(found, list) else []


def string(value: object, key: str) -> str | None:
    """``value[key]`` as a non-empty string (numbers and booleans written as FHIR writes them), else None."""
    found = value.get(key) if isinstance(value, dict) else None
    if isinstance(found, bool):
        return "true" if found else "false"
    if isinstance(found, int | float):
        return number_text(found)
    return found.strip() or None if isinstance(found, str) else None


def number_text(value: float) -> str:
    """A JSON number as written in text: ``20`` for 20 or 20.0, ``0.4`` for 0.4.

    Example:
        >>> number_text(20.0), number_text(0.4), number_text(1000)
        ('20', '0.4', '1000')
    """
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def text_of(concept: object) -> str | None:
    """What a CodeableConcept says in words: its text, else the first coding's display, else its code."""
    return string(concept, "text") or first_coding(concept, "display") or first_coding(concept, "code")


def first_coding(concept: object, key: str) -> str | None:
    """A CodeableConcept's first coding's ``key`` (``code``, ``display``) among the codings that have one, else None.

    Example:
        >>> first_coding({"coding": [{"system": "s"}, {"code": "MED", "display": "Medicine"}]}, "code")
        'MED'
    """
    return next((found for coding in objs(concept, "coding") if (found := string(coding, key))), None)


def codings(concept: object) -> list[tuple[str, str, str | None]]:
    """(system, code, display) of every coding of a CodeableConcept that has a system and a code."""
    found = []
    for coding in objs(concept, "coding"):
        system, code = string(coding, "system"), string(coding, "code")
        if system and code:
            found.append((system, code, string(coding, "display")))
    return found


def parse_datetime(value: str | None) -> datetime | None:
    """A FHIR date, dateTime or instant as a naive datetime of its wall-clock time (the offset is dropped, as chunk
    times are naive like MIMIC-IV's); partial dates fill in the first month and day. None when absent or invalid.

    Example:
        >>> parse_datetime("2015-03"), parse_datetime("2015-03-04T10:22:00Z"), parse_datetime("soon")
        (datetime.datetime(2015, 3, 1, 0, 0), datetime.datetime(2015, 3, 4, 10, 22), None)
    """
    if not value:
        return None
    text = value.strip()
    try:
        if len(text) == 4:
            return datetime(int(text), 1, 1)
        if len(text) == 7:
            return datetime(int(text[:4]), int(text[5:7]), 1)
        if len(text) == 10:
            return datetime.fromisoformat(text)
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment.replace(tzinfo=None)


def parse_date(value: str | None) -> date | None:
    """A FHIR date (``1948``, ``1948-05``, ``1948-05-17``, or a dateTime) as a date; None when absent or invalid."""
    moment = parse_datetime(value)
    return moment.date() if moment else None


def period(element: object) -> tuple[datetime | None, datetime | None]:
    """(start, end) of a Period."""
    return parse_datetime(string(element, "start")), parse_datetime(string(element, "end"))


def stable_int(text: str) -> int:
    """A number for an id: the id itself when it is a plain number, else a stable hash of it.

    Example:
        >>> stable_int("10000032"), stable_int("example") == stable_int("example") > HASHED_ID_BASE
        (10000032, True)
    """
    if text.isdigit() and len(text) <= 18:
        return int(text)
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return HASHED_ID_BASE + int.from_bytes(digest, "big") % HASHED_ID_BASE


def identifier(resource: Json, suffixes: tuple[str, ...]) -> str | None:
    """The value of the resource's first identifier whose system ends with one of ``suffixes``."""
    for item in objs(resource, "identifier"):
        system, value = string(item, "system") or "", string(item, "value")
        if value and system.endswith(suffixes):
            return value
    return None


def number_id(resource: Json, suffixes: tuple[str, ...]) -> int:
    """A numeric id for a resource: a numeric identifier of the given systems, else its id as a number or hash."""
    value = identifier(resource, suffixes)
    if value and value.isdigit():
        return int(value)
    return stable_int(string(resource, "id") or "")
