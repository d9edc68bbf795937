"""Every basalt command the documentation shows, found where a user reads it.

Two places show commands:

- the code blocks of README.md, docs/**/*.md and examples/**/*.md: every line
  that runs basalt (`basalt ...`, `./build/basalt ...`, also after `&&`, `|`
  or inside `<(...)`) or a script (`./scripts/...`), continuation lines
  joined;
- every `--help` of the command tree (`basalt --help` lists the commands,
  each command's --help its subcommands): the lines under "Example:" or
  "Examples:".

A documentation line with a placeholder (`[--seed N]`, `FILE_OR_DIR...`,
`run|list`, `...`) is a synopsis, not a command, and is not run.

Each command is classified: offline (tests/docs_commands_test.py runs it in
ctest), live (needs a Kubernetes API server or is a long-running server:
e2e/tests/test_docs_commands.py runs it against the real control plane), or
skipped with the reason in SKIPPED. Both tests fail on a SKIPPED entry that no
longer matches a shown command, so the list cannot go stale, and on a command
that fails, so a new example is either runnable or listed here with why not.
"""

import glob
import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
DOC_GLOBS = ("README.md", "docs/**/*.md", "examples/**/*.md")

# Commands shown that no test runs, each with the reason. Keyed by the command
# as shown without its comment (`bare`).
SKIPPED = {
    "./scripts/demo":
        "installs missing packages and builds the binary before it simulates a week "
        "(minutes on a fresh machine); its first run is timed by hand for the README",
    "./scripts/test":
        "runs every test, this one included",
    "./scripts/e2e":
        "is the end-to-end suite, which runs the live commands of this list",
    "./scripts/e2e -k failover -x":
        "one test of the end-to-end suite",
    "./scripts/test --sanitize":
        "every test again under ASan and UBSan: a second full build",
    "scripts/controlplane build":
        "builds kube-apiserver, etcd and KWOK from Go modules when they are not cached "
        "(about 10 CPU-minutes); scripts/e2e runs it",
    "scripts/oracle build":
        "builds the Volcano oracle from Volcano's source and Go modules when it is not cached "
        "(many CPU-minutes cold); the ctest test oracle_diff runs it",
    "scripts/oracle-diff 2000 1":
        "thousands of random worlds through basalt and the oracle (many minutes); the ctest "
        "test oracle_diff runs the scenarios and 200 worlds",
    "scripts/controlplane start /tmp/cp":
        "a control plane; scripts/e2e and the suite's fixtures start, restart and stop one",
    "scripts/controlplane restart-apiserver /tmp/cp":
        "run by the e2e test test_apiserver_restart",
    "scripts/controlplane stop /tmp/cp":
        "run by scripts/e2e after the suite",
    "scripts/volcano-e2e build":
        "builds Volcano's binaries and its e2e suites from the tarball when they are not cached "
        "(tens of CPU-minutes); scripts/test runs it through `run`",
    "scripts/volcano-e2e run --against both --results /tmp/vr":
        "Volcano's own e2e suites against Volcano and basalt: two control planes and about "
        "an hour; scripts/test runs the jobp suite against basalt",
    "scripts/volcano-e2e table /tmp/vr":
        "reads the JUnit reports a `run` left in /tmp/vr",
    "scripts/webhook-certs --apply":
        "writes the serving certificate Secret and the caBundle into a cluster with deploy/ "
        "applied, with kubectl; the e2e webhook test signs its certificate itself",
    "basalt agent --config /etc/basalt-agent/agent.yaml":
        "the DaemonSet's command: it needs the node's configuration mount, NODE_NAME and "
        "the node's cgroup root; e2e/tests/test_agent.py runs the agent on a synthetic host",
    "basalt agent --pods-file pods.yaml --listen '' --ticks 10":
        "changes the cgroups of the machine it runs on (root on this test machine) for the "
        "pods of a pods.yaml the user writes, and runs 10 periods of 10 s; "
        "scripts/agent-demo is this run on purpose, tests/agent_loop_test.cc tests the loop",
}


def bare(command):
    """The command without its trailing comment, spaces collapsed: the key of SKIPPED."""
    return " ".join(command.split(" #", 1)[0].split())


# Long-running servers: the e2e test starts them, waits until they are ready
# and stops them with SIGTERM.
SERVERS = ("serve", "webhook", "agent")
# Commands that talk to the API server unless given a folder (--cluster).
CLUSTER_OR_FOLDER = ("job", "queue", "explain")


@dataclass
class Shown:
    where: str    # "README.md:168" or "basalt job run --help"
    command: str  # as shown, continuation lines joined
    group: str    # commands of one group run in order in one scratch folder

    def __str__(self):
        return f"{self.where}: {self.command}"


BASALT_AT = re.compile(r"(?:^|&&|\|\||[|;]|<\(|\$\()\s*(?:\./build/)?basalt(?=\s|$)")
SCRIPT_AT = re.compile(r"^(?:\./)?scripts/[\w-]+")


def is_synopsis(command):
    """A usage line with placeholders: [--optional] or [NAME], a|b, ..., or NAME words."""
    text = command.split(" #", 1)[0]
    return bool(re.search(r"\[[-A-Z]|\.\.\.|\w\|\w|(?:^|\s)[A-Z][A-Z_]{2,}(?:[.\s/]|$)", text))


def _join_continuations(lines):
    out, pending, start = [], "", None
    for number, line in lines:
        stripped = line.rstrip()
        if start is None:
            start = number
        if stripped.endswith("\\"):
            pending += stripped[:-1].strip() + " "
            continue
        out.append((start, (pending + stripped.strip()).strip()))
        pending, start = "", None
    return out


def doc_commands(repo=REPO):
    """The commands of the documentation's code blocks, one group per block."""
    found = []
    files = sorted({f for g in DOC_GLOBS for f in glob.glob(os.path.join(repo, g), recursive=True)})
    for path in files:
        rel = os.path.relpath(path, repo)
        block, inside = [], False
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if line.lstrip().startswith("```"):
                    if inside:
                        found += _block_commands(rel, block)
                    inside, block = not inside, []
                    continue
                if inside:
                    block.append((number, line))
    return found


def _block_commands(rel, block):
    out = []
    for number, line in _join_continuations(block):
        shown = line.lstrip("$ ").strip()
        if BASALT_AT.search(shown) or SCRIPT_AT.match(shown):
            if not is_synopsis(shown):
                out.append(Shown(f"{rel}:{number}", shown, f"{rel}:{block[0][0]}"))
    return out


def _help(basalt, words):
    p = subprocess.run([basalt, *words, "--help"], capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        raise AssertionError(f"basalt {' '.join(words)} --help exited {p.returncode}:\n{p.stderr}")
    return p.stdout


def _subcommands(help_text):
    names, inside = [], False
    for line in help_text.splitlines():
        if re.match(r"^SUBCOMMANDS:\s*$", line, re.I):
            inside = True
            continue
        if inside:
            m = re.match(r"^  (\S+)", line)
            if m:
                names.append(m.group(1))
            elif line.strip() and not line.startswith(" "):
                inside = False
    return names


def _examples(help_text):
    lines, inside = [], False
    for number, line in enumerate(help_text.splitlines(), 1):
        if re.match(r"^Examples?\b.*:\s*$", line):
            inside = True
            continue
        if inside:
            if not line.strip() or not line.startswith(" "):
                inside = False
                continue
            lines.append((number, line))
    return [cmd for _, cmd in _join_continuations(lines)]


def help_commands(basalt):
    """The examples of every --help in the command tree, one group per line
    (each runs in a fresh scratch folder: examples of one command are
    alternatives, not steps)."""
    found, todo = [], [[]]
    while todo:
        words = todo.pop(0)
        text = _help(basalt, words)
        where = " ".join(["basalt", *words, "--help"])
        for i, cmd in enumerate(_examples(text)):
            found.append(Shown(where, cmd, f"{where}#{i}"))
        todo += [words + [sub] for sub in _subcommands(text)]
    return found


def basalt_invocations(command):
    """The argument lists of every basalt run in a shown command line."""
    text = command.split(" #", 1)[0]
    runs = []
    for part in re.split(r"&&|\|\||[|;]|<\(|\$\(", text):
        try:
            words = shlex.split(part.replace(")", " "))
        except ValueError:
            words = part.split()
        if words and words[0] in ("basalt", "./build/basalt"):
            runs.append(words[1:])
    return runs


def classify(shown):
    """"skip", "live" or "offline"."""
    if bare(shown.command) in SKIPPED:
        return "skip"
    if SCRIPT_AT.match(shown.command):
        return "offline"
    for args in basalt_invocations(shown.command):
        sub = next((a for a in args if not a.startswith("-")), "")
        if sub in SERVERS:
            return "live"
        if sub in CLUSTER_OR_FOLDER and "--cluster" not in args:
            return "live"
    return "offline"


def all_commands(basalt):
    return doc_commands() + help_commands(basalt)


def stale_skips(commands):
    shown = {bare(c.command) for c in commands}
    return sorted(k for k in SKIPPED if k not in shown)


def make_scratch(root, basalt, cluster_template=None):
    """A folder to run shown commands in, from where the docs run them (the
    repository root): examples/ copied (commands may write beside what they
    read), the rest of the tree linked, build/basalt the binary under test,
    ./cluster a copy of `cluster_template` (the folder the --help examples
    name), HOME of its own and /tmp paths of the commands redirected into it."""
    os.makedirs(root)
    for entry in os.listdir(REPO):
        if entry in (".git", "build") or entry.startswith("build-"):
            continue
        src = os.path.join(REPO, entry)
        if entry == "examples":
            shutil.copytree(src, os.path.join(root, entry))
        else:
            os.symlink(src, os.path.join(root, entry))
    os.makedirs(os.path.join(root, "build"))
    os.symlink(os.path.abspath(basalt), os.path.join(root, "build", "basalt"))
    os.makedirs(os.path.join(root, "home", ".zfunc"))
    os.makedirs(os.path.join(root, "tmp"))
    if cluster_template:
        shutil.copytree(cluster_template, os.path.join(root, "cluster"))
    return root


def run_shown(command, scratch, basalt, env_extra=None, timeout=300, redirect_tmp=True):
    """Runs `command` as shown, with bash, in `scratch`, with `basalt` first on
    PATH. Absolute /tmp/ paths go to scratch/tmp/ so that parallel runs do not
    share them. zsh's $fpath (named by the zsh completion example) is a scratch
    folder."""
    env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG",)}
    env.update({
        "PATH": os.path.dirname(os.path.abspath(basalt)) + os.pathsep + env.get("PATH", ""),
        "HOME": os.path.join(scratch, "home"),
    })
    env.update(env_extra or {})
    # zsh counts array elements from 1, bash from 0: both are the folder.
    if redirect_tmp:
        command = command.replace("/tmp/", os.path.join(scratch, "tmp") + "/")
    script = "set -o pipefail\nfpath=(\"$HOME/.zfunc\" \"$HOME/.zfunc\")\n" + command + "\n"
    return subprocess.run(["bash", "-c", script], cwd=scratch, env=env, capture_output=True,
                          text=True, timeout=timeout)


def expected_exit(command):
    """The exit code a shown command answers with: 0, or what its trailing
    comment says (`basalt explain job/x ...  # exit 1: it waits`)."""
    comment = command.split(" #", 1)[1] if " #" in command else ""
    m = re.match(r"\s*exits?\s+(\d+)", comment)
    return int(m.group(1)) if m else 0


def prints_nothing(command):
    """Commands whose output goes elsewhere: redirected, or sourced."""
    text = command.split(" #", 1)[0]
    return bool(re.search(r"(^|\s)>\s*\S|^source\s", text))
