"""Synthetic people: gender-consistent full names and MIMIC-style demographics.

Names come from US census frequency lists (``names.json``), so two patients may share a surname, as in a real
hospital.

Example:
    >>> import random
    >>> person_name(random.Random(1), "F").count(" ")
    1
"""

from __future__ import annotations

import json
import random
from functools import cache
from importlib import resources

RACES = (
    ("WHITE", 0.62),
    ("BLACK/AFRICAN AMERICAN", 0.14),
    ("HISPANIC/LATINO - PUERTO RICAN", 0.04),
    ("HISPANIC OR LATINO", 0.03),
    ("ASIAN", 0.04),
    ("ASIAN - CHINESE", 0.02),
    ("OTHER", 0.04),
    ("UNKNOWN", 0.05),
    ("UNABLE TO OBTAIN", 0.02),
)
LANGUAGES = (("ENGLISH", 0.9), ("?", 0.1))
MARITAL = (("MARRIED", 0.45), ("SINGLE", 0.3), ("WIDOWED", 0.15), ("DIVORCED", 0.1))


@cache
def _names() -> dict[str, tuple[str, ...]]:
    raw = json.loads((resources.files("clinrag.ingest.synthetic") / "names.json").read_text())
    return {key: tuple(raw[key]) for key in ("female", "male", "surname")}


def person_name(rng: random.Random, sex: str) -> str:
    """A full name ("Betty Henry") for a patient of ``sex`` ("F" or "M")."""
    names = _names()
    first = rng.choice(names["female"] if sex == "F" else names["male"])
    return f"{first} {rng.choice(names['surname'])}"


def weighted(rng: random.Random, options: tuple[tuple[str, float], ...]) -> str:
    """One value of ``options`` drawn with the given weights."""
    values = [value for value, _ in options]
    weights = [weight for _, weight in options]
    return rng.choices(values, weights)[0]


def insurance_for(rng: random.Random, age: int) -> str:
    """MIMIC-IV v2.2 insurance categories: Medicare from 65, else Medicaid or Other."""
    if age >= 65:
        return "Medicare" if rng.random() < 0.9 else "Other"
    return "Medicaid" if rng.random() < 0.3 else "Other"


def provider_id(rng: random.Random) -> str:
    """A MIMIC-style de-identified provider id ("P12ABC")."""
    return "P" + "".join(rng.choice("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(5))
