"""The workload controllers of the simulation: each creates pods from a template as its kube-controller-manager
counterpart does (names, ownerReferences, labels) and reacts to the cluster's events through the
:class:`~kubesched.sim.controllers.manager.ControllerManager`; the storage control loop
(:class:`~kubesched.sim.controllers.storage.StorageController`) binds and provisions claims."""

from kubesched.sim.controllers.host import ControllerSettings
from kubesched.sim.controllers.manager import ControllerManager
from kubesched.sim.controllers.storage import StorageController, StorageSettings

__all__ = ["ControllerManager", "ControllerSettings", "StorageController", "StorageSettings"]
