"""``clinrag pubmed fetch`` against a real E-utilities stand-in on 127.0.0.1 (issue 20): date windows split under
the cap, a day over it fetched up to the cap and said, the history server, batches, retries with exponential
backoff on 429 and 5xx, errors naming the URL without the key, the published rate limits measured at the server,
resuming after an interruption, and files that ``clinrag pubmed ingest`` reads into exactly what was served."""

from __future__ import annotations

import doctest
import itertools
import json
import time
from datetime import date, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from clinrag.app.cli import app
from clinrag.errors import ConfigError, FetchError, StoreError
from clinrag.ingest import eutils, pubmed_fetch
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.eutils import EutilsClient, EutilsConfig
from clinrag.ingest.medline import MedlineRecord, read_medline
from clinrag.ingest.pubmed_fetch import CHECKPOINT, FILE_PATTERN, Window, fetch_pubmed
from clinrag.settings import iter_settings, load_settings

from .fake_eutils import FakeEutils, Seen, fake_pubmed, serve

pytestmark = pytest.mark.block_network(allowed_hosts=["127.0.0.1"])
KEY = "test-key-0123456789"
YEAR_2020 = [date(2020, 1, 1) + timedelta(days=6 * i) for i in range(60)]  # 60 records, every sixth day


def client_for(fake: FakeEutils, api_key: str | None = KEY, tries: int = 4, backoff: float = 0.05) -> EutilsClient:
    config = EutilsConfig(
        base_url=fake.url, email="dev@example.org", api_key=api_key, max_tries=tries, backoff_seconds=backoff
    )
    return EutilsClient(config)


def fetched(out: Path) -> list[MedlineRecord]:
    """Every record in the fetched files, in file order."""
    records = []
    for path in sorted(out.glob(FILE_PATTERN)):
        events = list(read_medline(path))
        assert all(isinstance(event, MedlineRecord) for event in events), path
        records.extend(event for event in events if isinstance(event, MedlineRecord))
    return records


def test_docstring_examples() -> None:
    for module in (eutils, pubmed_fetch):
        assert doctest.testmod(module).failed == 0


def test_windows_split_in_halves_under_the_cap(tmp_path: Path) -> None:
    with serve(fake_pubmed(YEAR_2020)) as fake, client_for(fake) as client:
        done = fetch_pubmed("sepsis", tmp_path, client, date(2020, 1, 1), date(2020, 12, 31), batch=3, cap=8)
    assert sorted(r.pmid for r in fetched(tmp_path)) == sorted(r.pmid for r in fake.records)  # each once
    assert done.records == done.total_records == 60
    assert done.splits >= 7
    assert done.windows == done.splits + 1  # every split turns one window into two
    assert done.truncated == ()
    # every window fetched held at most the cap, and the windows fetched tile the year
    fetched_windows = {(s.params["mindate"], s.params["maxdate"]) for s in fake.esearches()}
    checkpoint = json.loads((tmp_path / CHECKPOINT).read_text())
    leaves = [(w["start"], w["end"]) for w in checkpoint["windows"]]
    assert set(leaves) <= fetched_windows
    assert all(w["count"] <= 8 and w["done"] for w in checkpoint["windows"])
    days = [Window(*(date(*map(int, day.split("/"))) for day in leaf)) for leaf in leaves]
    assert days[0].start == date(2020, 1, 1)
    assert days[-1].end == date(2020, 12, 31)
    assert all(a.end + timedelta(days=1) == b.start for a, b in itertools.pairwise(days))
    # each window was searched once onto the history server, then fetched from it in batches of 3
    assert all(s.params["usehistory"] == "y" for s in fake.esearches())
    assert len(fake.esearches()) == done.windows + done.splits
    for seen in fake.efetches():
        assert seen.params["WebEnv"] in fake.history
        assert seen.params["query_key"] == "1"
        assert int(seen.params["retmax"]) <= 3
        assert seen.params["retmode"] == "xml"


def test_a_day_over_the_cap_is_fetched_up_to_it_and_said(tmp_path: Path) -> None:
    days = [date(2021, 3, 4)] * 12 + [date(2021, 3, 5)] * 2
    with serve(fake_pubmed(days)) as fake, client_for(fake) as client:
        done = fetch_pubmed("x", tmp_path, client, date(2021, 3, 1), date(2021, 3, 31), batch=4, cap=5)
    assert done.records == 5 + 2
    assert len(done.truncated) == 1
    warning = done.truncated[0]
    assert "2021/03/04-2021/03/04" in warning
    assert "12 results" in warning
    assert "cannot be split below one day" in warning
    assert "first 5" in warning
    assert [r.pmid for r in fetched(tmp_path)][:5] == [r.pmid for r in fake.records[:5]]


def test_429_and_5xx_are_retried_with_exponential_backoff(tmp_path: Path) -> None:
    with serve(fake_pubmed(YEAR_2020[:4])) as fake, client_for(fake, backoff=0.2) as client:
        fake.failures = [(429, {}), (500, {}), (503, {})]
        done = fetch_pubmed("x", tmp_path, client, date(2020, 1, 1), date(2020, 12, 31), batch=10)
    assert done.records == 4
    assert done.retries == 3
    assert [s.status for s in fake.seen] == [429, 500, 503, 200, 200]
    gaps = [b.at - a.at for a, b in zip(fake.seen, fake.seen[1:4], strict=False)]
    for gap, wanted in zip(gaps, (0.2, 0.4, 0.8), strict=True):
        assert wanted - 0.02 <= gap < wanted + 0.25, gaps  # a few ms of arrival jitter either way


def test_retry_after_is_honoured(tmp_path: Path) -> None:
    with serve(fake_pubmed(YEAR_2020[:1])) as fake, client_for(fake, backoff=0.01) as client:
        fake.failures = [(429, {"Retry-After": "1"})]
        fetch_pubmed("x", tmp_path, client, date(2020, 1, 1), date(2020, 1, 31))
    assert fake.seen[1].at - fake.seen[0].at >= 0.98


def test_errors_after_retries_name_the_url_and_status_never_the_key(tmp_path: Path) -> None:
    with serve(fake_pubmed(YEAR_2020[:3])) as fake, client_for(fake, tries=3) as client:
        fake.fail = lambda endpoint, _: 503 if endpoint == "efetch.fcgi" else None
        with pytest.raises(FetchError) as failed:
            fetch_pubmed("sepsis", tmp_path, client, date(2020, 1, 1), date(2020, 12, 31))
    message = str(failed.value)
    assert message.startswith(f"{fake.url}/efetch.fcgi?db=pubmed&WebEnv=")
    assert "HTTP 503" in message
    assert "after 3 attempt(s)" in message
    assert KEY not in message
    assert "api_key" not in message
    assert "dev@example.org" not in message
    assert len(fake.efetches()) == 3
    # a client error is not retried
    with serve(fake_pubmed(YEAR_2020[:3])) as fake, client_for(fake) as client:
        fake.fail = lambda endpoint, _: 400
        with pytest.raises(FetchError, match=r"esearch\.fcgi\?db=pubmed&term=sepsis.*: HTTP 400 Bad Request$"):
            fetch_pubmed("sepsis", tmp_path / "other", client, date(2020, 1, 1), date(2020, 12, 31))
    assert len(fake.seen) == 1


def _most_in_one_second(seen: list[Seen]) -> int:
    times = [s.at for s in seen]
    return max(sum(1 for t in times if start <= t < start + 1.0) for start in times)


@pytest.mark.parametrize(("api_key", "rate"), [(None, 3), (KEY, 10)])
def test_published_rate_limits_hold(tmp_path: Path, api_key: str | None, rate: int) -> None:
    count = 2 * rate  # one esearch, then one efetch per record: over two seconds of requests
    with serve(fake_pubmed(YEAR_2020[:count])) as fake, client_for(fake, api_key=api_key) as client:
        fetch_pubmed("x", tmp_path, client, date(2020, 1, 1), date(2020, 12, 31), batch=1)
    assert len(fake.seen) == count + 1
    # the published limit, measured where NCBI measures it; one request's arrival can lag on a loaded machine, so
    # the spacing of starts is checked on the client's own clock (next test), and here only on average
    assert _most_in_one_second(fake.seen) <= rate
    assert (fake.seen[-1].at - fake.seen[0].at) / count >= 0.95 / rate
    sent = fake.seen[0].params
    assert (sent["tool"], sent["email"], sent.get("api_key")) == ("clinrag", "dev@example.org", api_key)


@pytest.mark.parametrize("rate", [3.0, 10.0])
def test_the_limiter_spaces_every_start_by_its_interval(rate: float) -> None:
    readings: list[float] = []

    def clock() -> float:
        readings.append(time.monotonic())
        return readings[-1]

    limiter = eutils.RateLimiter(rate, clock=clock)
    starts = []
    for _ in range(6):
        limiter.wait()
        starts.append(readings[-1])  # the reading each start was allowed on
    assert all(b - a >= 1.1 / rate - 1e-9 for a, b in itertools.pairwise(starts))


def test_an_interrupted_fetch_resumes_and_a_finished_one_fetches_nothing(tmp_path: Path) -> None:
    days = [date(2022, 5, 1) + timedelta(days=i) for i in range(40)]

    def interrupt_after_three_batches(done: int) -> None:
        if done >= 15:
            raise KeyboardInterrupt

    with serve(fake_pubmed(days)) as fake, client_for(fake) as client:
        with pytest.raises(KeyboardInterrupt):
            fetch_pubmed("x", tmp_path, client, date(2022, 1, 1), date(2022, 12, 31), batch=5,
                         on_progress=interrupt_after_three_batches)  # fmt: skip
        checkpoint = json.loads((tmp_path / CHECKPOINT).read_text())
        assert [(w["fetched"], w["done"]) for w in checkpoint["windows"]] == [(15, False)]
        assert not checkpoint["complete"]
        fake.seen.clear()
        resumed = fetch_pubmed("x", tmp_path, client, batch=5)  # the range is the checkpoint's
        assert [int(s.params["retstart"]) for s in fake.efetches()] == [15, 20, 25, 30, 35]
        assert len(fake.esearches()) == 1
        assert (resumed.records, resumed.total_records, resumed.total_files) == (25, 40, 8)
        fake.seen.clear()
        again = fetch_pubmed("x", tmp_path, client, date(2022, 1, 1), date(2022, 12, 31), batch=5)
    assert fake.seen == []
    assert again.already_complete
    assert (again.records, again.total_records) == (0, 40)
    assert sorted(r.pmid for r in fetched(tmp_path)) == sorted(r.pmid for r in fake.records)
    assert not list(tmp_path.glob(".*.tmp"))


def test_a_window_that_changed_while_interrupted_is_fetched_again(tmp_path: Path) -> None:
    days = [date(2022, 5, 1) + timedelta(days=i) for i in range(10)]

    def interrupt(done: int) -> None:
        if done >= 4:
            raise KeyboardInterrupt

    with serve(fake_pubmed(days)) as fake, client_for(fake) as client:
        with pytest.raises(KeyboardInterrupt):
            fetch_pubmed("x", tmp_path, client, date(2022, 1, 1), date(2022, 12, 31), batch=4, on_progress=interrupt)
        late = fake_pubmed([date(2022, 5, 3)], start=100)
        fake.records += late.records
        fake.published.update(late.published)
        fake.seen.clear()
        done = fetch_pubmed("x", tmp_path, client, batch=4)
    assert [int(s.params["retstart"]) for s in fake.efetches()] == [0, 4, 8]
    assert done.total_records == 11
    assert sorted(r.pmid for r in fetched(tmp_path)) == sorted(r.pmid for r in fake.records)


def test_an_expired_history_is_searched_again(tmp_path: Path) -> None:
    with serve(fake_pubmed(YEAR_2020[:9])) as fake, client_for(fake) as client:
        fake.forget_after_efetch = True
        done = fetch_pubmed("x", tmp_path, client, date(2020, 1, 1), date(2020, 12, 31), batch=3)
    assert done.records == 9
    assert len(fake.esearches()) == 3  # the first search, then one per expired WebEnv
    assert sorted(r.pmid for r in fetched(tmp_path)) == sorted(r.pmid for r in fake.records)


def test_a_folder_holds_one_query_and_range(tmp_path: Path) -> None:
    with serve(fake_pubmed(YEAR_2020[:2])) as fake, client_for(fake) as client:
        fetch_pubmed("x", tmp_path, client, date(2020, 1, 1), date(2020, 12, 31))
        with pytest.raises(ConfigError, match="another query"):
            fetch_pubmed("y", tmp_path, client)
        with pytest.raises(ConfigError, match="from 2020/01/01 to 2020/12/31, not from 2019/01/01 to 2020/12/31"):
            fetch_pubmed("x", tmp_path, client, date(2019, 1, 1))
        with pytest.raises(ConfigError, match="--from 2021/01/01 is after --to 2020/01/01"):
            fetch_pubmed("x", tmp_path / "new", client, date(2021, 1, 1), date(2020, 1, 1))


runner = CliRunner()


def test_cli_fetch_then_ingest_gives_the_citations_served(tmp_path: Path) -> None:
    days = [date(2023, 1, 1) + timedelta(days=9 * i) for i in range(30)]
    out, node = tmp_path / "pubmed", tmp_path / "library"
    with serve(fake_pubmed(days, seed=11)) as fake:
        env = {"CLINRAG_PUBMED__BASE_URL": fake.url, "CLINRAG_PUBMED__WINDOW_CAP": "12"}
        args = ["pubmed", "fetch", "--query", "apixaban AND atrial fibrillation", "--out", str(out),
                "--from", "2023/01/01", "--to", "2023/12/31", "--batch", "7", "--email", "dev@example.org",
                "--api-key", KEY]  # fmt: skip
        result = runner.invoke(app, args, env=env)
        assert result.exit_code == 0, result.output
        assert "fetched 30 records into" in result.output
        assert "holds 30 records" in result.output
        again = runner.invoke(app, args, env=env)
    assert again.exit_code == 0, again.output
    assert "already holds this whole fetch: 30 records" in again.output
    assert "nothing fetched" in again.output
    for path in [*out.iterdir()]:
        assert KEY.encode() not in path.read_bytes()
    assert KEY not in result.output + again.output
    files = sorted(str(path) for path in out.glob(FILE_PATTERN))
    ingested = runner.invoke(app, ["pubmed", "ingest", *files, "--node", str(node)])
    assert ingested.exit_code == 0, ingested.output
    assert "30 new" in ingested.output
    with ChunkStore.open(node / "chunks.sqlite") as store:
        citations = {c.citation.pmid: c.citation for c in store.chunks() if c.citation is not None}
    assert set(citations) == {r.pmid for r in fake.records}
    for record in fake.records:
        citation = citations[record.pmid]
        assert (citation.title, citation.year, citation.month) == (record.title, record.year, record.month)
        assert citation.authors[0] == record.authors[0].display


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--from", "2020/13/01"], "--from '2020/13/01' is not a date written YYYY/MM/DD"),
        (["--to", "31/12/2020"], "--to '31/12/2020' is not a date written YYYY/MM/DD"),
        (["--from", "2021/01/01", "--to", "2020/01/01"], "--from 2021/01/01 is after --to 2020/01/01"),
        (["--batch", "0"], "pubmed.batch"),
    ],
)
def test_cli_bad_options_are_named(tmp_path: Path, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["pubmed", "fetch", "--query", "x", "--out", str(tmp_path), *args])
    assert result.exit_code == 2
    assert message in result.output


def test_cli_http_failure_says_url_and_status(tmp_path: Path) -> None:
    with serve(fake_pubmed(YEAR_2020[:2])) as fake:
        fake.fail = lambda endpoint, _: 502
        env = {"CLINRAG_PUBMED__BASE_URL": fake.url, "CLINRAG_PUBMED__MAX_TRIES": "2",
               "CLINRAG_PUBMED__BACKOFF_SECONDS": "0.01", "CLINRAG_PUBMED__API_KEY": KEY}  # fmt: skip
        result = runner.invoke(app, ["pubmed", "fetch", "--query", "x", "--out", str(tmp_path)], env=env)
    assert result.exit_code == 8
    assert f"{fake.url}/esearch.fcgi?db=pubmed&term=x" in result.output
    assert "HTTP 502" in result.output
    assert KEY not in result.output
    assert "run the same command again to resume" in result.output


def test_network_errors_are_retried_then_named(tmp_path: Path) -> None:
    with serve(fake_pubmed([])) as fake:
        url = fake.url  # the server is gone once the block ends: nothing listens on its port
    config = EutilsConfig(base_url=url, max_tries=3, backoff_seconds=0.01, api_key=KEY)
    with EutilsClient(config) as client, pytest.raises(FetchError) as failed:
        fetch_pubmed("x", tmp_path, client, date(2020, 1, 1), date(2020, 1, 2))
    assert str(failed.value).startswith(f"{url}/esearch.fcgi?db=pubmed&term=x")
    assert "network error (ConnectError) after 3 attempt(s)" in str(failed.value)
    assert client.requests == 3


def test_the_api_key_is_a_secret_setting() -> None:
    loaded = load_settings(environ={"CLINRAG_PUBMED__API_KEY": KEY, "CLINRAG_PUBMED__EMAIL": "dev@example.org"})
    shown = dict(iter_settings(loaded.settings))
    assert KEY not in str(shown["pubmed.api_key"])
    assert EutilsConfig.from_settings(loaded.settings.pubmed).api_key == KEY
    assert loaded.sources["pubmed.api_key"] == "env CLINRAG_PUBMED__API_KEY"


def test_a_long_query_is_posted(tmp_path: Path) -> None:
    query = " OR ".join(f"term{i}[tiab]" for i in range(120))
    with serve(fake_pubmed(YEAR_2020[:2])) as fake, client_for(fake) as client:
        done = fetch_pubmed(query, tmp_path, client, date(2020, 1, 1), date(2020, 12, 31))
    assert done.records == 2
    assert [(s.endpoint, s.method) for s in fake.seen] == [("esearch.fcgi", "POST"), ("efetch.fcgi", "GET")]
    assert fake.seen[0].params["term"] == query
    assert fake.seen[0].params["api_key"] == KEY


def test_a_damaged_checkpoint_is_a_store_error(tmp_path: Path) -> None:
    (tmp_path / CHECKPOINT).write_text('{"format": 1, "query": "x"}')
    with serve(fake_pubmed([])) as fake, client_for(fake) as client, pytest.raises(StoreError, match=CHECKPOINT):
        fetch_pubmed("x", tmp_path, client)
