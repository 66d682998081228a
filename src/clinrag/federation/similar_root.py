"""The root's side of similar patients: the query patient's code sets read at the asker's own hospital
(``POST /v1/similar`` with ``sets_of``, which also ranks that hospital's patients), then every other organisation
asked at once with those sets and the user's token, each waited for at most ``federation.timeout``; the rankings
merged by score (ties by organisation, then id), every match labelled with its organisation.

Hospitals share no patient identifier (in the demo, none at all), so a patient known to two hospitals is two
results, one per hospital; the query patient is excluded at the asker's hospital only, where their id means them.
An organisation ends ``ok``, ``denied`` (the policies refused the user every department there), ``unreachable``
(down, or no answer in time) or ``error`` (HTTP error, rejected sign-in, malformed reply, failed ranking; and every
other organisation when the asker's hospital gave no query sets).

Example:
    >>> outcome = FederatedSimilar(orgs, token).find("A", 10000032, k=10)  # doctest: +SKIP
    >>> [(part.org, part.status) for part in outcome.parts]  # doctest: +SKIP
    [('A', 'ok'), ('B', 'ok'), ('C', 'denied')]
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

import aiohttp

from clinrag.federation.population_root import FederatedCounter, _ExchangeError
from clinrag.federation.protocol import KindSets, SimilarMatch, SimilarRequest, SimilarResponse
from clinrag.federation.root import OrgEndpoint
from clinrag.population.results import Status


@dataclass(frozen=True)
class OrgSimilar:
    """How one organisation answered: status, reason, departments searched and denied, seconds."""

    org: str
    name: str
    status: Status
    reason: str = ""
    searched: tuple[str, ...] = ()
    denied: tuple[str, ...] = ()
    seconds: float = 0.0


@dataclass(frozen=True)
class OrgMatch:
    """A similar patient, labelled with the organisation whose id ``match.subject_id`` is."""

    org: str
    match: SimilarMatch


@dataclass
class SimilarOutcome:
    """The merged ranking (best first) and each organisation's part."""

    org: str
    subject_id: int
    matches: list[OrgMatch] = field(default_factory=list)
    parts: list[OrgSimilar] = field(default_factory=list)
    query_sets: KindSets | None = None
    mention: str = ""
    """With ``named_in``: how the question names the patient, as the asker's hospital read it."""


def merge(replies: dict[str, list[SimilarMatch]], k: int) -> list[OrgMatch]:
    """Every organisation's ranking merged by score, ties by organisation then id (then admission), the best ``k``.

    Example:
        >>> a = SimilarMatch(subject_id=2, score=0.5); b = SimilarMatch(subject_id=1, score=0.5)
        >>> [(m.org, m.match.subject_id) for m in merge({"B": [b], "A": [a]}, 5)]
        [('A', 2), ('B', 1)]
    """
    found = [OrgMatch(org, match) for org, matches in replies.items() for match in matches]
    found.sort(key=lambda m: (-m.match.score, m.org, m.match.subject_id, m.match.hadm_id or 0))
    return found[:k]


class FederatedSimilar(FederatedCounter):
    """Similar patients over the federation ``orgs`` for one signed-in user (exchanges as `FederatedCounter`)."""

    def find(self, org: str, subject_id: int | None, **options: object) -> SimilarOutcome:
        """`afind` for synchronous callers (the CLI); not from inside a running event loop."""
        return asyncio.run(self.afind(org, subject_id, **options))

    async def afind(self, org: str, subject_id: int | None, **options: object) -> SimilarOutcome:
        """Patient ``subject_id`` of organisation ``org`` (the asker's hospital; None: the patient the question
        ``named_in`` names there); ``options``: `SimilarRequest`'s ``named_in``, ``weights``, ``k``, ``per``,
        ``min_score``, ``max_ratio``."""
        request = SimilarRequest.model_validate({"sets_of": subject_id, **options})
        outcome = SimilarOutcome(org=org, subject_id=subject_id or 0)
        home = next((endpoint for endpoint in self.orgs if endpoint.org == org), None)
        others = [endpoint for endpoint in self.orgs if endpoint.org != org]
        replies: dict[str, list[SimilarMatch]] = {}
        async with self._client() as client:
            if home is None:
                outcome.parts.append(OrgSimilar(org, org, "error", "not an organisation of the federation"))
            else:
                part, reply = await self._similar_at(client, home, request)
                outcome.parts.append(part)
                if reply is not None:
                    replies[home.org] = reply.matches
                    outcome.query_sets = reply.query_sets
                    outcome.subject_id = reply.query_subject or outcome.subject_id
                    outcome.mention = reply.query_mention or ""
            if outcome.query_sets is None:
                reason = f"the query patient's codes could not be read at {org}"
                outcome.parts += [OrgSimilar(e.org, e.label, "error", reason) for e in others]
            else:
                asked = request.model_copy(update={"sets_of": None, "named_in": None, "sets": outcome.query_sets})
                answers = await asyncio.gather(*(self._similar_at(client, e, asked) for e in others))
                for endpoint, (part, reply) in zip(others, answers, strict=True):
                    outcome.parts.append(part)
                    if reply is not None:
                        replies[endpoint.org] = reply.matches
        outcome.matches = merge(replies, request.k)
        return outcome

    async def _similar_at(
        self, client: aiohttp.ClientSession, endpoint: OrgEndpoint, request: SimilarRequest
    ) -> tuple[OrgSimilar, SimilarResponse | None]:
        started = time.perf_counter()
        body = request.model_dump_json(exclude_none=True).encode()
        try:
            reply = await self._ask(client, endpoint, "similar", body, SimilarResponse)
        except _ExchangeError as failed:
            seconds = time.perf_counter() - started
            return OrgSimilar(endpoint.org, endpoint.label, failed.status, failed.reason, seconds=seconds), None
        seconds = time.perf_counter() - started
        denied = tuple(denial.path for denial in reply.denied)
        searched = tuple(reply.searched)
        if reply.errors:
            reason = "; ".join(error.message for error in reply.errors)
            return OrgSimilar(endpoint.org, endpoint.label, "error", reason, searched, denied, seconds), None
        if not searched:
            part = OrgSimilar(endpoint.org, endpoint.label, "denied", "denied by policy", (), denied, seconds)
            return part, None
        return OrgSimilar(endpoint.org, endpoint.label, "ok", "", searched, denied, seconds), reply
