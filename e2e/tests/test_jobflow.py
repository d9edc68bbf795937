"""JobFlow and JobTemplate (flow.volcano.sh/v1alpha1) in `basalt serve`, as
Volcano's JobFlow controller runs them: a flow's vcjob is created from its
JobTemplate once the jobs it depends on have completed, and the JobFlow's
status follows its jobs."""

import json
from collections import Counter

from lib import audit_job_creates, metric, phase, wait_until

SA_USER = "system:serviceaccount:basalt-system:basalt"
DONE = {"e2e.basalt.dev/exit-code": "0", "e2e.basalt.dev/run-for": "2s"}


def job_template(ns, name, env_value):
    """A one-pod JobTemplate whose pod succeeds; `env` is a field basalt does
    not model: it must reach the pod as written."""
    return {
        "apiVersion": "flow.volcano.sh/v1alpha1",
        "kind": "JobTemplate",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "schedulerName": "volcano",
            "queue": "default",
            "minAvailable": 1,
            "tasks": [{
                "name": "main",
                "replicas": 1,
                "template": {
                    "metadata": {"annotations": dict(DONE)},
                    "spec": {
                        "restartPolicy": "Never",
                        "automountServiceAccountToken": False,
                        "terminationGracePeriodSeconds": 0,
                        "containers": [{
                            "name": "main", "image": "busybox",
                            "env": [{"name": "FROM_TEMPLATE", "value": env_value}],
                            "resources": {"requests": {"cpu": "1", "memory": "1Gi"}},
                        }],
                    },
                },
            }],
        },
    }


def jobflow(ns, name):
    return {
        "apiVersion": "flow.volcano.sh/v1alpha1",
        "kind": "JobFlow",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "jobRetainPolicy": "retain",
            "flows": [{"name": "a"}, {"name": "b", "dependsOn": {"targets": ["a"]}}],
        },
    }


def vcjob_or_none(kubectl, ns, name):
    p = kubectl.run("get", "jobs.batch.volcano.sh", "-n", ns, name, "-o", "json", check=False)
    if p.returncode != 0:
        return None
    return json.loads(p.stdout)


def vcjob_phase(job):
    return (job or {}).get("status", {}).get("state", {}).get("phase")


def test_jobflow_runs_b_after_a_completes(kubectl, ns, make_nodes, run_basalt, controlplane):
    """Two templates, B dependsOn A. A's job is created at once, B's only after
    A's pod succeeded and A is Completed (never before); a SIGKILL of basalt
    and a restart in between create nothing twice; B runs and completes; the
    JobFlow reaches Succeed listing both jobs. Each job: named <flow>-<template>,
    labelled volcano.sh/createdByJobTemplate, owned by the JobFlow, its pod
    carrying the template's fields as written; the audit log shows exactly one
    create (201, by basalt's ServiceAccount) per job."""
    make_nodes(1, cpu="4")
    first = run_basalt("jf").wait_ready()
    kubectl.create([job_template(ns, "a", "from-a"), job_template(ns, "b", "from-b"),
                    jobflow(ns, "flow")])
    wait_until(lambda: vcjob_or_none(kubectl, ns, "flow-a"), 30, "job flow-a created")
    # SIGKILL while A runs; a new process under the same identity takes the
    # lease at once and carries on from what the server holds.
    first.kill9()
    second = run_basalt("jf", log_name="jf-restarted").wait_ready()

    def b_created_only_after_a_completed():
        # B first: A's status is written before B is created, so a B seen
        # now means A's Completed is visible to the next read.
        b = vcjob_or_none(kubectl, ns, "flow-b")
        a = vcjob_or_none(kubectl, ns, "flow-a")
        if b is not None:
            assert vcjob_phase(a) == "Completed", f"flow-b exists while flow-a is {vcjob_phase(a)}"
        return b
    b = wait_until(b_created_only_after_a_completed, 60, "job flow-b created after flow-a completed")
    flow_uid = kubectl.get("jobflows.flow.volcano.sh", "-n", ns, "flow")["metadata"]["uid"]
    for name, template in (("flow-a", "a"), ("flow-b", "b")):
        job = vcjob_or_none(kubectl, ns, name)
        meta = job["metadata"]
        assert meta["labels"].get("volcano.sh/createdByJobTemplate") == f"{ns}.{template}", meta
        assert meta["annotations"].get("volcano.sh/createdByJobTemplate") == f"{ns}.{template}"
        owners = meta.get("ownerReferences", [])
        assert [(o["kind"], o["name"], o["uid"], o.get("controller")) for o in owners] == [
            ("JobFlow", "flow", flow_uid, True)], owners
    assert b["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["env"] == [
        {"name": "FROM_TEMPLATE", "value": "from-b"}]

    def flow_status():
        return kubectl.get("jobflows.flow.volcano.sh", "-n", ns, "flow").get("status", {})
    status = wait_until(lambda: (lambda s: s if s.get("state", {}).get("phase") == "Succeed"
                                 else None)(flow_status()), 90, "JobFlow flow phase Succeed")
    assert sorted(status.get("completedJobs", [])) == ["flow-a", "flow-b"], status
    assert [e["name"] for e in status.get("jobStatusList", [])] == ["flow-a", "flow-b"], status
    assert all(e["state"] == "Completed" for e in status["jobStatusList"]), status
    assert set(status.get("conditions", {})) == {"flow-a", "flow-b"}, status
    pods = [p for p in kubectl.pods(ns)
            if p["metadata"].get("annotations", {}).get("volcano.sh/job-name") == "flow-b"]
    assert pods and all(phase(p) == "Succeeded" for p in pods), [phase(p) for p in pods]
    assert pods[0]["spec"]["containers"][0]["env"] == [
        {"name": "FROM_TEMPLATE", "value": "from-b"}], pods[0]["spec"]["containers"][0]

    creates = audit_job_creates(controlplane.audit_log, ns)
    ok = Counter(name for name, code, _ in creates if code == 201)
    assert ok == Counter({"flow-a": 1, "flow-b": 1}), creates
    assert all(user == SA_USER for _, _, user in creates), creates
    # A refused create (409: the job was there) is allowed, never a second 201.
    assert all(code in (201, 409) for _, code, _ in creates), creates
    # deploy/rbac.yaml covers the JobFlow calls (informers, job creates, status).
    assert metric(second.metrics(), "basalt_api_errors_total", code="403") == 0
