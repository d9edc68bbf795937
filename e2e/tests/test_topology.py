"""Network topology on a real API server: `basalt serve` watches HyperNodes,
its vcjob controller writes the job's networkTopology onto the PodGroup it
creates, a hard job lands inside one HyperNode of its tier, and the admission
webhook refuses a HyperNode that would break the tree (docs/topology.md)."""

from lib import (bound_node, free_port, refused_create, validating_webhook, wait_until,
                 webhook_certificate)
from test_controllers import job_pods, vcjob



def job_group(kubectl, ns, job):
    """The PodGroup of a vcjob: `<job>-<uid>`, as Volcano names it."""
    uid = kubectl.get("jobs.batch.volcano.sh", "-n", ns, job)["metadata"]["uid"]
    return f"{job}-{uid}"

def hypernode(name, tier, members):
    """members: [(type, selector)] with type Node or HyperNode."""
    return {"apiVersion": "topology.volcano.sh/v1alpha1", "kind": "HyperNode",
            "metadata": {"name": name},
            "spec": {"tier": tier,
                     "members": [{"type": t, "selector": sel} for t, sel in members]}}


def regex(pattern):
    return {"regexMatch": {"pattern": pattern}}


def exact(name):
    return {"exactMatch": {"name": name}}


def make_tree(kubectl, ns):
    """Leaf `a` (tier 1) over this test's nodes a*, leaf `b` over b*, and a
    spine (tier 2) over both. Returns the HyperNode names."""
    leaf_a, leaf_b, spine = f"{ns}-leaf-a", f"{ns}-leaf-b", f"{ns}-spine"
    kubectl.create([
        hypernode(leaf_a, 1, [("Node", regex(f"^{ns}-a[0-9]+$"))]),
        hypernode(leaf_b, 1, [("Node", regex(f"^{ns}-b[0-9]+$"))]),
        hypernode(spine, 2, [("HyperNode", exact(leaf_a)), ("HyperNode", exact(leaf_b))]),
    ])
    return [leaf_a, leaf_b, spine]


def delete_hypernodes(kubectl, names):
    for name in names:
        kubectl.run("delete", "hypernodes.topology.volcano.sh", name, "--wait=false",
                    check=False)


# The deployed configuration plus network-topology-aware: the plugin is what
# makes networkTopology constrain placement (docs/topology.md).
TOPOLOGY_CONF = """actions: "enqueue, allocate, backfill"
tiers:
- plugins:
  - name: priority
  - name: gang
  - name: conformance
- plugins:
  - name: overcommit
  - name: drf
  - name: predicates
  - name: proportion
  - name: nodeorder
  - name: binpack
  - name: network-topology-aware
"""


def test_hard_job_lands_inside_one_leaf(kubectl, ns, make_nodes, run_basalt):
    """Three nodes in leaf a, four in leaf b, 4 CPU each; a vcjob of four pods
    of 3 CPU with `networkTopology: {mode: hard, highestTierAllowed: 1}`.
    Only leaf b can hold the whole gang (one pod per node), so every pod binds
    to a b node; spread over the seven nodes, some would land in leaf a. A
    second such job no leaf can hold any more stays pending and its PodGroup's
    event says which HyperNode fell short and by how much."""
    a_nodes = make_nodes(3, prefix="a", cpu="4")
    b_nodes = make_nodes(4, prefix="b", cpu="4")
    names = make_tree(kubectl, ns)
    try:
        run_basalt("t", conf=TOPOLOGY_CONF).wait_ready()
        topology = {"mode": "hard", "highestTierAllowed": 1}
        kubectl.create(vcjob(ns, "tight", [("worker", 4, None)], cpu="3",
                             network_topology=topology))

        def placed():
            nodes = [bound_node(p) for p in job_pods(kubectl, ns, "tight")]
            return nodes if len(nodes) == 4 and all(nodes) else None
        nodes = wait_until(placed, 60, "the four pods of job tight bound")
        assert set(nodes) <= set(b_nodes), f"pods outside leaf b: {nodes} (a: {a_nodes})"
        assert len(set(nodes)) == 4, nodes

        group = kubectl.get("podgroups.scheduling.volcano.sh", "-n", ns,
                            job_group(kubectl, ns, "tight"))
        assert group["spec"].get("networkTopology") == topology, group["spec"]

        kubectl.create(vcjob(ns, "late", [("worker", 4, None)], cpu="3",
                             network_topology=topology))

        late_group = job_group(kubectl, ns, "late")

        def why_pending():
            events = kubectl.items("events", "-n", ns,
                                   "--field-selector", f"involvedObject.name={late_group}")
            return next((e["message"] for e in events if "network topology" in e["message"]),
                        None)
        message = wait_until(why_pending, 30, "an event saying why job late waits")
        # Leaf b is full (it lacks the gang's 12 CPU but 4); leaf a has 12 CPU
        # free in total, but only on three nodes for four pods.
        assert "highest tier 1" in message, message
        assert f"{names[1]} (tier 1) lacks cpu 8" in message, message
        assert "1 had room in total but not pod by pod" in message, message
        assert not any(bound_node(p) for p in job_pods(kubectl, ns, "late"))
    finally:
        delete_hypernodes(kubectl, names)


def test_webhook_refuses_hypernode_with_second_parent(kubectl, ns, run_basalt, controlplane,
                                                        tmp_path):
    """/hypernodes/validate: a HyperNode whose selector is not a regular
    expression, or that claims a leaf another HyperNode already holds, is
    refused with the field and the reason; a good one passes."""
    names = make_tree(kubectl, ns)
    cert, key, ca = webhook_certificate(controlplane.dir, tmp_path)
    port = free_port()
    run_basalt("w", "--webhook-port", str(port), "--webhook-cert", str(cert),
               "--webhook-key", str(key), "--webhook-bind", "127.0.0.1").wait_ready()
    config = f"basalt-{ns}"
    kubectl.create(validating_webhook(config, port, ca, "/hypernodes/validate",
                                      "topology.volcano.sh", "v1alpha1", "hypernodes"))
    second = f"{ns}-spine-2"
    try:
        bad = refused_create(kubectl, hypernode(second, 2, [("HyperNode", exact(names[0]))]),
                             "hypernodes.topology.volcano.sh")
        assert names[0] in bad.stderr and "spec.members" in bad.stderr, bad.stderr
        bad = kubectl.create(hypernode(f"{ns}-leaf-c", 1, [("Node", regex("(["))]), check=False)
        assert bad.returncode != 0
        assert "spec.members[0].selector.regexMatch.pattern" in bad.stderr, bad.stderr
        good = kubectl.create(hypernode(f"{ns}-leaf-d", 1, [("Node", regex(f"^{ns}-d"))]),
                              check=False)
        assert good.returncode == 0, good.stderr
    finally:
        kubectl.run("delete", "validatingwebhookconfiguration", config, check=False)
        delete_hypernodes(kubectl, names + [second, f"{ns}-leaf-c", f"{ns}-leaf-d"])
