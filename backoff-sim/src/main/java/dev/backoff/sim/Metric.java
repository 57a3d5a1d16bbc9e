package dev.backoff.sim;

import java.util.Locale;

/**
 * A headline number of a run, as compared over seeds and plotted by sweeps: whether it recovered, the
 * recovery time, amplification, peak concurrency, success ratio and p99 latency of the successes. Each has a
 * command-line name ({@link #id()}), read by {@link #parse}.
 *
 * <p>Immutable and thread-safe.
 */
public enum Metric {
  /** 1 if the run recovered ({@link Summary#recovered()}), else 0; over runs, the share that recovered. */
  RECOVERED("recovered", "recovered", "recovered", "recovered", Unit.SHARE),
  /**
   * Seconds from the end of the disturbance to the recovery point, for runs that came back (recovered or
   * late); NaN (missing) for the others.
   */
  RECOVERY_TIME("recovery-time", "recoverySeconds", "recovery time", "recovery", Unit.SECONDS),
  /** Attempts per logical request. */
  AMPLIFICATION("amplification", "amplification", "amplification", "amplification", Unit.RATIO),
  /** The most requests the server held at once. */
  PEAK_CONCURRENCY("peak-concurrency", "peakConcurrency", "peak concurrency", "peak conc.", Unit.COUNT),
  /** Logical requests that succeeded per logical request started. */
  SUCCESS_RATIO("success", "successRatio", "success ratio", "success", Unit.SHARE),
  /** The 99th percentile latency (seconds) of the logical requests that succeeded; NaN if none did. */
  P99("p99", "p99SuccessLatencySeconds", "p99 of successes", "p99 (successes)", Unit.SECONDS);

  /** How a metric's values read. */
  enum Unit { SHARE, SECONDS, RATIO, COUNT }

  private final String id;
  private final String jsonName;
  private final String label;
  final String column;
  final Unit unit;

  Metric(String id, String jsonName, String label, String column, Unit unit) {
    this.id = id;
    this.column = column;
    this.jsonName = jsonName;
    this.label = label;
    this.unit = unit;
  }

  /** The command-line name: {@code recovered}, {@code recovery-time}, {@code amplification}, ... */
  public String id() {
    return id;
  }

  /** The name in JSON output, as in the single run's summary ({@code recoverySeconds}, ...). */
  public String jsonName() {
    return jsonName;
  }

  /** A short description for tables and charts ({@code recovery time}). */
  public String label() {
    return label;
  }

  /** This metric's value in one run's summary; NaN if the run has no such number. */
  public double of(Summary summary) {
    return switch (this) {
      case RECOVERED -> summary.recovered() ? 1 : 0;
      case RECOVERY_TIME -> summary.recoverySeconds() == null ? Double.NaN : summary.recoverySeconds();
      case AMPLIFICATION -> summary.amplification();
      case PEAK_CONCURRENCY -> summary.peakConcurrency();
      case SUCCESS_RATIO -> summary.successRatio();
      case P99 -> summary.p99SuccessLatencySeconds();
    };
  }

  /**
   * The metric with this command-line name (case-insensitive).
   *
   * @throws IllegalArgumentException naming the value and the names known
   */
  public static Metric parse(String name) {
    String wanted = String.valueOf(name).trim().toLowerCase(Locale.ROOT);
    for (Metric metric : values()) {
      if (metric.id.equals(wanted)) {
        return metric;
      }
    }
    throw new IllegalArgumentException("unknown metric '" + name + "'; use one of " + ids());
  }

  /** Every metric's command-line name, comma-separated. */
  public static String ids() {
    StringBuilder text = new StringBuilder();
    for (Metric metric : values()) {
      text.append(text.length() == 0 ? "" : ", ").append(metric.id);
    }
    return text.toString();
  }

  /** A value of this metric as the tables print it ({@code 12s}, {@code 1.14}, {@code 93.8%}); {@code -} for NaN. */
  String format(double value) {
    if (Double.isNaN(value)) {
      return "-";
    }
    if (Double.isInfinite(value)) {
      return value > 0 ? "\u221e" : "-\u221e";
    }
    return switch (unit) {
      case SHARE -> Values.format(100 * value, 1) + "%";
      // A mean's t interval can reach below 0 for skewed values: printed as it is, never cut off.
      case SECONDS -> (value < 0 ? "-" : "") + Values.human(Math.round(Math.abs(value) * 1e9));
      case RATIO -> Values.format(value, 2);
      case COUNT -> Values.format(value, Math.abs(value) >= 100 ? 0 : 1);
    };
  }
}
