"""`basalt serve` against a real kube-apiserver: what it does today."""

import collections
import threading
import time

import pytest
import yaml

from lib import (WaitTimeout, audit_binds, audit_evictions, bound_node, metric, phase, pod,
                 podgroup, queue, wait_until)

BIND_TIMEOUT = 30


def gang(ns, name, size, cpu="1", min_member=None, queue="default", **kw):
    return [podgroup(ns, name, min_member or size, queue=queue)] + [
        pod(ns, f"{name}-{i}", group=name, cpu=cpu, **kw) for i in range(size)]


def wait_bound(kubectl, ns, names, timeout=BIND_TIMEOUT, running=True):
    """Until every pod of `names` is bound (and Running, KWOK's doing)."""
    missing = list(names)

    def done():
        pods = {p["metadata"]["name"]: p for p in kubectl.pods(ns)}
        missing[:] = [n for n in names if n not in pods or not bound_node(pods[n])
                      or (running and phase(pods[n]) != "Running")]
        return not missing
    shown = names if len(names) <= 6 else names[:3] + ["..."] + names[-2:]
    try:
        wait_until(done, timeout, f"{len(names)} pods {shown} bound"
                   f"{' and Running' if running else ''}")
    except WaitTimeout as e:
        raise WaitTimeout(f"{e}; {len(missing)} not yet: {missing[:6]}") from None


def events(kubectl, ns):
    return kubectl.items("events", "-n", ns)


def test_deploy_rbac_covers_every_call(kubectl, ns, make_nodes, run_basalt, deployed):
    """deploy/ as applied by a user; basalt runs as its ServiceAccount (token
    from `kubectl create token`) and every call it makes here is allowed: a
    gang bind (binding, PodGroup update, Queue status patch, Scheduled events),
    a GPU-share pod (its card annotations are patched onto the pod before the
    bind) and an unplaceable pod (FailedScheduling event). Zero 403s."""
    make_nodes(2, cpu="4")
    make_nodes(1, prefix="gpu", cpu="4",
               extra_capacity={"volcano.sh/gpu-memory": "16000", "volcano.sh/gpu-number": "2"})
    conf = yaml.safe_load(open(deployed.conf_path))
    conf["tiers"][1]["plugins"].append(
        {"name": "deviceshare", "arguments": {"deviceshare.GPUSharingEnable": True}})
    objs = gang(ns, "g", 3)
    objs += [podgroup(ns, "gpu", 1),
             pod(ns, "gpu-0", group="gpu", extra_resources={"volcano.sh/gpu-memory": "1000"}),
             podgroup(ns, "huge", 1), pod(ns, "huge-0", group="huge", cpu="64")]
    kubectl.create(objs)
    b = run_basalt("a", conf=yaml.safe_dump(conf)).wait_ready()

    def settled():
        if metric(b.metrics(), "basalt_api_errors_total", code="403") > 0:
            return "403"
        pods = {p["metadata"]["name"]: p for p in kubectl.pods(ns)}
        bound = all(bound_node(pods[n]) for n in ("g-0", "g-1", "g-2", "gpu-0"))
        failed = any(e.get("reason") in ("FailedScheduling", "Unschedulable")
                     and e["involvedObject"]["name"].startswith("huge")
                     for e in events(kubectl, ns))
        return "done" if bound and failed else None
    wait_until(settled, BIND_TIMEOUT, "the gang and the GPU pod bound, an event for huge")
    forbidden = metric(b.metrics(), "basalt_api_errors_total", code="403")
    lines = [ln for ln in open(b.log_path, errors="replace") if "403" in ln]
    assert forbidden == 0, (
        f"basalt got {forbidden:.0f} 403 Forbidden as the deploy/ ServiceAccount:\n"
        + "".join(lines[:10]))
    gpu = kubectl.get("pod", "-n", ns, "gpu-0")
    assert "volcano.sh/gpu-index" in gpu["metadata"]["annotations"], gpu["metadata"]


def test_gang_binds_whole_and_runs(kubectl, ns, make_nodes, run_basalt):
    """A gang PodGroup and its pods (schedulerName volcano) on KWOK nodes: all
    bound, Running, the PodGroup Running, one Scheduled event per pod."""
    make_nodes(2, cpu="4")
    kubectl.create(gang(ns, "g", 3, cpu="2"))
    run_basalt("b").wait_ready()
    names = [f"g-{i}" for i in range(3)]
    wait_bound(kubectl, ns, names)
    wait_until(lambda: kubectl.get("podgroup", "-n", ns, "g").get("status", {}).get(
        "phase") == "Running", 10, "PodGroup g phase Running")
    conditions = kubectl.get("podgroup", "-n", ns, "g")["status"].get("conditions") or []
    assert [(c["type"], c["status"]) for c in conditions] == [("Scheduled", "True")], conditions
    sched = collections.Counter(e["involvedObject"]["name"] for e in events(kubectl, ns)
                                if e.get("reason") == "Scheduled")
    assert all(sched[n] == 1 for n in names), f"Scheduled events per pod: {dict(sched)}"


def test_gang_that_does_not_fit_stays_pending(kubectl, ns, make_nodes, run_basalt):
    """4 pods of 3 cpu on two 4-cpu nodes: two would fit, the gang needs 4, so
    none is bound, and the reason is in `kubectl get events` and in the
    PodGroup's Unschedulable condition."""
    make_nodes(2, cpu="4")
    kubectl.create(gang(ns, "big", 4, cpu="3"))
    b = run_basalt("c").wait_ready()
    reasons = {"FailedScheduling", "Unschedulable"}

    def reported():
        return [e for e in events(kubectl, ns) if e.get("reason") in reasons]
    got = wait_until(reported, 20, f"an event with reason in {reasons} in {ns}")
    cycles = metric(b.metrics(), "basalt_cycles_total")
    wait_until(lambda: metric(b.metrics(), "basalt_cycles_total") >= cycles + 5, 10,
               "five more cycles")
    bound = [p["metadata"]["name"] for p in kubectl.pods(ns) if bound_node(p)]
    assert not bound, f"part of a gang that cannot fit was bound: {bound}"
    messages = " | ".join(f"{e['reason']}: {e.get('message') or e.get('note')}" for e in got)
    assert messages, messages

    def unschedulable():
        status = kubectl.get("podgroup", "-n", ns, "big").get("status", {})
        return [c for c in status.get("conditions") or [] if c.get("type") == "Unschedulable"]
    cond = wait_until(unschedulable, 10, "PodGroup big condition Unschedulable")[0]
    assert cond["status"] == "True" and cond["reason"] == "NotEnoughResources", cond
    assert "unschedulable" in cond["message"], cond


def test_leader_failover(kubectl, ns, make_nodes, run_basalt):
    """Two replicas on one Lease: one leads and binds; the leader is killed
    (SIGKILL, the Lease is not released); the other takes over after the lease
    duration and binds new pods. /readyz of both is polled all along: never two
    leaders at once."""
    make_nodes(2, cpu="8")
    a = run_basalt("d1")
    b = run_basalt("d2")
    a.wait_ready()
    b.wait_ready()
    both = []
    stop = threading.Event()

    def watch():
        while not stop.is_set():
            if a.is_leader() and b.is_leader():
                both.append(time.monotonic())
            time.sleep(0.05)
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        leader = wait_until(lambda: [x for x in (a, b) if x.is_leader()], 20, "a leader")
        assert len(leader) == 1
        leader = leader[0]
        standby = b if leader is a else a
        status, body = standby.readyz()
        assert status == 200 and "standby" in body, body
        kubectl.create(gang(ns, "first", 2))
        wait_bound(kubectl, ns, ["first-0", "first-1"])
        leader.kill9()
        killed_at = time.monotonic()
        standby.wait_leader(timeout=45)
        takeover = time.monotonic() - killed_at
        kubectl.create(gang(ns, "second", 2))
        wait_bound(kubectl, ns, ["second-0", "second-1"])
    finally:
        stop.set()
        watcher.join(5)
    assert not both, f"two replicas answered /readyz 'ok: leader' at once {len(both)} times"
    print(f"takeover {takeover:.1f}s after SIGKILL of the leader")


def test_apiserver_restart(kubectl, ns, make_nodes, run_basalt, controlplane):
    """kube-apiserver stopped and started mid-run (same port): basalt keeps
    running and binds pods created after the restart."""
    make_nodes(2, cpu="8")
    b = run_basalt("e").wait_ready()
    kubectl.create(gang(ns, "before", 2))
    wait_bound(kubectl, ns, ["before-0", "before-1"])
    controlplane.restart_apiserver()
    kubectl.create(gang(ns, "after", 3))
    wait_bound(kubectl, ns, ["after-0", "after-1", "after-2"], timeout=60)
    assert b.alive(), "basalt exited when the API server restarted:\n" + b.log_tail()
    wait_until(lambda: b.readyz()[0] == 200, 30, "basalt /readyz 200 after the restart")


def thirty_gangs(kubectl, ns, make_nodes, prefix):
    """Three roomy nodes and 300 pods in 30 gangs of 10 named PREFIX00..PREFIX29;
    returns the pod names."""
    make_nodes(3, cpu="100", memory="200Gi", pods="200")
    objs = []
    for g in range(30):
        objs += gang(ns, f"{prefix}{g:02d}", 10)
    kubectl.create(objs)
    return [o["metadata"]["name"] for o in objs if o["kind"] == "Pod"]


# basalt serve's --bind-parallelism default: binds on the wire at once.
DEFAULT_BIND_PARALLELISM = 128


def accepted_binds(controlplane, ns):
    return sum(1 for _, code in audit_binds(controlplane.audit_log, ns) if code == 201)


def wait_binding_started(controlplane, ns):
    """Waits until 20 binds are accepted (basalt is mid-bind); returns how many."""
    def some_bound():
        ok = accepted_binds(controlplane, ns)
        return ok if ok >= 20 else None
    return wait_until(some_bound, 60, "basalt to start binding", interval=0.02)


def assert_each_pod_bound_once(kubectl, ns, names, controlplane):
    """Once every pod is bound: the audit log shows no pod with two accepted
    (201) bindings, a 201 for every pod but at most the binds on the wire when
    the first process went (--bind-parallelism, 128 by default: such a bind can
    complete on the server with no ResponseComplete 201 logged for a client
    that is gone), and every gang whole. Returns the refused bindings and the
    pods."""
    wait_bound(kubectl, ns, names, timeout=90, running=False)
    binds = audit_binds(controlplane.audit_log, ns)
    accepted = collections.Counter(n for n, c in binds if c == 201)
    refused = collections.Counter((n, c) for n, c in binds if c != 201)
    twice = {n: k for n, k in accepted.items() if k > 1}
    assert not twice, f"pods bound more than once: {twice}"
    never = [n for n in names if accepted[n] == 0]
    assert len(never) <= DEFAULT_BIND_PARALLELISM, f"pods with no accepted binding: {never[:10]}"
    pods = kubectl.pods(ns)
    per_gang = collections.Counter(p["metadata"]["name"][:3] for p in pods if bound_node(p))
    assert all(v == 10 for v in per_gang.values()), f"partly bound gangs: {per_gang}"
    return refused, pods


def test_kill9_mid_bind_binds_each_pod_once(kubectl, ns, make_nodes, run_basalt, controlplane):
    """300 pods in 30 gangs of 10; basalt is SIGKILLed while it binds them and
    started again. Checked:
    - every pod ends bound, and every gang whole;
    - the API server's audit log (every pods/binding request with its answer)
      shows no pod with two accepted (201) bindings, and a 201 for every pod
      but at most the few whose bind was in flight when the process died
      (those complete on the server without a 201 logged for a client that
      is gone);
    - no node holds more than its cpu: the restarted process counted the pods
      its predecessor bound.
    Refused bindings (409, a pod bound already) are allowed and reported."""
    names = thirty_gangs(kubectl, ns, make_nodes, "j")
    first = run_basalt("f")
    at_kill = wait_binding_started(controlplane, ns)
    first.kill9()
    done_at_kill = accepted_binds(controlplane, ns)
    if done_at_kill >= len(names):
        pytest.fail(f"the kill came after all {len(names)} binds: not a mid-bind kill")
    # The same identity, as a process restarted in place: it owns the Lease at once.
    second = run_basalt("f", log_name="f-restarted")
    second.wait_ready()
    refused, pods = assert_each_pod_bound_once(kubectl, ns, names, controlplane)
    per_node = collections.Counter(bound_node(p) for p in pods)
    assert max(per_node.values()) <= 100, f"a node got more pods than cpus: {per_node}"
    print(f"killed after {done_at_kill} accepted binds (saw {at_kill}); "
          f"refused bindings: {dict(refused) or 'none'}")


def test_sigterm_mid_bind_exits_promptly(kubectl, ns, make_nodes, run_basalt, controlplane):
    """300 pods in 30 gangs of 10; basalt gets SIGTERM while its binds are on
    the wire. It exits 0 within 5 s (binds not yet sent are dropped, those on
    the wire answered or cut off, the Lease released), a second replica leads
    at once (not after the lease duration) and binds the rest; no pod is
    bound twice and every gang ends whole."""
    names = thirty_gangs(kubectl, ns, make_nodes, "t")
    # A low client rate keeps binds queued and on the wire for a few seconds,
    # so the signal surely lands mid-bind.
    first = run_basalt("t1", "--qps", "30", "--burst", "10")
    wait_binding_started(controlplane, ns)
    code, took = first.terminate()
    done_at_stop = accepted_binds(controlplane, ns)
    assert code == 0, f"exit code {code}"
    assert took < 5, f"SIGTERM to exit took {took:.1f} s"
    if done_at_stop >= len(names):
        pytest.fail(f"the SIGTERM came after all {len(names)} binds: not a mid-bind stop")
    started = time.monotonic()
    second = run_basalt("t2")
    second.wait_leader(timeout=10)
    assert time.monotonic() - started < 10, "the lease was not released"
    assert_each_pod_bound_once(kubectl, ns, names, controlplane)
    print(f"SIGTERM to exit: {took:.2f} s, {done_at_stop} binds accepted before it")


def test_reclaim_between_queues(kubectl, ns, make_nodes, run_basalt, controlplane):
    """Queue qa (weight 1) holds the whole 4-cpu node; a gang of 2 arrives in
    qb (weight 1, deserving half): reclaim evicts 2 of qa's pods through the
    eviction API (201 in the audit log, by basalt's ServiceAccount) and qb's
    gang binds whole."""
    qa, qb = f"qa-{ns}", f"qb-{ns}"
    kubectl.create([queue(qa), queue(qb)])
    make_nodes(1, cpu="4")
    conf = {"actions": "enqueue, allocate, reclaim, backfill",
            "tiers": [{"plugins": [{"name": "priority"}, {"name": "gang"},
                                   {"name": "conformance"}]},
                      {"plugins": [{"name": "drf"}, {"name": "predicates"},
                                   {"name": "proportion"}, {"name": "nodeorder"}]}]}
    run_basalt("j", conf=yaml.safe_dump(conf)).wait_ready()
    kubectl.create(gang(ns, "a", 4, min_member=1, queue=qa))
    wait_bound(kubectl, ns, [f"a-{i}" for i in range(4)])
    kubectl.create(gang(ns, "b", 2, queue=qb))
    wait_bound(kubectl, ns, ["b-0", "b-1"], timeout=60)
    evicted = [(n, c, u) for n, c, u in audit_evictions(controlplane.audit_log, ns) if c == 201]
    assert len(evicted) >= 2, f"evictions: {audit_evictions(controlplane.audit_log, ns)}"
    assert all(u == "system:serviceaccount:basalt-system:basalt" for _, _, u in evicted), evicted
    left = [p["metadata"]["name"] for p in kubectl.pods(ns) if p["metadata"]["name"][0] == "a"]
    assert len(left) == 2, f"qa keeps its deserved half: {left}"
    for q in (qa, qb):
        kubectl.run("delete", "queue", q, "--wait=false", check=False)
