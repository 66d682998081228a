"""Web app figures, measured on the demo federation served exactly as `make demo` serves it (three identity
providers, three nodes and the web app, each its own process on 127.0.0.1):

1. time to first streamed token in the browser (headless Debian Chromium via Playwright), from the click on Ask
   to the first answer text on screen (the draft, or the verified answer when no draft comes first), and to the
   verified answer, for the extractive and the local (llama.cpp) answerer;
2. page weight of the chat page (HTML, stylesheet, script; nothing else is loaded);
3. 8 concurrent signed-in users asking for 2 minutes over HTTP (ask, then read the event stream to its end):
   server errors (HTTP 5xx, failed answers, broken streams) must be zero; also answers/s and latency.

The baseline of step 1 is the same question through the OpenAI-compatible path's service in-process (no browser),
measured in the same run.

Usage: python benchmarks/bench_web.py [--patients 100] [--work /tmp/webbench] [--seconds 120] [--users 8]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from clinrag.access.demo import DEMO_USERS
from clinrag.app.chat_service import service_from_settings
from clinrag.app.cli import main as clinrag_main
from clinrag.demo.build import build_demo
from clinrag.demo.federation_files import DemoPorts, write_federation
from clinrag.demo.serve import start_federation
from clinrag.demo.supervisor import Supervisor
from clinrag.demo.web_testing import CHROMIUM, CHROMIUM_FLAGS, sign_in_over_http
from clinrag.settings import IngestSettings, Settings
from common import machine, write

QUESTIONS = [
    "Who was treated for a stroke?",
    "Which patients had atrial fibrillation?",
    "What was the patient discharged on after the heart failure admission?",
    "Who had a fall at home?",
    "Which patients were treated for pneumonia?",
    "Who had a myocardial infarction?",
]
FIRST_TEXT = """() => new Promise((done) => {
  const start = performance.now(); let first = null;
  const check = () => {
    const turn = [...document.querySelectorAll('article.turn')].pop();
    if (!turn) return;
    const draft = turn.querySelector('.draft');
    const shown = (draft && draft.textContent.trim()) || turn.querySelector('.answer, .abstention');
    if (shown && first === null) first = performance.now() - start;
    if (turn.querySelector(".result[data-status='done'], .result[data-status='failed']")) {
      observer.disconnect(); done({first_ms: first ?? performance.now() - start, done_ms: performance.now() - start});
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
  document.querySelector('#send').click();
})"""


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))]


def summary(values: list[float]) -> dict[str, float]:
    """p50, p95, mean and count of a list of times (ms)."""
    return {
        "p50": round(percentile(values, 0.5), 1),
        "p95": round(percentile(values, 0.95), 1),
        "mean": round(statistics.fmean(values), 1),
        "n": len(values),
    }


def browser_figures(url: str, models: list[str], rounds: int) -> dict[str, Any]:
    """Steps 1 and 2 in headless Chromium."""
    from playwright.sync_api import sync_playwright

    figures: dict[str, Any] = {}
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        page = browser.new_page()
        page.set_default_timeout(300_000)
        sizes: dict[str, int] = {}
        unread: list[str] = []

        def record(response: Any) -> None:
            if response.status < 300 or response.status >= 400:  # a redirect has no body
                try:
                    sizes[response.url] = len(response.body())
                except Exception:  # a page navigated away from before its body was read: listed, not weighed
                    unread.append(response.url)

        page.on("response", record)
        page.goto(url)
        page.get_by_role("button", name=re.compile("Hospital A")).click()
        page.get_by_role("button", name="Sign in as A.phys", exact=True).click()
        page.wait_for_url(re.compile(r"/$"))
        sizes.clear()
        page.reload()
        page.wait_for_load_state("networkidle")
        figures["page_weight"] = {
            "bytes": sum(sizes.values()),
            "requests": len(sizes),
            "files": {re.sub(r"^https?://[^/]+", "", name): size for name, size in sizes.items()},
            "unread_responses": len(unread),
        }
        for model in models:
            page.goto(url)
            page.locator("details.options summary").click()
            page.select_option("select[name=model]", model)
            times = []
            for index in range(rounds):
                page.fill("#question", QUESTIONS[index % len(QUESTIONS)])
                times.append(page.evaluate(FIRST_TEXT))
            first = [t["first_ms"] for t in times]
            done = [t["done_ms"] for t in times]
            figures[model] = {"first_text_ms": summary(first), "verified_answer_ms": summary(done)}
            print(model, figures[model], flush=True)
        browser.close()
    return figures


def load_figures(url: str, users: int, seconds: float) -> dict[str, Any]:
    """Step 3: ``users`` signed-in users asking without pause for ``seconds``."""
    subjects = [user.subject for user in DEMO_USERS][:users]
    latencies: list[float] = []
    errors: list[str] = []
    flags: dict[str, int] = {}
    answers = 0
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def one_user(subject: str, offset: int) -> None:
        nonlocal answers
        with httpx.Client(base_url=url, timeout=60) as client:
            csrf = sign_in_over_http(client, subject)
            index = offset
            while time.monotonic() < deadline:
                question = QUESTIONS[index % len(QUESTIONS)]
                index += 1
                started = time.perf_counter()
                try:
                    reply = client.post(
                        "/ask",
                        data={"question": question, "csrf": csrf, "model": "clinrag-extractive"},
                        headers={"Accept": "application/json"},
                    )
                    if reply.status_code >= 500:
                        raise RuntimeError(f"/ask HTTP {reply.status_code}")
                    with client.stream("GET", reply.json()["events"]) as stream:
                        if stream.status_code >= 500:
                            raise RuntimeError(f"events HTTP {stream.status_code}")
                        text = "\n".join(stream.iter_lines())
                    if "event: answer" not in text:
                        raise RuntimeError("the stream ended without an answer")
                    statuses = re.findall(r'data-status=\\"(\w+)\\"', text)
                except Exception as error:  # every failure counts; the benchmark goes on
                    with lock:
                        errors.append(f"{subject}: {type(error).__name__}: {error}"[:200])
                    continue
                with lock:
                    answers += 1
                    latencies.append((time.perf_counter() - started) * 1000)
                    for status in statuses:
                        if status in ("timeout", "unreachable", "failed"):
                            flags[status] = flags.get(status, 0) + 1

    threads = [threading.Thread(target=one_user, args=(subject, n)) for n, subject in enumerate(subjects)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    return {
        "users": len(subjects),
        "seconds": round(elapsed, 1),
        "answers": answers,
        "answers_per_s": round(answers / elapsed, 2),
        "latency_ms": summary(latencies) if latencies else {},
        "server_errors": len(errors),
        "error_samples": errors[:5],
        "organisation_flags": flags,
    }


def in_process_baseline(settings: Settings, federation_file: Path, rounds: int) -> dict[str, Any]:
    """The same questions answered by the service in-process for a signed-in A.phys (no browser, no web app)."""
    from clinrag.access.login import sign_in

    service = service_from_settings(settings, federation_file)
    issuer = next(org.issuer for org in service.root.orgs if org.org == "A")
    caller = service.authenticate(sign_in(issuer, "A.phys").id_token)
    asyncio.run(service.complete(service.prepare(QUESTIONS[0], "clinrag-extractive", caller)))  # warm-up
    times = []
    for index in range(rounds):
        job = service.prepare(QUESTIONS[index % len(QUESTIONS)], "clinrag-extractive", caller)
        started = time.perf_counter()
        asyncio.run(service.complete(job))
        times.append((time.perf_counter() - started) * 1000)
    service.verifier.close()
    return {"clinrag-extractive": {"verified_answer_ms": summary(times)}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--patients", type=int, default=100)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--work", type=Path, default=Path("/tmp/clinrag-webbench"))
    parser.add_argument("--rounds", type=int, default=12, help="questions per answerer in the browser")
    parser.add_argument("--local-rounds", type=int, default=4, help="questions for the local model")
    parser.add_argument("--users", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--steps", default="browser,local,load", help="which of browser, local, load to run")
    args = parser.parse_args()
    steps = set(args.steps.split(","))

    settings = Settings(ingest=IngestSettings(tables=("admissions",)))
    started = time.monotonic()
    build_demo(args.work, patients=args.patients, seed=args.seed, settings=settings)
    print(f"demo built in {time.monotonic() - started:.0f} s", flush=True)
    ports = DemoPorts(idp=19401, node=18101, web=18300)
    files = write_federation(args.work, ports)
    results: dict[str, Any] = {
        "machine": machine(),
        "load_average_before": os.getloadavg(),
        "patients": args.patients,
    }
    env = {"CLINRAG_ANSWER__GENERATOR": "local", "CLINRAG_INGEST__TABLES": '["admissions"]'}
    with Supervisor(clinrag_main, args.work / "logs", env=env) as servers:
        start_federation(servers, files, ports, None, web=args.work / "web")
        print("federation and web app up", flush=True)
        baseline_settings = settings.model_copy(
            update={"federation": settings.federation.model_copy(update={"file": files.federation})}
        )
        results["browser"] = {}
        if "browser" in steps:
            results["baseline_in_process"] = in_process_baseline(baseline_settings, files.federation, args.rounds)
            results["browser"] = browser_figures(ports.web_url, ["clinrag-extractive"], args.rounds)
        if "local" in steps and args.local_rounds:
            results["browser"].update(browser_figures(ports.web_url, ["clinrag-local"], args.local_rounds))
        print("browser figures done", flush=True)
        if "load" in steps:
            results["load"] = load_figures(ports.web_url, args.users, args.seconds)
            print(results["load"], flush=True)
    results["load_average_after"] = os.getloadavg()
    path = write("web" if steps == {"browser", "local", "load"} else "web-partial", results)
    print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
