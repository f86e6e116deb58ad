"""DefaultPreemption (PostFilter): when no node fits, evict lower-priority pods from one node and nominate it.

The work is done by :class:`~kubesched.framework.Evaluator` (synchronous preemption: victims are
deleted within the scheduling cycle). Args choose how many candidate nodes the dry run looks for: at least
``min-candidate-nodes-percentage`` percent of the potential nodes and at least ``min-candidate-nodes-absolute``.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import attrs

from kubesched.api import Pod
from kubesched.framework import (
    ArgsError,
    ClusterEventWithHint,
    CycleState,
    Evaluator,
    Handle,
    NodeToStatus,
    Plugin,
    PostFilterResult,
    ResourceShortcut,
    Status,
    hookimpl,
    in_range,
)

NAME = "DefaultPreemption"
MESSAGE_PREFIX = "preemption: "
#: NodeResourcesFit, whose checks the dry run repeats by arithmetic when every other Filter plugin of the cycle
#: declares it reads only the Node object (``filter_reads = FilterReads.NODE``; see ResourceShortcut).
RESOURCE_SHORTCUT = ResourceShortcut("NodeResourcesFit")


@attrs.frozen
class DefaultPreemptionArgs:
    """How many candidate nodes the dry run looks for (kube's DefaultPreemptionArgs; not both zero)."""

    min_candidate_nodes_percentage: int = attrs.field(
        default=10, validator=in_range(0, 100, message="Invalid value: {value}: not in valid range [0, 100]"))
    min_candidate_nodes_absolute: int = attrs.field(
        default=100, validator=in_range(0, math.inf, message="Invalid value: {value}: not in valid range [0, inf)"))

    def __attrs_post_init__(self) -> None:
        if self.min_candidate_nodes_percentage == 0 and self.min_candidate_nodes_absolute == 0:
            raise ArgsError("Invalid value: 0: cannot be zero at the same time as min-candidate-nodes-absolute",
                            "min-candidate-nodes-percentage")


class DefaultPreemption(Plugin):
    """Preempts lower-priority pods so the pod fits on the best node, which becomes its nominated node.
    Subclasses may set ``evaluator_class`` to an :class:`Evaluator` subclass overriding its hooks."""

    name = NAME
    Args = DefaultPreemptionArgs
    evaluator_class: ClassVar[type[Evaluator]] = Evaluator

    def __init__(self, handle: Handle, args: Any = None) -> None:
        args = args if args is not None else DefaultPreemptionArgs()
        super().__init__(handle, args)
        self.evaluator = self.evaluator_class(
            self.name, handle, min_candidate_nodes_percentage=args.min_candidate_nodes_percentage,
            min_candidate_nodes_absolute=args.min_candidate_nodes_absolute)
        self.evaluator.resource_shortcut = RESOURCE_SHORTCUT

    @hookimpl
    def events_to_register(self) -> list[ClusterEventWithHint]:
        """None: PostFilter never rejects a pod (v1.32 without async preemption registers nothing)."""
        return []

    @hookimpl
    def post_filter(self, state: CycleState, pod: Pod,
                    filtered_node_status: NodeToStatus) -> tuple[PostFilterResult | None, Status | None]:
        """Run preemption; a message is prefixed with "preemption: " as kube-scheduler does."""
        result, status = self.evaluator.preempt(state, pod, filtered_node_status)
        message = status.message()
        if message:
            status = Status(status.code, (MESSAGE_PREFIX + message,), status.plugin, status.error)
        return result, status
