"""Fixtures of the end-to-end suite (docs/e2e.md).

One control plane per session (kube-apiserver + etcd + KWOK from
scripts/controlplane, or the one named by BASALT_E2E_CONTROLPLANE), deploy/
applied once as a user would, each test in its own namespace with its own fake
nodes, and basalt run as the deploy/ ServiceAccount.
"""

import os
import re
import secrets
import subprocess

import pytest
import yaml

from lib import REPO, Basalt, Kubectl, node, wait_until

CONTROLPLANE = os.path.join(REPO, "scripts", "controlplane")
LEASE_NS, LEASE_NAME = "basalt-system", "basalt"
# Short periods keep the suite fast; the Lease timings are basalt's fixed ones.
PERIOD = "200ms"


class ControlPlane:
    def __init__(self, directory):
        self.dir = directory
        out = subprocess.run([CONTROLPLANE, "env", directory], capture_output=True, text=True,
                             check=True).stdout
        env = dict(word.split("=", 1) for word in out.split() if "=" in word)
        self.kubeconfig = env["KUBECONFIG"]
        self.bin = env["BASALT_CONTROLPLANE_BIN"]
        self.audit_log = os.path.join(directory, "audit.log")

    def restart_apiserver(self):
        p = subprocess.run([CONTROLPLANE, "restart-apiserver", self.dir], capture_output=True,
                           text=True, timeout=180)
        assert p.returncode == 0, f"restart-apiserver failed:\n{p.stderr}"


@pytest.fixture(scope="session")
def controlplane(tmp_path_factory):
    given = os.environ.get("BASALT_E2E_CONTROLPLANE")
    if given:
        yield ControlPlane(given)
        return
    directory = str(tmp_path_factory.mktemp("controlplane"))
    p = subprocess.run([CONTROLPLANE, "start", directory], capture_output=True, text=True)
    try:
        assert p.returncode == 0, f"scripts/controlplane start failed:\n{p.stderr}"
        yield ControlPlane(directory)
    finally:
        subprocess.run([CONTROLPLANE, "stop", directory], capture_output=True)


@pytest.fixture(scope="session")
def kubectl(controlplane):
    return Kubectl(os.path.join(controlplane.bin, "kubectl"), controlplane.kubeconfig)


@pytest.fixture(scope="session")
def basalt_bin():
    path = os.environ.get("BASALT") or os.path.join(REPO, "build", "basalt")
    if not os.access(path, os.X_OK):
        pytest.fail(f"no basalt binary at {path} (build it, or set BASALT)")
    return path


class Deployment:
    """deploy/ as applied, and a kubeconfig holding the ServiceAccount's token."""

    def __init__(self, kubeconfig, conf_path):
        self.kubeconfig = kubeconfig
        self.conf_path = conf_path


@pytest.fixture(scope="session")
def deployed(controlplane, kubectl, tmp_path_factory):
    """The steps of docs/serve.md "Deploying" (all but the image): namespace,
    RBAC, configuration, Volcano's CRDs (JobFlow's too), the default queue."""
    d = os.path.join(REPO, "deploy")
    kubectl.run("apply", "-f", f"{d}/namespace.yaml", "-f", f"{d}/rbac.yaml",
                "-f", f"{d}/configmap.yaml")
    crds = ["-f", f"{d}/crds/volcano-crds.yaml", "-f", f"{d}/crds/jobflow-crds.yaml"]
    kubectl.run("apply", *crds)
    kubectl.run("wait", "--for", "condition=established", "--timeout=60s", *crds)
    # A CRD just established can still answer 404 for a moment: retry the queue.
    wait_until(lambda: kubectl.run("apply", "-f", f"{d}/queue-default.yaml",
                                   check=False).returncode == 0, 30, "the default Queue")
    work = str(tmp_path_factory.mktemp("deploy"))
    conf = kubectl.get("configmap", "-n", LEASE_NS, "basalt-scheduler-conf")["data"][
        "scheduler.conf"]
    conf_path = os.path.join(work, "scheduler.conf")
    with open(conf_path, "w") as f:
        f.write(conf)
    token = kubectl.run("create", "token", "basalt", "-n", LEASE_NS,
                        "--duration=4h").stdout.strip()
    admin = yaml.safe_load(open(controlplane.kubeconfig))
    cluster = admin["clusters"][0]["cluster"]
    sa_kubeconfig = os.path.join(work, "basalt.kubeconfig")
    with open(sa_kubeconfig, "w") as f:
        yaml.safe_dump({
            "apiVersion": "v1", "kind": "Config",
            "clusters": [{"name": "e2e", "cluster": cluster}],
            "users": [{"name": "basalt", "user": {"token": token}}],
            "contexts": [{"name": "basalt", "context": {
                "cluster": "e2e", "user": "basalt", "namespace": LEASE_NS}}],
            "current-context": "basalt",
        }, f)
    return Deployment(sa_kubeconfig, conf_path)


@pytest.fixture
def ns(request, kubectl):
    """A namespace of its own, once kube-controller-manager has made the
    `default` ServiceAccount its pods need. At the end its pods, PodGroups,
    vcjobs and fake nodes are deleted so the next test's basalt sees none."""
    short = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower().replace("test_", ""))[:40]
    name = f"{short.strip('-')}-{secrets.token_hex(2)}"
    kubectl.run("create", "namespace", name)
    wait_until(lambda: kubectl.run("get", "serviceaccount", "default", "-n", name,
                                   check=False).returncode == 0,
               30, f"kube-controller-manager to create the ServiceAccount {name}/default")
    yield name
    for kind in ("jobflows.flow.volcano.sh", "jobtemplates.flow.volcano.sh",
                 "jobs.batch.volcano.sh", "podgroups.scheduling.volcano.sh"):
        kubectl.run("delete", kind, "--all", "-n", name, "--wait=false", check=False)
    kubectl.run("delete", "pods", "--all", "-n", name, "--force", "--grace-period=0",
                "--wait=false", check=False)
    kubectl.run("delete", "nodes", "-l", f"e2e.basalt.dev/ns={name}", "--wait=false",
                check=False)
    kubectl.run("delete", "namespace", name, "--wait=false", check=False)


@pytest.fixture
def make_nodes(kubectl, ns):
    """make_nodes(count, **node kwargs) -> names: fake nodes of this test only."""
    def make(count, prefix="n", **kw):
        labels = {"e2e.basalt.dev/ns": ns, **kw.pop("labels", {})}
        names = [f"{ns}-{prefix}{i}" for i in range(count)]
        kubectl.create([node(n, labels=labels, **kw) for n in names])

        def ready():
            nodes = kubectl.items("nodes", "-l", f"e2e.basalt.dev/ns={ns}")
            return all(any(c["type"] == "Ready" and c["status"] == "True"
                           for c in n.get("status", {}).get("conditions", []))
                       for n in nodes if n["metadata"]["name"] in names)
        wait_until(ready, 30, f"KWOK to make nodes {names} Ready")
        return names
    return make


@pytest.fixture
def run_basalt(request, deployed, basalt_bin, kubectl, tmp_path):
    """run_basalt(identity, *args, kubeconfig=..., conf=...) -> a started Basalt
    as the deploy/ ServiceAccount, leading the Lease basalt-system/basalt. All
    are stopped at the end of the test and the Lease deleted, so a killed
    leader does not delay the next test by the lease duration."""
    started = []

    def run(identity="a", *args, kubeconfig=None, conf=None, log_name=None):
        conf_path = deployed.conf_path
        if conf is not None:
            conf_path = str(tmp_path / f"scheduler-{identity}.conf")
            with open(conf_path, "w") as f:
                f.write(conf)
        b = Basalt(basalt_bin, kubeconfig or deployed.kubeconfig,
                   str(tmp_path / f"basalt-{log_name or identity}.log"), identity,
                   ["--conf", conf_path, "--period", PERIOD, "--lease-namespace", LEASE_NS,
                    "--lease-name", LEASE_NAME, *args])
        started.append(b)
        return b.start()

    yield run
    for b in started:
        b.stop()
    kubectl.run("delete", "lease", "-n", LEASE_NS, LEASE_NAME, "--wait=false", check=False)
    rep = getattr(request.node, "rep_call", None)
    if rep is not None and rep.failed:
        for b in started:
            print(f"--- basalt {b.identity} log ({b.log_path}) ---\n{b.log_tail(60)}")


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)

