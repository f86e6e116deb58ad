"""`kubesched run` against servers it cannot use, through an API-server outage, and with a plugin that never
returns: bounded start-up with a clear error, events written after the outage, a stalled loop reported by
/healthz and /readyz, SIGTERM obeyed within a bound."""

from __future__ import annotations

import datetime
import functools
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from kubesched.kube.rest import KubeApi
from kubesched.testing.kube import ControlPlane, free_port
from tests.kube.helpers import (
    REPO,
    create,
    deploy_objects,
    events,
    grant_deploy_role,
    kubesched_run,
    node,
    pod,
    wait_for,
)

pytestmark = [pytest.mark.kube, pytest.mark.slow]

API_TIMEOUT = 2.0
#: Python's start-up and kubesched's imports, on a loaded 2-core machine.
START_UP = 10.0


def _self_signed_ca(path: Path) -> Path:
    """A CA certificate that signed nothing the API server serves."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "some-other-ca")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return path


def _kubeconfig(plane: ControlPlane, folder: Path, case: str) -> tuple[Path, str]:
    """A kubeconfig broken as ``case`` says, and the server it names."""
    config = json.loads(plane.kubeconfig("kubesched").read_text())
    cluster, user = config["clusters"][0]["cluster"], config["users"][0]["user"]
    if case == "closed-port":
        cluster["server"] = f"https://127.0.0.1:{free_port()}"
    elif case == "wrong-token":
        user["token"] = "not-a-token-the-server-knows"
    elif case == "wrong-ca":
        cluster["certificate-authority"] = str(_self_signed_ca(folder / "other-ca.crt"))
    path = folder / f"{case}.kubeconfig"
    path.write_text(json.dumps(config))
    return path, cluster["server"]


def _run(*args: str) -> tuple[int, str, float]:
    started = time.monotonic()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-m", "kubesched", "run", *args], capture_output=True, text=True,
                          env=env, cwd=REPO, timeout=120, stdin=subprocess.DEVNULL)
    return done.returncode, done.stderr, time.monotonic() - started


@pytest.mark.parametrize(("case", "said"), [
    pytest.param("closed-port", "could not reach it: connection refused", id="connection refused"),
    pytest.param("wrong-token", "Unauthorized: the token was rejected (check the kubeconfig's credentials)",
                 id="401"),
    pytest.param("wrong-ca", "certificate verify failed (", id="wrong CA"),
])
def test_unusable_api_server_ends_with_one_error_line_after_the_api_timeout(
        kube_control_plane: ControlPlane, tmp_path: Path, case: str, said: str) -> None:
    """At start-up a refused port, a rejected token or a certificate the CA did not sign ends the run with exit 1
    and one line naming the server and what failed, after --api-timeout; no traceback."""
    kubeconfig, server = _kubeconfig(kube_control_plane, tmp_path, case)
    code, err, took = _run("--kubeconfig", str(kubeconfig), "--api-timeout", f"{API_TIMEOUT:g}s",
                           "--metrics-bind-address", f"127.0.0.1:{free_port()}")
    assert code == 1, err
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, err
    assert errors[0].startswith(f"error: API server {server}: {said}")
    assert errors[0].endswith(f"(gave up after {API_TIMEOUT:g} s: --api-timeout sets how long to try, "
                              "--keep-trying tries for ever)")
    assert "Traceback" not in err
    assert API_TIMEOUT <= took < API_TIMEOUT + START_UP


@pytest.mark.parametrize(("address", "warned"), [
    pytest.param(":{port}", True, id=":PORT"),
    pytest.param("0.0.0.0:{port}", True, id="0.0.0.0"),
    pytest.param("127.0.0.1:{port}", False, id="127.0.0.1"),
])
def test_metrics_address_off_loopback_is_warned_about_at_start_up(
        kube_control_plane: ControlPlane, tmp_path: Path, address: str, warned: bool) -> None:
    """A metrics address reachable from other machines prints, before anything else, that /metrics, /healthz and
    /readyz are unauthenticated plain HTTP on every interface; the loopback default prints nothing of the kind."""
    kubeconfig, _ = _kubeconfig(kube_control_plane, tmp_path, "closed-port")
    bind = address.format(port=free_port())
    code, err, _ = _run("--kubeconfig", str(kubeconfig), "--api-timeout", "0.5s", "--metrics-bind-address", bind)
    assert code == 1
    warning = (f"warning: --metrics-bind-address {bind}: /metrics, /healthz and /readyz are served over plain HTTP "
               "without authentication on every interface")
    assert err.startswith(warning) is warned, err
    assert ("without authentication" in err) is warned


def test_failed_scheduling_event_written_during_an_outage_lands_after_it(
        kube_control_plane: ControlPlane, tmp_path: Path) -> None:
    """A FailedScheduling event whose POST found the API server down is tried again (every 10 s, as client-go's
    broadcaster does) and is there once the server is back."""
    admin = KubeApi.connect(str(kube_control_plane.kubeconfig("admin")))
    role = next(o for o in deploy_objects() if o["kind"] == "ClusterRole")
    no_bind = {**role, "metadata": {"name": "kubesched-no-bind"},
               "rules": [r for r in role["rules"] if "pods/binding" not in r["resources"]]}
    create(admin, no_bind)
    create(admin, {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                   "metadata": {"name": "kubesched-2-no-bind"},
                   "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                               "name": "kubesched-no-bind"},
                   "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "kubesched-2"}]})
    create(admin, node("outage-node"))
    with kubesched_run(kube_control_plane, tmp_path, identity="kubesched-2", name="outage") as process:
        create(admin, pod("refused-bind"))
        wait_for("a refused bind", lambda: events(admin, reason="FailedScheduling"), log=process.log)
        kube_control_plane.stop_apiserver()
        try:
            wait_for("an event the outage kept out", lambda: "could not write FailedScheduling event, trying again"
                     in process.log_text(), log=process.log)
        finally:
            kube_control_plane.start_apiserver()

        def written_in_outage() -> list[dict[str, Any]]:
            return [e for e in events(admin, reason="FailedScheduling")
                    if e["regarding"]["name"] == "refused-bind" and "refused" in e["note"].lower()]

        landed = wait_for("the outage's event to land", written_in_outage, timeout=40, log=process.log)
    assert landed[0]["type"] == "Warning"


BUSY = '''
from kubesched import Plugin, hookimpl


class SpinFilter(Plugin):
    name = "SpinFilter"

    @hookimpl
    def filter(self, state, pod, node_info):
        while pod.name == "spin":
            pass
        return None


class ExitFilter(Plugin):
    name = "ExitFilter"

    @hookimpl
    def filter(self, state, pod, node_info):
        if pod.name == "exit":
            import os
            os._exit(3)
        return None
'''


@pytest.fixture(scope="module")
def busy_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site directory with a distribution whose Filter spins for ever on the pod named spin."""
    site = tmp_path_factory.mktemp("busy")
    (site / "acme_spin.py").write_text(BUSY)
    meta = site / "acme_spin-1.0.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-spin\nVersion: 1.0\n")
    (meta / "entry_points.txt").write_text("[kubesched.plugins]\nSpinFilter = acme_spin:SpinFilter\n"
                                              "ExitFilter = acme_spin:ExitFilter\n")
    return site


def _status(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return int(response.status), response.read().decode()
    except urllib.error.HTTPError as error:
        return int(error.code), error.read().decode()
    except OSError:  # not listening yet
        return 0, ""


def _failing(url: str) -> str | None:
    """The reason an endpoint gives with its 500 (None while it answers anything else)."""
    code, body = _status(url)
    return body if code == 500 else None


def _spin_profile(folder: Path, scheduler: str, plugin: str = "SpinFilter") -> Path:
    profile = folder / f"{scheduler}.toml"
    profile.write_text(f'[[profiles]]\nscheduler-name = "{scheduler}"\n'
                       f'[profiles.plugins.filter]\nenabled = [{{ name = "{plugin}" }}]\n')
    return profile


def test_busy_plugin_stalls_health_and_sigterm_still_ends_the_process(
        kube_control_plane: ControlPlane, tmp_path: Path, busy_site: Path) -> None:
    """A Filter that never returns: /healthz and /readyz answer 500 once the loop stalled past --stall-timeout (a
    liveness probe restarts it), and SIGTERM ends the process within the shutdown grace, exit status 1."""
    admin = KubeApi.connect(str(kube_control_plane.kubeconfig("admin")))
    grant_deploy_role(admin)
    create(admin, node("spin-node"))
    profile = _spin_profile(tmp_path, "spinning")
    with kubesched_run(kube_control_plane, tmp_path, "--profile", str(profile), "--stall-timeout", "2s",
                       site=busy_site, name="spin") as process:
        base = f"http://127.0.0.1:{process.port}"
        wait_for("/readyz", lambda: _status(base + "/readyz")[0] == 200, log=process.log)
        create(admin, pod("spin", scheduler="spinning"))
        for path in ("/healthz", "/readyz"):
            body = wait_for(f"{path} to fail", functools.partial(_failing, base + path), log=process.log)
            assert body.startswith("scheduling loop stalled: no cycle finished for "), body
        process.process.terminate()
        signalled = time.monotonic()
        status = wait_for("the process to exit", lambda: process.process.poll() is not None, timeout=20,
                          log=process.log)
        took = time.monotonic() - signalled
        text = process.log_text()
    assert status
    assert process.process.returncode == 1
    assert took < 10 + 3, text
    assert "did not finish within 10 s of the signal: exiting without it" in text


def test_plugin_timeout_applies_in_run(kube_control_plane: ControlPlane, tmp_path: Path, busy_site: Path) -> None:
    """--plugin-timeout-ms interrupts the spinning Filter: the pod fails with that plugin's error (its
    FailedScheduling event says so) and the loop stays healthy."""
    admin = KubeApi.connect(str(kube_control_plane.kubeconfig("admin")))
    grant_deploy_role(admin)
    create(admin, node("bounded-node"))  # its own node: the test does not rest on another test's
    profile = _spin_profile(tmp_path, "bounded")
    with kubesched_run(kube_control_plane, tmp_path, "--profile", str(profile), "--plugin-timeout-ms", "200",
                       site=busy_site, name="bounded") as process:
        create(admin, {**pod("spin", scheduler="bounded"), "metadata": {"name": "spin", "namespace": "kube-public"}})
        failed = wait_for("the plugin's error", lambda: [e for e in events(admin, "kube-public", "FailedScheduling")
                                                         if e["regarding"]["name"] == "spin"], log=process.log)
        assert 'running "SpinFilter" filter plugin: exceeded the plugin timeout of 200 ms' in failed[0]["note"]
        assert _status(f"http://127.0.0.1:{process.port}/healthz") == (200, "ok")


def test_plugin_calling_os_exit_fails_its_pod_and_the_process_stays_up(
        kube_control_plane: ControlPlane, tmp_path: Path, busy_site: Path) -> None:
    """A Filter that calls os._exit: the pod fails with that plugin's error and the scheduler keeps running (no
    crash loop of restarts)."""
    admin = KubeApi.connect(str(kube_control_plane.kubeconfig("admin")))
    grant_deploy_role(admin)
    create(admin, node("exit-node"))
    profile = _spin_profile(tmp_path, "exiting", "ExitFilter")
    with kubesched_run(kube_control_plane, tmp_path, "--profile", str(profile), site=busy_site,
                       name="exiting") as process:
        namespace = "kube-node-lease"
        create(admin, {**pod("exit", scheduler="exiting"), "metadata": {"name": "exit", "namespace": namespace}})
        failed = wait_for("the plugin's error", lambda: [e for e in events(admin, namespace, "FailedScheduling")
                                                         if e["regarding"]["name"] == "exit"], log=process.log)
        assert "called os._exit(3): a plugin may not end or signal the process" in failed[0]["note"]
        assert process.process.poll() is None
        assert _status(f"http://127.0.0.1:{process.port}/healthz") == (200, "ok")
