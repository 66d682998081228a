"""Guideline ingestion as a whole (issue 20): manifests validated with errors naming the file and the field, the
node's publisher allow-list, bad input reported and skipped with the rest kept, and idempotence — a second run
adds nothing, a changed document is replaced, a vanished one removed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from clinrag.errors import ConfigError
from clinrag.ingest.chunkstore import ChunkStore
from clinrag.ingest.guidelines.ingest import GuidelineReport, ingest_guidelines
from clinrag.ingest.guidelines.manifest import (
    ALLOW_LIST,
    AllowList,
    ManifestError,
    allow_publishers,
    load_allow_list,
    load_manifest,
)
from clinrag.ingest.literature import VOCABULARY_FILE

from .documents import PUBLISHERS, guideline_folder, write_ckd_pdf

ALL = AllowList(publishers=PUBLISHERS)
GOOD = 'title = "T"\npublisher = "Example Health Agency"\nurl = "https://example.org/t"\ndate = 2021-05-01\n'


def _ingest(folder: Path, node: Path, allowed: AllowList = ALL) -> tuple[GuidelineReport, dict[str, set[str]]]:
    """Ingest, and the chunk ids stored per document."""
    with ChunkStore.open(node / "chunks.sqlite") as store:
        report = ingest_guidelines(folder, store, allowed, org="LIB")
        stored: dict[str, set[str]] = {}
        for chunk in store.chunks():
            stored.setdefault(chunk.note_id or "", set()).add(chunk.chunk_id)
    return report, stored


@pytest.mark.parametrize(
    ("manifest", "reasons"),
    [
        (GOOD, ("field 'licence': missing",)),
        (
            GOOD.replace("https://", "ftp://") + 'licence = "x"\n',
            ("field 'url': URL scheme should be 'http' or 'https'",),
        ),
        (
            GOOD.replace("2021-05-01", '"1 May 2021"') + 'licence = "x"\n',
            ("field 'date': Input should be a valid date or datetime, invalid character in year",),
        ),
        (
            GOOD + 'licence = "x"\nauthor = "Smith"\n',
            ("field 'author': unknown (expected title, publisher, url, date, licence)",),
        ),
        (GOOD.replace('"T"', '"  "') + 'licence = "x"\n', ("field 'title': String should have at least 1 character",)),
        ('title = "T\npublisher = "P"\n', ("not TOML (Illegal character",)),
    ],
    ids=["missing", "url", "date", "unknown", "blank", "not-toml"],
)
def test_manifest_errors_name_the_file_and_the_field(tmp_path: Path, manifest: str, reasons: tuple[str, ...]) -> None:
    path = tmp_path / "t.toml"
    path.write_text(manifest)
    with pytest.raises(ManifestError) as raised:
        load_manifest(path)
    assert len(raised.value.reasons) == len(reasons)
    assert all(found.startswith(wanted) for found, wanted in zip(raised.value.reasons, reasons, strict=True))
    assert str(raised.value).startswith(f"{path}: ")


def test_license_is_read_as_licence_and_dates_as_strings(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text(GOOD.replace("2021-05-01", '"2021-05-01"') + 'license = "CC BY 4.0"\n')
    manifest = load_manifest(path)
    assert (manifest.licence, manifest.date.isoformat()) == ("CC BY 4.0", "2021-05-01")


def test_bad_input_is_reported_with_file_and_reason_and_the_rest_kept(tmp_path: Path) -> None:
    folder = guideline_folder(tmp_path)
    (folder / "orphan.md").write_text("# No manifest\n\nText.\n")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 this is not really a PDF")
    (folder / "broken.toml").write_text(GOOD + 'licence = "x"\n')
    (folder / "bad").mkdir()
    (folder / "bad" / "guideline.toml").write_text(GOOD.replace("https://", "ftp://"))
    (folder / "bad" / "one.html").write_text("<h1>One</h1><p>Text.</p>")
    (folder / "notes.txt").write_text("not a guideline")
    report, stored = _ingest(folder, tmp_path / "node")
    assert (report.documents, report.new, report.skipped, report.ignored) == (6, 3, 3, 1)
    problems = {str(problem) for problem in report.problems}
    assert problems == {
        f"{folder / 'bad' / 'guideline.toml'}: field 'url': URL scheme should be 'http' or 'https'; field 'licence': "
        f"missing (for {folder / 'bad' / 'one.html'})",
        f"{folder / 'broken.pdf'}: not a readable PDF (PdfminerException)",
        f"{folder / 'orphan.md'}: no manifest: write orphan.toml beside it or guideline.toml in its folder",
    }
    assert set(stored) == {
        "cardiology/af-anticoagulation.html",
        "hypertension/hypertension.md",
        "kidney/ckd-monitoring.pdf",
    }


def test_a_document_broken_later_keeps_the_version_stored_before(tmp_path: Path) -> None:
    folder = guideline_folder(tmp_path)
    _, before = _ingest(folder, tmp_path / "node")
    (folder / "kidney" / "ckd-monitoring.pdf").write_bytes(b"%PDF-1.4 truncated")
    report, after = _ingest(folder, tmp_path / "node")
    assert (report.skipped, report.kept, report.removed) == (1, 1, 0)
    assert after == before


def test_only_publishers_on_the_allow_list_are_ingested(tmp_path: Path) -> None:
    folder = guideline_folder(tmp_path)
    node = tmp_path / "node"
    report, stored = _ingest(
        folder, node, AllowList(publishers=("example cardiology  SOCIETY", "Example Health Agency"))
    )
    assert (report.new, report.not_allowed) == (2, 1)
    assert [str(problem) for problem in report.problems] == [
        f"{folder / 'kidney' / 'ckd-monitoring.pdf'}: publisher 'Example Kidney Foundation' is not on the library's "
        f"allow-list ({ALLOW_LIST})"
    ]
    assert "kidney/ckd-monitoring.pdf" not in stored
    # a publisher taken off the list: its guidelines leave the library
    report, stored = _ingest(folder, node, AllowList(publishers=("Example Health Agency",)))
    assert (report.unchanged, report.not_allowed, report.removed) == (1, 2, 1)
    assert set(stored) == {"hypertension/hypertension.md"}


def test_the_allow_list_file_of_a_node(tmp_path: Path) -> None:
    node = tmp_path / "node"
    with pytest.raises(ConfigError, match="no publisher allow-list"):
        load_allow_list(node)
    allow_publishers(node, ("Example Health Agency",))
    allow_publishers(node, ("example health agency", 'The "Quoted" Society'))
    assert load_allow_list(node).publishers == ("Example Health Agency", 'The "Quoted" Society')
    (node / ALLOW_LIST).write_text("publishers = []\n")
    with pytest.raises(ConfigError, match="lists no publisher"):
        load_allow_list(node)
    (node / ALLOW_LIST).write_text('publishers = "one"\n')
    with pytest.raises(ConfigError, match="field 'publishers'"):
        load_allow_list(node)


def test_a_second_run_adds_nothing_and_changes_are_replaced_or_removed(tmp_path: Path) -> None:
    folder = guideline_folder(tmp_path)
    node = tmp_path / "node"
    first, stored = _ingest(folder, node)
    assert (first.new, first.chunks) == (3, sum(len(ids) for ids in stored.values()))
    again, same = _ingest(folder, node)
    assert (again.new, again.changed, again.unchanged, again.removed, again.chunks) == (0, 0, 3, 0, 0)
    assert same == stored

    write_ckd_pdf(folder / "kidney" / "ckd-monitoring.pdf", extra="Repeat an abnormal result within two weeks.")
    shutil.rmtree(folder / "hypertension")
    changed, after = _ingest(folder, node)
    assert (changed.new, changed.changed, changed.unchanged, changed.removed) == (0, 1, 1, 1)
    assert set(after) == {"cardiology/af-anticoagulation.html", "kidney/ckd-monitoring.pdf"}
    assert after["cardiology/af-anticoagulation.html"] == stored["cardiology/af-anticoagulation.html"]
    assert after["kidney/ckd-monitoring.pdf"] != stored["kidney/ckd-monitoring.pdf"]
    with ChunkStore.open(node / "chunks.sqlite") as store:
        texts = [chunk.text for chunk in store.chunks() if chunk.note_id == "kidney/ckd-monitoring.pdf"]
    assert sum("within two weeks" in text for text in texts) == 1  # replaced, not added beside the old version


def test_a_manifest_change_replaces_the_document(tmp_path: Path) -> None:
    folder = guideline_folder(tmp_path)
    node = tmp_path / "node"
    _ingest(folder, node)
    manifest = folder / "cardiology" / "af-anticoagulation.toml"
    manifest.write_text(manifest.read_text().replace("2024-03-15", "2025-01-10"))
    report, _ = _ingest(folder, node)
    assert (report.changed, report.unchanged) == (1, 2)
    with ChunkStore.open(node / "chunks.sqlite") as store:
        dates = {
            chunk.guideline.date.isoformat() for chunk in store.chunks() if chunk.guideline and "af-" in chunk.source_id
        }
    assert dates == {"2025-01-10"}


def test_the_node_becomes_a_library_with_the_guidelines_words(tmp_path: Path) -> None:
    folder = guideline_folder(tmp_path)
    _ingest(folder, tmp_path / "node")
    vocabulary = (tmp_path / "node" / VOCABULARY_FILE).read_text()
    for word in ("edoxaban", "albuminuria", "ambulatory"):
        assert f'"{word}"' in vocabulary
