"""Which kind of source a folder is, MIMIC-IV or FHIR, and the reader for it.

Example:
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> try:
    ...     source_format(folder)
    ... except InputError as exc:
    ...     print(str(exc).split(";")[0].endswith("neither a MIMIC-IV folder nor a FHIR export"))
    True
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from clinrag.errors import InputError
from clinrag.ingest.fhir.files import has_export
from clinrag.ingest.fhir.reader import FhirReader
from clinrag.ingest.mimic import table_path
from clinrag.ingest.mimic_schema import TABLES
from clinrag.ingest.reader import MimicReader, SourceReader

SourceFormat = Literal["mimic", "fhir"]


def source_format(root: Path) -> SourceFormat:
    """``mimic`` for a folder with MIMIC-IV's ``patients`` table, ``fhir`` for a FHIR export; otherwise an
    `InputError` that says what was looked for."""
    if not root.is_dir():
        raise InputError(f"{root}: no such folder")
    if table_path(root, TABLES["patients"]) is not None:
        return "mimic"
    if has_export(root):
        return "fhir"
    raise InputError(
        f"{root}: neither a MIMIC-IV folder nor a FHIR export; looked for hosp/patients.csv[.gz] or patients.csv[.gz] "
        "(MIMIC-IV), manifest.json or *.ndjson[.gz] files (FHIR Bulk Data export), and *.json files holding a FHIR "
        "Bundle or resource"
    )


def open_reader(root: Path, validate: bool = True) -> SourceReader:
    """The reader for the source folder ``root`` (see `source_format`); ``validate`` applies to FHIR."""
    if source_format(root) == "fhir":
        return FhirReader(root, validate=validate)
    return MimicReader(root)
