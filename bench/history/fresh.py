#!/usr/bin/env python3
"""Held-out cells of a larger run, scored on the tasks a smaller run did not fit on.

A run with more commits per repository (`--max-tasks 240`) measures each cell more
precisely than the run the weights were chosen on (`--max-tasks 120`), but its held-out
half can hold commits that were in the smaller run's development half, which the fit
saw. This prints each held-out cell's miss ratio (knit's misses in its first 10 ÷ the
best baseline's) and MRR check twice: without those commits, and on the commits that
were in neither half of the smaller run (a fresh sample, independent of the one the
README's table reports).

Usage: bench/history/fresh.py SMALL.json LARGE.json   (both from `knit bench history
--format json`, same repositories and seed)
"""

import json
import sys


def cell(tasks, mode):
    tasks = [t for t in tasks if t["mode"] == mode]
    if not tasks:
        return None
    mean = lambda ranker, key: sum(t["results"][ranker]["metrics"][key] for t in tasks) / len(tasks)
    baselines = [r for r in tasks[0]["results"] if r != "knit"]
    best = max(baselines, key=lambda r: mean(r, "recall10"))
    ratio = (1 - mean("knit", "recall10")) / max(1e-9, 1 - mean(best, "recall10"))
    best_mrr = max(mean(r, "mrr") for r in baselines)
    return len(tasks), best, ratio, mean("knit", "mrr"), best_mrr


def main():
    small, large = (json.load(open(p)) for p in sys.argv[1:3])
    split_in_small = {r["name"]: {t["commit"]: t["split"] for t in r["tasks"]} for r in small["repositories"]}
    subsets = [
        ("held-out, the smaller run's development commits removed", lambda s: s != "dev"),
        ("held-out, only commits in neither half of the smaller run", lambda s: s is None),
    ]
    for label, keep in subsets:
        print(f"## {label}")
        print("| Repository | Mode | Tasks | Best baseline | Miss ratio | ≤ 0.75 | knit MRR | best baseline MRR |")
        print("|---|---|---:|---|---:|:-:|---:|---:|")
        # per mode: ranker -> per-repository (R@10, MRR) means, for the macro average
        per_repo = {"open": {}, "query": {}}
        for repo in large["repositories"]:
            seen = split_in_small.get(repo["name"], {})
            tasks = [t for t in repo["tasks"] if t["split"] == "held-out" and keep(seen.get(t["commit"]))]
            for mode in ("open", "query"):
                c = cell(tasks, mode)
                if c:
                    n, best, ratio, mrr, best_mrr = c
                    print(f"| {repo['name']} | {mode} | {n} | {best} | {ratio:.3f} | {'yes' if ratio <= 0.75 else 'no'} | {mrr:.3f} | {best_mrr:.3f} |")
                    of_mode = [t for t in tasks if t["mode"] == mode]
                    for ranker in of_mode[0]["results"]:
                        per_repo[mode].setdefault(ranker, []).append(tuple(sum(t["results"][ranker]["metrics"][k] for t in of_mode) / len(of_mode) for k in ("recall10", "mrr")))
        for mode, rankers in per_repo.items():
            if not rankers:
                continue
            avg = {r: tuple(sum(v[i] for v in vals) / len(vals) for i in (0, 1)) for r, vals in rankers.items()}
            best = max((r for r in avg if r != "knit"), key=lambda r: avg[r][0])
            ratio = (1 - avg["knit"][0]) / max(1e-9, 1 - avg[best][0])
            best_mrr = max(avg[r][1] for r in avg if r != "knit")
            print(f"| *average* | {mode} | — | {best} | {ratio:.3f} | {'yes' if ratio <= 0.75 else 'no'} | {avg['knit'][1]:.3f} | {best_mrr:.3f} |")
        print()


if __name__ == "__main__":
    main()
