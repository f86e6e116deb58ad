"""The events kubesched writes: kube-scheduler's shape, within the API server's name limit."""

from __future__ import annotations

from kubesched.kube.events import event_object
from kubesched.testing.builders import make_pod


def test_event_names_stay_within_the_name_limit() -> None:
    """An event about a pod with a 253-character name still has a valid (at most 253 characters) name."""
    pod = make_pod("p" * 253).obj()
    event = event_object(pod, "Normal", "Scheduled", "Successfully assigned", "kubesched-1")
    assert len(event["metadata"]["name"]) == 253


def test_event_has_kube_schedulers_fields() -> None:
    """Reason, note, type, action, reporting controller and the regarding pod, as events.k8s.io/v1 wants them."""
    pod = make_pod("web", "shop").obj()
    event = event_object(pod, "Warning", "FailedScheduling", "0/1 nodes are available", "kubesched-1")
    assert {k: event[k] for k in ("type", "reason", "note", "action", "reportingController", "reportingInstance")} \
        == {"type": "Warning", "reason": "FailedScheduling", "note": "0/1 nodes are available",
            "action": "Scheduling", "reportingController": "kubesched", "reportingInstance": "kubesched-1"}
    assert event["regarding"] == {"apiVersion": "v1", "kind": "Pod", "namespace": "shop", "name": "web",
                                  "uid": pod.uid}
    assert event["metadata"]["namespace"] == "shop"
