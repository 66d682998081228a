"""Starting Ray, or joining a Ray cluster, for the ``ray`` engine; Ray is imported here and only when asked for.

``ray.init()`` starts Ray inside this process on this machine; ``ray.init(address=...)`` joins a cluster
(``ScaleSettings.ray_address``, else the ``RAY_ADDRESS`` variable). The pipelines are the same code either way.

Example:
    >>> from clinrag.settings import ScaleSettings
    >>> with ray_session(ScaleSettings(engine="ray", workers=1)) as ray:  # doctest: +SKIP
    ...     ray.cluster_resources()["CPU"] >= 1
    True
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

from clinrag.errors import MissingDependencyError
from clinrag.settings import ScaleSettings

SCALE_EXTRA = "scale"


def require_ray() -> ModuleType:
    """The ``ray`` module with Ray Data loaded, or `MissingDependencyError` naming the ``scale`` extra.

    Example:
        >>> try:
        ...     _ = require_ray()
        ... except MissingDependencyError as exc:
        ...     assert "clinrag[scale]" in str(exc)
    """
    try:
        import ray
        import ray.data  # the pipelines need Ray Data, not only Ray core
    except ImportError:
        raise MissingDependencyError("the Ray engine (--engine ray)", SCALE_EXTRA) from None
    return ray


@contextmanager
def ray_session(settings: ScaleSettings) -> Iterator[ModuleType]:
    """Ray, started in this process (no address) or joined (``settings.ray_address`` or ``RAY_ADDRESS``) for the
    duration of the block; a Ray already started by the caller is used as it is and left running.

    Ray's progress bars are turned off (the command draws its own) and nothing is reported to Ray's usage
    statistics service (nothing leaves the machine)."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray = require_ray()
    started = False
    if not ray.is_initialized():
        ray.init(
            address=settings.ray_address,
            include_dashboard=False,
            logging_level=logging.WARNING,
            log_to_driver=False,
            configure_logging=True,
        )
        started = True
    logging.getLogger("ray.data").setLevel(logging.WARNING)  # one line per pipeline run otherwise
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    context.print_on_execution_start = False
    try:
        yield ray
    finally:
        if started:
            ray.shutdown()
