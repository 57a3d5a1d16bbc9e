package dev.backoff.cli;

import dev.backoff.lab.LabDemo;
import dev.backoff.lab.LabReport;
import dev.backoff.lab.LabSummary;
import dev.backoff.sim.PolicyResult;
import dev.backoff.sim.Scenario;
import dev.backoff.sim.SimulationResult;
import dev.backoff.sim.Simulator;
import dev.backoff.sim.Summary;
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

/** {@code backoff lab demo}: seed 003's experiment in one command, live and simulated side by side. */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Seed 003's experiment, live on 127.0.0.1 and simulated, one policy after another.",
        "For each policy: start a server and a client fleet, run steady, pause the server (like SIGSTOP), "
            + "resume it, and report whether it recovered, next to what the simulator predicts for the same "
            + "parameters. A run stops early when the server holds --max-connections requests: that is a storm.",
        "Defaults are the seed's (1000 clients, think 10s, timeout 2s, knee 30/1.05/15, 100ms) with a 30 s "
            + "pause: about two minutes for fixed and exponential."})
final class LabDemoCommand implements Callable<Integer> {
  enum Format { table, json }

  @Spec
  CommandSpec spec;

  @Option(names = "--policies", paramLabel = "NAME", split = ",",
      description = "Policies to compare, in order. Default fixed,exponential (seed 003's two clients).")
  List<String> policies = new ArrayList<>(List.of("fixed", "exponential"));

  @Option(names = "--pause", paramLabel = "D", converter = DurationConverter.class,
      description = "How long the server stays paused. Default 30s.")
  Duration pause = Duration.ofSeconds(30);

  @Option(names = "--warmup", paramLabel = "D", converter = DurationConverter.class,
      description = "Steady time before the pause. Default 10s.")
  Duration warmup = Duration.ofSeconds(10);

  @Option(names = "--after", paramLabel = "D", converter = DurationConverter.class,
      description = "Time watched after the resume. Default 30s.")
  Duration after = Duration.ofSeconds(30);

  @Option(names = "--clients", paramLabel = "N", description = "Clients per run. Default 1000.")
  int clients = 1000;

  @Option(names = "--think", paramLabel = "D", converter = DurationConverter.class,
      description = "Mean think time. Default 10s.")
  Duration think = Duration.ofSeconds(10);

  @Option(names = "--timeout", paramLabel = "D", converter = DurationConverter.class,
      description = "Timeout of each attempt. Default 2s.")
  Duration timeout = Duration.ofSeconds(2);

  @Mixin
  LabModelOptions model = new LabModelOptions();

  @Option(names = "--max-connections", paramLabel = "N",
      description = "Requests a server may hold; reaching it ends that run as a storm. Default 4000.")
  int maxConnections = 4000;

  @Option(names = "--no-simulation", description = "Skip the simulator's prediction.")
  boolean noSimulation;

  @Option(names = "--format", paramLabel = "FORMAT",
      description = "Result format: ${COMPLETION-CANDIDATES}. Progress always goes to stderr. Default table.")
  Format format = Format.table;

  @Override
  public Integer call() throws Exception {
    LabCommand.withoutUnsafeOnNewerJdks();
    LabDemo demo;
    try {
      demo = LabDemo.builder().clients(clients).think(think).timeout(timeout).warmup(warmup).pause(pause)
          .after(after).latency(model.latency()).backlog(model.backlog).maxConnections(maxConnections)
          .policies(policies).build();
    } catch (IllegalArgumentException e) {
      String message = e.getMessage();
      throw new Errors.UsageException(message.startsWith("unknown policy") ? "--policies: " + message
          : message.startsWith("maxConnections") ? "--max-connections" + message.substring("maxConnections".length())
          : LabClientCommand.flagMessage(message).replaceFirst("^(warmup|pause|after) ", "--$1 "));
    }
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

    Prediction(Summary summary, String missing) {
      this.summary = summary;
      this.missing = missing;
    }
  }

  static Map<String, Prediction> predict(LabDemo demo, PrintWriter err) {
    Map<String, Prediction> predictions = new LinkedHashMap<>();
    long seconds = demo.warmup().toSeconds() + demo.pause().toSeconds() + demo.after().toSeconds();
    for (String policy : demo.policies()) {
      Map<String, Object> values = new LinkedHashMap<>();
      values.put("clients", (long) demo.clients());
      values.put("think-mean", demo.think().toMillis() + "ms");
      values.put("timeout", demo.timeout().toMillis() + "ms");
      values.put("base-latency", demo.latency().base().toNanos() + "ns");
      values.put("knee-limit", (long) demo.latency().limit());
      values.put("knee-factor", demo.latency().factor());
      values.put("knee-k", demo.latency().k());
      values.put("recheck", "50ms");
      values.put("backlog", (long) demo.backlog());
      values.put("duration", seconds + "s");
      values.put("faults", List.of("pause@" + demo.warmup().toSeconds() + "s+" + demo.pause().toSeconds() + "s"));
      values.put("policies", List.of(policy));
      try {
        SimulationResult result = Simulator.run(Scenario.of(values));
        PolicyResult only = result.policies().get(0);
        predictions.put(policy, new Prediction(only.summary(), null));
      } catch (IllegalArgumentException e) {
        predictions.put(policy, new Prediction(null, "the simulator cannot run it: " + e.getMessage()));
      }
    }
    err.println("simulator predictions ready (" + predictions.size() + " policies, " + seconds + " s each)");
    return predictions;
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
      String simulated = prediction == null ? "not run"
          : prediction.summary == null ? "n/a"
          : verdict(prediction.summary.recovered(), prediction.summary.recoverySeconds()) + ", "
              + prediction.summary.peakConcurrency();
      text.append(String.format(Locale.ROOT, row, result.policy(),
          verdict(live.recovered(), live.recoverySeconds()),
          live.peakConcurrency() < 0 ? "?" : Integer.toString(live.peakConcurrency()),
          String.format(Locale.ROOT, "%.1f → %.1f req/s", live.baselineGoodput(), live.goodputAfterFault()),
          String.format(Locale.ROOT, "%.2f", live.amplification()),
          String.format(Locale.ROOT, "%.3f", live.successRatio()), simulated));
      if (result.stoppedEarly() != null) {
        notes.add(result.policy() + ": stopped early, " + result.stoppedEarly());
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

  private static String verdict(Boolean recovered, Integer seconds) {
    if (recovered == null) {
      return "n/a";
    }
    return recovered ? "yes, after " + seconds + " s" : "no";
  }

  static String json(LabDemo demo, List<LabDemo.Result> results, Map<String, Prediction> predictions) {
    StringBuilder json = new StringBuilder("{\"settings\":{");
    json.append("\"clients\":").append(demo.clients())
        .append(",\"thinkSeconds\":").append(seconds(demo.think()))
        .append(",\"timeoutSeconds\":").append(seconds(demo.timeout()))
        .append(",\"warmupSeconds\":").append(seconds(demo.warmup()))
        .append(",\"pauseSeconds\":").append(seconds(demo.pause()))
        .append(",\"afterSeconds\":").append(seconds(demo.after()))
        .append(",\"latency\":").append(LabReport.quote(demo.latency().toString()))
        .append(",\"backlog\":").append(demo.backlog())
        .append(",\"maxConnections\":").append(demo.maxConnections())
        .append("},\"policies\":[");
    for (int i = 0; i < results.size(); i++) {
      LabDemo.Result result = results.get(i);
      Prediction prediction = predictions.get(result.policy());
      json.append(i == 0 ? "" : ",").append("{\"name\":").append(LabReport.quote(result.policy()))
          .append(",\"summary\":").append(result.summary().toJson())
          .append(",\"pausedAt\":").append(result.pausedAt())
          .append(",\"resumedAt\":").append(result.resumedAt())
          .append(",\"stoppedEarly\":")
          .append(result.stoppedEarly() == null ? "null" : LabReport.quote(result.stoppedEarly()))
          .append(",\"simulator\":").append(predictionJson(prediction))
          .append(",\"series\":").append(LabReport.seriesJson(result.samples())).append('}');
    }
    return json.append("]}").toString();
  }

  private static String predictionJson(Prediction prediction) {
    if (prediction == null || prediction.summary == null) {
      return "null";
    }
    Summary s = prediction.summary;
    return String.format(Locale.ROOT,
        "{\"baselineGoodput\":%.2f,\"recovered\":%s,\"recoverySeconds\":%s,\"peakConcurrency\":%d,"
            + "\"amplification\":%.3f,\"successRatio\":%.4f,\"goodputAfterFault\":%.2f}",
        s.baselineGoodput(), s.recovered(), s.recoverySeconds(), s.peakConcurrency(), s.amplification(),
        s.successRatio(), s.goodputAfterFault());
  }

  private static String seconds(Duration duration) {
    return java.math.BigDecimal.valueOf(duration.toNanos(), 9).stripTrailingZeros().toPlainString();
  }
}
