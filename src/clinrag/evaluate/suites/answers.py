"""The ``answers`` suite: the answer benchmark's answerable questions (single-patient questions of the retrieval
benchmark with gold chunks, at hospital A of the demo cohort), answered by each generator: answer rate, citation
validity, sentence support, share citing a gold chunk, unsupported sentences removed, latency.

The extractive answerer takes ``per_kind`` questions; a model generator (``local``, ``openai``) the first
``model_per_kind`` of them, as the benchmark did (a model takes seconds per answer).

Example:
    >>> AnswersSuite(per_kind=4).name
    'answers'
"""

from __future__ import annotations

from dataclasses import dataclass

from clinrag.evaluate.answers import first_of_each_kind, summarise
from clinrag.evaluate.suites.answering import answer_all, answer_setup, answerer, kind_metrics
from clinrag.evaluate.suites.base import Progress, Register, SuiteResult, Table
from clinrag.evaluate.suites.context import SuiteContext
from clinrag.evaluate.suites.plots import grouped_bars

SHOWN = ("answer_rate", "citation_validity", "sentence_support", "cites_gold")


@dataclass(frozen=True)
class AnswersSuite:
    """Answerable questions per generator (see the module docstring)."""

    per_kind: int = 30
    model_per_kind: int = 10
    sources: int = 5
    name: str = "answers"

    def run(self, context: SuiteContext, progress: Progress) -> SuiteResult:
        """Answer and score, per generator in ``context.generators``."""
        setup = answer_setup(context, self.per_kind, progress)
        answerable = [q for q in setup.questions if q.kind == "answerable"]
        result = SuiteResult(self.name)
        rows = []
        for generator in context.generators:
            chosen = answerable if generator == "extractive" else first_of_each_kind(answerable, self.model_per_kind)
            with answerer(context, setup.node, generator, self.sources) as answering:
                runs = answer_all(answering, chosen, progress, f"answers: {generator}")
            figures = summarise(runs).get("answerable")
            if not isinstance(figures, dict):
                continue
            metrics, timings = kind_metrics(figures)
            result.add_metrics(f"{generator}/answerable", metrics)
            result.timings.update({f"{generator}/answerable/{k}": v for k, v in timings.items()})
            rows.append(
                (
                    generator,
                    metrics.get("questions"),
                    *(metrics.get(name) for name in SHOWN),
                    metrics.get("unsupported_sentences_removed"),
                )
            )
            result.details[generator] = {"generator": runs[0].answer.generator if runs else generator, **figures}
        result.add_table(
            Table(
                "answerable questions per generator",
                ("generator", "questions", *SHOWN, "unsupported removed"),
                rows,
                "answer rate = share not abstaining; citation validity = citations pointing at a given source; "
                "sentence support = mean share of a draft's sentences supported by their cited sources; cites gold "
                "= share of answers citing a chunk that holds a gold fact. Latency: the timings.",
            )
        )
        result.add_plot(
            grouped_bars(
                "answer-quality",
                "Answerable questions",
                list(SHOWN),
                {str(row[0]): [v if isinstance(v, float | int) else None for v in row[2:6]] for row in rows},
                ylabel="share",
            )
        )
        result.notes.append(
            f"Hospital A of the demo cohort, {len(answerable)} answerable questions (seed {context.seed}), "
            f"{self.sources} sources; model generators answer the first {self.model_per_kind}."
        )
        return result


def register_suite(register: Register) -> None:
    """Register ``answers`` (quick: 4 questions, 2 for a model)."""
    register(
        "answers",
        "answer rate, citation validity, sentence support and gold citations per generator",
        AnswersSuite,
        lambda: AnswersSuite(per_kind=4, model_per_kind=2),
    )
