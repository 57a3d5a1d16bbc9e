package dev.backoff;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The live state of {@linkplain Hedging#adaptive(AdaptiveHedgeDelay) adaptive hedging}: a hedging delay taken
 * from a quantile of recent call latencies, and a cap on the extra load hedges add. Build one per dependency
 * and share it between the calls (and policies) that reach that dependency, as a {@link ConcurrencyLimiter} is
 * shared. Thread-safe and lock-free; its memory is fixed when it is built (a ring of the last
 * {@linkplain Builder#window(int) window} latencies and a histogram of about 600 buckets), and recording a
 * latency or reading the delay allocates nothing.
 *
 * <pre>{@code
 * AdaptiveHedgeDelay delay = AdaptiveHedgeDelay.builder()
 *     .quantile(0.95)                                          // hedge at the p95 of recent calls
 *     .bounds(Duration.ofMillis(5), Duration.ofSeconds(2))     // never sooner than 5 ms, never later than 2 s
 *     .initialDelay(Duration.ofMillis(200))                    // until 100 latencies are known
 *     .maxExtraLoad(0.05)                                      // at most 5 hedges per 100 first attempts
 *     .build();
 * RetryPolicy<Response> policy = RetryPolicy.<Response>builder()
 *     .maxAttempts(2)
 *     .hedging(Hedging.adaptive(delay))
 *     .build();
 * }</pre>
 *
 * <h2>Which latencies count</h2>
 * A call that succeeds without any failed attempt records the time from its start to its result. When its
 * first attempt won, that is the first attempt's latency. When a hedge won, the first attempt was still in
 * flight, so its latency was at least the recorded time, and that time is at least the hedging delay (the
 * hedge started only then): the record says "slower than the delay" exactly when the first attempt was, so
 * the share of records above the delay, which is what the quantile is made of, is the share of first attempts
 * slower than it. Failed calls and calls with a failed attempt are not recorded: a fast failure (a refused
 * connection) says nothing about how long an answer takes, and would pull the delay down.
 *
 * <h2>The delay</h2>
 * Until {@linkplain Builder#warmUp(int) warm-up} latencies are known the delay is the
 * {@linkplain Builder#initialDelay(Duration) initial delay}. From then on it is the nearest-rank quantile of
 * the last {@code window} latencies (the {@code ceil(q × n)}-th smallest), rounded up to its histogram
 * bucket's upper bound (at most 1/16 above the latency: the buckets split each power of two of nanoseconds
 * in 16; latencies from 2^41 ns, about 36 minutes, count as 2^41 - 1), and kept within the
 * {@linkplain Builder#bounds(Duration, Duration) bounds}. It is computed again
 * every {@code window / 50} latencies (at least every latency for small windows), so reading it is one
 * volatile read.
 *
 * <h2>The extra load</h2>
 * A token bucket, as Finagle's backup requests budget theirs: each call's first attempt credits
 * {@linkplain Builder#maxExtraLoad(double) maxExtraLoad} of a token (the bucket holds at most
 * {@code maxExtraLoad × window} tokens, and at least one), and each hedge the delay starts takes a whole one.
 * A hedge that finds no token is not sent ({@link #hedgesRefused()}); the call's first attempt goes on, and a
 * failure still starts the next attempt at once as a hedging call's failures do (that attempt is a retry, which
 * the retry budget governs, not this cap). The bucket starts empty, so over any sequence of calls the hedges
 * this delay started never exceed {@code maxExtraLoad} times the first attempts. A hedge is also charged to
 * the policy's retry budget, as every hedge is.
 */
public final class AdaptiveHedgeDelay {
  /** Sub-buckets per power of two: a bucket's upper bound is at most 1/16 above any latency in it. */
  private static final int SUB_BITS = 4;
  private static final int SUB = 1 << SUB_BITS;
  /** Latencies from 2^40 ns (about 18 minutes) share the last bucket, whose bound is 2^41 - 1. */
  private static final int MAX_EXPONENT = 40;
  private static final int BUCKETS = (MAX_EXPONENT - SUB_BITS + 1) * SUB + SUB;
  /** One token, in the bucket's units (millionths), so that credits of a fraction are exact integers. */
  private static final long TOKEN = 1_000_000;

  private final double quantile;
  private final long minDelayNanos;
  private final long maxDelayNanos;
  private final long initialDelayNanos;
  private final double maxExtraLoad;
  private final int window;
  private final int warmUp;
  private final int recomputeEvery;
  private final long credit;
  private final long tokenCap;

  private final AtomicLongArray ring;
  private final AtomicIntegerArray histogram = new AtomicIntegerArray(BUCKETS);
  private final AtomicLong recorded = new AtomicLong();
  private final AtomicLong tokens = new AtomicLong();
  private final AtomicLong hedgesSent = new AtomicLong();
  private final AtomicLong hedgesRefused = new AtomicLong();
  private volatile long delayNanos;

  private AdaptiveHedgeDelay(Builder b) {
    this.quantile = b.quantile;
    this.minDelayNanos = b.minDelayNanos;
    this.maxDelayNanos = b.maxDelayNanos;
    this.initialDelayNanos = b.initialDelayNanos == -1 ? b.maxDelayNanos : b.initialDelayNanos;
    this.maxExtraLoad = b.maxExtraLoad;
    this.window = b.window;
    this.warmUp = b.warmUp == -1 ? Math.min(100, b.window) : b.warmUp;
    this.recomputeEvery = Math.max(1, window / 50);
    this.credit = Math.round(maxExtraLoad * TOKEN);
    this.tokenCap = Math.max(TOKEN, (long) Math.floor(maxExtraLoad * window) * TOKEN);
    this.ring = new AtomicLongArray(window);
    for (int i = 0; i < window; i++) {
      ring.set(i, -1);
    }
    this.delayNanos = initialDelayNanos;
  }

  /** A builder with the defaults: see each setting. */
  public static Builder builder() {
    return new Builder();
  }

  /** The hedging delay now, in nanoseconds: the initial delay during warm-up, then the quantile, within the bounds. */
  public long delayNanos() {
    return delayNanos;
  }

  /** The hedging delay now (see {@link #delayNanos()}). */
  public Duration delay() {
    return Duration.ofNanos(delayNanos);
  }

  /** The quantile the delay follows, in (0, 1). */
  public double quantile() {
    return quantile;
  }

  /** The least delay. */
  public Duration minDelay() {
    return Duration.ofNanos(minDelayNanos);
  }

  /** The greatest delay. */
  public Duration maxDelay() {
    return Duration.ofNanos(maxDelayNanos);
  }

  /** The delay until {@link #warmUp()} latencies are known. */
  public Duration initialDelay() {
    return Duration.ofNanos(initialDelayNanos);
  }

  /** The most hedges per first attempt, over any sequence of calls. */
  public double maxExtraLoad() {
    return maxExtraLoad;
  }

  /** How many of the most recent latencies the quantile is taken over. */
  public int window() {
    return window;
  }

  /** How many latencies must be known before the quantile replaces the initial delay. */
  public int warmUp() {
    return warmUp;
  }

  /** Latencies recorded since the delay was built (the quantile uses the last {@link #window()} of them). */
  public long latenciesRecorded() {
    return recorded.get();
  }

  /** Hedges the delay started (each took a token of the extra-load cap). */
  public long hedgesSent() {
    return hedgesSent.get();
  }

  /** Hedges that fell due but were not sent because the extra-load cap had no token. */
  public long hedgesRefused() {
    return hedgesRefused.get();
  }

  /**
   * Records a call's latency (see the class's "which latencies count"). The hedging machinery calls this; a
   * user's own driver may too.
   *
   * @throws IllegalArgumentException if {@code latencyNanos} is negative
   */
  public void record(long latencyNanos) {
    if (latencyNanos < 0) {
      throw new IllegalArgumentException("latencyNanos must not be negative, was " + latencyNanos);
    }
    long n = recorded.getAndIncrement();
    long old = ring.getAndSet((int) (n % window), latencyNanos);
    if (old >= 0) {
      histogram.decrementAndGet(bucket(old));
    }
    histogram.incrementAndGet(bucket(latencyNanos));
    long count = n + 1;
    if (count >= warmUp && (count == warmUp || count % recomputeEvery == 0)) {
      delayNanos = quantileNanos();
    }
  }

  /** A call's first attempt started: the extra-load cap earns its share of a token. */
  void firstAttemptStarted() {
    for (;;) {
      long now = tokens.get();
      long next = Math.min(tokenCap, now + credit);
      if (next == now || tokens.compareAndSet(now, next)) {
        return;
      }
    }
  }

  /** A hedge fell due: true (a token taken) if the extra-load cap lets it go. */
  boolean tryHedge() {
    for (;;) {
      long now = tokens.get();
      if (now < TOKEN) {
        hedgesRefused.incrementAndGet();
        return false;
      }
      if (tokens.compareAndSet(now, now - TOKEN)) {
        hedgesSent.incrementAndGet();
        return true;
      }
    }
  }

  /** A hedge that took a token was not sent after all (the retry budget refused it): the token goes back. */
  void hedgeNotSent() {
    hedgesSent.decrementAndGet();
    for (;;) {
      long now = tokens.get();
      if (tokens.compareAndSet(now, Math.min(tokenCap, now + TOKEN))) {
        return;
      }
    }
  }

  /** The quantile of the histogram's latencies, rounded up to its bucket's bound and kept within the bounds. */
  private long quantileNanos() {
    long total = 0;
    for (int i = 0; i < BUCKETS; i++) {
      total += histogram.get(i);
    }
    if (total == 0) {
      return delayNanos;
    }
    long rank = Math.max(1, (long) Math.ceil(quantile * total));
    long seen = 0;
    int i = 0;
    for (; i < BUCKETS - 1; i++) {
      seen += histogram.get(i);
      if (seen >= rank) {
        break;
      }
    }
    return Math.max(minDelayNanos, Math.min(maxDelayNanos, upperBound(i)));
  }

  /** The histogram bucket of a latency: exact below 16 ns, then 16 buckets per power of two. */
  static int bucket(long nanos) {
    if (nanos < SUB) {
      return (int) nanos;
    }
    int exponent = 63 - Long.numberOfLeadingZeros(nanos);
    if (exponent > MAX_EXPONENT) {
      return BUCKETS - 1;
    }
    int sub = (int) (nanos >>> (exponent - SUB_BITS)) - SUB;
    return (exponent - SUB_BITS + 1) * SUB + sub;
  }

  /** The largest latency in bucket {@code index}. */
  static long upperBound(int index) {
    if (index < SUB) {
      return index;
    }
    int exponent = index / SUB + SUB_BITS - 1;
    int sub = index % SUB;
    return ((long) (SUB + sub + 1) << (exponent - SUB_BITS)) - 1;
  }

  @Override
  public String toString() {
    return "adaptive hedge delay p" + Hedging.percentile(quantile) + " within [" + Nanos.format(minDelayNanos) + ", "
        + Nanos.format(maxDelayNanos) + "], now " + Nanos.format(delayNanos) + ", extra load at most " + maxExtraLoad;
  }

  /**
   * Builds an {@link AdaptiveHedgeDelay}. Each setter checks its argument at once, naming it; {@link #build()}
   * checks the settings against each other. Not thread-safe.
   */
  public static final class Builder {
    private double quantile = 0.95;
    private long minDelayNanos = 1_000_000;
    private long maxDelayNanos = 10_000_000_000L;
    private long initialDelayNanos = -1;
    private double maxExtraLoad = 0.05;
    private int window = 1000;
    private int warmUp = -1;

    private Builder() {}

    /**
     * The quantile of recent latencies the delay follows; default 0.95 (the p95).
     *
     * @throws IllegalArgumentException if {@code quantile} is not in (0, 1)
     */
    public Builder quantile(double quantile) {
      if (!(quantile > 0 && quantile < 1)) {
        throw new IllegalArgumentException("quantile must be in (0, 1), was " + quantile);
      }
      this.quantile = quantile;
      return this;
    }

    /**
     * The least and greatest delay; default 1 ms and 10 s. A delay below the least would hedge on a timer's
     * granularity; the greatest bounds how long a slow tail can push the delay out.
     *
     * @throws NullPointerException if either is null
     * @throws IllegalArgumentException if {@code minDelay} is negative or above {@code maxDelay}
     */
    public Builder bounds(Duration minDelay, Duration maxDelay) {
      long min = Nanos.nonNegative("minDelay", minDelay);
      long max = Nanos.nonNegative("maxDelay", maxDelay);
      if (min > max) {
        throw new IllegalArgumentException("minDelay " + Nanos.format(min) + " must not exceed maxDelay "
            + Nanos.format(max));
      }
      this.minDelayNanos = min;
      this.maxDelayNanos = max;
      return this;
    }

    /**
     * The delay until {@link #warmUp(int)} latencies are known; default the greatest delay (so that a new
     * delay hedges little before it knows the latencies). It must lie within the bounds.
     *
     * @throws NullPointerException if {@code initialDelay} is null
     * @throws IllegalArgumentException if it is negative (or, at {@link #build()}, outside the bounds)
     */
    public Builder initialDelay(Duration initialDelay) {
      this.initialDelayNanos = Nanos.nonNegative("initialDelay", initialDelay);
      return this;
    }

    /**
     * The most hedges per first attempt, over any sequence of calls; default 0.05 (5 hedges per 100 calls).
     *
     * @throws IllegalArgumentException if {@code maxExtraLoad} is not in (0, 1]
     */
    public Builder maxExtraLoad(double maxExtraLoad) {
      if (!(maxExtraLoad > 0 && maxExtraLoad <= 1)) {
        throw new IllegalArgumentException("maxExtraLoad must be in (0, 1], was " + maxExtraLoad);
      }
      this.maxExtraLoad = maxExtraLoad;
      return this;
    }

    /**
     * How many of the most recent latencies the quantile is taken over; default 1000. A larger window is
     * steadier and follows a change more slowly (it has moved once about {@code (1 - quantile) × window} slow
     * latencies have come in).
     *
     * @throws IllegalArgumentException if {@code window} is not in [10, 1 000 000]
     */
    public Builder window(int window) {
      if (window < 10 || window > 1_000_000) {
        throw new IllegalArgumentException("window must be in [10, 1000000], was " + window);
      }
      this.window = window;
      return this;
    }

    /**
     * How many latencies must be known before the quantile replaces the initial delay; default 100 (or the
     * window, if smaller). It must not exceed the window.
     *
     * @throws IllegalArgumentException if {@code warmUp} is below 1 (or, at {@link #build()}, above the window)
     */
    public Builder warmUp(int warmUp) {
      if (warmUp < 1) {
        throw new IllegalArgumentException("warmUp must be at least 1, was " + warmUp);
      }
      this.warmUp = warmUp;
      return this;
    }

    /**
     * The delay.
     *
     * @throws IllegalArgumentException if the initial delay lies outside the bounds, or the warm-up exceeds
     *     the window
     */
    public AdaptiveHedgeDelay build() {
      if (initialDelayNanos != -1 && (initialDelayNanos < minDelayNanos || initialDelayNanos > maxDelayNanos)) {
        throw new IllegalArgumentException("initialDelay " + Nanos.format(initialDelayNanos) + " must lie within "
            + "minDelay " + Nanos.format(minDelayNanos) + " and maxDelay " + Nanos.format(maxDelayNanos));
      }
      if (warmUp > window) {
        throw new IllegalArgumentException("warmUp " + warmUp + " must not exceed window " + window);
      }
      return new AdaptiveHedgeDelay(this);
    }
  }
}
