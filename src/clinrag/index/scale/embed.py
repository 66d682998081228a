"""The embedder as a Ray Data actor pool: each actor loads the node's embedder once and embeds batches of texts.

`RayEmbedder` has the `Embedder` interface: ``embed(texts)`` runs one Ray Data pipeline over the texts
(``from_items`` -> ``map_batches(EmbedActor, compute=ActorPoolStrategy(...))``, up to ``workers`` actors) and
returns their vectors in order. Its ``id`` and ``dimension`` are those of the embedder the settings choose, so an
index built through Ray is the same index (same manifest) as one built locally. Each call starts its actors (and
loads the model in each): call it with many texts at once (`clinrag.index.scale.build` hands it
``ScaleSettings.window`` chunks).

The default embedder (int8 MiniLM) runs each text alone, so a text's vector does not depend on the texts embedded
with it: the actors' vectors are bit for bit the local engine's. The fp32 variant pads batches of similar lengths,
so its vectors may differ from the local engine's within 1e-5 per component.

Example:
    >>> from clinrag.settings import IndexSettings
    >>> embedder = RayEmbedder(IndexSettings(), workers=2)
    >>> embedder.id, embedder.dimension
    ('all-MiniLM-L6-v2/onnx-int8-compute', 384)
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from clinrag.index.embed import Embedder, Vectors, embedder_from
from clinrag.ingest.scale.engine import require_ray
from clinrag.settings import IndexSettings

TEXTS_PER_CALL = 128  # texts per actor call
TEXTS_PER_BLOCK = 512  # texts per Ray block: several blocks per actor, so that the pool stays busy to the end


class EmbedActor:
    """One member of the actor pool: the settings' embedder, on one core, loaded once per actor.

    Example:
        >>> from clinrag.settings import IndexSettings
        >>> actor = EmbedActor(IndexSettings(), None)
        >>> out = actor({"row": np.array([3]), "text": np.array(["chest pain"], dtype=object)})
        >>> out["row"].tolist(), out["vector"].shape
        ([3], (1, 384))
    """

    def __init__(self, index: IndexSettings, cache_dir: Path | None) -> None:
        self.embedder = embedder_from(index.model_copy(update={"threads": 1}), cache_dir)
        load = getattr(self.embedder, "load", None)
        if callable(load):
            load()

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        """Vectors (``vector``) of a batch's texts (``text``), with their row numbers (``row``)."""
        vectors = self.embedder.embed([str(text) for text in batch["text"]])
        return {"row": batch["row"], "vector": vectors}


class RayEmbedder:
    """The settings' embedder run by a Ray Data actor pool of ``workers`` actors (see the module docstring).

    Ray must be started (`clinrag.ingest.scale.engine.ray_session`); with ``workers`` actors of one CPU each."""

    def __init__(self, index: IndexSettings, cache_dir: Path | None = None, workers: int = 2) -> None:
        self.index = index
        self.cache_dir = cache_dir
        self.workers = workers

    @cached_property
    def _local(self) -> Embedder:
        """The same embedder in this process, for its id and dimension only (never loaded here)."""
        return embedder_from(self.index, self.cache_dir)

    @property
    def id(self) -> str:
        """The id of the settings' embedder: the same manifest as the local engine's."""
        return self._local.id

    @property
    def dimension(self) -> int:
        """The settings' embedder's dimension."""
        return self._local.dimension

    def _startable(self, ray: Any) -> int:
        """Actors the cluster can start now (one CPU each), at most ``workers``: the pool starts with these and
        grows to ``workers`` if an autoscaler adds nodes, rather than waiting for CPUs that may never come."""
        cpus = int(ray.cluster_resources().get("CPU", 0))
        return max(1, min(self.workers, cpus))

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Vectors of ``texts`` in order, computed by the actor pool."""
        out: Vectors = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        ray = require_ray()
        items = [{"row": row, "text": text} for row, text in enumerate(texts)]
        blocks = min(len(items), max(2 * self.workers, -(-len(items) // TEXTS_PER_BLOCK)))
        dataset = ray.data.from_items(items, override_num_blocks=blocks)
        embedded = dataset.map_batches(
            EmbedActor,
            fn_constructor_kwargs={"index": self.index, "cache_dir": self.cache_dir},
            compute=ray.data.ActorPoolStrategy(min_size=self._startable(ray), max_size=self.workers),
            batch_size=TEXTS_PER_CALL,
            batch_format="numpy",
            num_cpus=1,
        )
        filled = 0
        for batch in embedded.iter_batches(batch_size=None, batch_format="numpy"):
            out[np.asarray(batch["row"], dtype=np.int64)] = batch["vector"]
            filled += len(batch["row"])
        if filled != len(texts):
            raise RuntimeError(f"the Ray pipeline returned {filled} vectors for {len(texts)} texts")
        return out
