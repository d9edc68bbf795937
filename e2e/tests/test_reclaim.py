"""Reclaim on a real control plane with vcjobs, whose controller recreates
evicted pods under the same names between cycles: no gang is left running
below its minimum."""

import collections
import time

import yaml

from lib import audit_evictions, bound_node, phase, queue, wait_until
from test_controllers import vcjob

RECLAIM_CONF = {"actions": "enqueue, allocate, reclaim, backfill",
                "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"},
                                       {"name": "conformance"}]},
                          {"plugins": [{"name": "drf"}, {"name": "predicates"},
                                       {"name": "proportion"}, {"name": "nodeorder"}]}]}


def running_per_job(kubectl, ns, jobs):
    """{job: pods bound and Running}."""
    counts = collections.Counter()
    for p in kubectl.pods(ns):
        job = p["metadata"].get("annotations", {}).get("volcano.sh/job-name")
        if job in jobs and bound_node(p) and phase(p) == "Running" \
                and not p["metadata"].get("deletionTimestamp"):
            counts[job] += 1
    return {j: counts[j] for j in jobs}


def test_reclaim_never_leaves_a_vcjob_below_min_available(kubectl, ns, make_nodes, run_basalt,
                                                          controlplane):
    """Three vcjobs of queue qa (4 pods of 1 CPU, minAvailable 2) fill three
    4-CPU nodes; two gangs of 3 arrive in qb (same weight: half the cluster
    deserved). Reclaim may take from each qa job only the pods above its
    minimum: qb's gangs bind, and no qa job is ever seen with a single running
    pod (before the fix of the reclaim loop, jobs were left with 1 pod running
    for good, job Pending, holding their CPU)."""
    qa, qb = f"qa-{ns}", f"qb-{ns}"
    kubectl.create([queue(qa), queue(qb)])
    make_nodes(3, cpu="4")
    run_basalt("r", conf=yaml.safe_dump(RECLAIM_CONF)).wait_ready()
    a_jobs = [f"a{i}" for i in range(3)]
    for name in a_jobs:
        kubectl.create(vcjob(ns, name, [("w", 4, None)], queue=qa, min_available=2))
    wait_until(lambda: all(n == 4 for n in running_per_job(kubectl, ns, a_jobs).values()), 60,
               "qa's 12 pods Running")
    b_jobs = ["b0", "b1"]
    for name in b_jobs:
        kubectl.create(vcjob(ns, name, [("w", 3, None)], queue=qb, min_available=3))

    below = []
    deadline = time.monotonic() + 90
    b_running = {}
    while time.monotonic() < deadline:
        a_running = running_per_job(kubectl, ns, a_jobs)
        below += [(job, n) for job, n in a_running.items() if 0 < n < 2]
        b_running = running_per_job(kubectl, ns, b_jobs)
        if all(n == 3 for n in b_running.values()):
            break
        time.sleep(0.5)
    assert all(n == 3 for n in b_running.values()), f"qb's gangs did not bind: {b_running}"
    # Settle: recreated qa pods stay Pending (no room), nothing else moves.
    for _ in range(20):
        a_running = running_per_job(kubectl, ns, a_jobs)
        below += [(job, n) for job, n in a_running.items() if 0 < n < 2]
        time.sleep(0.5)
    assert not below, f"qa jobs seen running below minAvailable 2: {sorted(set(below))}"
    assert sum(a_running.values()) == 6, f"qa keeps its deserved half: {a_running}"
    evicted = [e for e in audit_evictions(controlplane.audit_log, ns) if e[1] == 201]
    assert len(evicted) == 6, f"exactly the 6 pods above the qa jobs' minimum: {evicted}"
    for q in (qa, qb):
        kubectl.run("delete", "queue", q, "--wait=false", check=False)
