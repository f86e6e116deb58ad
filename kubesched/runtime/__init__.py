"""The machinery that runs plugins: the Framework runtime, the scheduling loop, queue, cache and registry.

Plugins never import from here; they see only :mod:`kubesched.framework`. The modules below are private;
the application (``sim``, ``cli``, ``testing``) uses the names this package exports.
"""

from kubesched.runtime._cache import Cache
from kubesched.runtime._columns import ColumnStore
from kubesched.runtime._cycle import CycleRecord
from kubesched.runtime._cycle_observer import QUIET, CycleObserver, QuietObserver
from kubesched.runtime._explain import Attempt, Explainer
from kubesched.runtime._failures import Hook, PluginFailure, SlowCalls, Uncontained
from kubesched.runtime._framework import Framework
from kubesched.runtime._handle import RuntimeHandle
from kubesched.runtime._node_search import NodeSearch, NodeSearches, SearchError
from kubesched.runtime._nominator import Nominator
from kubesched.runtime._preemption import ResourceAccelerator
from kubesched.runtime._profile import PluginEntry, Profile
from kubesched.runtime._queue import (
    POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION,
    SchedulingQueue,
    Strategy,
    backoff_duration,
    requeue_strategy,
)
from kubesched.runtime._registry import (
    PluginRegistry,
    PluginSpec,
    load_plugin_class,
    new_plugin_manager,
    validate_plugin_class,
)
from kubesched.runtime._scheduler import AttemptObserver, Scheduler, SchedulerSettings
from kubesched.runtime._scores import ScoreTable, select_host
from kubesched.runtime._snapshot import NodeSnapshot
from kubesched.runtime._speed import FastPath, OffTheFastPath, fast_path
from kubesched.runtime._statuses import DeferredNodeToStatus, new_diagnosis
from kubesched.runtime._timeout import stop_timer as stop_plugin_timer

__all__ = [
    "POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION",
    "QUIET",
    "Attempt",
    "AttemptObserver",
    "Cache",
    "ColumnStore",
    "CycleObserver",
    "CycleRecord",
    "DeferredNodeToStatus",
    "Explainer",
    "FastPath",
    "Framework",
    "Hook",
    "NodeSearch",
    "NodeSearches",
    "NodeSnapshot",
    "Nominator",
    "OffTheFastPath",
    "PluginEntry",
    "PluginFailure",
    "PluginRegistry",
    "PluginSpec",
    "Profile",
    "QuietObserver",
    "ResourceAccelerator",
    "RuntimeHandle",
    "Scheduler",
    "SchedulerSettings",
    "SchedulingQueue",
    "ScoreTable",
    "SearchError",
    "SlowCalls",
    "Strategy",
    "Uncontained",
    "backoff_duration",
    "fast_path",
    "load_plugin_class",
    "new_diagnosis",
    "new_plugin_manager",
    "requeue_strategy",
    "select_host",
    "stop_plugin_timer",
    "validate_plugin_class",
]
