"""A small E-utilities server on 127.0.0.1 for the fetch tests: ``esearch.fcgi`` (JSON, history server) and
``efetch.fcgi`` (PubmedArticleSet XML written by the synthetic MEDLINE writer) over records with known publication
dates. It logs every request with its arrival time, can answer chosen statuses first (429, 5xx, 400), and can
forget a WebEnv as NCBI's history server does."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

from clinrag.ingest.medline import MedlineRecord
from clinrag.ingest.synthetic.medline import HEADER, article_xml, synthetic_records


@dataclass(frozen=True)
class Seen:
    """One request as the server received it."""

    at: float  # time.monotonic() on arrival
    endpoint: str
    params: dict[str, str]
    status: int
    method: str = "GET"


@dataclass
class FakeEutils:
    """PubMed as far as the fetch needs it: records, each with a publication date."""

    records: list[MedlineRecord]
    published: dict[int, date]  # PMID -> publication date
    failures: list[tuple[int, dict[str, str]]] = field(default_factory=list)  # answered first, one per request
    fail: Callable[[str, dict[str, str]], int | None] | None = None  # a status to answer instead, or None
    forget_after_efetch: bool = False  # every WebEnv is dropped after its first efetch
    seen: list[Seen] = field(default_factory=list)
    history: dict[str, list[MedlineRecord]] = field(default_factory=dict)
    url: str = ""

    def esearches(self) -> list[Seen]:
        return [s for s in self.seen if s.endpoint == "esearch.fcgi"]

    def efetches(self) -> list[Seen]:
        return [s for s in self.seen if s.endpoint == "efetch.fcgi"]

    def answer(self, endpoint: str, params: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        if self.failures:
            status, headers = self.failures.pop(0)
            return status, headers, b'{"error":"injected"}'
        status = self.fail(endpoint, params) if self.fail is not None else None
        if status is not None:
            return status, {}, b'{"error":"injected"}'
        if endpoint == "esearch.fcgi":
            return self._esearch(params)
        if endpoint == "efetch.fcgi":
            return self._efetch(params)
        return 404, {}, b"no such E-utility"

    def _esearch(self, params: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        low = datetime.strptime(params["mindate"], "%Y/%m/%d").date()
        high = datetime.strptime(params["maxdate"], "%Y/%m/%d").date()
        found = sorted(
            (r for r in self.records if low <= self.published[r.pmid] <= high),
            key=lambda r: (self.published[r.pmid], r.pmid),
        )
        webenv = f"MCID_{len(self.history):08d}"
        self.history[webenv] = found
        reply = {
            "header": {"type": "esearch", "version": "0.3"},
            "esearchresult": {
                "count": str(len(found)),
                "retmax": "0",
                "retstart": "0",
                "querykey": "1",
                "webenv": webenv,
                "idlist": [],
                "translationset": [],
                "querytranslation": params["term"],
            },
        }
        return 200, {"Content-Type": "application/json; charset=UTF-8"}, json.dumps(reply).encode()

    def _efetch(self, params: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        found = self.history.get(params["WebEnv"])
        if found is None or params["query_key"] != "1":
            body = "<eFetchResult>\n\t<ERROR>Unable to obtain query #1</ERROR>\n</eFetchResult>\n"
            return 200, {"Content-Type": "text/xml; charset=UTF-8"}, body.encode()
        start, size = int(params["retstart"]), int(params["retmax"])
        if self.forget_after_efetch:
            del self.history[params["WebEnv"]]
        body = HEADER + "".join(article_xml(r) for r in found[start : start + size]) + "</PubmedArticleSet>\n"
        return 200, {"Content-Type": "text/xml; charset=UTF-8"}, body.encode()


def fake_pubmed(days: list[date], seed: int = 3, start: int = 0) -> FakeEutils:
    """Synthetic citations published on ``days``, in order (year and month in their XML too)."""
    records = [
        record.model_copy(update={"year": day.year, "month": day.month})
        for record, day in zip(synthetic_records(len(days), seed=seed, start=start), days, strict=True)
    ]
    return FakeEutils(records, {record.pmid: day for record, day in zip(records, days, strict=True)})


@contextmanager
def serve(fake: FakeEutils) -> Iterator[FakeEutils]:
    """Serve ``fake`` on 127.0.0.1 (a free port) in a thread; ``fake.url`` is the base URL."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _handle(self, params: dict[str, str]) -> None:
            arrived = time.monotonic()
            endpoint = urlsplit(self.path).path.rsplit("/", 1)[-1]
            status, headers, body = fake.answer(endpoint, params)
            fake.seen.append(Seen(arrived, endpoint, params, status, self.command))
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self._handle(dict(parse_qsl(urlsplit(self.path).query)))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            self._handle(dict(parse_qsl(self.rfile.read(length).decode())))

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    fake.url = f"http://127.0.0.1:{server.server_address[1]}/entrez/eutils"
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
