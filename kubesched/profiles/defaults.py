"""kube-scheduler's default plugin set (the v1 multiPoint list), for the plugins kubesched ships.

The order and weights are kube-scheduler's. Left out: the DRA plugin (out of scope).
"""

from __future__ import annotations

from kubesched.runtime import PluginEntry

DEFAULT_SCHEDULER_NAME = "default-scheduler"

DEFAULT_MULTI_POINT: tuple[PluginEntry, ...] = (
    PluginEntry("SchedulingGates"),
    PluginEntry("PrioritySort"),
    PluginEntry("NodeUnschedulable"),
    PluginEntry("NodeName"),
    PluginEntry("TaintToleration", 3),
    PluginEntry("NodeAffinity", 2),
    PluginEntry("NodePorts"),
    PluginEntry("NodeResourcesFit", 1),
    PluginEntry("VolumeRestrictions"),
    PluginEntry("NodeVolumeLimits"),
    PluginEntry("VolumeBinding"),
    PluginEntry("VolumeZone"),
    PluginEntry("PodTopologySpread", 2),
    PluginEntry("InterPodAffinity", 2),
    PluginEntry("DefaultPreemption"),
    PluginEntry("NodeResourcesBalancedAllocation", 1),
    PluginEntry("ImageLocality", 1),
    PluginEntry("DefaultBinder"),
)
