"""What keeps a plugin off the fast path, read from its class alone: its hooks and its ``filter_reads``
declaration, never its name. Each note comes from the predicate the runtime itself decides by (the batch forms it
calls, :func:`~kubesched.runtime._batch_filter.overlay_reads` for the two-pass filter on overlaid columns,
:func:`~kubesched.runtime._preemption.dry_run_reads` and the PreFilter extensions for preemption's dry run by
arithmetic), so the notes cannot drift from what the scheduler does. ``kubesched plugins`` and the conformance
report show them.

PreFilter and PreScore without ``pre_filter_nodes``/``pre_score_nodes`` get no note: the batch path calls them
once per cycle with the node list, as the per-node path does.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

import attrs

from kubesched.framework._hookspecs import BATCH_FORMS
from kubesched.framework._plugin import FilterReads, declared_filter_reads, marked_hooks
from kubesched.framework.preemption import ResourceShortcut
from kubesched.runtime._batch_filter import OVERLAY_ADD_POD_HOOK, overlay_reads
from kubesched.runtime._failures import HOOK_LABELS
from kubesched.runtime._preemption import DRY_RUN_EXTENSION_HOOKS, dry_run_reads

#: Per per-node hook the batch path calls node by node when the plugin lacks the batch form, what that means.
_PER_NODE: Mapping[str, str] = MappingProxyType({
    "filter": "Filter runs node by node",
    "score": "Score runs node by node",
    "normalize_score": "NormalizeScore runs on NodeScore objects built node by node",
})
_BATCH_FORM_OF = {per_node: batch for batch, per_node in BATCH_FORMS.items()}
_NOMINATED = "nodes with nominated pods take the per-node two-pass filter"
_DRY_RUN = "preemption's dry run runs Filter on node copies"


@attrs.frozen
class OffTheFastPath:
    """One thing that keeps a plugin off part of the fast path: the cause (short, for a table) and its effect."""

    cause: str
    effect: str

    def __str__(self) -> str:
        return f"{self.cause}: {self.effect}"


@attrs.frozen
class FastPath:
    """A plugin class's part in the fast path: its batch forms, its ``filter_reads`` declaration in effect, and
    what keeps it off (nothing for a plugin fully on the fast path)."""

    batch_forms: tuple[str, ...]
    filter_reads: FilterReads | None
    notes: tuple[OffTheFastPath, ...]

    @property
    def sentences(self) -> list[str]:
        """The notes as sentences (``cause: effect``), in a fixed order."""
        return [str(note) for note in self.notes]

    def to_json(self) -> dict[str, object]:
        """``{"batchForms": [...], "filterReads": "NODE"|"RESOURCES"|null, "offTheFastPath": [sentences]}``."""
        return {"batchForms": list(self.batch_forms),
                "filterReads": self.filter_reads.name if self.filter_reads is not None else None,
                "offTheFastPath": self.sentences}


def fast_path(plugin: type, *, resource_shortcut: ResourceShortcut | None) -> FastPath:
    """What keeps the plugin class ``plugin`` off the fast path, from its hooks and declarations.
    ``resource_shortcut`` is the preemption plugin's (DefaultPreemption's in the default profile); None when it has
    none: its dry run then always runs Filter on node copies, which no plugin's declaration changes, so no note
    says so."""
    hooks = marked_hooks(plugin)
    reads = declared_filter_reads(plugin)
    per_node = {hook: OffTheFastPath(f"no {_BATCH_FORM_OF[hook]}", effect) for hook, effect in _PER_NODE.items()
                if hook in hooks and _BATCH_FORM_OF[hook] not in hooks}
    notes = [*filter(None, [per_node.get("filter")]),
             *(_declaration_notes(plugin, reads, resource_shortcut) if "filter" in hooks else []),
             *_extension_notes(hooks, resource_shortcut),
             *filter(None, [per_node.get("score"), per_node.get("normalize_score")])]
    return FastPath(tuple(batch for batch in BATCH_FORMS if batch in hooks), reads, tuple(notes))


def _declaration_notes(plugin: type, reads: FilterReads | None, shortcut: ResourceShortcut | None
                       ) -> list[OffTheFastPath]:
    """What the Filter plugin's ``filter_reads`` declaration (or its absence) costs."""
    fit = shortcut is not None and getattr(plugin, "name", None) == shortcut.fit_name
    needed = dry_run_reads(fit=fit)
    effects = []
    if not overlay_reads(plugin):
        effects.append(_NOMINATED)
    if shortcut is not None and reads != needed:
        effects.append(f"{_DRY_RUN} while this plugin filters")
    if not effects:
        return []
    effect = ", and ".join(effects)
    if reads is not None:
        if shortcut is not None and reads != needed:
            whose = shortcut.fit_name if fit else f"every Filter plugin but {shortcut.fit_name}"
            effect += f" (its arithmetic needs {needed.name} of {whose})"
        return [OffTheFastPath(f"filter_reads {reads.name}", effect)]
    if isinstance(getattr(plugin, "filter_reads", None), FilterReads):
        return [OffTheFastPath("filter_reads dropped", "a subclass redefines Filter below the declaration, which "
                                                       f"no longer holds, so {effect}")]
    return [OffTheFastPath("no filter_reads declaration", effect)]


def _extension_notes(hooks: set[str], shortcut: ResourceShortcut | None) -> list[OffTheFastPath]:
    """What the plugin's PreFilter AddPod/RemovePod extensions cost while they run (PreFilter did not skip)."""
    present = [hook for hook in dict.fromkeys((OVERLAY_ADD_POD_HOOK, *DRY_RUN_EXTENSION_HOOKS)) if hook in hooks]
    effects = []
    if OVERLAY_ADD_POD_HOOK in hooks:
        effects.append(_NOMINATED)
    if shortcut is not None and any(hook in hooks for hook in DRY_RUN_EXTENSION_HOOKS):
        effects.append(_DRY_RUN)
    if not effects:
        return []
    names = "/".join(HOOK_LABELS[hook].removeprefix("PreFilter ") for hook in present)
    which = "these extensions run" if len(present) > 1 else "this extension runs"
    return [OffTheFastPath(f"PreFilter {names}", f"while {which}, {', and '.join(effects)}")]
