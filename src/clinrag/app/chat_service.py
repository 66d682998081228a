"""Answering questions over the federation for verified users: the core that the web app and the OpenAI-compatible
API share.

A ``ChatService`` holds the federation's root, a token verifier that trusts the federation's identity providers
(each for its own organisation) and the generators the operator configured. A question becomes a ``Job`` for one
verified caller: the caller's ID token travels unchanged to every node, which verifies it again and answers only
with what its policies let that user see. Each question goes where the planner sends it (`generate.planner`), as
``clinrag ask --as`` does: population questions ("How many patients…", "most common diagnoses among…") are counted
at every node with the same token (`FederatedCounter`), record questions go to retrieval, some to both, and
questions about patients similar to a named one to their records (`FederatedFinder`, `answer_experience`); the
answer is a `RoutedAnswer` carrying the route, the population part and the experience part. ``events`` runs a job
and yields the draft as the model writes it (records only: a population answer arrives in one piece), then the
answer with every organisation's part.

Example:
    >>> service = service_from_settings(Settings(), Path("data/demo/federation/federation.toml"))  # doctest: +SKIP
    >>> caller = service.authenticate(id_token)  # doctest: +SKIP
    >>> job = service.prepare("Who was treated for a stroke?", "clinrag-extractive", caller)  # doctest: +SKIP
    >>> answer = asyncio.run(service.complete(job))  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotated_types import MaxLen
from starlette.concurrency import run_in_threadpool

from clinrag.access.identity import TokenVerifier, TrustedIssuer
from clinrag.errors import AuthenticationError, ConfigError
from clinrag.federation.population_root import FederatedCounter
from clinrag.federation.protocol import RetrieveRequest
from clinrag.federation.root import FederatedSearcher, FederationRoot, OrgEndpoint, OrgResult, load_federation
from clinrag.generate.answer import Answerer
from clinrag.generate.calculation import RECORD_PASSAGES
from clinrag.generate.experience import answer_experience
from clinrag.generate.literature_part import literature_answer
from clinrag.generate.llm import Generator, generator_from
from clinrag.generate.planner import Planner
from clinrag.generate.population_answer import RoutedAnswer, RouteInfo
from clinrag.generate.routed import answer_routed, routed
from clinrag.generate.similar_finders import FederatedFinder
from clinrag.index.embed import Embedder, embedder_from
from clinrag.index.store import Mode
from clinrag.settings import BUILT_IN_GENERATORS, AnswerSettings, PathSettings, Settings
from clinrag.types import Actor, Answer, SearchFilters

log = logging.getLogger("clinrag.chat")

MODEL_PREFIX = "clinrag-"
"""Every model id offered is ``clinrag-`` followed by the generator: extractive, local or openai."""
MAX_QUESTION_CHARS = next(
    (item.max_length for item in RetrieveRequest.model_fields["query"].metadata if isinstance(item, MaxLen)), 4000
)
"""The longest question the nodes accept (their ``RetrieveRequest.query`` limit)."""
RECORDS_ONLY = "restricted to chosen patients (or population counting is off here): answered by records retrieval"
"""The route's reason when a question is not planned (it names patients to search, or the service counts nothing)."""
_END = object()


class ServiceError(Exception):
    """A request the service cannot take, with the HTTP status to answer and a message that is safe to show."""

    def __init__(self, status: int, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code


@dataclass(frozen=True)
class Caller:
    """A verified user and the token that travels on to the nodes."""

    actor: Actor
    token: str


@dataclass(frozen=True)
class Job:
    """One question to answer: its ids, the question, the answerer set up for its caller and the counter of
    population questions with the caller's token (None: records only, as when the question names patients)."""

    id: str
    created: int
    model: str
    question: str
    filters: SearchFilters | None
    searcher: FederatedSearcher
    answerer: Answerer
    counter: FederatedCounter | None = None
    detect_persons: bool = True
    finder: FederatedFinder | None = None
    """Finds patients similar to a named one for questions about them (None: such questions go to records)."""

    def organisations(self) -> list[OrgResult]:
        """Every organisation's part in the search (empty when no search was made)."""
        return self.searcher.last.orgs if self.searcher.last is not None else []

    def answer(self, on_token: Callable[[str], None] | None = None) -> RoutedAnswer:
        """The answer along the planner's route (blocking: plans with the vocabulary the nodes give the caller,
        then counts, retrieves, or both); ``on_token`` receives a records draft as the model writes it."""

        def records(asked: str, within: SearchFilters | None) -> Answer:
            return self.answerer.answer(asked, within, on_token=on_token)

        if self.counter is None:
            answer = routed(records(self.question, self.filters), RouteInfo(route="records", reason=RECORDS_ONLY))
        else:
            plan = Planner(self.counter.vocabulary(), detect_persons=self.detect_persons).plan(self.question)
            finder = self.finder
            answer = answer_routed(
                plan,
                self.counter,
                lambda: records(self.question, self.filters),
                (lambda: answer_experience(self.question, finder, records)) if finder is not None else None,
                lambda text: self.searcher.retrieve(text, self.filters, k=RECORD_PASSAGES).hits,
                literature=literature_answer(self.answerer, self.question, self.filters, on_token),
            )
        log.info("answered job=%s route=%s", self.id, answer.route.route if answer.route else "records")
        return answer


@dataclass(frozen=True)
class Draft:
    """A piece of the unverified draft, as the model wrote it (for progress only; never shown as the answer)."""

    text: str


@dataclass(frozen=True)
class Finished:
    """The verified answer (or abstention, or population answer) and every organisation's part in the search."""

    answer: RoutedAnswer
    organisations: list[OrgResult]


class _ClientGoneError(Exception):
    """Raised inside the answerer's token callback to stop generating for a client that went away."""


class ChatService:
    """Answers questions over a federation for verified users.

    ``models`` maps each offered model id to its generator (None: the extractive answerer); the first is the
    default. ``settings`` are the answer settings a request may narrow (sources, max tokens, temperature). The
    verifier must trust the same identity providers as the nodes.

    Example:
        >>> orgs = load_federation(Path("federation.toml"))  # doctest: +SKIP
        >>> root = FederationRoot(orgs, RetrieveSettings(), "minilm")  # doctest: +SKIP
        >>> verifier = TokenVerifier(trusted_issuers(root.orgs), audience="clinrag")  # doctest: +SKIP
        >>> service = ChatService(root, verifier, {"clinrag-extractive": None}, AnswerSettings())  # doctest: +SKIP
    """

    def __init__(
        self,
        root: FederationRoot,
        verifier: TokenVerifier,
        models: Mapping[str, Generator | None],
        settings: AnswerSettings,
        embedder: Embedder | None = None,
        *,
        population: bool = True,
        detect_persons: bool = True,
    ) -> None:
        if not models:
            raise ConfigError("clinrag needs at least one model to answer with")
        self.root = root
        self.verifier = verifier
        self.models = dict(models)
        self.settings = settings
        self.embedder = embedder
        self.population = population
        self.detect_persons = detect_persons
        self.created = int(time.time())

    def authenticate(self, token: str | None) -> Caller:
        """The verified caller holding ``token`` (blocking: may fetch an issuer's keys).

        Raises:
            AuthenticationError: the token is missing, malformed, forged, expired or from an untrusted issuer.
        """
        if not token:
            raise AuthenticationError("missing token: sign in at your hospital first")
        return Caller(self.verifier.verify(token), token)

    def prepare(
        self,
        question: str,
        model: str,
        caller: Caller,
        *,
        sources: int | None = None,
        mode: Mode | None = None,
        patients: Sequence[int] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> Job:
        """The job answering ``question`` for ``caller`` with ``model``; options narrow the operator's settings.

        Raises:
            ServiceError: 404 for an unknown model, 400 for a missing or oversized question.
        """
        if model not in self.models:
            offered = ", ".join(self.models)
            raise ServiceError(404, f"model '{model}' does not exist; offered: {offered}", "model_not_found")
        question = question.strip()
        if not question:
            raise ServiceError(400, "no question: write what you want to know", "no_question")
        if len(question) > MAX_QUESTION_CHARS:
            raise ServiceError(400, f"the question is longer than {MAX_QUESTION_CHARS} characters", "question_too_long")
        updates: dict[str, Any] = {}
        if sources is not None:
            updates["sources"] = sources
        if max_tokens is not None:
            updates["max_tokens"] = min(max(max_tokens, 16), 4096)
        if temperature is not None:
            updates["temperature"] = temperature
        settings = AnswerSettings.model_validate(self.settings.model_dump() | updates)
        searcher = FederatedSearcher(self.root, caller.token, mode=mode)
        answerer = Answerer(searcher, settings, self.models[model], self.embedder)
        filters = SearchFilters(subject_ids=tuple(patients)) if patients else None
        counter = FederatedCounter(self.root.orgs, caller.token, self.root.federation) if self.population else None
        finder = FederatedFinder(self.root.orgs, caller.token, caller.actor.org, self.root.federation)
        actor = caller.actor
        log.info("question subject=%s org=%s model=%s", actor.subject, actor.org, model)
        return Job(
            f"chatcmpl-{uuid.uuid4().hex}",
            int(time.time()),
            model,
            question,
            filters,
            searcher,
            answerer,
            None if filters else counter,  # a question about named patients is theirs: records, as in `clinrag ask`
            self.detect_persons,
            finder,
        )

    async def complete(self, job: Job) -> RoutedAnswer:
        """The whole answer along the planner's route (blocking work runs in a worker thread)."""
        return await run_in_threadpool(job.answer)

    async def events(self, job: Job) -> AsyncIterator[Draft | Finished]:
        """Run ``job``: ``Draft`` pieces as the model writes them, then one ``Finished``.

        A failure of the answerer is raised from the iterator; a consumer that stops iterating (its client went
        away) stops the generator at its next token.
        """
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[object] = asyncio.Queue()
        stopped = threading.Event()

        def post(item: object) -> None:
            with contextlib.suppress(RuntimeError):  # the server's loop has closed: nobody is listening
                loop.call_soon_threadsafe(queue.put_nowait, item)

        def on_token(piece: str) -> None:
            if stopped.is_set():
                raise _ClientGoneError
            post(piece)

        def work() -> RoutedAnswer:
            try:
                return job.answer(on_token)
            finally:
                post(_END)

        task = asyncio.ensure_future(run_in_threadpool(work))
        try:
            while (item := await queue.get()) is not _END:
                yield Draft(str(item))
            answer = await task
            yield Finished(answer, job.organisations())
        finally:
            stopped.set()
            if not task.done():
                task.add_done_callback(_forget)


def _forget(task: asyncio.Future[Any]) -> None:
    """Retrieve the outcome of a worker whose client went away, so that asyncio does not warn about it."""
    if not task.cancelled():
        task.exception()


def trusted_issuers(orgs: Sequence[OrgEndpoint]) -> list[TrustedIssuer]:
    """The identity providers of a federation's organisations, each trusted for its own organisation only.

    Example:
        >>> trusted_issuers([OrgEndpoint(org="A", url="http://127.0.0.1:8101", issuer="http://127.0.0.1:9401")])
        [TrustedIssuer(issuer='http://127.0.0.1:9401', org='A', jwks_uri=None)]
    """
    return [TrustedIssuer(org.issuer, org.org) for org in orgs if org.issuer]


def configured_models(answer: AnswerSettings, paths: PathSettings) -> dict[str, Generator | None]:
    """The models to offer: ``clinrag-extractive`` always; ``clinrag-local`` when the local generator is chosen or a
    GGUF file is set; ``clinrag-openai`` when an OpenAI-compatible endpoint is set; ``clinrag-NAME`` when a plugin's
    generator NAME is chosen. The settings' own generator
    comes first (the default of most chat UIs and of the web app).

    Example:
        >>> list(configured_models(AnswerSettings(), PathSettings()))
        ['clinrag-extractive']
        >>> list(configured_models(AnswerSettings(generator="openai", openai_base_url="http://h/v1"), PathSettings()))
        ['clinrag-openai', 'clinrag-extractive']
    """
    chosen: list[str] = ["extractive"]
    if answer.generator not in BUILT_IN_GENERATORS:  # an installed plugin's generator, offered by its own name
        chosen.append(answer.generator)
    if answer.generator == "local" or answer.model_path is not None:
        chosen.append("local")
    if answer.generator == "openai" or answer.openai_base_url:
        chosen.append("openai")
    chosen.sort(key=lambda kind: kind != answer.generator)
    return {
        f"{MODEL_PREFIX}{kind}": generator_from(answer.model_copy(update={"generator": kind}), paths) for kind in chosen
    }


def service_from_settings(settings: Settings, federation_file: Path | None = None) -> ChatService:
    """The service for a federation file (default: ``federation.file``) and the settings' generators.

    Raises:
        ConfigError: the file is missing or malformed, or lists no identity provider.
    """
    path = federation_file or settings.federation.file
    orgs = load_federation(path)
    issuers = trusted_issuers(orgs)
    if not issuers:
        raise ConfigError(f"{path}: no organisation lists an identity provider (issuer); no token could be verified")
    embedder = embedder_from(settings.index, settings.paths.cache_dir)
    root = FederationRoot(orgs, settings.retrieve, embedder.id, settings.federation)
    verifier = TokenVerifier(issuers, settings.federation.audience)
    models = configured_models(settings.answer, settings.paths)
    return ChatService(root, verifier, models, settings.answer, embedder)
