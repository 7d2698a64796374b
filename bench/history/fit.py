#!/usr/bin/env python3
"""Fit knit's rank-fusion weights on the development half of a history evaluation.

Input: the JSON of `knit bench history --format json` (every task carries the evidence
lists knit fused: signal name -> paths, best first). For each mode, coordinate ascent over
a small grid finds the weights and the rank offset k that maximise, on the *development*
tasks only, the mean over repositories of 0.6 * recall@10 + 0.4 * MRR of the fused list
(read in fused order, the open file excluded). The held-out tasks are then scored with the
fitted weights and printed beside the development score; they are never used to choose.

The chosen weights are frozen by hand into `FusionWeights::default()`
(server/knit-context/src/fusion.rs); run the evaluation again to measure the real packs
(tier assembly can move an item a place or two against the plain fused order).

Usage: bench/history/fit.py RUN.json [RUN2.json ...]
"""

import json
import sys
from collections import defaultdict

SIGNALS = ["lexical", "cochange", "imports", "tests", "documents", "declares", "uses", "neartop", "cochangetop", "recent", "pastcommits", "samefolder", "inpath", "sharesname", "named"]
GRID = [0.0, 0.15, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0]
KS = [1.0, 3.0, 5.0, 10.0, 20.0, 40.0]
DEPTH = 40
# What `FusionWeights::default()` holds now (kept in step by hand): the fit starts from
# these as well as from all-ones, and reports their score beside the fitted ones.
CURRENT = {
    "open": (1.0, [1.0, 2.0, 0.15, 2.0, 0.3, 0.75, 1.0, 0.75, 0.5, 0.75, 0.15, 1.0, 0.0, 1.5, 0.0]),
    "query": (5.0, [1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.15, 0.3, 0.5, 0.5, 0.0, 0.5, 0.0, 0.75]),
}


def load(paths):
    tasks = []
    for path in paths:
        report = json.load(open(path))
        for repo in report["repositories"]:
            for t in repo["tasks"]:
                ev = t.get("knit", {}).get("evidence")
                if not ev:
                    continue
                open_path = (t.get("open") or {}).get("path")
                truth = {f["path"] for f in t["truth"]} - {open_path}
                if not truth:
                    continue
                tasks.append({
                    "repo": repo["name"],
                    "split": t["split"],
                    "mode": t["mode"],
                    "open": open_path,
                    "truth": truth,
                    "lists": {k: v[:DEPTH] for k, v in ev.items() if k in SIGNALS},
                })
    return tasks


def fuse(lists, weights, k):
    score = defaultdict(float)
    for name, w in weights.items():
        if w <= 0:
            continue
        for rank, path in enumerate(lists.get(name, ())):
            score[path] += w / (k + rank + 1)
    return sorted(score, key=lambda p: (-score[p], p))


def metrics(order, truth, open_path):
    order = [p for p in order if p != open_path][:20]
    found10 = sum(1 for p in order[:10] if p in truth)
    first = next((i for i, p in enumerate(order) if p in truth), None)
    return found10 / len(truth), (1.0 / (first + 1) if first is not None else 0.0)


def objective(tasks, weights, k):
    per_repo = defaultdict(list)
    for t in tasks:
        r10, mrr = metrics(fuse(t["lists"], weights, k), t["truth"], t["open"])
        per_repo[t["repo"]].append((r10, mrr))
    repo_scores = {}
    for repo, vals in per_repo.items():
        r10 = sum(v[0] for v in vals) / len(vals)
        mrr = sum(v[1] for v in vals) / len(vals)
        repo_scores[repo] = (r10, mrr)
    mean = sum(0.6 * r + 0.4 * m for r, m in repo_scores.values()) / max(1, len(repo_scores))
    return mean, repo_scores


def fit(tasks, start, k=10.0):
    weights = dict(start)
    best, _ = objective(tasks, weights, k)
    for _ in range(4):
        improved = False
        for kk in KS:
            v, _ = objective(tasks, weights, kk)
            if v > best + 1e-9:
                best, k, improved = v, kk, True
        for name in SIGNALS:
            if name == "lexical":
                continue  # the scale: everything else is relative to lexical = 1
            for w in GRID:
                trial = dict(weights)
                trial[name] = w
                v, _ = objective(tasks, trial, k)
                if v > best + 1e-9:
                    best, weights, improved = v, trial, True
        if not improved:
            break
    return weights, k, best


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(2)
    tasks = load(sys.argv[1:])
    for mode in ["open", "query"]:
        dev = [t for t in tasks if t["mode"] == mode and t["split"] == "dev"]
        held = [t for t in tasks if t["mode"] == mode and t["split"] == "held-out"]
        if not dev:
            continue
        cur_k, cur_w = CURRENT[mode]
        current = dict(zip(SIGNALS, cur_w))
        cur_dev, _ = objective(dev, current, cur_k)
        cur_held, cur_repos = objective(held, current, cur_k)
        fits = [fit(dev, {s: 1.0 for s in SIGNALS}), fit(dev, current, cur_k)]
        weights, k, best = max(fits, key=lambda f: f[2])
        _, dev_repos = objective(dev, weights, k)
        held_mean, held_repos = objective(held, weights, k)
        print(f"== {mode}: {len(dev)} dev tasks, {len(held)} held-out tasks")
        print("   k = %g; weights: %s" % (k, ", ".join(f"{s} {weights[s]:g}" for s in SIGNALS)))
        print(f"   objective dev {best:.4f}, held-out {held_mean:.4f} (current weights: dev {cur_dev:.4f}, held-out {cur_held:.4f})")
        for repo in sorted(dev_repos):
            d = dev_repos[repo]
            h = held_repos.get(repo, (0, 0))
            print(f"   {repo:28s} dev R@10 {d[0]:.3f} MRR {d[1]:.3f} | held-out R@10 {h[0]:.3f} MRR {h[1]:.3f}")


if __name__ == "__main__":
    main()
