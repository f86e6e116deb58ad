"""What a plugin is: a class with a ``name``, hook methods marked with :data:`hookimpl`, optional ``Args``.

The extension point table lives in :mod:`kubesched.framework._hookspecs`.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

import pluggy

from kubesched.framework._hookspecs import EXTENSION_POINTS, PROJECT_NAME, ExtensionPoint

if TYPE_CHECKING:
    from kubesched.framework._handle import Handle

#: Marks a plugin method as the implementation of the hook with the same name.
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)

__all__ = ["FilterReads", "Plugin", "declared_filter_reads", "extension_points", "filter_reason_counts_of",
           "hookimpl", "marked_hooks"]

#: The methods whose behaviour a ``filter_reads`` declaration describes: a subclass redefining one drops it.
_FILTER_METHODS = ("filter", "filter_nodes", "filter_reason_counts")


class FilterReads(enum.Flag):
    """What a Filter plugin's verdict and status on a node read besides the pod and the cycle state, declared by
    the class attribute ``filter_reads``. The runtime then stands in for node copies: with nominated pods it
    overlays their requests on the columns instead of filtering a copy with the pods added, and it groups nodes
    whose statuses must be equal. An undeclared plugin may read anything, the node's pods included."""

    #: The Node object only (name, labels, taints, spec), never the node's pods or their sums.
    NODE = enum.auto()
    #: The node's allocatable amounts, its pods' requested amounts and its pod count, nothing else.
    RESOURCES = enum.auto()


def _declarer(cls: type, attribute: str) -> type | None:
    return next((klass for klass in cls.__mro__ if attribute in vars(klass)), None)


def _redefined_below(cls: type, declarer: type) -> bool:
    """Whether a class between ``cls`` and ``declarer`` (``cls`` included) redefines a Filter method."""
    for klass in cls.__mro__:
        if klass is declarer:
            return False
        if any(name in vars(klass) for name in _FILTER_METHODS):
            return True
    return False


def declared_filter_reads(plugin: type | object) -> FilterReads | None:
    """The plugin's ``filter_reads`` declaration; None when it has none, or when a subclass of the declaring class
    redefines ``filter``, ``filter_nodes`` or ``filter_reason_counts`` (the declaration may no longer hold)."""
    cls = plugin if isinstance(plugin, type) else type(plugin)
    declarer = _declarer(cls, "filter_reads")
    if declarer is None:
        return None
    value = vars(declarer)["filter_reads"]
    if not isinstance(value, FilterReads) or _redefined_below(cls, declarer):
        return None
    return value


def filter_reason_counts_of(plugin: object) -> Callable[..., Any] | None:
    """The plugin's ``filter_reason_counts(state, pod, node_batch)`` method (reason counts over nodes its
    ``filter_nodes`` rejected), or None when it has none or a subclass redefines ``filter`` or ``filter_nodes``
    below the class defining it (the counts may no longer match the statuses)."""
    cls = type(plugin)
    declarer = _declarer(cls, "filter_reason_counts")
    if declarer is None or _redefined_below(cls, declarer):
        return None
    method = getattr(plugin, "filter_reason_counts", None)
    return method if callable(method) else None


def marked_hooks(plugin: type | object) -> set[str]:
    """The names of the methods marked with :data:`hookimpl` on a plugin class or instance."""
    marker = f"{PROJECT_NAME}_impl"
    found = set()
    for attr in dir(plugin):
        if attr.startswith("_"):
            continue
        method = getattr(plugin, attr, None)
        if callable(method) and getattr(method, marker, None) is not None:
            found.add(attr)
    return found


def extension_points(plugin: type | object) -> list[ExtensionPoint]:
    """The extension points a plugin implements, in framework order."""
    hooks = marked_hooks(plugin)
    return [p for p in EXTENSION_POINTS if p.hook in hooks]


class Plugin:
    """Convenience base class: stores the handle and the args.

    Subclassing is optional. The framework constructs a plugin as ``cls(handle, args)`` where ``args`` is
    an instance of ``cls.Args`` (an attrs class filled from the profile's plugin-config) or None.
    """

    name: ClassVar[str]
    Args: ClassVar[type[Any] | None] = None
    #: What the plugin's Filter reads (see :class:`FilterReads`); None: anything, the node's pods included.
    filter_reads: ClassVar[FilterReads | None] = None

    def __init__(self, handle: Handle, args: Any = None) -> None:
        self.handle = handle
        self.args = args
