package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.HedgingVirtualDriver.Answer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The adaptive hedging delay: its quantile over explicit samples (exact, bucket bounds worked out by hand), its
 * warm-up, bounds and window, the extra-load cap, and what the call machine feeds it (in virtual time).
 */
class AdaptiveHedgeDelayTest {
  private static final long MS = 1_000_000;

  private static AdaptiveHedgeDelay.Builder wide() {
    return AdaptiveHedgeDelay.builder().bounds(Duration.ZERO, Duration.ofHours(1));
  }

  @Test
  void theDelayIsTheNearestRankQuantileExactBelow32Nanoseconds() {
    AdaptiveHedgeDelay delay = wide().window(20).warmUp(20).initialDelay(Duration.ofNanos(7)).build();
    for (long sample = 20; sample >= 1; sample--) { // order does not matter
      assertThat(delay.delayNanos()).as("warm-up").isEqualTo(7);
      delay.record(sample);
    }
    assertThat(delay.delayNanos()).as("the ceil(0.95 × 20) = 19th smallest of 1..20").isEqualTo(19);
  }

  @Test
  void aLatencyIsRoundedUpToItsBucketsBoundAtMostOneSixteenthAbove() {
    AdaptiveHedgeDelay delay = wide().window(100).warmUp(100).build();
    for (int ms = 1; ms <= 100; ms++) {
      delay.record(ms * MS);
    }
    // The 95th smallest is 95 ms = 95 000 000 ns, between 2^26 and 2^27: buckets of 2^22 ns; 95e6 >> 22 = 22,
    // so its bucket ends at 23 × 2^22 - 1.
    assertThat(delay.delayNanos()).isEqualTo(23L * (1 << 22) - 1).isEqualTo(96_468_991L);
    assertThat(AdaptiveHedgeDelay.upperBound(AdaptiveHedgeDelay.bucket(32))).isEqualTo(33);
    assertThat(AdaptiveHedgeDelay.upperBound(AdaptiveHedgeDelay.bucket(Long.MAX_VALUE)))
        .as("the last bucket holds everything from 2^40 ns").isEqualTo((32L << 36) - 1);
  }

  @Test
  void theDelayStaysWithinItsBoundsAndFollowsTheLastWindowOnly() {
    AdaptiveHedgeDelay delay = AdaptiveHedgeDelay.builder().bounds(Duration.ofMillis(2), Duration.ofMillis(40))
        .window(20).warmUp(10).build();
    assertThat(delay.delay()).as("the initial delay defaults to the greatest").isEqualTo(Duration.ofMillis(40));
    for (int i = 0; i < 20; i++) {
      delay.record(MS / 2);
    }
    assertThat(delay.delayNanos()).as("0.5 ms, raised to the least delay").isEqualTo(2 * MS);
    for (int i = 0; i < 19; i++) {
      delay.record(30 * MS);
    }
    // 19 of the last 20 are 30 ms: 30e6 >> 20 = 28, so its bucket ends at 29 × 2^20 - 1.
    assertThat(delay.delayNanos())
        .isEqualTo(29L * (1 << 20) - 1);
    for (int i = 0; i < 20; i++) {
      delay.record(90 * MS);
    }
    assertThat(delay.delayNanos()).as("the older latencies left the window; 90 ms, lowered to the greatest")
        .isEqualTo(40 * MS);
    assertThat(delay.latenciesRecorded()).isEqualTo(59);
  }

  @Test
  void aLargeWindowComputesTheQuantileEvery20Latencies() {
    AdaptiveHedgeDelay delay = wide().initialDelay(Duration.ofMillis(100)).warmUp(5).build(); // window 1000
    for (int i = 0; i < 5; i++) {
      delay.record(10);
    }
    assertThat(delay.delayNanos()).as("at the warm-up's end").isEqualTo(10);
    for (int i = 5; i < 19; i++) {
      delay.record(1000);
    }
    assertThat(delay.delayNanos()).as("not yet recomputed").isEqualTo(10);
    delay.record(1000);
    assertThat(delay.delayNanos()).as("the 20th latency: 19 of 20 above 10 ns").isEqualTo(1023);
  }

  @Test
  void theExtraLoadCapAllowsItsShareOfFirstAttemptsAndTakesBackUnsentHedges() {
    AdaptiveHedgeDelay delay = AdaptiveHedgeDelay.builder().maxExtraLoad(0.25).window(10).build(); // holds 2.5 → 2
    assertThat(delay.tryHedge()).as("the bucket starts empty").isFalse();
    for (int i = 0; i < 4; i++) {
      delay.firstAttemptStarted();
    }
    assertThat(delay.tryHedge()).isTrue();
    assertThat(delay.tryHedge()).isFalse();
    delay.hedgeNotSent();
    assertThat(delay.hedgesSent()).isZero();
    assertThat(delay.tryHedge()).as("the unsent hedge's token came back").isTrue();
    for (int i = 0; i < 40; i++) {
      delay.firstAttemptStarted();
    }
    assertThat(delay.tryHedge()).isTrue();
    assertThat(delay.tryHedge()).isTrue();
    assertThat(delay.tryHedge()).as("the bucket holds at most 0.25 × 10 = 2 whole tokens").isFalse();
    assertThat(delay.hedgesSent()).isEqualTo(3);
    assertThat(delay.hedgesRefused()).isEqualTo(3);
  }

  @Test
  void badParametersFailNamingThem() {
    AdaptiveHedgeDelay.Builder b = AdaptiveHedgeDelay.builder();
    assertThatThrownBy(() -> b.quantile(1)).hasMessage("quantile must be in (0, 1), was 1.0");
    assertThatThrownBy(() -> b.quantile(Double.NaN)).hasMessageStartingWith("quantile must be in (0, 1)");
    assertThatThrownBy(() -> b.maxExtraLoad(0)).hasMessage("maxExtraLoad must be in (0, 1], was 0.0");
    assertThatThrownBy(() -> b.window(9)).hasMessage("window must be in [10, 1000000], was 9");
    assertThatThrownBy(() -> b.warmUp(0)).hasMessage("warmUp must be at least 1, was 0");
    assertThatThrownBy(() -> b.bounds(Duration.ofMillis(5), Duration.ofMillis(4)))
        .hasMessage("minDelay 5ms must not exceed maxDelay 4ms");
    assertThatThrownBy(() -> b.bounds(Duration.ofMillis(-1), Duration.ofMillis(4))).hasMessageContaining("minDelay");
    assertThatThrownBy(() -> b.initialDelay(null)).hasMessageContaining("initialDelay");
    assertThatThrownBy(() -> AdaptiveHedgeDelay.builder().initialDelay(Duration.ofMinutes(1)).build())
        .hasMessage("initialDelay 1m must lie within minDelay 1ms and maxDelay 10s");
    assertThatThrownBy(() -> AdaptiveHedgeDelay.builder().window(10).warmUp(11).build())
        .hasMessage("warmUp 11 must not exceed window 10");
    assertThatThrownBy(() -> AdaptiveHedgeDelay.builder().build().record(-1)).hasMessageContaining("latencyNanos");
    assertThatThrownBy(() -> Hedging.adaptive(null)).hasMessageContaining("delay");
    assertThatThrownBy(() -> Hedging.atQuantile(0)).hasMessageStartingWith("quantile");
  }

  @Test
  void anAdaptiveHedgingReportsItsLiveDelay() {
    AdaptiveHedgeDelay delay = wide().window(10).warmUp(1).build();
    Hedging hedging = Hedging.adaptive(delay).maxHedges(2);
    delay.record(5);
    assertThat(hedging.delayNanos()).isEqualTo(5);
    assertThat(hedging.adaptiveDelay()).isSameAs(delay);
    assertThat(hedging).isEqualTo(Hedging.adaptive(delay).maxHedges(2)).isNotEqualTo(Hedging.atQuantile(0.95));
    assertThat(hedging.toString()).isEqualTo("hedging at adaptive hedge delay p95 within [0s, 1h], now 5ns, extra "
        + "load at most 0.05, at most 2 hedges");
    assertThat(Hedging.percentile(0.999)).isEqualTo("99.9");
  }

  @Test
  void aHedgeTheRetryBudgetRefusesGivesItsTokenBack() {
    AdaptiveHedgeDelay delay = AdaptiveHedgeDelay.builder().window(10).maxExtraLoad(1)
        .initialDelay(Duration.ofMillis(10)).build();
    HedgingVirtualDriver driver = new HedgingVirtualDriver();
    RetryBudget broke = RetryBudgets.grpcThrottling(2, 0.1);
    broke.onFailure(FailureClass.TRANSIENT); // 1 token of 2: at half, hedges are refused
    assertThat(driver.run(policy(driver, delay, broke), n -> Answer.ok(30, "ok"))).containsExactly("0 attempt 1",
        "0 hedge in 10ms", "10 no more hedges (BUDGET_EXHAUSTED)", "30 won by attempt 1", "30 complete succeeded ok");
    assertThat(delay.hedgesSent()).isZero();
    assertThat(delay.tryHedge()).as("the first attempt's credit is still there").isTrue();
  }

  // ---- through the call machine (HedgingVirtualDriver: one call in virtual time per driver) ----

  private static RetryPolicy<String> policy(HedgingVirtualDriver driver, AdaptiveHedgeDelay delay,
      RetryBudget budget) {
    return RetryPolicy.<String>builder().name("adaptive").maxAttempts(2).hedging(Hedging.adaptive(delay))
        .budget(budget).clock(driver.clock).backoff(Backoff.fixed(Duration.ofMillis(1))).build();
  }

  @Test
  void theMachineRecordsSuccessfulCallsAndHedgesAtTheLiveDelayWithinTheCap() {
    AdaptiveHedgeDelay delay = AdaptiveHedgeDelay.builder().window(10).warmUp(2).maxExtraLoad(0.4)
        .initialDelay(Duration.ofMillis(100)).build();
    ExecutionTest.CountingBudget budget = new ExecutionTest.CountingBudget(100);
    for (int call = 0; call < 2; call++) {
      HedgingVirtualDriver driver = new HedgingVirtualDriver();
      assertThat(driver.run(policy(driver, delay, budget), n -> Answer.ok(20, "ok")))
          .containsExactly("0 attempt 1", "0 hedge in 100ms", "20 won by attempt 1", "20 complete succeeded ok");
    }
    long delayNow = 20_971_519; // 20e6 >> 20 = 19: 20 ms's bucket ends at 20 × 2^20 - 1
    assertThat(delay.delayNanos()).isEqualTo(delayNow);
    HedgingVirtualDriver slow = new HedgingVirtualDriver();
    assertThat(slow.run(policy(slow, delay, budget), n -> n == 1 ? Answer.ok(80, "late") : Answer.ok(5, "hedge")))
        .as("3 first attempts credited 1.2 tokens: this hedge goes, charged to the retry budget").containsExactly(
            "0 attempt 1", "0 hedge in 20ms", "20 attempt 2", "20 no more hedges (ATTEMPTS_EXHAUSTED)",
            "25 won by attempt 2", "25 cancel attempt 1", "25 complete succeeded hedge");
    assertThat(budget.log).filteredOn(entry -> entry.startsWith("acquire")).hasSize(1);
    assertThat(delay.latenciesRecorded()).as("a hedge's win records the time from the call's start").isEqualTo(3);
    HedgingVirtualDriver capped = new HedgingVirtualDriver();
    // 0.2 + 0.4 tokens: refused; the delay is now the hedge's win at 20.97 + 5 ms, its bucket ending at 25 × 2^20 - 1.
    assertThat(capped.run(policy(capped, delay, budget), n -> Answer.ok(80, "late")))
        .containsExactly("0 attempt 1", "0 hedge in 26ms", "26 no more hedges (null)", "80 won by attempt 1",
            "80 complete succeeded late");
    assertThat(budget.log).as("a hedge the cap refused is not charged")
        .filteredOn(entry -> entry.startsWith("acquire")).hasSize(1);
    assertThat(delay.hedgesSent()).isEqualTo(1);
    assertThat(delay.hedgesRefused()).isEqualTo(1);
  }

  @Test
  void aFailureStillStartsTheNextAttemptWhenTheCapRefusedTheHedgeAndFailedCallsAreNotRecorded() {
    AdaptiveHedgeDelay delay = AdaptiveHedgeDelay.builder().window(10).warmUp(1).maxExtraLoad(0.1)
        .initialDelay(Duration.ofMillis(10)).build();
    HedgingVirtualDriver driver = new HedgingVirtualDriver();
    assertThat(driver.run(policy(driver, delay, null),
        n -> n == 1 ? Answer.fail(30, new java.io.IOException("reset")) : Answer.ok(5, "ok"))).containsExactly(
            "0 attempt 1", "0 hedge in 10ms", "10 no more hedges (null)", "30 hedge in 0ms", "30 attempt 2",
            "30 no more hedges (ATTEMPTS_EXHAUSTED)", "35 won by attempt 2", "35 complete succeeded ok");
    assertThat(delay.latenciesRecorded()).as("the call had a failed attempt").isZero();
    assertThat(delay.hedgesRefused()).isEqualTo(1);
  }
}
