package dev.backoff.lab;

import dev.backoff.BackoffSpec;
import dev.backoff.Preset;
import dev.backoff.RetryPolicy;
import java.util.ArrayList;
import java.util.List;

/**
 * The retry policies a lab client can run, by name. Seed 003's two clients are {@code fixed} (100 ms, no
 * jitter) and {@code exponential} (100 ms × e up to 5 min, gaussian jitter 0.1), both retrying without limit
 * as the seed's did; every other strategy name of {@link BackoffSpec} (e.g. {@code full-jitter}) takes its
 * default parameters and also retries without limit; a preset keeps its own limits. What is retried (429 and
 * 5xx, connection failures and timeouts) is backoff-http's rule, added by its client. Stateless.
 */
public final class LabPolicies {
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
    RetryPolicy.Builder<R> builder;
    if (key.equals("fixed")) {
      builder = Preset.SEED_003_FIXED.policy();
    } else if (key.equals("exponential")) {
      builder = Preset.SEED_003_EXPONENTIAL.policy();
    } else {
      BackoffSpec spec;
      try {
        spec = BackoffSpec.of(key);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("unknown policy '" + name + "'; known: " + String.join(", ", names()));
      }
      if (spec.isPreset()) {
        builder = spec.preset().policy();
      } else {
        builder = RetryPolicy.<R>builder().name(key).backoff(spec.toBackoff()).unlimitedAttempts();
      }
    }
    return builder.name(key);
  }

  /** Every accepted name: seed 003's two, then the strategies and presets. */
  public static List<String> names() {
    List<String> names = new ArrayList<>(List.of("fixed", "exponential"));
    for (String name : BackoffSpec.names()) {
      if (!names.contains(name)) {
        names.add(name);
      }
    }
    return names;
  }
}
