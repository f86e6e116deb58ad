"""HTTP to the API server: JSON requests and watch streams over the official client's connection settings.

The ``kubernetes`` package loads kubeconfig files and in-cluster config (service-account token, CA, refresh);
requests go through its urllib3 pool as raw JSON, which kubesched's own decoders turn into objects (the same
shapes as YAML manifests), so no generated model classes sit between the API and the scheduler.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import quote, urlencode

import urllib3

from kubesched.errors import KubeschedError

Obj = dict[str, Any]
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"


class ConfigError(KubeschedError):
    """No usable kubeconfig or in-cluster config (a user error: one line, exit 1)."""


class ApiError(Exception):
    """The API server answered with an error status (or the connection failed: status 0)."""

    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(f"{status} {reason}: {message}" if status else message)
        self.status = status
        self.reason = reason
        self.message = message


def _api_error(status: int, body: bytes) -> ApiError:
    try:
        document = json.loads(body)
    except ValueError:
        document = None
    if isinstance(document, dict):
        return ApiError(status, str(document.get("reason", "")), str(document.get("message", "")))
    return ApiError(status, "", body.decode(errors="replace")[:200])


class KubeApi:
    """A connection to one API server; safe to share between threads (urllib3 pools are)."""

    def __init__(self, configuration: Any) -> None:
        from kubernetes.client import rest

        self.configuration = configuration
        self.host = str(configuration.host).rstrip("/")
        self.pool: urllib3.PoolManager = rest.RESTClientObject(configuration).pool_manager

    @classmethod
    def connect(cls, kubeconfig: str | None = None) -> KubeApi:
        """From a kubeconfig file, or in-cluster config (the pod's service account) when ``kubeconfig`` is None."""
        try:
            from kubernetes import client, config
        except ImportError:
            raise ConfigError("kubesched run needs the kubernetes client: pip install 'kubesched[kube]'") from None
        configuration = client.Configuration()
        try:
            if kubeconfig is not None:
                config.load_kube_config(config_file=kubeconfig, client_configuration=configuration,  # type: ignore[no-untyped-call]
                                        persist_config=False)
            else:
                config.load_incluster_config(client_configuration=configuration)  # type: ignore[no-untyped-call]
        except Exception as exc:  # a malformed file fails anywhere in the loader: one line for it
            where = f"kubeconfig {kubeconfig!r}" if kubeconfig else \
                "in-cluster config (no --kubeconfig given and not running in a pod?)"
            raise ConfigError(f"{where}: {' '.join(str(exc).split()) or type(exc).__name__}") from None
        return cls(configuration)

    def _headers(self, content_type: str | None = None) -> dict[str, str]:
        headers = {"Accept": "application/json", "User-Agent": "kubesched"}
        if content_type:
            headers["Content-Type"] = content_type
        auth = self.configuration.auth_settings().get("BearerToken")
        if auth and auth.get("value"):
            headers["Authorization"] = auth["value"]
        return headers

    def url(self, path: str, params: Mapping[str, object] | None = None) -> str:
        """The full URL of ``path`` with query ``params``."""
        return self.host + path + ("?" + urlencode(params) if params else "")

    def request(self, method: str, path: str, *, params: Mapping[str, object] | None = None,
                body: object = None, content_type: str = "application/json", timeout: float = 30.0) -> Obj:
        """One JSON request; raises :class:`ApiError` on an error status or a failed connection."""
        data = json.dumps(body).encode() if body is not None else None
        try:
            response = self.pool.request(method, self.url(path, params), body=data,
                                         headers=self._headers(content_type if data is not None else None),
                                         timeout=urllib3.Timeout(total=timeout), retries=False)
        except urllib3.exceptions.HTTPError as exc:
            raise ApiError(0, "ConnectionFailed", str(exc)) from None
        if response.status >= 400:
            raise _api_error(response.status, response.data)
        document = json.loads(response.data) if response.data else {}
        return document if isinstance(document, dict) else {}

    def get(self, path: str, **params: object) -> Obj:
        """GET ``path``."""
        return self.request("GET", path, params=params or None)

    def watch(self, path: str, params: Mapping[str, object], *, read_timeout: float) -> Iterator[Obj]:
        """The events of a watch (``{"type": ..., "object": ...}``) until the server ends it; a read that stalls
        for ``read_timeout`` seconds or a dropped connection raises :class:`ApiError` (status 0)."""
        try:
            response = self.pool.request("GET", self.url(path, {**params, "watch": "1"}), headers=self._headers(),
                                         preload_content=False, retries=False,
                                         timeout=urllib3.Timeout(connect=10.0, read=read_timeout))
        except urllib3.exceptions.HTTPError as exc:
            raise ApiError(0, "ConnectionFailed", str(exc)) from None
        try:
            if response.status >= 400:
                raise _api_error(response.status, response.read())
            pending = b""
            for chunk in response.stream(65536, decode_content=True):
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    if line.strip():
                        yield json.loads(line)
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise ApiError(0, "WatchFailed", str(exc)) from None
        finally:
            response.release_conn()


def pod_path(namespace: str, name: str, sub: str = "") -> str:
    """The path of a pod (or one of its subresources)."""
    return f"/api/v1/namespaces/{quote(namespace)}/pods/{quote(name)}" + (f"/{sub}" if sub else "")
