#!/usr/bin/env bash
# Re-checks the advisor's pick for every shipped scenario on fresh seeds, the ones after its held-out seeds:
# runs `backoff advise` as docs/simulator.md's "Hold-out results for the shipped scenarios" does, takes the
# recommended policy (or, when nothing was shown to hold, the closest checked one), and runs the `simulate`
# commands the advisor prints for it, with the scenario as given and with the load 20% higher and lower, on
# FRESH (default 20) new seeds. Prints the markdown table of docs/simulator.md: per objective the value over
# the fresh seeds, its 95% interval (Wilson's for recovers, Student's t for a mean), the margin to the bound
# (relative to it) and the verdict (shown: the interval within the bound; fails: outside; not shown: across).
#
#   docs/scenarios/recheck-picks.sh            # about an hour on a busy 2-core machine
#   FRESH=40 docs/scenarios/recheck-picks.sh
#   ADVICE_DIR=/tmp/advice docs/scenarios/recheck-picks.sh   # keeps (and reuses) each scenario's advice
#   ONLY='throttling shedding-pool' docs/scenarios/recheck-picks.sh   # some of the scenarios only
# (concurrency-halving and concurrency-steady are throttling-halving and throttling-steady with other policies
# listed; the advisor replaces the policies, so their advice is the same and they are not repeated.)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
backoff="${BACKOFF:-$root/backoff}"
fresh="${FRESH:-20}"

echo "| scenario | policy | check | seeds | objectives over the fresh seeds: value [95% interval] margin, verdict |"
echo "|---|---|---|---|---|"
while read -r scenario objectives extra; do
  if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $scenario "* ]]; then
    continue
  fi
  # ADVICE_DIR keeps each scenario's advice (JSON) between runs of this script: delete a file to re-run it.
  saved="${ADVICE_DIR:-}/$scenario.json"
  if [ -n "${ADVICE_DIR:-}" ] && [ -s "$saved" ]; then
    advice="$(cat "$saved")"
  else
    # shellcheck disable=SC2086 # $extra is a list of flags
    advice="$("$backoff" advise --scenario "docs/scenarios/$scenario.yaml" --objective "$objectives" $extra \
      --format json 2>/dev/null || true)"
    if [ -n "${ADVICE_DIR:-}" ]; then
      printf '%s\n' "$advice" >"$saved"
    fi
  fi
  picked="$(jq -c '.checking.checked[0]' <<<"$advice")"
  if [ "$(jq -r '.recommended == null' <<<"$advice")" = true ]; then
    label="closest (none shown): $(jq -r '.policy' <<<"$picked")"
  else
    label="pick: $(jq -r '.policy' <<<"$picked")"
  fi
  label="$label$(jq -r 'if .maxAttempts == null then "" else ", \(.maxAttempts) attempts" end' <<<"$picked")"
  # Fresh: after every held-out seed any check ran (a mean objective's check can run more than .checking.seeds).
  first="$(jq -r '.checking.heldOutFirstSeed + ([.checking.seeds, .checking.checked[].checks[].runs] | max)' \
    <<<"$advice")"
  for check in "held-out" "$(jq -r '.checking.checks[1].name' <<<"$advice")" \
      "$(jq -r '.checking.checks[2].name' <<<"$advice")"; do
    mapfile -t words < <(jq -r --arg check "$check" --arg seed "$first" --arg seeds "$fresh" '
      [.simulateCommands[] | select(.check == $check) | .arguments][0] as $a
      | [range(0; $a | length)] | map(
          if $a[.] == "--seed" or $a[.] == "--seeds" then $a[.]
          elif . > 0 and $a[. - 1] == "--seed" then $seed
          elif . > 0 and $a[. - 1] == "--seeds" then $seeds
          else $a[.] end) | .[]' <<<"$picked")
    # The held-out command names --seed; one without it (no check keys) gets it here.
    if ! printf '%s\n' "${words[@]}" | grep -qx -- '--seed'; then
      words+=(--seed "$first")
    fi
    result="$("$backoff" simulate "${words[@]}" --format json)"
    cells="$(jq -r --arg objectives "$objectives" '
      .policies[0] as $p
      | def bound: if test("ms$") then (sub("ms$"; "") | tonumber / 1000)
          elif test("s$") then (sub("s$"; "") | tonumber) else tonumber end;
        def fixed($places): (if . < 0 then "-" else "" end) as $sign | (fabs * pow(10; $places) | round) as $n
          | ($n | tostring) as $digits
          | ("0" * ([$places + 1 - ($digits | length), 0] | max) + $digits) as $padded
          | $sign + $padded[0:($padded | length) - $places]
            + (if $places > 0 then "." + $padded[($padded | length) - $places:] else "" end);
        def pct: . * 100 | fixed(1) + "%";
        def num: fixed(2);
        def secs: if . < 1 then (. * 1000 | fixed(0)) + "ms" else fixed(2) + "s" end;
      [$objectives | split(",")[] | capture("^(?<metric>[a-z0-9-]+)(?<op>[<>]=?)(?<value>.+)$")
       | .metric as $m | (.value | bound) as $t | (.op | startswith(">")) as $higher
       | (if $m == "recovers" then {value: $p.recovered.share, low: $p.recovered.lower, high: $p.recovered.upper,
            text: "\($p.recovered.count)/\($p.runs)", show: "pct"}
          else ({"success-ratio": "successRatio", "amplification": "amplification",
              "p99": "p99SuccessLatencySeconds", "recovery-time": "recoverySeconds",
              "peak-concurrency": "peakConcurrency"}[$m]) as $key
            | $p.metrics[$key].mean | {value: .value, low: (.lower // -1e300), high: (.upper // 1e300),
              show: ({"success-ratio": "pct", "p99": "secs", "recovery-time": "secs"}[$m] // "num")}
          end) as $v
       | (((if $higher then ($v.value - $t) else ($t - $v.value) end)) / (if $t > 0 then $t else 1 end)) as $margin
       | (if $higher then [$v.low, $v.high] else [$v.high, $v.low] end) as [$far, $near]
       | (if $higher then ($far >= $t) else ($far <= $t) end) as $shown
       | (if $higher then ($near >= $t) else ($near <= $t) end) as $across
       | def show(x): if $v.show == "pct" then (x | pct) elif $v.show == "secs" then (x | secs) else (x | num) end;
         "\($m) " + ($v.text // show($v.value))
         + " [" + show([$v.low, 0] | max) + "-" + show($v.high) + "] "
         + (if $margin >= 0 then "+" else "" end) + ($margin | pct) + ", "
         + (if $shown then "shown" elif $across then "not shown" else "**fails**" end)]
      | join("; ")' <<<"$result")"
    echo "| $scenario | $label | $check | $first..$((first + fresh - 1)) | $cells |"
  done
done <<'EOF'
seed-003 recovers>=0.95,amplification<=1.3,p99<=10s --budget 320
dependency-down recovers>=0.95,amplification<=1.3 --seeds 3 --budget 192
throttling recovers>=0.95,amplification<=1.3 --seeds 3 --budget 192
throttling-halving recovers>=0.95,amplification<=1.3 --seeds 3 --budget 192
throttling-steady recovers>=0.95,amplification<=1.3 --seeds 3 --budget 192
concurrency-storm recovers>=0.95,amplification<=1.3 --seeds 3 --budget 192
shedding-pool recovers>=0.95,amplification<=1.3 --seeds 3 --budget 192
hedging-tail success-ratio>=0.99,p99<=1s --seeds 3 --budget 192
hedging-overload success-ratio>=0.99,p99<=1s --seeds 3 --budget 192
hedging-adaptive success-ratio>=0.99,p99<=1s --seeds 3 --budget 192
hedging-adaptive-shift success-ratio>=0.99,p99<=1s --seeds 3 --budget 192
hedging-adaptive-overload success-ratio>=0.99,p99<=1s --seeds 3 --budget 192
EOF
