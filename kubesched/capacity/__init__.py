"""``kubesched capacity``: how many more copies of a pod (or of a workload's pod) fit a cluster once it settles,
on which nodes, and why the next one does not; with ``--add-nodes``, how many nodes of a shape must be added."""

from kubesched.capacity.inputs import CapacityInput, load_capacity_input
from kubesched.capacity.result import AddedNodes, CapacityResult, Stop, Victim
from kubesched.capacity.run import DEFAULT_MAX_NODES, CapacityOptions, CapacityRun, capacity

__all__ = ["DEFAULT_MAX_NODES", "AddedNodes", "CapacityInput", "CapacityOptions", "CapacityResult", "CapacityRun",
           "Stop", "Victim", "capacity", "load_capacity_input"]
