#!/usr/bin/env python3
"""`basalt completion bash`, sourced in bash, completes as a user would see it.

Run by ctest (`completion_bash`). Sources the script in bash, finds the
function `complete -p basalt` names, and calls it as bash does on <TAB>
(COMP_WORDS, COMP_CWORD) for each case below, comparing COMPREPLY (sorted)
with the expected words: subcommands, the -o values each command accepts, and
the names of jobs and queues in the folder given by --cluster. A folder that
does not exist completes nothing, silently. Where zsh is installed, the zsh
script is run on a few of the cases too.

    tests/completion_test.py --basalt build/basalt
"""

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

NOW = "2026-11-20T08:00:00Z"


def make_folder(basalt, folder, env):
    os.makedirs(folder)
    for step in ["queue create research --weight 4", "queue create batch",
                 "job run --name train --queue research",
                 "job run --name demo",
                 "job run --name finetune -n research --queue research"]:
        cmd = [basalt, *step.split(), "--cluster", folder, "--now", NOW]
        subprocess.run(cmd, check=True, capture_output=True, env=env)


def cases(folder):
    """(words typed, the last one being completed) -> expected COMPREPLY."""
    c = f"--cluster {folder}"
    return [
        ("basalt qu", "queue"),
        ("basalt job l", "list"),
        ("basalt queue c", "close create"),
        # -o values, per command
        ("basalt job list -o ''", "json name wide yaml"),
        ("basalt job list --output ''", "json name wide yaml"),
        ("basalt job view -o ''", "json name yaml"),
        ("basalt queue list -o ''", "json name wide yaml"),
        ("basalt queue get -o ''", "json name wide yaml"),
        ("basalt schedule -o ''", "json table wide"),
        ("basalt schedule --cluster x -o t", "table"),
        ("basalt explain job/x -o ''", "json table yaml"),
        ("basalt --log-level ''", "debug error info off trace warn"),
        # names from the folder
        (f"basalt job view {c} ''", "demo train"),
        (f"basalt job view {c} t", "train"),
        (f"basalt job view -n research {c} ''", "finetune"),
        (f"basalt job view {c} --namespace research ''", "finetune"),
        (f"basalt job suspend {c} --name ''", "demo train"),
        (f"basalt job resume {c} -N d", "demo"),
        (f"basalt job delete {c} ''", "demo train"),
        (f"basalt queue get {c} ''", "batch default research"),
        (f"basalt queue open {c} r", "research"),
        (f"basalt queue close {c} ''", "batch default research"),
        (f"basalt queue delete {c} b", "batch"),
        (f"basalt queue get {c} --name ''", "batch default research"),
        # flags still complete on those commands
        (f"basalt queue get {c} --no-h", "--no-headers"),
        # a new queue's name is not an existing one
        (f"basalt queue create {c} r", ""),
        # no such folder: nothing, and nothing on stderr
        ("basalt job view --cluster /nonexistent/basalt ''", ""),
        ("basalt queue get --cluster /nonexistent/basalt ''", ""),
    ]


def driver(script_path, case_list):
    """A bash script printing one line of sorted COMPREPLY per case."""
    lines = [
        f"source {shlex.quote(script_path)}",
        # The function bash calls on <TAB>, as registered.
        "fn=$(complete -p basalt | sed -n 's/.*-F \\([^ ]*\\).*/\\1/p')",
        '[ -n "$fn" ] || { echo "no completion function registered for basalt" >&2; exit 1; }',
    ]
    for typed, _ in case_list:
        lines.append(f"COMP_WORDS=({typed}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1))")
        lines.append('COMPREPLY=(); "$fn"; printf "%s\\n" "${COMPREPLY[*]}" '
                     "| tr ' ' '\\n' | sort | tr '\\n' ' ' | sed 's/ *$//'; echo")
    return "\n".join(lines) + "\n"


def zsh_cases(folder):
    """The zsh script, where zsh is installed: compadd stands in for zsh's
    completion system and prints what would be offered."""
    c = f"--cluster {folder}"
    return [
        (f"basalt job view {c} ''", "train demo"),
        (f"basalt queue close {c} ''", "batch default research"),
        ("basalt job list -o ''", "json yaml name wide"),
        ("basalt schedule --conf ''", "FILES"),
    ]


def run_zsh(basalt, env, tmp, folder):
    script = subprocess.run([basalt, "completion", "zsh"], check=True, capture_output=True,
                            text=True, env=env).stdout
    path = os.path.join(tmp, "_basalt")
    with open(path, "w") as f:
        f.write(script)
    lines = ["compdef() { :; }", f"source {shlex.quote(path)}",
             'compadd() { shift; print -r -- "$@"; }', "_files() { print -r -- FILES; }"]
    case_list = zsh_cases(folder)
    for typed, _ in case_list:
        lines.append(f"words=({typed}); CURRENT=${{#words}}; _basalt")
    p = subprocess.run(["zsh", "-f", "-c", "\n".join(lines)], capture_output=True, text=True,
                       env=env, cwd=tmp, timeout=60)
    failures = [f"zsh: {p.stderr}"] if p.returncode != 0 or p.stderr else []
    got = p.stdout.split("\n")
    for i, (typed, want) in enumerate(case_list):
        have = " ".join(sorted(got[i].split())) if i < len(got) else "<missing>"
        want = " ".join(sorted(want.split()))
        print(f"{'ok  ' if have == want else 'FAIL'} zsh {typed!r:60} -> {have!r}")
        if have != want:
            failures.append(f"zsh {typed}: want {want!r}, got {have!r}")
    return failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--basalt", required=True)
    args = parser.parse_args()
    basalt = os.path.abspath(args.basalt)
    env = dict(os.environ)
    env.pop("KUBECONFIG", None)
    env["LC_ALL"] = "C"
    env["PATH"] = os.path.dirname(basalt) + os.pathsep + env.get("PATH", "")
    with tempfile.TemporaryDirectory(prefix="basalt-completion-") as tmp:
        env["HOME"] = tmp
        folder = os.path.join(tmp, "cluster")
        make_folder(basalt, folder, env)
        script = subprocess.run([basalt, "completion", "bash"], check=True, capture_output=True,
                                text=True, env=env).stdout
        script_path = os.path.join(tmp, "basalt.bash")
        with open(script_path, "w") as f:
            f.write(script)
        case_list = cases(folder)
        start = time.monotonic()
        p = subprocess.run(["bash", "-c", driver(script_path, case_list)], capture_output=True,
                           text=True, env=env, cwd=tmp, timeout=120)
        took = time.monotonic() - start
        zsh_failures = run_zsh(basalt, env, tmp, folder) if shutil.which("zsh") else []
    failures = list(zsh_failures)
    if p.returncode != 0:
        failures.append(f"bash exited {p.returncode}")
    if p.stderr:
        failures.append(f"completion wrote to stderr:\n{p.stderr}")
    got = p.stdout.split("\n")
    for i, (typed, want) in enumerate(case_list):
        have = got[i] if i < len(got) else "<missing>"
        status = "ok  " if have == want else "FAIL"
        print(f"{status} basalt … {typed!r:70} -> {have!r}")
        if have != want:
            failures.append(f"{typed}: want {want!r}, got {have!r}")
    print(f"{len(case_list)} completions in {took:.1f}s")
    if failures:
        print("\n".join(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
