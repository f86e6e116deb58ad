"""Specification of the hostile plugin modes of issue 24 not covered elsewhere: a hook that recurses without end, one
that runs out of memory, one whose message is 20 MB, and garbage returns. Each fails only the pod it was working
on, as that plugin's error, and the run goes on; the message a user reads stays short."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kubesched.api.pod import Pod
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.runtime import PluginRegistry
from tests.runtime.test_hostile_base_exceptions import run_with


def _recurse(depth: int) -> int:
    return _recurse(depth + 1) + 1


def _recursion() -> Any:
    return _recurse(0)


def _out_of_memory() -> Any:
    raise MemoryError


def _twenty_megabytes() -> Any:
    raise ValueError("x" * (20 * 1024 * 1024))


def hostile(hook: str, behave: Any, result: Any = None) -> type[Plugin]:
    """A plugin whose ``hook`` calls ``behave()`` for pod p0 (its return is the hook's) and returns ``result`` for
    the others."""
    def body(self: Plugin, state: Any, pod: Pod) -> Any:
        return behave() if pod.name == "p0" else result

    name = f"Hostile{hook.title().replace('_', '')}{behave.__name__.title().replace('_', '')}"
    body.__name__, body.__qualname__ = hook, f"{name}.{hook}"
    return type(name, (Plugin,), {"name": name, hook: hookimpl(body)})


@pytest.mark.parametrize(("key", "hook", "behave", "result", "said"), [
    pytest.param("filter", "filter", _recursion, None, "RecursionError", id="filter-recursion"),
    pytest.param("score", "score", _recursion, 0, "RecursionError", id="score-recursion"),
    pytest.param("filter", "filter", _out_of_memory, None, "MemoryError", id="filter-memory-error"),
    pytest.param("pre-filter", "pre_filter", _out_of_memory, None, "MemoryError", id="pre-filter-memory-error"),
    pytest.param("filter", "filter", _twenty_megabytes, None, "xxx... (20971520 characters)",
                 id="filter-20-mb-message-cut"),
    pytest.param("filter", "filter", lambda: 42, None, "", id="filter-returns-an-int"),
    pytest.param("score", "score", lambda: "high", 0, "", id="score-returns-a-string"),
    pytest.param("score", "score", lambda: float("nan"), 0, "", id="score-returns-nan"),
    pytest.param("pre-filter", "pre_filter", lambda: object(), None, "", id="pre-filter-returns-an-object"),
])
def test_a_hostile_hook_fails_only_its_pod_with_a_short_message(registry: PluginRegistry, tmp_path: Path, key: str,
                                                                 hook: str, behave: Any, result: Any,
                                                                 said: str) -> None:
    """p0 stays Pending with the plugin's error (named, the exception's kind said, cut short); p1 is bound."""
    behave.__name__ = behave.__name__.strip("_<>")
    plugin = hostile(hook, behave, result)
    outcome = run_with(tmp_path, registry, plugin, key)
    (p0, p1) = outcome.pods
    assert (p0.phase, p1.phase, p1.message) == ("Pending", "Bound", "")
    assert plugin.name in p0.message
    assert said in p0.message
    assert len(p0.message) < 5000
