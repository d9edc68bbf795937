"""`basalt agent` against the real API server (docs/agent.md): the agent, as
the ServiceAccount of deploy/agent-daemonset.yaml, reports oversold CPU on its
node; an offline pod requesting it is bound by `basalt serve`; a CPU pressure
spike makes the agent evict it through the eviction API, with Events, while
the online pod stays.

KWOK's pods run nowhere, so the node the agent measures is synthetic: a /proc
and a cgroup v2 tree in a temporary folder, written by the test."""

import os
import subprocess
import threading
import time
import urllib.request

import yaml

from lib import (REPO, audit_evictions, bound_node, free_port, metric, parse_metrics, phase, pod,
                 wait_until)

AGENT_NS = "basalt-system"


def agent_kubeconfig(kubectl, controlplane, tmp_path):
    """deploy/agent-daemonset.yaml applied (its pods stay Pending: no default
    scheduler runs), and a kubeconfig with its ServiceAccount's token."""
    kubectl.run("apply", "-f", os.path.join(REPO, "deploy", "agent-daemonset.yaml"))
    token = kubectl.run("create", "token", "basalt-agent", "-n", AGENT_NS,
                        "--duration=1h").stdout.strip()
    admin = yaml.safe_load(open(controlplane.kubeconfig))
    path = str(tmp_path / "agent.kubeconfig")
    with open(path, "w") as f:
        yaml.safe_dump({
            "apiVersion": "v1", "kind": "Config",
            "clusters": [{"name": "e2e", "cluster": admin["clusters"][0]["cluster"]}],
            "users": [{"name": "agent", "user": {"token": token}}],
            "contexts": [{"name": "agent", "context": {"cluster": "e2e", "user": "agent"}}],
            "current-context": "agent",
        }, f)
    return path


class SyntheticHost:
    """/proc/stat (4 CPUs), /proc/meminfo and an empty cgroup v2 root. `busy`
    is the share of CPU time the node spends busy from now on; a thread moves
    the counters forward every 50 ms."""

    def __init__(self, root):
        self.root = root
        os.makedirs(f"{root}/proc")
        os.makedirs(f"{root}/cg")
        with open(f"{root}/proc/meminfo", "w") as f:
            f.write("MemTotal: 8388608 kB\nMemAvailable: 8000000 kB\n")
        with open(f"{root}/cg/cgroup.controllers", "w") as f:
            f.write("cpu memory\n")
        self.mountinfo = f"{root}/mountinfo"
        with open(self.mountinfo, "w") as f:
            f.write(f"1 0 0:1 / {root}/cg rw - cgroup2 cgroup2 rw\n")
        self.busy = 0.05
        self.ticks = [0, 0]  # busy, total
        self._write()
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _write(self):
        busy, total = self.ticks
        tmp = f"{self.root}/proc/stat.tmp"
        with open(tmp, "w") as f:
            f.write(f"cpu  {busy} 0 0 {total - busy} 0 0 0 0\n"
                    "cpu0 0\ncpu1 0\ncpu2 0\ncpu3 0\n")
        os.replace(tmp, f"{self.root}/proc/stat")

    def _run(self):
        while not self._stop:
            time.sleep(0.05)
            self.ticks[0] += int(round(self.busy * 100))
            self.ticks[1] += 100
            self._write()

    def stop(self):
        self._stop = True
        self._thread.join(2)


def node_with_online_pod(kubectl, make_nodes, ns):
    """A 4-CPU node running the online pod `web`: latency sensitive, 3 CPUs
    requested, placed directly. Returns the node's name."""
    node_name = make_nodes(1, cpu="4", memory="8Gi")[0]
    web = pod(ns, "web", cpu="3", memory="1Gi", annotations={"volcano.sh/qos-level": "LS"})
    web["spec"]["nodeName"] = node_name
    kubectl.create(web)
    wait_until(lambda: phase(kubectl.get("pod", "-n", ns, "web")) == "Running", 30,
               "KWOK to run the online pod")
    return node_name


def test_agent_reports_oversold_cpu_and_evicts_be_pod_under_pressure(
        controlplane, kubectl, deployed, basalt_bin, make_nodes, run_basalt, ns, tmp_path):
    kubeconfig = agent_kubeconfig(kubectl, controlplane, tmp_path)
    node_name = node_with_online_pod(kubectl, make_nodes, ns)
    host = SyntheticHost(str(tmp_path / "host"))
    agent = Agent(basalt_bin, kubeconfig, node_name, host, tmp_path)
    try:
        # 3 CPUs requested, none used (the synthetic host has no cgroup for
        # the pod), 10 % margin: 3000m - 0 - 300m = 2700m of batch CPU.
        def oversold():
            alloc = kubectl.get("node", node_name)["status"].get("allocatable", {})
            return alloc.get("kubernetes.io/batch-cpu")
        wait_until(lambda: oversold() == "2700", 30,
                   f"the agent to report 2700 batch CPU (last: {oversold()})")
        assert agent.get("/healthz") == (200, "ok\n")
        metrics = parse_metrics(agent.get("/metrics")[1])
        assert metric(metrics, "basalt_agent_oversold", resource="cpu") == 2700

        # The offline pod asks for 2 of the oversold CPUs; basalt serve binds it.
        run_basalt("a").wait_leader()
        batch = pod(ns, "batch", cpu="0", memory="0",
                    extra_resources={"kubernetes.io/batch-cpu": "2000"})
        batch["spec"]["containers"][0]["resources"]["limits"] = {"kubernetes.io/batch-cpu": "2000"}
        kubectl.create(batch)
        wait_until(lambda: bound_node(kubectl.get("pod", "-n", ns, "batch")) == node_name, 30,
                   "basalt serve to bind the offline pod to the oversold node")
        wait_until(lambda: phase(kubectl.get("pod", "-n", ns, "batch")) == "Running", 30,
                   "KWOK to run the offline pod")
        assert audit_evictions(controlplane.audit_log, ns) == []

        # Pressure: the node goes 95 % busy; the BE pod is evicted, the online one stays.
        host.busy = 0.95
        user = f"system:serviceaccount:{AGENT_NS}:basalt-agent"
        wait_until(lambda: ("batch", 201, user) in audit_evictions(controlplane.audit_log, ns),
                   30, "the agent to evict the offline pod through the eviction API")
        evicted = [name for name, code, _ in audit_evictions(controlplane.audit_log, ns)]
        assert "web" not in evicted
        events = kubectl.items("events.events.k8s.io", "-n", ns)
        notes = [e.get("note", "") for e in events
                 if e.get("reason") == "Evicted" and e["regarding"]["name"] == "batch"]
        assert notes and "at or above the high watermark 80%" in notes[0], notes
        node_events = kubectl.items("events.events.k8s.io", "-n", "default")
        assert any(e.get("reason") == "Evicted" and e["regarding"]["name"] == node_name
                   for e in node_events)
        assert kubectl.get("pod", "-n", ns, "web")["metadata"].get("deletionTimestamp") is None
    finally:
        host.stop()
        code = agent.stop()
    assert code == 0


def test_agent_native_mode_raises_allocatable(controlplane, kubectl, deployed, basalt_bin,
                                              make_nodes, ns, tmp_path):
    kubeconfig = agent_kubeconfig(kubectl, controlplane, tmp_path)
    node_name = node_with_online_pod(kubectl, make_nodes, ns)
    host = SyntheticHost(str(tmp_path / "host"))
    agent = Agent(basalt_bin, kubeconfig, node_name, host, tmp_path, mode="native")
    try:
        # 4 CPUs allocatable + 2700m oversold; no extended resources.
        def allocatable():
            return kubectl.get("node", node_name)["status"].get("allocatable", {})
        wait_until(lambda: allocatable().get("cpu") == "6700m", 30,
                   f"the agent to raise allocatable cpu to 6700m (last: {allocatable()})")
        assert "kubernetes.io/batch-cpu" not in allocatable()
    finally:
        host.stop()
        code = agent.stop()
    assert code == 0


class Agent:
    """`basalt agent` on the synthetic host, as the agent's ServiceAccount."""

    def __init__(self, binary, kubeconfig, node_name, host, tmp_path, mode="extend"):
        conf = tmp_path / "agent.yaml"
        with open(conf, "w") as f:
            f.write(f"mode: {mode}\nsamplingPeriod: 300ms\nwindow: 3s\n"
                    "oversubscription: {minReportInterval: 300ms}\n"
                    "eviction: {cpuHighWatermark: 80, cpuLowWatermark: 30}\n")
        self.port = free_port()
        self.log_path = tmp_path / "agent.log"
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [binary, "agent", "--kubeconfig", kubeconfig, "--node-name", node_name,
             "--config", str(conf), "--listen", f"127.0.0.1:{self.port}",
             "--proc-root", f"{host.root}/proc", "--mountinfo", host.mountinfo, "-v"],
            stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def get(self, path):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{path}", timeout=2) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    def stop(self):
        """SIGTERM; the exit code. Prints the log's tail."""
        self.proc.terminate()
        try:
            code = self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait(5)
        self.log.close()
        print(open(self.log_path, errors="replace").read()[-4000:])
        return code
