package dev.backoff.sim;

import java.util.List;
import java.util.Objects;

/**
 * One candidate policy run against a scenario over several seeds: the runs' summaries, in seed order, and each
 * {@linkplain Objective.Metric metric} as the advisor judges it, with an interval. Immutable and thread-safe.
 */
public final class Evaluation {
  private final PolicyCandidate candidate;
  private final List<Summary> runs;
  private final double[] goodputs;
  private final double[] values = new double[Objective.Metric.values().length];
  private final Interval[] intervals = new Interval[values.length];

  /**
   * A range of a metric's plausible values, in its unit.
   *
   * @param low the lower end
   * @param high the upper end
   */
  public record Interval(double low, double high) {}

  /** An evaluation of runs without their storm-protection numbers: its {@code goodput} is NaN. */
  Evaluation(PolicyCandidate candidate, List<Summary> runs) {
    this(candidate, runs, null);
  }

  /** An evaluation of runs with their storm-protection numbers, for {@code goodput}. */
  static Evaluation of(PolicyCandidate candidate, List<Confidence.Run> runs) {
    double[] goodputs = new double[runs.size()];
    for (int i = 0; i < goodputs.length; i++) {
      goodputs[i] = WindowMetric.GOODPUT_OF_CAPACITY.of(runs.get(i).summary(), runs.get(i).protection());
    }
    return new Evaluation(candidate, runs.stream().map(Confidence.Run::summary).toList(), goodputs);
  }

  private Evaluation(PolicyCandidate candidate, List<Summary> runs, double[] goodputs) {
    this.candidate = Objects.requireNonNull(candidate, "candidate");
    this.runs = List.copyOf(runs);
    if (runs.isEmpty()) {
      throw new IllegalArgumentException("an evaluation needs at least one run");
    }
    // goodput needs a capacity: none without the protection numbers, or when no run's window has one.
    this.goodputs = goodputs == null || java.util.Arrays.stream(goodputs).allMatch(Double::isNaN) ? null : goodputs;
    for (Objective.Metric metric : Objective.Metric.values()) {
      double[] samples = samples(metric);
      int index = metric.ordinal();
      if (metric == Objective.Metric.RECOVERS) {
        int recovered = recoveredRuns();
        values[index] = (double) recovered / runs.size();
        Stats.Interval wilson = Stats.wilson(recovered, runs.size());
        intervals[index] = new Interval(wilson.lower(), wilson.upper());
      } else if (samples.length > 0 && Double.isNaN(samples[0])) {
        values[index] = Double.NaN; // goodput without a capacity
        intervals[index] = new Interval(Double.NaN, Double.NaN);
      } else {
        values[index] = mean(samples);
        if (Double.isInfinite(values[index])) {
          // A run without the number (no success, so no p99) is judged infinitely bad: no finite upper end.
          double lowest = java.util.Arrays.stream(samples).min().orElse(Double.NaN);
          intervals[index] = new Interval(lowest, Double.POSITIVE_INFINITY);
        } else {
          Stats.Estimate mean = Stats.Sample.of(samples).mean();
          intervals[index] = new Interval(mean.lower(), mean.upper());
        }
      }
    }
  }

  private static double mean(double[] samples) {
    if (samples.length == 0) {
      return Double.POSITIVE_INFINITY; // recovery-time when no run recovered
    }
    double sum = 0;
    for (double sample : samples) {
      sum += sample;
    }
    return sum / samples.length;
  }

  /** The per-seed values of a metric (recovery-time: only the seeds that recovered). */
  private double[] samples(Objective.Metric metric) {
    if (metric == Objective.Metric.GOODPUT) {
      double[] samples = new double[runs.size()];
      for (int i = 0; i < samples.length; i++) {
        samples[i] = goodputs == null ? Double.NaN : Double.isNaN(goodputs[i]) ? 0 : goodputs[i];
      }
      return samples;
    }
    return runs.stream().filter(s -> metric != Objective.Metric.RECOVERY_TIME || s.recovered())
        .mapToDouble(s -> switch (metric) {
          case RECOVERS -> s.recovered() ? 1 : 0;
          case SUCCESS_RATIO -> Double.isNaN(s.successRatio()) ? 0 : s.successRatio();
          case AMPLIFICATION -> Double.isNaN(s.amplification()) ? Double.POSITIVE_INFINITY : s.amplification();
          case P99 -> Double.isNaN(s.p99SuccessLatencySeconds()) ? Double.POSITIVE_INFINITY
              : s.p99SuccessLatencySeconds();
          case RECOVERY_TIME -> s.recoverySeconds();
          case PEAK_CONCURRENCY -> s.peakConcurrency();
          case GOODPUT -> throw new AssertionError(metric);
        }).toArray();
  }

  /** The policy evaluated. */
  public PolicyCandidate candidate() {
    return candidate;
  }

  /** The summaries of its runs, one per seed, in seed order. */
  public List<Summary> runs() {
    return runs;
  }

  /** How many of the runs recovered ({@link Summary#recovered()}). */
  public int recoveredRuns() {
    int recovered = 0;
    for (Summary run : runs) {
      recovered += run.recovered() ? 1 : 0;
    }
    return recovered;
  }

  /**
   * The metric as objectives judge it, in its unit (see {@link Objective.Metric}): the fraction of runs that
   * recovered, or the mean over the runs (recovery-time: over the runs that recovered; infinite if none did).
   */
  public double value(Objective.Metric metric) {
    return values[metric.ordinal()];
  }

  /**
   * A 95% interval for the metric ({@link Stats}): Wilson's score interval for the recovered fraction; for a
   * mean, Student's t interval over the runs (runs that all agree give a point, a single run the whole line;
   * a run without the number, such as p99 with no success, an infinite upper end).
   */
  public Interval interval(Objective.Metric metric) {
    return intervals[metric.ordinal()];
  }

  /** True if every objective is met by this evaluation's value. */
  public boolean meets(List<Objective> objectives) {
    for (Objective objective : objectives) {
      if (!objective.isMetBy(value(objective.metric()))) {
        return false;
      }
    }
    return true;
  }

  /**
   * True if the objective's 95% interval lies within its bound, not only the value: the interval's far end
   * meets the objective (for {@code recovers}, the lower end of Wilson's interval, so 5 of 5 seeds, [0.57,
   * 1.00], does not surely meet {@code recovers>=0.95}; for a mean, a single run, whose interval is unbounded,
   * never does).
   */
  public boolean surelyMeets(Objective objective) {
    Interval interval = interval(objective.metric());
    return objective.isMetBy(objective.metric().higherIsBetter() ? interval.low() : interval.high());
  }

  @Override
  public String toString() {
    return candidate.label();
  }
}
