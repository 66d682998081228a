"""``clinrag pubmed fetch`` replayed from VCR cassettes of NCBI's own URLs (issue 20): the same requests a fetch
sends to eutils.ncbi.nlm.nih.gov, answered from ``cassettes/test_pubmed_replay/`` (written by
``pubmed_cassettes.py`` to E-utilities' formats). Cassettes are only played (record mode none): a request they do
not hold fails the test, and the network is blocked, so nothing leaves the machine."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.eutils import DEFAULT_BASE_URL, EutilsClient, EutilsConfig
from clinrag.ingest.literature import ingest_medline
from clinrag.ingest.pubmed_fetch import FILE_PATTERN, fetch_pubmed
from clinrag.settings import PubmedSettings

from .pubmed_cassettes import FOLDER, QUERY, RATE_LIMITED_DAYS, SPLIT_DAYS, cassettes, records

pytestmark = pytest.mark.block_network(allowed_hosts=[])


@pytest.fixture(scope="module")
def vcr_config() -> dict[str, Any]:
    """As a recording would be made: the API key and email filtered out of every request."""
    return {"filter_query_parameters": ["api_key", "email"], "record_mode": "none"}


def _client() -> EutilsClient:
    assert PubmedSettings().base_url == DEFAULT_BASE_URL  # the cassettes hold NCBI's own URLs
    return EutilsClient(EutilsConfig(email="dev@example.org", api_key="recorded-key", backoff_seconds=0.01))


def _citations(out: Path, node: Path) -> dict[int, tuple[str, int | None]]:
    with ChunkStore.open(node / "chunks.sqlite") as store:
        report = ingest_medline(sorted(out.glob(FILE_PATTERN)), store, "LIB")
        assert report.problems == []
        return {c.citation.pmid: (c.citation.title, c.citation.year) for c in store.chunks() if c.citation}


@pytest.mark.vcr
def test_replayed_fetch_splits_a_window(tmp_path: Path) -> None:
    with _client() as client:
        done = fetch_pubmed(QUERY, tmp_path / "out", client, date(2024, 1, 1), date(2024, 12, 31), batch=2, cap=4)
    assert (done.windows, done.splits, done.records, done.files, done.requests) == (2, 1, 6, 4, 7)
    served = records(SPLIT_DAYS, seed=21)
    assert _citations(tmp_path / "out", tmp_path / "node") == {r.pmid: (r.title, r.year) for r in served}


@pytest.mark.vcr
def test_replayed_429_is_retried(tmp_path: Path) -> None:
    with _client() as client:
        done = fetch_pubmed(QUERY, tmp_path / "out", client, date(2023, 1, 1), date(2023, 12, 31))
    assert (done.records, done.requests, done.retries) == (2, 3, 1)
    served = records(RATE_LIMITED_DAYS, seed=22)
    assert _citations(tmp_path / "out", tmp_path / "node") == {r.pmid: (r.title, r.year) for r in served}


def test_committed_cassettes_are_what_the_writer_writes() -> None:
    assert {path.name: path.read_text(encoding="utf-8") for path in FOLDER.glob("*.yaml")} == cassettes()
