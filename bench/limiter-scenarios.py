#!/usr/bin/env python3
"""Means over seeds of the adaptive limiter's scenarios (docs/simulator.md, "Steady overload and a capacity
that halves"): goodput and 429s per second over a window, against a capacity, and the recovery after the
overload ends (seconds until goodput stays at >= 90% of the offered load for 5 s), also counted from the
last second with a 429 before that point (the limiter's last cut, from which its cubic growth time runs).
When a policy has a concurrency limiter (its CSV has the concurrencyRefused* columns), two more columns give
the share of first attempts it refused (of the requests started) and of retries and hedges (of the retries
that fell due), over the whole run, as means over the seeds.

Usage, from the repository's root (BACKOFF_CMD overrides ./backoff, e.g. to run another build's jar):
  bench/limiter-scenarios.py docs/scenarios/throttling-steady.yaml 30 130 100 130 80 20
  bench/limiter-scenarios.py docs/scenarios/throttling-halving.yaml 90 180 50 180 70 20
arguments: SCENARIO WINDOW_START WINDOW_END CAPACITY OVERLOAD_END OFFERED SEEDS
"""
import os, csv, sys, subprocess, statistics as st
# usage: measure.py scenario win_start win_end capacity end_overload offered seeds
sc, a, b, cap, end, offered, seeds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6]), int(sys.argv[7])
res = {}
for seed in range(1, seeds + 1):
    out = subprocess.run((os.environ.get('BACKOFF_CMD','./backoff').split() + ['simulate'])+['--scenario', sc, '--format', 'csv', '--seed', str(seed)], capture_output=True, text=True).stdout
    rows = list(csv.DictReader(out.splitlines()))
    pols = {}
    for r in rows:
        pols.setdefault(r['policy'], []).append(r)
    for p, rs in pols.items():
        w = [r for r in rs if a <= int(r['t']) < b]
        good = sum(float(r['goodput']) for r in w) / len(w)
        thr = sum(float(r['errors']) for r in w) / len(w)
        att = sum(float(r['attempts']) for r in w) / len(w)
        # recovery: first second >= end from which goodput stays >= 0.9 * offered for 5 s
        rec = None
        since_cut = None
        after = [r for r in rs if int(r['t']) >= end]
        for i in range(len(after) - 5):
            if all(float(x['goodput']) >= 0.9 * offered for x in after[i:i + 5]):
                rec = int(after[i]['t']) - end
                last = max((int(x['t']) for x in rs if int(x['t']) <= int(after[i]['t']) and float(x['errors']) > 0), default=None)
                since_cut = None if last is None else int(after[i]['t']) - last
                break
        shed = None
        if rs[0].get('concurrencyRefusedFirst'):
            first = sum(int(r['concurrencyRefusedFirst']) for r in rs) / max(1, sum(int(r['newRequests']) for r in rs))
            later = sum(int(r['concurrencyRefusedRetries']) for r in rs) / max(1, sum(int(r['retries']) for r in rs))
            shed = (first, later)
        res.setdefault(p, []).append((good, thr, att, rec, since_cut, shed))
print(f'{sc}: window {a}-{b}s, capacity {cap}/s; recovery = seconds after {end}s until goodput >= 90% of {offered}/s for 5 s; {seeds} seeds')
shedding = any(x[5] is not None for v in res.values() for x in v)
width = max(28, max(len(p) for p in res))
print(f"{'policy':{width}s} {'goodput/s':>18s} {'of capacity':>11s} {'429s/s':>16s} {'attempts/s':>11s} {'recovery s (median, max)':>24s} {'from last 429 (median, max)':>27s}"
      + (f" {'first shed':>10s} {'retries shed':>12s}" if shedding else ""))
base = None
for p, v in res.items():
    g = [x[0] for x in v]; t = [x[1] for x in v]; at = [x[2] for x in v]; r = [x[3] for x in v]
    if base is None: base = st.mean(t)
    rr = [x for x in r if x is not None]
    recs = f"{st.median(rr):.0f}, {max(rr)}" if len(rr) == len(r) else f"{len(r)-len(rr)} seeds never"
    sc_ = [x[4] for x in v if x[4] is not None]
    cuts = f"{st.median(sc_):.0f}, {max(sc_)}" if sc_ else "-"
    share = f"({st.mean(t)/base*100:5.1f}%)" if base else "(    -)"
    shed = [x[5] for x in v if x[5] is not None]
    sheds = (f" {st.mean(x[0] for x in shed)*100:9.1f}% {st.mean(x[1] for x in shed)*100:11.1f}%" if shed else f" {'-':>10s} {'-':>12s}") if shedding else ""
    print(f"{p:{width}s} {st.mean(g):7.1f} [{min(g):.1f}-{max(g):.1f}] {st.mean(g)/cap*100:10.1f}% {st.mean(t):7.1f} {share} {st.mean(at):11.1f} {recs:>24s} {cuts:>27s}" + sheds)
