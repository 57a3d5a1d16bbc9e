package dev.backoff;

/**
 * Randomizes a deterministic backoff delay, as a pure function of an explicit uniform {@code u}.
 *
 * <h2>The cap rule</h2>
 * Every jitter receives the schedule's delay already limited to the cap ({@code delay <= cap}) and must
 * return a value in {@code [0, cap]}: a jittered delay never exceeds the cap. When the schedule sits at the
 * cap, the result still spreads over a range below it, so that clients that all reached the cap do not
 * retry in lock-step (clamping <em>after</em> randomizing, as Resilience4j's random backoff does, piles them
 * all up at exactly the cap). Jitters that spread symmetrically around the delay (proportional, gaussian)
 * therefore hold their centre low enough that the whole window fits under the cap.
 *
 * <p>Implementations are immutable, thread-safe and allocation-free.
 */
public interface Jitter {

  /**
   * Returns the jittered delay.
   *
   * @param delayNanos the schedule's delay, already at most {@code capNanos}; never negative
   * @param capNanos the cap ({@link Long#MAX_VALUE} when uncapped)
   * @param u a uniform random number in {@code [0, 1)}
   * @return a delay in {@code [0, capNanos]}
   */
  long apply(long delayNanos, long capNanos, double u);

  /** Whether {@link #apply} reads {@code u}; the strategies draw no random number when it does not. */
  default boolean isRandom() {
    return true;
  }

  /** No jitter: the delay as scheduled. */
  static Jitter none() {
    return Jitters.NONE;
  }

  /** Full jitter (AWS): uniform in {@code [0, delay)}. Mean {@code delay/2}. */
  static Jitter full() {
    return Jitters.FULL;
  }

  /** Equal jitter (AWS): {@code delay/2 + U(0, delay/2)}, uniform in {@code [delay/2, delay)}. */
  static Jitter equal() {
    return Jitters.EQUAL;
  }

  /**
   * Proportional jitter of ±{@code factor} around the delay, uniform in
   * {@code [c·(1 − factor), c·(1 + factor))} (google-http-client's and Resilience4j's randomization factor).
   * Under the cap rule the centre is {@code c = min(delay, cap / (1 + factor))}, so the window's top is at
   * most the cap.
   *
   * @param factor the relative half-width, in {@code (0, 1]}
   * @throws IllegalArgumentException if {@code factor} is not in {@code (0, 1]}
   */
  static Jitter proportional(double factor) {
    return new Jitters.Proportional(Jitters.checkFactor("jitter factor", factor));
  }

  /**
   * Gaussian jitter with standard deviation {@code relativeDeviation · delay}, truncated at
   * {@code k = min(3, 1/relativeDeviation)} standard deviations so that it is bounded and never negative.
   * Under the cap rule the centre is {@code c = min(delay, cap / (1 + k·relativeDeviation))}. The normal
   * variate is derived from {@code u} by the truncated distribution's quantile function (tabulated at 4096
   * points and interpolated, within 0.002 standard deviations of the exact quantile), so it stays a pure,
   * monotonic function of u.
   *
   * @param relativeDeviation the standard deviation as a fraction of the delay, in {@code (0, 1]}
   * @throws IllegalArgumentException if {@code relativeDeviation} is not in {@code (0, 1]}
   */
  static Jitter gaussian(double relativeDeviation) {
    return new Jitters.Gaussian(Jitters.checkFactor("gaussian relative deviation", relativeDeviation));
  }
}
