#!/usr/bin/env python3
"""Held-out cells of a larger run, scored on the tasks a smaller run did not fit on.

A run with more commits per repository (`--max-tasks 240`) measures each cell more
precisely than the run the weights were chosen on (`--max-tasks 120`), but its held-out
half can hold commits that were in the smaller run's development half, which the fit
saw. This prints each held-out cell's miss ratio (knit's misses in its first 10 ÷ the
best baseline's) and MRR check twice: without those commits, and on the commits that
were in neither half of the smaller run (a fresh sample, independent of the one the
README's table reports). The averages are macro averages, as `knit bench history`
computes them: each ranker's mean over repositories of its per-repository means.

Usage: bench/history/fresh.py SMALL.json LARGE.json   (both from `knit bench history
--format json`, same repositories and seed)
"""

import json
import sys


def means(tasks, mode):
    """ranker -> (mean R@10, mean MRR) over the tasks of `mode`; None without tasks."""
    tasks = [t for t in tasks if t["mode"] == mode]
    if not tasks:
        return None
    return {r: tuple(sum(t["results"][r]["metrics"][k] for t in tasks) / len(tasks) for k in ("recall10", "mrr")) for r in tasks[0]["results"]}, len(tasks)


def row(label, mode, n, by_ranker):
    baselines = [r for r in by_ranker if r != "knit"]
    best = max(baselines, key=lambda r: by_ranker[r][0])
    ratio = (1 - by_ranker["knit"][0]) / max(1e-9, 1 - by_ranker[best][0])
    best_mrr = max(by_ranker[r][1] for r in baselines)
    print(f"| {label} | {mode} | {n} | {best} | {ratio:.3f} | {'yes' if ratio <= 0.75 else 'no'} | {by_ranker['knit'][1]:.3f} | {best_mrr:.3f} |")


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
        per_repo = {"open": [], "query": []}
        for repo in large["repositories"]:
            seen = split_in_small.get(repo["name"], {})
            tasks = [t for t in repo["tasks"] if t["split"] == "held-out" and keep(seen.get(t["commit"]))]
            for mode in ("open", "query"):
                found = means(tasks, mode)
                if found:
                    by_ranker, n = found
                    row(repo["name"], mode, n, by_ranker)
                    per_repo[mode].append(by_ranker)
        for mode, repos in per_repo.items():
            if repos:
                average = {r: tuple(sum(m[r][i] for m in repos) / len(repos) for i in (0, 1)) for r in repos[0]}
                row("*average*", mode, "—", average)
        print()


if __name__ == "__main__":
    main()
