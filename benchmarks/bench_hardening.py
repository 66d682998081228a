"""Node hardening figures (issue 15), on a real node process (``uvicorn`` serving one hospital's node, as ``clinrag
node serve`` does) with the real identity provider, both for the node code before the hardening (``node.py`` as
it was at ``--before``, loaded from git into its own module, over today's other modules) and for today's:

1. node CPU time per 5 MB ``POST /v1/retrieve`` without a token (the client sends the whole body, reads the reply):
   CPU seconds of the node process (all its threads, from /proc, in nanoseconds) over ``--big`` requests, the status
   and size of the reply (before: 422 echoing the body), and how long the client waited for it;
2. a flood: ``--flooders`` connections (keep-alive, raw sockets) sending small requests without a token as fast as
   they can for ``--seconds``, while a legitimate user (C.research, a verified ID token) asks a question every
   ``1 / --user-rate`` s: the replies per second the node sent the flood, by status, and the user's p50/p95
   latency and errors, against the same user's latency on a quiet node.

    python benchmarks/bench_hardening.py [--before 60e00c8] [--seconds 10] [--big 10] [--work DIR]

Results: benchmarks/results/hardening.json.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import types
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from clinrag.access.identity import TrustedIssuer
from clinrag.access.login import sign_in
from clinrag.demo.build import build_demo
from clinrag.demo.federation_files import DemoPorts, write_federation
from clinrag.demo.idp import start_provider
from clinrag.federation.serving import free_port
from clinrag.settings import IngestSettings, Settings, SynthSettings
from common import write

ORG = "C"
USER = "C.research"
QUESTIONS = [
    "Which patients had a stroke?",
    "What medications was the patient discharged on?",
    "Who had a seizure?",
    "What was the chief complaint?",
    "headache with weakness",
]
REPO = Path(__file__).resolve().parent.parent
SETTINGS = Settings(synth=SynthSettings(workers=2), ingest=IngestSettings(tables=("admissions",)))


# --- the node process -------------------------------------------------------------------------------------------


def serve(config_path: Path, port: int, issuer: str, before: str | None) -> None:
    """Serve node ``ORG`` on ``port``: today's app, or (``before``) the app of ``node.py`` at that git revision."""
    import uvicorn

    from clinrag.federation.config import load_node_config
    from clinrag.index.embed import OnnxMiniLmEmbedder
    from clinrag.settings import RetrieveSettings

    config = dataclasses.replace(load_node_config(config_path), issuers=(TrustedIssuer(issuer, ORG),))
    if before:
        source = subprocess.run(
            ["git", "show", f"{before}:src/clinrag/federation/node.py"],
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        module = types.ModuleType("clinrag_node_before")
        sys.modules[module.__name__] = module
        exec(compile(source, f"node.py@{before}", "exec"), module.__dict__)
    else:
        import clinrag.federation.node as module
    node = module.Node.open(config, OnnxMiniLmEmbedder(threads=2), RetrieveSettings())
    uvicorn.run(module.create_node_app(node), host="127.0.0.1", port=port, log_level="warning")


@dataclasses.dataclass
class NodeProcess:
    process: subprocess.Popen[bytes]
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def cpu_ns(self) -> int:
        """CPU time of every thread of the process so far, in nanoseconds (schedstat)."""
        total = 0
        for task in Path(f"/proc/{self.process.pid}/task").iterdir():
            try:
                total += int((task / "schedstat").read_text().split()[0])
            except (FileNotFoundError, ProcessLookupError):
                continue  # a thread that ended meanwhile
        return total

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()


def start_node(config: Path, issuer: str, before: str | None, logs: Path) -> NodeProcess:
    port = free_port()
    command = [sys.executable, __file__, "--serve", str(config), "--port", str(port), "--issuer", issuer]
    if before:
        command += ["--before", before]
    log = (logs / f"node-{before or 'after'}.log").open("wb")
    process = subprocess.Popen(command, cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
    running = NodeProcess(process, port)
    deadline = time.monotonic() + 120
    while True:
        try:
            if httpx.get(f"{running.url}/v1/health", timeout=1, trust_env=False).status_code == 200:
                return running
        except httpx.TransportError:
            pass
        if time.monotonic() > deadline or process.poll() is not None:
            running.stop()
            raise RuntimeError(f"the node did not start; see {log.name}")
        time.sleep(0.2)


# --- raw HTTP -------------------------------------------------------------------------------------------------------


def _read_reply(sock: socket.socket) -> tuple[int, int]:
    """Read one HTTP reply: (status, bytes); (0, n) when the connection ended first."""
    data = b""
    while b"\r\n\r\n" not in data:
        try:
            piece = sock.recv(65536)
        except (ConnectionResetError, TimeoutError):
            return 0, len(data)
        if not piece:
            return 0, len(data)
        data += piece
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length = next(
        (int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")),
        0,
    )
    while len(body) < length:
        try:
            piece = sock.recv(min(1 << 20, length - len(body)))
        except (ConnectionResetError, TimeoutError):
            break
        if not piece:
            break
        body += piece
    return status, len(head) + 4 + len(body)


def big_request(port: int, size: int) -> dict[str, Any]:
    """POST ``size`` bytes without a token, sending all of it while reading the reply."""
    body = b'{"query": "' + b"x" * (size - 13) + b'"}'
    head = (
        f"POST /v1/retrieve HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {size}\r\n\r\n"
    ).encode()
    sock = socket.create_connection(("127.0.0.1", port))
    sock.settimeout(30)
    sent = [0]

    def send() -> None:
        try:
            view = memoryview(head + body)
            while sent[0] < len(view):
                sent[0] += sock.send(view[sent[0] : sent[0] + 65536])
        except OSError:
            pass  # the node answered and closed: the rest is never sent

    started = time.perf_counter()
    sender = threading.Thread(target=send)
    sender.start()
    status, received = _read_reply(sock)
    waited = time.perf_counter() - started
    sender.join()
    sock.close()
    return {"status": status, "reply_bytes": received, "client_wait_s": waited, "sent_bytes": sent[0]}


def flood(port: int, stop: threading.Event, statuses: Counter[int], lock: threading.Lock) -> None:
    """Small requests without a token, one after another on a kept-alive connection (reconnecting if closed)."""
    body = b'{"query": "Which patients had a stroke?"}'
    request = (
        f"POST /v1/retrieve HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body
    sock: socket.socket | None = None
    while not stop.is_set():
        if sock is None:
            sock = socket.create_connection(("127.0.0.1", port))
            sock.settimeout(10)
        try:
            sock.sendall(request)
            status, _ = _read_reply(sock)
        except OSError:
            status = 0
        with lock:
            statuses[status] += 1
        if status == 0:
            sock.close()
            sock = None
    if sock is not None:
        sock.close()


def user_latencies(url: str, token: str, seconds: float, rate: float) -> dict[str, Any]:
    """The legitimate user's questions, one every ``1 / rate`` s for ``seconds``: latencies (ms) and failures."""
    latencies: list[float] = []
    failures: Counter[str] = Counter()
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(timeout=30, trust_env=False) as client:
        client.post(f"{url}/v1/retrieve", json={"query": QUESTIONS[0], "k": 5}, headers=headers)  # token verified
        ends = time.monotonic() + seconds
        index = 0
        while time.monotonic() < ends:
            due = time.monotonic() + 1 / rate
            started = time.perf_counter()
            try:
                reply = client.post(
                    f"{url}/v1/retrieve", json={"query": QUESTIONS[index % len(QUESTIONS)], "k": 5}, headers=headers
                )
                if reply.status_code == 200:
                    latencies.append((time.perf_counter() - started) * 1000)
                else:
                    failures[str(reply.status_code)] += 1
            except httpx.HTTPError as exc:
                failures[type(exc).__name__] += 1
            index += 1
            time.sleep(max(0.0, due - time.monotonic()))
    ordered = sorted(latencies)
    return {
        "answered": len(latencies),
        "failures": dict(failures),
        "p50_ms": round(statistics.median(ordered), 2) if ordered else None,
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 2) if ordered else None,
    }


# --- the measurements -------------------------------------------------------------------------------------------


def measure(node: NodeProcess, token: str, args: argparse.Namespace) -> dict[str, Any]:
    size = 5_000_000
    big_request(node.port, size)  # warm
    cpu = node.cpu_ns()
    replies = [big_request(node.port, size) for _ in range(args.big)]
    big_cpu = (node.cpu_ns() - cpu) / 1e9
    quiet = user_latencies(node.url, token, min(args.seconds, 5.0), args.user_rate)
    statuses: Counter[int] = Counter()
    lock = threading.Lock()
    stop = threading.Event()
    flooders = [
        threading.Thread(target=flood, args=(node.port, stop, statuses, lock), daemon=True)
        for _ in range(args.flooders)
    ]
    cpu = node.cpu_ns()
    started = time.perf_counter()
    for thread in flooders:
        thread.start()
    flooded = user_latencies(node.url, token, args.seconds, args.user_rate)
    stop.set()
    for thread in flooders:
        thread.join(timeout=15)
    seconds = time.perf_counter() - started
    flood_cpu = (node.cpu_ns() - cpu) / 1e9
    replied = sum(count for status, count in statuses.items() if status)
    return {
        "big_unauthenticated": {
            "requests": args.big,
            "body_bytes": size,
            "node_cpu_ms_per_request": round(big_cpu / args.big * 1000, 2),
            "statuses": dict(Counter(reply["status"] for reply in replies)),
            "reply_bytes": statistics.median(reply["reply_bytes"] for reply in replies),
            "client_wait_ms_median": round(statistics.median(reply["client_wait_s"] for reply in replies) * 1000, 2),
            "client_sent_bytes_median": statistics.median(reply["sent_bytes"] for reply in replies),
        },
        "flood": {
            "seconds": round(seconds, 2),
            "flooder_connections": args.flooders,
            "replies_per_second": round(replied / seconds, 1),
            "statuses": {str(status): count for status, count in sorted(statuses.items())},
            "node_cpu_seconds": round(flood_cpu, 2),
        },
        "user_quiet": quiet,
        "user_during_flood": flooded,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", default="60e00c8", help="git revision of node.py before the hardening")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of the flood")
    parser.add_argument("--big", type=int, default=10, help="5 MB requests measured")
    parser.add_argument("--flooders", type=int, default=4, help="connections flooding the node")
    parser.add_argument("--user-rate", type=float, default=10.0, help="the legitimate user's questions per second")
    parser.add_argument("--work", type=Path, default=None, help="keep the cohort here for a rerun")
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--issuer", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.port, args.issuer, args.before if "--before" in sys.argv else None)
        return
    out = args.work or Path(tempfile.mkdtemp(prefix="bench-hardening-"))
    build_demo(out, patients=40, seed=11, settings=SETTINGS)
    files = write_federation(out, DemoPorts())
    provider = start_provider(ORG)
    logs = out / "logs"
    logs.mkdir(exist_ok=True)
    results: dict[str, Any] = {
        "before_revision": subprocess.run(
            ["git", "rev-parse", args.before], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip(),
        "after_revision": subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True
        ).stdout.strip(),
        "setup": {
            "node": ORG,
            "patients": 40,
            "user": USER,
            "user_rate_per_s": args.user_rate,
            "load_avg_at_start": os.getloadavg(),
        },
    }
    try:
        token = sign_in(provider.issuer, USER).id_token
        for label, before in (("before", args.before), ("after", None)):
            # Each run has its own audit log (the config's, renamed), so the two never share a hash chain.
            config = files.nodes[ORG].with_name(f"{ORG}.{label}.toml")
            text = files.nodes[ORG].read_text()
            config.write_text(text.replace(f"{ORG}.jsonl", f"{ORG}.{label}.jsonl"))
            node = start_node(config, provider.issuer, before, logs)
            try:
                results[label] = measure(node, token, args)
            finally:
                node.stop()
            print(label, json.dumps(results[label], indent=2), flush=True)
    finally:
        provider.stop()
    results["setup"]["load_avg_at_end"] = os.getloadavg()
    write("hardening", results)


if __name__ == "__main__":
    main()
