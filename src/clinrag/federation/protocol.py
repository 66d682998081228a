"""The node API's messages (version 1): what a client sends to ``POST /v1/retrieve`` and what a node answers.

Every message is a strict pydantic model: unknown fields are refused with a 422 naming them, sizes are bounded
(the question, the query vector, and every list: at most `MAX_FILTER_VALUES` values a filter, each text at most
`MAX_FILTER_TEXT` characters). A refusal names the field and the rule it broke, never the value sent
(`field_problems`).

Example:
    >>> RetrieveRequest(query="Who had a stroke?", k=5).mode
    'hybrid'
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints
from pydantic_core import PydanticCustomError

from clinrag.population.node import NodeTerms
from clinrag.population.query import PopulationQuery
from clinrag.population.results import OrgAggregate
from clinrag.types import Hit, PatientChoice, SearchFilters

API_VERSION = "v1"
MAX_FILTER_VALUES = 1000
"""Most values one filter of a request may list (subject ids, departments, sections …)."""
MAX_FILTER_TEXT = 200
"""Longest text value of a filter, in characters."""
MAX_PROBLEMS = 10
"""Most field problems a refusal lists."""
MAX_NOTES = 20
"""Most notes a reply carries on how a library read the question (spelling, filters)."""
MAX_NOTE_TEXT = 300
"""Longest note, in characters."""
_NOTE = re.compile(r"(?:filter by [^\n]+|spelling: '[^'\n]+' read as '[^'\n]+'|spelling: question read as \"[^\n]+\")")
"""The notes a library writes: a filter applied or dropped, a word read as the library's own, the question as read
(the question's words and the library's, never a record's text)."""


def _bounded(filters: SearchFilters) -> SearchFilters:
    """``filters`` when every list in it is within `MAX_FILTER_VALUES` values of `MAX_FILTER_TEXT` characters."""
    for name in type(filters).model_fields:
        values = getattr(filters, name)
        if not isinstance(values, tuple):
            continue
        if len(values) > MAX_FILTER_VALUES:
            raise PydanticCustomError(
                "too_long",
                "filters.{field} should have at most {max_length} values",
                {"field": name, "max_length": MAX_FILTER_VALUES},
            )
        if any(isinstance(value, str) and len(value) > MAX_FILTER_TEXT for value in values):
            raise PydanticCustomError(
                "string_too_long",
                "filters.{field}: each value should have at most {max_length} characters",
                {"field": name, "max_length": MAX_FILTER_TEXT},
            )
    return filters


def reply_notes(notes: Iterable[str]) -> list[str]:
    """The notes a reply may carry: only the forms a library writes ("filter by author Smith: applied", "spelling:
    'apixban' read as 'apixaban'" — question and vocabulary words, never a record's text), each once, at most
    `MAX_NOTES` of at most `MAX_NOTE_TEXT` characters (a longer one is cut, marked with "…").

    Example:
        >>> reply_notes(["filter by author Smith: applied", "filter by author Smith: applied", "Ada Stone has AF"])
        ['filter by author Smith: applied']
    """
    kept = (note if len(note) <= MAX_NOTE_TEXT else note[: MAX_NOTE_TEXT - 1] + "…" for note in notes)
    return [note for note in dict.fromkeys(kept) if _NOTE.fullmatch(note)][:MAX_NOTES]


class Message(BaseModel):
    """Base of the API's messages: unknown fields are errors."""

    model_config = ConfigDict(extra="forbid")


class RetrieveRequest(Message):
    """A search of a node's tree for the bearer token's user."""

    query: str = Field(min_length=1, max_length=4000, description="The question, in plain words.")
    k: int = Field(10, ge=1, le=200, description="Hits to return.")
    fetch_k: int = Field(50, ge=1, le=1000, description="Candidates per retriever and leaf before fusion.")
    mode: Literal["dense", "bm25", "hybrid", "hybrid-mmr"] = Field("hybrid", description="Retrieval mode.")
    filters: Annotated[SearchFilters, AfterValidator(_bounded)] = Field(
        default_factory=SearchFilters,
        description=f"Restrictions every hit must meet (at most {MAX_FILTER_VALUES} values a filter).",
    )
    candidates: bool = Field(
        False,
        description="Return every candidate with its score in each list, for a global merge, instead of the top k.",
    )
    prune: bool = Field(
        False,
        description=(
            "With `candidates`: send the chunk of only those candidates that can still reach the top k once merged "
            "with any other lists; the others come as scores alone (`ranked_only`), which keeps every rank exact."
        ),
    )
    query_vector: str | None = Field(
        None,
        max_length=20_000,
        description="The query's embedding (base64 float32) by the same embedder, so nodes need not embed it again.",
    )
    query_vector_text: str | None = Field(
        None,
        min_length=1,
        max_length=4000,
        description=(
            "The text `query_vector` embeds, when it is not `query` itself: for a question about a set of patients, "
            "its topic, which is what nodes embed for it."
        ),
    )


class Denial(Message):
    """A router or leaf the user may not search, and the policies that decided it."""

    path: str
    reasons: list[str] = Field(default_factory=list)


class NameMatch(Message):
    """Where the question names patients this node holds: ``question[start:end]``, whether in full or by identifier
    (``full``: it selects them) or only near their names (a surname alone, another given name, a swapped or
    misspelt name), and which of them the asker may retrieve here (``choices``). A name whose patients the asker
    may not retrieve is never reported."""

    start: int = Field(ge=0)
    end: int = Field(ge=0)
    full: bool
    choices: list[PatientChoice] = Field(min_length=1)


class PathError(Message):
    """A part of the tree that failed; the message carries ids, never record text."""

    path: str
    message: str


class RetrieveResponse(Message):
    """A node's answer: its own top-k, optionally every candidate, and what was searched, denied or failed."""

    node: str = Field(description="The organisation that answered.")
    embedder: str = Field(description="Embedder id of the node's indexes; scores from other embedders never mix.")
    hits: list[Hit] = Field(
        default_factory=list, description="The node's top-k, best first (when `candidates` was not asked for)."
    )
    candidates: list[Hit] = Field(
        default_factory=list, description="Every candidate, its score per list in `scores` (when asked for)."
    )
    ranked_only: dict[str, dict[str, float]] = Field(
        default_factory=dict,
        description="`prune` only: the candidates that cannot reach the top k, by chunk id: their scores, no chunk.",
    )
    vectors: dict[str, str] = Field(
        default_factory=dict, description="hybrid-mmr only: base64 float32 vectors of the candidates, by chunk id."
    )
    query_vector: str | None = Field(None, description="hybrid-mmr only: the query vector the node used (base64).")
    searched: list[str] = Field(default_factory=list, description="Routers and leaves searched.")
    denied: list[Denial] = Field(default_factory=list, description="Routers and leaves the policies refused.")
    errors: list[PathError] = Field(default_factory=list, description="Leaves that failed.")
    no_such_patient: bool = Field(False, description="The question names a patient no searched leaf knows.")
    named_patient: bool = Field(
        False, description="A leaf resolved a patient the question names; the hits are about that patient only."
    )
    names_person: bool = Field(
        False,
        description=(
            "Some leaf read a person's name in the question (known, near or unknown); candidates come only from "
            "leaves that resolved it in full, so none when no leaf did."
        ),
    )
    names: list[NameMatch] = Field(
        default_factory=list,
        description="Names of the question matched in full or near at this node, with the patients the asker may see.",
    )
    kind_by_meaning: str | None = Field(
        None,
        description="The kind of fact a leaf read from the question's embedding when no phrasing rule read one"
        " (`allergy`, `discharge_medications` …); the root's answer step uses it.",
    )
    kind_similarity: float | None = Field(None, description="How alike the question was to that kind's examples.")
    leaves_searched: int = Field(0, description="Leaves the policies let the user search (0 with denials: denied).")
    refused_documents: int = Field(0, description="Candidates dropped by the document policy.")
    withheld_sensitive: int = Field(
        0,
        description=(
            "Distinct candidates the document policy refused only because of their sensitivity label (psychiatric, "
            "substance-use, HIV, reproductive or genetic information): the asker is told they were withheld."
        ),
    )
    notes: list[Annotated[str, StringConstraints(max_length=MAX_NOTE_TEXT)]] = Field(
        default_factory=list,
        max_length=MAX_NOTES,
        description=(
            "How a library read the question: words read as its own ('spelling: …'), each filter stated applied or "
            "dropped ('filter by author Smith: applied'); question and vocabulary words only (`reply_notes`)."
        ),
    )
    timings: dict[str, float] = Field(default_factory=dict, description="Seconds per stage.")


class PopulationRequest(Message):
    """A population query for the bearer token's user (`POST /v1/population`): counted over the departments and
    documents the node's policies let them retrieve; only the aggregate comes back."""

    query: PopulationQuery = Field(description="The typed, validated query (criteria, measure, unit, grouping).")


class PopulationResponse(Message):
    """A node's aggregate for a population query, the departments counted and those denied (never counted), and
    what failed. ``aggregate`` is None when every department was denied or the count failed."""

    node: str
    aggregate: OrgAggregate | None = None
    counted: list[str] = Field(default_factory=list, description="Leaves (departments) whose records counted.")
    denied: list[Denial] = Field(default_factory=list, description="Routers and leaves the policies refused.")
    errors: list[PathError] = Field(default_factory=list, description="What failed, in ids and words; no data.")
    timings: dict[str, float] = Field(default_factory=dict, description="Seconds per stage.")


class VocabularyRequest(Message):
    """Ask a node what a population question may name there, for the bearer token's user (`POST /v1/vocabulary`)."""


class VocabularyResponse(Message):
    """The node's terms (ICD codes recorded, drugs, services, admission types, insurances) in the departments the
    user may see; None when every department was denied."""

    node: str
    terms: NodeTerms | None = None
    denied: list[Denial] = Field(default_factory=list)


MAX_SIMILAR_ITEMS = 5000
"""Most codes (or drugs) one kind of a similar-patients query may list."""
MAX_SIMILAR_K = 200
"""Most similar patients one node returns."""
SimilarItem = Annotated[str, StringConstraints(min_length=1, max_length=MAX_FILTER_TEXT)]
SimilarItems = Annotated[list[SimilarItem], Field(max_length=MAX_SIMILAR_ITEMS)]
Score = Annotated[float, Field(ge=0, le=1000, allow_inf_nan=False)]


class KindSets(Message):
    """A patient's code sets, as item keys: diagnoses and procedures ``VERSION:CODE`` (``10:I10``), medications the
    normalised drug name."""

    dx: SimilarItems = Field(default_factory=list, description="Diagnoses, VERSION:CODE.")
    med: SimilarItems = Field(default_factory=list, description="Normalised drug names.")
    proc: SimilarItems = Field(default_factory=list, description="Procedures, VERSION:CODE.")


class SimilarWeights(Message):
    """The λ of each kind (non-negative; a sum of 0 is answered with an error, nothing ranked)."""

    dx: Score = 1 / 3
    med: Score = 1 / 3
    proc: Score = 1 / 3


class SimilarRequest(Message):
    """Similar patients for the bearer token's user (`POST /v1/similar`). ``sets_of``: the query patient is this
    node's patient (the asker's own hospital): their visible code sets are used, returned in ``query_sets``, and
    they are never in the result. ``named_in``: as ``sets_of``, for the one patient a question names (resolved here).
    ``sets``: the query patient's code sets from another hospital (ids are not shared between hospitals).
    ``sets_of`` wins over ``named_in``, both over ``sets``; none is answered with an error."""

    sets_of: int | None = Field(None, ge=0, le=2**62, description="A subject_id of this node.")
    named_in: str | None = Field(
        None,
        min_length=1,
        max_length=4000,
        description="A question naming one patient of this node in full (name or identifier), resolved against the "
        "patients the user may retrieve here; used when `sets_of` is not given.",
    )
    sets: KindSets | None = Field(None, description="The query patient's code sets.")
    weights: SimilarWeights = Field(default_factory=SimilarWeights)
    k: int = Field(15, ge=1, le=MAX_SIMILAR_K, description="Similar patients to return.")
    per: Literal["patient", "admission"] = Field("patient", description="Patients, or admissions (the latest).")
    min_score: Score = Field(0.0, description="Leave out scores below this.")
    max_ratio: Score = Field(10.0, description="A kind counts 0 when set sizes differ more than this (0: off).")


class SharedCode(Message):
    """An item two patients share: code (or drug name), title, ICD version (None for a drug)."""

    code: str
    title: str = ""
    version: int | None = None


class SimilarMatch(Message):
    """One similar patient of the answering node (per admission: one admission)."""

    subject_id: int
    hadm_id: int | None = None
    score: float
    jaccard: dict[str, float] = Field(default_factory=dict, description="Jaccard index per kind (dx, med, proc).")
    shared: dict[str, list[SharedCode]] = Field(default_factory=dict, description="Shared items per kind.")


class SimilarResponse(Message):
    """A node's similar patients, only among those the user may retrieve; the departments ranked and denied."""

    node: str
    matches: list[SimilarMatch] = Field(default_factory=list, description="Best first, ties by id.")
    query_sets: KindSets | None = Field(None, description="With `sets_of`: the query patient's visible sets.")
    query_subject: int | None = Field(None, description="With `named_in`: the subject_id of the patient named.")
    query_mention: str | None = Field(None, description="With `named_in`: how the question names them, as written.")
    searched: list[str] = Field(default_factory=list, description="Leaves (departments) whose records counted.")
    denied: list[Denial] = Field(default_factory=list, description="Routers and leaves the policies refused.")
    errors: list[PathError] = Field(default_factory=list, description="What failed, in ids and words; no data.")
    timings: dict[str, float] = Field(default_factory=dict, description="Seconds per stage.")


class LeafInfo(Message):
    """One leaf of the tree: its path and size (no patient data)."""

    path: str
    chunks: int


class Manifest(Message):
    """What a node serves: organisation, embedder, leaves and trusted issuers."""

    node: str
    name: str
    api: str = API_VERSION
    embedder: str
    dimension: int
    leaves: list[LeafInfo]
    issuers: list[str]
    audience: str


class Health(Message):
    """Liveness of a node."""

    status: Literal["ok"] = "ok"
    node: str


class Problem(Message):
    """Why a request was refused (401, 413, 429): a fixed message, never anything the request sent."""

    detail: str


class FieldProblem(Message):
    """One field of a refused request: where it is, the rule it broke and that rule in words — never its value."""

    loc: list[str | int] = Field(description="Where: ['body', 'query'], ['body', 'filters'] …")
    type: str = Field(description="The rule broken, as pydantic names it: string_too_long, extra_forbidden, …")
    msg: str = Field(description="The rule in words, e.g. 'String should have at most 4000 characters'.")


class InvalidRequest(Message):
    """A 422: the fields at fault."""

    detail: list[FieldProblem]


_ECHOING = {"value_error", "assertion_error", "union_tag_invalid", "union_tag_not_found"}
"""Pydantic error types whose message may quote the value sent (a validator's own text, a union's tag)."""
_LOCATION_PART = 64


def field_problems(errors: Iterable[Mapping[str, Any]], prefix: tuple[str, ...] = ()) -> list[FieldProblem]:
    """Pydantic's errors as `FieldProblem`s: location and rule only. The value sent (``input``) and the rule's
    context objects (``ctx``) are dropped, messages that could quote the value are replaced by the rule's name, and
    any message that still contains the value sent is too; a location part a client chose (an unknown key) is cut
    to 64 characters.

    Example:
        >>> error = {"loc": ("query",), "type": "string_too_long", "msg": "String should have at most 4000 characters",
        ...          "input": "x" * 5000, "ctx": {"max_length": 4000}}
        >>> field_problems([error], ("body",))[0].model_dump()
        {'loc': ['body', 'query'], 'type': 'string_too_long', 'msg': 'String should have at most 4000 characters'}
    """
    problems = []
    for error in list(errors)[:MAX_PROBLEMS]:
        kind = str(error.get("type", "invalid"))
        message = str(error.get("msg", kind))
        sent = error.get("input")
        if kind in _ECHOING or (isinstance(sent, str) and len(sent) >= 3 and sent in message):
            message = f"invalid value ({kind})"
        location: list[str | int] = [*prefix]
        for part in error.get("loc", ()):
            location.append(part if isinstance(part, int) else str(part)[:_LOCATION_PART])
        problems.append(FieldProblem(loc=location, type=kind, msg=message))
    return problems


def retrieve_request_schema(ref_template: str = "#/components/schemas/{model}") -> dict[str, Any]:
    """The JSON schema of `RetrieveRequest` as published (OpenAPI), with the bounds `_bounded` enforces on the
    filters' lists written in (``maxItems``, ``maxLength``); its ``$defs`` refer to ``ref_template``."""
    schema = RetrieveRequest.model_json_schema(ref_template=ref_template)
    filters = copy.deepcopy(schema.get("$defs", {}).get("SearchFilters", {}))
    for prop in filters.get("properties", {}).values():
        for option in prop.get("anyOf", [prop]):
            if option.get("type") == "array":
                option["maxItems"] = MAX_FILTER_VALUES
                items = option.get("items", {})
                if items.get("type") == "string":
                    items["maxLength"] = MAX_FILTER_TEXT
    if filters:
        schema["$defs"]["SearchFilters"] = filters
    return schema
