"""What a plugin is: a class with a ``name``, hook methods marked with :data:`hookimpl`, optional ``Args``.

The extension point table lives in :mod:`kubesched.framework.hookspecs`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import pluggy

from kubesched.framework.hookspecs import (  # the table lives in hookspecs; re-exported for existing imports
    EXTENSION_POINTS,
    HOOK_NAMES,
    POINTS_BY_KEY,
    PROJECT_NAME,
    ExtensionPoint,
)

if TYPE_CHECKING:
    from kubesched.framework.handle import Handle

#: Marks a plugin method as the implementation of the hook with the same name.
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)

__all__ = ["EXTENSION_POINTS", "HOOK_NAMES", "POINTS_BY_KEY", "ExtensionPoint", "Plugin", "extension_points",
           "hookimpl", "marked_hooks"]


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
