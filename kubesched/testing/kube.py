"""A real control plane for tests: etcd and kube-apiserver from ``KUBEBUILDER_ASSETS`` (envtest's convention).

:class:`ControlPlane` starts both on free 127.0.0.1 ports with a fresh data directory, token-file identities
(an admin in ``system:masters``, ``system:kube-scheduler``, and unbound ``kubesched`` and ``kubesched-2`` users a
test grants roles to), RBAC authorization and the admission flags a control plane without controllers needs; it
stops them by PID.

As a pytest plugin (``pytest_plugins = ["kubesched.testing.kube"]``, or import the names in a conftest) it gives
the module-scoped ``kube_control_plane`` fixture and registers the ``kube`` marker: without the variable the tests
skip with the reason, except under CI (``CI=true``), where a skipped ``kube`` test fails instead.
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import os
import secrets
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

ASSETS_VARIABLE = "KUBEBUILDER_ASSETS"
#: How long etcd and kube-apiserver get to become ready before the fixture fails with their logs.
READY_TIMEOUT = 60.0
#: kube-apiserver waits for its watch connections when stopped; past this it is killed.
STOP_TIMEOUT = 5.0
SKIP_REASON = (f"{ASSETS_VARIABLE} is not set: point it at a folder holding etcd and kube-apiserver "
               "(setup-envtest's, or .ci/run's unpacked ../shared/kube) to run the tests against a real API server")
#: The token-file identities: name -> (user, groups).
IDENTITIES: dict[str, tuple[str, str]] = {
    "admin": ("admin", "system:masters"),
    "scheduler": ("system:kube-scheduler", ""),
    "kubesched": ("kubesched", ""),
    "kubesched-2": ("kubesched-2", ""),
}


def assets_dir() -> Path | None:
    """The folder ``KUBEBUILDER_ASSETS`` names, or None when the variable is unset or empty."""
    value = os.environ.get(ASSETS_VARIABLE, "")
    return Path(value) if value else None


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _write_pki(folder: Path) -> None:
    """A CA, a serving certificate for 127.0.0.1 signed by it, and the service-account signing key (EC P-256)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    folder.mkdir(parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.UTC)

    def pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
        return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.NoEncryption())

    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kubesched-test-ca")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
          .not_valid_after(now + datetime.timedelta(days=7))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kube-apiserver")]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=7))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                                        x509.DNSName("localhost")]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    sa_key = ec.generate_private_key(ec.SECP256R1())
    (folder / "ca.crt").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    (folder / "apiserver.crt").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "apiserver.key").write_bytes(pem_key(key))
    (folder / "sa.key").write_bytes(pem_key(sa_key))
    (folder / "sa.pub").write_bytes(sa_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))


def _stop(process: subprocess.Popen[bytes] | None) -> None:
    """Terminate a process by PID, wait, then kill it if it is still there."""
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(STOP_TIMEOUT)


def log_tail(path: Path, lines: int = 20) -> str:
    """The last ``lines`` lines of a log file ("" when it does not exist)."""
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


class ControlPlaneError(RuntimeError):
    """etcd or kube-apiserver did not start; the message holds the log tail."""


class ControlPlane:
    """etcd + kube-apiserver on 127.0.0.1, their state and logs under ``folder``."""

    def __init__(self, assets: Path, folder: Path) -> None:
        self.assets = assets
        self.folder = folder
        self.pki = folder / "pki"
        self.tokens = {name: secrets.token_hex(16) for name in IDENTITIES}
        self.etcd_port = free_port()
        self.peer_port = free_port()
        self.port = free_port()
        self.etcd: subprocess.Popen[bytes] | None = None
        self.apiserver: subprocess.Popen[bytes] | None = None
        #: kube-scheduler and kube-controller-manager, when a test started them; stopped first.
        self.components: list[subprocess.Popen[bytes]] = []

    @property
    def server(self) -> str:
        """The API server's URL."""
        return f"https://127.0.0.1:{self.port}"

    @property
    def ca_file(self) -> Path:
        """The CA that signed the API server's serving certificate."""
        return self.pki / "ca.crt"

    def start(self) -> None:
        """Start etcd and kube-apiserver; wait until /readyz answers, or raise with the API server's log tail."""
        _write_pki(self.pki)
        lines = [f'{self.tokens[name]},{user},{user}-uid,"{groups}"' for name, (user, groups) in IDENTITIES.items()]
        (self.pki / "tokens.csv").write_text("\n".join(lines) + "\n")
        for name in IDENTITIES:
            self.write_kubeconfig(name, self.folder / f"{name}.kubeconfig")
        try:
            self.start_etcd()
            self.start_apiserver()
        except BaseException:
            self.stop()
            raise

    def start_etcd(self) -> None:
        """Start etcd on the saved ports with the folder's data directory (kept across restarts); wait until healthy."""
        etcd_url, peer_url = f"http://127.0.0.1:{self.etcd_port}", f"http://127.0.0.1:{self.peer_port}"
        self.etcd = self._spawn("etcd", [
            str(self.assets / "etcd"), "--name", "test", "--data-dir", str(self.folder / "etcd-data"),
            "--listen-client-urls", etcd_url, "--advertise-client-urls", etcd_url,
            "--listen-peer-urls", peer_url, "--initial-advertise-peer-urls", peer_url,
            "--initial-cluster", f"test={peer_url}", "--log-level", "warn"])
        self._wait_ready("etcd", f"{etcd_url}/health", None)

    def stop_etcd(self) -> None:
        """Stop etcd only (its data directory stays), as an etcd restart does; kube-apiserver keeps running."""
        _stop(self.etcd)
        self.etcd = None

    def start_apiserver(self) -> None:
        """Start kube-apiserver on the saved port against the running etcd and wait until it is ready."""
        p = self.pki
        self.apiserver = self._spawn("kube-apiserver", [
            str(self.assets / "kube-apiserver"), f"--etcd-servers=http://127.0.0.1:{self.etcd_port}",
            "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", f"--secure-port={self.port}",
            f"--cert-dir={self.folder / 'apiserver-certs'}",
            f"--tls-cert-file={p / 'apiserver.crt'}", f"--tls-private-key-file={p / 'apiserver.key'}",
            f"--client-ca-file={p / 'ca.crt'}", f"--token-auth-file={p / 'tokens.csv'}", "--authorization-mode=RBAC",
            f"--requestheader-client-ca-file={p / 'ca.crt'}", "--requestheader-allowed-names=front-proxy-client",
            "--requestheader-username-headers=X-Remote-User", "--requestheader-group-headers=X-Remote-Group",
            "--requestheader-extra-headers-prefix=X-Remote-Extra-",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            f"--service-account-key-file={p / 'sa.pub'}", f"--service-account-signing-key-file={p / 'sa.key'}",
            "--api-audiences=https://kubernetes.default.svc.cluster.local",
            "--service-cluster-ip-range=10.0.0.0/24", "--endpoint-reconciler-type=none",
            "--enable-admission-plugins=Priority", "--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
            "--profiling=false", "--v=1"])
        self._wait_ready("kube-apiserver", f"{self.server}/readyz", self.tokens["admin"])

    def stop_apiserver(self) -> None:
        """Stop kube-apiserver only (etcd keeps the state), as an API server restart does."""
        _stop(self.apiserver)
        self.apiserver = None

    def start_scheduler(self, *flags: str) -> subprocess.Popen[bytes]:
        """Start the real kube-scheduler from the assets as ``system:kube-scheduler`` (its log:
        ``kube-scheduler.log``); stopped by :meth:`stop`."""
        return self._start_component("kube-scheduler", "scheduler", flags)

    def start_controller_manager(self, *flags: str) -> subprocess.Popen[bytes]:
        """Start kube-controller-manager from the assets as the admin, with every default controller but node
        lifecycle (no kubelet posts heartbeats: it would taint every node unreachable); stopped by :meth:`stop`."""
        return self._start_component("kube-controller-manager", "admin", (
            "--controllers=*,-node-lifecycle-controller", f"--service-account-private-key-file={self.pki / 'sa.key'}",
            f"--root-ca-file={self.ca_file}", "--use-service-account-credentials=false", *flags))

    def _start_component(self, name: str, identity: str, flags: tuple[str, ...]) -> subprocess.Popen[bytes]:
        binary = self.assets / name
        if not binary.is_file():
            raise ControlPlaneError(f"{ASSETS_VARIABLE}={self.assets} has no {name}")
        kubeconfig = self.kubeconfig(identity)
        process = self._spawn(name, [
            str(binary), f"--kubeconfig={kubeconfig}", f"--authentication-kubeconfig={kubeconfig}",
            f"--authorization-kubeconfig={kubeconfig}", "--leader-elect=false", "--bind-address=127.0.0.1",
            f"--secure-port={free_port()}", f"--cert-dir={self.folder / (name + '-certs')}", *flags])
        self.components.append(process)
        return process

    def stop(self) -> None:
        """Stop the components a test started, kube-apiserver, then etcd, by PID."""
        while self.components:
            _stop(self.components.pop())
        self.stop_apiserver()
        _stop(self.etcd)
        self.etcd = None

    def _spawn(self, name: str, argv: list[str]) -> subprocess.Popen[bytes]:
        with (self.folder / f"{name}.log").open("ab") as log:
            return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True)

    def _wait_ready(self, name: str, url: str, token: str | None) -> None:
        process = self.etcd if name == "etcd" else self.apiserver
        assert process is not None
        context = ssl.create_default_context(cafile=str(self.ca_file))
        request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline and process.poll() is None:
            try:
                with urllib.request.urlopen(request, timeout=5, context=context) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.2)
        state = f"exited with status {process.returncode}" if process.poll() is not None else \
            f"not ready after {READY_TIMEOUT:g} s"
        raise ControlPlaneError(f"{name} {state}; the end of {self.folder / (name + '.log')}:\n"
                                f"{log_tail(self.folder / (name + '.log'))}")

    def write_kubeconfig(self, identity: str, path: Path) -> Path:
        """A kubeconfig (JSON is YAML) for one of :data:`IDENTITIES`, trusting the test CA."""
        config = {
            "apiVersion": "v1", "kind": "Config", "current-context": "test",
            "clusters": [{"name": "test", "cluster": {"server": self.server,
                                                      "certificate-authority": str(self.ca_file)}}],
            "users": [{"name": identity, "user": {"token": self.tokens[identity]}}],
            "contexts": [{"name": "test", "context": {"cluster": "test", "user": identity}}],
        }
        path.write_text(json.dumps(config, indent=1))
        return path

    def kubeconfig(self, identity: str = "admin") -> Path:
        """The kubeconfig written at start for one of :data:`IDENTITIES`."""
        return self.folder / f"{identity}.kubeconfig"


@pytest.fixture(scope="module")
def kube_control_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ControlPlane]:
    """A fresh etcd + kube-apiserver for the test module, stopped at its end; skips without KUBEBUILDER_ASSETS."""
    assets = assets_dir()
    if assets is None:
        pytest.skip(SKIP_REASON)
    missing = [b for b in ("etcd", "kube-apiserver") if not (assets / b).is_file()]
    if missing:
        pytest.fail(f"{ASSETS_VARIABLE}={assets} has no {' or '.join(missing)}", pytrace=False)
    plane = ControlPlane(assets, tmp_path_factory.mktemp("kube"))
    try:
        plane.start()
    except ControlPlaneError as error:
        pytest.fail(str(error), pytrace=False)
    try:
        yield plane
    finally:
        plane.stop()


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``kube`` marker."""
    config.addinivalue_line("markers", "kube: needs a real API server (KUBEBUILDER_ASSETS); fails when skipped "
                                       "under CI=true")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    """Under CI (``CI=true``) a skipped ``kube`` test is a failure: CI must run them against a real API server."""
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if report.skipped and os.environ.get("CI") == "true" and item.get_closest_marker("kube") is not None:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"a kube test was skipped under CI=true ({reason})"
