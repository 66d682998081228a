"""What the web app's templates show, computed from an answer's ``clinrag`` extension: the answer with its
citations as links, the sources split into cited and uncited with the supporting sentence marked inside each
chunk, every organisation's status in words, why an abstention abstained, and for population questions the route,
the tables and their charts (`population_view`), and for answers from experience the similar patients behind them
(`experience_view`).

All text from records is escaped here or by the templates (autoescape): retrieved text is data, never markup.

Example:
    >>> str(answer_markup("Aspirin was given. [1]", "t1", {1}))
    '<p>Aspirin was given. <a class="cite" href="#src-t1-1" data-source="1">[1]</a></p>'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from markupsafe import Markup, escape

from clinrag.app.openai_models import ClinragExtension, OrganisationInfo, SentenceInfo, SourceInfo
from clinrag.app.source_links import safe_link
from clinrag.app.web.calculation_view import CalculationView, calculation_views
from clinrag.app.web.experience_view import ExperienceView, experience_view
from clinrag.app.web.population_view import PopulationView, RouteView, population_view, query_keys, route_view
from clinrag.generate.citations import lexical_support, strip_citations
from clinrag.generate.experience import ExperiencePart

_MARKER = re.compile(r"\[(Q?\d+)\]")
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|$)", re.MULTILINE)
HIGHLIGHT_MIN_SUPPORT = 0.34
"""A chunk sentence is marked as support when it holds at least this share of the answer sentence's words."""
STATUS_WORDS = {
    "answered": "answered",
    "denied": "denied by policy",
    "unauthenticated": "refused the sign-in",
    "timeout": "timed out",
    "unreachable": "unreachable",
    "failed": "failed",
    "incompatible": "incompatible index",
}


def answer_markup(
    text: str, turn_id: str, numbers: Iterable[int], queries: Iterable[str] = (), notes: Iterable[int] = ()
) -> Markup:
    """The answer text as paragraphs, each ``[n]`` a link to source n of this turn (when it exists), each ``[Q1]``
    to the table of that population query, each other ``[n]`` to that example passage of a text criterion.

    Example:
        >>> str(answer_markup("<b>x</b> [9]", "t", {1}))
        '<p>&lt;b&gt;x&lt;/b&gt; [9]</p>'
        >>> str(answer_markup("12 patients [Q1].", "t", (), {"Q1"}))
        '<p>12 patients <a class="cite query" href="#pop-t-Q1">[Q1]</a>.</p>'
    """
    known, keys, examples = set(numbers), set(queries), set(notes)

    def link(match: re.Match[str]) -> str:
        marker = match.group(1)
        if marker.startswith("Q"):
            if marker not in keys:
                return match.group(0)
            return f'<a class="cite query" href="#pop-{turn_id}-{marker}">[{marker}]</a>'
        number = int(marker)
        if number in known:
            return f'<a class="cite" href="#src-{turn_id}-{number}" data-source="{number}">[{number}]</a>'
        if number in examples:
            return f'<a class="cite example" href="#ev-{turn_id}-{number}">[{number}]</a>'
        return match.group(0)

    paragraphs = [line for line in text.splitlines() if line.strip()]
    return Markup("".join(f"<p>{_MARKER.sub(link, str(escape(line)))}</p>" for line in paragraphs))


def highlighted(chunk_text: str, claims: Sequence[str]) -> Markup:
    """The chunk's text with the sentences that best support ``claims`` (answer sentences citing it) marked.

    Example:
        >>> str(highlighted("Seen in clinic. Started aspirin 81 mg daily.", ["She takes aspirin 81 mg. [1]"]))
        'Seen in clinic. <mark>Started aspirin 81 mg daily.</mark>'
    """
    spans = [(match.start(), match.end()) for match in _SENTENCE.finditer(chunk_text) if match.group(0).strip()]
    marked: set[int] = set()
    for claim in claims:
        plain = strip_citations(claim)
        scored = [(lexical_support(plain, chunk_text[start:end]), index) for index, (start, end) in enumerate(spans)]
        if scored:
            best, index = max(scored)
            if best >= HIGHLIGHT_MIN_SUPPORT:
                marked.add(index)
    pieces: list[str] = []
    cursor = 0
    for index, (start, end) in enumerate(spans):
        if index not in marked:
            continue
        text = chunk_text[start:end]
        lead = len(text) - len(text.lstrip())
        pieces.append(str(escape(chunk_text[cursor : start + lead])))
        pieces.append(f"<mark>{escape(text.strip())}</mark>")
        cursor = start + lead + len(text.strip())
    pieces.append(str(escape(chunk_text[cursor:])))
    return Markup("".join(pieces))


@dataclass(frozen=True)
class SourceView:
    """One source as the evidence panel shows it."""

    info: SourceInfo
    body: Markup
    can_open_note: bool

    @property
    def patient(self) -> str:
        """``Name (subject_id)``, the subject id alone, or an empty string."""
        name, subject = self.info.patient_name, self.info.subject_id
        if name and subject is not None:
            return f"{name} ({subject})"
        return str(subject) if subject is not None else ""

    @property
    def link(self) -> str | None:
        """The literature source's link (PubMed page, guideline URL), checked again here — the extension may come
        from a stored turn or another service — so that only an ``http``/``https`` URL is ever an ``href``."""
        return safe_link(self.info.link)


@dataclass(frozen=True)
class OrgView:
    """One organisation's part in the search, in words."""

    name: str
    status: str
    words: str
    detail: str
    denied: list[str]

    @property
    def ok(self) -> bool:
        """True when the organisation answered."""
        return self.status == "answered"


@dataclass(frozen=True)
class TurnView:
    """Everything the template of one answered turn needs."""

    answer: Markup
    abstained: bool
    reason: str
    cited: list[SourceView]
    uncited: list[SourceView]
    organisations: list[OrgView]
    generator: str
    support: float
    withheld_note: str | None = None
    """Says how many sensitive passages the asker's policies withheld, when any were."""
    filter_notes: tuple[str, ...] = ()
    """How a library read the question: spelling read as its own words, filters applied or dropped."""
    route: RouteView | None = None
    """Where the planner sent the question, and why (None for answers stored before routing)."""
    population: PopulationView | None = None
    """The population part: tables, charts, each hospital's part (None for records-only answers)."""
    experience: ExperienceView | None = None
    """The similar patients behind an answer from experience (None for other answers)."""
    calculations: tuple[CalculationView, ...] = ()
    """Each calculation of a calculator answer: result, inputs with their sources, the form for missing inputs."""

    @property
    def shows_support(self) -> bool:
        """Whether the answer's support is worth saying: not for a count, nor for a list of similar patients that
        cites no passage."""
        if self.route is not None and self.route.route in ("population", "calculator"):
            return False
        return not (self.experience is not None and not self.cited and not self.uncited)


def source_views(sources: Sequence[SourceInfo], sentences: Sequence[SentenceInfo]) -> list[SourceView]:
    """Every source with its supporting sentences marked (cited ones first, in number order)."""
    views = []
    for source in sources:
        claims = [sentence.text for sentence in sentences if source.number in sentence.citations]
        openable = source.kind == "note" and bool(source.note_id)
        views.append(SourceView(source, highlighted(source.text, claims), openable))
    return views


def org_views(organisations: Sequence[OrganisationInfo]) -> list[OrgView]:
    """Each organisation's status in words; denials name the place (``Hospital A / psychiatry``)."""
    views = []
    for org in organisations:
        places = [f"{org.name} / {path.split('/')[-1]}" for path in org.denied]
        views.append(OrgView(org.name, org.status, STATUS_WORDS.get(org.status, org.status), org.detail, places))
    return views


def turn_view(turn_id: str, text: str, evidence: ClinragExtension) -> TurnView:
    """The view of a finished turn from its answer text and ``clinrag`` extension."""
    sources = source_views(evidence.sources, evidence.sentences)
    numbers = {source.number for source in evidence.sources}
    reason = evidence.abstention.reason if evidence.abstention is not None else ""
    population = evidence.population
    examples = {note.number for note in population.evidence} if population is not None else set()
    if evidence.calculations:  # the panel lists inputs, sources and steps: the answer shows the result line
        text = text.split("\n", 1)[0]
    return TurnView(
        answer=answer_markup(text, turn_id, numbers, query_keys(population), examples),
        abstained=evidence.abstained,
        reason=reason,
        cited=[view for view in sources if view.info.cited],
        uncited=[view for view in sources if not view.info.cited],
        organisations=org_views(evidence.organisations),
        generator=evidence.generator
        + (f" (lines quoted: {evidence.fallback_from}'s draft was not supported)" if evidence.fallback_from else ""),
        support=evidence.support,
        withheld_note=evidence.withheld_note,
        filter_notes=tuple(evidence.filter_notes),
        route=route_view(evidence.route),
        population=population_view(turn_id, population) if population is not None else None,
        experience=None if evidence.experience is None else _experience(text, evidence.experience, evidence),
        calculations=calculation_views(evidence.calculations),
    )


def _experience(text: str, part: ExperiencePart, evidence: ClinragExtension) -> ExperienceView:
    """The similar-patients panel; its lead sentence only when the answer shown does not already open with it."""
    shown = experience_view(part, evidence.sources)
    if not evidence.abstained and shown.lead and text.startswith(shown.lead):
        return replace(shown, lead="")
    return shown
