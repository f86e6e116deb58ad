"""Python's cycle collector paused around work that allocates many objects and makes no cycles."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused(*, freeze: bool = False) -> Iterator[None]:
    """The collector off for the block: a load or a replay allocates millions of objects, none in a cycle,
    and the collector would walk every live object again and again (a fifth of a large load's time). With
    ``freeze``, every object alive when the block ends normally is moved out of the collector's reach
    (``gc.freeze``): for objects that live to the end of the process, such as a command's input, which
    the collector would otherwise walk once when it resumes and again at each full pass of the run. They are
    still freed when no longer referenced; only a cycle already garbage then would never be collected."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
        if freeze:
            gc.freeze()
    finally:
        if enabled:
            gc.enable()
