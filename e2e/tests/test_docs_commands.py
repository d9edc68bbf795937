"""The commands README.md, docs/ and the --help examples show that need a
cluster, run as shown against the real API server.

tests/docs_commands.py finds every shown command; tests/docs_commands_test.py
(ctest) runs the offline ones. Here run the rest: vcctl-style `basalt job ...`
and `basalt queue ...` without --cluster, `basalt explain` on the cluster
(each must exit 0 and print something), and the servers `basalt serve` and
`basalt webhook` (each must become ready, then exit 0 on SIGTERM). Every
command runs with bash from a scratch copy of the repository root, with
`~/.kube/config` the control plane's admin kubeconfig ($KUBECONFIG names it
only for the servers, which do not fall back to ~/.kube/config),
and in the same folder the files the examples name: scheduler.conf (the
deploy/ ConfigMap's), basalt.kubeconfig (the deploy/ ServiceAccount's) and
tls.crt/tls.key (a serving certificate for 127.0.0.1).

The examples name objects a user would have: queue `research`, namespace
`research`, vcjobs default/train, research/train and default/demo, pod
default/inference-0. Before each command that world is put back (an example
may have suspended, closed or deleted something), with two exceptions that
follow from the command: what it creates is deleted first, and the queue
`queue delete` deletes is closed first (on a cluster the CloseQueue Command of
`queue close` closes it once a controller has run).
"""

import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.request

import pytest
import yaml

from lib import REPO, pod, queue, webhook_certificate

sys.path.insert(0, os.path.join(REPO, "tests"))
import docs_commands as dc  # noqa: E402

NAMESPACE = "research"
SERVER_READY_SECONDS = 60


def vcjob(ns, name, queue_name="research", replicas=1):
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "minAvailable": replicas,
            "queue": queue_name,
            "schedulerName": "volcano",
            "tasks": [{
                "name": "worker",
                "replicas": replicas,
                "template": {"spec": {
                    "restartPolicy": "Never",
                    "containers": [{"name": "main", "image": "busybox",
                                    "resources": {"requests": {"cpu": "1"}}}],
                }},
            }],
        },
    }


class World:
    """The objects the examples name, put back before each command."""

    def __init__(self, kubectl):
        self.kubectl = kubectl

    def setup(self):
        for ns in (NAMESPACE, "default"):
            self.kubectl.run("create", "namespace", ns, check=False)
            self.kubectl.run("create", "serviceaccount", "default", "-n", ns, check=False)

    def reset(self, command):
        k = self.kubectl
        for ns in ("default", NAMESPACE):
            k.run("delete", "commands.bus.volcano.sh", "--all", "-n", ns, "--wait=false",
                  check=False)
        k.apply([queue("research", weight=4), vcjob("default", "train", replicas=2),
                 vcjob(NAMESPACE, "train"), vcjob("default", "demo", replicas=2),
                 pod("default", "inference-0")])
        k.run("patch", "queue", "research", "--subresource=status", "--type=merge",
              "-p", '{"status":{"state":"Open"}}')
        for args in dc.basalt_invocations(command):
            self._clear_for(args)

    def _clear_for(self, args):
        words = [a for a in args if not a.startswith("-")]
        if len(words) < 2:
            return
        kind, verb = words[0], words[1]
        name = _flag(args, "--name", "-N") or (words[2] if len(words) > 2 else "")
        ns = _flag(args, "--namespace", "-n") or "default"
        if kind == "job" and verb == "run" and name:
            self.kubectl.run("delete", "jobs.batch.volcano.sh", name, "-n", ns,
                             "--ignore-not-found")
        if kind == "queue" and verb == "create" and name:
            self.kubectl.run("delete", "queue", name, "--ignore-not-found")
        if kind == "queue" and verb == "delete" and name:
            self.kubectl.apply(queue(name))
            self.kubectl.run("patch", "queue", name, "--subresource=status", "--type=merge",
                             "-p", '{"status":{"state":"Closed"}}')

    def teardown(self):
        k = self.kubectl
        for ns in ("default", NAMESPACE):
            k.run("delete", "jobs.batch.volcano.sh,commands.bus.volcano.sh,"
                  "podgroups.scheduling.volcano.sh", "--all", "-n", ns, "--wait=false",
                  check=False)
        k.run("delete", "pods", "--all", "-n", NAMESPACE, "--force", "--grace-period=0",
              "--wait=false", check=False)
        k.run("delete", "pod", "inference-0", "-n", "default", "--force", "--grace-period=0",
              "--wait=false", check=False)
        k.run("delete", "queue", "research", "batch", "--ignore-not-found", check=False)
        k.run("delete", "lease", "basalt", "-n", "default", "--ignore-not-found", check=False)
        # The namespace stays (empty): deleting it takes a while, and the next
        # run's setup would find it terminating.


def _flag(args, *names):
    for i, a in enumerate(args):
        for n in names:
            if a == n and i + 1 < len(args):
                return args[i + 1]
            if a.startswith(n + "="):
                return a.split("=", 1)[1]
    return ""


@pytest.fixture
def scratch(tmp_path, basalt_bin, controlplane, deployed):
    root = dc.make_scratch(str(tmp_path / "repo"), basalt_bin)
    os.makedirs(os.path.join(root, "home", ".kube"))
    shutil.copy(controlplane.kubeconfig, os.path.join(root, "home", ".kube", "config"))
    shutil.copy(deployed.conf_path, os.path.join(root, "scheduler.conf"))
    shutil.copy(deployed.kubeconfig, os.path.join(root, "basalt.kubeconfig"))
    cert, key, _ = webhook_certificate(controlplane.dir, tmp_path)
    shutil.copy(cert, os.path.join(root, "tls.crt"))
    shutil.copy(key, os.path.join(root, "tls.key"))
    return root


@pytest.fixture(scope="module")
def world(kubectl):
    w = World(kubectl)
    w.setup()
    yield w
    w.teardown()


def _server_url(args):
    """Where a started server answers when it is up."""
    sub = next(a for a in args if not a.startswith("-"))
    if sub == "webhook":
        return f"https://127.0.0.1:{_flag(args, '--webhook-port')}/healthz"
    listen = _flag(args, "--listen") or "127.0.0.1:8080"
    return f"http://{listen}/readyz"


def _answers(url):
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(url, timeout=2, context=context) as r:
            return r.status == 200
    except OSError:
        return False


def _port_free(url):
    host_port = url.split("//", 1)[1].split("/", 1)[0]
    host, port = host_port.rsplit(":", 1)
    with socket.socket() as s:
        return s.connect_ex((host, int(port))) != 0


def run_server(shown, scratch, basalt_bin):
    """Starts the server as shown, waits until it answers, stops it with
    SIGTERM; returns a failure text or None."""
    url = _server_url(dc.basalt_invocations(shown.command)[0])
    if not _port_free(url):
        return f"{url}: the port is taken by another process, cannot run the example as shown"
    log_path = os.path.join(scratch, "server.log")
    home = os.path.join(scratch, "home")
    # Outside a pod the servers' default credentials are $KUBECONFIG's (they
    # do not read ~/.kube/config on their own): set, as a user would.
    env = dict(os.environ, PATH=os.path.dirname(basalt_bin) + os.pathsep + os.environ["PATH"],
               HOME=home, KUBECONFIG=os.path.join(home, ".kube", "config"))
    with open(log_path, "w") as log:
        # exec: the signal goes to basalt, not to the shell that started it.
        proc = subprocess.Popen(["bash", "-c", "exec " + shown.command], cwd=scratch, env=env,
                                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + SERVER_READY_SECONDS
        while not _answers(url):
            if proc.poll() is not None:
                return f"exited {proc.returncode} before {url} answered:\n{_tail(log_path)}"
            if time.monotonic() > deadline:
                return f"{url} did not answer 200 in {SERVER_READY_SECONDS}s:\n{_tail(log_path)}"
            time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=20)
        if code != 0:
            return f"exited {code} after SIGTERM:\n{_tail(log_path)}"
        return None
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def _tail(path, lines=30):
    with open(path, errors="replace") as f:
        return "".join(f.readlines()[-lines:])


def live_commands(basalt_bin):
    commands = dc.all_commands(basalt_bin)
    assert not dc.stale_skips(commands), f"stale SKIPPED entries: {dc.stale_skips(commands)}"
    return [c for c in commands if dc.classify(c) == "live"]


def test_live_commands_run_as_shown(basalt_bin, scratch, world):
    commands = live_commands(basalt_bin)
    assert len(commands) >= 15, [str(c) for c in commands]
    failures = []
    for shown in commands:
        world.reset(shown.command)
        args = dc.basalt_invocations(shown.command)
        sub = next((a for a in args[0] if not a.startswith("-")), "")
        if sub in dc.SERVERS:
            failure = run_server(shown, scratch, basalt_bin)
        else:
            p = dc.run_shown(shown.command, scratch, basalt_bin, timeout=60)
            failure = None
            want = dc.expected_exit(shown.command)
            if p.returncode != want:
                failure = (f"exit code {p.returncode} (want {want})\n"
                           f"{p.stdout[-2000:]}{p.stderr[-2000:]}")
            elif not (p.stdout + p.stderr).strip() and not dc.prints_nothing(shown.command):
                failure = f"printed nothing\n{p.stderr[-2000:]}"
        print(f"{'FAIL' if failure else 'ok  '} {shown}")
        if failure:
            failures.append(f"{shown}\n{failure}")
    assert not failures, "\n\n".join(failures)


def test_completion_offers_names_from_the_cluster(basalt_bin, scratch, world):
    """`basalt queue get <TAB>` and `basalt job view <TAB>` with ~/.kube/config."""
    world.reset("")
    script = os.path.join(scratch, "basalt.bash")
    with open(script, "w") as f:
        f.write(subprocess.run([basalt_bin, "completion", "bash"], check=True,
                               capture_output=True, text=True).stdout)

    def complete(typed):
        p = dc.run_shown(f"source {script}\nCOMP_WORDS=({typed}); "
                         "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _basalt; "
                         'printf "%s\\n" "${COMPREPLY[@]}"', scratch, basalt_bin, timeout=30,
                         redirect_tmp=False)
        assert p.returncode == 0 and not p.stderr, p.stderr
        return sorted(p.stdout.split())

    assert complete("basalt queue get ''") == sorted(
        q["metadata"]["name"] for q in world.kubectl.items("queues.scheduling.volcano.sh"))
    assert "research" in complete("basalt queue close r")
    assert complete("basalt job view ''") == ["demo", "train"]
    assert complete("basalt job view -n research ''") == ["train"]
    # An API server that does not answer: nothing, silently, in bounded time.
    bad = os.path.join(scratch, "bad.kubeconfig")
    config = yaml.safe_load(open(os.path.join(scratch, "home", ".kube", "config")))
    config["clusters"][0]["cluster"]["server"] = "https://127.0.0.1:1"
    with open(bad, "w") as f:
        yaml.safe_dump(config, f)
    start = time.monotonic()
    assert complete(f"basalt job view --kubeconfig {bad} ''") == []
    assert time.monotonic() - start < 10
