"""Hospitals and departments a question names ("… among patients at Hospital A?", "in orthopaedics"): they
become search filters, so that an answer never comes from elsewhere, and an answer can say when the asker may
not search the scope they named.

Organisations are recognised by their label ("Hospital A") or as "hospital A"/"org A"; departments by their
name and the usual variants of a specialty's name ("orthopedic", "psychiatric", "neurological", "cardiac
surgery"). Only the names a searcher knows are recognised.

Example:
    >>> names = ScopeNames(orgs={"A": "Hospital A", "B": "Hospital B"}, depts=("orthopaedics", "medicine"))
    >>> named_scope("Who had a fall in orthopedics at Hospital A?", names)
    Scope(orgs=('A',), depts=('orthopaedics',))
    >>> named_scope("Who had a fall?", names).empty
    True
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

SPECIALTY_VARIANTS: Final[Mapping[str, tuple[str, ...]]] = {
    "orthopaedics": ("orthopaedics", "orthopedics", "orthopaedic", "orthopedic", "ortho"),
    "psychiatry": ("psychiatry", "psychiatric", "psych"),
    "neurology": ("neurology", "neurological", "neuro"),
    "cardiothoracic": ("cardiothoracic", "cardiac surgery", "cardiothoracic surgery"),
    "cardiology": ("cardiology", "cardiac"),
    "surgery": ("surgery", "surgical", "general surgery"),
    "medicine": ("medicine", "internal medicine", "medical ward", "medical service"),
    "obstetrics": ("obstetrics", "obstetric", "labor and delivery"),
    "urology": ("urology", "urological"),
    "oncology": ("oncology", "oncological"),
}
"""The ways a department is named in questions, by the department name nodes use."""

_RECORD_WORDS: Final = frozenset({"admissions", "admission", "discharge", "discharges", "visits", "encounters"})
"""Department names that are also words for the record's stays: they name the department only as a place."""

_SCOPE_WORDS: Final = r"\b(?:in|at|from|within|of|for|among|across|by|on)\s+(?:the\s+)?"


@dataclass(frozen=True)
class ScopeNames:
    """What a searcher can search: organisation codes with their labels, and department names."""

    orgs: Mapping[str, str] = field(default_factory=dict)
    depts: Sequence[str] = ()


@dataclass(frozen=True)
class Scope:
    """The organisations (codes) and departments a question names."""

    orgs: tuple[str, ...] = ()
    depts: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        """The question names no hospital or department."""
        return not self.orgs and not self.depts


_ASKER_PLACE: Final = re.compile(
    r"\b(?:calling|ringing|phoning|writing|speaking|messaging|here|i'm|i am|we're|we are|it's|it is|this is)\s+"
    r"(?:\w+\s+){0,3}?(?:from|on|in|at)\s+(?:the\s+)?[\w-]+(?:\s+[\w-]+)?\s+(?:unit|ward|department|dept|team|service|side|clinic)\b",
    re.IGNORECASE,
)
"""Where the asker is ("ringing from the admissions unit", "I'm on the surgical ward"): not where to search."""


_SET_ASIDE: Final = re.compile(
    r"\b(?:not|except|excluding|other than|apart from)\s+(?:(?:one|any|either)\s+of\s+)?(?:(?:the|his|her|their)\s+)?"
    r"[\w-]+(?:\s+(?:ones?|admissions?|stays?|department|dept|ward|unit|service))?",
    re.IGNORECASE,
)
"""A place the question sets aside ("a medical admission, not one of the psych ones"): no place to search in (the
search is not narrowed rather than narrowed to the place set aside)."""


_GP_SURGERY: Final = re.compile(
    r"\b(?:at|from|to|for)\s+(?:the|our|my|their|his|her)\s+(?:gp\s+|doctor'?s\s+)?surgery\b"
    r"(?!\s+(?:department|dept|unit|ward|service|team|patients))",
    re.IGNORECASE,
)
"""A general practice ("I look after her repeat prescriptions at the surgery", "a form for the surgery"), or the
operation ("admitted for the surgery"): no hospital department."""


def named_scope(question: str, names: ScopeNames) -> Scope:
    """The hospitals and departments of ``names`` that ``question`` names (see the module docstring), less the
    place the asker says they are calling from and those it sets aside.

    Example:
        >>> names = ScopeNames(depts=("admissions", "surgery"))
        >>> named_scope("Ringing from the admissions unit: what meds was she on?", names).empty
        True
    """
    question = _GP_SURGERY.sub(" ", _SET_ASIDE.sub(" ", _ASKER_PLACE.sub(" ", question)))
    orgs = tuple(code for code, label in names.orgs.items() if _names_org(question, code, label))
    depts = tuple(dept for dept in names.depts if _names_dept(question, dept))
    return Scope(orgs, depts)


def scope_words(scope: Scope, names: ScopeNames) -> tuple[str, ...]:
    """The words that may name ``scope``'s hospitals and departments in a question: filters, not things to find.

    Example:
        >>> scope_words(Scope(orgs=("A",), depts=("psychiatry",)), ScopeNames(orgs={"A": "Hospital A"}))
        ('Hospital A', 'hospital A', 'psychiatry', 'psychiatric', 'psych')
    """
    labels = [names.orgs.get(code, "") for code in scope.orgs] + [f"hospital {code}" for code in scope.orgs]
    variants = [variant for dept in scope.depts for variant in SPECIALTY_VARIANTS.get(dept.lower(), (dept,))]
    return tuple(word for word in (*labels, *variants) if word)


def _names_org(question: str, code: str, label: str) -> bool:
    forms = {label, f"hospital {code}", f"org {code}", f"organisation {code}", f"organization {code}"}
    return any(re.search(rf"(?<!\w){re.escape(form)}(?!\w)", question, re.IGNORECASE) for form in forms if form)


def _names_dept(question: str, dept: str) -> bool:
    variants = SPECIALTY_VARIANTS.get(dept.lower(), (dept,))
    alternatives = "|".join(re.escape(variant) for variant in sorted(variants, key=len, reverse=True))
    # a department is named as a place ("in orthopaedics", "orthopaedic patients", "the psychiatry department"),
    # not as a word inside a clinical phrase ("cardiac arrest" names no department)
    if dept.lower() in _RECORD_WORDS:  # "history of admissions" names stays, not the admissions department
        as_place = (
            rf"\b(?:in|at|within)\s+(?:the\s+)?(?:{alternatives})\b(?!\s+(?:over|so far|to date|history))"
            rf"|\b(?:{alternatives})\s+(?:department|dept|unit|ward|service|office)\b"
        )
        return re.search(as_place, question, re.IGNORECASE) is not None
    as_place = (
        rf"{_SCOPE_WORDS}(?:{alternatives})\b"
        rf"|\b(?:{alternatives})\s+(?:patients|admissions|department|dept|unit|ward|service|stays)\b"
    )
    return re.search(as_place, question, re.IGNORECASE) is not None
