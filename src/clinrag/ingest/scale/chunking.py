"""Notes chunked as a Ray Data pipeline: the ``ray`` engine's half of `clinrag ingest`.

The driver reads the source (a MIMIC-IV folder or a FHIR export, through the same `SourceReader` as the local
engine), skips the notes stored as they are, and hands the others to Ray in windows of ``ScaleSettings.window``
notes: ``map_batches`` runs `clinrag.ingest.pipeline.note_chunks` on them as Ray tasks on ``workers`` CPUs, and the
chunks come back to the driver, which writes them to the node's chunk store (one SQLite file: one writer) in the
order read. The chunks are those of the local engine because the same function makes them from the same inputs.

Example:
    >>> from clinrag.settings import ScaleSettings
    >>> chunker = ray_note_chunker(ScaleSettings(engine="ray", workers=2, window=5000))
    >>> callable(chunker)
    True
"""

from __future__ import annotations

import itertools
import logging
import pickle
from collections.abc import Iterator
from typing import Any

import numpy as np

from clinrag.ingest.pipeline import NoteChunker, NoteWork, note_chunks
from clinrag.ingest.scale.engine import require_ray
from clinrag.ingest.source import SourceConfig
from clinrag.settings import IngestSettings, ScaleSettings
from clinrag.types import Chunk

NOTES_PER_BLOCK = 64  # notes per Ray block and per task call: about 64 x 10 KB of text
_log = logging.getLogger(__name__)


def chunk_batch(batch: dict[str, Any], config: SourceConfig, settings: IngestSettings) -> dict[str, Any]:
    """A Ray Data batch of pickled `NoteWork` (``work``) turned into pickled chunk lists (``chunks``), by row.

    Example:
        >>> from clinrag.types import Note
        >>> note = Note(note_id="1-DS-1", subject_id=1, hadm_id=None, note_type="DS", text="HPI: chest pain.")
        >>> batch = {"row": np.array([0]), "work": np.array([pickle.dumps(NoteWork(note, None, None, None, "d"))])}
        >>> out = chunk_batch(batch, SourceConfig(org="A"), IngestSettings())
        >>> [c.text for c in pickle.loads(out["chunks"][0])]
        ['History of Present Illness: chest pain.']
    """
    chunks = []
    for blob in batch["work"]:
        work: NoteWork = pickle.loads(blob)  # pickled by this run's driver, never read from input
        made = note_chunks(work.note, config, settings, work.name, work.admission, work.service)
        chunks.append(pickle.dumps(made))
    return {"row": batch["row"], "chunks": np.array(chunks, dtype=object)}


def ray_note_chunker(scale: ScaleSettings) -> NoteChunker:
    """A `NoteChunker` that runs a Ray Data pipeline per window of notes (Ray must be started: `ray_session`)."""

    def chunker(
        work: Iterator[NoteWork], config: SourceConfig, settings: IngestSettings
    ) -> Iterator[tuple[NoteWork, list[Chunk]]]:
        ray = require_ray()
        while window := list(itertools.islice(work, scale.window)):
            items = [{"row": row, "work": pickle.dumps(item)} for row, item in enumerate(window)]
            blocks = min(len(items), max(2 * scale.workers, -(-len(items) // NOTES_PER_BLOCK)))
            chunked = ray.data.from_items(items, override_num_blocks=blocks).map_batches(
                chunk_batch,
                fn_kwargs={"config": config, "settings": settings},
                batch_size=NOTES_PER_BLOCK,
                batch_format="numpy",
                compute=ray.data.TaskPoolStrategy(size=scale.workers),
                num_cpus=1,
            )
            made: list[list[Chunk] | None] = [None] * len(window)
            for batch in chunked.iter_batches(batch_size=None, batch_format="numpy"):
                for row, blob in zip(batch["row"], batch["chunks"], strict=True):
                    made[int(row)] = pickle.loads(blob)  # pickled by this run's tasks
            _log.debug("chunked %d notes on Ray", len(window))
            for item, chunks in zip(window, made, strict=True):
                if chunks is None:
                    raise RuntimeError(f"note {item.note.note_id}: the Ray pipeline returned no chunks for it")
                yield item, chunks

    return chunker
