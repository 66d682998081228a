"""``clinrag pubmed fetch``: PubMed records for a query, fetched with E-utilities into gzipped
PubmedArticleSet files that ``clinrag pubmed ingest`` reads as they are.

E-utilities return at most 10,000 results of one search, so the date range is searched in windows (publication
date, ``datetype=pdat``): a window whose count is over the cap is split in halves, recursively, down to one day;
a single day still over the cap is fetched up to the cap and reported. Each window's search is kept on the history
server (``usehistory=y``) and fetched with ``efetch`` in batches, one file per batch, named by window and offset.

A checkpoint (``pubmed-fetch.json`` in the output folder, replaced atomically after every file) records the query,
the range, the windows still to search, and per window its count, offset reached and files. Running the same
command again resumes where an interrupted run stopped; a finished fetch fetches nothing. A window resumed whose
count has changed since is fetched again from its start (ingestion is idempotent, so nothing is doubled).

Example:
    >>> from datetime import date
    >>> Window(date(2020, 1, 1), date(2020, 12, 31)).halves()[1].label
    '2020/07/02-2020/12/31'
    >>> parse_day("2024/02/30", "--to")
    Traceback (most recent call last):
    ...
    clinrag.errors.ConfigError: --to '2024/02/30' is not a date written YYYY/MM/DD
"""

from __future__ import annotations

import gzip
import json
import logging
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any, Final

from clinrag.errors import ConfigError, StoreError
from clinrag.ingest.eutils import Batch, EutilsClient, HistoryExpiredError, SearchResult

log = logging.getLogger(__name__)

CHECKPOINT: Final = "pubmed-fetch.json"
FORMAT: Final = 1
EARLIEST: Final = date(1781, 1, 1)  # PubMed's oldest citations
DATETYPE: Final = "pdat"
FILE_PATTERN: Final = "pubmed-*.xml.gz"


def parse_day(text: str, option: str) -> date:
    """``YYYY/MM/DD`` as a date; a `ConfigError` naming ``option`` otherwise."""
    try:
        return datetime.strptime(text, "%Y/%m/%d").date()
    except ValueError:
        raise ConfigError(f"{option} {text!r} is not a date written YYYY/MM/DD") from None


def default_end(today: date | None = None) -> date:
    """The end of next year: journals date some issues ahead of their publication in PubMed."""
    return date((today or date.today()).year + 1, 12, 31)


@dataclass(frozen=True)
class Window:
    """Publication dates from ``start`` to ``end``, both included."""

    start: date
    end: date

    @property
    def days(self) -> int:
        """Days covered."""
        return (self.end - self.start).days + 1

    @property
    def label(self) -> str:
        """``YYYY/MM/DD-YYYY/MM/DD``."""
        return f"{self.start:%Y/%m/%d}-{self.end:%Y/%m/%d}"

    def halves(self) -> tuple[Window, Window]:
        """The earlier and the later half (the earlier one is shorter by a day when ``days`` is odd)."""
        middle = self.start + timedelta(days=self.days // 2 - 1)
        return Window(self.start, middle), Window(middle + timedelta(days=1), self.end)


@dataclass
class WindowState:
    """A window small enough to fetch: its count, the offset reached, the records and files written."""

    start: str
    end: str
    count: int
    fetched: int = 0
    records: int = 0
    files: list[str] = field(default_factory=list)
    truncated: bool = False
    done: bool = False

    @property
    def window(self) -> Window:
        """The dates, parsed."""
        return Window(parse_day(self.start, "checkpoint start"), parse_day(self.end, "checkpoint end"))


@dataclass
class Checkpoint:
    """Everything needed to resume: the query, the range, windows still to search and windows searched."""

    query: str
    start: str
    end: str
    datetype: str = DATETYPE
    total: int | None = None
    pending: list[tuple[str, str]] = field(default_factory=list)
    windows: list[WindowState] = field(default_factory=list)
    complete: bool = False
    format: int = FORMAT

    @classmethod
    def load(cls, path: Path) -> Checkpoint | None:
        """The checkpoint at ``path``, or None when there is none."""
        try:
            raw: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise StoreError(f"{path}: unreadable fetch checkpoint ({exc})") from None
        if raw.get("format") != FORMAT:
            raise StoreError(f"{path}: fetch checkpoint format {raw.get('format')!r}, expected {FORMAT}")
        try:
            windows = [WindowState(**entry) for entry in raw.pop("windows")]
            pending = [(start, end) for start, end in raw.pop("pending")]
            return cls(**raw, windows=windows, pending=pending)
        except (KeyError, TypeError, ValueError) as exc:
            raise StoreError(f"{path}: unreadable fetch checkpoint ({exc})") from None

    def save(self, path: Path) -> None:
        """Write to a temporary file, flush it to disk, then rename it over ``path``."""
        temporary = path.with_name(f".{path.name}.tmp")
        with temporary.open("w", encoding="utf-8") as handle:
            json.dump(asdict(self), handle, indent=1)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)

    @property
    def records(self) -> int:
        """Records written so far, every window."""
        return sum(state.records for state in self.windows)

    @property
    def files(self) -> int:
        """Files written so far, every window."""
        return sum(len(state.files) for state in self.windows)


@dataclass(frozen=True)
class FetchSummary:
    """What a run did (``records``, ``files``, ``splits``) and what the folder now holds (``total_*``)."""

    windows: int
    splits: int
    records: int
    files: int
    total_records: int
    total_files: int
    requests: int
    retries: int
    already_complete: bool
    truncated: tuple[str, ...] = ()
    short_batches: int = 0


def fetch_pubmed(
    query: str,
    out: Path,
    client: EutilsClient,
    start: date | None = None,
    end: date | None = None,
    batch: int = 500,
    cap: int = 10_000,
    on_total: Callable[[int], None] | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> FetchSummary:
    """Fetch every PubMed record for ``query`` published from ``start`` to ``end`` into ``out``, resumably.

    ``start`` and ``end`` default to the checkpoint's (when resuming) or to 1781/01/01 and the end of next year.
    ``on_total`` is called with the number of records the whole range holds, ``on_progress`` with the records
    written so far. Raises `ConfigError` when ``out`` holds a fetch of another query or range, `FetchError` when
    E-utilities fail after their retries.

    Example:
        >>> from clinrag.ingest.eutils import EutilsConfig
        >>> with EutilsClient(EutilsConfig(base_url="http://127.0.0.1:9")) as client:  # doctest: +SKIP
        ...     fetch_pubmed("sepsis[mh]", Path("data/pubmed"), client, date(2024, 1, 1), date(2024, 1, 31))
        FetchSummary(windows=1, splits=0, records=412, files=1, ...)
    """
    if not query.strip():
        raise ConfigError("--query is empty")
    out.mkdir(parents=True, exist_ok=True)
    run = _Run(out, client, query, _checkpoint(out / CHECKPOINT, query, start, end), batch, cap)
    if run.checkpoint.complete:
        return run.summary(already_complete=True)
    run.report_total, run.report = on_total or run.report_total, on_progress or run.report
    if run.checkpoint.total is not None:
        run.report_total(run.checkpoint.total)
        run.report(run.checkpoint.records)
    while run.step():
        pass
    run.checkpoint.complete = True
    run.save()
    return run.summary(already_complete=False)


class _Run:
    """One run of `fetch_pubmed`: the checkpoint it advances and what it did."""

    def __init__(self, out: Path, client: EutilsClient, query: str, checkpoint: Checkpoint, batch: int, cap: int):
        self.out, self.client, self.query, self.checkpoint = out, client, query, checkpoint
        self.batch, self.cap = batch, cap
        self.requests_before, self.retries_before = client.requests, client.retries
        self.splits = self.records = self.files = self.short = 0
        self.report_total: Callable[[int], None] = lambda _: None
        self.report: Callable[[int], None] = lambda _: None

    def save(self) -> None:
        self.checkpoint.save(self.out / CHECKPOINT)

    def search(self, window: Window) -> SearchResult:
        return self.client.esearch(self.query, window.start, window.end, self.checkpoint.datetype)

    def step(self) -> bool:
        """Search the next window and split or fetch it; False when no window is left."""
        checkpoint = self.checkpoint
        resumed = checkpoint.windows[-1] if checkpoint.windows and not checkpoint.windows[-1].done else None
        if resumed is not None:
            window = resumed.window
        elif checkpoint.pending:
            window = Window(*(parse_day(day, "checkpoint") for day in checkpoint.pending[0]))
        else:
            return False
        search = self.search(window)
        if checkpoint.total is None:
            checkpoint.total = search.count
            self.report_total(search.count)
        if search.count > self.cap and window.days > 1:
            log.info("window %s holds %d results, over the cap of %d: split", window.label, search.count, self.cap)
            if resumed is not None:  # it grew past the cap since it was searched
                self.forget(checkpoint.windows.pop())
                checkpoint.pending.insert(0, (resumed.start, resumed.end))
            checkpoint.pending[0:1] = [(f"{w.start:%Y/%m/%d}", f"{w.end:%Y/%m/%d}") for w in window.halves()]
            self.splits += 1
            self.save()
            return True
        state = self.window_state(resumed, window, search.count)
        state.truncated = search.count > self.cap
        self.save()
        self.fetch_window(state, search, min(search.count, self.cap))
        state.done = True
        self.save()
        return True

    def window_state(self, resumed: WindowState | None, window: Window, count: int) -> WindowState:
        """A new window taken from the pending list, or the resumed one (restarted if its count changed)."""
        if resumed is None:
            self.checkpoint.pending.pop(0)
            state = WindowState(start=f"{window.start:%Y/%m/%d}", end=f"{window.end:%Y/%m/%d}", count=count)
            self.checkpoint.windows.append(state)
            return state
        if resumed.count != count:
            log.info("window %s now holds %d results, not %d: fetched again", window.label, count, resumed.count)
            self.forget(resumed)
            resumed.count, resumed.fetched, resumed.records = count, 0, 0
        return resumed

    def fetch_window(self, state: WindowState, search: SearchResult, limit: int) -> None:
        """Fetch the window from the offset reached to ``limit``, a file per batch, saving after each."""
        window = state.window
        while state.fetched < limit:
            size = min(self.batch, limit - state.fetched)
            try:
                got = self.client.efetch(search, state.fetched, size)
            except HistoryExpiredError:
                log.info("window %s: history expired at offset %d, searched again", window.label, state.fetched)
                search = self.search(window)
                got = self.client.efetch(search, state.fetched, size)
            name = f"pubmed-{window.start:%Y%m%d}-{window.end:%Y%m%d}-{state.fetched:05d}.xml.gz"
            _write(self.out / name, got)
            if name not in state.files:
                state.files.append(name)
            state.fetched += size
            state.records += got.articles
            self.records += got.articles
            self.files += 1
            if got.articles < size:
                self.short += 1
                log.info("window %s: %d of %d records at offset %d", window.label, got.articles, size, state.fetched)
            self.save()
            self.report(self.checkpoint.records)

    def forget(self, state: WindowState) -> None:
        """Delete a window's files: it is fetched again or split."""
        for name in state.files:
            (self.out / name).unlink(missing_ok=True)
        state.files.clear()

    def summary(self, already_complete: bool) -> FetchSummary:
        checkpoint = self.checkpoint
        truncated = tuple(
            f"window {state.start}-{state.end} holds {state.count:,} results, more than the {state.fetched:,} "
            "E-utilities return for one search, and cannot be split below one day: only its first "
            f"{state.fetched:,} were fetched"
            for state in checkpoint.windows
            if state.truncated
        )
        return FetchSummary(
            windows=len(checkpoint.windows),
            splits=self.splits,
            records=self.records,
            files=self.files,
            total_records=checkpoint.records,
            total_files=checkpoint.files,
            requests=self.client.requests - self.requests_before,
            retries=self.client.retries - self.retries_before,
            already_complete=already_complete,
            truncated=truncated,
            short_batches=self.short,
        )


def _checkpoint(path: Path, query: str, start: date | None, end: date | None) -> Checkpoint:
    """The checkpoint to continue: the folder's own, which must be of this query and range, or a new one."""
    found = Checkpoint.load(path)
    if found is not None:
        if found.query != query:
            raise ConfigError(
                f"{path.parent} holds a fetch of another query ({found.query!r}); resume it with that --query or "
                "fetch into another --out"
            )
        asked = (
            f"{start:%Y/%m/%d}" if start else found.start,
            f"{end:%Y/%m/%d}" if end else found.end,
        )
        if asked != (found.start, found.end):
            raise ConfigError(
                f"{path.parent} holds a fetch from {found.start} to {found.end}, not from {asked[0]} to {asked[1]}; "
                "fetch another range into another --out"
            )
        return found
    first, last = start or EARLIEST, end or default_end()
    if first > last:
        raise ConfigError(f"--from {first:%Y/%m/%d} is after --to {last:%Y/%m/%d}")
    begin, finish = f"{first:%Y/%m/%d}", f"{last:%Y/%m/%d}"
    return Checkpoint(query=query, start=begin, end=finish, pending=[(begin, finish)])


def _write(target: Path, got: Batch) -> None:
    """Gzip the reply as received into ``target``, through a temporary file renamed over it."""
    temporary = target.with_name(f".{target.name}.tmp")
    temporary.write_bytes(gzip.compress(got.xml, compresslevel=6, mtime=0))
    os.replace(temporary, target)
