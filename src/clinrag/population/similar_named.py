"""The one patient a similar-patients question is about, read from the question against a registry.

"Which patients are like Betty Henry?" or "What were patients similar to MRN 10000032 discharged with?" must name
exactly one patient in full (first and last name, or an identifier) that the registry holds; the registry is the
asker's: at a node, only the patients of departments they may search. Anything else is a clear usage error, never a
guess: a surname alone or a near name asks which patient is meant (listing only registry patients), an unknown name
says so, two patients ask for one.

Example:
    >>> from clinrag.retrieve.patients import PatientRegistry
    >>> registry = PatientRegistry([(10000001, "Betty Henry"), (10000002, "Ada Stone")])
    >>> named = named_patient("Which patients are like Betty Henry?", registry, detect_persons=False)
    >>> named.subject_id, named.text
    (10000001, 'Betty Henry')
"""

from __future__ import annotations

from dataclasses import dataclass

from clinrag.population.similar import SimilarityError
from clinrag.retrieve.patients import PatientRegistry

MAX_CHOICES = 8
"""Patients listed when a name is ambiguous."""


@dataclass(frozen=True)
class NamedPatient:
    """The patient a question names: their id, and the span as written (``question[start:end]``)."""

    subject_id: int
    text: str
    start: int
    end: int


def named_patient(question: str, registry: PatientRegistry, *, detect_persons: bool = True) -> NamedPatient:
    """The single patient ``question`` names in full, or a `SimilarityError` (exit status 2) saying what is missing.

    Example:
        >>> from clinrag.retrieve.patients import PatientRegistry
        >>> named_patient("patients like Henry?", PatientRegistry([(1, "Betty Henry")]), detect_persons=False)
        Traceback (most recent call last):
        ...
        clinrag.population.similar.SimilarityError: which patient do you mean by 'Henry'? Betty Henry (1)
    """
    resolution = registry.resolve(question, detect_persons=detect_persons)
    for mention in resolution.unsettled:
        listed = ", ".join(f"{registry.name(i)} ({i})" for i in mention.subject_ids[:MAX_CHOICES])
        more = f" and {len(mention.subject_ids) - MAX_CHOICES} more" if len(mention.subject_ids) > MAX_CHOICES else ""
        raise SimilarityError(f"which patient do you mean by {mention.text!r}? {listed}{more}")
    chosen = [mention for mention in resolution.mentions if mention.selects and len(mention.subject_ids) == 1]
    patients = {mention.subject_ids[0] for mention in chosen}
    if len(patients) > 1:
        raise SimilarityError("similar patients are found for one patient at a time; name only one")
    if not chosen:
        if resolution.unknown_persons:
            raise SimilarityError(
                f"no patient named {resolution.unknown_persons[0]!r} is in the records you may see at this hospital"
            )
        raise SimilarityError("name the patient (first and last name, or their identifier) to find similar patients")
    mention = chosen[0]
    return NamedPatient(mention.subject_ids[0], mention.text, mention.start, mention.end)
