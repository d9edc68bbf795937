"""deploy/admission-policies.yaml on the real kube-apiserver (docs/webhooks.md,
"CEL admission policies"): the policies compile, refuse what basalt's
webhooks refuse with Volcano's words, and the mutating ones default a Queue,
a Job and a PodGroup.

The policies are cluster-wide; so that they touch no other test's objects,
this test binds them itself, only to objects labelled with a value of its
own (the shipped bindings match everything), and removes them afterwards.
"""

import secrets

import pytest
import yaml

from lib import REPO, wait_until

POLICIES = f"{REPO}/deploy/admission-policies.yaml"


def policies():
    docs = [d for d in yaml.safe_load_all(open(POLICIES)) if d]
    return [d for d in docs if not d["kind"].endswith("Binding")]


def binding(policy, label, mutating):
    kind = "MutatingAdmissionPolicyBinding" if mutating else "ValidatingAdmissionPolicyBinding"
    spec = {"policyName": policy["metadata"]["name"],
            "matchResources": {"objectSelector": {"matchLabels": {"e2e.basalt.dev/cel": label}}}}
    if not mutating:
        spec["validationActions"] = ["Deny"]
    return {"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind,
            "metadata": {"name": f"{policy['metadata']['name']}-{label}"}, "spec": spec}


@pytest.fixture
def bound(kubectl, ns, deployed):
    label = "t" + secrets.token_hex(3)
    objs = policies()
    kubectl.apply(objs)
    binds = [binding(p, label, p["kind"] == "MutatingAdmissionPolicy") for p in objs]
    kubectl.apply(binds)
    yield label
    for b in binds:
        kubectl.run("delete", b["kind"].lower(), b["metadata"]["name"], "--wait=false",
                    check=False)


def labelled(obj, label):
    obj.setdefault("metadata", {}).setdefault("labels", {})["e2e.basalt.dev/cel"] = label
    return obj


def refusal(kubectl, obj, kind):
    """Creates `obj` until a policy refuses it (a new binding takes a moment
    to be seen); an object that went through is deleted again."""
    name = obj["metadata"]["name"]
    ns = obj["metadata"].get("namespace")

    def refused():
        p = kubectl.create(obj, check=False)
        if p.returncode == 0:
            kubectl.run("delete", kind, name, *(["-n", ns] if ns else []), "--wait=false",
                        check=False)
            return None
        return p.stderr
    return wait_until(refused, 30, f"a policy to refuse {kind} {name}", interval=0.5)


def queue(name, spec, label):
    return labelled({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue",
                     "metadata": {"name": name}, "spec": spec}, label)


def test_policies_refuse_with_volcanos_words(kubectl, ns, bound):
    q = f"cel-{ns}"
    err = refusal(kubectl, queue(q, {"weight": 1, "guarantee": {"resource": {"cpu": "2"}}},
                                 bound), "queue")
    assert "deserved[cpu] must be >= guarantee[cpu]=2" in err, err
    err = refusal(kubectl, queue(q, {"weight": 1, "capability": {"cpu": "4"},
                                     "deserved": {"cpu": "6"}}, bound), "queue")
    assert "deserved[cpu]=6 must be <= capability[cpu]=4" in err, err
    flow = labelled({"apiVersion": "flow.volcano.sh/v1alpha1", "kind": "JobFlow",
                     "metadata": {"name": "f", "namespace": ns},
                     "spec": {"flows": [{"name": "a", "dependsOn": {"targets": ["zz"]}}]}}, bound)
    err = refusal(kubectl, flow, "jobflow")
    assert "jobflow Flow is not DAG: vertex is not defined: zz" in err, err
    hn = labelled({"apiVersion": "topology.volcano.sh/v1alpha1", "kind": "HyperNode",
                   "metadata": {"name": f"empty-{ns}"}, "spec": {"tier": 1, "members": []}}, bound)
    err = refusal(kubectl, hn, "hypernode")
    assert "member must have at least one member" in err, err
    cron = labelled({"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "CronJob",
                     "metadata": {"name": "c", "namespace": ns},
                     "spec": {"schedule": "TZ=UTC * * * * *", "jobTemplate": {"spec": {}}}},
                    bound)
    err = refusal(kubectl, cron, "cronjob")
    assert "schedule should not contain TZ or CRON_TZ" in err, err
    job = labelled({"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job",
                    "metadata": {"name": "j", "namespace": ns},
                    "spec": {"tasks": [{"name": "a", "replicas": 1, "minAvailable": 2,
                                        "template": {"spec": {"containers": [
                                            {"name": "c", "image": "busybox"}]}}}]}}, bound)
    err = refusal(kubectl, job, "job")
    assert "'minAvailable' is greater than 'replicas' in task: a, job: j" in err, err
    # What Volcano admits goes through: a name given twice, an empty flow list.
    for flows in ([{"name": "a"}, {"name": "a"}], []):
        ok = labelled({"apiVersion": "flow.volcano.sh/v1alpha1", "kind": "JobFlow",
                       "metadata": {"name": f"ok{len(flows)}", "namespace": ns},
                       "spec": {"flows": flows}}, bound)
        kubectl.create(ok)


def test_mutating_policies_default(kubectl, ns, bound):
    kubectl.run("annotate", "namespace", ns, "scheduling.volcano.sh/queue-name=team-q")
    q = f"celm-{ns}"

    def created(obj, kind, field, *where):
        """Creates `obj` until `field` of its spec was defaulted (a new binding
        is picked up a moment after its create); returns the stored object."""
        def attempt():
            made = kubectl.create(obj, check=False)
            assert made.returncode == 0 or "AlreadyExists" in made.stderr, made.stderr
            got = kubectl.get(kind, obj["metadata"]["name"], *where)
            if field in got.get("spec", {}):
                return got
            kubectl.run("delete", kind, obj["metadata"]["name"], *where, check=False)
            return None
        return wait_until(attempt, 30, f"{kind} defaults", interval=0.5)

    got = created(queue(q, {}, bound), "queue", "reclaimable")
    assert got["spec"]["reclaimable"] is True and got["spec"]["weight"] == 1, got["spec"]
    pg = labelled({"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "PodGroup",
                   "metadata": {"name": "pg", "namespace": ns}, "spec": {"minMember": 1}}, bound)
    got = created(pg, "podgroup", "queue", "-n", ns)
    assert got["spec"]["queue"] == "team-q", got["spec"]
    kubectl.run("delete", "queue", q, "--wait=false", check=False)
