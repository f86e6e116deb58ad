"""matchLabelKeys and mismatchLabelKeys of pod (anti-)affinity terms, checked as the API server (v1.32) checks them:
on a pod after merging them into the term's labelSelector (``key In (value)`` for the keys the pod's labels carry,
then ``key NotIn (value)``), on a workload's template as written. Every message and field path below was read from
a real kube-apiserver v1.32's 422 causes (its path for a repeated key, ``...[0][0]``, lacks ``.matchLabelKeys``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kubesched.io.load import InputErrorList, load

REQUIRED = "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
PREFERRED = "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm"
IN_BOTH = "exists in both matchLabelKeys and labelSelector"


def pod(labels: dict[str, str], term: dict[str, Any], *, preferred: bool = False) -> dict[str, Any]:
    """A pod with these labels and one required pod affinity term (or preferred anti-affinity term)."""
    affinity = ({"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 1, "podAffinityTerm": term}]}} if preferred
        else {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}})
    return {"kind": "Pod", "metadata": {"name": "p", "labels": labels},
            "spec": {"containers": [{"name": "c", "image": "i"}], "affinity": affinity}}


def term(selector: dict[str, Any] | None = None, **keys: list[str]) -> dict[str, Any]:
    """A term on zone with this labelSelector (none when None) and matchLabelKeys / mismatchLabelKeys."""
    found: dict[str, Any] = {"topologyKey": "zone", **keys}
    if selector is not None:
        found["labelSelector"] = selector
    return found


def problems(document: dict[str, Any], tmp_path: Path) -> list[str]:
    """The messages ``load`` reports for the document, without the file and object prefix (none when it loads)."""
    path = tmp_path / "input.yaml"
    path.write_text(json.dumps(document), encoding="utf-8")
    try:
        load([path])
    except InputErrorList as errors:
        return [str(e).split(": ", 2)[2] for e in errors.errors]
    return []


APP_IN_X = {"matchExpressions": [{"key": "app", "operator": "In", "values": ["x"]}]}
APP_X = {"matchLabels": {"app": "x"}}

REJECTED = [
    pytest.param({"app": "web"}, term(APP_IN_X, matchLabelKeys=["app"]),
                 [f'{REQUIRED}[0]: Invalid value: "app": {IN_BOTH}'], id="key-in-match-expressions"),
    pytest.param({"app": "web"}, term(APP_X, matchLabelKeys=["app"]),
                 [f'{REQUIRED}[0]: Invalid value: "app": {IN_BOTH}'], id="key-in-match-labels"),
    pytest.param({"app": "web", "tier": "t"}, term(APP_X, matchLabelKeys=["tier", "tier"]),
                 [f'{REQUIRED}[1]: Invalid value: "tier": {IN_BOTH}'], id="key-repeated"),
    pytest.param({"app": "web"}, term({"matchLabels": {"tier": "x"}}, matchLabelKeys=["app"],
                                      mismatchLabelKeys=["app"]),
                 [f'{REQUIRED}[0]: Invalid value: "app": {IN_BOTH}',
                  f'{REQUIRED}.matchLabelKeys[0]: Invalid value: "app": exists in both matchLabelKeys and '
                  "mismatchLabelKeys"], id="key-in-both-lists"),
    pytest.param({"app": "web", "tier": "t"}, term(matchLabelKeys=["tier"]),
                 [f"{REQUIRED}.matchLabelKeys: Forbidden: must not be specified when labelSelector is not set"],
                 id="no-label-selector"),
    pytest.param({"app": "web"}, term(APP_X, mismatchLabelKeys=["a b"]),
                 [f'{REQUIRED}.mismatchLabelKeys[0]: Invalid value: "a b": name part must consist of alphanumeric '
                  "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
                  "'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
                  "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"], id="key-not-a-label-key"),
]


@pytest.mark.parametrize(("labels", "affinity_term", "expected"), REJECTED)
def test_api_server_rejects_label_keys(labels: dict[str, str], affinity_term: dict[str, Any], expected: list[str],
                                       tmp_path: Path) -> None:
    """A pod the API server rejects for its terms' label keys is rejected with its paths and words."""
    assert problems(pod(labels, affinity_term), tmp_path) == expected


def test_preferred_terms_are_checked_at_their_own_path(tmp_path: Path) -> None:
    """A preferred anti-affinity term is checked the same way, at ``...podAffinityTerm[i]``."""
    assert problems(pod({"app": "web"}, term(APP_X, matchLabelKeys=["app"]), preferred=True), tmp_path) == [
        f'{PREFERRED}[0]: Invalid value: "app": {IN_BOTH}']


ACCEPTED = [
    pytest.param({"app": "web"}, term(APP_X, mismatchLabelKeys=["app"]), id="mismatch-key-in-selector"),
    pytest.param({"other": "web"}, term(APP_X, matchLabelKeys=["app"]), id="pod-without-the-key-merges-nothing"),
    pytest.param({"app": "web", "tier": "t"}, term(APP_X, matchLabelKeys=["tier"], mismatchLabelKeys=["app"]),
                 id="merged-keys-new-to-the-selector"),
    pytest.param({"app": "web", "tier": "t"},
                 term({**APP_X, "matchExpressions": [{"key": "tier", "operator": "In", "values": ["t"]}]},
                      matchLabelKeys=["tier"]), id="read-back-from-an-api-server"),
]


@pytest.mark.parametrize(("labels", "affinity_term"), ACCEPTED)
def test_api_server_accepts_label_keys(labels: dict[str, str], affinity_term: dict[str, Any],
                                       tmp_path: Path) -> None:
    """A pod the API server takes loads (the last one as an API server returns a created pod: merged already)."""
    assert problems(pod(labels, affinity_term), tmp_path) == []


def deployment(affinity_term: dict[str, Any]) -> dict[str, Any]:
    """A Deployment whose template (labelled app=web) has this required pod affinity term."""
    return {"kind": "Deployment", "metadata": {"name": "d"}, "spec": {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
            "containers": [{"name": "c", "image": "i"}],
            "affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [affinity_term]}}}}}}


def test_template_is_checked_as_written(tmp_path: Path) -> None:
    """No merge in a template: a key in matchLabels and matchLabelKeys passes, a key in matchLabels and again in
    matchExpressions does not."""
    assert problems(deployment(term(APP_X, matchLabelKeys=["app"])), tmp_path) == []
    assert problems(deployment(term({**APP_X, **APP_IN_X}, matchLabelKeys=["app"])), tmp_path) == [
        "spec.template.spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0][0]: "
        f'Invalid value: "app": {IN_BOTH}']
