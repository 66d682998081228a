"""The E-utilities cassettes of ``test_pubmed_replay.py``, written by hand to NCBI's response formats (this machine
cannot reach NCBI to record them): esearch JSON with count, WebEnv and query_key; efetch PubmedArticleSet XML of
synthetic citations; a 429 with NCBI's rate-limit body. Secrets are filtered as a recording would filter them (no
api_key or email in a URI). ``python tests/ingest/pubmed_cassettes.py`` writes them again; a test checks that the
committed files are what this writes.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlencode

import yaml

from clinrag.ingest.medline import MedlineRecord
from clinrag.ingest.synthetic.medline import HEADER, article_xml, synthetic_records

BASE: Final = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"
QUERY: Final = "apixaban AND atrial fibrillation"
TRANSLATION: Final = (
    '("apixaban"[Supplementary Concept] OR "apixaban"[All Fields]) AND ("atrial fibrillation"[MeSH Terms] OR '
    '("atrial"[All Fields] AND "fibrillation"[All Fields]) OR "atrial fibrillation"[All Fields])'
)
FOLDER: Final = Path(__file__).parent / "cassettes" / "test_pubmed_replay"
SPLIT_DAYS: Final = (
    date(2024, 2, 10),
    date(2024, 3, 20),
    date(2024, 6, 5),
    date(2024, 8, 1),
    date(2024, 10, 15),
    date(2024, 12, 2),
)
RATE_LIMITED_DAYS: Final = (date(2023, 4, 4), date(2023, 9, 9))


def records(days: tuple[date, ...], seed: int) -> list[MedlineRecord]:
    """Citations the query finds (apixaban in atrial fibrillation), published in the months of ``days``."""
    found = [r for r in synthetic_records(600, seed=seed) if r.keywords[:2] == ("atrial fibrillation", "apixaban")]
    return [
        record.model_copy(update={"year": day.year, "month": day.month})
        for record, day in zip(found[: len(days)], days, strict=True)
    ]


def _headers(kind: str) -> dict[str, list[str]]:
    return {
        "Content-Type": [kind],
        "Cache-Control": ["private"],
        "X-RateLimit-Limit": ["10"],
        "X-RateLimit-Remaining": ["9"],
        "Strict-Transport-Security": ["max-age=31536000; includeSubDomains; preload"],
    }


def _esearch(start: date, end: date, count: int, webenv: str) -> dict[str, Any]:
    params = {
        "db": "pubmed",
        "term": QUERY,
        "datetype": "pdat",
        "mindate": f"{start:%Y/%m/%d}",
        "maxdate": f"{end:%Y/%m/%d}",
        "usehistory": "y",
        "retmax": "0",
        "retmode": "json",
        "tool": "clinrag",
    }
    reply = {
        "header": {"type": "esearch", "version": "0.3"},
        "esearchresult": {
            "count": str(count),
            "retmax": "0",
            "retstart": "0",
            "querykey": "1",
            "webenv": webenv,
            "idlist": [],
            "translationset": [
                {"from": "apixaban", "to": '"apixaban"[Supplementary Concept] OR "apixaban"[All Fields]'},
                {"from": "atrial fibrillation", "to": '"atrial fibrillation"[MeSH Terms] OR "atrial fibrillation"'},
            ],
            "querytranslation": TRANSLATION + f" AND {start:%Y/%m/%d}:{end:%Y/%m/%d}[Date - Publication]",
        },
    }
    return _interaction("esearch.fcgi", params, 200, "OK", "application/json; charset=UTF-8", json.dumps(reply))


def _efetch(webenv: str, retstart: int, served: list[MedlineRecord]) -> dict[str, Any]:
    params = {
        "db": "pubmed",
        "WebEnv": webenv,
        "query_key": "1",
        "retstart": str(retstart),
        "retmax": str(len(served)),
        "retmode": "xml",
        "tool": "clinrag",
    }
    body = HEADER + "".join(article_xml(record) for record in served) + "</PubmedArticleSet>\n"
    return _interaction("efetch.fcgi", params, 200, "OK", "text/xml; charset=UTF-8", body)


def _interaction(
    endpoint: str, params: dict[str, str], code: int, message: str, kind: str, body: str
) -> dict[str, Any]:
    return {
        "request": {"body": None, "headers": {}, "method": "GET", "uri": f"{BASE}/{endpoint}?{urlencode(params)}"},
        "response": {
            "status": {"code": code, "message": message},
            "headers": _headers(kind),
            "body": {"string": body},
        },
    }


def split_fetch() -> list[dict[str, Any]]:
    """2024 holds 6 citations, over a cap of 4: searched whole, then in halves of 3, fetched in batches of 2."""
    served = records(SPLIT_DAYS, seed=21)
    first, second = served[:3], served[3:]
    early, late = "MCID_674a1f2b9c0e5d31a2b4c6d8", "MCID_674a1f2c1d2e3f40a5b6c7d8"
    return [
        _esearch(date(2024, 1, 1), date(2024, 12, 31), 6, "MCID_674a1f2a7b8c9d01e2f3a4b5"),
        _esearch(date(2024, 1, 1), date(2024, 7, 1), 3, early),
        _efetch(early, 0, first[:2]),
        _efetch(early, 2, first[2:]),
        _esearch(date(2024, 7, 2), date(2024, 12, 31), 3, late),
        _efetch(late, 0, second[:2]),
        _efetch(late, 2, second[2:]),
    ]


def rate_limited_fetch() -> list[dict[str, Any]]:
    """A 429 with NCBI's rate-limit body, then the same search answered, then one efetch of 2 citations."""
    webenv = "MCID_674a20f1aa0b1c2d3e4f5a6b"
    search = _esearch(date(2023, 1, 1), date(2023, 12, 31), 2, webenv)
    limited = json.loads(json.dumps(search))
    limited["response"]["status"] = {"code": 429, "message": "Too Many Requests"}
    limited["response"]["headers"]["Retry-After"] = ["0"]
    limited["response"]["body"]["string"] = json.dumps(
        {"error": "API rate limit exceeded", "api-key": "203.0.113.7", "count": "11", "limit": "10"}
    )
    return [limited, search, _efetch(webenv, 0, records(RATE_LIMITED_DAYS, seed=22))]


class _Dumper(yaml.SafeDumper):
    """Multi-line bodies (the XML) as literal blocks, so a reviewer reads them as NCBI sends them."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


_Dumper.add_representer(str, _text)


def cassettes() -> dict[str, str]:
    """File name -> YAML text, in vcrpy's cassette format (version 1)."""
    built = {
        "test_replayed_fetch_splits_a_window.yaml": split_fetch(),
        "test_replayed_429_is_retried.yaml": rate_limited_fetch(),
    }
    return {
        name: yaml.dump(
            {"interactions": interactions, "version": 1}, Dumper=_Dumper, sort_keys=False, width=200, allow_unicode=True
        )
        for name, interactions in built.items()
    }


if __name__ == "__main__":
    FOLDER.mkdir(parents=True, exist_ok=True)
    for name, text in cassettes().items():
        (FOLDER / name).write_text(text, encoding="utf-8")
