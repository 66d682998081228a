"""Where experience answers find similar patients (`generate.experience.SimilarFinder`): one node folder, or the
federation for a signed-in user.

- `LocalFinder`: the node's registry settles the named patient; its population tables rank its patients
  (`population.similar.find_similar`). Every patient of the folder counts, as for `clinrag ask --node`.
- `FederatedFinder`: the asker's own hospital settles the named patient among the patients the user may retrieve
  there (``POST /v1/similar`` with ``named_in``) and ranks its own; every other hospital ranks its patients against
  the patient's code sets (`federation.similar_root.FederatedSimilar`).

Example:
    >>> finder = LocalFinder(Path("data/demo/nodes/A"))  # doctest: +SKIP
    >>> finder.find("Which patients are like Deanna Mahoney?", 5).matches[0].score  # doctest: +SKIP
    0.41
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from clinrag.errors import ClinragError
from clinrag.federation.protocol import SimilarMatch
from clinrag.federation.root import OrgEndpoint
from clinrag.federation.similar_root import FederatedSimilar
from clinrag.generate.experience import ExperienceOrg, Found, SharedView, SimilarView
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.population.similar import SimilarPatient, find_similar
from clinrag.population.similar_named import named_patient
from clinrag.population.tables import population_path
from clinrag.retrieve.hybrid import CHUNKS_FILE
from clinrag.retrieve.patients import PatientRegistry
from clinrag.settings import FederationSettings

log = logging.getLogger("clinrag.answer")


def _view(org: str, match: SimilarPatient | SimilarMatch) -> SimilarView:
    """A similar patient as shown, whether ranked here (`SimilarPatient`) or by another hospital (`SimilarMatch`)."""
    shared = {
        kind: tuple(SharedView(code=item.code, title=item.title, version=item.version) for item in items)
        for kind, items in match.shared.items()
    }
    return SimilarView(
        org=org,
        subject_id=match.subject_id,
        score=match.score,
        jaccard=dict(match.jaccard),
        shared=shared,
        hadm_id=match.hadm_id,
    )


class LocalFinder:
    """Similar patients within one node folder (its chunk store's registry and population tables)."""

    def __init__(self, node: Path, *, detect_persons: bool = True) -> None:
        self.node = node
        self.detect_persons = detect_persons

    def find(self, question: str, k: int) -> Found:
        """The named patient and the ``k`` most similar patients of the folder (see the module docstring)."""
        with ChunkStore.open(self.node / CHUNKS_FILE) as chunks:
            registry = PatientRegistry(chunks.patients())
        try:
            named = named_patient(question, registry, detect_persons=self.detect_persons)
        except ClinragError as exc:
            return Found(patient="", org="", subject_id=None, error=str(exc))
        try:
            result = find_similar(population_path(self.node), named.subject_id, k=k)
        except ClinragError as exc:
            return Found(patient=named.text, org="", subject_id=named.subject_id, error=str(exc))
        org = result.org
        views = tuple(_view(org, match) for match in result.matches)
        return Found(named.text, org, named.subject_id, views, (ExperienceOrg(org=org, name=org, status="ok"),))


class FederatedFinder:
    """Similar patients over the federation for the holder of ``token``, whose hospital is ``home``."""

    def __init__(
        self, orgs: list[OrgEndpoint], token: str, home: str, settings: FederationSettings | None = None
    ) -> None:
        self.similar = FederatedSimilar(orgs, token, settings)
        self.home = home

    def find(self, question: str, k: int) -> Found:
        """The patient the question names at the asker's hospital and the ``k`` most similar patients of every
        hospital the asker may search; each organisation's part (ok, denied, unreachable, error)."""
        outcome = asyncio.run(self.similar.afind(self.home, None, named_in=question, k=k))
        parts = tuple(
            ExperienceOrg(org=part.org, name=part.name, status=part.status, reason=part.reason)
            for part in outcome.parts
        )
        home = next((part for part in parts if part.org == self.home), None)
        if outcome.query_sets is None:
            reason = home.reason if home is not None and home.reason else f"the patient is not found at {self.home}"
            return Found(patient="", org=self.home, subject_id=None, orgs=parts, error=reason)
        views = tuple(_view(match.org, match.match) for match in outcome.matches)
        named = outcome.mention or f"patient {outcome.subject_id}"
        log.info("similar home=%s matches=%d", self.home, len(views))
        return Found(named, self.home, outcome.subject_id, views, parts)
