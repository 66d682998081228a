"""Step 5 of ``bench_federation.py``: end-to-end answer time (``Answerer(FederatedSearcher(root, token))``,
extractive) with a fourth organisation that accepts connections and never answers, root timeout 2 s: must be
<= timeout + 0.5 s, the organisation flagged TIMEOUT."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import numpy as np

from clinrag.federation.root import FederatedSearcher, OrgEndpoint, OrgStatus
from clinrag.generate.answer import Answerer
from clinrag.settings import AnswerSettings
from federation_cohort import ORGS
from federation_nodes import SEARCHER, Running, make_root


class _Hung:
    """A loopback server that accepts connections and never answers."""

    def __init__(self) -> None:
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(64)
        self.port = self._socket.getsockname()[1]
        self._held: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return
            self._held.append(connection)

    def stop(self) -> None:
        """Close the listening socket and every connection it accepted."""
        self._socket.close()
        for connection in self._held:
            connection.close()


def hung_org(orgs: list[OrgEndpoint], running: Running, questions: list[str]) -> dict[str, Any]:
    """Each question answered through a root over ``orgs`` plus the hung organisation H: answer times against the
    limit, how often H was flagged TIMEOUT and the hospitals all answered, and the abstentions."""
    hung = _Hung()
    try:
        endpoints = [*orgs, OrgEndpoint(org="H", name="Hung hospital", url=f"http://127.0.0.1:{hung.port}")]
        root = make_root(endpoints)
        searcher = FederatedSearcher(root, running.token(SEARCHER))
        answerer = Answerer(searcher, AnswerSettings())
        times, flagged, answered, abstained = [], 0, 0, 0
        for question in questions:
            started = time.perf_counter()
            answer = answerer.answer(question)
            times.append(time.perf_counter() - started)
            assert searcher.last is not None
            statuses = {org.org.org: org.status for org in searcher.last.orgs}
            flagged += statuses["H"] == OrgStatus.TIMEOUT
            answered += all(statuses[org] == OrgStatus.ANSWERED for org in ORGS)
            abstained += answer.abstained
        limit = root.federation.timeout + 0.5
        return {
            "root_timeout_seconds": root.federation.timeout,
            "questions": len(questions),
            "generator": "extractive",
            "answer_seconds": {
                "p50": round(float(np.percentile(times, 50)), 3),
                "max": round(max(times), 3),
                "min": round(min(times), 3),
            },
            "limit_seconds": limit,
            "within_limit": max(times) <= limit,
            "hung_org_flagged_timeout": flagged,
            "other_orgs_answered": answered,
            "abstentions": abstained,
        }
    finally:
        hung.stop()
