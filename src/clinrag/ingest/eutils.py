"""NCBI E-utilities over HTTP: ``esearch`` onto the history server and ``efetch`` of PubMed XML, within
the published rate limits (3 requests/s, 10/s with an API key), retried with exponential backoff on HTTP 429, 5xx,
network errors and cut-short replies. Errors name the URL without the API key or email, and the status.

Biopython's ``Bio.Entrez`` is not used: its E-utilities URLs are fixed to NCBI's host in every function (no mirror,
proxy or local test server without its private ``_build_request``/``_open``), it retries an HTTP error at once
without waiting and a network error after a fixed 15 s, never reads ``Retry-After``, and keeps email, key and
retry counts in module globals. What it would add over this module is parameter encoding.

Example:
    >>> client = EutilsClient(EutilsConfig(base_url="http://127.0.0.1:9", api_key="secret"))
    >>> round(client.min_interval, 2)  # 10 requests/s with a key, 10 % under the limit
    0.11
    >>> client.redacted("esearch.fcgi", {"term": "sepsis", "api_key": "secret", "email": "me@example.org"})
    'http://127.0.0.1:9/esearch.fcgi?term=sepsis'
    >>> client.close()
"""

from __future__ import annotations

import email.utils
import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from types import TracebackType
from typing import Final, TypeVar
from urllib.parse import urlencode

import httpx
from lxml import etree

from clinrag.errors import FetchError
from clinrag.settings import PubmedSettings

log = logging.getLogger(__name__)
T = TypeVar("T")

DEFAULT_BASE_URL: Final = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils"
RATE_WITHOUT_KEY: Final = 3.0  # requests per second, NCBI's published limits
RATE_WITH_KEY: Final = 10.0
MARGIN: Final = 1.1  # requests sent exactly 1/rate apart can still arrive bunched; Biopython found the same
MAX_RETRY_AFTER: Final = 120.0
POST_ABOVE: Final = 1000  # encoded parameters longer than this go as a POST body, as NCBI recommends
SECRET_PARAMS: Final = frozenset({"api_key", "email"})
ARTICLE_TAGS: Final = ("PubmedArticle", "PubmedBookArticle")


@dataclass(frozen=True)
class EutilsConfig:
    """Where E-utilities are and who asks; retry policy. `from_settings` builds it from ``[pubmed]``."""

    base_url: str = DEFAULT_BASE_URL
    email: str | None = None
    api_key: str | None = None
    tool: str = "clinrag"
    max_tries: int = 5
    backoff_seconds: float = 1.0
    timeout: float = 60.0

    @classmethod
    def from_settings(cls, settings: PubmedSettings) -> EutilsConfig:
        """The client's configuration from the ``[pubmed]`` settings group."""
        return cls(
            base_url=settings.base_url,
            email=settings.email,
            api_key=settings.api_key.get_secret_value() if settings.api_key is not None else None,
            tool=settings.tool,
            max_tries=settings.max_tries,
            backoff_seconds=settings.backoff_seconds,
            timeout=settings.timeout,
        )


@dataclass(frozen=True)
class SearchResult:
    """One esearch kept on the history server: how many records, and where efetch finds them."""

    count: int
    webenv: str
    query_key: str


@dataclass(frozen=True)
class Batch:
    """One efetch reply: the PubmedArticleSet XML as received, and how many articles it holds."""

    xml: bytes
    articles: int


class HistoryExpiredError(FetchError):
    """efetch answered with an error instead of a PubmedArticleSet (typically a WebEnv the server has dropped)."""


class _BadReplyError(Exception):
    """A reply that arrived whole by HTTP but not as a parseable body (cut short): retried like a 5xx."""


class RateLimiter:
    """Spaces request starts at least ``MARGIN / rate`` seconds apart; thread-safe.

    Example:
        >>> limiter = RateLimiter(3.0)
        >>> limiter.wait(); limiter.wait()  # the second call sleeps about 0.37 s
    """

    def __init__(self, rate: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = MARGIN / rate
        self._clock = clock
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        """Sleep until the next request may start."""
        with self._lock:
            now = self._clock()
            if now < self._next:
                time.sleep(self._next - now)
                now = self._clock()
            self._next = now + self.interval


class EutilsClient:
    """esearch and efetch against one E-utilities base URL; counts requests and retries (for the summary)."""

    def __init__(self, config: EutilsConfig, transport: httpx.BaseTransport | None = None) -> None:
        self.config = config
        self._limiter = RateLimiter(RATE_WITH_KEY if config.api_key else RATE_WITHOUT_KEY)
        self._http = httpx.Client(timeout=config.timeout, transport=transport, follow_redirects=True)
        self.requests = 0
        self.retries = 0

    @property
    def min_interval(self) -> float:
        """Seconds between two request starts."""
        return self._limiter.interval

    def __enter__(self) -> EutilsClient:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def esearch(self, term: str, mindate: date, maxdate: date, datetype: str = "pdat") -> SearchResult:
        """Search PubMed for ``term`` between two dates (inclusive) and keep the result on the history server."""
        params = {
            "db": "pubmed",
            "term": term,
            "datetype": datetype,
            "mindate": mindate.strftime("%Y/%m/%d"),
            "maxdate": maxdate.strftime("%Y/%m/%d"),
            "usehistory": "y",
            "retmax": "0",
            "retmode": "json",
        }
        return self._request("esearch.fcgi", params, self._search_result)

    def efetch(self, search: SearchResult, retstart: int, retmax: int) -> Batch:
        """Records ``retstart`` to ``retstart + retmax - 1`` of a kept search, as PubMed XML."""
        params = {
            "db": "pubmed",
            "WebEnv": search.webenv,
            "query_key": search.query_key,
            "retstart": str(retstart),
            "retmax": str(retmax),
            "retmode": "xml",
        }
        return self._request("efetch.fcgi", params, _article_set)

    def redacted(self, endpoint: str, params: Mapping[str, str]) -> str:
        """The request's URL as errors and logs show it: no API key, no email."""
        shown = {key: value for key, value in params.items() if key not in SECRET_PARAMS}
        return f"{self.config.base_url.rstrip('/')}/{endpoint}" + (f"?{urlencode(shown)}" if shown else "")

    def _request(self, endpoint: str, params: dict[str, str], parse: Callable[[str, bytes], T]) -> T:
        url = self.redacted(endpoint, params)
        sent = dict(params, tool=self.config.tool)
        if self.config.email:
            sent["email"] = self.config.email
        if self.config.api_key:
            sent["api_key"] = self.config.api_key
        target = f"{self.config.base_url.rstrip('/')}/{endpoint}"
        post = len(urlencode(sent)) > POST_ABOVE
        for attempt in range(1, self.config.max_tries + 1):
            self._limiter.wait()
            self.requests += 1
            retry_after: float | None = None
            try:
                response = self._http.post(target, data=sent) if post else self._http.get(target, params=sent)
            except httpx.TransportError as exc:
                failure = f"network error ({type(exc).__name__})"
            else:
                if response.status_code == 200:
                    try:
                        return parse(url, response.content)
                    except _BadReplyError as exc:
                        failure = f"HTTP 200 but {exc}"
                elif response.status_code == 429 or response.status_code >= 500:
                    failure = f"HTTP {response.status_code} {response.reason_phrase}".rstrip()
                    retry_after = _retry_after(response.headers.get("Retry-After"))
                else:
                    raise FetchError(f"{url}: HTTP {response.status_code} {response.reason_phrase}".rstrip())
            if attempt == self.config.max_tries:
                raise FetchError(f"{url}: {failure} after {attempt} attempt(s)")
            wait = self.config.backoff_seconds * 2 ** (attempt - 1)
            if retry_after is not None:
                wait = max(wait, retry_after)
            log.warning("%s: %s; retry %d in %.1f s", url, failure, attempt, wait)
            self.retries += 1
            time.sleep(wait)
        raise AssertionError("unreachable: max_tries >= 1")

    @staticmethod
    def _search_result(url: str, body: bytes) -> SearchResult:
        try:
            reply = json.loads(body)
        except ValueError:
            raise _BadReplyError("the esearch reply is not JSON") from None
        result = reply.get("esearchresult") if isinstance(reply, dict) else None
        if not isinstance(result, dict):
            raise FetchError(f"{url}: unexpected esearch reply (no esearchresult)")
        if "ERROR" in result:
            raise FetchError(f"{url}: esearch error: {str(result['ERROR'])[:200]}")
        try:
            count = int(result["count"])
        except (KeyError, ValueError):
            raise FetchError(f"{url}: unexpected esearch reply (no count)") from None
        webenv, query_key = str(result.get("webenv", "")), str(result.get("querykey", ""))
        if count and not (webenv and query_key):
            raise FetchError(f"{url}: esearch kept no history (no WebEnv or query_key)")
        return SearchResult(count=count, webenv=webenv, query_key=query_key)


def _article_set(url: str, body: bytes) -> Batch:
    """Check that ``body`` is a whole PubmedArticleSet and count its articles; never loads a DTD or entity."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True)
    try:
        root = etree.fromstring(body, parser)
    except etree.XMLSyntaxError:
        raise _BadReplyError("the efetch reply is not whole XML") from None
    if root.tag != "PubmedArticleSet":
        raise HistoryExpiredError(f"{url}: efetch replied <{root.tag}>, not a PubmedArticleSet")
    return Batch(xml=body, articles=sum(1 for child in root if child.tag in ARTICLE_TAGS))


def _retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (seconds or an HTTP date), at most `MAX_RETRY_AFTER`."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)
