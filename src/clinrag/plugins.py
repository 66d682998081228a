"""Backends added by other packages, without forking clinrag: a package registers a factory under one of the entry
point groups below, and the setting that chooses the backend names it.

=====================  =====================================================  ====================================
group                  the factory is called as                               and returns
=====================  =====================================================  ====================================
``clinrag.embedders``  ``factory(settings: IndexSettings, cache_dir)``        an ``index.embed.Embedder``
``clinrag.generators`` ``factory(settings: AnswerSettings, paths)``           a ``generate.llm.Generator``
``clinrag.stores``     ``factory(settings: IndexSettings, index_root)``       an ``index.backend.LeafStores``
=====================  =====================================================  ====================================

The settings that name a backend: ``index.embedder``, ``answer.generator`` and ``index.backend``. A store
backend's factory gets the settings and a node's index folder, and returns that node's leaf indexes (listed, opened,
created, dropped), each leaf's index an ``index.store.VectorStore``.

A hospital's model server as an embedder, in its own package's ``pyproject.toml``::

    [project.entry-points."clinrag.embedders"]
    our-embedder = "our_package.clinrag_plugin:make_embedder"

and ``index.embedder = "our-embedder"`` in ``clinrag.toml``. A plugin's name may not be a built-in one: setting a
built-in name that an installed plugin also registers is a configuration error (rename the plugin). A backend must
pass the same conformance tests as the built-ins (``tests/index/test_embedder_contract.py``,
``tests/generate/test_generator_contract.py``, ``tests/index/test_store_contract.py``), which take any factory.

Example:
    >>> plugin_names(EMBEDDERS), plugin_names(STORES)  # none installed here
    ((), ())
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Final

from clinrag.errors import ConfigError

EMBEDDERS: Final = "clinrag.embedders"
"""Entry point group of embedder factories."""

GENERATORS: Final = "clinrag.generators"
"""Entry point group of generator factories."""

STORES: Final = "clinrag.stores"
"""Entry point group of vector store backend factories."""


def plugin_names(group: str) -> tuple[str, ...]:
    """The names registered under ``group`` by installed packages, sorted (nothing is imported)."""
    return tuple(sorted({point.name for point in entry_points(group=group)}))


def load_plugin(group: str, name: str) -> Callable[..., object]:
    """The factory registered as ``name`` under ``group``, imported now.

    Raises:
        ConfigError: no installed package registers ``name`` (the message lists those that do), or importing it
            failed (the message names the package's entry point).
    """
    found = [point for point in entry_points(group=group) if point.name == name]
    if not found:
        known = ", ".join(plugin_names(group)) or "none installed"
        raise ConfigError(f"no {group} plugin named {name!r} (installed: {known})")
    point = found[0]
    try:
        factory = point.load()
    except Exception as exc:  # a plugin's own import error, whatever it is, is a configuration problem here
        raise ConfigError(f"the {group} plugin {name!r} ({point.value}) failed to load: {exc}") from exc
    if not callable(factory):
        raise ConfigError(f"the {group} plugin {name!r} ({point.value}) is not callable")
    return factory  # type: ignore[no-any-return]
