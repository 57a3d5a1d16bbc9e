package dev.backoff.lab;

import dev.backoff.Backoff;
import dev.backoff.BackoffSpec;
import dev.backoff.Jitter;
import dev.backoff.Preset;
import dev.backoff.RetryBudgets;
import dev.backoff.RetryPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The retry policies a lab client can run, by name, as the simulator names them. Seed 003's two clients are
 * {@code fixed} (100 ms, no jitter) and {@code exponential} (100 ms × e up to 5 min, gaussian jitter 0.1),
 * both retrying without limit as the seed's did; {@code exponential-full-jitter} is the latter with full
 * jitter; every strategy name of {@link BackoffSpec} (e.g. {@code full-jitter}) takes its default parameters
 * and also retries without limit; a preset keeps its own limits. A {@code +budget} suffix adds a retry
 * budget shared by the whole fleet (AWS's standard-mode token bucket, as the simulator's default). What is retried (429 and
 * 5xx, connection failures and timeouts) is backoff-http's rule, added by its client. Stateless.
 */
public final class LabPolicies {
  private static final String BUDGET_SUFFIX = "+budget";

  private LabPolicies() {}

  /**
   * A builder for the policy with this name (named after it), ready for further settings.
   *
   * @throws IllegalArgumentException naming the unknown policy and listing the known names
   */
  public static <R> RetryPolicy.Builder<R> named(String name) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("policy name must not be blank");
    }
    String key = name.trim().toLowerCase(java.util.Locale.ROOT);
    boolean withBudget = key.endsWith(BUDGET_SUFFIX);
    String base = withBudget ? key.substring(0, key.length() - BUDGET_SUFFIX.length()) : key;
    RetryPolicy.Builder<R> builder;
    try {
      builder = withoutBudget(base);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("unknown policy '" + name + "'; known: " + String.join(", ", names())
          + ", each also with +budget");
    }
    if (withBudget) {
      builder.budget(RetryBudgets.awsStandard());
    }
    return builder.name(key);
  }

  private static <R> RetryPolicy.Builder<R> withoutBudget(String key) {
    RetryPolicy.Builder<R> builder;
    if (key.equals("exponential-full-jitter")) {
      builder = RetryPolicy.<R>builder()
          .backoff(Backoff.exponential(Duration.ofMillis(100), Math.E, Duration.ofMinutes(5), Jitter.full()))
          .unlimitedAttempts();
    } else if (key.equals("fixed")) {
      builder = Preset.SEED_003_FIXED.policy();
    } else if (key.equals("exponential")) {
      builder = Preset.SEED_003_EXPONENTIAL.policy();
    } else {
      BackoffSpec spec = BackoffSpec.of(key);
      if (spec.isPreset()) {
        builder = spec.preset().policy();
      } else {
        builder = RetryPolicy.<R>builder().name(key).backoff(spec.toBackoff()).unlimitedAttempts();
      }
    }
    return builder;
  }

  /** Every accepted name without the {@code +budget} suffix: seed 003's, then the strategies and presets. */
  public static List<String> names() {
    List<String> names = new ArrayList<>(List.of("fixed", "exponential", "exponential-full-jitter"));
    for (String name : BackoffSpec.names()) {
      if (!names.contains(name)) {
        names.add(name);
      }
    }
    return names;
  }
}
