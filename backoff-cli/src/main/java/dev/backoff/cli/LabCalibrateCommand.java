package dev.backoff.cli;

import dev.backoff.lab.LabDemo;
import dev.backoff.lab.LabSummary;
import dev.backoff.sim.Json;
import dev.backoff.sim.PolicyResult;
import dev.backoff.sim.RecoveryVerdict;
import dev.backoff.sim.Scenario;
import dev.backoff.sim.Simulator;
import dev.backoff.sim.Stats;
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

/**
 * {@code backoff lab calibrate}: the lab's live verdict per policy next to the simulator's distribution of
 * verdicts over several seeds for the same scenario, and whether they agree.
 */
@Command(name = "calibrate", mixinStandardHelpOptions = true, sortOptions = false,
    modelTransformer = ScenarioKeyFlags.KneeAndFleet.class,
    description = {"Compare the live lab with the simulator: run each policy once live (as 'backoff lab demo' does) "
        + "and in the simulator over --seeds seeds of the same scenario, and print per policy the live verdict, "
        + "recovery time, peak concurrency and amplification next to the simulator's recovered fraction (with a "
        + "95%% Wilson interval) and medians.",
        "The two agree when the live outcome (came back or not) is one the simulator produces: the lower end "
            + "of the Wilson interval of the fraction of simulated runs with that outcome is at least 5%%. "
            + "About 70s of real time per policy; --no-live runs only the simulator."})
final class LabCalibrateCommand implements Callable<Integer> {
  enum Format { table, json }

  /** The lower bound of the live outcome's simulated fraction at or above which the two agree. */
  static final double AGREEMENT_FLOOR = 0.05;

  @Spec
  CommandSpec spec;

  @Option(names = "--policies", paramLabel = "<spec>", split = ",",
      description = "Policies to compare, in order. Default the simulator's four: storm-fixed, storm-exponential, "
          + "storm-exponential-full-jitter, storm-exponential-full-jitter+budget.")
  List<String> policies = new ArrayList<>(List.of("storm-fixed", "storm-exponential",
      "storm-exponential-full-jitter", "storm-exponential-full-jitter+budget"));

  @Option(names = "--seeds", paramLabel = "<count>",
      description = "Simulated runs per policy, with seeds 1 to this count (1 to 10000). Default 20.")
  int seeds = 20;

  @Option(names = "--pause-overflow", paramLabel = "reconnect|close|drop",
      description = "The simulator's model of the requests a paused server has no backlog room for: reconnect "
          + "(the lab: its server closes them at the resume and java.net.http sends those still waited for "
          + "again at once, outside the policy), close (a client still waiting sees an error and its policy "
          + "decides) or drop (the simulator's default: never answered, clients wait for their timeout). "
          + "Default reconnect.")
  String pauseOverflow = "reconnect";

  @Mixin
  LabRunOptions run = new LabRunOptions();

  @Option(names = "--no-live", description = "Skip the live runs: only the simulator's side of the table.")
  boolean noLive;

  @Option(names = "--format", paramLabel = "table|json",
      description = "Result format: ${COMPLETION-CANDIDATES}. Progress always goes to stderr. Default table.")
  Format format = Format.table;

  @Override
  public Integer call() throws Exception {
    if (seeds < 1 || seeds > 10_000) {
      throw new Errors.UsageException("--seeds must be between 1 and 10000, was " + seeds);
    }
    if (!List.of("reconnect", "close", "drop").contains(pauseOverflow)) {
      throw new Errors.UsageException("--pause-overflow must be reconnect, close or drop, was '" + pauseOverflow + "'");
    }
    LabCommand.withoutUnsafeOnNewerJdks();
    LabDemo demo = run.demo(spec, policies);
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Map<String, Simulated> simulated = simulate(demo, seeds, pauseOverflow, err);
    Map<String, Live> live = new LinkedHashMap<>();
    if (!noLive) {
      for (LabDemo.Result result : demo.run(line -> {
        err.println(line);
        err.flush();
      })) {
        live.put(result.policy(), Live.of(result));
      }
    }
    List<Row> rows = new ArrayList<>();
    for (String policy : demo.policies()) {
      rows.add(new Row(policy, live.get(policy), simulated.get(policy)));
    }
    out.println(format == Format.json ? json(demo, seeds, pauseOverflow, rows) : table(seeds, rows));
    out.flush();
    return 0;
  }

  /** The simulator's runs of every policy over seeds 1..count, for the demo's scenario. */
  static Map<String, Simulated> simulate(LabDemo demo, int count, String pauseOverflow, PrintWriter err) {
    Map<String, Simulated> simulated = new LinkedHashMap<>();
    for (String policy : demo.policies()) {
      List<Summary> runs = new ArrayList<>();
      List<Double> hedgesPerRequest = new ArrayList<>();
      String missing = null;
      for (int seed = 1; seed <= count && missing == null; seed++) {
        Map<String, Object> values = LabDemoCommand.scenarioValues(demo, policy);
        values.put("seed", (long) seed);
        values.put("pause-overflow", pauseOverflow);
        try {
          PolicyResult run = Simulator.run(Scenario.of(values)).policies().get(0);
          runs.add(run.summary());
          if (run.usesHedging()) {
            long requests = run.summary().logicalRequests();
            hedgesPerRequest.add(requests == 0 ? Double.NaN : (double) run.hedgesSent() / requests);
          }
        } catch (IllegalArgumentException e) {
          missing = "the simulator cannot run it: " + e.getMessage();
        }
      }
      simulated.put(policy, missing == null ? new Simulated(runs, null, hedgesPerRequest)
          : new Simulated(List.of(), missing));
    }
    err.println("simulator: " + count + (count == 1 ? " seed" : " seeds") + " of " + simulated.size()
        + (simulated.size() == 1 ? " policy" : " policies") + " done");
    err.flush();
    return simulated;
  }

  /** One live run's outcome, the fields the table needs. */
  record Live(RecoveryVerdict verdict, Integer recoverySeconds, int peakConcurrency, double amplification,
      String stoppedEarly, String seriesJson, double hedgesPerRequest) {
    Live(RecoveryVerdict verdict, Integer recoverySeconds, int peakConcurrency, double amplification, String stoppedEarly) {
      this(verdict, recoverySeconds, peakConcurrency, amplification, stoppedEarly, null, Double.NaN);
    }

    static Live of(LabDemo.Result result) {
      LabSummary s = result.summary();
      return new Live(s.verdict(), s.recoverySeconds(), s.peakConcurrency(), s.amplification(), result.stoppedEarly(),
          result.seriesJson(), s.hedgesPerRequest());
    }

    /**
     * True if it came back, false if not or if the run stopped early (the server held its maximum of
     * requests: a storm, whose delays are hours), null if the run cannot say.
     */
    Boolean cameBack() {
      if (stoppedEarly != null) {
        return Boolean.FALSE;
      }
      return verdict.cameBack() ? Boolean.TRUE : verdict == RecoveryVerdict.NOT_RECOVERED
          || verdict == RecoveryVerdict.CLIENTS_BACKING_OFF ? Boolean.FALSE : null;
    }
  }

  /**
   * The simulator's runs of one policy (empty, with the reason, if it cannot run the policy), and for a
   * hedging policy each run's hedges per logical request (empty otherwise).
   */
  record Simulated(List<Summary> runs, String missing, List<Double> hedgesPerRequest) {
    Simulated(List<Summary> runs, String missing) {
      this(runs, missing, List.of());
    }

    /** The median of the runs' hedges per logical request; NaN without hedging. */
    double medianHedgesPerRequest() {
      return hedgesPerRequest.isEmpty() ? Double.NaN : median(hedgesPerRequest);
    }

    int cameBack() {
      int count = 0;
      for (Summary run : runs) {
        if (run.verdict().cameBack()) {
          count++;
        }
      }
      return count;
    }

    /** Median seconds to recovery over the runs that came back; NaN if none did. */
    double medianRecoverySeconds() {
      List<Double> values = new ArrayList<>();
      for (Summary run : runs) {
        if (run.verdict().cameBack()) {
          values.add((double) run.recoverySeconds());
        }
      }
      return median(values);
    }

    double medianPeak() {
      List<Double> values = new ArrayList<>();
      for (Summary run : runs) {
        values.add((double) run.peakConcurrency());
      }
      return median(values);
    }

    double medianAmplification() {
      List<Double> values = new ArrayList<>();
      for (Summary run : runs) {
        values.add(run.amplification());
      }
      return median(values);
    }
  }

  /** One policy's line: its live run (null if not run), its simulated runs, and whether they agree. */
  record Row(String policy, Live live, Simulated simulated) {
    /** True or false when both sides have a verdict; null when either cannot say. */
    Boolean agree() {
      if (live == null || simulated == null || simulated.runs().isEmpty() || live.cameBack() == null) {
        return null;
      }
      int n = simulated.runs().size();
      int same = live.cameBack() ? simulated.cameBack() : n - simulated.cameBack();
      return Stats.wilson(same, n).lower() >= AGREEMENT_FLOOR;
    }
  }

  /** The median (Stats' order-statistic median, without its interval); NaN if there are no values. */
  static double median(List<Double> values) {
    return Stats.Sample.of(values.stream().mapToDouble(Double::doubleValue).toArray()).median().value();
  }

  static String table(int seeds, List<Row> rows) {
    int width = "policy".length();
    for (Row row : rows) {
      width = Math.max(width, row.policy().length());
    }
    String line = "%-" + width + "s  %-9s %6s %6s %6s  │ %-11s %-17s %6s %6s %6s  │ %s%n";
    StringBuilder text = new StringBuilder();
    text.append(String.format(Locale.ROOT, line, "policy", "live", "rec.", "peak", "ampl.",
        "simulated", "95% interval", "rec.", "peak", "ampl.", "agree"));
    List<String> notes = new ArrayList<>();
    for (Row row : rows) {
      Live live = row.live();
      Simulated sim = row.simulated();
      String liveVerdict = live == null ? "not run" : liveLabel(live);
      String liveRecovery = live == null || live.recoverySeconds() == null ? "-" : live.recoverySeconds() + "s";
      String livePeak = live == null || live.peakConcurrency() < 0 ? "-" : Integer.toString(live.peakConcurrency());
      String liveAmplification = live == null ? "-" : String.format(Locale.ROOT, "%.2f", live.amplification());
      String fraction = "n/a";
      String interval = "";
      String simRecovery = "-";
      String simPeak = "-";
      String simAmplification = "-";
      if (sim != null && !sim.runs().isEmpty()) {
        int n = sim.runs().size();
        Stats.Interval bounds = Stats.wilson(sim.cameBack(), n);
        fraction = sim.cameBack() + "/" + n;
        interval = String.format(Locale.ROOT, "%.2f [%.2f, %.2f]", (double) sim.cameBack() / n, bounds.lower(),
            bounds.upper());
        double recovery = sim.medianRecoverySeconds();
        simRecovery = Double.isNaN(recovery) ? "-" : number(recovery) + "s";
        simPeak = number(sim.medianPeak());
        simAmplification = String.format(Locale.ROOT, "%.2f", sim.medianAmplification());
      }
      Boolean agree = row.agree();
      text.append(String.format(Locale.ROOT, line, row.policy(), liveVerdict, liveRecovery, livePeak,
          liveAmplification, fraction, interval, simRecovery, simPeak, simAmplification,
          agree == null ? "-" : agree ? "yes" : "NO"));
      if (live != null && live.stoppedEarly() != null) {
        notes.add(row.policy() + ": live run stopped early, " + live.stoppedEarly());
      }
      double simHedges = sim == null ? Double.NaN : sim.medianHedgesPerRequest();
      if ((live != null && !Double.isNaN(live.hedgesPerRequest())) || !Double.isNaN(simHedges)) {
        notes.add(row.policy() + ": hedges per request live "
            + (live == null || Double.isNaN(live.hedgesPerRequest()) ? "-"
                : String.format(Locale.ROOT, "%.3f", live.hedgesPerRequest()))
            + ", simulated median " + (Double.isNaN(simHedges) ? "-" : String.format(Locale.ROOT, "%.3f", simHedges))
            + " (counted alike: attempts a call started alongside one in flight; amplification includes them)");
      }
      if (sim != null && sim.missing() != null) {
        notes.add(row.policy() + ": no simulated runs, " + sim.missing());
      }
    }
    text.append("live: one run, came back or not (a run stopped early as a storm did not), seconds from the resume to recovery, peak concurrency, attempts per "
        + "request; simulated: runs that came back of " + seeds + (seeds == 1 ? " seed" : " seeds") + " with the 95% Wilson interval, medians. "
        + "They agree when the simulated runs with the live outcome have a Wilson lower bound of at least 5%.")
        .append(System.lineSeparator());
    for (String note : notes) {
      text.append(note).append(System.lineSeparator());
    }
    return text.toString().stripTrailing();
  }

  private static String liveLabel(Live live) {
    if (live.stoppedEarly() != null) {
      return "no, storm";
    }
    return switch (live.verdict()) {
      case RECOVERED, LATE -> "yes";
      case NOT_RECOVERED -> "no";
      default -> live.verdict().label();
    };
  }

  private static String number(double value) {
    return value == Math.rint(value) ? Long.toString((long) value) : String.format(Locale.ROOT, "%.1f", value);
  }

  static String json(LabDemo demo, int seeds, String pauseOverflow, List<Row> rows) {
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
        .field("seeds").number(seeds)
        .field("pauseOverflow").string(pauseOverflow)
        .endObject().field("policies").array();
    for (Row row : rows) {
      rowJson(json, row);
    }
    return json.endArray().endObject().toString();
  }

  static void rowJson(Json json, Row row) {
    json.object().field("name").string(row.policy()).field("live");
    Live live = row.live();
    if (live == null) {
      json.nullValue();
    } else {
      json.object().field("verdict").string(live.verdict().id())
          .field("cameBack").bool(live.cameBack())
          .field("recoverySeconds").number(live.recoverySeconds())
          .field("peakConcurrency").number(live.peakConcurrency())
          .field("amplification").decimal(live.amplification(), 3)
          .field("stoppedEarly").string(live.stoppedEarly());
      if (!Double.isNaN(live.hedgesPerRequest())) {
        json.field("hedgesPerRequest").decimal(live.hedgesPerRequest(), 4);
      }
      if (live.seriesJson() != null) {
        json.field("series").raw(live.seriesJson());
      }
      json.endObject();
    }
    json.field("simulator");
    Simulated sim = row.simulated();
    if (sim == null || sim.runs().isEmpty()) {
      json.nullValue();
    } else {
      int n = sim.runs().size();
      Stats.Interval bounds = Stats.wilson(sim.cameBack(), n);
      double recovery = sim.medianRecoverySeconds();
      json.object().field("runs").number(n)
          .field("cameBack").number(sim.cameBack())
          .field("fraction").decimal((double) sim.cameBack() / n, 4)
          .field("wilsonLow").decimal(bounds.lower(), 4)
          .field("wilsonHigh").decimal(bounds.upper(), 4)
          .field("medianRecoverySeconds");
      if (Double.isNaN(recovery)) {
        json.nullValue();
      } else {
        json.decimal(recovery, 1);
      }
      json.field("medianPeakConcurrency").decimal(sim.medianPeak(), 1)
          .field("medianAmplification").decimal(sim.medianAmplification(), 3);
      if (!sim.hedgesPerRequest().isEmpty()) {
        json.field("medianHedgesPerRequest").decimal(sim.medianHedgesPerRequest(), 4);
      }
      json
          .field("verdicts").array();
      for (Summary run : sim.runs()) {
        json.string(run.verdict().id());
      }
      json.endArray().endObject();
    }
    json.field("agree").bool(row.agree()).endObject();
  }

  private static String seconds(Duration duration) {
    return java.math.BigDecimal.valueOf(duration.toNanos(), 9).stripTrailingZeros().toPlainString();
  }
}
