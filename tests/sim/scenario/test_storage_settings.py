"""A scenario's storage settings (spec.settings.provisioningDelay and provisioners) and storage objects created by
its steps."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubesched.io.load import InputErrorList
from kubesched.profiles import load_config
from kubesched.runtime import PluginRegistry
from kubesched.sim.controllers import StorageSettings
from kubesched.sim.scenario import load_scenario
from kubesched.sim.scenario_run import run_scenario
from tests.sim.scenario.helpers import node

STEPS = f"""  - create:
      objects:
      - {node("n1")}
      - {{apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {{name: fast}}, provisioner: csi.example.com}}
      - {{kind: PersistentVolumeClaim, metadata: {{name: data, namespace: default}}, spec: {{accessModes:
          [ReadWriteOnce], storageClassName: fast, resources: {{requests: {{storage: 1Gi}}}}}}}}
      - {{kind: Pod, metadata: {{name: web, namespace: default}}, spec: {{containers: [{{name: c}}],
          volumes: [{{name: d, persistentVolumeClaim: {{claimName: data}}}}]}}}}
"""


def write(tmp_path: Path, settings: str) -> Path:
    path = tmp_path / "scenario.yaml"
    path.write_text("apiVersion: kubesched.io/v1alpha1\nkind: Scenario\nmetadata: {name: test}\nspec:\n"
                    f"  settings: {settings}\n  steps:\n" + STEPS, encoding="utf-8")
    return path


def test_the_storage_settings_are_read(tmp_path: Path) -> None:
    """provisioningDelay (a duration) and provisioners (names) become the storage loop's settings."""
    scenario = load_scenario(write(tmp_path, "{provisioningDelay: 30s, provisioners: [csi.example.com]}"))
    assert scenario.storage == StorageSettings(30.0, ("csi.example.com",))


def test_without_storage_settings_the_defaults_apply(tmp_path: Path) -> None:
    """5 seconds, and the provisioners the input shows running."""
    assert load_scenario(write(tmp_path, "{}")).storage == StorageSettings()


@pytest.mark.parametrize(("settings", "error"), [
    pytest.param("{provisioners: csi.example.com}",
                 'spec.settings.provisioners: Invalid value: "csi.example.com": must be a list of provisioner names',
                 id="not-a-list"),
    pytest.param("{provisioningDelay: -1}",
                 "spec.settings.provisioningDelay: Invalid value: -1: must be a finite number of seconds, 0 or more",
                 id="negative-delay"),
    pytest.param("{provisioningDeley: 1s}", 'spec.settings.provisioningDeley: unknown field "provisioningDeley" '
                 '(known: "controllerDelay", "jobDuration", "provisioningDelay", "provisioners")', id="unknown"),
])
def test_bad_storage_settings_are_refused(tmp_path: Path, settings: str, error: str) -> None:
    """Each bad setting is an error naming its field."""
    with pytest.raises(InputErrorList) as caught:
        load_scenario(write(tmp_path, settings))
    assert [str(e).split(": ", 1)[1] for e in caught.value.errors] == [error]


def test_a_step_creates_storage_objects_and_the_provisioner_binds_them(tmp_path: Path,
                                                                       registry: PluginRegistry) -> None:
    """The step's StorageClass and claim reach the cluster; the named provisioner provisions after the delay."""
    scenario = load_scenario(write(tmp_path, "{provisioningDelay: 3s, provisioners: ['*']}"))
    result = run_scenario(scenario, load_config("default", registry), registry)
    (web,) = result.pods
    assert (web.phase, web.node) == ("Bound", "n1")
    assert [e.time for e in result.events if e.reason == "ProvisioningSucceeded"] == [3.0]
