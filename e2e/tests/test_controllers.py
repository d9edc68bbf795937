"""What `basalt serve` does besides scheduling: the vcjob, PodGroup and Queue
controllers, the admission webhook and pod conditions, as Volcano's controller
manager, webhook manager and scheduler do them."""

import json

import pytest

from lib import (bound_node, free_port, phase, pod, podgroup, queue, refused_create,
                 validating_webhook, wait_until, webhook_certificate)
from test_serve import wait_bound


def vcjob(ns, name, tasks, queue="default", min_available=None, plugins=None, policies=None,
          cpu="1", network_topology=None):
    """tasks: [(name, replicas, pod annotations)]; each pod requests `cpu`."""
    spec_tasks = []
    for task, replicas, annotations in tasks:
        spec_tasks.append({
            "name": task,
            "replicas": replicas,
            "template": {
                "metadata": {"annotations": dict(annotations or {})},
                "spec": {
                    "restartPolicy": "OnFailure",
                    "automountServiceAccountToken": False,
                    "terminationGracePeriodSeconds": 0,
                    "containers": [{"name": "main", "image": "busybox",
                                    "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}],
                },
            },
        })
    spec = {
        "schedulerName": "volcano",
        "queue": queue,
        "minAvailable": min_available or sum(r for _, r, _ in tasks),
        "tasks": spec_tasks,
    }
    if plugins:
        spec["plugins"] = plugins
    if policies:
        spec["policies"] = policies
    if network_topology:
        spec["networkTopology"] = network_topology
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
            "metadata": {"name": name, "namespace": ns}, "spec": spec}


def job_phase(kubectl, ns, name):
    return kubectl.get("jobs.batch.volcano.sh", "-n", ns, name).get("status", {}).get(
        "state", {}).get("phase")


def job_pods(kubectl, ns, name):
    return [p for p in kubectl.pods(ns)
            if p["metadata"].get("annotations", {}).get("volcano.sh/job-name") == name
            or p["metadata"].get("labels", {}).get("volcano.sh/job-name") == name]


def test_vcjob_with_ssh_and_svc_completes(kubectl, ns, make_nodes, run_basalt):
    """A vcjob with the ssh and svc plugins: while it runs, the svc plugin's
    headless Service and the ssh plugin's Secret exist and the pods carry the
    job's subdomain; its pods are bound, run and succeed (KWOK ends them with
    exit code 0), the job is Completed, and then, as Volcano's killJob does,
    the plugins' objects are deleted."""
    make_nodes(2, cpu="4")
    run_basalt("g").wait_ready()
    done = {"e2e.basalt.dev/exit-code": "0", "e2e.basalt.dev/run-for": "8s"}
    kubectl.create(vcjob(ns, "mpi", [("master", 1, done), ("worker", 2, done)],
                         plugins={"ssh": [], "svc": []}))
    wait_until(lambda: len(job_pods(kubectl, ns, "mpi")) == 3, 30, "the job's 3 pods created")

    def plugin_objects():
        svc = kubectl.run("get", "-o", "json", "service", "-n", ns, "mpi", check=False)
        secret = kubectl.run("get", "-o", "json", "secret", "-n", ns, "mpi-ssh", check=False)
        return svc.returncode == 0 and secret.returncode == 0 and \
            json.loads(svc.stdout)["spec"].get("clusterIP") == "None"
    wait_until(plugin_objects, 30, "headless Service mpi and Secret mpi-ssh while the job runs")
    wait_until(lambda: job_phase(kubectl, ns, "mpi") == "Completed", 60,
               "vcjob mpi phase Completed")
    pods = job_pods(kubectl, ns, "mpi")
    assert all(phase(p) == "Succeeded" for p in pods), [(p["metadata"]["name"], phase(p))
                                                        for p in pods]
    assert all(p["spec"].get("subdomain") == "mpi" for p in pods), "svc plugin: pod subdomain"

    def plugin_objects_gone():
        svc = kubectl.run("get", "service", "-n", ns, "mpi", check=False)
        secret = kubectl.run("get", "secret", "-n", ns, "mpi-ssh", check=False)
        return svc.returncode != 0 and secret.returncode != 0
    wait_until(plugin_objects_gone, 30, "Service and Secret deleted once the job finished")


def test_restart_job_on_eviction(kubectl, ns, make_nodes, run_basalt):
    """policies: PodEvicted -> RestartJob. One pod evicted through the eviction
    API: every pod of the job is replaced (new UIDs), retryCount 1, Running again."""
    make_nodes(2, cpu="4")
    run_basalt("h").wait_ready()
    kubectl.create(vcjob(ns, "rj", [("worker", 2, None)],
                         policies=[{"event": "PodEvicted", "action": "RestartJob"}]))
    wait_until(lambda: job_phase(kubectl, ns, "rj") == "Running", 40, "vcjob rj Running")
    before = {p["metadata"]["uid"] for p in job_pods(kubectl, ns, "rj")}
    victim = job_pods(kubectl, ns, "rj")[0]["metadata"]["name"]
    eviction = {"apiVersion": "policy/v1", "kind": "Eviction",
                "metadata": {"name": victim, "namespace": ns}}
    kubectl.run("create", "--raw", f"/api/v1/namespaces/{ns}/pods/{victim}/eviction", "-f", "-",
                input=json.dumps(eviction))

    def restarted():
        job = kubectl.get("jobs.batch.volcano.sh", "-n", ns, "rj")
        pods = job_pods(kubectl, ns, "rj")
        uids = {p["metadata"]["uid"] for p in pods}
        return (job.get("status", {}).get("retryCount", 0) >= 1
                and job["status"].get("state", {}).get("phase") == "Running"
                and len(pods) == 2 and not (uids & before)
                and all(phase(p) == "Running" for p in pods))
    wait_until(restarted, 60, "vcjob rj restarted with new pods, Running, retryCount 1")


def test_closed_queue_refuses_new_jobs(kubectl, ns, make_nodes, run_basalt):
    """A Command CloseQueue on an open queue: the queue becomes Closed, the
    Command is consumed; a vcjob submitted to it afterwards is refused (by the
    webhook) or never runs."""
    make_nodes(1, cpu="4")
    qname = f"q-{ns}"
    kubectl.create(queue(qname))
    run_basalt("i").wait_ready()
    kubectl.create({
        "apiVersion": "bus.volcano.sh/v1alpha1", "kind": "Command",
        "metadata": {"name": "close", "namespace": ns},
        "action": "CloseQueue",
        "target": {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
                   "name": qname},
    })
    wait_until(lambda: kubectl.get("queue", qname).get("status", {}).get("state") == "Closed",
               20, f"queue {qname} state Closed")
    wait_until(lambda: not kubectl.items("commands.bus.volcano.sh", "-n", ns), 20,
               "the Command consumed")
    made = kubectl.create(vcjob(ns, "late", [("w", 1, None)], queue=qname), check=False)
    if made.returncode != 0:
        assert "Open" in made.stderr, made.stderr
        return
    with pytest.raises(AssertionError):
        wait_until(lambda: any(bound_node(p) for p in job_pods(kubectl, ns, "late")), 5,
                   "a pod of a job in a closed queue bound")
    kubectl.run("delete", "queue", qname, "--wait=false", check=False)


def test_webhook_refuses_bad_queue(kubectl, ns, run_basalt, controlplane, tmp_path):
    """basalt serve --webhook-port: a ValidatingWebhookConfiguration sends
    Queue creates to it; `kubectl create` of a Queue with weight -1 is refused
    with basalt's message naming the field (spec.weight); a good Queue passes.
    Flags --webhook-port, --webhook-cert, --webhook-key, --webhook-bind;
    path /queues/validate (Volcano's); docs/webhooks.md."""
    cert, key, ca = webhook_certificate(controlplane.dir, tmp_path)
    port = free_port()
    run_basalt("k", "--webhook-port", str(port), "--webhook-cert", str(cert),
               "--webhook-key", str(key), "--webhook-bind", "127.0.0.1").wait_ready()
    name = f"basalt-{ns}"
    kubectl.create(validating_webhook(name, port, ca, "/queues/validate",
                                      "scheduling.volcano.sh", "v1beta1", "queues"))
    try:
        bad = refused_create(kubectl, queue(f"bad-{ns}", weight=-1), "queue")
        assert "spec.weight" in bad.stderr, bad.stderr
        good = kubectl.create(queue(f"good-{ns}"), check=False)
        assert good.returncode == 0, good.stderr
    finally:
        kubectl.run("delete", "validatingwebhookconfiguration", name, check=False)
        kubectl.run("delete", "queue", f"good-{ns}", "--wait=false", check=False)


def test_bare_pod_gets_podgroup_and_binds(kubectl, ns, make_nodes, run_basalt):
    """A pod with schedulerName volcano and no PodGroup: a PodGroup owned by
    the pod is created for it, and the pod binds."""
    make_nodes(1, cpu="4")
    run_basalt("l").wait_ready()
    kubectl.create(pod(ns, "bare"))
    wait_bound(kubectl, ns, ["bare"])
    uid = kubectl.get("pod", "-n", ns, "bare")["metadata"]["uid"]
    groups = kubectl.items("podgroups.scheduling.volcano.sh", "-n", ns)
    owned = [g for g in groups
             if any(o.get("uid") == uid for o in g["metadata"].get("ownerReferences", []))]
    assert owned, f"no PodGroup owned by the pod: {[g['metadata'] for g in groups]}"


def test_unplaceable_pod_gets_unschedulable_condition(kubectl, ns, make_nodes, run_basalt):
    """A pod no node can take: condition PodScheduled=False, reason
    Unschedulable, with the fit error as its message."""
    make_nodes(1, cpu="4")
    run_basalt("m").wait_ready()
    kubectl.create([podgroup(ns, "huge", 1), pod(ns, "huge-0", group="huge", cpu="64")])

    def condition():
        p = kubectl.get("pod", "-n", ns, "huge-0")
        return next((c for c in p.get("status", {}).get("conditions", [])
                     if c["type"] == "PodScheduled"), None)
    c = wait_until(condition, 20, "condition PodScheduled on huge-0")
    assert c["status"] == "False" and c.get("reason") == "Unschedulable", c
    assert c.get("message"), c
