"""Clinical BM25 tokenisation and encoding; the engine's sparse dot product equals Okapi BM25."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np

from clinrag.index.edge import EdgeStore
from clinrag.index.lexical import Bm25Encoder, average_length, term_index, tokenize
from clinrag.index.store import IndexManifest, StoreQuery
from clinrag.types import Chunk

CORPUS = [
    "Patient with CHF exacerbation, diuresed with IV furosemide.",
    "Right hip fracture after a fall; hemiarthroplasty performed.",
    "CHF and atrial fibrillation; started apixaban and metoprolol.",
    "Major depression treated with citalopram 20 mg daily.",
    "Alcohol withdrawal managed with a lorazepam taper; CIWA below 8.",
    "Hip pain without fracture; discharged home with physical therapy.",
]


def test_tokenizer_keeps_codes_numbers_and_drops_noise() -> None:
    assert tokenize("C5-6 disc, ICD I21.4, T2DM, 325mg; Betty Henry's notes.") == [
        "c5-6",
        "disc",
        "icd",
        "i21.4",
        "t2dm",
        "325mg",
        "betty",
        "henry",
        "note",
    ]
    assert tokenize("___ was seen by ___ on ___.") == ["seen"]
    assert tokenize("The and of") == []


def test_document_vector_saturates_term_frequency() -> None:
    encoder = Bm25Encoder(average_length=4.0)
    once = encoder.encode_document("aspirin daily given today")[term_index("aspirin")]
    thrice = encoder.encode_document("aspirin aspirin aspirin today")[term_index("aspirin")]
    assert once < thrice < (encoder.k1 + 1)


def test_engine_scores_equal_okapi_bm25(tmp_path: Path) -> None:
    encoder = Bm25Encoder(average_length(CORPUS))
    manifest = IndexManifest.new("test", 2, encoder.average_length)
    store = EdgeStore.create(tmp_path / "leaf", manifest)
    chunks = [Chunk.create(source_id=f"n:{i}", text=text, org="A", dept="d") for i, text in enumerate(CORPUS)]
    dense = np.tile(np.array([[1.0, 0.0]], dtype=np.float32), (len(CORPUS), 1))
    store.upsert(chunks, dense, [encoder.encode_document(text) for text in CORPUS])
    query = "CHF with fracture"
    hits = store.query(StoreQuery(mode="bm25", dense=None, sparse=encoder.encode_query(query), limit=10))
    store.close()

    documents = [Counter(tokenize(text)) for text in CORPUS]
    n = len(documents)

    def okapi(document: Counter[str]) -> float:
        length = sum(document.values())
        score = 0.0
        for term in dict.fromkeys(tokenize(query)):
            frequency = document.get(term, 0)
            containing = sum(1 for d in documents if term in d)
            idf = math.log(1 + (n - containing + 0.5) / (containing + 0.5))
            norm = encoder.k1 * (1 - encoder.b + encoder.b * length / encoder.average_length)
            score += idf * frequency * (encoder.k1 + 1) / (frequency + norm)
        return score

    expected = {chunk.chunk_id: okapi(doc) for chunk, doc in zip(chunks, documents, strict=True)}
    assert hits, "BM25 found the documents that share terms"
    for hit in hits:
        assert math.isclose(hit.score, expected[hit.chunk.chunk_id], rel_tol=1e-4)
    assert {hit.chunk.chunk_id for hit in hits} == {cid for cid, score in expected.items() if score > 0}
