package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Exact values of every strategy's formula for explicit {@code u}, including the seeds' worked examples. */
class StrategiesTest {
  private static final long MS = 1_000_000L;
  private static final long SECOND = 1_000_000_000L;

  private static long delay(Backoff backoff, int retry, double u) {
    return backoff.delayNanos(retry, 0, 0, new Uniforms(u));
  }

  @Test
  void noneAndFixedDrawNoRandomNumbers() {
    Uniforms random = new Uniforms(0.5);
    assertThat(Backoff.none().delayNanos(7, 0, 0, random)).isZero();
    assertThat(Backoff.fixed(Duration.ofMillis(100)).delayNanos(Integer.MAX_VALUE, 0, 0, random))
        .isEqualTo(100 * MS);
    assertThat(random.draws).isZero();
    assertThat(Backoff.fixed(Duration.ofMillis(100)).maxDelayNanos()).isEqualTo(100 * MS);
    assertThat(Backoff.fixed(Duration.ofMillis(100)).isRandom()).isFalse();
  }

  @Test
  void fixedWithJitterHasNoCap() {
    Backoff fixed = Backoff.fixed(Duration.ofSeconds(1), Jitter.proportional(0.5));
    assertThat(delay(fixed, 3, 0.0)).isEqualTo(500 * MS);
    assertThat(delay(fixed, 3, 0.75)).isEqualTo(1250 * MS);
    assertThat(fixed.maxDelayNanos()).isEqualTo(Long.MAX_VALUE);
    assertThat(delay(Backoff.fixed(Duration.ofSeconds(1), Jitter.full()), 1, 0.5)).isEqualTo(500 * MS);
  }

  @Test
  void linearGrowsByTheIncrementUpToTheCap() {
    Backoff linear = Backoff.linear(Duration.ofSeconds(1), Duration.ofMillis(500), Duration.ofSeconds(3));
    assertThat(delay(linear, 1, 0.3)).isEqualTo(SECOND);
    assertThat(delay(linear, 2, 0.3)).isEqualTo(1500 * MS);
    assertThat(delay(linear, 4, 0.3)).isEqualTo(2500 * MS);
    assertThat(delay(linear, 5, 0.3)).isEqualTo(3 * SECOND);
    assertThat(delay(linear, Integer.MAX_VALUE, 0.3)).isEqualTo(3 * SECOND);
    assertThat(linear.maxDelayNanos()).isEqualTo(3 * SECOND);
    Backoff flat = Backoff.linear(Duration.ofSeconds(1), Duration.ZERO, Duration.ofSeconds(3));
    assertThat(delay(flat, Integer.MAX_VALUE, 0.3)).isEqualTo(SECOND);
  }

  @Test
  void linearWithHugeIncrementDoesNotOverflow() {
    Backoff linear = Backoff.linear(Duration.ofNanos(1), Duration.ofDays(365 * 100),
        Duration.ofNanos(Long.MAX_VALUE));
    assertThat(delay(linear, 3, 0)).isEqualTo(1 + 2 * Duration.ofDays(365 * 100).toNanos());
    assertThat(delay(linear, Integer.MAX_VALUE, 0)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void exponentialFollowsInitialTimesMultiplierToTheNMinusOne() {
    Backoff exponential = Backoff.exponential(Duration.ofMillis(100), 1.5, Duration.ofSeconds(1));
    long[] expected = {100 * MS, 150 * MS, 225 * MS, 337_500_000L, 506_250_000L, 759_375_000L, SECOND, SECOND};
    for (int retry = 1; retry <= expected.length; retry++) {
      assertThat(delay(exponential, retry, 0.5)).as("retry %d", retry).isEqualTo(expected[retry - 1]);
    }
    assertThat(delay(exponential, 5000, 0.5)).isEqualTo(SECOND);
    assertThat(delay(exponential, Integer.MAX_VALUE, 0.5)).isEqualTo(SECOND);
  }

  @Test
  void exponentialWithMultiplierOneIsConstantBeyondItsTable() {
    Backoff flat = Backoff.exponential(Duration.ofMillis(100), 1, Duration.ofSeconds(1));
    assertThat(delay(flat, 1, 0)).isEqualTo(100 * MS);
    assertThat(delay(flat, 2000, 0)).isEqualTo(100 * MS);
    assertThat(delay(flat, Integer.MAX_VALUE, 0)).isEqualTo(100 * MS);
    Backoff slow = Backoff.exponential(Duration.ofMillis(100), 1.0001, Duration.ofDays(1));
    assertThat((double) delay(slow, 3000, 0)).isCloseTo(1e8 * Math.pow(1.0001, 2999), within(1.0));
  }

  @Test
  void seed004FullJitter() {
    // U(0, min(cap, base·2^(n−1))), base 100 ms, cap 20 s
    Backoff full = Backoff.exponential(Duration.ofMillis(100), 2, Duration.ofSeconds(20), Jitter.full());
    assertThat(delay(full, 1, 0.5)).isEqualTo(50 * MS);
    assertThat(delay(full, 3, 0.5)).isEqualTo(200 * MS);
    assertThat(delay(full, 3, 0.0)).isZero();
    assertThat(delay(full, 8, 0.5)).isEqualTo(6_400 * MS);
    assertThat(delay(full, 9, 0.5)).isEqualTo(10 * SECOND); // 25.6 s capped to 20 s, then jittered
    assertThat(delay(full, Integer.MAX_VALUE, 0.25)).isEqualTo(5 * SECOND);
  }

  @Test
  void seed004EqualJitter() {
    Backoff equal = Backoff.exponential(Duration.ofMillis(100), 2, Duration.ofSeconds(20), Jitter.equal());
    assertThat(delay(equal, 3, 0.0)).isEqualTo(200 * MS);
    assertThat(delay(equal, 3, 0.5)).isEqualTo(300 * MS);
    assertThat(delay(equal, 20, 0.5)).isEqualTo(15 * SECOND);
  }

  @Test
  void seed004DecorrelatedJitterKeepsSpreadingAtTheCap() {
    Backoff decorrelated = Backoff.decorrelated(Duration.ofMillis(100), Duration.ofSeconds(1));
    // first retry: previous starts at base, so U(100 ms, 300 ms)
    assertThat(decorrelated.delayNanos(1, 0, 0, new Uniforms(0.5))).isEqualTo(200 * MS);
    assertThat(decorrelated.delayNanos(2, 200 * MS, 200 * MS, new Uniforms(0.25))).isEqualTo(225 * MS);
    // 3·500 ms is above the cap: U(100 ms, 1 s), not min(cap, U(100 ms, 1.5 s))
    assertThat(decorrelated.delayNanos(3, 500 * MS, 0, new Uniforms(0.5))).isEqualTo(550 * MS);
    assertThat(decorrelated.delayNanos(9, SECOND, 0, new Uniforms(0.0))).isEqualTo(100 * MS);
    assertThat(decorrelated.delayNanos(9, SECOND, 0, new Uniforms(Math.nextDown(1.0)))).isLessThan(SECOND);
    assertThat(decorrelated.delayNanos(9, Long.MAX_VALUE, 0, new Uniforms(0.5))).isEqualTo(550 * MS);
  }

  @Test
  void decorrelatedV2FollowsPollysFormula() {
    Backoff v2 = Backoff.decorrelatedV2(Duration.ofSeconds(1), Duration.ofHours(1));
    // retry 1: t = 0.5, 2^0.5·tanh(√2) / 1.4 s ≈ 897.404935 ms
    long first = v2.delayNanos(1, 0, 0, new Uniforms(0.5));
    assertThat(first).isCloseTo(897_404_935L, within(2L));
    // retry 2: t = 1.25, (2^1.25·tanh(√5) − 2^0.5·tanh(√2)) / 1.4 s ≈ 763.088757 ms
    long second = v2.delayNanos(2, first, first, new Uniforms(0.25));
    assertThat(second).isCloseTo(763_088_757L, within(5L));
    assertThat(v2.delayNanos(1, 0, 0, new Uniforms(0.0))).isZero();
  }

  @Test
  void decorrelatedV2SpreadsBelowTheCapWhereThePollyFormulaPassesIt() {
    Backoff v2 = Backoff.decorrelatedV2(Duration.ofSeconds(1), Duration.ofSeconds(10));
    assertThat(v2.delayNanos(40, 0, 0, new Uniforms(0.0))).isEqualTo(5 * SECOND);
    assertThat(v2.delayNanos(40, 0, 0, new Uniforms(0.5))).isEqualTo(7_500 * MS);
    assertThat(v2.delayNanos(Integer.MAX_VALUE, 0, 0, new Uniforms(0.5))).isEqualTo(7_500 * MS);
  }

  @Test
  void seed000And001GoogleCloudWorkedExample() {
    // wait = min(2^n s + random_ms, maximum_backoff) with n from 0: 1 s + r, 2 s + r, 4 s + r, ...
    Backoff google = Backoff.googleCloud(Duration.ofSeconds(32));
    assertThat(delay(google, 1, 0.0)).isEqualTo(SECOND);
    assertThat(delay(google, 1, 0.5)).isEqualTo(1500 * MS); // floor(1001 · 0.5) = 500 ms
    assertThat(delay(google, 1, Math.nextDown(1.0))).isEqualTo(2 * SECOND); // random_ms may be 1000
    assertThat(delay(google, 2, 0.25)).isEqualTo(2250 * MS);
    assertThat(delay(google, 3, 0.1)).isEqualTo(4100 * MS);
    assertThat(delay(google, 5, 0.999)).isEqualTo(16_999 * MS);
    assertThat(delay(google, 6, 0.0)).isEqualTo(32 * SECOND); // 32 s + r, capped
    assertThat(delay(google, 6, 0.7)).isEqualTo(32 * SECOND);
    assertThat(delay(google, Integer.MAX_VALUE, 0.7)).isEqualTo(32 * SECOND);
    Backoff google64 = Backoff.googleCloud(Duration.ofSeconds(64));
    assertThat(delay(google64, 6, 0.25)).isEqualTo(32_250 * MS);
    assertThat(delay(google64, 7, 0.25)).isEqualTo(64 * SECOND);
    assertThat(google64.maxDelayNanos()).isEqualTo(64 * SECOND);
  }

  @Test
  void googleCloudDrawsAFreshRandomNumberEachRetry() {
    Backoff google = Backoff.googleCloud(Duration.ofSeconds(32));
    Uniforms random = new Uniforms(0.1, 0.9);
    assertThat(google.delayNanos(1, 0, 0, random)).isEqualTo(1100 * MS);
    assertThat(google.delayNanos(2, 0, 0, random)).isEqualTo(2900 * MS);
    assertThat(random.draws).isEqualTo(2);
  }

  @Test
  void durationsOfCenturiesSaturateInsteadOfOverflowing() {
    Duration huge = Duration.ofSeconds(Long.MAX_VALUE);
    Backoff exponential = Backoff.exponential(Duration.ofDays(365 * 200), 3, huge, Jitter.full());
    assertThat(exponential.maxDelayNanos()).isEqualTo(Long.MAX_VALUE);
    assertThat(delay(exponential, Integer.MAX_VALUE, 0.5)).isEqualTo(Long.MAX_VALUE / 2 + 1);
    assertThat(delay(Backoff.fixed(huge), 1, 0)).isEqualTo(Long.MAX_VALUE);
    assertThat(delay(Backoff.googleCloud(huge), Integer.MAX_VALUE, 0.5)).isEqualTo(Long.MAX_VALUE);
    assertThat(delay(Backoff.googleCloud(huge), 34, 0.5)).isEqualTo(Long.MAX_VALUE);
    assertThat(delay(Backoff.googleCloud(huge), 33, 0.0)).isEqualTo((1L << 32) * SECOND);
  }

  @Test
  void retryNumbersBelowOneAreTreatedAsTheFirst() {
    Backoff exponential = Backoff.exponential(Duration.ofMillis(100), 2, Duration.ofSeconds(1));
    assertThat(delay(exponential, 0, 0)).isEqualTo(100 * MS);
    assertThat(delay(exponential, Integer.MIN_VALUE, 0)).isEqualTo(100 * MS);
    assertThat(delay(Backoff.googleCloud(Duration.ofSeconds(32)), 0, 0)).isEqualTo(SECOND);
  }
}
