"""Clinical BM25 tokenisation and encoding; the engine's sparse dot product equals Okapi BM25."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np

from clinrag.index.abbreviations import expand_abbreviations
from clinrag.index.edge import EdgeStore
from clinrag.index.lexical import Bm25Encoder, average_length, term_index, tokenize
from clinrag.index.store import LEXICAL_EXPANDED, LEXICAL_PLAIN, IndexManifest, StoreQuery
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


# --- documents with their abbreviations expanded -----------------------------------------------------------------


def test_documents_of_new_indexes_count_the_spelled_out_terms_too() -> None:
    manifest = IndexManifest.new("test", 2, 5.0)
    assert manifest.lexical == LEXICAL_EXPANDED
    text = "Past Medical History: - severe AS\n- 3VD with unstable angina\n- CHB"
    expanded = Bm25Encoder.of(manifest).encode_document(text)
    plain = Bm25Encoder(5.0).encode_document(text)
    for term in ("aortic", "stenosis", "three-vessel", "coronary", "complete", "heart", "block"):
        assert term_index(term) in expanded, term
        assert term_index(term) not in plain, term
    for term in ("severe", "3vd", "chb", "angina"):  # the written words stay
        assert term_index(term) in expanded, term


def test_an_index_built_before_expansion_keeps_encoding_documents_as_written() -> None:
    legacy = IndexManifest.from_json(
        '{"embedder_id": "e", "dimension": 2, "bm25_average_length": 5.0, "version": 1, "created": ""}'
    )
    assert legacy.lexical == LEXICAL_PLAIN
    assert not Bm25Encoder.of(legacy).expand
    assert IndexManifest.from_json(IndexManifest.new("e", 2, 5.0).to_json()).lexical == LEXICAL_EXPANDED


def test_average_length_counts_expansions_when_asked() -> None:
    texts = ["severe AS", "CHB"]
    assert average_length(texts) == (1 + 1) / 2  # "as" is a stopword
    assert average_length(texts, expand=True) == (3 + 4) / 2


def test_abbreviations_that_are_words_expand_only_in_mixed_case_lines() -> None:
    assert expand_abbreviations("Admitted for severe AS.")[0] == "Admitted for severe AS. aortic stenosis"
    assert expand_abbreviations("ADMITTED AS AN EMERGENCY")[0] == "ADMITTED AS AN EMERGENCY"
    assert expand_abbreviations("Plan:\nAS ABOVE\nsevere AS")[0] == "Plan:\nAS ABOVE\nsevere AS aortic stenosis"
    assert expand_abbreviations("treated as an outpatient")[0] == "treated as an outpatient"


def test_engine_finds_an_abbreviation_by_its_spelled_out_term(tmp_path: Path) -> None:
    texts = ["Past Medical History: - severe AS", "Past Medical History: - asthma", "Aortic valve normal."]
    manifest = IndexManifest.new("test", 2, average_length(texts, expand=True))
    encoder = Bm25Encoder.of(manifest)
    store = EdgeStore.create(tmp_path / "leaf", manifest)
    chunks = [Chunk.create(source_id=f"n:{i}", text=text, org="A", dept="d") for i, text in enumerate(texts)]
    dense = np.tile(np.array([[1.0, 0.0]], dtype=np.float32), (len(texts), 1))
    try:
        store.upsert(chunks, dense, [encoder.encode_document(text) for text in texts])
        query = encoder.encode_query("aortic stenosis")
        hits = store.query(StoreQuery(mode="bm25", dense=None, sparse=query, limit=3))
    finally:
        store.close()
    assert hits[0].chunk.chunk_id == chunks[0].chunk_id


def test_an_abbreviation_questions_use_for_several_things_is_not_expanded() -> None:
    """PCV to a bus depot is a licence, not the procarbazine-lomustine-vincristine regimen."""
    assert expand_abbreviations("Some tablets mean no PCV driving")[1] == ()


def test_a_word_written_with_an_accent_is_one_token() -> None:
    """ "família" was "fam" and "lia": fragments no record names, so the answer abstained on "lia"."""
    assert tokenize("a família em Funchal, Mãe e avó") == ["familia", "em", "funchal", "mae", "avo"]
