package dev.backoff.sim;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongConsumer;

/**
 * Every policy of a scenario over several seeds, with 95% intervals ({@link Stats}): the share of runs that
 * recovered (Wilson) and, for each {@link Metric}, the mean, median and p90 with their intervals. Seed
 * {@code i} (from 0) is the scenario's seed plus {@code i}, so one seed is the scenario's own run.
 *
 * <pre>{@code
 * Confidence confidence = Confidence.run(Scenario.defaults(), 20, Runs.defaultThreads(), null);
 * for (Confidence.PolicyStats p : confidence.policies()) {
 *   System.out.println(p.name() + " recovered in " + p.recoveredCount() + " of " + p.runs().size());
 * }
 * }</pre>
 *
 * Immutable and thread-safe; the same scenario and seed count give the same result for any thread count.
 */
public final class Confidence {
  private final Scenario scenario;
  private final int seeds;
  private final List<PolicyStats> policies;

  private Confidence(Scenario scenario, int seeds, List<PolicyStats> policies) {
    this.scenario = scenario;
    this.seeds = seeds;
    this.policies = List.copyOf(policies);
  }

  /**
   * Runs every policy of {@code scenario} over {@code seeds} seeds on {@code threads} threads.
   *
   * @param progress simulated seconds completed over all runs (see {@link Runs#run}); may be null
   * @throws NullPointerException if {@code scenario} is null
   * @throws ScenarioException naming {@code seeds} if it is less than 1 or the seeds would overflow, or if the
   *     runs could need more heap than this JVM has
   * @throws IllegalArgumentException naming {@code threads} if it is less than 1
   * @throws InterruptedException if interrupted; every run is stopped first
   */
  public static Confidence run(Scenario scenario, int seeds, int threads, LongConsumer progress)
      throws InterruptedException {
    List<Runs.Task> tasks = Runs.seeds(scenario, seeds);
    List<Run> runs = Runs.summariesWithProtection(tasks, threads, progress);
    List<PolicyStats> policies = new ArrayList<>();
    int i = 0;
    for (PolicySpec spec : scenario.policies) {
      List<Summary> summaries = new ArrayList<>(seeds);
      List<ProtectionSummary> protection = new ArrayList<>(seeds);
      for (Run run : runs.subList(i, i + seeds)) {
        summaries.add(run.summary());
        protection.add(run.protection());
      }
      policies.add(new PolicyStats(spec.name, summaries, protection));
      i += seeds;
    }
    return new Confidence(scenario, seeds, policies);
  }

  /** One run's summary and its storm-protection numbers. */
  record Run(Summary summary, ProtectionSummary protection) {}

  /** The simulated seconds {@link #run} counts up to. */
  public static long totalSeconds(Scenario scenario, int seeds) {
    Runs.checkSeeds(scenario, seeds);
    return (long) scenario.seconds() * scenario.policies.size() * seeds;
  }

  /** From summaries in {@link Runs#seeds} order: by policy, then by seed. */
  static Confidence of(Scenario scenario, int seeds, List<Summary> summaries) {
    List<PolicyStats> policies = new ArrayList<>();
    int i = 0;
    for (PolicySpec spec : scenario.policies) {
      policies.add(new PolicyStats(spec.name, summaries.subList(i, i + seeds)));
      i += seeds;
    }
    return new Confidence(scenario, seeds, policies);
  }

  /** The scenario (its seed is the first seed). */
  public Scenario scenario() {
    return scenario;
  }

  /** How many seeds each policy ran with. */
  public int seeds() {
    return seeds;
  }

  /** The first seed: the scenario's. */
  public long firstSeed() {
    return scenario.seed;
  }

  /** The last seed: the first plus {@code seeds - 1}. */
  public long lastSeed() {
    return scenario.seed + seeds - 1;
  }

  /** One entry per policy, in scenario order. */
  public List<PolicyStats> policies() {
    return policies;
  }

  /** One policy over the seeds. Immutable and thread-safe. */
  public static final class PolicyStats {
    private final String name;
    private final List<Summary> runs;
    private final int recovered;
    private final Map<RecoveryVerdict, Integer> verdicts;
    private final Map<Metric, Stats.Sample> samples = new EnumMap<>(Metric.class);
    private final List<ProtectionSummary> protection;
    private final Map<WindowMetric, Stats.Sample> windowSamples = new EnumMap<>(WindowMetric.class);

    /**
     * The statistics of one policy's runs (such as {@link Runs#summaries} returns for its tasks), in seed order.
     *
     * @throws NullPointerException if {@code name}, {@code runs} or a run is null
     * @throws IllegalArgumentException if {@code runs} is empty
     */
    public static PolicyStats of(String name, List<Summary> runs) {
      Objects.requireNonNull(name, "name");
      if (runs.isEmpty()) {
        throw new IllegalArgumentException("runs must not be empty");
      }
      return new PolicyStats(name, runs);
    }

    PolicyStats(String name, List<Summary> runs) {
      this(name, runs, List.of());
    }

    /** With each run's storm-protection numbers, in the same order (or none). */
    PolicyStats(String name, List<Summary> runs, List<ProtectionSummary> protection) {
      this.name = name;
      this.protection = List.copyOf(protection);
      this.runs = List.copyOf(runs);
      Map<RecoveryVerdict, Integer> counts = new EnumMap<>(RecoveryVerdict.class);
      int count = 0;
      for (Summary run : runs) {
        counts.merge(run.verdict(), 1, Integer::sum);
        count += run.recovered() ? 1 : 0;
      }
      this.recovered = count;
      this.verdicts = Collections.unmodifiableMap(counts);
      for (Metric metric : Metric.values()) {
        double[] values = new double[runs.size()];
        for (int i = 0; i < values.length; i++) {
          values[i] = metric.of(runs.get(i));
        }
        samples.put(metric, Stats.Sample.of(values));
      }
      if (!this.protection.isEmpty()) {
        for (WindowMetric metric : WindowMetric.values()) {
          windowSamples.put(metric, Stats.Sample.of(values(metric)));
        }
      }
    }

    /** Each run's storm-protection numbers in seed order; empty when built from summaries alone. */
    List<ProtectionSummary> protection() {
      return protection;
    }

    /** A storm-protection number over the runs that have it; null when built from summaries alone. */
    Stats.Sample sample(WindowMetric metric) {
      return windowSamples.get(metric);
    }

    /** Each run's value of a storm-protection number, in seed order; NaN where a run has none. */
    double[] values(WindowMetric metric) {
      double[] values = new double[protection.size()];
      for (int i = 0; i < values.length; i++) {
        values[i] = metric.of(runs.get(i), protection.get(i));
      }
      return values;
    }

    /** The policy's name as given in the scenario. */
    public String name() {
      return name;
    }

    /** Each seed's summary, in seed order. */
    public List<Summary> runs() {
      return runs;
    }

    /** How many runs recovered ({@link RecoveryVerdict#RECOVERED}; a late recovery does not count). */
    public int recoveredCount() {
      return recovered;
    }

    /** The share of runs that recovered. */
    public double recoveredShare() {
      return (double) recovered / runs.size();
    }

    /** The Wilson 95% interval of the share that recovered. */
    public Stats.Interval recoveredInterval() {
      return Stats.wilson(recovered, runs.size());
    }

    /** How many runs ended with each verdict (only those that occurred), in {@link RecoveryVerdict} order. */
    public Map<RecoveryVerdict, Integer> verdicts() {
      return verdicts;
    }

    /**
     * The metric over the runs that have it (a run that did not come back has no recovery time; one without
     * successes no p99).
     *
     * @throws NullPointerException if {@code metric} is null
     */
    public Stats.Sample sample(Metric metric) {
      return Objects.requireNonNull(samples.get(Objects.requireNonNull(metric, "metric")));
    }

    /** Each run's value of the metric, in seed order; NaN where a run has none. */
    public double[] values(Metric metric) {
      double[] values = new double[runs.size()];
      for (int i = 0; i < values.length; i++) {
        values[i] = metric.of(runs.get(i));
      }
      return values;
    }
  }
}
