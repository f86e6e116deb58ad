"""What a plugin's events and hints make of one cluster change for one pod it rejected, by the runtime's own rules.

``hint(NodeAffinity, pod, NODE_ADD, None, node)`` answers as the scheduling queue would decide whether the new
node may help ``pod`` after NodeAffinity rejected it: through the plugin's ``events_to_register`` as the runtime
reads it (no hook: every event, always Queue; Node/Add also brings Node/UpdateNodeTaint, always Queue), the
event matching, the wildcard events, and a hint that raises or answers something else counting as Queue.
"""

from __future__ import annotations

from typing import Any

from kubesched.api.pod import Pod
from kubesched.framework._events import ClusterEvent, QueueingHint
from kubesched.framework._node_info import PodInfo
from kubesched.framework._types import QueuedPodInfo
from kubesched.runtime import Framework, RuntimeHandle, Strategy, requeue_strategy
from kubesched.testing.frameworks import plugin_class
from kubesched.testing.harness import built, plugin_framework


def hint(plugin: Any, pod: Pod | Any, event: ClusterEvent, old: Any = None, new: Any = None, *,
         args: Any = None) -> QueueingHint:
    """Queue when ``event`` (from ``old`` to ``new``: None for an Add's old, a Delete's new) may make ``pod`` (a Pod
    or a builder) schedulable after ``plugin`` rejected it, QueueSkip when the pod stays unschedulable.

    ``plugin`` is a plugin class (built with ``args`` as :func:`~kubesched.testing.plugin_framework` builds it),
    the name of a built-in or installed plugin, or an instance :func:`~kubesched.testing.plugin_instance` built
    (its own framework answers, so a hint sees the state the instance has).
    """
    framework, name = _framework_of(plugin, args)
    info = QueuedPodInfo(PodInfo.of(built([pod])[0]), 0.0, unschedulable_plugins={name})
    strategy = requeue_strategy(info, event, old, new, framework.queueing_hint_strategy)
    return QueueingHint.QUEUE_SKIP if strategy is Strategy.SKIP else QueueingHint.QUEUE


def _framework_of(plugin: Any, args: Any) -> tuple[Framework, str]:
    """The framework whose registrations answer for ``plugin``, and the plugin's name in it."""
    if isinstance(plugin, type | str):
        cls = plugin_class(plugin)
        return plugin_framework(cls, args), cls.name
    handle = getattr(plugin, "handle", None)
    framework = handle.framework if isinstance(handle, RuntimeHandle) else None
    if isinstance(framework, Framework):
        for name, instance in framework.plugins.items():
            if instance is plugin:
                return framework, name
    raise TypeError(f"hint: {type(plugin).__name__} instance was not built by the testing kit; pass the plugin "
                    "class (or its name), or an instance from kubesched.testing.plugin_instance")
