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
 * default parameters and also retries without limit; a preset keeps its own limits. The result the policies
 * see is the HTTP status; 429 and 5xx are retried, as are connection failures and timeouts. Stateless.
 */
public final class LabPolicies {
  private LabPolicies() {}

  /**
   * The policy with this name.
   *
   * @throws IllegalArgumentException naming the unknown policy and listing the known names
   */
  public static RetryPolicy<Integer> named(String name) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("policy name must not be blank");
    }
    String key = name.trim().toLowerCase(java.util.Locale.ROOT);
    RetryPolicy.Builder<Integer> builder;
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
        builder = RetryPolicy.<Integer>builder().name(key).backoff(spec.toBackoff()).unlimitedAttempts();
      }
    }
    return builder.name(key).retryOnResult(LabPolicies::isRetryableStatus).maxSuppressed(0).build();
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

  static boolean isRetryableStatus(int status) {
    return status == 429 || status >= 500;
  }
}
