"""make_pod builds the Pod the API server would store for the equivalent manifest (decoded by kubesched.io)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kubesched.api.meta import LabelSelector
from kubesched.api.pod import Container, NodeAffinity, NodeSelector
from kubesched.testing import make_affinity_term, make_node_term, make_pod, make_selector, port
from tests.testing import decoded

HEAD = "metadata: {name: p, namespace: default, uid: default/p-uid}\n"


def test_a_pod_given_no_container_gets_an_empty_container_c0() -> None:
    """``make_pod("p").obj()`` keeps its old meaning: one container ``c0`` with no requests."""
    assert make_pod("p").obj() == decoded.pod(HEAD + "spec: {containers: [{name: c0}]}")


def test_no_containers_builds_a_pod_with_none() -> None:
    """``no_containers()`` drops the default container (kube's tests use such pods; the API would refuse them)."""
    assert make_pod("p").req(cpu="1").no_containers().obj().spec.containers == ()


def test_a_required_node_term_holds_every_requirement_given() -> None:
    """A term built with several expressions keeps them all, ANDed in one term."""
    pod = make_pod("p").node_affinity_term(make_node_term().expression("zone", "In", "a", "b")
                                           .expression("gpu", "Exists")).obj()
    assert pod == decoded.pod(HEAD + """spec:
  containers: [{name: c0}]
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions: [{key: zone, operator: In, values: [a, b]}, {key: gpu, operator: Exists}]
""")


def test_a_node_term_holds_match_fields_beside_match_expressions() -> None:
    """``field()`` adds a matchFields entry to the same term as the label expressions."""
    pod = make_pod("p").node_affinity_term(make_node_term().expression("zone", "In", "a")
                                           .field("metadata.name", "In", "n1")).obj()
    assert pod == decoded.pod(HEAD + """spec:
  containers: [{name: c0}]
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions: [{key: zone, operator: In, values: [a]}]
          matchFields: [{key: metadata.name, operator: In, values: [n1]}]
""")


def test_several_node_terms_are_ored_in_the_order_given() -> None:
    """Each term given to ``node_affinity_term`` (and each later call) is one more ORed term."""
    pod = make_pod("p").node_affinity_term(make_node_term().expression("a", "Exists")) \
        .node_affinity_in("b", "x").obj()
    required = pod.spec.affinity.node_affinity.required  # type: ignore[union-attr]
    assert [t.match_expressions[0].key for t in required.node_selector_terms] == ["a", "b"]  # type: ignore[union-attr]


def test_an_empty_node_term_is_kept_empty() -> None:
    """``make_node_term()`` with nothing added is the empty term ``{}`` (valid at the API, it matches no node)."""
    pod = make_pod("p").node_affinity_term(make_node_term()).obj()
    assert pod == decoded.pod(HEAD + """spec:
  containers: [{name: c0}]
  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{}]}}}
""")


def test_node_affinity_term_without_terms_gives_a_required_selector_with_none() -> None:
    """``node_affinity_term()`` alone: a required node selector with an empty term list, as kube's tables write."""
    pod = make_pod("p").node_affinity_term().obj()
    assert pod.spec.affinity is not None
    assert pod.spec.affinity.node_affinity == NodeAffinity(required=NodeSelector(()))


def test_preferred_node_affinity_alone_leaves_required_unset() -> None:
    """A preferred term (here an empty one and one with two requirements) gives a node affinity with no required
    part."""
    pod = make_pod("p").preferred_node_affinity_term(3, make_node_term()) \
        .preferred_node_affinity_term(5, make_node_term().expression("zone", "In", "a").expression("ssd", "Exists")) \
        .obj()
    assert pod == decoded.pod(HEAD + """spec:
  containers: [{name: c0}]
  affinity:
    nodeAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - {weight: 3, preference: {}}
      - weight: 5
        preference: {matchExpressions: [{key: zone, operator: In, values: [a]}, {key: ssd, operator: Exists}]}
""")


def test_node_affinity_sets_the_object_as_given() -> None:
    """``node_affinity(NodeAffinity())`` sets a node affinity with neither a required nor a preferred part."""
    pod = make_pod("p").node_affinity(NodeAffinity()).obj()
    assert pod.spec.affinity is not None
    assert pod.spec.affinity.node_affinity == NodeAffinity()


def test_node_affinity_none_removes_it() -> None:
    """``node_affinity(None)`` removes the node affinity built so far."""
    pod = make_pod("p").node_affinity_in("a", "b").node_affinity(None).obj()
    assert pod.spec.affinity is not None
    assert pod.spec.affinity.node_affinity is None


def test_one_container_holds_several_host_ports_with_ip_and_protocol() -> None:
    """``container_ports`` adds one container with every port given, host IP and protocol included."""
    pod = make_pod("p").container_ports(port(80), port(53, "UDP", "127.0.0.1"), port(0, container_port=9090)).obj()
    assert pod == decoded.pod(HEAD + """spec:
  containers:
  - name: c0
    ports:
    - {containerPort: 80, hostPort: 80}
    - {containerPort: 53, hostPort: 53, protocol: UDP, hostIP: 127.0.0.1}
    - {containerPort: 9090}
""")


def test_container_takes_ports_beside_requests_and_a_name() -> None:
    """``container(requests, ports=..., name=...)`` builds one container with all of them."""
    pod = make_pod("p").container({"cpu": "1"}, ports=[port(8080, "SCTP")], name="app").obj()
    assert pod == decoded.pod(HEAD + """spec:
  containers:
  - name: app
    resources: {requests: {cpu: "1"}}
    ports: [{containerPort: 8080, hostPort: 8080, protocol: SCTP}]
""")


def test_a_sidecar_init_container_holds_its_ports() -> None:
    """``init_container(sidecar=True, ports=...)`` is a restartable init container with those ports."""
    pod = make_pod("p").init_container("proxy:1", sidecar=True, ports=[port(15001, host_ip="10.0.0.1")]).obj()
    assert pod == decoded.pod(HEAD + """spec:
  containers: [{name: c0}]
  initContainers:
  - name: init0
    image: proxy:1
    restartPolicy: Always
    ports: [{containerPort: 15001, hostPort: 15001, hostIP: 10.0.0.1}]
""")


def test_host_network_gives_every_port_its_container_port_on_the_host() -> None:
    """``host_network()``: the pod the API server stores for hostNetwork (hostPort defaults to containerPort in
    containers and init containers alike; a given hostPort is kept)."""
    pod = make_pod("p").host_network().container_ports(port(0, container_port=8080), port(53, "UDP")) \
        .init_container(sidecar=True, ports=[port(0, container_port=9000)]).obj()
    assert pod == decoded.pod(HEAD + """spec:
  containers:
  - name: c0
    ports: [{containerPort: 8080, hostPort: 8080}, {containerPort: 53, hostPort: 53, protocol: UDP}]
  initContainers:
  - name: init0
    restartPolicy: Always
    ports: [{containerPort: 9000, hostPort: 9000}]
""")


def test_spread_with_selector_none_has_no_label_selector() -> None:
    """``spread(..., selector=None)`` is a constraint without labelSelector (not an empty one)."""
    pod = make_pod("p").spread(1, "zone", selector=None).obj()
    assert pod == decoded.pod(HEAD + """spec:
  containers: [{name: c0}]
  topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]
""")


def test_spread_without_labels_keeps_its_empty_selector() -> None:
    """``spread(1, "zone")`` keeps its old meaning: an empty labelSelector ``{}``."""
    assert make_pod("p").spread(1, "zone").obj().spec.topology_spread_constraints[0].label_selector == LabelSelector()


def test_spread_takes_every_field_of_a_constraint() -> None:
    """A selector with expressions, minDomains, both inclusion policies and matchLabelKeys, as the API has them."""
    pod = make_pod("p").spread(2, "zone", selector=make_selector().expression("app", "In", "web", "api"),
                               min_domains=3, node_affinity_policy="Ignore", node_taints_policy="Honor",
                               match_label_keys=["pod-template-hash"]).obj()
    assert pod == decoded.pod(HEAD + """spec:
  containers: [{name: c0}]
  topologySpreadConstraints:
  - maxSkew: 2
    topologyKey: zone
    whenUnsatisfiable: DoNotSchedule
    labelSelector: {matchExpressions: [{key: app, operator: In, values: [web, api]}]}
    minDomains: 3
    nodeAffinityPolicy: Ignore
    nodeTaintsPolicy: Honor
    matchLabelKeys: [pod-template-hash]
""")


def test_spread_refuses_a_selector_beside_labels() -> None:
    """Labels and ``selector=`` together are ambiguous: a TypeError names both."""
    with pytest.raises(TypeError, match="selector= or labels"):
        make_pod("p").spread(1, "zone", selector=make_selector(), app="web")


def test_an_affinity_term_holds_namespaces_namespace_selector_and_label_keys() -> None:
    """``make_affinity_term`` sets every field of a pod affinity term; here a preferred anti-affinity term."""
    term = make_affinity_term("zone").match(app="web").namespaces("a", "b") \
        .namespace_selector(make_selector().label(team="x")).match_label_keys("version").mismatch_label_keys("tenant")
    pod = make_pod("p").affinity_term(term, anti=True, weight=7).obj()
    assert pod == decoded.pod(HEAD + """spec:
  containers: [{name: c0}]
  affinity:
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 7
        podAffinityTerm:
          topologyKey: zone
          labelSelector: {matchLabels: {app: web}}
          namespaces: [a, b]
          namespaceSelector: {matchLabels: {team: x}}
          matchLabelKeys: [version]
          mismatchLabelKeys: [tenant]
""")


def test_an_affinity_term_without_a_selector_has_none() -> None:
    """A term given no ``match`` or ``selector`` has no labelSelector (it selects no pod)."""
    pod = make_pod("p").affinity_term(make_affinity_term("zone")).obj()
    assert pod == decoded.pod(HEAD + """spec:
  containers: [{name: c0}]
  affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: zone}]}}
""")


def test_an_affinity_term_with_an_empty_namespace_selector_keeps_it() -> None:
    """``namespace_selector(make_selector())`` is the empty selector ``{}`` (every namespace), not None."""
    term = make_affinity_term("zone").selector(make_selector().expression("app", "Exists")) \
        .namespace_selector(make_selector()).obj()
    assert term.namespace_selector == LabelSelector()
    assert term.label_selector is not None
    assert term.label_selector.match_expressions[0].operator == "Exists"


def test_annotations_and_labels_take_keys_with_dots_and_slashes() -> None:
    """``annotations({...})`` and ``labels({...})`` take any key; the keyword forms add more."""
    pod = make_pod("p").annotations({"kubesched.io/duration": "90s"}).annotation(owner="me") \
        .labels({"app.kubernetes.io/name": "web"}).label(tier="front").obj()
    assert pod == decoded.pod("""metadata:
  name: p
  uid: default/p-uid
  annotations: {kubesched.io/duration: 90s, owner: me}
  labels: {app.kubernetes.io/name: web, tier: front}
spec: {containers: [{name: c0}]}
""")


def test_unlabel_removes_labels() -> None:
    """``unlabel`` removes the keys given and keeps the others."""
    assert make_pod("p").label(a="1", b="2").unlabel("a").obj().labels == {"b": "2"}


def test_conditions_are_added_in_order() -> None:
    """``condition`` adds a status condition with its reason, message and lastTransitionTime."""
    when = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
    pod = make_pod("p").condition("PodScheduled", "False", "Unschedulable", "no fit") \
        .condition("DisruptionTarget", reason="PreemptionByScheduler", at=when).obj()
    assert pod == decoded.pod(HEAD + """spec: {containers: [{name: c0}]}
status:
  conditions:
  - {type: PodScheduled, status: "False", reason: Unschedulable, message: no fit}
  - {type: DisruptionTarget, status: "True", reason: PreemptionByScheduler, lastTransitionTime: "2024-05-01T12:00:00Z"}
""")


def test_priority_class_name_overhead_and_toleration_seconds() -> None:
    """spec.priorityClassName, spec.overhead and a NoExecute toleration with tolerationSeconds."""
    pod = make_pod("p").priority_class_name("high").overhead(cpu="250m", memory="120Mi") \
        .toleration("node.kubernetes.io/unreachable", effect="NoExecute", operator="Exists", seconds=300).obj()
    assert pod == decoded.pod(HEAD + """spec:
  containers: [{name: c0}]
  priorityClassName: high
  overhead: {cpu: 250m, memory: 120Mi}
  tolerations:
  - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
""")


def test_builders_and_objects_are_interchangeable_as_parts() -> None:
    """Every part argument takes the builder or the object it builds."""
    by_builder = make_pod("p").node_affinity_term(make_node_term().expression("a", "Exists")) \
        .affinity_term(make_affinity_term("zone").match(app="x")).spread(1, "zone", selector=make_selector()).obj()
    by_object = make_pod("p").node_affinity_term(make_node_term().expression("a", "Exists").obj()) \
        .affinity_term(make_affinity_term("zone").match(app="x").obj()) \
        .spread(1, "zone", selector=LabelSelector()).obj()
    assert by_builder == by_object


def test_container_names_follow_the_order_added() -> None:
    """Containers are ``c0``, ``c1``... and init containers ``init0``... unless named."""
    pod = make_pod("p").req(cpu="1").host_port(80).init_req(cpu="1").obj()
    assert [c.name for c in pod.spec.containers] == ["c0", "c1"]
    assert pod.spec.init_containers == (Container(name="init0", requests=pod.spec.init_containers[0].requests),)
