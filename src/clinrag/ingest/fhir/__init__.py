"""FHIR R4 input: a Bulk Data export (NDJSON per resource type) or Bundles, read as MIMIC-shaped rows.

`clinrag.ingest.fhir.reader.FhirReader` yields the same patients, admissions, services, coded rows and notes as the
MIMIC-IV reader, so ingestion, chunk ids, departments, idempotence and the population tables are shared; resources
with no MIMIC-IV table (observations, allergies, coverage, ...) become rows of the tables in
`clinrag.ingest.fhir.schema`. `clinrag.ingest.fhir.export` writes a MIMIC-IV folder as a Bulk Data export.
"""
