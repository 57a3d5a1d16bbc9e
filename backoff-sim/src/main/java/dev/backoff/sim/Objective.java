package dev.backoff.sim;

import dev.backoff.spec.Durations;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One objective of the {@linkplain Advisor policy advisor}: a metric, a bound and its direction, such as
 * {@code recovers>=0.95}, {@code amplification<=1.3} or {@code p99<=10s}. {@link #parseAll(String)} reads a
 * comma-separated list:
 *
 * <pre>
 * objectives := objective ("," objective)*
 * objective  := METRIC OPERATOR VALUE          (spaces allowed around each part)
 * OPERATOR   := "&gt;=" | "&gt;" for recovers, success-ratio and goodput; "&lt;=" | "&lt;" for the others
 * </pre>
 *
 * <p>The metrics, each judged over the seeds of a candidate (see {@link Metric}): {@code recovers} (fraction of
 * seeds whose run recovered; {@code 0.95} or {@code 95%}), {@code success-ratio} (mean share of requests that
 * succeeded; a fraction or percentage), {@code amplification} (mean attempts per request, a number),
 * {@code p99} (mean of the runs' p99 latency of successful requests, a duration), {@code recovery-time} (mean
 * time to recover, over the seeds that recovered, a duration), {@code peak-concurrency} (mean of the runs'
 * peak server concurrency, a whole number) and {@code goodput} (mean of the runs' successes per second against
 * the pool server's capacity in the disturbance's second half, the window and number of {@code simulate --seeds}'s
 * storm-protection block; a fraction or percentage; only for a scenario with that capacity, see
 * {@link Advisor#advise}). Durations use the one duration syntax ({@link Durations}:
 * {@code 10s}, {@code 1.5s}, {@code 500ms}; a bare number is refused). Each metric may appear once. An
 * objective's direction is the metric's good direction: {@code amplification>=1.3} is refused, since a lower
 * amplification is never worse.
 *
 * <p>Immutable and thread-safe.
 *
 * @param metric what is measured
 * @param strict true for {@code <} and {@code >}, false for {@code <=} and {@code >=}
 * @param threshold the bound, in the metric's unit: a fraction in [0, 1] for recovers, success-ratio and goodput, a
 *     number for amplification, seconds for p99 and recovery-time, requests for peak-concurrency
 * @param text the objective as written, spaces removed (for messages)
 */
public record Objective(Metric metric, boolean strict, double threshold, String text) {

  /** A metric the advisor can judge a candidate on, with its good direction and its unit. */
  public enum Metric {
    /** Fraction of the seeds whose run recovered ({@link RecoveryVerdict#RECOVERED}); higher is better. */
    RECOVERS("recovers", true, Unit.FRACTION),
    /** Mean over the seeds of the share of logical requests that succeeded; higher is better. */
    SUCCESS_RATIO("success-ratio", true, Unit.FRACTION),
    /**
     * Mean over the seeds of attempts per logical request (at least 1, unless a concurrency limit refuses
     * requests before their first attempt); lower is better.
     */
    AMPLIFICATION("amplification", false, Unit.NUMBER),
    /**
     * Mean over the seeds of the p99 latency of the successful requests, in seconds; a run without a success
     * counts as infinitely slow. Lower is better.
     */
    P99("p99", false, Unit.DURATION),
    /**
     * Mean time to recover, in seconds from the end of the disturbance, over the seeds that recovered
     * (whether a run recovers at all is {@link #RECOVERS}'s question); infinite if none did. Lower is better.
     */
    RECOVERY_TIME("recovery-time", false, Unit.DURATION),
    /** Mean over the seeds of the most requests the server held at once; lower is better. */
    PEAK_CONCURRENCY("peak-concurrency", false, Unit.COUNT),
    /**
     * Mean over the seeds of the successes per second against the server's capacity in the disturbance's second
     * half (the window of {@code simulate --seeds}'s storm-protection block, whose goodput/capacity it is); a
     * run whose window has no capacity counts as 0. Defined only for a pool server with a disturbance; higher
     * is better.
     */
    GOODPUT("goodput", true, Unit.FRACTION);

    private final String id;
    private final boolean higherIsBetter;
    private final Unit unit;

    Metric(String id, boolean higherIsBetter, Unit unit) {
      this.id = id;
      this.higherIsBetter = higherIsBetter;
      this.unit = unit;
    }

    /** The metric's name in objectives, tables and JSON, such as {@code recovery-time}. */
    public String id() {
      return id;
    }

    /** True if a higher value is better (recovers, success-ratio, goodput). */
    public boolean higherIsBetter() {
      return higherIsBetter;
    }

    /**
     * A value of this metric as a user writes it: a fraction as a percentage ({@code 95%}), a duration in
     * the duration syntax ({@code 1.5s}), a number with up to two decimals; {@code -} for NaN, {@code inf}
     * for an infinite value.
     */
    public String format(double value) {
      if (Double.isNaN(value)) {
        return "-";
      }
      if (Double.isInfinite(value)) {
        return value > 0 ? "inf" : "-inf";
      }
      return switch (unit) {
        case FRACTION -> Values.format(100 * value, 1) + "%";
        case NUMBER -> Values.format(value, 2);
        case DURATION -> Values.human(Math.round(value * 1e9));
        case COUNT -> Values.format(value, 0);
      };
    }

    /** Every metric's name, in documentation order. */
    public static List<String> ids() {
      List<String> ids = new ArrayList<>();
      for (Metric metric : values()) {
        ids.add(metric.id);
      }
      return ids;
    }

    static Metric byId(String id) {
      for (Metric metric : values()) {
        if (metric.id.equals(id)) {
          return metric;
        }
      }
      return null;
    }
  }

  private enum Unit { FRACTION, NUMBER, DURATION, COUNT }

  /** What the objectives look like, for hints. */
  public static final String EXAMPLE = "recovers>=0.95,amplification<=1.3,p99<=10s";

  private static final Pattern OBJECTIVE = Pattern.compile("([a-z0-9-]+)(>=|<=|>|<|=>|=<|==|=)(.*)");

  /**
   * Checks the fields.
   *
   * @throws NullPointerException if {@code metric} or {@code text} is null
   * @throws IllegalArgumentException if {@code threshold} is NaN
   */
  public Objective {
    java.util.Objects.requireNonNull(metric, "metric");
    java.util.Objects.requireNonNull(text, "text");
    if (Double.isNaN(threshold)) {
      throw new IllegalArgumentException("threshold must be a number, was NaN");
    }
  }

  /**
   * Parses a comma-separated list of objectives.
   *
   * @throws IllegalArgumentException with a one-line message naming the bad objective and what is wrong:
   *     an unknown metric (with the known ones), a missing or wrong operator, a value that is not of the
   *     metric's kind or out of its range, a metric given twice, or an empty list
   * @throws NullPointerException if {@code text} is null
   */
  public static List<Objective> parseAll(String text) {
    if (text == null) {
      throw new NullPointerException("objectives must not be null");
    }
    List<Objective> objectives = new ArrayList<>();
    for (String part : text.split(",", -1)) {
      String compact = part.replaceAll("\\s+", "");
      if (compact.isEmpty()) {
        throw new IllegalArgumentException(text.isBlank() ? "no objective given; write them like " + EXAMPLE
            : "empty objective in '" + Values.show(text) + "' (a stray comma?)");
      }
      Objective objective = parse(compact);
      for (Objective other : objectives) {
        if (other.metric == objective.metric) {
          throw new IllegalArgumentException("objective '" + objective.text + "': " + objective.metric.id
              + " is already bounded by '" + other.text + "'; give each metric once");
        }
      }
      objectives.add(objective);
    }
    return List.copyOf(objectives);
  }

  private static Objective parse(String compact) {
    String lower = compact.toLowerCase(Locale.ROOT);
    Matcher matcher = OBJECTIVE.matcher(lower);
    if (!matcher.matches()) {
      String name = lower.split("[^a-z0-9-]", 2)[0];
      if (!name.isEmpty() && Metric.byId(name) == null) {
        throw unknownMetric(compact, name);
      }
      throw new IllegalArgumentException("bad objective '" + Values.show(compact)
          + "': expected METRIC>=VALUE or METRIC<=VALUE, such as recovers>=0.95 or p99<=10s");
    }
    Metric metric = Metric.byId(matcher.group(1));
    if (metric == null) {
      throw unknownMetric(compact, matcher.group(1));
    }
    String operator = matcher.group(2);
    if (operator.equals("=>") || operator.equals("=<") || operator.equals("=") || operator.equals("==")) {
      throw new IllegalArgumentException("bad objective '" + Values.show(compact) + "': operator '" + operator
          + "'; use " + (metric.higherIsBetter ? ">= or >" : "<= or <"));
    }
    boolean atLeast = operator.startsWith(">");
    if (atLeast != metric.higherIsBetter) {
      throw new IllegalArgumentException("bad objective '" + Values.show(compact) + "': " + metric.id + " is "
          + (metric.higherIsBetter ? "better higher; bound it from below with >=" : "better lower; bound it from "
          + "above with <="));
    }
    String value = compact.substring(compact.length() - matcher.group(3).length());
    if (value.isEmpty()) {
      throw new IllegalArgumentException("bad objective '" + Values.show(compact) + "': no value after '"
          + operator + "'");
    }
    double threshold;
    try {
      threshold = threshold(metric, value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("bad objective '" + Values.show(compact) + "': " + metric.id + " value '"
          + Values.show(value) + "': " + e.getMessage());
    }
    return new Objective(metric, operator.length() == 1, threshold, metric.id + operator + value);
  }

  private static IllegalArgumentException unknownMetric(String compact, String name) {
    return new IllegalArgumentException("bad objective '" + Values.show(compact) + "': unknown metric '"
        + Values.show(name) + "'; use " + String.join(", ", Metric.ids()));
  }

  private static double threshold(Metric metric, String value) {
    switch (metric.unit) {
      case FRACTION -> {
        boolean percent = value.endsWith("%");
        BigDecimal number = decimal(percent ? value.substring(0, value.length() - 1) : value);
        if (percent) {
          number = number.movePointLeft(2);
        }
        if (number.signum() < 0 || number.compareTo(BigDecimal.ONE) > 0) {
          throw new IllegalArgumentException("must be a fraction from 0 to 1 (or 0% to 100%)");
        }
        return number.doubleValue();
      }
      case NUMBER -> {
        BigDecimal number = decimal(value);
        if (number.signum() <= 0) { // below 1 where a concurrency limit refuses requests before their first attempt
          throw new IllegalArgumentException("must be more than 0 (attempts per request)");
        }
        return number.doubleValue();
      }
      case DURATION -> {
        return Durations.parseNanos(value) / 1e9;
      }
      case COUNT -> {
        BigDecimal number = decimal(value);
        if (number.signum() < 0 || number.stripTrailingZeros().scale() > 0) {
          throw new IllegalArgumentException("must be a whole number of requests, at least 0");
        }
        return number.doubleValue();
      }
      default -> throw new AssertionError(metric);
    }
  }

  private static BigDecimal decimal(String value) {
    if (!value.matches("[+-]?(\\d+(\\.\\d*)?|\\.\\d+)")) {
      throw new IllegalArgumentException("not a number");
    }
    return new BigDecimal(value);
  }

  /** True if {@code value} (in the metric's unit) meets this objective; NaN never does. */
  public boolean isMetBy(double value) {
    if (Double.isNaN(value)) {
      return false;
    }
    if (metric.higherIsBetter) {
      return strict ? value > threshold : value >= threshold;
    }
    return strict ? value < threshold : value <= threshold;
  }

  /**
   * How far {@code value} is inside the bound, relative to it: positive inside, negative outside, such as
   * 0.1 for an amplification of 1.17 under {@code amplification<=1.3}. The scale is the threshold (1 for a
   * threshold of 0). NaN and values infinitely on the wrong side give negative infinity.
   */
  public double margin(double value) {
    if (Double.isNaN(value)) {
      return Double.NEGATIVE_INFINITY;
    }
    double scale = threshold > 0 ? threshold : 1;
    double margin = (metric.higherIsBetter ? value - threshold : threshold - value) / scale;
    return Double.isNaN(margin) ? Double.NEGATIVE_INFINITY : margin;
  }

  /** The objective as written, spaces removed, such as {@code p99<=10s}. */
  @Override
  public String toString() {
    return text;
  }
}
