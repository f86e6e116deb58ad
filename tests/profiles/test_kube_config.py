"""A KubeSchedulerConfiguration YAML is read onto the same model as a TOML profile, with the same validation."""

from __future__ import annotations

import re
from pathlib import Path

import attrs
import pytest

from kubesched.errors import ProfileError
from kubesched.framework._args import ArgsError, in_range
from kubesched.framework._plugin import Plugin, hookimpl
from kubesched.framework._status import Status
from kubesched.plugins.noderesources.fit import MOST_ALLOCATED
from kubesched.profiles import load_config, render_kube_config
from kubesched.profiles.config import SchedulerConfiguration
from kubesched.runtime import PluginRegistry

HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"

# What the real kube-scheduler v1.32 writes with --write-config-to for a file giving only clientConnection
# (trimmed to the fields that matter here; pluginConfig kept whole, multiPoint with its weight-0 entries).
REAL_DEFAULTED = HEADER + """\
clientConnection:
  acceptContentTypes: ""
  burst: 100
  contentType: application/vnd.kubernetes.protobuf
  kubeconfig: /etc/kubernetes/scheduler.conf
  qps: 50
enableContentionProfiling: true
enableProfiling: true
leaderElection:
  leaderElect: true
  leaseDuration: 15s
  renewDeadline: 10s
  resourceLock: leases
  resourceName: kube-scheduler
  resourceNamespace: kube-system
  retryPeriod: 2s
parallelism: 16
percentageOfNodesToScore: 0
podInitialBackoffSeconds: 1
podMaxBackoffSeconds: 10
profiles:
- pluginConfig:
  - args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: DefaultPreemptionArgs
      minCandidateNodesAbsolute: 100
      minCandidateNodesPercentage: 10
    name: DefaultPreemption
  - args:
      apiVersion: kubescheduler.config.k8s.io/v1
      hardPodAffinityWeight: 1
      ignorePreferredTermsOfExistingPods: false
      kind: InterPodAffinityArgs
    name: InterPodAffinity
  - args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: NodeAffinityArgs
    name: NodeAffinity
  - args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: NodeResourcesBalancedAllocationArgs
      resources:
      - name: cpu
        weight: 1
      - name: memory
        weight: 1
    name: NodeResourcesBalancedAllocation
  - args:
      apiVersion: kubescheduler.config.k8s.io/v1
      kind: NodeResourcesFitArgs
      scoringStrategy:
        resources:
        - name: cpu
          weight: 1
        - name: memory
          weight: 1
        type: LeastAllocated
    name: NodeResourcesFit
  - args:
      apiVersion: kubescheduler.config.k8s.io/v1
      defaultingType: System
      kind: PodTopologySpreadArgs
    name: PodTopologySpread
  - args:
      apiVersion: kubescheduler.config.k8s.io/v1
      bindTimeoutSeconds: 600
      kind: VolumeBindingArgs
    name: VolumeBinding
  plugins:
    bind: {}
    filter: {}
    multiPoint:
      enabled:
      - {name: SchedulingGates, weight: 0}
      - {name: PrioritySort, weight: 0}
      - {name: NodeUnschedulable, weight: 0}
      - {name: NodeName, weight: 0}
      - {name: TaintToleration, weight: 3}
      - {name: NodeAffinity, weight: 2}
      - {name: NodePorts, weight: 0}
      - {name: NodeResourcesFit, weight: 1}
      - {name: VolumeRestrictions, weight: 0}
      - {name: NodeVolumeLimits, weight: 0}
      - {name: VolumeBinding, weight: 0}
      - {name: VolumeZone, weight: 0}
      - {name: PodTopologySpread, weight: 2}
      - {name: InterPodAffinity, weight: 2}
      - {name: DefaultPreemption, weight: 0}
      - {name: NodeResourcesBalancedAllocation, weight: 1}
      - {name: ImageLocality, weight: 1}
      - {name: DefaultBinder, weight: 0}
    permit: {}
    postBind: {}
    postFilter: {}
    preBind: {}
    preEnqueue: {}
    preFilter: {}
    preScore: {}
    queueSort: {}
    reserve: {}
    score: {}
  schedulerName: default-scheduler
"""


def load_kube(tmp_path: Path, registry: PluginRegistry, text: str, name: str = "sched.yaml") -> SchedulerConfiguration:
    """Write ``text`` as a kube-scheduler configuration file and load it."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_config(str(path), registry)


def kube_error(tmp_path: Path, registry: PluginRegistry, text: str) -> str:
    """The one-line error loading ``text`` as ``sched.yaml`` raises, without the temporary folder."""
    with pytest.raises(ProfileError) as caught:
        load_kube(tmp_path, registry, text)
    return str(caught.value).replace(f"{tmp_path}/", "")


def toml_config(tmp_path: Path, registry: PluginRegistry, text: str) -> SchedulerConfiguration:
    """Write ``text`` as a TOML profile and load it."""
    path = tmp_path / "profile.toml"
    path.write_text(text, encoding="utf-8")
    return load_config(str(path), registry)


# -- translation ------------------------------------------------------------------------------------------
def test_real_kube_scheduler_defaulted_config_is_the_default_profile(tmp_path: Path,
                                                                     registry: PluginRegistry) -> None:
    """The configuration kube-scheduler writes for its defaults loads to kubesched's default profile."""
    config = load_kube(tmp_path, registry, REAL_DEFAULTED)
    default = load_config("default", registry)
    assert (config.settings, config.profiles) == (default.settings, default.profiles)


def test_real_defaulted_config_loads_without_warnings(tmp_path: Path, registry: PluginRegistry) -> None:
    """kubesched models every plugin of kube-scheduler's defaulted configuration, the four volume plugins too."""
    assert load_kube(tmp_path, registry, REAL_DEFAULTED).warnings == ()


SAME_AS_TOML = [
    pytest.param("""
percentageOfNodesToScore: 30
podInitialBackoffSeconds: 2
podMaxBackoffSeconds: 20
""", """
percentage-of-nodes-to-score = 30
pod-initial-backoff-seconds = 2
pod-max-backoff-seconds = 20
""", id="settings"),
    pytest.param("""
profiles:
- schedulerName: a
  percentageOfNodesToScore: 40
- schedulerName: b
""", """
[[profiles]]
scheduler-name = "a"
percentage-of-nodes-to-score = 40
[[profiles]]
scheduler-name = "b"
""", id="profiles-and-per-profile-percentage"),
    pytest.param("""
profiles:
- plugins:
    filter:
      disabled: [{name: TaintToleration}]
    score:
      enabled: [{name: NodeAffinity, weight: 5}]
      disabled: [{name: ImageLocality}]
""", """
[[profiles]]
[profiles.plugins.filter]
disabled = [{ name = "TaintToleration" }]
[profiles.plugins.score]
enabled = [{ name = "NodeAffinity", weight = 5 }]
disabled = [{ name = "ImageLocality" }]
""", id="enabled-disabled-weights"),
    pytest.param("""
profiles:
- plugins:
    multiPoint:
      disabled: [{name: "*"}]
      enabled: [{name: PrioritySort}, {name: DefaultBinder}, {name: NodeResourcesFit, weight: 7}]
""", """
[[profiles]]
[profiles.plugins.multi-point]
disabled = [{ name = "*" }]
enabled = [{ name = "PrioritySort" }, { name = "DefaultBinder" }, { name = "NodeResourcesFit", weight = 7 }]
""", id="multi-point-star"),
    pytest.param("""
profiles:
- plugins:
    preScore:
      disabled: [{name: "*"}]
    score:
      disabled: [{name: "*"}]
""", """
[[profiles]]
[profiles.plugins.pre-score]
disabled = [{ name = "*" }]
[profiles.plugins.score]
disabled = [{ name = "*" }]
""", id="star-at-camel-case-points"),
    pytest.param("""
profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args:
      ignoredResourceGroups: [example.com]
      scoringStrategy:
        type: RequestedToCapacityRatio
        resources: [{name: cpu, weight: 3}]
        requestedToCapacityRatio:
          shape: [{utilization: 0, score: 10}, {utilization: 100, score: 0}]
  - name: DefaultPreemption
    args: {minCandidateNodesPercentage: 5}
  - name: InterPodAffinity
    args: {hardPodAffinityWeight: 7}
  - name: PodTopologySpread
    args:
      defaultingType: List
      defaultConstraints:
      - {maxSkew: 2, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule}
""", """
[[profiles]]
[profiles.plugin-config.NodeResourcesFit]
ignored-resource-groups = ["example.com"]
[profiles.plugin-config.NodeResourcesFit.scoring-strategy]
type = "RequestedToCapacityRatio"
resources = [{ name = "cpu", weight = 3 }]
requested-to-capacity-ratio = { shape = [{ utilization = 0, score = 10 }, { utilization = 100, score = 0 }] }
[profiles.plugin-config.DefaultPreemption]
min-candidate-nodes-percentage = 5
[profiles.plugin-config.InterPodAffinity]
hard-pod-affinity-weight = 7
[profiles.plugin-config.PodTopologySpread]
defaulting-type = "List"
default-constraints = [
  { max-skew = 2, topology-key = "kubernetes.io/hostname", when-unsatisfiable = "DoNotSchedule" },
]
""", id="camel-case-plugin-args"),
]


@pytest.mark.parametrize(("kube", "toml"), SAME_AS_TOML)
def test_kube_config_gives_the_same_configuration_as_the_toml(tmp_path: Path, registry: PluginRegistry, kube: str,
                                                             toml: str) -> None:
    """Each KubeSchedulerConfiguration feature maps onto the same effective configuration as its TOML form."""
    from_kube = load_kube(tmp_path, registry, HEADER + kube)
    from_toml = toml_config(tmp_path, registry, toml)
    assert (from_kube.settings, from_kube.profiles) == (from_toml.settings, from_toml.profiles)


def test_weight_zero_means_unset_as_in_kube_scheduler(tmp_path: Path, registry: PluginRegistry) -> None:
    """kube-scheduler reads weight 0 as unset: a re-enabled Score plugin then gets weight 1."""
    config = load_kube(tmp_path, registry, HEADER + """
profiles:
- plugins:
    score:
      enabled: [{name: ImageLocality, weight: 0}]
""")
    assert ("ImageLocality", 1) in [(e.name, e.weight) for e in config.profiles[0].enabled("score")]


def test_weight_where_it_does_not_apply_is_ignored_as_in_kube_scheduler(tmp_path: Path,
                                                                        registry: PluginRegistry) -> None:
    """kube-scheduler v1.32 runs with a weight on a Filter entry and ignores it; so does a kube config here."""
    text = HEADER + """
profiles:
- plugins:
    filter:
      enabled: [{name: TaintToleration, weight: 5}]
"""
    weighted = load_kube(tmp_path, registry, text)
    assert weighted.profiles == load_kube(tmp_path, registry, text.replace(", weight: 5", "")).profiles


def test_args_type_meta_is_accepted(tmp_path: Path, registry: PluginRegistry) -> None:
    """Args may carry apiVersion and kind, as kube-scheduler writes them."""
    config = load_kube(tmp_path, registry, HEADER + """
profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args: {apiVersion: kubescheduler.config.k8s.io/v1, kind: NodeResourcesFitArgs,
           scoringStrategy: {type: MostAllocated}}
""")
    assert config.profiles[0].plugin_args["NodeResourcesFit"].scoring_strategy.type == MOST_ALLOCATED


@pytest.mark.parametrize("fields", [
    pytest.param("clientConnection: {kubeconfig: /etc/kubernetes/scheduler.conf, qps: 50}\n", id="clientConnection"),
    pytest.param("leaderElection: {leaderElect: true, resourceLock: leases}\n", id="leaderElection"),
    pytest.param("parallelism: 32\nenableProfiling: false\nenableContentionProfiling: false\n", id="tuning"),
    pytest.param("delayCacheUntilActive: true\n", id="delayCacheUntilActive"),
    pytest.param("extenders: []\n", id="no-extenders"),
])
def test_fields_that_cannot_change_a_decision_are_accepted_silently(tmp_path: Path, registry: PluginRegistry,
                                                                    fields: str) -> None:
    """Connection, leader election and profiling settings load without error or warning."""
    config = load_kube(tmp_path, registry, HEADER + fields)
    assert config.warnings == ()
    assert config.profiles == load_config("default", registry).profiles


@pytest.mark.parametrize(("key", "path"), [
    pytest.param("null", "null", id="null"),
    pytest.param("true", "profiles[0].true", id="boolean"),
])
def test_a_key_that_is_not_a_string_is_named_as_yaml_writes_it(tmp_path: Path, registry: PluginRegistry, key: str,
                                                                path: str) -> None:
    """A YAML null or boolean key is named null or true in the key path, as Kubernetes reads it, not Python's None."""
    text = HEADER + (f"{key}: 1\n" if key == "null" else f"profiles:\n- schedulerName: a\n  {key}: 1\n")
    assert kube_error(tmp_path, registry, text).startswith(f"sched.yaml: {path}: unknown key")


@pytest.mark.parametrize(("value", "message"), [
    pytest.param("!!int abc", 'sched.yaml: invalid YAML at line 3 column 23: "abc" is not a valid !!int',
                 id="scalar-its-tag-cannot-hold"),
    pytest.param("!!float [1]", "sched.yaml: invalid YAML at line 3 column 23: expected a scalar node, but found "
                 "sequence",
                 id="collection-for-a-scalar-tag"),
])
def test_ill_tagged_yaml_scalars_are_a_located_yaml_error(tmp_path: Path, registry: PluginRegistry, value: str,
                                                         message: str) -> None:
    """A value its explicit tag cannot hold is an invalid-YAML error at its line and column, not a traceback."""
    assert kube_error(tmp_path, registry, HEADER + f"podMaxBackoffSeconds: {value}\n") == message


def test_a_timestamp_like_scheduler_name_stays_a_string(tmp_path: Path, registry: PluginRegistry) -> None:
    """As in Kubernetes' YAML, an unquoted date is text: ``schedulerName: 2020-12-25`` names the profile."""
    config = load_kube(tmp_path, registry, HEADER + "profiles:\n- schedulerName: 2020-12-25\n")
    assert config.profiles[0].scheduler_name == "2020-12-25"


def test_a_kube_config_without_the_yaml_suffix_is_recognised(tmp_path: Path, registry: PluginRegistry) -> None:
    """A file named otherwise is read as a KubeSchedulerConfiguration when it has a top-level apiVersion."""
    config = load_kube(tmp_path, registry, HEADER + "percentageOfNodesToScore: 20\n", name="sched.conf")
    assert config.settings.percentage_of_nodes_to_score == 20


# -- validation -------------------------------------------------------------------------------------------
KUBE_ERRORS = [
    pytest.param("""
profiles:
- pluginConfig:
  - name: DefaultPreemption
    args: {}
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: Most}}
""", 'sched.yaml: profiles[0].pluginConfig[1].args.scoringStrategy.type: Unsupported value: "Most": supported '
     'values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"', id="args-value"),
    pytest.param("""
profiles:
- pluginConfig:
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: LeastAllocated, requestedToCapacityRatio: {shape: [{utilization: 1, score: 1}]}}}
""", "sched.yaml: profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio: Forbidden: must be nil "
     "when type is not RequestedToCapacityRatio", id="validator-key-camel-case"),
    pytest.param("""
profiles:
- pluginConfig:
  - name: DefaultPreemption
    args: {minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0}
""", "sched.yaml: profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 0: cannot be zero at "
     "the same time as minCandidateNodesAbsolute", id="validator-message-camel-case"),
    pytest.param("""
profiles:
- pluginConfig:
  - name: InterPodAffinity
    args: {hardPodAffinityWeigth: 2}
""", "sched.yaml: profiles[0].pluginConfig[0].args.hardPodAffinityWeigth: unknown key (did you mean "
     "'hardPodAffinityWeight'?)", id="args-unknown-key-suggests-camel-case"),
    pytest.param("""
profiles:
- pluginConfig:
  - name: InterPodAffinity
    args: {kind: NodeResourcesFitArgs}
""", 'sched.yaml: profiles[0].pluginConfig[0].args.kind: Invalid value: "NodeResourcesFitArgs": must be '
     '"InterPodAffinityArgs" for plugin "InterPodAffinity"', id="args-kind-mismatch"),
    pytest.param("""
profiles:
- pluginConfig:
  - name: NodeResourcesFit
  - name: NodeResourcesFit
""", 'sched.yaml: profiles[0].pluginConfig[1].name: Duplicate value: "NodeResourcesFit" (also configured by '
     "profiles[0].pluginConfig[0])", id="plugin-config-twice"),
    pytest.param("""
profiles:
- pluginConfig:
  - name: NodeName
""", "sched.yaml: profiles[0].pluginConfig[0].args: plugin 'NodeName' takes no args", id="args-for-argless-plugin"),
    pytest.param("""
profiles:
- plugins:
    queueSort:
      disabled: [{name: "*"}]
""", 'sched.yaml: profiles[0].plugins.queueSort: only one queue sort plugin required for profile with scheduler '
     'name "default-scheduler", but got 0', id="queue-sort-count"),
    pytest.param("""
profiles:
- plugins:
    multiPoint:
      enabled: [{name: NodeResourceFit}]
""", "sched.yaml: profiles[0].plugins.multiPoint.enabled[0].name: unknown plugin 'NodeResourceFit' (did you mean "
     "'NodeResourcesFit'?)", id="unknown-plugin"),
    pytest.param("""
profiles:
- plugins:
    filter:
      enabled: [{name: ImageLocality}]
""", "sched.yaml: profiles[0].plugins.filter.enabled[0].name: plugin 'ImageLocality' does not implement the Filter "
     "extension point (it implements: Score)", id="wrong-point"),
    pytest.param("""
profiles:
- plugins:
    preFilters: {}
""", "sched.yaml: profiles[0].plugins.preFilters: unknown key (did you mean 'preFilter'?)", id="unknown-point"),
    pytest.param("""
profiles:
- schedulerName: a
- schedulerName: a
""", 'sched.yaml: profiles[1].schedulerName: Duplicate value: "a" (also used by profiles[0])', id="duplicate-name"),
    pytest.param("""
profiles:
- schedulerName: a
- percentageOfNodesToScore: 5
""", "sched.yaml: profiles[1].schedulerName: Required value: every profile needs a schedulerName",
        id="unnamed-second-profile"),
    pytest.param("""
profiles:
- percentageOfNodesToScore: 101
""", "sched.yaml: profiles[0].percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]",
        id="profile-percentage"),
    pytest.param("podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 4\n",
                 "sched.yaml: podMaxBackoffSeconds: Invalid value: 4: must be greater than or equal to "
                 "podInitialBackoffSeconds", id="backoffs"),
    pytest.param('podInitialBackoffSeconds: "1"\n',
                 'sched.yaml: podInitialBackoffSeconds: Invalid value: "1": must be an integer',
                 id="ill-typed-setting"),
    pytest.param("percentageOfNodeToScore: 5\n",
                 "sched.yaml: percentageOfNodeToScore: unknown key (did you mean 'percentageOfNodesToScore'?)",
                 id="unknown-top-level-field"),
    pytest.param("parallelism: 0\n",
                 "sched.yaml: parallelism: Invalid value: 0: should be an integer value greater than zero",
                 id="parallelism"),
    pytest.param("extenders:\n- urlPrefix: http://127.0.0.1:8888/\n  filterVerb: filter\n",
                 "sched.yaml: extenders: Unsupported value: kubesched cannot call scheduler extenders (HTTP "
                 "webhooks); remove them to simulate without them", id="extenders"),
]


@pytest.mark.parametrize(("body", "message"), KUBE_ERRORS)
def test_kube_config_errors_are_located_by_yaml_path(tmp_path: Path, registry: PluginRegistry, body: str,
                                                     message: str) -> None:
    """Each mistake is one line naming the file, the YAML path and the problem, in the TOML's words."""
    assert kube_error(tmp_path, registry, HEADER + body) == message


@pytest.mark.parametrize(("text", "message"), [
    pytest.param("kind: KubeSchedulerConfiguration\n",
                 'sched.yaml: apiVersion: Required value: must be "kubescheduler.config.k8s.io/v1"', id="no-version"),
    pytest.param("apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
                 'sched.yaml: apiVersion: Unsupported value: "kubescheduler.config.k8s.io/v1beta3": supported '
                 'values: "kubescheduler.config.k8s.io/v1"', id="old-version"),
    pytest.param("apiVersion: kubescheduler.config.k8s.io/v1\nkind: Pod\n",
                 'sched.yaml: kind: Unsupported value: "Pod": supported values: "KubeSchedulerConfiguration"',
                 id="wrong-kind"),
    pytest.param("- 1\n", "sched.yaml: Invalid value: an array: must be a table", id="not-a-mapping"),
    pytest.param(HEADER + "profiles: [\n", "sched.yaml: invalid YAML at line 4 column 1: expected the node content, "
                 "but found '<stream end>'", id="bad-yaml"),
    pytest.param(HEADER + "---\n" + HEADER, "sched.yaml: expected one KubeSchedulerConfiguration document, got 2",
                 id="two-documents"),
    pytest.param(HEADER + "profiles: !!python/object/apply:os.system [echo]\n",
                 "sched.yaml: invalid YAML at line 3 column 11: could not determine a constructor for the tag "
                 "'tag:yaml.org,2002:python/object/apply:os.system'", id="unsafe-tag"),
])
def test_bad_kube_config_files_are_one_clean_error(tmp_path: Path, registry: PluginRegistry, text: str,
                                                   message: str) -> None:
    """Wrong headers, non-objects and invalid or unsafe YAML are one line naming the file, never a traceback."""
    assert kube_error(tmp_path, registry, text) == message


# -- third-party args -------------------------------------------------------------------------------------
@attrs.frozen
class PacingArgs:
    """Args of a third-party plugin, with multi-word field names."""

    burst_window_seconds: float = 1.0
    max_pods_per_window: int = attrs.field(default=10, validator=in_range(1, 1000))

    def __attrs_post_init__(self) -> None:
        if self.burst_window_seconds <= 0:
            raise ArgsError("Invalid value: must be greater than 0 unless max-pods-per-window is 1",
                            "burst-window-seconds")


class Pacing(Plugin):
    """A Filter plugin whose args are spelled camelCase in a kube-scheduler configuration."""

    name = "Pacing"
    Args = PacingArgs

    @hookimpl
    def filter(self, state: object, pod: object, node_info: object) -> Status | None:
        return None


def test_third_party_args_are_camel_case_in_a_kube_config(tmp_path: Path, registry: PluginRegistry) -> None:
    """A third-party plugin's args take camelCase keys derived from its attrs field names."""
    config = load_kube(tmp_path, registry.with_plugins(Pacing), HEADER + """
profiles:
- plugins:
    multiPoint:
      enabled: [{name: Pacing}]
  pluginConfig:
  - name: Pacing
    args: {burstWindowSeconds: 2.5, maxPodsPerWindow: 3}
""")
    assert config.profiles[0].plugin_args["Pacing"] == PacingArgs(2.5, 3)


@pytest.mark.parametrize(("args", "message"), [
    pytest.param("{maxPodsPerWindow: 0}", "profiles[0].pluginConfig[0].args.maxPodsPerWindow: Invalid value: 0: "
                 "not in valid range [1, 1000]", id="range"),
    pytest.param("{burstWindowSeconds: -1}", "profiles[0].pluginConfig[0].args.burstWindowSeconds: Invalid value: "
                 "must be greater than 0 unless maxPodsPerWindow is 1", id="post-init"),
])
def test_third_party_args_errors_use_camel_case(tmp_path: Path, registry: PluginRegistry, args: str,
                                                message: str) -> None:
    """A third-party validator's kebab-case key path and field names are respelled camelCase."""
    text = HEADER + f"profiles:\n- pluginConfig:\n  - name: Pacing\n    args: {args}\n"
    with pytest.raises(ProfileError) as caught:
        load_kube(tmp_path, registry.with_plugins(Pacing), text)
    assert str(caught.value).endswith(message)


# -- writing ----------------------------------------------------------------------------------------------
def test_shown_kube_config_spells_args_as_kube_scheduler_does(registry: PluginRegistry) -> None:
    """``profile show --format kube-scheduler-config`` writes camelCase args with their apiVersion and kind."""
    import yaml

    document = yaml.safe_load(render_kube_config(load_config("bin-packing", registry)))
    args = {item["name"]: item["args"] for item in document["profiles"][0]["pluginConfig"]}
    assert args["NodeResourcesFit"] == {
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "NodeResourcesFitArgs", "ignoredResources": [],
        "ignoredResourceGroups": [], "scoringStrategy": {
            "type": "MostAllocated", "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}}
    assert args["DefaultPreemption"]["minCandidateNodesPercentage"] == 10


def test_shown_kube_config_disables_star_and_lists_every_point(registry: PluginRegistry) -> None:
    """Every extension point is written camelCase with ``disabled: [{name: "*"}]`` and its complete list."""
    import yaml

    plugins = yaml.safe_load(render_kube_config(load_config("default", registry)))["profiles"][0]["plugins"]
    assert plugins["queueSort"] == {"disabled": [{"name": "*"}], "enabled": [{"name": "PrioritySort"}]}
    assert {"name": "TaintToleration", "weight": 3} in plugins["score"]["enabled"]


def test_shown_kube_config_says_the_call_budget_is_not_shown(tmp_path: Path, registry: PluginRegistry) -> None:
    """kubesched's own plugin-call-budget-ms has no kube field: the YAML's header says it is left out."""
    text = render_kube_config(toml_config(tmp_path, registry, "plugin-call-budget-ms = 50\n"))
    assert "# Not shown: plugin-call-budget-ms" in text


def test_docs_side_by_side_forms_are_the_same_profile(tmp_path: Path, registry: PluginRegistry) -> None:
    """docs/profiles.md's TOML and YAML forms of one profile load to the same effective configuration."""
    docs = (Path(__file__).resolve().parents[2] / "docs" / "profiles.md").read_text(encoding="utf-8")
    section = docs.split("The same profile in both forms", 1)[1]
    toml_text = re.search(r"```toml\n(.*?)```", section, re.DOTALL)
    yaml_text = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert toml_text is not None
    assert yaml_text is not None
    from_toml = toml_config(tmp_path, registry, toml_text.group(1))
    from_kube = load_kube(tmp_path, registry, yaml_text.group(1))
    assert (from_kube.settings, from_kube.profiles) == (from_toml.settings, from_toml.profiles)
    assert from_kube.profiles[0].scheduler_name == "packer"


def test_every_problem_in_a_kube_config_is_reported(tmp_path: Path, registry: PluginRegistry) -> None:
    """A kube config's independent mistakes are all reported, one line each, as kube-scheduler lists them."""
    message = kube_error(tmp_path, registry, HEADER + """
parallelism: 0
extenders: [{urlPrefix: "http://x"}]
profiles:
- pluginConfig:
  - name: NodeResourcesFit
  - name: NodeResourcesFit
  plugins:
    preFilters: {}
""")
    assert message.replace("sched.yaml: ", "").splitlines() == [
        "extenders: Unsupported value: kubesched cannot call scheduler extenders (HTTP webhooks); remove them to "
        "simulate without them",
        "parallelism: Invalid value: 0: should be an integer value greater than zero",
        "profiles[0].plugins.preFilters: unknown key (did you mean 'preFilter'?)",
        'profiles[0].pluginConfig[1].name: Duplicate value: "NodeResourcesFit" (also configured by '
        "profiles[0].pluginConfig[0])",
    ]
