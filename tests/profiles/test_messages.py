"""Profile messages read as kube-scheduler v1.32's own (checked against the real binary), in both profile forms:
the key path in the form's spelling, then the same words."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.errors import ProfileError
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry

KUBE_HEADER = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


def error_of(tmp_path: Path, registry: PluginRegistry, text: str, name: str) -> str:
    """The error loading ``text`` as ``name`` raises, without the temporary folder."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ProfileError) as caught:
        load_config(str(path), registry)
    return str(caught.value).replace(f"{tmp_path}/", "")


def kube_args(plugin: str, args: str) -> str:
    """A KubeSchedulerConfiguration configuring ``plugin`` with ``args`` (a YAML flow mapping)."""
    return KUBE_HEADER + f"profiles:\n- pluginConfig:\n  - name: {plugin}\n    args: {args}\n"


def toml_args(plugin: str, args: str) -> str:
    """A TOML profile configuring ``plugin`` with ``args`` (a TOML inline table)."""
    return f"[[profiles]]\nplugin-config.{plugin} = {args}\n"


#: plugin, YAML args, TOML args, path below the args (YAML, TOML), and what kube-scheduler v1.32 says after it.
RANGE_CASES = [
    pytest.param("InterPodAffinity", "{hardPodAffinityWeight: 1000}", "{hard-pod-affinity-weight = 1000}",
                 "hardPodAffinityWeight", "hard-pod-affinity-weight",
                 "Invalid value: 1000: not in valid range [0, 100]", id="hard-pod-affinity-weight"),
    pytest.param("DefaultPreemption", "{minCandidateNodesPercentage: 150}", "{min-candidate-nodes-percentage = 150}",
                 "minCandidateNodesPercentage", "min-candidate-nodes-percentage",
                 "Invalid value: 150: not in valid range [0, 100]", id="min-candidate-nodes-percentage"),
    pytest.param("DefaultPreemption", "{minCandidateNodesAbsolute: -1}", "{min-candidate-nodes-absolute = -1}",
                 "minCandidateNodesAbsolute", "min-candidate-nodes-absolute",
                 "Invalid value: -1: not in valid range [0, inf)", id="min-candidate-nodes-absolute"),
    pytest.param("NodeResourcesFit", "{scoringStrategy: {type: LeastAllocated, resources: [{name: cpu, weight: 101}]}}",
                 '{scoring-strategy = {type = "LeastAllocated", resources = [{name = "cpu", weight = 101}]}}',
                 "scoringStrategy.resources[0].weight", "scoring-strategy.resources[0].weight",
                 "Invalid value: 101: resource weight of cpu not in valid range (0, 100]", id="resource-weight"),
    pytest.param("NodeResourcesFit", "{scoringStrategy: {type: RequestedToCapacityRatio, requestedToCapacityRatio: "
                 "{shape: [{utilization: 101, score: 1}]}}}",
                 '{scoring-strategy = {type = "RequestedToCapacityRatio", requested-to-capacity-ratio = '
                 "{shape = [{utilization = 101, score = 1}]}}}",
                 "scoringStrategy.requestedToCapacityRatio.shape[0].utilization",
                 "scoring-strategy.requested-to-capacity-ratio.shape[0].utilization",
                 "Invalid value: 101: not in valid range [0, 100]", id="shape-utilization"),
    pytest.param("NodeResourcesFit", "{scoringStrategy: {type: RequestedToCapacityRatio, requestedToCapacityRatio: "
                 "{shape: [{utilization: 50, score: 1}, {utilization: 10, score: 1}]}}}",
                 '{scoring-strategy = {type = "RequestedToCapacityRatio", requested-to-capacity-ratio = '
                 "{shape = [{utilization = 50, score = 1}, {utilization = 10, score = 1}]}}}",
                 "scoringStrategy.requestedToCapacityRatio.shape[1].utilization",
                 "scoring-strategy.requested-to-capacity-ratio.shape[1].utilization",
                 "Invalid value: 10: utilization values must be sorted in increasing order", id="shape-unsorted"),
    pytest.param("PodTopologySpread", "{defaultingType: List, defaultConstraints: [{maxSkew: 0, topologyKey: zone, "
                 "whenUnsatisfiable: DoNotSchedule}]}",
                 '{defaulting-type = "List", default-constraints = [{max-skew = 0, topology-key = "zone", '
                 'when-unsatisfiable = "DoNotSchedule"}]}',
                 "defaultConstraints[0].maxSkew", "default-constraints[0].max-skew",
                 "Invalid value: 0: not in valid range (0, inf)", id="max-skew"),
    pytest.param("NodeAffinity", "{addedAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
                 "{nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: Foo}]}]}}}",
                 "{added-affinity = {required-during-scheduling-ignored-during-execution = "
                 '{node-selector-terms = [{match-expressions = [{key = "zone", operator = "Foo"}]}]}}}',
                 "addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
                 ".matchExpressions[0].operator",
                 "added-affinity.required-during-scheduling-ignored-during-execution.node-selector-terms[0]"
                 ".match-expressions[0].operator",
                 'Unsupported value: "Foo": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"',
                 id="added-affinity-operator"),
]


@pytest.mark.parametrize(("plugin", "yaml_args", "toml_args_", "yaml_key", "toml_key", "message"), RANGE_CASES)
def test_out_of_range_args_are_worded_as_kube_scheduler_words_them(
        tmp_path: Path, registry: PluginRegistry, plugin: str, yaml_args: str, toml_args_: str, yaml_key: str,
        toml_key: str, message: str) -> None:
    """An out-of-range built-in arg gives kube-scheduler's message, after the key path of either form."""
    assert error_of(tmp_path, registry, kube_args(plugin, yaml_args), "sched.yaml") == (
        f"sched.yaml: profiles[0].pluginConfig[0].args.{yaml_key}: {message}")
    assert error_of(tmp_path, registry, toml_args(plugin, toml_args_), "profile.toml") == (
        f"profile.toml: profiles[0].plugin-config.{plugin}.{toml_key}: {message}")


@pytest.mark.parametrize(("text", "name", "message"), [
    pytest.param("[[profiles]]\nscheduler-name = {a=1}\n", "profile.toml",
                 "profile.toml: profiles[0].scheduler-name: Invalid value: a table: must be a string", id="toml-table"),
    pytest.param("[[profiles]]\nscheduler-name = 3\n", "profile.toml",
                 "profile.toml: profiles[0].scheduler-name: Invalid value: 3: must be a string", id="toml-integer"),
    pytest.param('[[profiles]]\nscheduler-name = ""\n', "profile.toml",
                 "profile.toml: profiles[0].scheduler-name: Required value: every profile needs a scheduler-name",
                 id="toml-empty-is-missing"),
    pytest.param(KUBE_HEADER + "profiles:\n- schedulerName: {a: 1}\n", "sched.yaml",
                 "sched.yaml: profiles[0].schedulerName: Invalid value: a table: must be a string", id="yaml-mapping"),
    pytest.param(KUBE_HEADER + "profiles:\n- schedulerName: [a]\n", "sched.yaml",
                 "sched.yaml: profiles[0].schedulerName: Invalid value: an array: must be a string", id="yaml-list"),
])
def test_a_scheduler_name_of_the_wrong_type_is_a_type_error(tmp_path: Path, registry: PluginRegistry, text: str,
                                                            name: str, message: str) -> None:
    """A scheduler name that is not a string is said to be of the wrong type, not to be missing."""
    assert error_of(tmp_path, registry, text, name) == message


@pytest.mark.parametrize(("text", "name", "message"), [
    pytest.param("pod-max-backoff-seconds = 1e309\n", "profile.toml",
                 "profile.toml: pod-max-backoff-seconds: Invalid value: 1e309: must be an integer", id="toml-setting"),
    pytest.param("[[profiles]]\nplugin-config.InterPodAffinity = {hard-pod-affinity-weight = -1.5e400}\n",
                 "profile.toml", "profile.toml: profiles[0].plugin-config.InterPodAffinity.hard-pod-affinity-weight: "
                 "Invalid value: -1.5e400: must be an integer", id="toml-args"),
    pytest.param('pod-max-backoff-seconds = "10"\n', "profile.toml",
                 'profile.toml: pod-max-backoff-seconds: Invalid value: "10": must be an integer', id="toml-string"),
    pytest.param(KUBE_HEADER + "podInitialBackoffSeconds: true\n", "sched.yaml",
                 "sched.yaml: podInitialBackoffSeconds: Invalid value: true: must be an integer", id="yaml-boolean"),
])
def test_a_value_of_the_wrong_type_is_worded_as_kubernetes_does(tmp_path: Path, registry: PluginRegistry, text: str,
                                                                name: str, message: str) -> None:
    """A value of the wrong type reads ``Invalid value: V: must be T``; a float too large shows as written."""
    assert error_of(tmp_path, registry, text, name) == message


@pytest.mark.parametrize(("line", "position"), [
    pytest.param("x = " + "[" * 1000 + "]" * 1000, "line 3, column 69", id="arrays"),
    pytest.param("x = " + "{a=" * 1000 + "1" + "}" * 1000, "line 3, column 197", id="inline-tables"),
    pytest.param('x = ["[[[[", \'{{{{\', """\n[[[[""", ' + "[" * 1000 + "]" * 1000 + "]",
                 "line 4, column 73", id="brackets-in-strings-do-not-count"),
])
def test_toml_too_deep_for_the_parser_names_the_position(tmp_path: Path, registry: PluginRegistry, line: str,
                                                         position: str) -> None:
    """Nesting too deep for the TOML parser is located by the line and column where it passes the limit."""
    text = f"[[profiles]]\n[profiles.plugin-config.NodeResourcesFit]\n{line}\n"
    assert error_of(tmp_path, registry, text, "profile.toml") == (
        f"profile.toml: invalid TOML: nested more than 64 levels deep (at {position})")


#: A requirement of addedAffinity's required term (YAML flow, TOML inline), the path below it, and kube-scheduler
#: v1.32's message.
REQUIREMENT_CASES = [
    pytest.param("matchExpressions", "{key: x, operator: In}", '{key = "x", operator = "In"}', "values",
                 "Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
                 id="in-without-values"),
    pytest.param("matchExpressions", "{key: x, operator: Exists, values: [a, b]}",
                 '{key = "x", operator = "Exists", values = ["a", "b"]}', "values",
                 'Invalid value: []string{"a", "b"}: values set must be empty for exists and does not exist',
                 id="exists-with-values"),
    pytest.param("matchExpressions", "{key: x, operator: Gt, values: ['1', '2']}",
                 '{key = "x", operator = "Gt", values = ["1", "2"]}', "values",
                 "Invalid value: []string{\"1\", \"2\"}: for 'Gt', 'Lt' operators, exactly one value is required",
                 id="gt-with-two-values"),
    pytest.param("matchExpressions", "{key: x, operator: Lt, values: ['\u0661']}",
                 '{key = "x", operator = "Lt", values = ["\u0661"]}', "values[0]",
                 "Invalid value: \"\u0661\": for 'Gt', 'Lt' operators, the value must be an integer",
                 id="lt-with-a-non-ascii-digit"),
    pytest.param("matchExpressions", f"{{key: x, operator: Gt, values: ['{'9' * 5000}']}}",
                 f'{{key = "x", operator = "Gt", values = ["{"9" * 5000}"]}}', "values[0]",
                 f"Invalid value: \"{'9' * 80}...\": for 'Gt', 'Lt' operators, the value must be an integer",
                 id="gt-beyond-int64"),
    pytest.param("matchExpressions", "{key: 'a b', operator: Exists}", '{key = "a b", operator = "Exists"}', "key",
                 "Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and "
                 "must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
                 "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')", id="bad-key"),
    pytest.param("matchExpressions", "{key: x, operator: In, values: [a, 'b c']}",
                 '{key = "x", operator = "In", values = ["a", "b c"]}', "values[1]",
                 "Invalid value: \"b c\": a valid label must be an empty string or consist of alphanumeric "
                 "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
                 "'MyValue',  or 'my_value',  or '12345', regex used for validation is "
                 "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')", id="bad-value"),
    pytest.param("matchFields", "{key: metadata.name, operator: Exists}",
                 '{key = "metadata.name", operator = "Exists"}', "operator",
                 'Unsupported value: "Exists": supported values: "In", "NotIn"', id="field-operator"),
    pytest.param("matchFields", "{key: metadata.name, operator: In, values: [a, b]}",
                 '{key = "metadata.name", operator = "In", values = ["a", "b"]}', "values",
                 'Invalid value: []string{"a", "b"}: must have one element', id="field-with-two-values"),
]


@pytest.mark.parametrize(("field", "yaml_requirement", "toml_requirement", "key", "message"), REQUIREMENT_CASES)
def test_added_affinity_requirements_are_checked_as_kube_scheduler_checks_them(
        tmp_path: Path, registry: PluginRegistry, field: str, yaml_requirement: str, toml_requirement: str,
        key: str, message: str) -> None:
    """A node selector requirement kube-scheduler refuses in NodeAffinity's addedAffinity is refused in its words."""
    kebab_field = "match-fields" if field == "matchFields" else "match-expressions"
    yaml_args = (f"{{addedAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: "
                 f"{{nodeSelectorTerms: [{{{field}: [{yaml_requirement}]}}]}}}}}}")
    toml_args_ = (f"{{added-affinity = {{required-during-scheduling-ignored-during-execution = "
                  f"{{node-selector-terms = [{{{kebab_field} = [{toml_requirement}]}}]}}}}}}")
    assert error_of(tmp_path, registry, kube_args("NodeAffinity", yaml_args), "sched.yaml") == (
        "sched.yaml: profiles[0].pluginConfig[0].args.addedAffinity.requiredDuringSchedulingIgnoredDuringExecution"
        f".nodeSelectorTerms[0].{field}[0].{key}: {message}")
    assert error_of(tmp_path, registry, toml_args("NodeAffinity", toml_args_), "profile.toml") == (
        "profile.toml: profiles[0].plugin-config.NodeAffinity.added-affinity.required-during-scheduling-ignored-"
        f"during-execution.node-selector-terms[0].{kebab_field}[0].{key}: {message}")
