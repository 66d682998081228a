"""Ingestion on a distributed engine: Ray (``pip install 'clinrag[scale]'``), imported only when asked for.

`clinrag.ingest.scale.engine` starts or joins Ray; `clinrag.ingest.scale.chunking` chunks notes as a Ray Data
pipeline. The embedding half is `clinrag.index.scale`. See docs/scaling.md.
"""
