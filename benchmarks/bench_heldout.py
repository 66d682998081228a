"""The held-out answer benchmark (issue 14): questions built from the cohort's gold facts and phrased by families of
wordings, split by family into a dev half (tuned on) and a test half (reported), plus hand-written free-form
questions never used for tuning (``freeform``: the first set, since seen; ``freeform2``: a second blind set, written
after the fixes the first set led to and run once; ``test2``: new phrasing families and must-abstain wordings,
written and committed after all tuning, run once; ``test3``: a third such split, written after the shorthand, cue and
kind-by-meaning reading that test2 led to, committed before its first run; ``test4``: a fourth split, written by
someone who had not read the question-reading code, committed before its first run; ``freeform3``: a third
hand-written set, written and committed the same way; ``test5`` and ``freeform4``: a fifth templated split and a
fourth free-form set, written by someone who had not read the question-reading code, committed before their first
run; ``test6`` and ``freeform5``: a sixth templated split and a fifth free-form set, written and committed the same
way, in new voices: a pharmacist's medicines reconciliation, an ED triage nurse in a hurry, English as a second
language, a case manager, a student presenting on rounds, voice-recognition dictation; ``test7`` and ``freeform6``:
a seventh templated split and a sixth free-form set, written and committed the same way, in new voices: a junior
doctor on call at night paged about a patient they do not know, a GP reading the discharge letter, a relative or
patient advocate writing formally, a physiotherapist, a dietitian, a ward clerk, search-box fragments; ``test8`` and
``freeform7``: an eighth templated split and a seventh free-form set, written and committed the same way, in new
voices: a records officer writing for a coroner, a complaint or a solicitor, a medical student texting in shorthand, a
research nurse screening for a study, a pharmacist, an occupational therapist, a discharge coordinator, a chaplain,
an interpreter, patients asking about themselves, a night nurse's handover; ``test9`` and ``freeform8``: a ninth
templated split and an eighth free-form set, written and committed the same way, in new voices: a hospital-at-home
or virtual-ward nurse phoning in, an insurance or occupational-health assessor, a patient's adult child writing an
anxious email, a speech and language therapist, a care-home manager, a paramedic crew, a clinical coder, a medical
secretary, a GP trainee, a student nurse, run-on sentences without punctuation; ``test10`` and ``freeform9``: a
tenth templated split and a ninth free-form set, written and committed the same way, in new voices: an out-of-hours
GP covering a weekend, a social worker or safeguarding lead writing a referral, patients writing about themselves
with spelling slips, a radiographer, a midwife, a podiatrist, a pain team nurse, a bed manager, a hospice nurse, an
A&E consultant at re-attendance, terse lower-case questions, long questions with asides; ``test11`` and
``freeform10``: an eleventh templated split and a tenth free-form set, written and committed the same way, in new
voices: a dental surgeon before an extraction, a prison healthcare nurse after a hospital escort, an NHS 111 health
adviser reading from a call script, a district nurse, a stoma nurse, an anaesthetist at pre-op assessment, an
optometrist, a community mental-health nurse, a locum registrar at night handover; ``test12`` and ``freeform11``: a
twelfth templated split and an eleventh free-form set, written and committed the same way, in new voices: an
infection prevention and control nurse, a cardiac rehabilitation nurse, a practice nurse at an annual review, a tissue
viability nurse, a diabetes specialist nurse, a heart failure nurse, a learning disability liaison nurse, a physician
associate, a medical examiner, a hospital volunteer, a housing support officer, a teenage grandchild; ``test13`` and
``freeform12``: a thirteenth templated split and a twelfth free-form set, written and committed the same way, in new
voices: a renal dialysis unit nurse, a falls clinic nurse, an endoscopy unit nurse at pre-assessment, an audiologist,
a blood transfusion practitioner, a respiratory physiologist, a sonographer, a phlebotomist, a rheumatology
specialist nurse, a clinical psychologist, a welfare rights adviser, a neighbour, a spouse; ``test14`` and
``freeform13``: a fourteenth templated split and a thirteenth free-form set, written and committed the same way, in
new voices; ``test15`` and ``freeform14``: a fifteenth templated split and a fourteenth free-form set, written and
committed the same way, in new voices; ``test16`` and ``freeform15``: a sixteenth templated split and a fifteenth
free-form set, written and committed the same way, in new voices; ``test17`` and ``freeform16``: a seventeenth
templated split and a sixteenth free-form set, written and committed the same way, in new voices; ``test18`` and
``freeform17``: an eighteenth templated split and a seventeenth free-form set, written and committed the same way, in
new voices; ``test19`` and ``freeform18``: a nineteenth templated split and an eighteenth free-form set, written and
committed the same way, in new voices; ``test20`` and ``freeform19``: a twentieth templated split and a nineteenth
free-form set, written and committed the same way, in new voices; ``test21`` and ``freeform20``: a twenty-first
templated split and a twentieth free-form set, written and committed the same way, in new voices; ``test22`` and
``freeform21``: a twenty-second templated split and a twenty-first free-form set, written and committed the same way,
in new voices; ``test23`` and ``freeform22``: a twenty-third templated split and a twenty-second free-form set, written
and committed the same way, in new voices; ``test24`` and ``freeform23``: a twenty-fourth templated split and a
twenty-third free-form set, written and committed the same way, in new voices; ``test25`` and ``freeform24``: a twenty-fifth templated split and a twenty-fourth free-form set, written and committed the same way, in new voices; ``test26`` and ``freeform25``: a twenty-sixth templated split and a twenty-fifth free-form set, written and committed the same way, in new voices; ``test27`` and ``freeform26``: a twenty-seventh templated split and a twenty-sixth free-form set, written and committed the same way, in new voices; ``test28`` and ``freeform27``: a twenty-eighth templated split and a twenty-seventh free-form set, written and committed the same way, in new voices; ``test29`` and ``freeform28``: a twenty-ninth templated split and a twenty-eighth free-form set, written and committed the same way, in new voices; ``test30`` and ``freeform29``: a thirtieth templated split and a twenty-ninth free-form set, written and committed the same way, in new voices; ``test31`` and ``freeform30``: a thirty-first templated split and a thirtieth free-form set, written and committed the same way, in new voices; ``test32`` and ``freeform31``: a thirty-second templated split and a thirty-first free-form set, written and committed the same way, in new voices; ``test33`` and ``freeform32``: a thirty-third templated split and a thirty-second free-form set, written and committed the same way, in new voices; ``test34`` and ``freeform33``: a thirty-fourth templated split and a thirty-third free-form set, written and committed the same way, in new voices; ``test35`` and ``freeform34``: a thirty-fifth templated split and a thirty-fourth free-form set, written and committed the same way, in new voices; ``test36`` and ``freeform35``: a thirty-sixth templated split and a thirty-fifth free-form set, written and committed the same way, in new voices; ``test37`` and ``freeform36``: a thirty-seventh templated split and a thirty-sixth free-form set, written and committed the same way, in new voices; ``test38`` and ``freeform37``: a thirty-eighth templated split and a thirty-seventh free-form set, written and committed the same way, in new voices; ``test39`` and ``freeform38``: a thirty-ninth templated split and a thirty-eighth free-form set, written and committed the same way, in new voices; ``test40`` and ``freeform39``: a fortieth templated split and a thirty-ninth free-form set, written and committed the same way, in new voices; ``test41`` and ``freeform40``: a forty-first templated split and a fortieth free-form set, written and committed the same way, in new voices; ``test42`` and ``freeform41``: a forty-second templated split and a forty-first free-form set, written and committed the same way, in new voices; ``test43`` and ``freeform42``: a forty-third templated split and a forty-second free-form set, written and committed the same way, in new voices; ``test44`` and ``freeform43``: a forty-fourth templated split and a forty-third free-form set, written and committed the same way, in new voices; ``test45`` and ``freeform44``: a forty-fifth templated split and a forty-fourth free-form set, written and committed the same way, in new voices; ``test46`` and ``freeform45``: a forty-sixth templated split and a forty-fifth free-form set, written and committed the same way, in new voices; ``test47`` and ``freeform46``: a forty-seventh templated split and a forty-sixth free-form set, written and committed the same way, in new voices; ``test48`` and ``freeform47``: a forty-eighth templated split and a forty-seventh free-form set, written and committed the same way, in new voices; ``test49`` and ``freeform48``: a forty-ninth templated split and a forty-eighth free-form set, written and committed the same way, in new voices); graded automatically (correct, incomplete, wrongly abstained, wrong
patient, contradicts the record; should-abstain questions: abstained or not).
Dev and test are reported side by side so the size of any over-fit shows, with latency p50/p95 per answerer.

    python benchmarks/bench_heldout.py [--patients 200] [--seed 11] [--generators extractive,local,local:qwen-1.5b]
                                       [--splits dev,test,freeform,freeform2,freeform3,freeform4,freeform5,freeform6,freeform7,freeform8,freeform9,freeform10,freeform11,freeform12,freeform13,freeform14,freeform15,freeform16,freeform17,freeform18,freeform19,freeform20,freeform21,freeform22,freeform23,freeform24,freeform25,freeform26,freeform27,freeform28,freeform29,freeform30,freeform31,freeform32,freeform33,freeform34,freeform35,freeform36,freeform37,freeform38,freeform39,freeform40,freeform41,freeform42,freeform43,freeform44,freeform45,freeform46,freeform47,freeform48,test2,test3,test4,test5,test6,test7,test8,test9,test10,test11,test12,test13,test14,test15,test16,test17,test18,test19,test20,test21,test22,test23,test24,test25,test26,test27,test28,test29,test30,test31,test32,test33,test34,test35,test36,test37,test38,test39,test40,test41,test42,test43,test44,test45,test46,test47,test48,test49] [--limit N] [--no-fallback] [--work DIR] [--update]

``--limit N`` keeps N questions per intent and split (for the slow model generators); ``--no-fallback`` measures a
model alone (no extractive answer when its draft is declined or unsupported); ``--update`` merges the
figures measured into the existing results file instead of replacing it. The cohort and hospital A's node are
built once under ``--work`` (default /tmp/clinrag-heldout) and reused.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Any

from clinrag.evaluate.heldout import (
    BLIND_SPLITS,
    CohortView,
    Graded,
    HeldoutQuestion,
    build_blind_split,
    build_questions,
    grade,
    summarise,
)
from clinrag.evaluate.heldout_freeform import FREEFORM_SETS, freeform_questions
from clinrag.generate.answer import Answerer
from clinrag.generate.llm import generator_from
from clinrag.index.embed import OnnxMiniLmEmbedder
from clinrag.index.indexer import build_indexes
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.pipeline import ingest_mimic
from clinrag.ingest.synthetic.cohort import generate_cohort
from clinrag.retrieve.hybrid import Retriever
from clinrag.settings import AnswerSettings, IngestSettings, PathSettings
from common import RESULTS, machine, write


def _prepare(work: Path, patients: int, seed: int) -> tuple[Path, Path]:
    cohort = work / f"cohort-{patients}-{seed}"
    if not (cohort / "gold_facts.jsonl").is_file():
        generate_cohort(cohort, patients=patients, seed=seed, workers=2)
    node = work / f"node-A-{patients}-{seed}"
    with ChunkStore.open(node / "chunks.sqlite") as store:
        ingest_mimic(cohort / "hospitals/A", store, IngestSettings())
        build_indexes(store, node / "index", OnnxMiniLmEmbedder(threads=2))
    return cohort, node


def _limited(questions: list[HeldoutQuestion], limit: int | None, seed: int) -> list[HeldoutQuestion]:
    if limit is None:
        return questions
    groups: dict[tuple[str, str], list[HeldoutQuestion]] = {}
    for question in questions:
        groups.setdefault((question.split, question.intent), []).append(question)
    rng = random.Random(seed)
    return [q for group in groups.values() for q in rng.sample(group, min(limit, len(group)))]


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= 200 else flat[:197] + "..."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--patients", type=int, default=200)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--generators", default="extractive")
    parser.add_argument("--splits", default="dev,test,freeform")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--work", type=Path, default=Path("/tmp/clinrag-heldout"))
    parser.add_argument("--update", action="store_true")
    parser.add_argument("--no-fallback", action="store_true", help="models only: no extractive fallback")
    parser.add_argument("--name", default="heldout")
    args = parser.parse_args()

    cohort, node = _prepare(args.work, args.patients, args.seed)
    view = CohortView.load(cohort)
    questions = build_questions(view, seed=args.seed)
    for split_name, path in FREEFORM_SETS.items():
        questions += freeform_questions(view, path, split_name)
    for blind in BLIND_SPLITS:
        questions += build_blind_split(view, blind, seed=args.seed)
    splits = args.splits.split(",")
    chosen = _limited([q for q in questions if q.split in splits], args.limit, args.seed)
    embedder = OnnxMiniLmEmbedder(threads=2)
    retriever = Retriever.open(node, embedder=embedder)
    path = RESULTS / f"{args.name}.json"
    previous: dict[str, Any] = json.loads(path.read_text()) if args.update and path.is_file() else {}
    figures: dict[str, Any] = previous.get("generators", {})
    try:
        for name in args.generators.split(","):
            generator, _, model = name.partition(":")  # "local:qwen-1.5b"
            chosen_model = {"local_model": model} if model else {}
            settings = AnswerSettings(generator=generator, model_fallback=not args.no_fallback, **chosen_model)
            label = f"{name} (model alone)" if args.no_fallback and generator != "extractive" else name
            answerer = Answerer(retriever, settings, generator_from(settings, PathSettings()), embedder)
            answerer.answer("Is anyone allergic to penicillin?")  # warm-up: models, vocabularies, caches
            graded: list[Graded] = []
            for question in chosen:
                started = time.perf_counter()
                answer = answerer.answer(question.text)
                graded.append(Graded(question, answer, grade(question, answer), time.perf_counter() - started))
            per_split: dict[str, Any] = {"measured_at": machine()["measured_at"], "limit": args.limit}
            for split in splits:
                in_split = [g for g in graded if g.question.split == split]
                if not in_split:
                    continue
                summary = summarise(in_split)
                summary["failures"] = [
                    {
                        "question": g.question.text,
                        "intent": g.question.intent,
                        "family": g.question.family,
                        "grade": g.grade,
                        "answer": _excerpt(g.answer.text),
                    }
                    for g in in_split
                    if g.grade not in ("correct", "correct_abstain")
                ]
                per_split[split] = summary
            figures[label] = per_split
            _print_table(label, per_split, splits)
    finally:
        retriever.close()
    write(
        args.name,
        {
            "cohort": {"patients": args.patients, "seed": args.seed, "hospital": "A"},
            "questions": {
                split: sum(q.split == split for q in questions)
                for split in ("dev", "test", *FREEFORM_SETS, *(blind.name for blind in BLIND_SPLITS))
            },
            "generators": figures,
        },
    )


def _print_table(name: str, per_split: dict[str, Any], splits: list[str]) -> None:
    print(f"\n{name}")
    rows = ("answered_and_correct", "wrong_patient", "contradicts", "sentence_support")
    print("figure".ljust(26) + "".join(split.rjust(12) for split in splits))
    for row in rows:
        print(row.ljust(26) + "".join(str(per_split.get(split, {}).get(row, "-")).rjust(12) for split in splits))
    for kind in ("negative", "noise", "unseen", "wrong_name"):
        values = [str(per_split.get(split, {}).get("rejection", {}).get(kind, "-")) for split in splits]
        print(f"rejection {kind}".ljust(26) + "".join(value.rjust(12) for value in values))
    for quantile in ("p50", "p95"):
        values = [str(per_split.get(split, {}).get("latency_s", {}).get(quantile, "-")) for split in splits]
        print(f"latency {quantile} s".ljust(26) + "".join(value.rjust(12) for value in values))


if __name__ == "__main__":
    main()
