#!/usr/bin/env python3
"""Every command the documentation and the --help examples show runs as shown.

Run by ctest (`docs_commands`): finds the commands (tests/docs_commands.py),
runs every offline one with bash from a scratch copy of the repository root,
with the binary under test as `basalt` and `./build/basalt`, and checks that it
exits 0 (or the code its trailing comment says: `# exit 1 (pending)`) and
prints something (unless its output is redirected or sourced).
Commands that need a cluster or are long-running servers are run by
e2e/tests/test_docs_commands.py; the ones neither can run are in SKIPPED,
with the reason.

The --help examples name `./cluster`, a folder of manifests the user has:
here it holds what they name (queue research; jobs default/train,
research/train and default/demo), made with `basalt queue create` and
`basalt job run`.

    tests/docs_commands_test.py --basalt build/basalt [-k TEXT]
"""

import argparse
import collections
import concurrent.futures
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import docs_commands as dc  # noqa: E402

NOW = "2026-11-20T08:00:00Z"


def make_cluster_template(basalt, root):
    """./cluster of the --help examples."""
    folder = os.path.join(root, "cluster-template")
    os.makedirs(folder)
    steps = [
        "basalt queue create research --weight 4",
        "basalt job run --name train --queue research --replicas 2 --min 2",
        "basalt job run --name train -n research --queue research",
        "basalt job run --name demo --replicas 2 --min 2",
    ]
    for step in steps:
        p = dc.run_shown(f"{step} --cluster {folder} --now {NOW}", root, basalt,
                         redirect_tmp=False)
        if p.returncode != 0:
            raise SystemExit(f"fixture step failed: {step}\n{p.stdout}{p.stderr}")
    return folder


def run_group(commands, scratch, basalt):
    """Runs one group's commands in order; returns (shown, failure text or None, seconds)."""
    results = []
    for shown in commands:
        start = time.monotonic()
        p = dc.run_shown(shown.command, scratch, basalt)
        took = time.monotonic() - start
        failure = None
        want = dc.expected_exit(shown.command)
        if p.returncode != want:
            failure = f"exit code {p.returncode} (want {want})"
        elif not (p.stdout + p.stderr).strip() and not dc.prints_nothing(shown.command):
            failure = "printed nothing"
        if failure:
            failure += f"\n--- stdout ---\n{p.stdout[-3000:]}\n--- stderr ---\n{p.stderr[-3000:]}"
        results.append((shown, failure, took))
    return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--basalt", required=True)
    parser.add_argument("-k", default="", help="only commands containing this text")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    basalt = os.path.abspath(args.basalt)

    commands = dc.all_commands(basalt)
    problems = []
    for stale in dc.stale_skips(commands):
        problems.append(f"SKIPPED names a command no longer shown (remove it): {stale}")
    by_kind = collections.defaultdict(list)
    for shown in commands:
        by_kind[dc.classify(shown)].append(shown)
    if len(by_kind["offline"]) < 20:
        problems.append(f"only {len(by_kind['offline'])} offline commands found: is the "
                        "discovery broken?")
    groups = collections.OrderedDict()
    for shown in by_kind["offline"]:
        if args.k in shown.command:
            groups.setdefault(shown.group, []).append(shown)

    with tempfile.TemporaryDirectory(prefix="basalt-docs-") as tmp:
        template = make_cluster_template(basalt, tmp)
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            futures = [
                pool.submit(run_group, group,
                            dc.make_scratch(os.path.join(tmp, f"s{i}"), basalt, template), basalt)
                for i, group in enumerate(groups.values())
            ]
            results = [r for f in futures for r in f.result()]

    for shown, failure, took in results:
        print(f"{'FAIL' if failure else 'ok  '} {took:6.1f}s  {shown}")
        if failure:
            problems.append(f"{shown}\n{failure}")
    print(f"\n{len(results)} offline commands run; {len(by_kind['live'])} need a cluster or "
          f"are servers (e2e/tests/test_docs_commands.py):")
    for shown in by_kind["live"]:
        print(f"  live {shown}")
    print(f"{len(by_kind['skip'])} skipped:")
    for shown in by_kind["skip"]:
        print(f"  skip {shown}\n       because {dc.SKIPPED[dc.bare(shown.command)]}")
    if problems:
        print("\n" + "\n\n".join(problems), file=sys.stderr)
        print(f"\n{len(problems)} problem(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
