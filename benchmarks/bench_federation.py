"""Figures for the federation (issue 5), on the three-hospital demo federation stood up in this process (the real
identity providers, each hospital's node app served by uvicorn on 127.0.0.1, real signed tokens):

1. fan-out latency p50/p95 of ``FederationRoot.search`` over the three hospitals (policies on, user A.phys.neur, who
   may search every leaf) vs one centralised index over all their chunks (``Retriever.retrieve``), the same
   questions, hybrid, k = 10; ratio at p50 (target <= 1.3x) and where the time goes (each node's own timings, the
   HTTP exchange, the root's merge), plus a per-stage profile of one node's tree walk called directly;
2. ixn (|federated top-10 ∩ centralised top-10| / 10) with policies off (``PolicyEngine.allow_all``), dense, bm25 and
   hybrid;
3. fan-out latency with 20 simulated organisations on loopback (20 node apps, each serving one of the three
   hospitals' trees under its own organisation name);
4. throughput of 8 concurrent users (the 8 demo users, each with their own token) for 2 minutes: requests/s,
   p50/p95, errors (an exception, or any organisation that timed out, failed, was unreachable or refused the token);
5. end-to-end answer time (``Answerer(FederatedSearcher(root, token))``, extractive) with a fourth organisation that
   accepts connections and never answers, root timeout 2 s: must be <= timeout + 0.5 s, the org flagged TIMEOUT.

Steps 1 and 4 run twice: with every node in this process (uvicorn in threads, as the federation tests do: the
nodes, the root and the clients share one GIL), and with each node its own process (``clinrag node serve --config``,
as the product is deployed), the root and the clients in this process. Either way everything shares the machine's
cores; on a real deployment every node has its own machine. The centralised index reuses the vectors the hospitals'
indexes hold (same model, same chunk texts), so both sides rank identical vectors, and it embeds the question
itself as the root does (no cache across searches).

The cohort: ``data/demo`` is copied and reused when it holds a cohort of ``--patients`` and ``--seed``, otherwise
one is built into a temporary folder (``--work DIR`` keeps it for a rerun).

    python benchmarks/bench_federation.py [--patients 150] [--questions 40] [--throughput-seconds 120] [--work DIR]
                                          [--steps 1,2,3,4,5]
"""

# The steps live in their own modules beside this one: federation_cohort (the cohort, the hospitals' indexes and the
# centralised index), federation_questions, federation_nodes (the federation under test and its roots),
# federation_fan_out and federation_node_profile (step 1), federation_ixn (2), federation_many_orgs (3),
# federation_throughput (4), federation_hung_org (5), federation_stats (percentiles, load) and federation_report
# (the JSON). This script parses the options and runs the steps.

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from federation_cohort import centralised, prepare
from federation_fan_out import fan_out_vs_centralised
from federation_hung_org import hung_org
from federation_ixn import ixn
from federation_many_orgs import many_orgs
from federation_node_profile import http_overhead, node_profile, node_what_if
from federation_nodes import (
    SEARCHER,
    NodeProcesses,
    make_root,
    open_nodes,
    simulated_nodes,
    start,
    start_processes,
)
from federation_questions import build_questions
from federation_report import write_results
from federation_stats import load_average
from federation_throughput import throughput


def main() -> None:
    """Parse the options, run the chosen steps and write their results."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--patients", type=int, default=150)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--repeats", type=int, default=2, help="passes over the questions in step 1")
    parser.add_argument("--orgs", type=int, default=20, help="simulated organisations in step 3")
    parser.add_argument("--throughput-seconds", type=float, default=120)
    parser.add_argument("--work", type=Path, help="keep the cohort and indexes here (reused by the next run)")
    parser.add_argument(
        "--steps", default="1,2,3,4,5", help="steps to run; a subset writes results/federation-partial.json"
    )
    args = parser.parse_args()
    steps = {int(step) for step in args.steps.split(",")}
    began = time.perf_counter()
    results: dict[str, Any] = {"load_average_at_start": load_average()}
    with tempfile.TemporaryDirectory() as temporary:
        out = args.work or Path(temporary)
        out.mkdir(parents=True, exist_ok=True)
        audit = Path(temporary) / "audit"
        settings, results["cohort"] = prepare(out, args.patients, args.seed)
        if (out / "centralised").exists():
            shutil.rmtree(out / "centralised")
        central, results["centralised_index"] = centralised(out, settings)
        questions = build_questions(central, args.questions)
        results["question_list"] = questions
        running = start(out, audit)
        processes: NodeProcesses | None = None
        try:
            token = running.token(SEARCHER)
            orgs = running.serve(running.nodes)
            root = make_root(orgs)
            if steps & {1, 4}:
                processes = start_processes(out, running, audit)
            roots = {"nodes_in_threads": root}
            if processes is not None:
                roots["nodes_as_processes"] = make_root(processes.endpoints)
            if 1 in steps:
                print("1. fan-out vs centralised", flush=True)
                results["fan_out_3_orgs_vs_centralised"] = fan_out_vs_centralised(
                    roots, central, token, questions, args.repeats, processes
                )
                results["node_profile"] = node_profile(running.nodes["A"], SEARCHER, questions)
                results["node_profile"]["what_if_ms"] = node_what_if(running.nodes["A"], SEARCHER, questions)
                results["node_profile"]["http_alone"] = http_overhead(running.nodes["A"], orgs[0].url, token, questions)
            if 2 in steps:
                print("2. ixn", flush=True)
                open_root = make_root(running.serve(open_nodes(running, audit)))
                results["ixn_policies_off"] = ixn(open_root, central, token, questions)
            if 3 in steps:
                print(f"3. {args.orgs} organisations", flush=True)
                simulated = running.serve(simulated_nodes(running, args.orgs, audit))
                results[f"fan_out_{args.orgs}_orgs"] = many_orgs(make_root(simulated, timeout=30), token, questions)
                results[f"fan_out_{args.orgs}_orgs"]["with_default_2s_timeout"] = many_orgs(
                    make_root(simulated), token, questions[:20]
                )
            if 4 in steps:
                results["throughput_8_users"] = {}
                for name, chosen in roots.items():
                    print(f"4. throughput, {name.replace('_', ' ')}", flush=True)
                    results["throughput_8_users"][name] = throughput(
                        chosen,
                        running,
                        questions,
                        args.throughput_seconds,
                        processes if name != "nodes_in_threads" else None,
                    )
            if 5 in steps:
                print("5. hung organisation", flush=True)
                results["hung_org"] = hung_org(orgs, running, questions[:8])
        finally:
            if processes is not None:
                processes.stop()
            running.stop()
            central.close()
    write_results(results, steps, began)


if __name__ == "__main__":
    main()
