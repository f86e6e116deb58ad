"""What a plugin is: a class with a ``name``, hook methods marked with :data:`hookimpl`, optional ``Args``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import attrs
import pluggy

from kubesched.framework.hookspecs import PROJECT_NAME

if TYPE_CHECKING:
    from kubesched.framework.handle import Handle

#: Marks a plugin method as the implementation of the hook with the same name.
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@attrs.frozen
class ExtensionPoint:
    """An extension point: its kube-scheduler name, its profile key, and the hooks that make it up."""

    name: str
    key: str
    hook: str
    #: Hooks that only make sense together with ``hook`` (PreFilter extensions, NormalizeScore, Unreserve).
    companions: tuple[str, ...] = ()


EXTENSION_POINTS: tuple[ExtensionPoint, ...] = (
    ExtensionPoint("PreEnqueue", "pre-enqueue", "pre_enqueue"),
    ExtensionPoint("QueueSort", "queue-sort", "queue_sort_less"),
    ExtensionPoint("PreFilter", "pre-filter", "pre_filter", ("pre_filter_add_pod", "pre_filter_remove_pod")),
    ExtensionPoint("Filter", "filter", "filter"),
    ExtensionPoint("PostFilter", "post-filter", "post_filter"),
    ExtensionPoint("PreScore", "pre-score", "pre_score"),
    ExtensionPoint("Score", "score", "score", ("normalize_score",)),
    ExtensionPoint("Reserve", "reserve", "reserve", ("unreserve",)),
    ExtensionPoint("Permit", "permit", "permit"),
    ExtensionPoint("PreBind", "pre-bind", "pre_bind"),
    ExtensionPoint("Bind", "bind", "bind"),
    ExtensionPoint("PostBind", "post-bind", "post_bind"),
)
POINTS_BY_KEY = {p.key: p for p in EXTENSION_POINTS}
HOOK_NAMES = frozenset(h for p in EXTENSION_POINTS for h in (p.hook, *p.companions))


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

    def __init__(self, handle: Handle, args: Any = None) -> None:
        self.handle = handle
        self.args = args
