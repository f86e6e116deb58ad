"""docs/queue.md: its plugin example runs, its hint answers as the page says, and its testing examples pass."""

from __future__ import annotations

import re
from typing import Any

import pytest

from kubesched.framework import QueueingHint
from kubesched.testing import make_node, make_pod
from tests.conftest import REPO

DOC = (REPO / "docs" / "queue.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"^```python\n(.*?)^```", DOC, flags=re.S | re.M)
(PLUGIN,) = [code for code in BLOCKS if "class GpuGuard" in code]
TESTING = [code for code in BLOCKS if code is not PLUGIN]


def example() -> Any:
    """The GpuGuard class the page's plugin example defines."""
    namespace: dict[str, Any] = {}
    exec(compile(PLUGIN, "docs/queue.md", "exec"), namespace)
    return namespace["GpuGuard"]


def test_the_example_plugin_queues_only_for_a_node_that_gains_the_gpu_label() -> None:
    """The example's hint: Queue for a node added with the gpu label or labelled so, Skip otherwise."""
    plugin = example()(None, None)
    (registration,) = plugin.events_to_register()
    pod = make_pod("p").obj()
    gpu, plain = make_node("n").label(gpu="yes").obj(), make_node("n").obj()
    answers = [registration.hint(pod, old, new) for old, new in ((None, gpu), (None, plain), (plain, gpu), (gpu, gpu))]
    assert answers == [QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP, QueueingHint.QUEUE, QueueingHint.QUEUE_SKIP]


def test_the_page_has_the_hint_and_the_queue_examples() -> None:
    """The testing section shows hint() and the queue kit, each in a block of its own."""
    assert [("hint(" in code, "place(" in code) for code in TESTING] == [(True, False), (False, True)]


@pytest.mark.parametrize("code", TESTING, ids=["hint", "queue"])
def test_a_testing_example_passes_as_written(code: str) -> None:
    """Each testing example runs, and every assert in it holds."""
    exec(compile(code, "docs/queue.md", "exec"), {})
