"""Checking resources against the FHIR specification with ``fhir.resources``' R4B models.

``fhir.resources`` 8 models FHIR R5 by default and keeps R4B (4.3) and STU3 beside it; it has no R4 (4.0.1) package.
R4B is R4 with corrections in resources clinrag does not read (medication definitions, subscriptions, evidence),
so the resources read here have the same elements, cardinalities and types as in R4; R5 renamed or retyped several
of them (``Encounter.period`` -> ``actualPeriod``, ``MedicationRequest.medication[x]`` -> a CodeableReference) and
would reject valid R4. A failed check names the element and the kind of error, never the value.

Example:
    >>> spec_error({"resourceType": "Condition", "id": "c1"})
    'subject: missing'
    >>> spec_error({"resourceType": "Condition", "id": "c1", "subject": {"reference": "Patient/p1"}}) is None
    True
"""

from __future__ import annotations

import importlib
from functools import cache

from pydantic import BaseModel, ValidationError

from clinrag.ingest.fhir.values import Json

READ_TYPES = frozenset(
    {
        "Patient",
        "Encounter",
        "Condition",
        "Procedure",
        "MedicationRequest",
        "MedicationStatement",
        "MedicationAdministration",
        "Medication",
        "AllergyIntolerance",
        "Observation",
        "DiagnosticReport",
        "DocumentReference",
        "Composition",
        "Coverage",
        "Binary",
    }
)
"""The resource types clinrag reads; others are counted and skipped."""


@cache
def model_for(resource_type: str) -> type[BaseModel] | None:
    """The R4B model class of a resource type clinrag reads (imported on first use), else None."""
    if resource_type not in READ_TYPES:
        return None
    module = importlib.import_module(f"fhir.resources.R4B.{resource_type.lower()}")
    model = getattr(module, resource_type)
    assert isinstance(model, type)
    assert issubclass(model, BaseModel)
    return model


def spec_error(resource: Json) -> str | None:
    """Why ``resource`` breaks the specification (the first element at fault and the kind of error), else None."""
    model = model_for(str(resource.get("resourceType")))
    if model is None:
        return None
    try:
        model.model_validate(resource)
    except ValidationError as exc:
        errors = exc.errors(include_input=False, include_url=False)
        first = errors[0]
        where = ".".join(str(part) for part in first["loc"]) or "resource"
        more = f" (+{len(errors) - 1} more)" if len(errors) > 1 else ""
        return f"{where}: {first['type']}{more}"
    except (ValueError, TypeError) as exc:
        return f"resource: {type(exc).__name__}"
    return None
