"""The wire format of the OpenAI-compatible API: requests, responses, stream chunks and the ``clinrag`` extension
field that carries an answer's evidence and, for population questions, the planner's route and the population answer;
for questions about patients similar to a named one, the experience part (docs/openai_api.md). The web app renders
the same extension.

Example:
    >>> from clinrag.types import Abstention
    >>> field = extension(Answer(question="q", text="Not enough information.", generator="extractive",
    ...                          abstention=Abstention(reason="nothing relevant", searched=("A",))))
    >>> field.abstained, field.abstention.searched
    (True, ['A'])
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from clinrag.app.source_links import source_link, source_reference
from clinrag.federation.root import OrgResult
from clinrag.generate.calculation import Calculation
from clinrag.generate.experience import ExperiencePart
from clinrag.generate.population_answer import PopulationAnswer, RoutedAnswer, RouteInfo
from clinrag.generate.prompts import provenance
from clinrag.index.store import Mode
from clinrag.types import Answer, Citation, Guideline, Source, chunk_date

# --- requests ---------------------------------------------------------------------------------------------------


class ContentPart(BaseModel):
    """One part of a message's content; only ``text`` parts are read (images and files are ignored)."""

    model_config = ConfigDict(extra="allow")

    type: str
    text: str | None = None


class ChatMessage(BaseModel):
    """One message of the conversation (``system``, ``developer``, ``user``, ``assistant``, ``tool``)."""

    model_config = ConfigDict(extra="allow")

    role: str = Field(min_length=1, max_length=64)
    content: str | list[ContentPart] | None = None


class ClinragOptions(BaseModel):
    """clinrag's own request options, sent as ``"clinrag": {...}`` (``extra_body`` in the openai client)."""

    model_config = ConfigDict(extra="forbid")

    sources: int | None = Field(None, ge=1, le=50, description="Retrieved chunks given to the generator (k).")
    mode: Mode | None = Field(None, description="Retrieval mode: dense, bm25, hybrid or hybrid-mmr.")
    patients: list[int] | None = Field(
        None, min_length=1, max_length=100, description="Only these patients (subject_id)."
    )


class ChatCompletionRequest(BaseModel):
    """The body of ``POST /v1/chat/completions``. Fields clinrag does not use (``top_p``, ``tools``, ``user`` …)
    are accepted and ignored, so that ordinary clients work unchanged."""

    model_config = ConfigDict(extra="allow")

    model: str = Field(min_length=1, max_length=200, description="A model id from GET /v1/models.")
    messages: list[ChatMessage] = Field(min_length=1, max_length=1000)
    stream: bool = False
    max_tokens: int | None = Field(None, ge=1, description="Longest generated draft, in tokens (16 to 4096).")
    max_completion_tokens: int | None = Field(None, ge=1, description="Same as max_tokens (newer name).")
    temperature: float | None = Field(None, ge=0, le=2)
    n: int | None = Field(None, ge=1, le=1, description="Only one choice is ever returned.")
    clinrag: ClinragOptions | None = None


# --- responses and the extension field ---------------------------------------------------------------------------


class ErrorDetail(BaseModel):
    """OpenAI's error object."""

    message: str
    type: str
    param: str | None = None
    code: str | None = None


class ErrorBody(BaseModel):
    """Every error response: ``{"error": {...}}``."""

    error: ErrorDetail


class SourceInfo(BaseModel):
    """One numbered source ``[n]``: where it comes from, its score, whether the answer cites it, and its text; for
    literature its citation or guideline, a one-line reference and a link (fields a client may ignore)."""

    number: int = Field(description="The n of [n] in the answer text; 1 is the most relevant.")
    cited: bool = Field(description="A supported sentence of the answer cites it.")
    score: float = Field(description="Its retrieval score (fused rank score; higher is more relevant).")
    org: str
    dept: str
    leaf: str
    kind: str = Field(description="note, row, abstract, guideline or calculator.")
    subject_id: int | None
    patient_name: str | None
    hadm_id: int | None
    note_id: str | None
    section: str | None
    date: str | None = Field(description="ISO date: the note's chart time, else the admission's dates.")
    chunk_id: str = Field(description="Content address of the chunk (stable citation key).")
    provenance: str = Field(description="One line: patient · org/dept · note · section · date.")
    text: str = Field(description="The chunk's text. Data from a record, never instructions.")
    citation: Citation | None = Field(
        None,
        description="For an abstract: its citation (PMID, title, authors, year, journal, volume, issue, pages, DOI, "
        "publication types, MeSH, keywords).",
    )
    guideline: Guideline | None = Field(
        None, description="For a guideline: its publisher, title, URL, date and licence."
    )
    reference: str | None = Field(
        None,
        description="For literature, one line: 'First author et al., Journal Year · Title · PMID n' or 'Publisher · "
        "Title · Date'.",
    )
    link: str | None = Field(
        None,
        description="For literature: the citation's PubMed page or the guideline's URL (http or https only; null "
        "otherwise).",
    )


class SentenceInfo(BaseModel):
    """One sentence of the answer, the sources it cites and how well they support it."""

    text: str
    citations: list[int]
    support: float
    supported: bool


class AbstentionInfo(BaseModel):
    """Why clinrag declined to answer, and where it looked."""

    reason: str
    searched: list[str]
    denied: list[str]
    unreachable: list[str]


class OrganisationInfo(BaseModel):
    """How one organisation took part: answered, denied, unauthenticated, timeout, unreachable, failed, incompatible."""

    org: str
    name: str
    status: str
    detail: str
    seconds: float
    searched: list[str] = Field(description="Leaves of its tree that were searched.")
    denied: list[str] = Field(description="Routers or leaves its policies denied to the user.")


class ClinragExtension(BaseModel):
    """The ``clinrag`` field of a completion (and of a stream's final chunk): the evidence behind the answer."""

    generator: str = Field(description="extractive, or the generator's id.")
    fallback_from: str | None = Field(
        None, description="The model whose draft was declined or unsupported, when its quoted lines replaced it."
    )
    abstained: bool
    abstention: AbstentionInfo | None
    support: float = Field(description="Share of the answer's sentences their cited sources support (0–1).")
    cited: list[int]
    sources: list[SourceInfo]
    sentences: list[SentenceInfo]
    organisations: list[OrganisationInfo]
    quarantined_spans: int = Field(description="Instruction-like spans set aside from the question and sources.")
    withheld_sensitive: int = Field(
        0, description="Passages matching the question that policies withheld only for their sensitivity label."
    )
    withheld_note: str | None = Field(None, description="'N sensitive passages were withheld by policy.', or null.")
    filter_notes: list[str] = Field(
        default_factory=list,
        description="How a library read the question: words read as its own ('spelling: …'), each filter stated "
        "applied or dropped ('filter by author Smith: applied').",
    )
    timings: dict[str, float]
    route: RouteInfo | None = Field(
        None,
        description="Where the planner sent the question (records, population, both, experience or calculator) and "
        "why, in words.",
    )
    population: PopulationAnswer | None = Field(
        None,
        description="For population questions: the answer in words, each query with its table and each "
        "organisation's part (contributed, denied, unreachable); aggregates only.",
    )
    experience: ExperiencePart | None = Field(
        None,
        description="For questions about patients similar to a named one: the patient named, the similar patients "
        "best first (organisation, id, score, Jaccard per kind, the codes shared), each organisation's part in the "
        "ranking (ok, denied, unreachable, error), the similar patients whose passages the answer cites, and the "
        "lead sentence.",
    )
    calculations: list[Calculation] = Field(
        default_factory=list,
        description="For calculator questions: each calculation (calculator, value, unit, interpretation, inputs "
        "with their origin and source, missing inputs, conflicting record values, steps, the formula's source).",
    )


class AssistantMessage(BaseModel):
    """The answer as an assistant message."""

    role: Literal["assistant"] = "assistant"
    content: str


class Choice(BaseModel):
    """The one choice of a completion."""

    index: int = 0
    message: AssistantMessage
    finish_reason: Literal["stop"] = "stop"
    logprobs: None = None


class ChatCompletion(BaseModel):
    """A non-streamed reply: OpenAI's ``chat.completion`` plus the ``clinrag`` extension."""

    id: str
    object: Literal["chat.completion"] = "chat.completion"
    created: int
    model: str
    choices: list[Choice]
    clinrag: ClinragExtension


class Delta(BaseModel):
    """What a stream chunk adds to the message."""

    role: Literal["assistant"] | None = None
    content: str | None = None


class ChunkChoice(BaseModel):
    """The one choice of a stream chunk."""

    index: int = 0
    delta: Delta
    finish_reason: Literal["stop"] | None = None
    logprobs: None = None


class DraftPiece(BaseModel):
    """The ``clinrag`` field of a progress chunk: a piece of the unverified draft."""

    draft: str


class ChatCompletionChunk(BaseModel):
    """One streamed ``chat.completion.chunk``; progress chunks and the final chunk carry a ``clinrag`` field."""

    id: str
    object: Literal["chat.completion.chunk"] = "chat.completion.chunk"
    created: int
    model: str
    choices: list[ChunkChoice]
    clinrag: ClinragExtension | DraftPiece | None = None


class ModelCard(BaseModel):
    """One entry of ``GET /v1/models``."""

    id: str
    object: Literal["model"] = "model"
    created: int
    owned_by: str = "clinrag"


class ModelList(BaseModel):
    """``GET /v1/models``."""

    object: Literal["list"] = "list"
    data: list[ModelCard]


def source_info(source: Source, cited: bool) -> SourceInfo:
    """The extension's view of one numbered source.

    Example:
        >>> from clinrag.types import Chunk
        >>> chunk = Chunk.create(source_id="note:1-DS-1", text="Aspirin 81 mg daily.", org="A", dept="medicine",
        ...                      subject_id=1, note_id="1-DS-1", section="Discharge Medications")
        >>> info = source_info(Source(number=1, chunk=chunk, score=0.5), cited=True)
        >>> info.org, info.note_id, info.provenance, info.link
        ('A', '1-DS-1', 'patient 1 · A/medicine · note 1-DS-1 · Discharge Medications', None)
    """
    chunk = source.chunk
    when = chunk_date(chunk)
    return SourceInfo(
        number=source.number,
        cited=cited,
        score=round(source.score, 6),
        org=chunk.org,
        dept=chunk.dept,
        leaf=chunk.leaf,
        kind=chunk.source_kind.value,
        subject_id=chunk.subject_id,
        patient_name=chunk.patient_name,
        hadm_id=chunk.hadm_id,
        note_id=chunk.note_id,
        section=chunk.section,
        date=when.date().isoformat() if when is not None else None,
        chunk_id=chunk.chunk_id,
        provenance=provenance(chunk),
        text=chunk.text,
        citation=chunk.citation,
        guideline=chunk.guideline,
        reference=source_reference(chunk),
        link=source_link(chunk),
    )


def organisation_info(result: OrgResult) -> OrganisationInfo:
    """The extension's view of one organisation's part in the search."""
    reply = result.response
    return OrganisationInfo(
        org=result.org.org,
        name=result.org.label,
        status=result.status.value,
        detail=result.detail,
        seconds=round(result.seconds, 4),
        searched=list(reply.searched) if reply is not None else [],
        denied=[denial.path for denial in reply.denied] if reply is not None else [],
    )


def extension(answer: Answer, organisations: Sequence[OrgResult] = ()) -> ClinragExtension:
    """The ``clinrag`` extension field of ``answer``.

    Example:
        >>> from clinrag.types import Abstention
        >>> declined = Answer(question="q", text="Not enough information.", generator="extractive",
        ...                   abstention=Abstention(reason="nothing relevant", searched=("A",)))
        >>> field = extension(declined)
        >>> field.abstained, field.abstention.reason, field.abstention.searched
        (True, 'nothing relevant', ['A'])
    """
    cited = set(answer.cited)
    abstention = answer.abstention
    return ClinragExtension(
        generator=answer.generator,
        fallback_from=answer.fallback_from,
        abstained=answer.abstained,
        abstention=None
        if abstention is None
        else AbstentionInfo(
            reason=abstention.reason,
            searched=list(abstention.searched),
            denied=list(abstention.denied),
            unreachable=list(abstention.unreachable),
        ),
        support=answer.support,
        cited=list(answer.cited),
        sources=[source_info(source, source.number in cited) for source in answer.sources],
        sentences=[
            SentenceInfo(text=s.text, citations=list(s.citations), support=round(s.support, 4), supported=s.supported)
            for s in answer.sentences
        ],
        organisations=[organisation_info(result) for result in organisations],
        quarantined_spans=answer.quarantined_spans,
        withheld_sensitive=answer.withheld_sensitive,
        withheld_note=answer.withheld_note,
        filter_notes=list(answer.filter_notes),
        timings={name: round(seconds, 4) for name, seconds in answer.timings.items()},
        route=answer.route if isinstance(answer, RoutedAnswer) else None,
        population=answer.population if isinstance(answer, RoutedAnswer) else None,
        experience=answer.experience if isinstance(answer, RoutedAnswer) else None,
        calculations=list(answer.calculations) if isinstance(answer, RoutedAnswer) else [],
    )


def last_user_message(messages: Iterable[ChatMessage]) -> str:
    """The question: the text of the last ``user`` message (text parts joined by blank lines; other parts ignored).

    Earlier turns, system prompts and assistant messages are not read: the question is answered on its own, from
    the records, under the same rules whatever a client's system prompt says.

    Example:
        >>> last_user_message([ChatMessage(role="system", content="Be brief."),
        ...                    ChatMessage(role="user", content="Who had a stroke?"),
        ...                    ChatMessage(role="assistant", content="Patient 1 [1]."),
        ...                    ChatMessage(role="user", content=[ContentPart(type="text", text=" And a fall? ")])])
        'And a fall?'
    """
    for message in reversed(list(messages)):
        if message.role != "user":
            continue
        if isinstance(message.content, str):
            return message.content.strip()
        parts = [part.text.strip() for part in message.content or () if part.type == "text" and part.text]
        return "\n\n".join(part for part in parts if part)
    return ""
