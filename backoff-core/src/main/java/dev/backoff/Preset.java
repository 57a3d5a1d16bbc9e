package dev.backoff;

import java.time.Duration;
import java.util.Locale;

/**
 * Named policies reproducing the documented defaults of well-known clients and libraries, so a user can
 * migrate and compare like for like. (The retry-storm experiment's two clients are the simulator's named
 * policies, not presets.) Where a preset's
 * behaviour differs from Backoff's own {@linkplain Jitter cap rule}, its description says so.
 */
public enum Preset {
  /**
   * Google Cloud's algorithm: {@code min(2^(n−1) s + random_ms, 32 s)}, {@code random_ms} a
   * whole number of milliseconds in {@code [0, 1000]}, retrying at the cap until the attempt limit. The
   * documentation leaves the limit to the user; we use 10 attempts. <b>Differs from our cap rule:</b> the cap
   * is applied after the random part, so every client at the cap waits exactly 32 s.
   */
  GOOGLE_CLOUD("google-cloud", 10, null, Backoff.googleCloud(Duration.ofSeconds(32))),
  /** As {@link #GOOGLE_CLOUD} with the documented alternative maximum of 64 s (same pile-up at the cap). */
  GOOGLE_CLOUD_64S("google-cloud-64s", 10, null, Backoff.googleCloud(Duration.ofSeconds(64))),
  /**
   * AWS SDK for Java v2, standard mode with retry behaviour 2.0 (what standard mode does unless
   * {@code AWS_NEW_RETRIES_2026=true} opts in to 2.1; the SDK's default mode without that opt-in is
   * {@code legacy}, which no preset models): 3 attempts, full jitter {@code U(0, min(20 s, 100 ms·2^(n−1)))},
   * and a 1 s base for throttling failures ({@link FailureClass#THROTTLED}). The SDK's retry quota (a token
   * bucket of 500, 5 per retry) is a budget: attach one separately. Follows our cap rule.
   */
  AWS_STANDARD("aws-standard", 3, null,
      Backoff.exponential(Duration.ofMillis(100), 2, Duration.ofSeconds(20), Jitter.full())),
  /**
   * AWS SDK for Java v2, standard mode with AWS's newer retry behaviour ("retries 2.1"), which the SDK uses
   * (from version 2.44.0) only when {@code AWS_NEW_RETRIES_2026=true} (or the system property
   * {@code aws.newRetries2026}) opts in; AWS plans to make it the default no sooner than November 2026, in a
   * release it has not named:
   * 3 attempts, full jitter {@code U(0, min(20 s, 50 ms·2^(n−1)))}, and a 1 s base for throttling failures
   * ({@link FailureClass#THROTTLED}). The SDK's retry quota changes too (500 tokens, a retry costs 14, or 5
   * after a throttling failure): that is {@link RetryBudgets#awsStandard2026()}, attached separately. Follows
   * our cap rule.
   *
   * <p>Sources, in the AWS SDK for Java v2: {@code core/retries/src/main/java/software/amazon/awssdk/retries/
   * DefaultRetryStrategy.java} (class {@code Standard}: {@code MAX_ATTEMPTS} 3, {@code BASE_DELAY_V21} 50 ms,
   * {@code THROTTLED_BASE_DELAY} 1 s, {@code MAX_BACKOFF} 20 s, {@code TOKEN_BUCKET_SIZE} 500,
   * {@code DEFAULT_EXCEPTION_TOKEN_COST_V21} 14, {@code THROTTLING_EXCEPTION_TOKEN_COST_V21} 5; the 2.0
   * values beside them are {@link #AWS_STANDARD}'s); the delay formula is the same file's
   * {@code BackoffStrategy.exponentialDelay}, full jitter; the opt-in is {@code SdkSystemSetting.AWS_NEW_RETRIES_2026}
   * in {@code core/sdk-core}, which resolves to false unless set
   * ({@code core/sdk-core/src/test/java/software/amazon/awssdk/core/retry/NewRetries2026ResolverTest.java}).
   * No SDK release in those sources makes it the default.
   */
  AWS_STANDARD_2026("aws-standard-2026", 3, null,
      Backoff.exponential(Duration.ofMillis(50), 2, Duration.ofSeconds(20), Jitter.full())),
  /**
   * gRPC's retry policy (gRFC A6) with its design document's example values (maxAttempts 4, initialBackoff
   * 0.1 s, maxBackoff 1 s, backoffMultiplier 2): {@code U(0, min(initial·mult^(n−1), max))}. gRPC has no
   * default retry policy; a service config must supply one. Follows our cap rule.
   */
  GRPC("grpc", 4, null, Backoff.exponential(Duration.ofMillis(100), 2, Duration.ofSeconds(1), Jitter.full())),
  /**
   * google-http-client's {@code ExponentialBackOff} defaults: initial 500 ms, multiplier 1.5, randomization
   * ±0.5, maximum interval 60 s, maximum elapsed time 15 min, with {@code HttpRequest}'s default of 10
   * retries. <b>Differs from our cap rule:</b> the maximum interval caps the interval before randomizing, so
   * delays reach 90 s. Also, google-http-client only stops once the elapsed time has passed 15 min (a last
   * sleep may end well past it); this preset's deadline never starts a sleep that would end past it.
   */
  GOOGLE_HTTP_CLIENT("google-http-client", 11, Duration.ofMinutes(15),
      new PeerBackoff(500_000_000L, 1.5, 60_000_000_000L, 0.5, PeerBackoff.Placement.JITTER_AFTER_CAP)),
  /** Resilience4j's default {@code RetryConfig}: 3 attempts, a fixed 500 ms wait, no jitter. */
  RESILIENCE4J("resilience4j", 3, null, Backoff.fixed(Duration.ofMillis(500))),
  /**
   * Resilience4j's {@code IntervalFunction.ofExponentialRandomBackoff()} defaults: 500 ms, multiplier 1.5,
   * randomization ±0.5 and <em>no</em> maximum interval (the delays grow without bound), with the default 3
   * attempts. <b>Differs from our cap rule:</b> when a maximum interval is configured, Resilience4j randomizes
   * the uncapped interval and then clamps it, so clients pile up at exactly the cap.
   */
  RESILIENCE4J_EXPONENTIAL_RANDOM("resilience4j-exponential-random", 3, null,
      new PeerBackoff(500_000_000L, 1.5, Long.MAX_VALUE, 0.5, PeerBackoff.Placement.CLAMP_AFTER_RANDOM)),
  /** Failsafe's default {@code RetryPolicy}: 3 attempts (2 retries), no delay. */
  FAILSAFE("failsafe", 3, null, Backoff.none()),
  /**
   * Failsafe's {@code withBackoff(1 s, 30 s)} (delay factor 2) with {@code withJitter(0.5)}, default 3
   * attempts. <b>Differs from our cap rule:</b> Failsafe jitters after capping, so delays reach 45 s. (With a
   * {@code maxDuration} Failsafe shortens the last sleep to the time left; our deadline stops instead.)
   */
  FAILSAFE_BACKOFF("failsafe-backoff", 3, null,
      new PeerBackoff(1_000_000_000L, 2, 30_000_000_000L, 0.5, PeerBackoff.Placement.JITTER_AFTER_CAP)),
  /**
   * Spring Retry's {@code ExponentialBackOffPolicy} defaults (100 ms × 2 up to 30 s) with the default 3
   * attempts of {@code SimpleRetryPolicy}. No jitter.
   */
  SPRING_RETRY("spring-retry", 3, null, Backoff.exponential(Duration.ofMillis(100), 2, Duration.ofSeconds(30))),
  /**
   * Spring Retry's {@code ExponentialRandomBackOffPolicy} with the same defaults: each capped interval is
   * multiplied by {@code U[1, multiplier)} and then clamped to 30 s. <b>Differs from our cap rule:</b> from
   * 15 s on, part of the clients (and at the cap all of them) wait exactly 30 s.
   */
  SPRING_RETRY_RANDOM("spring-retry-random", 3, null,
      new PeerBackoff(100_000_000L, 2, 30_000_000_000L, 0, PeerBackoff.Placement.RANDOM_MULTIPLIER_THEN_CLAMP));

  private final String id;
  private final int maxAttempts;
  private final Duration maxElapsed;
  private final Backoff backoff;

  Preset(String id, int maxAttempts, Duration maxElapsed, Backoff backoff) {
    this.id = id;
    this.maxAttempts = maxAttempts;
    this.maxElapsed = maxElapsed;
    this.backoff = backoff;
  }

  /** The preset's name on the command line and in scenario files, such as {@code google-cloud}. */
  public String id() {
    return id;
  }

  /** The preset's backoff. */
  public Backoff backoff() {
    return backoff;
  }

  /** The preset's attempt limit ({@link Integer#MAX_VALUE}: none). */
  public int maxAttempts() {
    return maxAttempts;
  }

  /** The preset's maximum elapsed time, or null. */
  public Duration maxElapsed() {
    return maxElapsed;
  }

  /** A policy builder configured as the preset, named after it, ready for further settings. */
  public <R> RetryPolicy.Builder<R> policy() {
    RetryPolicy.Builder<R> builder =
        RetryPolicy.<R>builder().name(id).maxAttempts(maxAttempts).backoff(backoff);
    if (maxElapsed != null) {
      builder.maxElapsed(maxElapsed);
    }
    if (this == AWS_STANDARD || this == AWS_STANDARD_2026) {
      builder.backoff(FailureClass.THROTTLED,
          Backoff.exponential(Duration.ofSeconds(1), 2, Duration.ofSeconds(20), Jitter.full()));
    }
    return builder;
  }

  /**
   * The preset with this {@linkplain #id() id} (or enum name, in any case). To parse a strategy or preset
   * as a command line or scenario file writes it, use {@link dev.backoff.spec.BackoffSpec}.
   *
   * @throws IllegalArgumentException naming the unknown preset and listing the known ones
   */
  public static Preset byName(String name) {
    Nanos.requireNonNull("preset name", name);
    for (Preset preset : values()) {
      if (preset.id.equalsIgnoreCase(name) || preset.name().equalsIgnoreCase(name.replace('-', '_'))) {
        return preset;
      }
    }
    StringBuilder known = new StringBuilder();
    for (Preset preset : values()) {
      known.append(known.length() == 0 ? "" : ", ").append(preset.id);
    }
    throw new IllegalArgumentException("unknown preset '" + name + "'; known: " + known);
  }

  @Override
  public String toString() {
    return id.toLowerCase(Locale.ROOT);
  }
}
