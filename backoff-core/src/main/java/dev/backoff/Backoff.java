package dev.backoff;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * A backoff strategy: how long to wait before each retry.
 *
 * <p>A strategy is a pure function of the retry number, its own history in this call and a random source.
 * It holds no per-call state, so one instance serves every call and thread; the decision engine
 * ({@link Execution}) carries the history. Implementations are immutable, thread-safe, allocation-free,
 * and draw random numbers only with {@link RandomGenerator#nextDouble()} (so a test can script {@code u}).
 *
 * <p>All factories validate their arguments at once. Delays never overflow, are never negative or NaN,
 * for any retry number up to {@link Integer#MAX_VALUE} and any duration (saturating at about 292 years).
 * See {@link Jitter} for the cap rule every jittered strategy follows.
 */
@FunctionalInterface
public interface Backoff {

  /**
   * Returns the delay in nanoseconds before retry {@code retry}.
   *
   * @param retry the retry number, 1 for the first retry (the second attempt)
   * @param previousDelayNanos what this strategy returned for the previous retry of the call (0 before the
   *     first retry)
   * @param totalDelayNanos the sum of what this strategy returned for all earlier retries of the call
   *     (saturating; 0 before the first retry)
   * @param random the random source; strategies call only {@link RandomGenerator#nextDouble()}
   * @return a delay, never negative
   */
  long delayNanos(int retry, long previousDelayNanos, long totalDelayNanos, RandomGenerator random);

  /** The largest delay this strategy can return, {@link Long#MAX_VALUE} if unbounded. */
  default long maxDelayNanos() {
    return Long.MAX_VALUE;
  }

  /** Whether the strategy draws random numbers (false: its schedule is exact). */
  default boolean isRandom() {
    return true;
  }

  /**
   * Whether the delay before retry {@code n} depends only on {@code n} and a single draw {@code u}, never on
   * the call's history ({@code previousDelayNanos}, {@code totalDelayNanos}), and does not decrease as
   * {@code u} grows. The planner ({@code dev.backoff.plan}) then computes each delay's quantiles exactly as
   * the delay at {@code u = p}. False (the default) makes no promise.
   */
  default boolean isHistoryIndependent() {
    return false;
  }

  /** No delay at all: retry at once. */
  static Backoff none() {
    return Strategies.Fixed.ZERO;
  }

  /**
   * The same delay before every retry.
   *
   * @throws IllegalArgumentException if {@code delay} is negative
   */
  static Backoff fixed(Duration delay) {
    return fixed(delay, Jitter.none());
  }

  /**
   * The same delay before every retry, jittered. A fixed schedule has no cap: full and equal jitter stay
   * below the delay, proportional and gaussian jitter spread around it.
   *
   * @throws IllegalArgumentException if {@code delay} is negative
   */
  static Backoff fixed(Duration delay, Jitter jitter) {
    Nanos.requireNonNull("jitter", jitter);
    return new Strategies.Fixed(Nanos.nonNegative("delay", delay), jitter);
  }

  /**
   * {@code initial + increment·(n − 1)}, capped.
   *
   * @throws IllegalArgumentException if a duration is negative, {@code initial} or {@code cap} is zero, or
   *     {@code cap < initial}
   */
  static Backoff linear(Duration initial, Duration increment, Duration cap) {
    return linear(initial, increment, cap, Jitter.none());
  }

  /**
   * {@code initial + increment·(n − 1)}, capped, then jittered under the cap rule.
   *
   * @throws IllegalArgumentException if a duration is negative, {@code initial} or {@code cap} is zero, or
   *     {@code cap < initial}
   */
  static Backoff linear(Duration initial, Duration increment, Duration cap, Jitter jitter) {
    long initialNanos = Nanos.positive("initial", initial);
    long incrementNanos = Nanos.nonNegative("increment", increment);
    long capNanos = Strategies.checkCap(initialNanos, cap);
    Nanos.requireNonNull("jitter", jitter);
    return new Strategies.Linear(initialNanos, incrementNanos, capNanos, jitter);
  }

  /**
   * Exponential backoff {@code min(cap, initial·multiplier^(n − 1))}, without jitter.
   *
   * @throws IllegalArgumentException if {@code initial} or {@code cap} is not positive, {@code cap <
   *     initial}, or {@code multiplier} is below 1, NaN or infinite
   */
  static Backoff exponential(Duration initial, double multiplier, Duration cap) {
    return exponential(initial, multiplier, cap, Jitter.none());
  }

  /**
   * Exponential backoff {@code min(cap, initial·multiplier^(n − 1))}, jittered under the cap rule. With
   * {@link Jitter#full()} and multiplier 2 this is AWS's "full jitter"; with {@link Jitter#equal()}, "equal
   * jitter".
   *
   * @throws IllegalArgumentException if {@code initial} or {@code cap} is not positive, {@code cap <
   *     initial}, or {@code multiplier} is below 1, NaN or infinite
   */
  static Backoff exponential(Duration initial, double multiplier, Duration cap, Jitter jitter) {
    long initialNanos = Nanos.positive("initial", initial);
    double checkedMultiplier = Strategies.checkMultiplier(multiplier);
    long capNanos = Strategies.checkCap(initialNanos, cap);
    Nanos.requireNonNull("jitter", jitter);
    return new Strategies.Exponential(initialNanos, checkedMultiplier, capNanos, jitter);
  }

  /**
   * Decorrelated jitter (AWS): {@code U(base, 3·previous)}, the previous delay starting at {@code base}.
   * Under the cap rule the range's top is limited to the cap ({@code U(base, min(cap, 3·previous))}) rather
   * than the result clamped, so clients at the cap keep spreading over {@code [base, cap)}; AWS's article
   * writes {@code min(cap, U(base, 3·previous))}, which piles clients at the cap.
   *
   * @throws IllegalArgumentException if {@code base} or {@code cap} is not positive or {@code cap < base}
   */
  static Backoff decorrelated(Duration base, Duration cap) {
    long baseNanos = Nanos.positive("base", base);
    return new Strategies.Decorrelated(baseNanos, Strategies.checkCap("base", baseNanos, cap));
  }

  /**
   * Decorrelated jitter V2 (Polly's formula), whose delays have median about {@code medianFirstDelay} for
   * the first retry and grow about twice each retry, with a smooth distribution and no clustering. For
   * retry {@code i = n − 1} it takes {@code t = i + u} and {@code next = 2^t · tanh(√(4t))}, and waits
   * {@code (next − prev) / 1.4 · medianFirstDelay}, where {@code prev} is the previous {@code next} (it is
   * recovered from the sum of earlier delays, so the strategy stays stateless). Above the cap, where Polly
   * clamps, the delay spreads uniformly over {@code [cap/2, cap)} instead.
   *
   * @throws IllegalArgumentException if a duration is not positive or {@code cap < medianFirstDelay}
   */
  static Backoff decorrelatedV2(Duration medianFirstDelay, Duration cap) {
    long medianNanos = Nanos.positive("medianFirstDelay", medianFirstDelay);
    long capNanos = Strategies.checkCap("medianFirstDelay", medianNanos, cap);
    return new Strategies.DecorrelatedV2(medianNanos, capNanos);
  }

  /**
   * Google Cloud's documented algorithm, exactly as written: before retry {@code n}
   * wait {@code min(2^(n−1) s + random_ms, maximumBackoff)}, {@code random_ms} a whole number of
   * milliseconds uniform in {@code [0, 1000]}, drawn afresh each retry; at the cap it keeps retrying every
   * {@code maximumBackoff}. The cap is applied after the random part, as documented, so delays at the cap
   * do not spread (unlike our {@link Jitter cap rule}).
   *
   * @param maximumBackoff typically 32 or 64 seconds
   * @throws IllegalArgumentException if {@code maximumBackoff} is not positive
   */
  static Backoff googleCloud(Duration maximumBackoff) {
    return new Strategies.GoogleCloud(Nanos.positive("maximumBackoff", maximumBackoff));
  }
}
