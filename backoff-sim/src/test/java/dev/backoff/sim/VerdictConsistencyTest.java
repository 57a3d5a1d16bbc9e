package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Over a generated set of edge configurations (servers overloaded before the fault, open and closed loop;
 * baselines too short; open-loop loads that step down, step up, ramp and spike; a fault at 0 s; no fault; a
 * run that ends too soon after the fault; a long pause after which the clients, still in long backoffs, offer
 * the idle server less than the baseline; healthy runs) and several seeds, every verdict follows from the
 * run's own per-second numbers: each is checked against a brute-force reading of the rule written here
 * independently of {@link RecoveryRule}, and each configuration gets the verdicts it must get (the issue's
 * cases: never {@code yes} on a server that was overloaded all along, never {@code NO} on a load that steps
 * down at 100% success or on a one-second baseline). Runs are short in virtual time; the whole set takes a
 * few seconds, so it is tagged slow.
 */
@Tag("slow")
class VerdictConsistencyTest {
  private static final Set<RecoveryVerdict> UNHEALTHY_BASELINE = EnumSet.of(RecoveryVerdict.DOWN_BEFORE_FAULT,
      RecoveryVerdict.OVERLOADED_BEFORE_FAULT);

  /** One edge configuration: the scenario's keys and the verdicts every policy and seed may get. */
  private record Edge(String name, Map<String, Object> keys, Set<RecoveryVerdict> allowed) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static Map<String, Object> keys(Object... pairs) {
    Map<String, Object> keys = new LinkedHashMap<>();
    keys.put("policies", "aws-standard,storm-exponential-full-jitter+budget,exponential:100ms:2:5s");
    keys.put("max-attempts", 4L);
    keys.put("recovery-window", "5s");
    for (int i = 0; i < pairs.length; i += 2) {
      keys.put((String) pairs[i], pairs[i + 1]);
    }
    return keys;
  }

  private static Map<String, Object> closed(Object... pairs) {
    List<Object> all = new ArrayList<>(List.of("clients", 200L, "think-mean", "2s"));
    all.addAll(List.of(pairs));
    return keys(all.toArray());
  }

  private static Map<String, Object> open(Object... pairs) {
    List<Object> all = new ArrayList<>(List.of("client", "open", "rate", 100.0));
    all.addAll(List.of(pairs));
    return keys(all.toArray());
  }

  static List<Edge> edges() {
    Set<RecoveryVerdict> judged = EnumSet.of(RecoveryVerdict.RECOVERED, RecoveryVerdict.LATE, RecoveryVerdict.NOT_RECOVERED);
    return List.of(
        // The open-loop case, scaled down: 100/s at a one-worker pool that serves 10/s.
        new Edge("open loop at 10x a pool's capacity", open("server", "pool", "workers", 1L, "queue-size", 10L,
            "duration", "60s", "faults", "pause@20s+3s"), UNHEALTHY_BASELINE),
        // Closed loop at 5x capacity: 200 clients, 100/s offered, a two-worker pool that serves 20/s.
        new Edge("closed loop at 5x a pool's capacity", closed("server", "pool", "workers", 2L, "queue-size",
            20L, "duration", "60s", "faults", "pause@20s+3s"), UNHEALTHY_BASELINE),
        new Edge("fault at 2 s (1 s of baseline)", closed("duration", "60s", "faults", "pause@2s+5s"),
            EnumSet.of(RecoveryVerdict.SHORT_BASELINE)),
        new Edge("fault at 8 s (4 s of baseline)", closed("duration", "60s", "faults", "pause@8s+5s"),
            EnumSet.of(RecoveryVerdict.SHORT_BASELINE)),
        new Edge("fault at 10 s (5 s of baseline)", closed("duration", "80s", "faults", "pause@10s+5s"), judged),
        new Edge("fault at 0 s", closed("duration", "60s", "faults", "pause@0s+5s"),
            EnumSet.of(RecoveryVerdict.NO_BASELINE)),
        new Edge("no fault", closed("duration", "40s", "faults", "none"), EnumSet.of(RecoveryVerdict.NO_FAULT)),
        new Edge("run ends 3 s after the fault", closed("duration", "33s", "faults", "pause@20s+10s"),
            EnumSet.of(RecoveryVerdict.NOT_OBSERVED)),
        new Edge("open-loop step down, no fault", open("rate-profile", "step", "rate-peak", 1.0, "rate-at", "30s",
            "duration", "60s", "faults", "none"), EnumSet.of(RecoveryVerdict.LOAD_CHANGED)),
        new Edge("open-loop step up past capacity", open("server", "pool", "workers", 20L, "rate-profile", "step",
            "rate-peak", 300.0, "rate-at", "30s", "duration", "60s", "faults", "none"),
            EnumSet.of(RecoveryVerdict.LOAD_CHANGED)),
        new Edge("open-loop ramp and a pause", open("rate-profile", "ramp", "rate-peak", 50.0, "rate-at", "30s",
            "rate-length", "10s", "duration", "80s", "faults", "pause@20s+3s"), EnumSet.of(RecoveryVerdict.LOAD_CHANGED)),
        new Edge("open-loop spike, no fault", open("rate-profile", "spike", "rate-peak", 300.0, "rate-at", "30s",
            "rate-length", "5s", "duration", "80s", "faults", "none"), judged),
        new Edge("open-loop spike that outlasts the run", open("rate-profile", "spike", "rate-peak", 150.0,
            "rate-at", "50s", "rate-length", "30s", "duration", "60s", "faults", "none"),
            EnumSet.of(RecoveryVerdict.NOT_OBSERVED)),
        new Edge("closed loop, a pause, healthy", closed("duration", "90s", "faults", "pause@20s+5s"), judged),
        new Edge("open loop, a crash, healthy", open("duration", "90s", "faults", "crash@20s+5s"), judged),
        // A long pause with retries without limit: after it the server answers every attempt at once, but the
        // clients are in backoffs of up to the cap, so the load offered to it stays below the baseline.
        new Edge("closed loop, a long pause, clients in long backoffs", closed("policies",
            "storm-exponential-full-jitter,storm-exponential", "max-attempts", "own", "duration", "200s",
            "faults", "pause@20s+120s"), EnumSet.of(RecoveryVerdict.CLIENTS_BACKING_OFF)));
  }

  static Stream<Arguments> runs() {
    return edges().stream().flatMap(edge -> Stream.of(1L, 2L, 3L).map(seed -> Arguments.of(edge, seed)));
  }

  @ParameterizedTest(name = "{0}, seed {1}")
  @MethodSource("runs")
  void everyVerdictFollowsFromTheNumbers(Edge edge, long seed) {
    Map<String, Object> keys = new LinkedHashMap<>(edge.keys());
    keys.put("seed", seed);
    Scenario scenario = Scenario.of(keys);
    for (PolicyResult policy : Simulator.run(scenario).policies()) {
      Summary summary = policy.summary();
      String run = edge + ", " + policy.name() + ", seed " + seed + ": " + summary.verdict() + " ("
          + summary.reason() + ")";
      assertThat(edge.allowed()).as(run).contains(summary.verdict());
      checkAgainstTheSeries(scenario, policy.series(), summary, run);
    }
  }

  static Stream<Arguments> shippedScenarioRuns() {
    long seeds = Long.getLong("verdicts.seeds", 2);
    return Stream.of("seed-003", "shedding-pool", "dependency-down", "throttling", "hedging-tail",
        "hedging-overload").flatMap(file -> java.util.stream.LongStream.rangeClosed(1, seeds)
        .mapToObj(seed -> Arguments.of(file, seed)));
  }

  /**
   * The same check on every scenario in docs/scenarios, over seeds 1 to {@code verdicts.seeds} (2 by default;
   * {@code -Dverdicts.seeds=20} for the 20).
   */
  @ParameterizedTest(name = "{0}, seed {1}")
  @MethodSource("shippedScenarioRuns")
  void everyShippedScenariosVerdictFollowsFromItsNumbers(String file, long seed) throws Exception {
    Map<String, Object> keys = new LinkedHashMap<>(ScenarioFiles.readMap(
        java.nio.file.Path.of("..", "docs", "scenarios", file + ".yaml")));
    keys.put("seed", seed);
    Scenario scenario = Scenario.of(keys);
    for (PolicyResult policy : Simulator.run(scenario).policies()) {
      Summary summary = policy.summary();
      checkAgainstTheSeries(scenario, policy.series(), summary, file + ", " + policy.name() + ", seed " + seed
          + ": " + summary.verdict() + " (" + summary.reason() + ")");
    }
  }

  /** The rule, read directly off the per-second numbers (brute force, no shared code with the rule). */
  private static void checkAgainstTheSeries(Scenario scenario, List<Second> series, Summary s, String run) {
    assertThat(s.reason()).as(run).isNotBlank();
    RecoveryVerdict verdict = s.verdict();
    long start = scenario.disturbanceStartNanos();
    if (start == Long.MAX_VALUE) {
      assertThat(verdict).as(run).isEqualTo(RecoveryVerdict.NO_FAULT);
      return;
    }
    assertThat(verdict).as(run).isNotEqualTo(RecoveryVerdict.NO_FAULT);
    int faultStart = (int) (start / 1_000_000_000L);
    int faultEnd = (int) Math.min(series.size(), (scenario.disturbanceEndNanos() + 999_999_999L) / 1_000_000_000L);
    int from = faultStart / 2;
    long successes = 0;
    long offered = 0;
    long failed = 0;
    long attempts = 0;
    double latency = 0;
    for (Second second : series.subList(from, faultStart)) {
      successes += second.goodput();
      offered += second.newRequests();
      failed += second.errors() + second.timeouts();
      attempts += second.attempts();
      latency += second.latencySeconds();
    }
    boolean shortBaseline = faultStart - from < 5;
    boolean healthy = successes >= 0.9 * offered && failed <= successes && successes > 0;
    boolean loadChanged = !scenario.closedLoop && scenario.rateProfile.rate != scenario.rateProfile.peak
        && scenario.rateProfile.shape != RateProfile.Shape.SPIKE && scenario.rateProfile.hasDisturbance();
    if (faultStart == 0) {
      assertThat(verdict).as(run).isEqualTo(RecoveryVerdict.NO_BASELINE);
      return;
    }
    assertThat(verdict == RecoveryVerdict.SHORT_BASELINE).as(run).isEqualTo(shortBaseline);
    if (shortBaseline) {
      return;
    }
    assertThat(verdict == RecoveryVerdict.NO_BASELINE).as(run).isEqualTo(offered == 0 && attempts == 0);
    if (offered == 0 && attempts == 0) {
      return;
    }
    // Never a judgement of recovery against a baseline that was not healthy: the "yes at 0.9% success".
    assertThat(UNHEALTHY_BASELINE.contains(verdict)).as(run).isEqualTo(!healthy);
    assertThat(verdict == RecoveryVerdict.DOWN_BEFORE_FAULT).as(run).isEqualTo(successes == 0);
    if (!healthy) {
      return;
    }
    assertThat(verdict == RecoveryVerdict.LOAD_CHANGED).as(run).isEqualTo(loadChanged);
    if (loadChanged) {
      return;
    }
    int seconds = series.size();
    double baseline = (double) successes / (faultStart - from);
    assertThat(s.baselineGoodput()).as(run).isCloseTo(baseline, org.assertj.core.data.Offset.offset(1e-9));
    int window = (int) Math.max(scenario.recoveryWindowNanos / 1_000_000_000L, Math.ceil(1600 / baseline));
    if (seconds - faultEnd < window) {
      assertThat(verdict).as(run).isEqualTo(RecoveryVerdict.NOT_OBSERVED);
      return;
    }
    int point = firstRecoveredSecond(series, faultEnd, window, baseline, latency / (faultStart - from));
    double after = series.subList(faultEnd, seconds).stream().mapToLong(Second::goodput).sum()
        / (double) (seconds - faultEnd);
    if (point < 0) {
      // The clients, not the server, held goodput down if in the last window the server answered at least
      // 90% of the attempts, within twice its baseline latency, and the attempts were below 90% of baseline.
      long lastAttempts = 0;
      long lastFailed = 0;
      boolean fast = true;
      for (Second second : series.subList(seconds - window, seconds)) {
        lastAttempts += second.attempts();
        lastFailed += second.errors() + second.timeouts();
        fast &= second.latencySeconds() <= 2 * latency / (faultStart - from);
      }
      boolean clientsBackingOff = lastAttempts > 0 && lastAttempts - lastFailed >= 0.9 * lastAttempts && fast
          && lastAttempts < 0.9 * baseline * window;
      assertThat(verdict).as(run).isEqualTo(clientsBackingOff ? RecoveryVerdict.CLIENTS_BACKING_OFF
          : RecoveryVerdict.NOT_RECOVERED);
    } else {
      assertThat(verdict).as(run).isEqualTo(after >= 0.9 * baseline ? RecoveryVerdict.RECOVERED : RecoveryVerdict.LATE);
      assertThat(s.recoverySeconds()).as(run).isEqualTo(point - faultEnd);
    }
  }

  /**
   * The first second s at or after {@code from} (with a full window after it) such that s has at least 75%
   * of baseline, every window of {@code w} seconds starting at or after s averages at least 90% of it, and
   * the latency from s on stays within twice its baseline; -1 if none.
   */
  private static int firstRecoveredSecond(List<Second> series, int from, int w, double baseline,
      double baselineLatency) {
    int seconds = series.size();
    candidates:
    for (int s = from; s <= seconds - w; s++) {
      if (series.get(s).goodput() < 0.75 * baseline) {
        continue;
      }
      for (int t = s; t < seconds; t++) {
        if (series.get(t).latencySeconds() > 2 * baselineLatency) {
          continue candidates;
        }
      }
      for (int t = s; t <= seconds - w; t++) {
        long sum = 0;
        for (int u = t; u < t + w; u++) {
          sum += series.get(u).goodput();
        }
        if (sum < 0.9 * baseline * w) {
          continue candidates;
        }
      }
      return s;
    }
    return -1;
  }
}
