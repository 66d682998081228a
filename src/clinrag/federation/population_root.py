"""The root's side of population questions: every organisation asked at once with the user's token, each waited
for at most ``federation.timeout``, the aggregates merged (`population.merge`).

An organisation ends as ``ok`` (its aggregate is in the sum), ``refused`` (it would have revealed a small cell),
``denied`` (the policies refused the user every department there), ``unreachable`` (down, or no answer in time) or
``error`` (HTTP error, a rejected sign-in, a malformed or oversized reply, a failed count): a flag in the answer,
never a failure of it. The parser's vocabulary is the union of what each node says the user may name there
(`POST /v1/vocabulary`), read once per counter.

Example:
    >>> counter = FederatedCounter(load_federation(Path("federation.toml")), token)  # doctest: +SKIP
    >>> outcome = counter.count(query)  # doctest: +SKIP
    >>> [(part.org, part.status) for part in outcome.parts]  # doctest: +SKIP
    [('A', 'ok'), ('B', 'ok'), ('C', 'denied')]
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import TypeVar

import aiohttp
from pydantic import BaseModel

from clinrag.federation.protocol import (
    PopulationRequest,
    PopulationResponse,
    VocabularyRequest,
    VocabularyResponse,
)
from clinrag.federation.root import OrgEndpoint, ReplyError, hospitals, post_to_node
from clinrag.population.node import NodeTerms
from clinrag.population.outcome import OrgPart, PopulationOutcome
from clinrag.population.query import PopulationQuery
from clinrag.population.results import Status
from clinrag.population.vocabulary import Vocabulary
from clinrag.settings import FederationSettings

log = logging.getLogger("clinrag.root")
_Reply = TypeVar("_Reply", bound=BaseModel)


class _ExchangeError(Exception):
    """An exchange that gave no usable reply: the status and the reason."""

    def __init__(self, status: Status, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class FederatedCounter:
    """Population queries over the federation ``orgs`` for one signed-in user (their ID token goes to every node);
    a library among them is never asked (it holds no patients)."""

    def __init__(self, orgs: Sequence[OrgEndpoint], token: str, federation: FederationSettings | None = None) -> None:
        self.orgs = hospitals(orgs)
        self.token = token
        self.federation = federation or FederationSettings()
        self._terms: list[NodeTerms] | None = None

    def count(self, query: PopulationQuery, orgs: Sequence[str] = ()) -> PopulationOutcome:
        """`acount` for synchronous callers (the CLI); not from inside a running event loop."""
        return asyncio.run(self.acount(query, orgs))

    def vocabulary(self) -> Vocabulary:
        """`avocabulary` for synchronous callers."""
        return asyncio.run(self.avocabulary())

    async def acount(self, query: PopulationQuery, orgs: Sequence[str] = ()) -> PopulationOutcome:
        """Ask every organisation (or those of ``orgs``, the ones the question names) at once; merge what arrives
        in time."""
        asked = [endpoint for endpoint in self.orgs if not orgs or endpoint.org in orgs]
        body = PopulationRequest(query=query).model_dump_json().encode()
        async with self._client() as client:
            parts = await asyncio.gather(*(self._count_at(client, endpoint, body) for endpoint in asked))
        return PopulationOutcome.of(query, parts)

    async def avocabulary(self) -> Vocabulary:
        """The union of the vocabularies the nodes give this user (read once; a node that does not answer adds
        nothing), organisations named by their labels."""
        if self._terms is None:
            body = VocabularyRequest().model_dump_json().encode()
            async with self._client() as client:
                replies = await asyncio.gather(*(self._terms_at(client, endpoint, body) for endpoint in self.orgs))
            self._terms = [terms for terms in replies if terms is not None]
        names = {endpoint.org: endpoint.label for endpoint in self.orgs}
        if not self._terms:
            return Vocabulary.build(organisations=names.items())
        first, *others = self._terms
        return first.vocabulary(others, names)

    def _client(self) -> aiohttp.ClientSession:
        return aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=None))

    async def _count_at(self, client: aiohttp.ClientSession, endpoint: OrgEndpoint, body: bytes) -> OrgPart:
        started = time.perf_counter()
        name = endpoint.label
        try:
            reply = await self._ask(client, endpoint, "population", body, PopulationResponse)
        except _ExchangeError as failed:
            seconds = time.perf_counter() - started
            return OrgPart(org=endpoint.org, name=name, status=failed.status, reason=failed.reason, seconds=seconds)
        return part_of(endpoint.org, name, reply, time.perf_counter() - started)

    async def _terms_at(self, client: aiohttp.ClientSession, endpoint: OrgEndpoint, body: bytes) -> NodeTerms | None:
        try:
            reply = await self._ask(client, endpoint, "vocabulary", body, VocabularyResponse)
        except _ExchangeError as failed:
            log.warning("vocabulary org=%s %s: %s", endpoint.org, failed.status, failed.reason)
            return None
        return reply.terms

    async def _ask(
        self, client: aiohttp.ClientSession, endpoint: OrgEndpoint, path: str, body: bytes, model: type[_Reply]
    ) -> _Reply:
        """One exchange, bounded by the timeout and the reply size; `_ExchangeError` with the status otherwise."""
        try:
            reply = await asyncio.wait_for(self._exchange(client, endpoint, path, body, model), self.federation.timeout)
        except TimeoutError:
            raise _ExchangeError("unreachable", f"no answer within {self.federation.timeout:g} s") from None
        except (aiohttp.ClientError, OSError) as exc:
            raise _ExchangeError("unreachable", type(exc).__name__) from None
        node = getattr(reply, "node", endpoint.org)
        if node != endpoint.org:
            raise _ExchangeError("error", f"answered as {node!r}, expected {endpoint.org!r}")
        return reply

    async def _exchange(
        self, client: aiohttp.ClientSession, endpoint: OrgEndpoint, path: str, body: bytes, model: type[_Reply]
    ) -> _Reply:
        try:
            received = await post_to_node(client, endpoint, path, body, self.token, self.federation.max_response_bytes)
        except ReplyError as exc:  # a sign-in refused is an error here too
            raise _ExchangeError("error", exc.reason) from None
        try:
            return model.model_validate_json(received)
        except ValueError:
            raise _ExchangeError("error", "malformed reply") from None


def part_of(org: str, name: str, reply: PopulationResponse, seconds: float) -> OrgPart:
    """One organisation's part from its node's reply: an error, denied (every department refused), or its aggregate
    with the departments counted and denied. An aggregate in another organisation's name is an error.

    Example:
        >>> part_of("A", "Hospital A", PopulationResponse(node="A"), 0.01).status
        'denied'
    """
    denied = tuple(denial.path for denial in reply.denied)
    aggregate = reply.aggregate
    if reply.errors:
        reason = "; ".join(error.message for error in reply.errors)
        return OrgPart(org=org, name=name, status="error", reason=reason, denied=denied, seconds=seconds)
    if aggregate is None:
        return OrgPart(org=org, name=name, status="denied", reason="denied by policy", denied=denied, seconds=seconds)
    if aggregate.org != org:
        return OrgPart(org=org, name=name, status="error", reason=f"answered as {aggregate.org!r}", seconds=seconds)
    return OrgPart(
        org=org,
        name=name,
        status=aggregate.status,
        reason=aggregate.reason,
        counted=tuple(reply.counted),
        denied=denied,
        aggregate=aggregate,
        seconds=seconds,
    )
