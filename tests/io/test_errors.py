"""Every bad input is reported with its whole message: file, object, field and what is wrong."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from kubesched.errors import InputError
from kubesched.io.load import InputErrorList, load

POD = """\
kind: Pod
metadata: {{name: web}}
spec:
  containers:
  - name: app
    resources:
      requests: {{cpu: {cpu}}}
"""


def write(directory: Path, name: str, text: str) -> Path:
    """Write a manifest file (dedented) under ``directory`` and return its path."""
    path = directory / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def errors_of(*paths: Path) -> list[str]:
    """The messages of every error load() reports for these paths (fails if it reports none)."""
    with pytest.raises(InputErrorList) as excinfo:
        load(paths)
    assert all(isinstance(e, InputError) for e in excinfo.value.errors)
    return [str(e) for e in excinfo.value.errors]


def only_error(text: str, tmp_path: Path) -> tuple[str, str]:
    """Load one file holding ``text``; return its path and the single error message."""
    path = write(tmp_path, "input.yaml", text)
    messages = errors_of(path)
    assert len(messages) == 1, messages
    return str(path), messages[0]


def test_unparsable_quantity(tmp_path: Path) -> None:
    """A request that is not a quantity names the file, the pod and the field."""
    f, message = only_error(POD.format(cpu="2x"), tmp_path)
    assert message == f'{f}: pods/default/web: spec.containers[0].resources.requests.cpu: "2x" is not a valid quantity'


def test_unparsable_quantity_in_a_node(tmp_path: Path) -> None:
    """A bad node allocatable names the node and the resource."""
    f, message = only_error("kind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {memory: 1GB}}\n", tmp_path)
    assert message == f'{f}: nodes/n1: status.allocatable.memory: "1GB" is not a valid quantity'


def test_boolean_quantity(tmp_path: Path) -> None:
    """A YAML boolean where a quantity belongs is rejected."""
    f, message = only_error(POD.format(cpu="true"), tmp_path)
    assert message == f"{f}: pods/default/web: spec.containers[0].resources.requests.cpu: true is not a valid quantity"


def test_negative_quantity(tmp_path: Path) -> None:
    """Resource quantities must not be negative."""
    f, message = only_error(POD.format(cpu='"-1"'), tmp_path)
    assert message == (f'{f}: pods/default/web: spec.containers[0].resources.requests.cpu: Invalid value: "-1": '
                       "must be greater than or equal to 0")


def test_missing_metadata_name(tmp_path: Path) -> None:
    """An object without metadata.name is located by kind and document position."""
    f, message = only_error("kind: Pod\nmetadata: {namespace: x}\nspec: {containers: [{name: app}]}\n", tmp_path)
    assert message == f"{f}: pods (document 1): metadata.name: Required value: name is required"


def test_missing_metadata_name_in_a_list(tmp_path: Path) -> None:
    """Inside a List, the position names the item."""
    f, message = only_error("kind: NodeList\nitems:\n- metadata: {name: n1}\n- metadata: {}\n", tmp_path)
    assert message == f"{f}: nodes (document 1, items[1]): metadata.name: Required value: name is required"


def test_duplicate_objects_name_both_files(tmp_path: Path) -> None:
    """The same kind/namespace/name twice is an error naming where it was first defined."""
    first = write(tmp_path, "a.yaml", POD.format(cpu="1"))
    second = write(tmp_path, "b.yaml", POD.format(cpu="2"))
    assert errors_of(first, second) == [f"{second}: pods/default/web: duplicate object: already defined in {first}"]


def test_same_name_in_another_namespace_or_kind_is_not_a_duplicate(tmp_path: Path) -> None:
    """Identity is kind, namespace and name together."""
    text = POD.format(cpu="1")
    text += "---\nkind: Pod\nmetadata: {name: web, namespace: shop}\nspec: {containers: [{name: a}]}\n"
    text += "---\nkind: Node\nmetadata: {name: web}\n"
    cluster = load([write(tmp_path, "ok.yaml", text)])
    assert (len(cluster.pods), len(cluster.nodes)) == (2, 1)


def test_duplicate_uid(tmp_path: Path) -> None:
    """Two pods may not share a metadata.uid."""
    text = """\
    kind: Pod
    metadata: {name: a, uid: same}
    spec: {containers: [{name: app}]}
    ---
    kind: Pod
    metadata: {name: b, uid: same}
    spec: {containers: [{name: app}]}
    """
    f, message = only_error(text, tmp_path)
    assert message == (f'{f}: pods/default/b: metadata.uid: Duplicate value: "same": also the uid of pods/default/a '
                       f"(in {f})")


def test_node_name_of_a_missing_node(tmp_path: Path) -> None:
    """A pod bound to a node that is not in the input is rejected."""
    f, message = only_error("kind: Pod\nmetadata: {name: web}\nspec: {nodeName: x, containers: [{name: a}]}\n",
                            tmp_path)
    assert message == f'{f}: pods/default/web: spec.nodeName: node "x" is not in the input'


def test_node_name_of_a_node_in_another_file_is_fine(tmp_path: Path) -> None:
    """The node may be defined in any file of the input."""
    pods = write(tmp_path, "pods.yaml",
                 "kind: Pod\nmetadata: {name: web}\nspec: {nodeName: x, containers: [{name: a}]}\n")
    nodes = write(tmp_path, "nodes.yaml", "kind: Node\nmetadata: {name: x}\n")
    assert load([pods, nodes]).pods[0].spec.node_name == "x"


def test_unknown_priority_class(tmp_path: Path) -> None:
    """A priorityClassName with no PriorityClass is forbidden, as the admission plugin says."""
    text = "kind: Pod\nmetadata: {name: web}\nspec: {priorityClassName: gold, containers: [{name: a}]}\n"
    f, message = only_error(text, tmp_path)
    assert message == (f'{f}: pods/default/web: spec.priorityClassName: pods "web" is forbidden: '
                       "no PriorityClass with name gold was found")


PRIORITY_CLASS = """\
kind: PriorityClass
metadata: {name: gold}
value: 1000
"""


def test_preemption_policy_conflicting_with_the_class(tmp_path: Path) -> None:
    """spec.preemptionPolicy that differs from the class policy is forbidden."""
    text = PRIORITY_CLASS + "---\nkind: Pod\nmetadata: {name: web}\n" \
                            "spec: {priorityClassName: gold, preemptionPolicy: Never, containers: [{name: a}]}\n"
    f, message = only_error(text, tmp_path)
    assert message == (f'{f}: pods/default/web: spec.preemptionPolicy: pods "web" is forbidden: the string value of '
                       "PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller "
                       "computed PreemptLowerPriority from the given PriorityClass name")


def test_invalid_yaml_reports_the_line(tmp_path: Path) -> None:
    """Unparsable YAML is reported with its line and column."""
    f, message = only_error("kind: Pod\nmetadata:\n  name: a: b\n", tmp_path)
    assert message == f"{f}: invalid YAML at line 3 column 10: mapping values are not allowed here"


def test_invalid_json_reports_the_line(tmp_path: Path) -> None:
    """Unparsable JSON is reported with its line and column."""
    path = tmp_path / "bad.json"
    path.write_text('{"kind": "Pod",\n "metadata": }\n', encoding="utf-8")
    assert errors_of(path) == [f"{path}: invalid JSON at line 2 column 14: Expecting value"]


@pytest.mark.parametrize(
    ("text", "what"),
    [
        ("- kind: Pod\n", "a list"),
        ("just a string\n", "a string"),
        ("42\n", "an integer"),
    ],
)
def test_document_that_is_not_a_mapping(text: str, what: str, tmp_path: Path) -> None:
    """A document must be an object."""
    f, message = only_error(text, tmp_path)
    assert message == f"{f}: document 1: must be a Kubernetes object, not {what}"


def test_list_item_that_is_not_a_mapping(tmp_path: Path) -> None:
    """Every item of a List must be an object."""
    f, message = only_error("kind: List\nitems:\n- 42\n", tmp_path)
    assert message == f"{f}: document 1, items[0]: must be a Kubernetes object, not an integer"


def test_list_items_must_be_a_list(tmp_path: Path) -> None:
    """items of a List must be a list."""
    f, message = only_error("kind: PodList\nitems: {a: 1}\n", tmp_path)
    assert message == f"{f}: document 1: items: must be a list, not an object"


def test_object_without_kind(tmp_path: Path) -> None:
    """Every object needs a kind."""
    f, message = only_error("---\nkind: Node\nmetadata: {name: n1}\n---\nmetadata: {name: x}\n", tmp_path)
    assert message == f"{f}: document 2: kind: Required value: every object needs a kind"


def test_bad_taint_effect(tmp_path: Path) -> None:
    """A taint effect outside NoSchedule/PreferNoSchedule/NoExecute is an unsupported value."""
    text = "kind: Node\nmetadata: {name: n1}\nspec: {taints: [{key: k, effect: NoScheduel}]}\n"
    f, message = only_error(text, tmp_path)
    assert message == (f'{f}: nodes/n1: spec.taints[0].effect: Unsupported value: "NoScheduel": supported values: '
                       '"NoSchedule", "PreferNoSchedule", "NoExecute"')


def test_pdb_with_min_available_and_max_unavailable(tmp_path: Path) -> None:
    """A PDB may set minAvailable or maxUnavailable, not both."""
    text = ("kind: PodDisruptionBudget\nmetadata: {name: db, namespace: prod}\n"
            "spec: {minAvailable: 1, maxUnavailable: 1}\n")
    f, message = only_error(text, tmp_path)
    assert message == (f"{f}: poddisruptionbudgets/prod/db: spec: Invalid value: minAvailable and maxUnavailable "
                       "cannot be both set")


def test_user_priority_class_above_one_billion(tmp_path: Path) -> None:
    """User-defined priority classes may not exceed 1e9."""
    f, message = only_error("kind: PriorityClass\nmetadata: {name: gold}\nvalue: 1000000001\n", tmp_path)
    assert message == (f"{f}: priorityclasses/gold: value: Forbidden: maximum allowed value of a user defined "
                       "priority is 1000000000")


def test_user_priority_class_of_exactly_one_billion_is_allowed(tmp_path: Path) -> None:
    """1e9 itself is the highest user-definable priority."""
    path = write(tmp_path, "pc.yaml", "kind: PriorityClass\nmetadata: {name: gold}\nvalue: 1000000000\n")
    assert load([path]).priority_classes[0].value == 1_000_000_000


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [
        ("system-gold", 5, "system-gold is not a known system priority class"),
        ("system-cluster-critical", 7, "value of system-cluster-critical PriorityClass must be 2000000000"),
    ],
)
def test_system_prefix_is_reserved_for_the_built_in_classes(name: str, value: int, reason: str,
                                                            tmp_path: Path) -> None:
    """A ``system-`` class must be exactly one of the built-in classes (ValidatePriorityClass)."""
    f, message = only_error(f"kind: PriorityClass\nmetadata: {{name: {name}}}\nvalue: {value}\n", tmp_path)
    assert message == (f"{f}: priorityclasses/{name}: metadata.name: Forbidden: priority class names with "
                       f"'system-' prefix are reserved for system use only. error: {reason}")


def test_built_in_classes_may_be_listed_as_they_are(tmp_path: Path) -> None:
    """A dump listing the built-in system classes unchanged is valid."""
    text = "kind: PriorityClass\nmetadata: {name: system-node-critical}\nvalue: 2000001000\n"
    path = write(tmp_path, "pc.yaml", text)
    assert load([path]).priority_classes[0].value == 2_000_001_000


def test_missing_path(tmp_path: Path) -> None:
    """A path that does not exist is reported."""
    missing = tmp_path / "nope.yaml"
    assert errors_of(missing) == [f"{missing}: no such file or directory"]


def test_every_error_of_an_input_is_reported(tmp_path: Path) -> None:
    """Several problems in one input are all reported, each pod with all of its problems."""
    text = """\
    kind: Pod
    metadata: {name: a}
    spec: {containers: [{name: app, resources: {requests: {cpu: 2x}}}]}
    ---
    kind: Node
    metadata: {name: n1}
    spec: {taints: [{key: k, effect: Sometimes}]}
    ---
    kind: Pod
    metadata: {name: ok}
    spec: {containers: [{name: app}]}
    ---
    kind: Pod
    metadata: {name: b}
    spec: {nodeName: nowhere, priorityClassName: gold, containers: [{name: app}]}
    """
    f = write(tmp_path, "a.yaml", text)
    assert errors_of(f) == [
        f'{f}: pods/default/a: spec.containers[0].resources.requests.cpu: "2x" is not a valid quantity',
        f'{f}: nodes/n1: spec.taints[0].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", '
        '"PreferNoSchedule", "NoExecute"',
        f'{f}: pods/default/b: spec.nodeName: node "nowhere" is not in the input',
        f'{f}: pods/default/b: spec.priorityClassName: pods "b" is forbidden: no PriorityClass with name gold was '
        "found",
    ]


def test_error_list_message_joins_every_error(tmp_path: Path) -> None:
    """str(InputErrorList) is one line per error."""
    a = write(tmp_path, "a.yaml", "- 1\n")
    b = write(tmp_path, "b.yaml", "- 2\n")
    with pytest.raises(InputErrorList) as excinfo:
        load([a, b])
    assert str(excinfo.value) == (f"{a}: document 1: must be a Kubernetes object, not a list\n"
                                  f"{b}: document 1: must be a Kubernetes object, not a list")


def test_input_error_carries_its_location(tmp_path: Path) -> None:
    """Each InputError keeps file, object and field separately."""
    path = write(tmp_path, "input.yaml", POD.format(cpu="2x"))
    with pytest.raises(InputErrorList) as excinfo:
        load([path])
    error = excinfo.value.errors[0]
    assert (error.file, error.obj, error.field, error.message) == (
        str(path), "pods/default/web", "spec.containers[0].resources.requests.cpu", '"2x" is not a valid quantity')


@pytest.mark.parametrize(("field", "message"), [
    ("{key: metadata.name, operator: In, values: [a, b]}",
     "values: Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector"),
    ("{key: metadata.labels, operator: In, values: [a]}",
     'key: Unsupported value: "metadata.labels": supported values: "metadata.name"'),
    ("{key: metadata.name, operator: Exists}",
     'operator: Unsupported value: "Exists": supported values: "In", "NotIn"'),
], ids=["two-values", "other-field", "other-operator"])
def test_node_field_selector_is_validated(field: str, message: str, tmp_path: Path) -> None:
    """matchFields accepts only metadata.name, In or NotIn, with exactly one value (API validation)."""
    text = ("kind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: c}]\n  affinity:\n    nodeAffinity:\n"
            "      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n"
            f"        - matchFields: [{field}]\n")
    f, got = only_error(text, tmp_path)
    assert got == (f"{f}: pods/default/web: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
                   f".nodeSelectorTerms[0].matchFields[0].{message}")


def test_match_label_keys_without_label_selector(tmp_path: Path) -> None:
    """As the API server, a spread constraint may not use matchLabelKeys without a labelSelector."""
    path, message = only_error("""\
    kind: Pod
    metadata: {name: web}
    spec:
      containers: [{name: app}]
      topologySpreadConstraints:
      - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, matchLabelKeys: [rev]}
    """, tmp_path)
    assert message == (f"{path}: pods/default/web: spec.topologySpreadConstraints[0].matchLabelKeys: "
                       "Forbidden: must not be specified when labelSelector is not set")
