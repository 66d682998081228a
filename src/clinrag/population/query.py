"""The typed population query: a cohort (criteria over coded data and over note text), a measure, a grouping.

A question such as "For patients who report heavy alcohol consumption, what are the most common diagnoses?"
becomes a query that a node can count exactly and that the answer can show in words. Every query is validated
before it runs; nothing but the aggregates it asks for ever leaves a node.

Example:
    >>> query = PopulationQuery(
    ...     cohort=(CodeCriterion(kind="procedure", prefixes=("021",), label="coronary artery bypass"),),
    ...     measure=Measure(kind="top", of="diagnosis", n=5),
    ... )
    >>> query.describe()
    'top 5 diagnoses among patients with procedure coronary artery bypass (021*)'
    >>> PopulationQuery.model_validate_json(query.model_dump_json()) == query
    True
    >>> texts = PopulationQuery(cohort=(TextCriterion(phrase="lives alone"),))
    >>> PopulationQuery.model_validate_json(texts.model_dump_json(exclude_defaults=True)) == texts
    True
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, model_validator

MAX_CRITERIA: Final = 8
MAX_VALUES: Final = 50


def _kind_required(schema: dict[str, Any]) -> None:
    """A criterion's ``kind`` tells the criteria apart, so a request must send it even where it has a default:
    the published schema says so, as the validator does."""
    required = schema.setdefault("required", [])
    if "kind" not in required:
        required.append("kind")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class _Criterion(_Frozen):
    model_config = ConfigDict(json_schema_extra=_kind_required)


class CodeCriterion(_Criterion):
    """Admissions coded with an ICD-10 diagnosis or procedure whose code starts with one of ``prefixes`` (the ICD
    hierarchy: ``I63`` is every cerebral infarction, ``021`` every coronary bypass)."""

    kind: Literal["diagnosis", "procedure"]
    prefixes: tuple[Annotated[str, Field(min_length=1, max_length=8, pattern=r"^[0-9A-Z]+$")], ...] = Field(
        min_length=1, max_length=MAX_VALUES
    )
    label: str = Field("", max_length=200, description="What the codes mean, in words, for the answer.")
    version: Literal[9, 10] = Field(10, description="ICD version of the prefixes (MIMIC-IV holds both).")

    def describe(self) -> str:
        """``diagnosis stroke (I63*)``."""
        codes = ", ".join(f"{prefix}*" for prefix in self.prefixes)
        return f"{self.kind} {self.label} ({codes})" if self.label else f"{self.kind} {codes}"


class MedicationCriterion(_Criterion):
    """Admissions with a prescription of one of ``drugs`` (generic names, matched case-insensitively)."""

    kind: Literal["medication"] = "medication"
    drugs: tuple[Annotated[str, Field(min_length=2, max_length=100)], ...] = Field(min_length=1, max_length=MAX_VALUES)

    def describe(self) -> str:
        """``medication warfarin or apixaban``."""
        return "medication " + " or ".join(self.drugs)


class ValueCriterion(_Criterion):
    """Admissions whose categorical field equals one of ``values`` (case-insensitive): the service or department,
    the admission type, the insurance, the patient's sex (``F``/``M``)."""

    kind: Literal["service", "dept", "admission_type", "insurance", "sex"]
    values: tuple[Annotated[str, Field(min_length=1, max_length=100)], ...] = Field(min_length=1, max_length=MAX_VALUES)

    def describe(self) -> str:
        """``insurance Medicare or Medicaid``."""
        return f"{self.kind.replace('_', ' ')} " + " or ".join(self.values)


def _one_end_required(schema: dict[str, Any]) -> None:
    _kind_required(schema)
    schema["anyOf"] = [{"required": [end], "properties": {end: {"type": "integer"}}} for end in ("low", "high")]


class RangeCriterion(_Criterion):
    """Admissions whose patient's age at admission (``age``) or admission year (``year``) is within
    [``low``, ``high``] (either end open; ends given the wrong way round are put in order)."""

    model_config = ConfigDict(json_schema_extra=_one_end_required)

    kind: Literal["age", "year"]
    low: int | None = Field(None, ge=0, le=3000)
    high: int | None = Field(None, ge=0, le=3000)

    @model_validator(mode="after")
    def _ordered(self) -> RangeCriterion:
        if self.low is None and self.high is None:
            raise ValueError("a range needs a low or a high end")
        return self

    @model_validator(mode="before")
    @classmethod
    def _in_order(cls, data: Any) -> Any:
        if isinstance(data, dict):
            low, high = data.get("low"), data.get("high")
            if isinstance(low, int) and isinstance(high, int) and low > high:
                return {**data, "low": high, "high": low}
        return data

    def describe(self) -> str:
        """``age 65–80``, ``year from 2020``."""
        if self.low is not None and self.high is not None:
            return f"{self.kind} {self.low}–{self.high}"
        return f"{self.kind} from {self.low}" if self.low is not None else f"{self.kind} up to {self.high}"


class TextCriterion(_Criterion):
    """Admissions whose notes support ``phrase`` ("reports heavy alcohol use", "presented after a mechanical
    fall"): every passage of the node above a threshold is checked sentence by sentence, negations excluded."""

    kind: Literal["text"] = "text"
    phrase: str = Field(min_length=3, max_length=300)
    sections: tuple[str, ...] = Field((), max_length=MAX_VALUES)

    def describe(self) -> str:
        """``notes say "reports heavy alcohol use"``."""
        return f'notes say "{self.phrase}"'


_TAGS: Final = {
    "diagnosis": "code",
    "procedure": "code",
    "medication": "medication",
    "text": "text",
    "age": "range",
    "year": "range",
    **dict.fromkeys(("service", "dept", "admission_type", "insurance", "sex"), "value"),
}


def _tag(value: object) -> str | None:
    """The union member of a criterion: by its ``kind``, or, where a sender left out a ``kind`` at its default
    (nodes reply with ``exclude_defaults``), by the field only that member has (``phrase``, ``drugs``)."""
    kind = value.get("kind") if isinstance(value, dict) else getattr(value, "kind", None)
    if kind is None and isinstance(value, dict):
        kind = "text" if "phrase" in value else "medication" if "drugs" in value else None
    return _TAGS.get(str(kind)) if kind is not None else None


Criterion = Annotated[
    Annotated[CodeCriterion, Tag("code")]
    | Annotated[MedicationCriterion, Tag("medication")]
    | Annotated[ValueCriterion, Tag("value")]
    | Annotated[RangeCriterion, Tag("range")]
    | Annotated[TextCriterion, Tag("text")],
    Discriminator(_tag),
]
TopOf = Literal[
    "diagnosis", "procedure", "medication", "complication", "chief_complaint", "insurance", "admission_type", "dept"
]
_PLURAL: Final = {
    "diagnosis": "diagnoses",
    "procedure": "procedures",
    "medication": "medications",
    "complication": "complications",
    "chief_complaint": "chief complaints",
    "insurance": "insurances",
    "admission_type": "admission types",
    "dept": "departments",
}


def _top_names_what_schema(schema: dict[str, Any]) -> None:
    schema["anyOf"] = [
        {"required": ["kind", "of"], "properties": {"kind": {"const": "top"}, "of": {"type": "string"}}},
        {"properties": {"kind": {"enum": ["count", "share"]}, "of": {"type": "null"}}},
    ]


class Measure(_Frozen):
    """What is counted: the number of patients or admissions in the cohort (``count``), their share of all the
    patients or admissions the asker may see (``share``), or the ``n`` most frequent values of ``of`` among them
    (``top``)."""

    model_config = ConfigDict(json_schema_extra=_top_names_what_schema)

    kind: Literal["count", "share", "top"] = "count"
    of: TopOf | None = None
    n: int = Field(5, ge=1, le=50)

    @model_validator(mode="after")
    def _top_names_what(self) -> Measure:
        if (self.kind == "top") != (self.of is not None):
            raise ValueError("'top' needs 'of' (what to rank), and only 'top' takes it")
        return self


class PopulationQuery(_Frozen):
    """A cohort (all criteria must hold: AND; within a criterion, any value: OR), what to count about it, the unit
    counted (patients or admissions) and the grouping (hospital, department, admission year)."""

    cohort: tuple[Criterion, ...] = Field((), max_length=MAX_CRITERIA)
    measure: Measure = Measure()
    unit: Literal["patient", "admission"] = "patient"
    group_by: tuple[Literal["org", "dept", "year"], ...] = Field(
        (), max_length=3, json_schema_extra={"uniqueItems": True}
    )

    @model_validator(mode="after")
    def _distinct_groups(self) -> PopulationQuery:
        if len(set(self.group_by)) != len(self.group_by):
            raise ValueError("a grouping is named twice")
        return self

    def describe(self) -> str:
        """The query in words, as the answer shows it."""
        units = "patients" if self.unit == "patient" else "admissions"
        if self.measure.kind == "top" and self.measure.of is not None:
            head = f"top {self.measure.n} {_PLURAL[self.measure.of]} among {units}"
        elif self.measure.kind == "share":
            head = f"share of {units}"
        else:
            head = f"number of {units}"
        text = head + (" with " + " and ".join(c.describe() for c in self.cohort) if self.cohort else "")
        if self.group_by:
            text += " by " + ", ".join(
                "hospital" if g == "org" else "department" if g == "dept" else g for g in self.group_by
            )
        return text
