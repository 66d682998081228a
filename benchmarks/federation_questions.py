"""The questions of ``bench_federation.py``: generic clinical questions, and questions that name patients of the
cohort (a node resolves the name and searches that patient's chunks)."""

from __future__ import annotations

from clinrag.retrieve.hybrid import Retriever

GENERIC_QUESTIONS = (
    "hospital course",
    "Which patients were discharged on aspirin?",
    "weakness after a stroke",
    "chest pain with troponin elevation",
    "fall at home with hip pain",
    "alcohol withdrawal",
    "What was the chief complaint?",
    "discharge instructions after surgery",
    "shortness of breath and leg swelling",
    "urinary tract infection treated with antibiotics",
    "What medications was the patient discharged on?",
    "hip fracture after a fall",
    "CIWA lorazepam taper",
    "left sided weakness",
    "NSTEMI treated with a stent",
    "does the patient smoke",
    "postoperative delirium",
    "citalopram for depression",
    "wound care instructions",
    "pneumonia treated with ceftriaxone and azithromycin",
    "heart failure exacerbation with furosemide",
    "seizure on levetiracetam",
    "atrial fibrillation started on anticoagulation",
    "diabetes with insulin sliding scale",
    "acute kidney injury creatinine",
    "suicidal ideation psychiatric admission",
    "coronary artery bypass graft",
    "knee replacement physical therapy",
    "headache with vomiting",
    "sepsis in the intensive care unit",
    "follow up with cardiology",
    "COPD exacerbation with nebulizers",
)


def build_questions(central: Retriever, count: int) -> list[str]:
    """``count`` questions: generic ones first, then up to 8 that name patients spread over the centralised index's
    (sorted) patient names."""
    assert central.chunks is not None
    names = sorted({name for _, name in central.chunks.patients() if name})
    step = max(len(names) // 8, 1)
    named = [
        template.format(name=name)
        for template, name in zip(
            ("What was {name} discharged on?", "Why was {name} admitted?", "Did {name} have chest pain?"),
            names[::step][:8],
            strict=False,
        )
    ]
    named += [f"What was {name} discharged on?" for name in names[::step][3:8]]
    return [*GENERIC_QUESTIONS[: max(count - len(named), 0)], *named][:count]
