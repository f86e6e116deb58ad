"""Python's cycle collector paused around work that allocates many objects and makes no cycles."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cycle collector off for the block: a load or a replay allocates millions of objects, none in a cycle,
    and the collector would walk every live object again and again (a fifth of a large load's time)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
