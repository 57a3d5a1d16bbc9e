package dev.backoff.cli;

import dev.backoff.lab.LabDemo;
import dev.backoff.lab.LabSummary;
import dev.backoff.sim.Json;
import dev.backoff.sim.PolicyResult;
import dev.backoff.sim.Scenario;
import dev.backoff.sim.SimulationResult;
import dev.backoff.sim.Simulator;
import dev.backoff.sim.Summary;
import dev.backoff.spec.Durations;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code backoff lab demo}: the retry-storm experiment in one command, live and simulated side by side. */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
    modelTransformer = ScenarioKeyFlags.KneeAndFleet.class,
    description = {"Run the retry-storm experiment live on 127.0.0.1 and in the simulator, one policy after another.",
        "For each policy: start a server and a client fleet, run steady, pause the server (like SIGSTOP), "
            + "resume it, and report whether it recovered, next to what the simulator predicts for the same "
            + "parameters. A run stops early when the server holds --max-connections requests: that is a storm.",
        "Defaults are the experiment's (1000 clients, think-mean 10s, timeout 2s, knee 30/1.05/15, 100ms) with a "
            + "30s pause: about two minutes for storm-fixed and storm-exponential. The model flags are the "
            + "simulator's keys, with the same meaning."})
final class LabDemoCommand implements Callable<Integer> {
  enum Format { table, json }

  @Spec
  CommandSpec spec;

  @Option(names = "--policies", paramLabel = "<spec>", split = ",",
      description = "Policies to compare, in order (see 'backoff strategies'). Default storm-fixed,storm-exponential "
          + "(the experiment's two clients).")
  List<String> policies = new ArrayList<>(List.of("storm-fixed", "storm-exponential"));

  @Mixin
  LabRunOptions run = new LabRunOptions();

  @Option(names = "--no-simulation", description = "Skip the simulator's prediction.")
  boolean noSimulation;

  @Option(names = "--format", paramLabel = "table|json",
      description = "Result format: ${COMPLETION-CANDIDATES}. Progress always goes to stderr. Default table.")
  Format format = Format.table;

  @Override
  public Integer call() throws Exception {
    LabCommand.withoutUnsafeOnNewerJdks();
    LabDemo demo = run.demo(spec, policies);
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Map<String, Prediction> predictions = noSimulation ? Map.of() : predict(demo, err);
    List<LabDemo.Result> results = demo.run(line -> {
      err.println(line);
      err.flush();
    });
    out.println(format == Format.json ? json(demo, results, predictions) : table(results, predictions));
    out.flush();
    return 0;
  }

  /** What the simulator says for each policy, or why it says nothing. */
  static final class Prediction {
    final Summary summary;
    final String missing;
    final boolean hedging;
    final long hedgesSent;
    final long hedgesWon;

    Prediction(Summary summary, String missing) {
      this(summary, missing, false, 0, 0);
    }

    Prediction(Summary summary, String missing, boolean hedging, long hedgesSent, long hedgesWon) {
      this.summary = summary;
      this.missing = missing;
      this.hedging = hedging;
      this.hedgesSent = hedgesSent;
      this.hedgesWon = hedgesWon;
    }
  }

  static Map<String, Prediction> predict(LabDemo demo, PrintWriter err) {
    Map<String, Prediction> predictions = new LinkedHashMap<>();
    long seconds = demo.warmup().toSeconds() + demo.pause().toSeconds() + demo.after().toSeconds();
    for (String policy : demo.policies()) {
      Map<String, Object> values = scenarioValues(demo, policy);
      try {
        SimulationResult result = Simulator.run(Scenario.of(values));
        PolicyResult only = result.policies().get(0);
        predictions.put(policy, new Prediction(only.summary(), null, only.usesHedging(), only.hedgesSent(),
            only.hedgesWon()));
      } catch (IllegalArgumentException e) {
        predictions.put(policy, new Prediction(null, "the simulator cannot run it: " + e.getMessage()));
      }
    }
    err.println("simulator predictions ready (" + predictions.size() + (predictions.size() == 1 ? " policy, " : " policies, ") + seconds + "s each)");
    return predictions;
  }

  /**
   * The simulator's scenario for one policy of the demo: the demo's fleet, knee, backlog and timeline, the
   * live server's 50 ms re-check, and its pause model (requests beyond the backlog are closed at the resume,
   * and java.net.http sends those whose clients still wait again at once, outside the policy, with a fresh
   * timeout: {@code pause-overflow: reconnect}). A mutable map, so
   * that callers can add a seed.
   */
  static Map<String, Object> scenarioValues(LabDemo demo, String policy) {
    long seconds = demo.warmup().toSeconds() + demo.pause().toSeconds() + demo.after().toSeconds();
    Map<String, Object> values = new LinkedHashMap<>();
    values.put("clients", (long) demo.clients());
    values.put("think-mean", Durations.format(demo.think()));
    values.put("timeout", Durations.format(demo.timeout()));
    values.put("base-latency", Durations.format(demo.latency().base()));
    values.put("knee-limit", (long) demo.latency().limit());
    values.put("knee-factor", demo.latency().factor());
    values.put("knee-k", demo.latency().k());
    values.put("recheck", "50ms");
    values.put("backlog", (long) demo.backlog());
    values.put("pause-overflow", "reconnect");
    values.put("duration", seconds + "s");
    values.put("faults", List.of("pause@" + demo.warmup().toSeconds() + "s+" + demo.pause().toSeconds() + "s"));
    values.put("policies", List.of(policy));
    return values;
  }

  static String table(List<LabDemo.Result> results, Map<String, Prediction> predictions) {
    int width = "policy".length();
    for (LabDemo.Result result : results) {
      width = Math.max(width, result.policy().length());
    }
    String row = "%-" + width + "s  %-16s %9s %22s %8s %8s   %s%n";
    StringBuilder text = new StringBuilder();
    text.append(String.format(Locale.ROOT, row, "policy", "live: recovered",
        "peak conc", "goodput before→after", "attempts", "success", "simulator: recovered, peak conc"));
    List<String> notes = new ArrayList<>();
    for (LabDemo.Result result : results) {
      LabSummary live = result.summary();
      Prediction prediction = predictions.get(result.policy());
      String simulated = simulatedColumn(prediction);
      text.append(String.format(Locale.ROOT, row, result.policy(),
          verdict(live),
          live.peakConcurrency() < 0 ? "?" : Integer.toString(live.peakConcurrency()),
          String.format(Locale.ROOT, "%.1f → %.1f req/s", live.baselineGoodput(), live.goodputAfterFault()),
          String.format(Locale.ROOT, "%.2f", live.amplification()),
          String.format(Locale.ROOT, "%.3f", live.successRatio()), simulated));
      if (result.stoppedEarly() != null) {
        notes.add(result.policy() + ": stopped early, " + result.stoppedEarly());
      }
      if (live.hedging()) {
        notes.add(result.policy() + ": hedges " + live.hedgesSent() + " sent, " + live.hedgesWon() + " won, p99 "
            + p99(live.p99SuccessLatencySeconds())
            + (prediction == null || prediction.summary == null ? ""
                : "; simulator: hedges " + prediction.hedgesSent + " sent, " + prediction.hedgesWon + " won, p99 "
                    + p99(prediction.summary.p99SuccessLatencySeconds())));
      }
      if (prediction != null && prediction.missing != null) {
        notes.add(result.policy() + ": no simulator prediction, " + prediction.missing);
      }
    }
    for (String note : notes) {
      text.append(note).append(System.lineSeparator());
    }
    return text.toString().stripTrailing();
  }

  private static String p99(double seconds) {
    return Double.isNaN(seconds) ? "n/a" : Durations.formatTruncated(Math.round(seconds * 1e9));
  }

  /** The simulator's verdict in the live column's words: {@code yes, after 5s}, {@code no}, or why neither. */
  /** The table's last column: the simulator's verdict and peak concurrency for one policy. */
  static String simulatedColumn(Prediction prediction) {
    return prediction == null ? "not run"
        : prediction.summary == null ? "n/a"
        : simulated(prediction.summary) + ", " + prediction.summary.peakConcurrency();
  }

  private static String simulated(Summary summary) {
    return switch (summary.verdict()) {
      case RECOVERED -> "yes, after " + summary.recoverySeconds() + "s";
      case LATE -> "late, after " + summary.recoverySeconds() + "s";
      case NOT_RECOVERED -> "no";
      default -> summary.verdict().label();
    };
  }

  private static String verdict(LabSummary live) {
    return switch (live.verdict()) {
      case RECOVERED -> "yes, after " + live.recoverySeconds() + "s";
      case LATE -> "late, after " + live.recoverySeconds() + "s"; // as the simulator's column says it
      case NOT_RECOVERED -> "no";
      default -> live.verdict().label();
    };
  }

  static String json(LabDemo demo, List<LabDemo.Result> results, Map<String, Prediction> predictions) {
    Json json = Json.compact().object().field("settings").object()
        .field("clients").number(demo.clients())
        .field("thinkSeconds").numberText(seconds(demo.think()))
        .field("timeoutSeconds").numberText(seconds(demo.timeout()))
        .field("warmupSeconds").numberText(seconds(demo.warmup()))
        .field("pauseSeconds").numberText(seconds(demo.pause()))
        .field("afterSeconds").numberText(seconds(demo.after()))
        .field("latency").string(demo.latency().toString())
        .field("backlog").number(demo.backlog())
        .field("maxConnections").number(demo.maxConnections())
        .endObject().field("policies").array();
    for (LabDemo.Result result : results) {
      Prediction prediction = predictions.get(result.policy());
      json.object().field("name").string(result.policy())
          .field("summary").raw(result.summary().toJson())
          .field("pausedAt").number(result.pausedAt())
          .field("resumedAt").number(result.resumedAt())
          .field("stoppedEarly").string(result.stoppedEarly())
          .field("simulator");
      if (prediction == null || prediction.summary == null) {
        json.nullValue();
      } else {
        Summary s = prediction.summary;
        json.object().field("baselineGoodput").decimal(s.baselineGoodput(), 2)
            .field("recovered").bool(s.recovered())
            .field("verdict").string(s.verdict().id())
            .field("recoverySeconds").number(s.recoverySeconds())
            .field("peakConcurrency").number(s.peakConcurrency())
            .field("amplification").decimal(s.amplification(), 3)
            .field("successRatio").decimal(s.successRatio(), 4)
            .field("goodputAfterFault").decimal(s.goodputAfterFault(), 2)
            .field("p99SuccessLatencySeconds").decimal(s.p99SuccessLatencySeconds(), 6);
        if (prediction.hedging) {
          json.field("hedgesSent").number(prediction.hedgesSent).field("hedgesWon").number(prediction.hedgesWon);
        }
        json.endObject();
      }
      json.field("series").raw(result.seriesJson()).endObject();
    }
    return json.endArray().endObject().toString();
  }

  private static String seconds(Duration duration) {
    return java.math.BigDecimal.valueOf(duration.toNanos(), 9).stripTrailingZeros().toPlainString();
  }
}
