package dev.backoff.spec;

import dev.backoff.NanoClock;
import dev.backoff.FailureClass;
import dev.backoff.RetryBudget;
import dev.backoff.RetryBudgets;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * A retry budget by name and parameters, {@code kind[:param...]}, with {@link RetryBudgets}' defaults for
 * what is left out (an empty parameter also takes its default):
 *
 * <ul>
 *   <li>{@code token-bucket[:CAPACITY:COST:TIMEOUT_COST]} (alias {@code aws}): the AWS SDK retry quota,
 *       500, 5, 10.
 *   <li>{@code grpc[:MAX_TOKENS:TOKEN_RATIO]}: gRPC retry throttling, 10, 0.1.
 *   <li>{@code ratio[:RATIO:MIN_PER_SECOND:WINDOW]}: the Finagle/Linkerd budget, 0.2, 10, 10s.
 * </ul>
 *
 * <p>Immutable and thread-safe; {@link #create(NanoClock)} makes a fresh budget each time.
 */
public final class BudgetSpec {
  /** The budget {@code +budget} attaches unless told otherwise: AWS's token bucket. */
  public static final String DEFAULT = "token-bucket";

  private static final List<String> USAGE = List.of("token-bucket[:capacity:cost:timeout-cost]",
      "grpc[:max-tokens:token-ratio]", "ratio[:ratio:min-per-second:window]");

  private final String text;
  private final String kind;
  private final String[] parameters;

  private BudgetSpec(String text, String kind, String[] parameters) {
    this.text = text;
    this.kind = kind;
    this.parameters = parameters;
  }

  /**
   * Parses a budget spec and checks every parameter.
   *
   * @throws IllegalArgumentException naming the spec and the bad part
   * @throws NullPointerException if {@code text} is null
   */
  public static BudgetSpec parse(String text) {
    if (text == null) {
      throw new NullPointerException("budget must not be null");
    }
    String trimmed = text.trim();
    String[] parts = trimmed.split(":", -1);
    String kind = parts[0].toLowerCase(Locale.ROOT);
    int max = switch (kind) {
      case "token-bucket", "aws", "ratio" -> 3;
      case "grpc" -> 2;
      default -> throw new IllegalArgumentException("unknown budget '" + Durations.show(text) + "'; use "
          + String.join(", ", USAGE));
    };
    if (parts.length - 1 > max) {
      throw new IllegalArgumentException("bad budget '" + Durations.show(text) + "': " + kind + " takes at most "
          + max + " parameters (" + USAGE.get(kind.equals("grpc") ? 1 : kind.equals("ratio") ? 2 : 0) + ")");
    }
    String[] parameters = new String[max];
    for (int i = 1; i < parts.length; i++) {
      parameters[i - 1] = parts[i].trim().isEmpty() ? null : parts[i].trim();
    }
    BudgetSpec spec = new BudgetSpec(trimmed, kind.equals("aws") ? "token-bucket" : kind, parameters);
    spec.create(() -> 0L); // checks every value now, with the message naming the spec
    return spec;
  }

  /** The budget kind: token-bucket, grpc or ratio. */
  public String kind() {
    return kind;
  }

  /**
   * The parameters with every one written out, in the grammar's order: a given one as written, a missing or
   * empty one as its default ({@code token-bucket} has {@code [500, 5, 10]}), so that code, properties and the
   * simulator generated from a spec all say the same thing.
   */
  public List<String> parameters() {
    String[] defaults = switch (kind) {
      case "token-bucket" -> new String[] {Long.toString(RetryBudgets.AWS_CAPACITY),
          Long.toString(RetryBudgets.AWS_RETRY_COST), Long.toString(RetryBudgets.AWS_TIMEOUT_RETRY_COST)};
      case "grpc" -> new String[] {Integer.toString(RetryBudgets.GRPC_MAX_TOKENS),
          plain(RetryBudgets.GRPC_TOKEN_RATIO)};
      case "ratio" -> new String[] {plain(RetryBudgets.RATIO_RETRY_RATIO),
          Integer.toString(RetryBudgets.RATIO_MIN_RETRIES_PER_SECOND), Durations.format(RetryBudgets.RATIO_WINDOW)};
      default -> throw new AssertionError(kind);
    };
    List<String> all = new java.util.ArrayList<>();
    for (int i = 0; i < defaults.length; i++) {
      all.add(parameters[i] != null ? parameters[i] : defaults[i]);
    }
    return List.copyOf(all);
  }

  /** The spec with every parameter written out ({@link #parameters()}): {@code token-bucket:500:5:10}. */
  public String canonical() {
    return kind + ":" + String.join(":", parameters());
  }

  private static String plain(double value) {
    return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
  }

  /** Every budget form, for help texts. */
  public static List<String> usage() {
    return USAGE;
  }

  /**
   * A fresh budget; a ratio budget reads {@code clock}.
   *
   * @throws NullPointerException if {@code clock} is null
   */
  public RetryBudget create(NanoClock clock) {
    if (clock == null) {
      throw new NullPointerException("clock must not be null");
    }
    try {
      return switch (kind) {
        case "token-bucket" -> RetryBudgets.tokenBucket()
            .capacity(whole(0, "capacity", RetryBudgets.AWS_CAPACITY, 1, Long.MAX_VALUE))
            .retryCost(whole(1, "cost", RetryBudgets.AWS_RETRY_COST, 0, Long.MAX_VALUE))
            .retryCost(FailureClass.TIMEOUT,
                whole(2, "timeout-cost", RetryBudgets.AWS_TIMEOUT_RETRY_COST, 0, Long.MAX_VALUE))
            .build();
        case "grpc" -> RetryBudgets.grpcThrottling(
            (int) whole(0, "max-tokens", RetryBudgets.GRPC_MAX_TOKENS, 1, 1000),
            decimal(1, "token-ratio", RetryBudgets.GRPC_TOKEN_RATIO));
        case "ratio" -> RetryBudgets.ratio(
            decimal(0, "ratio", RetryBudgets.RATIO_RETRY_RATIO),
            (int) whole(1, "min-per-second", RetryBudgets.RATIO_MIN_RETRIES_PER_SECOND, 0, 100_000),
            parameters[2] == null ? RetryBudgets.RATIO_WINDOW : duration(2, "window"),
            clock);
        default -> throw new AssertionError(kind);
      };
    } catch (IllegalArgumentException e) {
      if (e.getMessage() != null && e.getMessage().startsWith("bad budget")) {
        throw e;
      }
      throw new IllegalArgumentException("bad budget '" + Durations.show(text) + "': " + e.getMessage());
    }
  }

  private long whole(int index, String name, long defaultValue, long min, long max) {
    String value = parameters[index];
    if (value == null) {
      return defaultValue;
    }
    BigDecimal exact;
    try {
      exact = new BigDecimal(value.replace("_", ""));
    } catch (NumberFormatException e) {
      throw bad(name, value, "not a whole number");
    }
    if (exact.compareTo(BigDecimal.valueOf(min)) < 0 || exact.compareTo(BigDecimal.valueOf(max)) > 0) {
      throw bad(name, value, "out of range (" + min + ".." + max + ")");
    }
    if (exact.signum() != 0 && exact.stripTrailingZeros().scale() > 0) {
      throw bad(name, value, "not a whole number");
    }
    return exact.longValueExact();
  }

  private double decimal(int index, String name, double defaultValue) {
    String value = parameters[index];
    if (value == null) {
      return defaultValue;
    }
    double result;
    try {
      result = Double.parseDouble(value);
    } catch (NumberFormatException e) {
      throw bad(name, value, "not a number");
    }
    if (Double.isNaN(result) || Double.isInfinite(result)) {
      throw bad(name, value, "not a finite number");
    }
    return result;
  }

  private Duration duration(int index, String name) {
    try {
      return Durations.parse(parameters[index]);
    } catch (IllegalArgumentException e) {
      throw bad(name, parameters[index], e.getMessage());
    }
  }

  private IllegalArgumentException bad(String name, String value, String why) {
    return new IllegalArgumentException("bad budget '" + Durations.show(text) + "': " + name + " '"
        + Durations.show(value) + "': " + why);
  }

  /** The spec as written. */
  @Override
  public String toString() {
    return text;
  }
}
