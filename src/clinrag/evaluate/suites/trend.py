"""The ``trend`` suite: the federated-RAG thesis's evaluation on the demo federation, run for real — identity
providers, hospital and library nodes served on 127.0.0.1, the root fanning out and merging one global top-k.

Questions: the retrieval benchmark's single-note, single-patient and multi-patient questions, with gold chunks from
the cohort's gold facts (`clinrag.evaluate.retrieval_questions.build_questions`), the answer benchmark's
negative-rejection and noise questions (`clinrag.evaluate.answers.rejection_questions`), and the population questions
(`clinrag.evaluate.population`). Scenarios: **centralised** (one index of every hospital's chunks, no policies: the
baseline), **federated** (the nodes with policies off, through the root) and each demo user (the nodes with the
demo's Cedar policies, the user's own ID token). Metrics: `clinrag.evaluate.trend`; see docs/evaluation.md.

Answers are the extractive generator's, whose faithfulness is 1 by construction (its sentences are the cited
sources' own). Each model generator among ``context.generators`` (``--generators extractive,local``) also answers a
subset in every scenario — ``model_questions`` retrieval questions spread over the kinds and ``model_rejection``
negative and noise questions each — scored the same way against the baseline's answers of that generator
(``SCENARIO/GENERATOR/...`` metrics and a table per generator).

The running federation comes from ``context.federation`` (``clinrag eval`` starts the demo's in-process:
`clinrag.demo.local_federation`; the tests hand in theirs).

Example:
    >>> TrendSuite(per_kind=3, users=("A.phys",)).scenarios()
    ['centralised', 'federated', 'A.phys']
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from clinrag.access.demo import DEMO_USERS
from clinrag.evaluate.answers import AnswerQuestion, rejection_questions
from clinrag.evaluate.population import Grade, ask, load_questions
from clinrag.evaluate.population import Question as PopulationQuestion
from clinrag.evaluate.population_truth import EVERYONE, Hospital, load_cohort
from clinrag.evaluate.retrieval_gold import KINDS, ChunkLookup, Cohort, Question
from clinrag.evaluate.retrieval_metrics import ndcg_at_k, recall_at_k
from clinrag.evaluate.retrieval_questions import build_questions
from clinrag.evaluate.suites.base import Number, Progress, Register, SuiteResult, Table
from clinrag.evaluate.suites.context import RunningFederation, SuiteContext
from clinrag.evaluate.suites.plots import fit_line, grouped_bars, heatmap, scatter
from clinrag.evaluate.trend import (
    AnswerOverlap,
    Relevance,
    access_grid,
    answer_words,
    central_key,
    corpus_bleu,
    coverage,
    ixn,
    mean,
    prepare_central,
)
from clinrag.federation.population_root import FederatedCounter
from clinrag.federation.root import FederatedSearcher, FederationRoot
from clinrag.generate.answer import Answerer, Searcher
from clinrag.generate.planner import Planner
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.retrieve.hybrid import Retriever, TimedEmbedder
from clinrag.settings import AnswerSettings, FederationSettings
from clinrag.types import Answer, Chunk

BASELINE: Final = "centralised"
FEDERATED: Final = "federated"
K: Final = 10
OPEN_TOKEN_USER: Final = "A.phys"
"""Whose token the nodes without policies verify (any demo user: every search and document is permitted)."""
SHORT: Final = {"single_patient": "SP", "single_note": "SN", "multi_patient": "MP"}
COLUMNS: Final = (
    ("ixn", "ixn"),
    ("recall_at_10", "R@10"),
    ("ndcg_at_10", "nDCG@10"),
    ("rouge1", "ROUGE-1"),
    ("rougeL", "ROUGE-L"),
    ("bleu", "BLEU"),
    ("faithfulness", "faithful"),
    ("answer_relevance", "ans. rel."),
    ("context_relevance", "ctx. rel."),
    ("answer_rate", "answered"),
    ("negative_rejection", "neg. rej."),
    ("noise_robustness", "noise rob."),
    ("integration_patients", "patients"),
    ("integration_hospitals", "hospitals"),
    ("population_exactness", "population"),
)
MODEL_METRICS: Final = frozenset(
    {
        "rouge1",
        "rougeL",
        "bleu",
        "faithfulness",
        "answer_relevance",
        "answer_rate",
        "negative_rejection",
        "noise_robustness",
    }
)
"""What a model's answers to the subset of questions are measured by."""
MODEL_COLUMNS: Final = tuple((name, label) for name, label in COLUMNS if name in MODEL_METRICS)


@dataclass
class _Asked:
    """One scenario's retrieval and answer of one question."""

    ranked: tuple[str, ...]
    passages: tuple[str, ...]
    answer: Answer
    seconds: float


@dataclass
class _Scenario:
    name: str
    searcher: Searcher
    token: str | None = None
    population_user: str | None = None
    asked: dict[str, _Asked] = field(default_factory=dict)
    rejected: dict[str, bool] = field(default_factory=dict)
    grades: list[Grade] = field(default_factory=list)
    models: dict[str, dict[str, Answer]] = field(default_factory=dict)
    """A model generator's answers (generator → question id → answer) to the subset it answers."""
    models_rejected: dict[str, dict[str, bool]] = field(default_factory=dict)


@dataclass(frozen=True)
class TrendSuite:
    """``per_kind`` questions of each retrieval kind, ``rejection`` negative and noise questions each, the first
    ``population`` population questions (None: all), for the centralised and federated baselines and ``users``
    (None: the eight demo users). A model generator of the context answers ``model_questions`` of the retrieval
    questions (spread over the kinds) and ``model_rejection`` negative and noise questions each."""

    per_kind: int = 25
    rejection: int = 10
    population: int | None = None
    users: tuple[str, ...] | None = None
    model_questions: int = 9
    model_rejection: int = 2
    name: str = "trend"

    def scenarios(self) -> list[str]:
        """The scenarios, baseline first."""
        users = [u.subject for u in DEMO_USERS if self.users is None or u.subject in self.users]
        return [BASELINE, FEDERATED, *users]

    def run(self, context: SuiteContext, progress: Progress) -> SuiteResult:
        """Build (or reuse) the centralised node, start the federation, ask everything in every scenario, score."""
        context.require_nodes()
        federation = context.start_federation()  # started below; a context that cannot start one fails here
        cohort_dir = context.require_cohort()
        embedder = context.embedder()
        progress.stage("trend: centralised node", None)
        central = prepare_central(
            cohort_dir / "hospitals",
            context.cache("trend", context.cohort_key(), central_key(context.settings, embedder)),
            context.settings,
            embedder,
        )
        with ChunkStore.open(central.folder / "chunks.sqlite") as store:
            chunks = {chunk.chunk_id: chunk for chunk in store.chunks()}
        lookup = ChunkLookup(chunks.values())
        questions = build_questions(Cohort.load(cohort_dir), lookup, context.seed, self.per_kind, K)
        qrels = lookup.qrels(questions)
        names = sorted({c.patient_name for c in chunks.values() if c.patient_name})
        corpus = "\n".join(c.text for c in chunks.values())
        rejections = rejection_questions(names, corpus, context.seed, self.rejection)
        population = load_questions()[: self.population]
        hospitals = load_cohort(cohort_dir)
        node_ids = _node_chunk_ids(context)
        shared = round(len(node_ids & chunks.keys()) / len(chunks), 4) if chunks else 0.0

        answer_settings = context.settings.answer.model_copy(update={"generator": "extractive"})
        models = [g for g in context.generators if g != "extractive"]
        for model in models:
            context.generator(model)  # a generator that cannot load fails before the federation starts
        model_subset = spread(questions, self.model_questions)
        model_rejections = _rejection_subset(rejections, self.model_rejection)
        timed = TimedEmbedder(embedder)
        central_retriever = Retriever.open(central.folder, context.settings.retrieve, embedder)
        scenarios: list[_Scenario] = []
        roots: list[FederationRoot] = []
        try:
            with federation as running:
                scenarios = self._scenarios(context, running, central_retriever, timed, roots)
                for scenario in scenarios:
                    self._ask(scenario, questions, rejections, answer_settings, context, progress)
                    for model in models:
                        _ask_model(scenario, model, model_subset, model_rejections, context, progress)
                    if scenario.population_user is not None and population and scenario.token is not None:
                        progress.stage(f"trend: {scenario.name} population questions", len(population))
                        scenario.grades = _population(scenario, running, population, hospitals, progress)
        finally:
            for root in roots:
                root.close()
            central_retriever.close()
        progress.stage("trend: scoring", None)
        relevance = Relevance(embedder)
        result = _score(scenarios, questions, qrels, chunks, relevance, self.name)
        for model in models:
            _score_model(result, scenarios, model, model_subset, relevance)
        result.metrics["questions"] = len(questions)
        result.metrics["rejection_questions"] = len(rejections)
        result.metrics["population_questions"] = len(population)
        result.metrics["central/chunks"] = central.chunks
        result.metrics["central/chunks_in_nodes"] = shared
        for kind in KINDS:
            result.metrics[f"questions/{kind}"] = sum(q.kind == kind for q in questions)
        users = [u for u in DEMO_USERS if self.users is None or u.subject in self.users]
        columns, grid = access_grid(context.nodes, users)
        result.add_plot(
            heatmap(
                "access",
                "Share of each department's chunks each user may retrieve",
                [u.subject for u in users],
                columns,
                grid,
                caption="From the demo's Cedar policies: 0 where searching the hospital or department is denied, "
                "else the share of its chunks (notes and rows) the user may retrieve.",
            )
        )
        for user, row in zip(users, grid, strict=True):
            result.add_metrics(f"access/{user.subject}", dict(zip(columns, row, strict=True)))
        files = context.files(self.name)
        if files is not None:
            _write_questions(files / "questions.jsonl", questions)
        counts = ", ".join(f"{sum(q.kind == k for q in questions)} {k}" for k in KINDS)
        result.notes += [
            f"{len(questions)} retrieval questions ({counts}"
            f"; seed {context.seed}), {len(rejections)} negative-rejection and noise questions, {len(population)} "
            f"population questions; top-{K} retrieval, {answer_settings.sources} sources per answer, extractive "
            "generator (its faithfulness is 1 by construction: its sentences are the cited sources' own).",
            "Baseline of ixn, ROUGE and BLEU: the centralised scenario (one index over every hospital's chunks, no "
            "policies). Recall and nDCG count every gold chunk, also those a user's policies withhold.",
            *(
                f"The {model} generator answered {len(model_subset)} of the retrieval questions and "
                f"{len(model_rejections)} negative and noise questions in every scenario (tables 'per scenario, "
                f"{model}'; metrics SCENARIO/{model}/...)."
                for model in models
            ),
            f"The centralised node holds {central.chunks} chunks; {shared:.2%} of them are chunks of the nodes "
            "(same ids: ixn compares like with like).",
        ]
        return result

    def _scenarios(
        self,
        context: SuiteContext,
        running: RunningFederation,
        central: Retriever,
        timed: TimedEmbedder,
        roots: list[FederationRoot],
    ) -> list[_Scenario]:
        federation = FederationSettings(timeout=120)
        retrieve = context.settings.retrieve
        embedder_id = context.embedder().id
        open_root = FederationRoot(running.orgs(False), retrieve, embedder_id, federation, embed=timed)
        root = FederationRoot(running.orgs(True), retrieve, embedder_id, federation, embed=timed)
        roots += [open_root, root]
        open_token = running.token(OPEN_TOKEN_USER)
        found = [
            _Scenario(BASELINE, central),
            _Scenario(FEDERATED, FederatedSearcher(open_root, open_token), open_token, EVERYONE),
        ]
        for subject in self.scenarios()[2:]:
            token = running.token(subject)
            found.append(_Scenario(subject, FederatedSearcher(root, token), token, subject))
        return found

    def _ask(
        self,
        scenario: _Scenario,
        questions: Sequence[Question],
        rejections: Sequence[AnswerQuestion],
        answer_settings: AnswerSettings,
        context: SuiteContext,
        progress: Progress,
    ) -> None:
        answerer = Answerer(scenario.searcher, answer_settings, None, context.embedder())
        progress.stage(f"trend: {scenario.name}", len(questions) + len(rejections))
        for done, question in enumerate(questions, start=1):
            started = time.perf_counter()
            retrieval = scenario.searcher.retrieve(question.text, k=K)
            answer = answerer.answer(question.text)
            scenario.asked[question.qid] = _Asked(
                tuple(hit.chunk.chunk_id for hit in retrieval.hits),
                tuple(hit.chunk.text for hit in retrieval.hits),
                answer,
                time.perf_counter() - started,
            )
            progress(done)
        for done, rejection in enumerate(rejections, start=len(questions) + 1):
            scenario.rejected[f"{rejection.kind}-{done:03d}"] = answerer.answer(rejection.text).abstained
            progress(done)


def spread(questions: Sequence[Question], n: int) -> list[Question]:
    """The first ``n`` of ``questions`` taken in turn from each kind (single patient, single note, multi patient),
    in their order: what a model generator answers.

    Example:
        >>> asked = [Question(f"{k}{i}", k, "diagnosis", "?", ()) for k in KINDS for i in range(3)]
        >>> [q.qid for q in spread(asked, 4)]
        ['single_patient0', 'single_note0', 'multi_patient0', 'single_patient1']
    """
    by_kind = [[q for q in questions if q.kind == kind] for kind in KINDS]
    chosen: list[Question] = []
    for turn in range(max((len(group) for group in by_kind), default=0)):
        chosen += [group[turn] for group in by_kind if turn < len(group)]
    return chosen[: max(n, 0)]


def _rejection_subset(rejections: Sequence[AnswerQuestion], each: int) -> list[tuple[str, AnswerQuestion]]:
    """The first ``each`` negative and noise questions, keyed ``KIND-NNN`` (as the scoring reads them)."""
    keyed = [(f"{q.kind}-{n:03d}", q) for n, q in enumerate(rejections, start=1)]
    return [
        item for kind in ("negative", "noise") for item in [(k, q) for k, q in keyed if q.kind == kind][: max(each, 0)]
    ]


def _ask_model(
    scenario: _Scenario,
    model: str,
    questions: Sequence[Question],
    rejections: Sequence[tuple[str, AnswerQuestion]],
    context: SuiteContext,
    progress: Progress,
) -> None:
    """``model``'s answers in ``scenario`` to ``questions`` and whether it abstains on ``rejections``."""
    settings = context.settings.answer.model_copy(update={"generator": model})
    answerer = Answerer(scenario.searcher, settings, context.generator(model), context.embedder())
    progress.stage(f"trend: {scenario.name}, {model}", len(questions) + len(rejections))
    answers = scenario.models.setdefault(model, {})
    rejected = scenario.models_rejected.setdefault(model, {})
    for done, question in enumerate(questions, start=1):
        answers[question.qid] = answerer.answer(question.text)
        progress(done)
    for done, (key, rejection) in enumerate(rejections, start=len(questions) + 1):
        rejected[key] = answerer.answer(rejection.text).abstained
        progress(done)


def _answer_figures(
    question: Question,
    answer: Answer,
    base: Answer,
    relevance: Relevance,
    overlap: AnswerOverlap,
    answers: list[str],
    references: list[str],
) -> dict[str, float | None]:
    """One answer's faithfulness, answer relevance, whether it answered and, when the baseline's ``base`` has
    words, its ROUGE against them (its words and the baseline's then join ``answers`` and ``references`` for BLEU)."""
    words, base_words = answer_words(answer), answer_words(base)
    figures: dict[str, float | None] = {
        "faithfulness": None if answer.abstained else answer.support,
        "answer_relevance": relevance.answer_relevance(question.text, words),
        "answered": 0.0 if answer.abstained else 1.0,
    }
    if base_words:
        figures.update(overlap.rouge(words, base_words))
        answers.append(words)
        references.append(base_words)
    return figures


def _rejection_rates(rejected: Mapping[str, bool]) -> dict[str, Number | None]:
    """Share abstaining of the negative (``negative_rejection``) and noise (``noise_robustness``) questions, keyed
    ``KIND-NNN``."""
    return {
        label: mean(float(v) for k, v in rejected.items() if k.startswith(kind))
        for kind, label in (("negative", "negative_rejection"), ("noise", "noise_robustness"))
    }


def _score_model(
    result: SuiteResult,
    scenarios: Sequence[_Scenario],
    model: str,
    questions: Sequence[Question],
    relevance: Relevance,
) -> None:
    """``model``'s figures per scenario (``SCENARIO/MODEL/...``) and their table: ROUGE and BLEU against the
    baseline's answers of the same generator, faithfulness, answer relevance, answer rate, rejection."""
    overlap = AnswerOverlap()
    baseline = scenarios[0].models[model]
    rows = []
    for scenario in scenarios:
        mine = scenario.models[model]
        per_question: list[dict[str, float | None]] = []
        answers: list[str] = []
        references: list[str] = []
        for question in questions:
            per_question.append(
                _answer_figures(
                    question, mine[question.qid], baseline[question.qid], relevance, overlap, answers, references
                )
            )
        metrics: dict[str, Number | None] = {
            name: mean(f.get(name) for f in per_question)
            for name in ("rouge1", "rougeL", "faithfulness", "answer_relevance")
        }
        metrics["bleu"] = corpus_bleu(answers, references)
        metrics["answer_rate"] = mean(f["answered"] for f in per_question)
        metrics.update(_rejection_rates(scenario.models_rejected[model]))
        metrics["questions"] = len(questions)
        result.add_metrics(f"{scenario.name}/{model}", metrics)
        rows.append((scenario.name, *(metrics.get(name) for name, _ in MODEL_COLUMNS)))
    result.add_table(
        Table(
            f"per scenario, {model}",
            ("scenario", *(label for _, label in MODEL_COLUMNS)),
            rows,
            f"The {model} generator on {len(questions)} of the retrieval questions (spread over the kinds): ROUGE and "
            f"BLEU against the centralised scenario's {model} answers; faithful: share of the draft's sentences "
            "supported by their cited sources (a model's can be unsupported); neg. rej. and noise rob.: share "
            "abstaining.",
        )
    )


def _node_chunk_ids(context: SuiteContext) -> set[str]:
    ids: set[str] = set()
    for store_path in sorted(context.nodes.glob("*/chunks.sqlite")):
        with ChunkStore.open(store_path) as store:
            ids |= store.chunk_ids()
    return ids


def _population(
    scenario: _Scenario,
    running: RunningFederation,
    questions: Sequence[PopulationQuestion],
    hospitals: Mapping[str, Hospital],
    progress: Progress,
) -> list[Grade]:
    assert scenario.token is not None
    assert scenario.population_user is not None
    orgs = running.orgs(scenario.name != FEDERATED)
    counter = FederatedCounter(orgs, scenario.token, FederationSettings(timeout=120))
    planner = Planner(counter.vocabulary(), detect_persons=False)
    grades = []
    for done, question in enumerate(questions, start=1):
        grades.append(ask(question, scenario.population_user, planner, counter, hospitals, scenario.name))
        progress(done)
    return grades


def _score(
    scenarios: Sequence[_Scenario],
    questions: Sequence[Question],
    qrels: Mapping[str, frozenset[str]],
    chunks: Mapping[str, Chunk],
    relevance: Relevance,
    suite: str,
) -> SuiteResult:
    result = SuiteResult(suite)
    overlap = AnswerOverlap()
    baseline = scenarios[0]
    rows = []
    kind_rows = []
    points: dict[str, tuple[float, float]] = {}
    by_kind: dict[str, list[float | None]] = {kind: [] for kind in KINDS}
    for scenario in scenarios:
        per_question: dict[str, dict[str, float | None]] = {}
        answers: list[str] = []
        references: list[str] = []
        for question in questions:
            asked, base = scenario.asked[question.qid], baseline.asked[question.qid]
            figures = _answer_figures(question, asked.answer, base.answer, relevance, overlap, answers, references)
            figures.update(
                ixn=ixn(asked.ranked, base.ranked),
                recall_at_10=recall_at_k(asked.ranked, qrels[question.qid], K),
                ndcg_at_10=ndcg_at_k(asked.ranked, qrels[question.qid], K),
                context_relevance=relevance.context_relevance(question.text, asked.passages),
            )
            if question.kind == "multi_patient":
                cited = [asked.answer.sources[n - 1].chunk for n in asked.answer.cited]
                gold_orgs = {chunks[c].org for c in qrels[question.qid] if c in chunks}
                patients, orgs = coverage(cited, (f.subject_id for f in question.gold), gold_orgs)
                figures["integration_patients"], figures["integration_hospitals"] = patients, orgs
            per_question[question.qid] = figures
        metrics: dict[str, Number | None] = {
            name: mean(f.get(name) for f in per_question.values())
            for name in (
                "ixn",
                "recall_at_10",
                "ndcg_at_10",
                "rouge1",
                "rougeL",
                "faithfulness",
                "answer_relevance",
                "context_relevance",
                "integration_patients",
                "integration_hospitals",
            )
        }
        metrics["answer_rate"] = mean(f["answered"] for f in per_question.values())
        metrics["bleu"] = corpus_bleu(answers, references)
        metrics.update(_rejection_rates(scenario.rejected))
        if scenario.grades:
            metrics["population_exactness"] = round(sum(g.exact for g in scenario.grades) / len(scenario.grades), 4)
        result.add_metrics(scenario.name, metrics)
        for kind in KINDS:
            mine = [per_question[q.qid] for q in questions if q.kind == kind]
            kind_metrics = {m: mean(f.get(m) for f in mine) for m in ("ixn", "recall_at_10", "ndcg_at_10", "rougeL")}
            result.add_metrics(f"{scenario.name}/{kind}", kind_metrics)
            by_kind[kind].append(kind_metrics["recall_at_10"])
        kind_rows.append(
            (
                scenario.name,
                *(
                    result.metrics.get(f"{scenario.name}/{kind}/{m}")
                    for kind in KINDS
                    for m in ("ixn", "recall_at_10", "ndcg_at_10")
                ),
            )
        )
        rows.append((scenario.name, *(metrics.get(name) for name, _ in COLUMNS)))
        seconds = [a.seconds for a in scenario.asked.values()]
        if seconds:
            result.timings[f"{scenario.name}/latency_p50_s"] = round(statistics.median(seconds), 3)
        answered_ixn, relevant = metrics.get("ixn"), metrics.get("answer_relevance")
        if scenario.name != BASELINE and answered_ixn is not None and relevant is not None:
            points[scenario.name] = (float(answered_ixn), float(relevant))
    result.add_table(
        Table(
            "per scenario",
            ("scenario", *(label for _, label in COLUMNS)),
            rows,
            "Baseline: centralised. ixn, ROUGE and BLEU against the baseline's retrieval and answer; R@10 and nDCG@10 "
            "against gold; faithful: share of the draft's sentences supported by their cited sources; ans./ctx. rel.: "
            "embedding cosines (docs/evaluation.md); neg. rej. and noise rob.: share abstaining; patients/hospitals: "
            "share of a multi-patient question's gold patients and hospitals the answer cites; population: exactness.",
        )
    )
    result.add_table(
        Table(
            "per scenario and question kind",
            ("scenario", *(f"{SHORT[k]} {m}" for k in KINDS for m in ("ixn", "R@10", "nDCG@10"))),
            kind_rows,
            "SP single patient, SN single note, MP multi patient.",
        )
    )
    names = [s.name for s in scenarios]
    result.add_plot(
        grouped_bars(
            "recall-per-scenario",
            "Recall@10 per scenario and question kind",
            names,
            dict(by_kind.items()),
            ylabel="recall@10",
            caption="Share of each question's gold chunks in the scenario's top 10, averaged per kind.",
        )
    )
    if len(points) >= 2:
        fit = scatter(
            "answer-relevance-ixn",
            "Answer relevance against ixn",
            points,
            "ixn with the centralised top 10",
            "answer relevance (cosine)",
            caption="One point per scenario (federated and each user), with the least-squares line.",
            fit=True,
        )
        result.add_plot(fit)
        line = fit_line([x for x, _ in points.values()], [y for _, y in points.values()])
        if line is not None:
            result.add_metrics("answer_relevance_on_ixn", dict(zip(("slope", "intercept", "r2"), line, strict=True)))
    return result


def _write_questions(target: Path, questions: Sequence[Question]) -> None:
    target.write_text("".join(json.dumps(q.to_json()) + "\n" for q in questions), encoding="utf-8")


def register_suite(register: Register) -> None:
    """Register ``trend`` (quick: 3 questions per kind, 2 rejection questions each, 4 population questions, two
    users; a model generator answers 3 retrieval questions and 1 negative and 1 noise question)."""
    register(
        "trend",
        "the federated-RAG evaluation: ixn, recall, nDCG, ROUGE, BLEU, RAGAS-style scores per scenario and user",
        TrendSuite,
        lambda: TrendSuite(
            per_kind=3,
            rejection=2,
            population=4,
            users=("A.phys", "C.research"),
            model_questions=3,
            model_rejection=1,
        ),
    )
