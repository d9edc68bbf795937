#!/usr/bin/env python3
"""Every command that reads a file refuses a bad one cleanly.

Run by ctest (`bad_input`): feeds each bad input below to each command that
takes a file and checks that the command
  - exits 2 (input error): no crash (134, a signal), no 0 "success";
  - names the file in what it prints;
  - prints no raw control byte and no invalid UTF-8 (they are escaped);
  - ends within TIME_LIMIT seconds and within MEMORY_LIMIT bytes of address
    space (a command that reads /dev/zero whole runs out of it and crashes).

The inputs: endless character devices (/dev/zero, /dev/urandom), a sparse
file far above the size limit, a folder named like a manifest, a missing
file, random bytes, a manifest holding NUL bytes, one holding terminal escape
sequences, a named pipe nobody writes to, /dev/null, an empty and a
whitespace-only file.

    tests/bad_input_test.py --basalt build/basalt [-k TEXT]
"""

import argparse
import os
import random
import resource
import shlex
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIME_LIMIT = 30
MEMORY_LIMIT = 3 << 30

# {F} is the bad input; {OUT} a scratch folder; {CLUSTER} a scratch folder of
# manifests (`job run` writes into it); {PODS} a valid pod list for the agent. Each command reads {F} as one kind of
# input: manifests, a scheduler configuration, a scenario, a job file, the
# agent's configuration, a pod list, a kubeconfig.
COMMANDS = [
    "validate {F}",
    "validate --conf {F}",
    "schedule --cluster {F}",
    "schedule --conf {F} --cluster examples/gang-training/cluster",
    "explain job/vision-train --cluster {F}",
    "explain job/vision-train --conf {F} --cluster examples/gang-training/cluster",
    "simulate {F} --out {OUT}",
    "job run --name j --cluster {CLUSTER} --filename {F}",
    "agent --config {F} --pods-file {PODS} --listen '' --ticks 1",
    "agent --pods-file {F} --listen '' --ticks 1",
    "serve --kubeconfig {F} --listen ''",
]

# Inputs with nothing in them, and the commands for which nothing is a valid
# input (every field of the agent's configuration is optional; a node may run
# no pods): those may also exit 0 or 1 (the agent on a machine without cgroups).
EMPTY_INPUTS = ("dev-null", "empty", "whitespace", "fifo-no-writer")
EMPTY_IS_VALID = ("agent --config", "agent --pods-file")


def make_inputs(scratch):
    """{name: path} of every bad input, made under `scratch`."""
    rng = random.Random(34)
    inputs = {"dev-zero": "/dev/zero", "dev-urandom": "/dev/urandom", "dev-null": "/dev/null"}

    def write(name, data):
        path = os.path.join(scratch, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    sparse = os.path.join(scratch, "huge.yaml")
    with open(sparse, "wb") as f:
        f.truncate(16 << 30)  # 16 GiB of nothing on disk
    inputs["sparse-16GiB"] = sparse
    folder = os.path.join(scratch, "folder.yaml")
    os.mkdir(folder)
    inputs["folder-named-yaml"] = folder
    inputs["missing"] = os.path.join(scratch, "missing.yaml")
    garbage = bytes(rng.randrange(1, 256) for _ in range(64 << 10))
    inputs["garbage"] = write("garbage.yaml", garbage)
    inputs["nul-bytes"] = write(
        "nul.yaml", b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\x00b\n")
    inputs["escapes"] = write(
        "escapes.yaml",
        b"apiVersion: v1\nkind: \"\x1b[31mPod\x07\"\nmetadata:\n  name: \"a\x1b]0;x\x07\"\n"
        b"\x1b[2J: \"\xff\xfe\"\n")
    inputs["empty"] = write("empty.yaml", b"")
    inputs["whitespace"] = write("blank.yaml", b"  \n\n\t\n")
    fifo = os.path.join(scratch, "fifo.yaml")
    os.mkfifo(fifo)
    inputs["fifo-no-writer"] = fifo
    return inputs


def limit_resources():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def raw_bytes_problem(data):
    """Why `data` is not safe to show a terminal, or None."""
    for i, b in enumerate(data):
        if (b < 0x20 and b not in (0x0A, 0x09)) or b == 0x7F:
            return f"raw control byte 0x{b:02x} at offset {i}"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"invalid UTF-8 at offset {e.start}"
    return None


def check(basalt, command, name, path, scratch):
    """The failure text of one run, or None."""
    may_pass = name in EMPTY_INPUTS and command.startswith(EMPTY_IS_VALID)
    out = tempfile.mkdtemp(dir=scratch)
    cluster = tempfile.mkdtemp(dir=scratch)
    pods = os.path.join(out, "pods.yaml")
    with open(pods, "w") as f:
        f.write("pods: []\n")
    line = command.format(F=path, OUT=out, CLUSTER=cluster, PODS=pods)
    start = time.monotonic()
    # Its own process group, so a command that hangs is killed with its children.
    p = subprocess.Popen([basalt] + shlex.split(line), cwd=ROOT, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                         preexec_fn=limit_resources)
    try:
        stdout, stderr = p.communicate(timeout=TIME_LIMIT)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        return f"{line}: still running after {TIME_LIMIT} s"
    took = time.monotonic() - start
    text = stdout + stderr
    shown = text[-600:].decode("utf-8", "backslashreplace")
    if may_pass and p.returncode in (0, 1):
        problem = raw_bytes_problem(text)
        return f"{line}: {problem}\n{shown}" if problem else None
    if p.returncode != 2:
        return f"{line}: exit {p.returncode} (want 2) after {took:.1f} s\n{shown}"
    if path.encode() not in text:
        return f"{line}: the message does not name {path}\n{shown}"
    problem = raw_bytes_problem(text)
    if problem:
        return f"{line}: {problem}\n{shown}"
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--basalt", required=True)
    parser.add_argument("-k", default="", help="only the runs whose command line holds this")
    args = parser.parse_args()
    basalt = os.path.abspath(args.basalt)
    failures = []
    runs = 0
    with tempfile.TemporaryDirectory() as scratch:
        inputs = make_inputs(scratch)
        for command in COMMANDS:
            for name, path in inputs.items():
                if args.k not in command.format(F=path, OUT="", CLUSTER="", PODS="") + " " + name:
                    continue
                runs += 1
                failure = check(basalt, command, name, path, scratch)
                if failure:
                    failures.append(f"[{name}] {failure}")
    for f in failures:
        print(f"FAIL {f}\n")
    print(f"{runs - len(failures)} of {runs} runs refused their bad input cleanly")
    return 1 if failures or runs == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
