"""Helpers of the end-to-end suite: kubectl, bounded waits, basalt processes."""

import base64
import json
import os
import re
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request

import yaml

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


class WaitTimeout(AssertionError):
    pass


def wait_until(condition, timeout, what, interval=0.2):
    """Polls condition() until it returns a truthy value; fails naming `what`
    and the last value seen after `timeout` seconds. Never waits unbounded."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        last = condition()
        if last:
            return last
        if time.monotonic() >= deadline:
            raise WaitTimeout(f"timed out after {timeout}s waiting for {what} (last: {last!r})")
        time.sleep(interval)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def webhook_certificate(controlplane_dir, tmp_path):
    """A serving certificate for 127.0.0.1 signed by the control plane's CA:
    (cert path, key path, CA bundle base64) for a webhook basalt serves."""
    pki = os.path.join(controlplane_dir, "pki")
    cert, key = tmp_path / "webhook.crt", tmp_path / "webhook.key"
    ext = tmp_path / "webhook.ext"
    ext.write_text("subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")
    subprocess.run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
                    "-out", str(tmp_path / "webhook.csr"), "-subj", "/CN=basalt-webhook"],
                   check=True, capture_output=True)
    subprocess.run(["openssl", "x509", "-req", "-in", str(tmp_path / "webhook.csr"),
                    "-CA", f"{pki}/ca.crt", "-CAkey", f"{pki}/ca.key", "-CAcreateserial",
                    "-out", str(cert), "-days", "1", "-extfile", str(ext)],
                   check=True, capture_output=True)
    ca = base64.b64encode(open(f"{pki}/ca.crt", "rb").read()).decode()
    return cert, key, ca


def validating_webhook(name, port, ca, path, group, version, resource):
    """A ValidatingWebhookConfiguration sending creates and updates of
    `resource` to basalt's HTTPS `path` on 127.0.0.1:`port`."""
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingWebhookConfiguration",
        "metadata": {"name": name},
        "webhooks": [{
            "name": f"validate{resource}.basalt.dev",
            "admissionReviewVersions": ["v1"],
            "sideEffects": "None",
            "failurePolicy": "Fail",
            "timeoutSeconds": 5,
            "clientConfig": {"url": f"https://127.0.0.1:{port}{path}", "caBundle": ca},
            "rules": [{"apiGroups": [group], "apiVersions": [version],
                       "operations": ["CREATE", "UPDATE"], "resources": [resource]}],
        }],
    }


def refused_create(kubectl, obj, kind):
    """Creates `obj` until the API server refuses it (a new webhook
    configuration is picked up a moment after its create; until then a bad
    object goes through and is deleted again). Returns the refusal."""
    name = obj["metadata"]["name"]

    def refused():
        bad = kubectl.create(obj, check=False)
        if bad.returncode == 0:
            kubectl.run("delete", kind, name, "--wait=false", check=False)
            return None
        return bad
    return wait_until(refused, 20, f"the webhook to refuse {kind} {name}", interval=0.5)


class Kubectl:
    """kubectl against the test control plane, as a user would run it."""

    def __init__(self, binary, kubeconfig):
        self.binary = binary
        self.kubeconfig = kubeconfig

    def run(self, *args, input=None, check=True, timeout=60):
        cmd = [self.binary, "--kubeconfig", self.kubeconfig, *args]
        p = subprocess.run(cmd, input=input, capture_output=True, text=True, timeout=timeout)
        if check and p.returncode != 0:
            raise AssertionError(
                f"kubectl {' '.join(args)} exited {p.returncode}:\n{p.stderr.strip()}")
        return p

    def apply(self, objects, *args):
        """Applies a dict, a list of dicts or YAML text (server-side create or update)."""
        if not isinstance(objects, str):
            if isinstance(objects, dict):
                objects = [objects]
            objects = yaml.safe_dump_all(objects)
        return self.run("apply", "-f", "-", *args, input=objects).stdout

    def create(self, objects, *args, check=True):
        if not isinstance(objects, str):
            if isinstance(objects, dict):
                objects = [objects]
            objects = yaml.safe_dump_all(objects)
        return self.run("create", "-f", "-", *args, input=objects, check=check)

    def get(self, *args):
        return json.loads(self.run("get", "-o", "json", *args).stdout)

    def items(self, *args):
        return self.get(*args)["items"]

    def pods(self, ns):
        return self.items("pods", "-n", ns)


def node(name, cpu="4", memory="8Gi", pods="110", labels=None, extra_capacity=None,
         annotations=None):
    """A fake node KWOK keeps Ready (annotation kwok.x-k8s.io/node=fake)."""
    capacity = {"cpu": cpu, "memory": memory, "pods": pods, **(extra_capacity or {})}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {"type": "kwok", "kubernetes.io/hostname": name, **(labels or {})},
            "annotations": {"kwok.x-k8s.io/node": "fake", **(annotations or {})},
        },
        "spec": {"taints": []},
        "status": {"capacity": capacity, "allocatable": capacity},
    }


def podgroup(ns, name, min_member, queue="default", min_resources=None):
    spec = {"minMember": min_member, "queue": queue}
    if min_resources:
        spec["minResources"] = min_resources
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": ns},
        "spec": spec,
    }


def pod(ns, name, group=None, cpu="1", memory="1Gi", scheduler="volcano", annotations=None,
        extra_resources=None, labels=None):
    ann = dict(annotations or {})
    if group:
        ann["scheduling.k8s.io/group-name"] = group
    requests = {"cpu": cpu, "memory": memory, **(extra_resources or {})}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "annotations": ann, "labels": labels or {}},
        "spec": {
            "schedulerName": scheduler,
            "automountServiceAccountToken": False,
            "terminationGracePeriodSeconds": 0,
            "containers": [{
                "name": "main",
                "image": "busybox",
                "resources": {"requests": requests, "limits": requests},
            }],
        },
    }


def queue(name, weight=1, reclaimable=True, capability=None):
    spec = {"weight": weight, "reclaimable": reclaimable}
    if capability:
        spec["capability"] = capability
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "Queue",
        "metadata": {"name": name},
        "spec": spec,
    }


def parse_metrics(text):
    """Prometheus text format: {(name, frozenset(labels.items())): value}."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.match(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)', line)
        if not m:
            continue
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(3) or ""))
        out[(m.group(1), frozenset(labels.items()))] = float(m.group(4))
    return out


def metric(metrics, name, **labels):
    """Sum of the series of `name` whose labels include `labels`."""
    want = set(labels.items())
    return sum(v for (n, ls), v in metrics.items() if n == name and want <= set(ls))


class Basalt:
    """One `basalt serve` process with its own /metrics port and log file."""

    def __init__(self, binary, kubeconfig, log_path, identity, args=()):
        self.port = free_port()
        self.identity = identity
        self.log_path = log_path
        self.cmd = [
            binary, "serve", "--kubeconfig", kubeconfig,
            "--listen", f"127.0.0.1:{self.port}", "--identity", identity, *args,
        ]
        self.proc = None

    def start(self):
        self._log = open(self.log_path, "ab")
        self._log.write(("\n$ " + " ".join(self.cmd) + "\n").encode())
        self._log.flush()
        self.proc = subprocess.Popen(self.cmd, stdout=self._log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        return self

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def get(self, path, timeout=2):
        """(status, body) of GET path, or (None, error) when nothing answers."""
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}",
                                        timeout=timeout) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()
        except (urllib.error.URLError, OSError) as e:
            return None, str(e)

    def readyz(self):
        return self.get("/readyz")

    def is_leader(self):
        status, body = self.readyz()
        return status == 200 and body.startswith("ok: leader")

    def metrics(self):
        status, body = self.get("/metrics")
        assert status == 200, f"basalt /metrics answered {status}: {body}"
        return parse_metrics(body)

    def wait_ready(self, timeout=30):
        def ready():
            if not self.alive():
                raise AssertionError(
                    f"basalt exited with {self.proc.returncode}; log {self.log_path}:\n"
                    + self.log_tail())
            return self.readyz()[0] == 200
        wait_until(ready, timeout, f"basalt {self.identity} /readyz 200 "
                   f"(last: {self.readyz()})")
        return self

    def wait_leader(self, timeout=30):
        wait_until(self.is_leader, timeout, f"basalt {self.identity} to lead")
        return self

    def log_tail(self, lines=40):
        try:
            with open(self.log_path, errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""

    def stop(self, timeout=15):
        """SIGTERM (the lease is released), then SIGKILL after `timeout` s."""
        if not self.alive():
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        self._log.close()

    def terminate(self, timeout=30):
        """SIGTERM and wait for the exit: (exit code, seconds it took)."""
        start = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout)
        took = time.monotonic() - start
        self._log.close()
        return code, took

    def kill9(self):
        if self.alive():
            self.proc.kill()
            self.proc.wait(5)
            self._log.close()


def bound_node(p):
    return p.get("spec", {}).get("nodeName")


def phase(p):
    return p.get("status", {}).get("phase")


def audit_requests(audit_log, namespace, subresource, resource="pods", group=""):
    """Every create of `resource`/`subresource` (pods/binding, pods/eviction;
    subresource "" for the resource itself, e.g. batch.volcano.sh jobs) the API
    server answered for `namespace`, from its audit log: [(name, HTTP code, user)]."""
    out = []
    try:
        with open(audit_log) as f:
            lines = f.readlines()
    except FileNotFoundError:
        return out
    for line in lines:
        try:
            ev = json.loads(line)
        except ValueError:
            continue  # a line being written
        ref = ev.get("objectRef", {})
        if (ev.get("stage") == "ResponseComplete" and ev.get("verb") == "create"
                and ref.get("resource") == resource and ref.get("apiGroup", "") == group
                and ref.get("subresource", "") == subresource
                and ref.get("namespace") == namespace):
            out.append((ref.get("name"), ev.get("responseStatus", {}).get("code"),
                        ev.get("user", {}).get("username")))
    return out


def audit_job_creates(audit_log, namespace):
    """[(job name, HTTP code, user)] of every batch.volcano.sh jobs create in `namespace`."""
    return audit_requests(audit_log, namespace, "", resource="jobs", group="batch.volcano.sh")


def audit_binds(audit_log, namespace):
    """[(pod name, HTTP code)] of every pods/binding create in `namespace`."""
    return [(name, code) for name, code, _ in audit_requests(audit_log, namespace, "binding")]


def audit_evictions(audit_log, namespace):
    """[(pod name, HTTP code, user)] of every pods/eviction create in `namespace`."""
    return audit_requests(audit_log, namespace, "eviction")
