#!/usr/bin/env python3
"""The differential test: basalt against the Volcano v1.15.1 oracle.

For every scenario of tests/scenarios/ the oracle can express, and for random
worlds written by `basalt_random_cycles --write-worlds`, runs `basalt
schedule` and the oracle on the same configuration and manifests and compares
the decisions cycle by cycle (binds, evictions with their action, pipelined
pods, PodGroup phases) and the final pods and PodGroups. A difference fails
the run unless an entry of known_differences.yaml explains it (docs/oracle.md).

  oracle_diff.py --basalt BIN --oracle BIN [--scenarios DIR] [--worlds DIR]
                 [--known FILE] [--open FILE] [--write-open FILE]
                 [--report FILE] [--only NAME] [--verbose]

A world listed in the open file (open_differences.yaml: basalt bugs the
oracle found and that are not fixed yet, each with its finding) may still
differ; it is counted as "open". The list only shrinks: a listed world that
now agrees with Volcano fails the run until its entry is removed, and any
other unexplained difference fails it too. `--write-open FILE` writes the
worlds that differ now, keeping the findings already recorded.

Exit 0 when every difference is explained or open, 1 otherwise, 2 on a usage
or tooling error (a scenario that basalt itself refuses, an oracle crash).
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
UNSUPPORTED = 4  # the oracle's exit code for an input it cannot express


def load_known(path):
    with open(path) as f:
        doc = yaml.safe_load(f) or {}
    entries = doc.get("differences", [])
    for e in entries:
        for k in ("id", "row", "why"):
            if k not in e:
                sys.exit(f"{path}: entry {e!r} has no '{k}'")
    return entries


def load_open(path):
    """world name -> its entry ({world, finding, first})."""
    if not path or not os.path.exists(path):
        return {}
    with open(path) as f:
        doc = yaml.safe_load(f) or {}
    out = {}
    for e in doc.get("open", []) or []:
        for k in ("world", "finding"):
            if k not in e:
                sys.exit(f"{path}: entry {e!r} has no '{k}'")
        out[e["world"]] = e
    return out


def write_open(path, results, previous):
    entries = []
    for r in results:
        if r["verdict"] not in ("DIFF", "open"):
            continue
        old = previous.get(r["world"], {})
        first = r["diffs"][0]
        entries.append({"world": r["world"], "finding": old.get("finding", "unclassified"),
                        "first": f"{first[0]} {first[1]}"})
    header = ("# Worlds where basalt still differs from the Volcano v1.15.1 oracle and no\n"
              "# row of docs/differences.md explains it: basalt bugs not fixed yet, each\n"
              "# with its finding (docs/oracle.md, \"Open differences\"). Read by\n"
              "# tests/oracle/oracle_diff.py --open; the list may only shrink: an entry\n"
              "# whose world agrees with Volcano again fails the run until it is removed.\n")
    with open(path, "w") as f:
        f.write(header)
        yaml.safe_dump({"open": entries}, f, sort_keys=False, width=100)


def basalt_conf(conf, known):
    """Applies the switches of the known list that give Volcano's rule."""
    if conf is None:
        return None
    for e in known:
        patch = e.get("basalt_switch")
        if not patch:
            continue
        doc = yaml.safe_load(conf) or {}
        actions = [a.strip() for a in str(doc.get("actions", "")).split(",")]
        if patch["action"] not in actions:
            continue
        confs = doc.setdefault("configurations", []) or []
        doc["configurations"] = confs
        entry = next((c for c in confs if c.get("name") == patch["action"]), None)
        if entry is None:
            entry = {"name": patch["action"], "arguments": {}}
            confs.append(entry)
        args = entry.setdefault("arguments", {}) or {}
        entry["arguments"] = args
        args.update(patch["arguments"])
        conf = yaml.safe_dump(doc, sort_keys=False)
    return conf


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def decisions(out):
    """The comparable view of one program's JSON output."""
    view = {"cycles": [], "final": {}}
    for c in out.get("cycles", []):
        view["cycles"].append({
            "binds": sorted((d["pod"], d["node"]) for d in c.get("binds", [])),
            "evictions": sorted((d["pod"], d.get("action", "")) for d in c.get("evictions", [])),
            "pipelined": sorted((d["pod"], d["node"]) for d in c.get("pipelined", [])),
            "podgroups": sorted((g["name"], g["phase"]) for g in c.get("podgroups", [])),
        })
    final = out.get("final", {})
    view["final"] = {
        "pods": sorted((p["pod"], p["phase"], p.get("node", "")) for p in final.get("pods", [])),
        "podgroups": sorted((g["name"], g["phase"]) for g in final.get("podgroups", [])),
    }
    return view


def compare(b, o, truncated=False):
    """Differences as (where, field, basalt-only, oracle-only), first cycle first.

    A truncated oracle run compares its cycles only (docs/oracle.md)."""
    diffs = []
    if truncated:
        b = {"cycles": b["cycles"][:len(o["cycles"])], "final": o["final"]}
    for i, (cb, co) in enumerate(zip(b["cycles"], o["cycles"])):
        for field in ("binds", "evictions", "pipelined", "podgroups"):
            sb, so = set(cb[field]), set(co[field])
            if sb != so:
                diffs.append((f"cycle {i + 1}", field, sorted(sb - so), sorted(so - sb)))
    if len(b["cycles"]) != len(o["cycles"]):
        diffs.append(("cycles", "count", [len(b["cycles"])], [len(o["cycles"])]))
    for field in ("pods", "podgroups"):
        sb, so = set(b["final"][field]), set(o["final"][field])
        if sb != so:
            diffs.append(("final", field, sorted(sb - so), sorted(so - sb)))
    return diffs


def same_pods(diff):
    """The two sides of a difference name the same pods (only where they go differs)."""
    _, _, basalt_only, oracle_only = diff
    return {d[0] for d in basalt_only} == {d[0] for d in oracle_only}


def explained(world, diffs, known):
    """The known entry explaining this world's differences, if one does."""
    for e in known:
        m = e.get("match", {})
        if not m:
            continue
        if "world" in m and not re.search(m["world"], world["name"]):
            continue
        if "conf" in m and not re.search(m["conf"], world["conf"] or "", re.M):
            continue
        if "manifests" in m and not re.search(m["manifests"], world["manifests"], re.M):
            continue
        if "first_field" in m and diffs[0][1] not in m["first_field"]:
            continue
        if m.get("same_pods") and not same_pods(diffs[0]):
            continue
        return e["id"]
    return None


def write_world(tmp, world):
    cluster = os.path.join(tmp, "cluster.yaml")
    with open(cluster, "w") as f:
        f.write(world["manifests"])
    conf = None
    if world["conf"] is not None:
        conf = os.path.join(tmp, "conf.yaml")
        with open(conf, "w") as f:
            f.write(world["conf"])
    return conf, cluster


def check_world(world, args, known):
    """One world through both programs: ('skip', why) | ('same',) | ('diff', diffs, known_id)."""
    with tempfile.TemporaryDirectory(prefix="oracle-diff-") as tmp:
        conf, cluster = write_world(tmp, world)
        cycles = ["--cycles", str(world["cycles"])]
        ocmd = [args.oracle, "--cluster", cluster] + cycles + (["--conf", conf] if conf else [])
        outcomes = []  # Volcano's distinct outcomes over --oracle-runs runs
        for _ in range(args.oracle_runs):
            rc, out, err = run(ocmd)
            if rc == UNSUPPORTED:
                return ("skip", err.strip().removeprefix("oracle: "))
            if rc != 0:
                return ("error", f"oracle exit {rc}: {err.strip()[-2000:]}")
            if out not in [o[0] for o in outcomes]:
                outcomes.append((out, json.loads(out)))
        bconf_text = basalt_conf(world["conf"], known)
        bconf = None
        if bconf_text is not None:
            bconf = os.path.join(tmp, "basalt-conf.yaml")
            with open(bconf, "w") as f:
                f.write(bconf_text)
        bcmd = [args.basalt, "schedule", "--cluster", cluster] + cycles
        bcmd += ["--conf", bconf] if bconf else []
        if world.get("now"):
            bcmd += ["--now", world["now"]]
        rc, out, err = run(bcmd)
        if rc != 0:
            return ("error", f"basalt exit {rc}: {err.strip()[-2000:]}")
        basalt_view = decisions(json.loads(out))
        best = None
        checked = 0
        # Volcano chose at random here (several outcomes) and basalt's choice
        # was not among them yet: run it up to 4 times as often before
        # calling it a difference (a choice it makes a quarter of the time is
        # then missed once in 10^5 worlds).
        extra = args.oracle_runs * 3
        while True:
            for _, oracle_out in outcomes[checked:]:
                diffs = compare(basalt_view, decisions(oracle_out),
                                truncated=bool(oracle_out.get("truncated")))
                if not diffs:
                    # basalt made one of the choices Volcano makes (it picked at random).
                    return ("same",) if len(outcomes) == 1 else ("same-random", len(outcomes))
                if best is None:
                    best = diffs
            checked = len(outcomes)
            if len(outcomes) == 1 or extra <= 0:
                break
            while extra > 0 and len(outcomes) == checked:
                extra -= 1
                rc, out, err = run(ocmd)
                if rc != 0:
                    return ("error", f"oracle exit {rc}: {err.strip()[-2000:]}")
                if out not in [o[0] for o in outcomes]:
                    outcomes.append((out, json.loads(out)))
            if len(outcomes) == checked:
                break
        return ("diff", best, explained(world, best, known), len(outcomes))


def scenario_worlds(root, only):
    for dirpath, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            if not name.endswith(".yaml") or name == "README.md":
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            if only and only not in rel:
                continue
            with open(path) as f:
                doc = yaml.safe_load(f)
            if not isinstance(doc, dict) or "cluster" not in doc:
                continue
            world = {"name": "scenario " + rel, "family": rel.split(os.sep)[0],
                     "conf": doc.get("conf"), "manifests": doc["cluster"],
                     "cycles": int(doc.get("cycles", 1)), "now": doc.get("now")}
            if "expect_error" in doc:
                yield world, "the scenario expects basalt to refuse its input"
            elif doc.get("strict"):
                yield world, "--strict scenario (configuration mistakes, not decisions)"
            else:
                yield world, None


def families(conf, manifests):
    """The generator's choices, read back from what it wrote."""
    out = []
    actions = re.search(r'actions: "([^"]*)"', conf or "")
    names = [a.strip() for a in actions.group(1).split(",")] if actions else []
    if "capacity-card" in (conf or ""):
        out.append("capacity-card")
    elif "enableHierarchy: true" in (conf or ""):
        out.append("capacity-hierarchy")
    elif "- name: capacity" in (conf or ""):
        out.append("capacity")
    else:
        out.append("proportion")
    evicting = [a for a in names if a.endswith("preempt") or a.endswith("reclaim")]
    out += evicting if evicting else ["alloc-only"]
    if "kind: HyperNode" in manifests:
        out.append("topology")
    if "subGroupPolicy" in manifests or "partitionPolicy" in manifests:
        out.append("subgroups")
    if "kind: Job\n" in manifests:
        out.append("vcjob")
    return out


def random_worlds(root, only):
    for name in sorted(os.listdir(root), key=lambda n: (len(n), n)):
        d = os.path.join(root, name)
        if not os.path.isdir(d) or (only and only != name):
            continue
        with open(os.path.join(d, "conf.yaml")) as f:
            conf = f.read()
        with open(os.path.join(d, "cluster.yaml")) as f:
            manifests = f.read()
        with open(os.path.join(d, "cycles")) as f:
            cycles = int(f.read().strip())
        yield {"name": "random " + name, "family": families(conf, manifests), "conf": conf,
               "manifests": manifests, "cycles": cycles, "path": d}, None


def show(diffs, limit=4):
    lines = []
    for where, field, bonly, oonly in diffs[:limit]:
        lines.append(f"    {where} {field}: basalt only {bonly}; oracle only {oonly}")
    if len(diffs) > limit:
        lines.append(f"    ... {len(diffs) - limit} more")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--basalt", required=True)
    ap.add_argument("--oracle", required=True)
    ap.add_argument("--scenarios")
    ap.add_argument("--worlds")
    ap.add_argument("--known", default=os.path.join(HERE, "known_differences.yaml"))
    ap.add_argument("--open", help="worlds known to differ still (open_differences.yaml)")
    ap.add_argument("--write-open", help="write the worlds that differ now as an open list")
    ap.add_argument("--report", help="write every result as JSON here")
    ap.add_argument("--only", help="only scenarios whose path contains this / this world")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--oracle-runs", type=int, default=4,
                    help="runs of the oracle per world: Volcano still chooses some victims "
                    "in map order, and basalt may match any outcome it shows (default 4)")
    args = ap.parse_args()
    known = load_known(args.known)
    open_list = load_open(args.open)
    sources = []
    if args.scenarios:
        sources.append(scenario_worlds(args.scenarios, args.only))
    if args.worlds:
        sources.append(random_worlds(args.worlds, args.only))
    if not sources:
        ap.error("give --scenarios, --worlds or both")

    counts = collections.defaultdict(collections.Counter)
    results, unexplained, errors, fixed = [], 0, 0, 0
    for source in sources:
        for world, skip in source:
            fams = world["family"] if isinstance(world["family"], list) else [world["family"]]
            verdict = ("skip", skip) if skip else check_world(world, args, known)
            kind = verdict[0]
            if kind == "same-random":
                # Volcano chose at random here: an open entry that matched one of
                # its outcomes this time is not fixed, it stays open.
                kind = "open" if world["name"] in open_list else "same"
            if kind == "diff":
                kind = "known" if verdict[2] else "DIFF"
                if kind == "DIFF" and world["name"] in open_list:
                    kind = "open"
            if kind in ("same", "known") and world["name"] in open_list:
                kind = "FIXED"  # agrees, or a differences.md row explains it: the entry is stale
            for fam in fams:
                counts[fam][kind] += 1
            rec = {"world": world["name"], "families": fams, "verdict": kind}
            if verdict[0] == "skip":
                rec["why"] = verdict[1]
                if args.verbose:
                    print(f"skip  {world['name']}: {verdict[1]}")
            elif verdict[0] == "error":
                errors += 1
                rec["error"] = verdict[1]
                print(f"ERROR {world['name']}: {verdict[1]}")
            elif kind == "FIXED":
                fixed += 1
                print(f"FIXED {world['name']}: agrees with Volcano now; remove it from the open list")
            elif verdict[0] == "diff":
                rec["oracle_outcomes"] = verdict[3]
                rec["diffs"] = [list(map(str, d)) for d in verdict[1]]
                rec["known"] = verdict[2]
                if verdict[2]:
                    if args.verbose:
                        print(f"known {world['name']} ({verdict[2]})\n{show(verdict[1])}")
                elif kind == "open":
                    if args.verbose:
                        finding = open_list[world["name"]]["finding"]
                        print(f"open  {world['name']} ({finding})\n{show(verdict[1])}")
                else:
                    unexplained += 1
                    many = f", oracle gave {verdict[3]} outcomes" if verdict[3] > 1 else ""
                    print(f"DIFF  {world['name']} [{' '.join(fams)}{many}]\n{show(verdict[1])}")
            elif verdict[0] == "same-random":
                rec["oracle_outcomes"] = verdict[1]
                if args.verbose:
                    print(f"same  {world['name']} (one of {verdict[1]} oracle outcomes)")
            elif args.verbose:
                print(f"same  {world['name']}")
            results.append(rec)
    print("\nper family: same / known / open / DIFF / skip / error")
    for fam in sorted(counts):
        c = counts[fam]
        print(f"  {fam:22} {c['same'] + c['FIXED']:5} {c['known']:5} {c['open']:5} {c['DIFF']:5} "
              f"{c['skip']:5} {c['error']:5}")
    total = collections.Counter(r["verdict"] for r in results)
    print(f"total: {len(results)} worlds, {total['same'] + total['FIXED']} same, {total['known']} known, "
          f"{total['open']} open, {total['DIFF']} unexplained, {total['skip']} skipped, "
          f"{total['error']} errors")
    if args.write_open:
        write_open(args.write_open, results, open_list)
    if args.report:
        with open(args.report, "w") as f:
            json.dump(results, f, indent=1)
    if errors:
        return 2
    return 1 if unexplained or fixed else 0


if __name__ == "__main__":
    sys.exit(main())
