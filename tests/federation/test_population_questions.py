"""The twenty trend-style population questions (the issue's five and fifteen more) over the running demo
federation (HTTP, sign-in at each user's hospital), for every demo user: every count shown equals the truth from the
CSVs and gold facts restricted to what the user may see (`clinrag.evaluate.population`); the whole question set is
checked in-process in tests/population/test_questions_exact.py."""

from __future__ import annotations

from clinrag.access.demo import DEMO_USERS
from clinrag.evaluate.population import ask, load_questions
from clinrag.evaluate.population_truth import load_cohort
from clinrag.federation.population_root import FederatedCounter
from clinrag.generate.planner import Planner
from clinrag.settings import FederationSettings

from ..shared.federation import Federation

SETTINGS = FederationSettings(timeout=30)
"""Long enough for a healthy node on a loaded machine (the default 2 s is not)."""


def test_the_twenty_trend_style_questions_are_exact_for_every_user(federation: Federation) -> None:
    hospitals = load_cohort(federation.out / "cohort")
    questions = [q for q in load_questions() if q.set in ("issue", "trend")]
    misses = []
    for actor in DEMO_USERS:
        counter = FederatedCounter(federation.orgs, federation.token(actor.subject), SETTINGS)
        planner = Planner(counter.vocabulary(), detect_persons=False)
        for question in questions:
            grade = ask(question, actor.subject, planner, counter, hospitals)
            if not grade.exact:
                misses.append((actor.subject, question.id, grade.problems[:2]))
    assert misses == []
