"""What ingestion reads a source through: MIMIC-shaped patients, admissions, services, notes and table rows.

`MimicReader` reads a MIMIC-IV folder (``hosp/``, ``note/``); `clinrag.ingest.fhir.reader.FhirReader` reads a FHIR
export into the same records, so one pipeline (`clinrag.ingest.pipeline`) and one set of population tables
(`clinrag.population.tables`) serve both; `clinrag.ingest.formats.open_reader` picks the reader a folder needs.

Example:
    >>> import tempfile, pathlib
    >>> from clinrag.ingest.synthetic.cohort import generate_cohort
    >>> out = pathlib.Path(tempfile.mkdtemp())
    >>> _ = generate_cohort(out, patients=10, seed=3, workers=1)
    >>> reader = MimicReader(out / "hospitals" / "A")
    >>> sum(1 for _ in reader.patients(IngestReport())) > 0, reader.extra_tables
    (True, ())
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from clinrag.ingest.mimic import (
    IngestReport,
    read_admissions,
    read_notes,
    read_patients,
    read_services,
    read_titles,
    read_typed,
)
from clinrag.types import Admission, Note, Patient


class SourceReader(Protocol):
    """A source of MIMIC-shaped records; problems go to the ``report`` each call is given."""

    root: Path
    extra_tables: tuple[str, ...]
    """Tables beyond MIMIC-IV's that this source chunks, one chunk per row (`clinrag.ingest.fhir.schema`)."""

    def patients(self, report: IngestReport) -> Iterator[Patient]:
        """Every patient (``hosp/patients``)."""
        ...

    def admissions(self, report: IngestReport) -> Iterator[Admission]:
        """Every admission (``hosp/admissions``)."""
        ...

    def services(self, report: IngestReport) -> dict[int, str]:
        """The last service of each admission (``hosp/services``)."""
        ...

    def notes(self, report: IngestReport) -> Iterator[Note]:
        """Every note (``note/discharge``)."""
        ...

    def rows(
        self, table: str, columns: Sequence[str], report: IngestReport, required_file: bool = True
    ) -> Iterator[dict[str, Any]]:
        """Rows of ``table`` with the ``columns`` asked for, values of their kinds (like ``read_typed``)."""
        ...

    def titles(self, name: str, report: IngestReport) -> dict[tuple[str, int], str]:
        """ICD titles by (code, version) from ``d_icd_diagnoses`` or ``d_icd_procedures``."""
        ...


class MimicReader:
    """A MIMIC-IV folder read with `clinrag.ingest.mimic`'s streaming readers."""

    extra_tables: tuple[str, ...] = ()

    def __init__(self, root: Path) -> None:
        self.root = root

    def patients(self, report: IngestReport) -> Iterator[Patient]:
        """See `SourceReader.patients`."""
        return read_patients(self.root, report)

    def admissions(self, report: IngestReport) -> Iterator[Admission]:
        """See `SourceReader.admissions`."""
        return read_admissions(self.root, report)

    def services(self, report: IngestReport) -> dict[int, str]:
        """See `SourceReader.services`."""
        return read_services(self.root, report)

    def notes(self, report: IngestReport) -> Iterator[Note]:
        """See `SourceReader.notes`."""
        return read_notes(self.root, report)

    def rows(
        self, table: str, columns: Sequence[str], report: IngestReport, required_file: bool = True
    ) -> Iterator[dict[str, Any]]:
        """See `SourceReader.rows`."""
        return read_typed(self.root, table, columns, report, required_file)

    def titles(self, name: str, report: IngestReport) -> dict[tuple[str, int], str]:
        """See `SourceReader.titles`."""
        return read_titles(self.root, name, report)
