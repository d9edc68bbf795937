#!/usr/bin/env python3
"""Helpers of scripts/volcano-e2e (docs/volcano-e2e.md) that are easier in
Python than in bash: turning webhook configurations that name a Service into
ones that call a process on 127.0.0.1, a ServiceAccount kubeconfig, the
"kubelet" that keeps a ConfigMap's file up to date, and the per-spec table
from the suites' JUnit reports.

    harness.py webhooks-basalt DEPLOY_WEBHOOKS_YAML URL CA_FILE > out.yaml
    harness.py webhooks-volcano CHART_WEBHOOKS_TEMPLATE URL ENABLED > out.yaml
    harness.py sa-kubeconfig ADMIN_KUBECONFIG TOKEN NAMESPACE > out.kubeconfig
    harness.py deploy-args DEPLOYMENT_YAML > args (one a line)
    harness.py sync-configmap KUBECTL NAMESPACE NAME KEY FILE   (runs until killed)
    harness.py table RESULTS_DIR > table.md
"""
import base64
import glob
import os
import re
import shlex
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import yaml


def to_url(config, url, ca_bundle):
    """Every webhook of a configuration calls URL + its Service's path."""
    for hook in config.get("webhooks", []):
        client = hook["clientConfig"]
        service = client.pop("service", None)
        if service is None:
            continue
        client["url"] = url.rstrip("/") + service.get("path", "/")
        if ca_bundle is not None:
            client["caBundle"] = ca_bundle
    return config


def webhooks_basalt(path, url, ca_file):
    """deploy/webhooks.yaml as applied, but the configurations call basalt on
    the host (KWOK runs no pod behind the Service, and the API server here has
    no route to a Service's cluster IP)."""
    ca = base64.b64encode(open(ca_file, "rb").read()).decode()
    out = []
    for doc in yaml.safe_load_all(open(path)):
        if not doc or doc.get("kind") == "Service":
            continue
        if doc["kind"].endswith("WebhookConfiguration"):
            doc["metadata"].get("annotations", {}).pop("cert-manager.io/inject-ca-from", None)
            to_url(doc, url, ca)
        out.append(doc)
    yaml.safe_dump_all(out, sys.stdout, sort_keys=False)


def render_chart_template(text, enabled):
    """The Helm template of Volcano's chart webhooks.yaml with the values the
    upstream end-to-end run gives it: release `integration` in
    `volcano-system`, no common labels, the webhooks of ENABLED only."""
    docs, current, keep, depth_if = [], [], True, []
    for line in text.splitlines():
        m = re.match(r"\s*\{\{-?\s*if \.Values\.custom\.enabled_admissions \| regexMatch \"([^\"]+)\"", line)
        if m:
            if current:
                docs.append("\n".join(current))
            current, keep = [], m.group(1) in enabled.split(",")
            depth_if.append("admission")
            continue
        if re.match(r"\s*\{\{-?\s*if ", line):
            depth_if.append("other")
            continue
        if re.match(r"\s*\{\{-?\s*end\s*-?\}\}", line):
            if depth_if and depth_if.pop() == "admission":
                if keep and current:
                    docs.append("\n".join(current))
                current, keep = [], False
            continue
        if "{{" in line and ("toYaml" in line):
            continue
        if not keep or line.strip() == "---":
            continue
        line = line.replace("{{ .Release.Name }}", "integration")
        line = line.replace("{{ .Release.Namespace }}", "volcano-system")
        current.append(line)
    out = []
    for d in docs:
        doc = yaml.safe_load(d)
        if doc and doc.get("kind", "").endswith("WebhookConfiguration"):
            # The labels line of `{{- if common_labels }}` is left with no value.
            doc["metadata"].pop("labels", None)
            out.append(doc)
    return out


def webhooks_volcano(path, url, enabled):
    docs = render_chart_template(open(path).read(), enabled)
    if not docs:
        sys.exit(f"harness: no webhook configuration rendered from {path} for {enabled}")
    # The caBundle is filled in by vc-webhook-manager itself (--ca-cert-file).
    yaml.safe_dump_all([to_url(d, url, None) for d in docs], sys.stdout, sort_keys=False)


def sa_kubeconfig(admin_path, token, namespace):
    admin = yaml.safe_load(open(admin_path))
    yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": "e2e", "cluster": admin["clusters"][0]["cluster"]}],
        "users": [{"name": "sa", "user": {"token": token}}],
        "contexts": [{"name": "sa", "context": {"cluster": "e2e", "user": "sa",
                                                 "namespace": namespace}}],
        "current-context": "sa",
    }, sys.stdout)


def deploy_args(path):
    """The container args of deploy/deployment.yaml, one a line."""
    for doc in yaml.safe_load_all(open(path)):
        if doc and doc.get("kind") == "Deployment":
            for a in doc["spec"]["template"]["spec"]["containers"][0]["args"]:
                print(a)
            return
    sys.exit(f"harness: no Deployment in {path}")


def sync_configmap(kubectl, namespace, name, key, path):
    """What the kubelet does for a ConfigMap volume: the file follows the
    ConfigMap (written whole, by rename, as the kubelet's atomic writer does),
    polled each second."""
    last = None
    while True:
        p = subprocess.run([*shlex.split(kubectl), "get", "configmap", "-n", namespace, name, "-o",
                            "jsonpath={.data." + key.replace(".", "\\.") + "}"],
                           capture_output=True, text=True)
        if p.returncode == 0 and p.stdout and p.stdout != last:
            tmp = path + ".tmp"
            with open(tmp, "w") as f:
                f.write(p.stdout)
            os.replace(tmp, path)
            last = p.stdout
            print(f"{time.strftime('%H:%M:%S')} {namespace}/{name} -> {path}", flush=True)
        time.sleep(1)


def junit_specs(path):
    """{spec name: (state, message)} of one Ginkgo JUnit report."""
    specs = {}
    for case in ET.parse(path).getroot().iter("testcase"):
        name = case.get("name", "")
        if name.startswith("[SynchronizedBeforeSuite]") or name.startswith("[BeforeSuite]") \
                or name.startswith("[AfterSuite]") or name.startswith("[ReportAfterSuite]"):
            if case.find("failure") is None and case.find("error") is None:
                continue
        name = re.sub(r"^\[It\]\s*", "", name)
        status = case.get("status", "")
        fail = case.find("failure")
        if fail is None:
            fail = case.find("error")
        if case.find("skipped") is not None or status in ("skipped", "pending"):
            specs[name] = ("skipped", "")
        elif fail is not None:
            msg = (fail.get("message") or fail.text or "").strip()
            specs[name] = ("failed", " ".join(msg.split())[:300])
        else:
            specs[name] = ("passed", "")
    return specs


def table(results):
    """spec | Volcano | basalt | why, one row per spec of every suite run."""
    suites = sorted({os.path.basename(p)[:-4] for p in glob.glob(f"{results}/*/*.xml")})
    # The reasons of e2e/volcano/basalt-known-failures.tsv (suite, spec, why).
    why = {}
    known = os.path.join(os.path.dirname(os.path.abspath(__file__)), "basalt-known-failures.tsv")
    for line in open(known):
        parts = line.rstrip("\n").split("\t")
        if len(parts) >= 3 and not line.startswith("#"):
            why[(parts[0], parts[1])] = parts[2]
    print("| suite | spec | Volcano | basalt | why |")
    print("|---|---|---|---|---|")
    totals = {"volcano": [0, 0], "basalt": [0, 0]}
    for suite in suites:
        got = {}
        for target in ("volcano", "basalt"):
            f = os.path.join(results, target, suite + ".xml")
            got[target] = junit_specs(f) if os.path.exists(f) else None
        names = sorted(set().union(*[g.keys() for g in got.values() if g]))
        for name in names:
            # The Kubernetes framework's own specs, which the run skips as upstream does.
            if name.startswith("[sig-") and all(g is None or g.get(name, ("skipped",))[0] == "skipped"
                                               for g in got.values()):
                continue
            cells = []
            for target in ("volcano", "basalt"):
                if got[target] is None:
                    cells.append("not run")
                    continue
                state = got[target].get(name, ("absent", ""))[0]
                cells.append(state)
                if state in ("passed", "failed"):
                    totals[target][state == "failed"] += 1
            reason = why.get((suite, name), "")
            if not reason and cells[1] == "failed":
                reason = got["basalt"][name][1]
            print(f"| {suite} | {name.replace('|', '/')} | {cells[0]} | {cells[1]} | "
                  f"{reason.replace('|', '/')} |")
    for target, (ok, bad) in totals.items():
        print(f"\n{target}: {ok} passed, {bad} failed", end="")
    print()


def main(argv):
    cmd, args = argv[1], argv[2:]
    if cmd == "webhooks-basalt":
        webhooks_basalt(*args)
    elif cmd == "webhooks-volcano":
        webhooks_volcano(*args)
    elif cmd == "sa-kubeconfig":
        sa_kubeconfig(*args)
    elif cmd == "deploy-args":
        deploy_args(*args)
    elif cmd == "sync-configmap":
        sync_configmap(*args)
    elif cmd == "table":
        table(*args)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
