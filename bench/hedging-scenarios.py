#!/usr/bin/env python3
"""Means over seeds of the adaptive-hedging scenarios (docs/storm-protection.md, "Adaptive hedging"): for each
policy and each time window, goodput per second against the offered load, attempts per request started (the
extra load hedges add: 1.00 is none), the mean of the per-second client p99 latencies, and over the whole run
the p99 of successes, the success ratio and attempts per request (the simulator's amplification). Each figure is the mean over the
seeds with the range over seeds in brackets.

Usage, from the repository's root (BACKOFF_CMD overrides ./backoff, e.g. to run another build's jar):
  bench/hedging-scenarios.py docs/scenarios/hedging-adaptive.yaml 50 20 10-120
  bench/hedging-scenarios.py docs/scenarios/hedging-adaptive-shift.yaml 50 20 10-60 60-120 120-180
  bench/hedging-scenarios.py docs/scenarios/hedging-adaptive-overload.yaml 340 20 10-120
arguments: SCENARIO OFFERED_PER_SECOND SEEDS WINDOW... (each START-END in seconds)
With CHART=FILE.svg set, also writes a chart of two panels, per second and averaged over the seeds: attempts
per request started, and the client p99 latency (docs/storm-hedging-adaptive-shift.svg is made so).
"""
import json, os, statistics as st, subprocess, sys

scenario, offered, seeds = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
windows = [tuple(int(x) for x in w.split('-')) for w in sys.argv[4:]]
results = {}  # policy -> list of per-seed dicts
per_second = {}  # policy -> t -> list over seeds of (attempts per request, client p99 seconds)
for seed in range(1, seeds + 1):
    out = subprocess.run(os.environ.get('BACKOFF_CMD', './backoff').split()
                         + ['simulate', '--scenario', scenario, '--format', 'json', '--seed', str(seed)],
                         capture_output=True, text=True, check=True).stdout
    for policy in json.loads(out)['policies']:
        summary, series = policy['summary'], policy['series']
        row = {'p99': summary['p99SuccessLatencySeconds'], 'success': summary['successRatio'],
               'amplification': summary['amplification']}
        for a, b in windows:
            w = [s for s in series if a <= s['t'] < b]
            p99s = [s['clientP99Seconds'] for s in w if s.get('clientP99Seconds') is not None]
            row[(a, b)] = (sum(s['goodput'] for s in w) / len(w),
                           sum(s['attempts'] for s in w) / max(1, sum(s['newRequests'] for s in w)),
                           sum(p99s) / len(p99s) if p99s else float('nan'))
        results.setdefault(policy['name'], []).append(row)
        for s in series:
            if s['newRequests'] and s.get('clientP99Seconds') is not None:
                per_second.setdefault(policy['name'], {}).setdefault(s['t'], []).append(
                    (s['attempts'] / s['newRequests'], s['clientP99Seconds']))


def show(values, fmt):
    return f"{fmt.format(st.mean(values))} [{fmt.format(min(values))}-{fmt.format(max(values))}]"


print(f"{scenario}: offered {offered:g}/s, {seeds} seeds (1-{seeds}); mean [range over seeds]")
width = max(len(p) for p in results)
for a, b in windows:
    print(f"\nwindow {a}-{b}s")
    print(f"{'policy':{width}s}  {'goodput/s':>20s}  {'of offered':>10s}  {'attempts/request':>20s}  "
          f"{'mean per-second p99':>24s}")
    for policy, rows in results.items():
        g = [r[(a, b)][0] for r in rows]
        print(f"{policy:{width}s}  {show(g, '{:.1f}'):>20s}  {st.mean(g) / offered * 100:9.1f}%  "
              f"{show([r[(a, b)][1] for r in rows], '{:.3f}'):>20s}  "
              f"{show([r[(a, b)][2] * 1000 for r in rows], '{:.0f}') + ' ms':>24s}")
print(f"\nwhole run")
print(f"{'policy':{width}s}  {'p99 of successes':>24s}  {'success %':>18s}  {'attempts/request':>20s}")
for policy, rows in results.items():
    print(f"{policy:{width}s}  {show([r['p99'] * 1000 for r in rows], '{:.0f}') + ' ms':>24s}  "
          f"{show([r['success'] * 100 for r in rows], '{:.1f}'):>18s}  {show([r['amplification'] for r in rows], '{:.3f}'):>20s}")


def chart(path):
    """Two line panels (attempts per request; p99 in ms, log scale), one line per policy, in plain SVG."""
    import math
    colors = ['#d62728', '#1f77b4', '#2ca02c', '#9467bd', '#ff7f0e']
    width, panel, left, top = 760, 220, 60, 30
    end = max(t for lines in per_second.values() for t in lines) + 1
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{2 * panel + 80}" '
           f'viewBox="0 0 {width} {2 * panel + 80}"><style>text{{font:11px sans-serif;fill:#444}}</style>'
           '<rect width="100%" height="100%" fill="white"/>']
    panels = [('Attempts per request started, mean over seeds', 0, 1.0, 2.0, lambda v: v, '{:.2f}'),
              ('Client p99 latency (ms, log scale), mean over seeds', 1, math.log10(100), math.log10(3000),
               lambda v: math.log10(v * 1000), None)]
    for index, (title, k, low, high, scale, fmt) in enumerate(panels):
        y0 = top + index * (panel + 30)
        out.append(f'<text x="{left}" y="{y0 - 8}">{title}</text>')
        ticks = [1.0, 1.25, 1.5, 1.75, 2.0] if fmt else [100, 200, 500, 1000, 2000]
        for tick in ticks:
            y = y0 + panel - (scale(tick / 1000 if not fmt else tick) - low) / (high - low) * panel
            out.append(f'<line x1="{left}" x2="{width - 10}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>'
                       f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end">{fmt.format(tick) if fmt else tick}</text>')
        for t in range(0, end + 1, 30):
            x = left + t / end * (width - 10 - left)
            out.append(f'<text x="{x:.1f}" y="{y0 + panel + 14}" text-anchor="middle">{t}s</text>')
        for i, (policy, lines) in enumerate(per_second.items()):
            points = []
            for t in sorted(lines):
                value = scale(st.mean(v[k] for v in lines[t]))
                y = y0 + panel - (min(high, max(low, value)) - low) / (high - low) * panel
                points.append(f'{left + t / end * (width - 10 - left):.1f},{y:.1f}')
            out.append(f'<polyline fill="none" stroke="{colors[i % len(colors)]}" stroke-width="1.5" '
                       f'points="{" ".join(points)}"/>')
            if index == 0:
                out.append(f'<text x="{left + 10 + i * 230}" y="{2 * panel + 75}" style="fill:{colors[i % len(colors)]}">'
                           f'— {policy}</text>')
    out.append('</svg>\n')
    with open(path, 'w') as f:
        f.write(''.join(out))


if os.environ.get('CHART'):
    chart(os.environ['CHART'])
