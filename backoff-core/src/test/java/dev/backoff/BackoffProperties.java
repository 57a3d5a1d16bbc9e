package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/** Bounds, the cap rule and overflow safety, over every strategy, jitter and preset. */
class BackoffProperties {
  private static final long MICRO = 1_000L;

  // ---- generators ----

  /** Durations from 1 ns to Long.MAX_VALUE ns (292 years), with the edges. */
  private static Arbitrary<Long> nanos() {
    return Arbitraries.oneOf(
        Arbitraries.longs().between(1, Long.MAX_VALUE),
        Arbitraries.longs().between(1, Duration.ofDays(365 * 10).toNanos()),
        Arbitraries.of(1L, MICRO, 1_000_000L, Long.MAX_VALUE, Long.MAX_VALUE - 1, (1L << 62) + 513));
  }

  private static Arbitrary<Double> factors() {
    return Arbitraries.oneOf(Arbitraries.doubles().between(1e-9, 1.0).ofScale(12), Arbitraries.of(1.0, 0.5, 0.1, 1e-9));
  }

  static Arbitrary<Jitter> jitters() {
    return Arbitraries.oneOf(
        Arbitraries.of(Jitter.none(), Jitter.full(), Jitter.equal()),
        factors().map(Jitter::proportional),
        factors().map(Jitter::gaussian));
  }

  /** Random jitters wide enough to spread (factors of 1 % or more). */
  static Arbitrary<Jitter> randomJitters() {
    Arbitrary<Double> wide = Arbitraries.doubles().between(0.01, 1.0).ofScale(6);
    return Arbitraries.oneOf(Arbitraries.of(Jitter.full(), Jitter.equal()), wide.map(Jitter::proportional),
        wide.map(Jitter::gaussian));
  }

  private static Arbitrary<Double> multipliers() {
    return Arbitraries.oneOf(Arbitraries.doubles().between(1.0, 100.0).ofScale(6), Arbitraries.of(1.0, 1.5, 2.0, Math.E));
  }

  /** Every built-in strategy with arbitrary (valid) parameters. */
  static Arbitrary<Backoff> ownStrategies() {
    Arbitrary<Backoff> fixed = Combinators.combine(nanos(), jitters())
        .as((delay, jitter) -> Backoff.fixed(Duration.ofNanos(delay), jitter));
    Arbitrary<Backoff> linear = Combinators.combine(nanos(), nanos(), nanos(), jitters())
        .as((initial, increment, extra, jitter) -> Backoff.linear(Duration.ofNanos(initial),
            Duration.ofNanos(increment), Duration.ofNanos(Nanos.add(initial, extra)), jitter));
    Arbitrary<Backoff> exponential = Combinators.combine(nanos(), multipliers(), nanos(), jitters())
        .as((initial, multiplier, extra, jitter) -> Backoff.exponential(Duration.ofNanos(initial), multiplier,
            Duration.ofNanos(Nanos.add(initial, extra)), jitter));
    Arbitrary<Backoff> decorrelated = Combinators.combine(nanos(), nanos())
        .as((base, extra) -> Backoff.decorrelated(Duration.ofNanos(base), Duration.ofNanos(Nanos.add(base, extra))));
    Arbitrary<Backoff> decorrelatedV2 = Combinators.combine(nanos(), nanos())
        .as((median, extra) -> Backoff.decorrelatedV2(Duration.ofNanos(median),
            Duration.ofNanos(Nanos.add(median, extra))));
    Arbitrary<Backoff> google = nanos().map(max -> Backoff.googleCloud(Duration.ofNanos(max)));
    return Arbitraries.oneOf(fixed, linear, exponential, decorrelated, decorrelatedV2, google,
        Arbitraries.just(Backoff.none()));
  }

  @Provide
  Arbitrary<Backoff> everyBackoff() {
    return Arbitraries.oneOf(ownStrategies(), Arbitraries.of(Preset.values()).map(Preset::backoff));
  }

  @Provide
  Arbitrary<Integer> retries() {
    return Arbitraries.oneOf(Arbitraries.integers().between(1, 100), Arbitraries.integers().between(1, Integer.MAX_VALUE),
        Arbitraries.of(1, 2, 31, 32, 33, 34, 63, 64, 1023, 1024, 1025, Integer.MAX_VALUE - 1, Integer.MAX_VALUE));
  }

  @Provide
  Arbitrary<Double> uniforms() {
    return Arbitraries.oneOf(Arbitraries.doubles().between(0.0, 1.0).ofScale(15).filter(u -> u < 1.0),
        Arbitraries.of(0.0, 0.5, Math.nextDown(1.0)));
  }

  @Provide
  Arbitrary<Long> histories() {
    return Arbitraries.oneOf(Arbitraries.longs().between(0, Long.MAX_VALUE), Arbitraries.of(0L, Long.MAX_VALUE));
  }

  // ---- properties ----

  @Property(tries = 3000)
  void delaysAreNeverNegativeNorAboveTheMaximum(@ForAll("everyBackoff") Backoff backoff,
      @ForAll("retries") int retry, @ForAll("histories") long previous, @ForAll("histories") long total,
      @ForAll("uniforms") double u) {
    long delay = backoff.delayNanos(retry, previous, total, new Uniforms(u));
    assertThat(delay).as("%s at retry %d, u %s", backoff, retry, u)
        .isGreaterThanOrEqualTo(0).isLessThanOrEqualTo(backoff.maxDelayNanos());
  }

  @Property(tries = 1000)
  void aCallsDelaysStayInBoundsWhenFedTheirOwnHistory(@ForAll("everyBackoff") Backoff backoff,
      @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long seed) {
    SplittableRandom source = new SplittableRandom(seed);
    long previous = 0;
    long total = 0;
    for (int retry = 1; retry <= 200; retry++) {
      long delay = backoff.delayNanos(retry, previous, total, new Uniforms(source.nextDouble()));
      assertThat(delay).as("%s at retry %d", backoff, retry)
          .isGreaterThanOrEqualTo(0).isLessThanOrEqualTo(backoff.maxDelayNanos());
      previous = delay;
      total = Nanos.add(total, delay);
    }
  }

  @Property(tries = 2000)
  void everyJitterReturnsAValueBetweenZeroAndTheCap(@ForAll("jitter") Jitter jitter,
      @ForAll("capAndDelay") long[] capAndDelay, @ForAll("uniforms") double u) {
    long cap = capAndDelay[0];
    long delay = capAndDelay[1];
    assertThat(jitter.apply(delay, cap, u)).as("%s(%d, cap %d, u %s)", jitter, delay, cap, u)
        .isBetween(0L, cap);
  }

  @Provide
  Arbitrary<Jitter> jitter() {
    return jitters();
  }

  @Provide
  Arbitrary<long[]> capAndDelay() {
    return nanos().flatMap(cap -> Arbitraries.oneOf(Arbitraries.longs().between(0, cap), Arbitraries.just(cap))
        .map(delay -> new long[] {cap, delay}));
  }

  /**
   * The cap rule's second half: at the cap, a random jitter keeps spreading, so clients that all reached the
   * cap do not retry in lock-step. Checked on a seeded sample of 1000 draws: none lands exactly on the cap
   * and they take many distinct values (for caps of 10 ms or more and jitter factors of 1 % or more, so
   * the window is thousands of nanoseconds wide).
   */
  @Property(tries = 300)
  void randomJittersKeepTheirSpreadAtTheCap(@ForAll("randomJitter") Jitter jitter,
      @ForAll @LongRange(min = 10_000_000L, max = Long.MAX_VALUE) long cap) {
    assertSpreadBelowCap(u -> jitter.apply(cap, cap, u), cap, jitter.toString());
  }

  @Provide
  Arbitrary<Jitter> randomJitter() {
    return randomJitters();
  }

  @Property(tries = 300)
  void ourCappedStrategiesKeepTheirSpreadAtTheCap(@ForAll("strategyAtItsCap") Backoff backoff) {
    long cap = backoff.maxDelayNanos();
    // Retry Integer.MAX_VALUE is at the cap for every generated schedule; previous = cap puts decorrelated there.
    assertSpreadBelowCap(u -> backoff.delayNanos(Integer.MAX_VALUE, cap, cap, new Uniforms(u)), cap,
        backoff.toString());
  }

  @Provide
  Arbitrary<Backoff> strategyAtItsCap() {
    Arbitrary<Long> initial = Arbitraries.longs().between(10_000_000L, Duration.ofDays(365).toNanos());
    Arbitrary<Long> steps = Arbitraries.longs().between(1, 1000);
    Arbitrary<Backoff> exponential = Combinators.combine(initial, Arbitraries.doubles().between(1.01, 100),
            Arbitraries.longs().between(1_000_000L, Long.MAX_VALUE / 2), randomJitters())
        .as((start, multiplier, extra, jitter) -> Backoff.exponential(Duration.ofNanos(start), multiplier,
            Duration.ofNanos(start + extra), jitter));
    Arbitrary<Long> upToADay = Arbitraries.longs().between(10_000_000L, Duration.ofDays(1).toNanos());
    Arbitrary<Backoff> linear = Combinators.combine(upToADay, upToADay, steps, randomJitters())
        .as((start, increment, count, jitter) -> Backoff.linear(Duration.ofNanos(start),
            Duration.ofNanos(increment), Duration.ofNanos(start + increment * count), jitter));
    Arbitrary<Backoff> decorrelated = Combinators.combine(initial, Arbitraries.longs().between(1_000_000L,
            Long.MAX_VALUE / 2))
        .as((base, extra) -> Backoff.decorrelated(Duration.ofNanos(base), Duration.ofNanos(base + extra)));
    Arbitrary<Backoff> decorrelatedV2 = Combinators.combine(initial, Arbitraries.longs().between(1_000_000L,
            Long.MAX_VALUE / 2))
        .as((median, extra) -> Backoff.decorrelatedV2(Duration.ofNanos(median), Duration.ofNanos(median + extra)));
    Arbitrary<Backoff> presets = Arbitraries.of(Preset.AWS_STANDARD.backoff(), Preset.GRPC.backoff(),
        Backoff.exponential(Duration.ofMillis(100), Math.E, Duration.ofMinutes(5), Jitter.gaussian(0.1)));
    return Arbitraries.oneOf(exponential, linear, decorrelated, decorrelatedV2, presets);
  }

  private static void assertSpreadBelowCap(java.util.function.DoubleToLongFunction delayOf, long cap,
      String what) {
    SplittableRandom source = new SplittableRandom(cap);
    Set<Long> distinct = new HashSet<>();
    int atCap = 0;
    for (int i = 0; i < 1000; i++) {
      long delay = delayOf.applyAsLong(source.nextDouble());
      assertThat(delay).as(what).isBetween(0L, cap);
      if (delay == cap) {
        atCap++;
      }
      distinct.add(delay);
    }
    assertThat(atCap).as("draws at exactly the cap for %s", what).isZero();
    assertThat(distinct).as("distinct delays at the cap for %s", what).hasSizeGreaterThan(500);
  }

  @Property(tries = 20)
  void fullAndEqualJitterHaveTheRightMeans(@ForAll @LongRange(min = 1_000_000L, max = Long.MAX_VALUE) long delay,
      @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long seed) {
    SplittableRandom source = new SplittableRandom(seed);
    int n = 200_000;
    double fullSum = 0;
    double equalSum = 0;
    for (int i = 0; i < n; i++) {
      double u = source.nextDouble();
      fullSum += Jitter.full().apply(delay, delay, u);
      equalSum += Jitter.equal().apply(delay, delay, u);
    }
    // The mean of n uniforms has standard deviation 1/√(12n) ≈ 0.00065 of the range: 1 % is over 6 sigma.
    assertThat(fullSum / n / delay).isBetween(0.49, 0.51);
    assertThat(equalSum / n / delay).isBetween(0.74, 0.76);
  }

  @Property(tries = 20)
  void proportionalAndGaussianJitterAreCentredOnTheDelayBelowTheCap(
      @ForAll @DoubleRange(min = 0.01, max = 1.0) double factor,
      @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long seed) {
    long delay = 1_000_000_000L;
    SplittableRandom source = new SplittableRandom(seed);
    int n = 100_000;
    double proportionalSum = 0;
    double gaussianSum = 0;
    Jitter proportional = Jitter.proportional(factor);
    Jitter gaussian = Jitter.gaussian(factor);
    for (int i = 0; i < n; i++) {
      double u = source.nextDouble();
      proportionalSum += proportional.apply(delay, Long.MAX_VALUE, u);
      gaussianSum += gaussian.apply(delay, Long.MAX_VALUE, u);
    }
    assertThat(proportionalSum / n / delay).isBetween(0.99, 1.01);
    assertThat(gaussianSum / n / delay).isBetween(0.99, 1.01);
  }

  @Property(tries = 500)
  void deterministicSchedulesDrawNoRandomNumbers(@ForAll("retries") int retry,
      @ForAll @IntRange(min = 1, max = 1000) int millis) {
    Uniforms random = new Uniforms(0.5);
    Duration initial = Duration.ofMillis(millis);
    Backoff.fixed(initial).delayNanos(retry, 0, 0, random);
    Backoff.linear(initial, initial, initial.multipliedBy(50)).delayNanos(retry, 0, 0, random);
    Backoff.exponential(initial, 2, initial.multipliedBy(1000)).delayNanos(retry, 0, 0, random);
    assertThat(random.draws).isZero();
  }

  @Property(tries = 500)
  void exponentialSchedulesNeverDecrease(@ForAll("retries") int retry,
      @ForAll @LongRange(min = 1, max = Long.MAX_VALUE / 4) long initial,
      @ForAll @DoubleRange(min = 1.0, max = 10.0) double multiplier) {
    Backoff exponential = Backoff.exponential(Duration.ofNanos(initial), multiplier, Duration.ofNanos(initial * 4));
    Uniforms random = new Uniforms(0.5);
    int next = retry == Integer.MAX_VALUE ? retry : retry + 1;
    assertThat(exponential.delayNanos(next, 0, 0, random))
        .isGreaterThanOrEqualTo(exponential.delayNanos(retry, 0, 0, random));
  }

  @Property(tries = 2000)
  void decorrelatedV2sFastTanhMatchesTheLibraryOne(@ForAll @DoubleRange(min = 0, max = 1100) double t) {
    double expected = Math.pow(2, t) * Math.tanh(Math.sqrt(4 * t));
    double actual = Strategies.DecorrelatedV2.formula(t);
    if (Double.isInfinite(expected)) {
      assertThat(actual).isInfinite();
    } else {
      assertThat(actual).isCloseTo(expected, org.assertj.core.api.Assertions.within(Math.abs(expected) * 1e-14));
    }
  }

  @Property(tries = 5000)
  void decorrelatedV2sPowerOfTwoIsWithinAFewUlpsOfTheLibraryOne(@ForAll("exponents") double y) {
    double expected = StrictMath.pow(2, y);
    double actual = Strategies.DecorrelatedV2.exp2(y);
    // Below 2^-1022 the result is subnormal, with fewer digits: one unit in the last place is all one can ask.
    if (expected == 0 || Double.isInfinite(expected)) {
      assertThat(actual).isEqualTo(expected);
    } else {
      // Relative 1e-15, but at least a few ulps: among subnormal results (below 2^-1022) the relative
      // tolerance underflows to nothing while one ulp is still 4.9e-324.
      assertThat(actual).isCloseTo(expected, org.assertj.core.api.Assertions.within(
          Math.max(Math.abs(expected) * 1e-15, 4 * Math.ulp(expected))));
    }
  }

  @Property(tries = 200)
  void decorrelatedV2sPowerOfTwoIsExactAtWholeNumbers(@ForAll @IntRange(min = -1100, max = 1100) int n) {
    assertThat(Strategies.DecorrelatedV2.exp2(n)).isEqualTo(StrictMath.pow(2, n));
  }

  @Provide
  Arbitrary<Double> exponents() {
    return Arbitraries.oneOf(Arbitraries.doubles().between(-1100, 1100),
        Arbitraries.doubles().between(-1, 1),
        Arbitraries.of(-1000.0, Math.nextUp(-1000.0), Math.nextDown(1000.0), 1000.0, 1023.5, 1024.0, -1074.0,
            1.0 / 128, -1.0 / 128, Math.nextDown(1.0 / 128), 0.0, -0.0));
  }

  @Property(tries = 2000)
  void theInverseNormalDistributionInvertsTheDistribution(@ForAll @DoubleRange(min = -3, max = 3) double z) {
    assertThat(Jitters.inverseNormalCdf(Jitters.normalCdf(z))).isCloseTo(z, org.assertj.core.api.Assertions.within(1e-6));
  }

  @Property(tries = 3000)
  void theGaussianTableFollowsTheExactQuantile(@ForAll("uniforms") double u,
      @ForAll @DoubleRange(min = 0.01, max = 1.0) double deviation) {
    Jitters.Gaussian gaussian = (Jitters.Gaussian) Jitter.gaussian(deviation);
    double truncation = Math.min(3, 1 / deviation);
    double low = Jitters.normalCdf(-truncation);
    double exact = Jitters.inverseNormalCdf(low + u * (1 - 2 * low));
    exact = Math.max(-truncation, Math.min(truncation, exact));
    double tolerance = Math.abs(exact) <= 2 ? 1e-5 : 2e-3; // the quantile bends sharply only near ±3
    assertThat(gaussian.z(u)).isCloseTo(exact, org.assertj.core.api.Assertions.within(tolerance));
  }
}
