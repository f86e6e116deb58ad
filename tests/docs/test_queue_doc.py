"""docs/queue.md: its plugin example runs, and its hint answers as the page says."""

from __future__ import annotations

import re
from typing import Any

from kubesched.framework._events import QueueingHint
from kubesched.testing import make_node, make_pod
from tests.conftest import REPO

DOC = (REPO / "docs" / "queue.md").read_text(encoding="utf-8")


def example() -> Any:
    """The GpuGuard class the page's python block defines."""
    (code,) = re.findall(r"^```python\n(.*?)^```", DOC, flags=re.S | re.M)
    namespace: dict[str, Any] = {}
    exec(compile(code, "docs/queue.md", "exec"), namespace)
    return namespace["GpuGuard"]


def test_the_example_plugin_queues_only_for_a_node_that_gains_the_gpu_label() -> None:
    """The example's hint: Queue for a node added with the gpu label or labelled so, Skip otherwise."""
    plugin = example()(None, None)
    (registration,) = plugin.events_to_register()
    pod = make_pod("p").obj()
    gpu, plain = make_node("n").label(gpu="yes").obj(), make_node("n").obj()
    answers = [registration.hint(pod, old, new) for old, new in ((None, gpu), (None, plain), (plain, gpu), (gpu, gpu))]
    assert answers == [QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP, QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP]
