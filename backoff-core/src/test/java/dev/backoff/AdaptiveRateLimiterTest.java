package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.assertj.core.data.Offset;

/**
 * The adaptive limiter's formulas against worked examples computed by hand from the published model (the
 * class comment), with explicit times on a fake clock; its fail-fast and wait limits; its arguments.
 */
class AdaptiveRateLimiterTest {
  private static final long MS = 1_000_000L;
  private static final Offset<Double> EXACT = within(1e-9);
  // With 2 s buckets a lone first throttle shows 1 response / 2 s = 0.5/s: 0.7 * 0.5 is below the minimum
  // fill rate, so the limiter starts at its floor (0.5/s, capacity 1), where these tests want it.
  private static final Duration FLOOR_BUCKET = Duration.ofSeconds(2);
  // Anywhere: the limiter's time starts at its construction, and only differences are used.
  private final AtomicLong now = new AtomicLong(-7_000 * MS);
  private final AtomicInteger clockReads = new AtomicInteger();
  private final List<String> heard = new ArrayList<>();

  private final NanoClock clock = () -> {
    clockReads.incrementAndGet();
    return now.get();
  };

  private AdaptiveRateLimiter.Builder limiter() {
    return AdaptiveRateLimiter.builder().name("svc").clock(clock).listener(new AdaptiveRateLimiter.Listener() {
      @Override
      public void onRateChange(AdaptiveRateLimiter limiter, double fillRate, double measured, boolean throttled) {
        heard.add(String.format(java.util.Locale.ROOT, "%s %.9f", throttled ? "throttle" : "rate", fillRate));
      }

      @Override
      public void onWait(AdaptiveRateLimiter limiter, long waitNanos) {
        heard.add("wait " + waitNanos);
      }

      @Override
      public void onRefusal(AdaptiveRateLimiter limiter, long waitNanos) {
        heard.add("refused " + waitNanos);
      }
    });
  }

  /**
   * Nine successes at 0.1 s, then a throttle at 0.2 s, all in the open bucket 0: 10 responses over a whole
   * 0.5 s bucket, 20/s measured, so W_max = 20 and the limiter starts at 0.7 * 20 = 14/s with 14 tokens.
   */
  private void throttleAfterTenResponses(AdaptiveRateLimiter limiter, long origin) {
    at(origin, 100);
    for (int i = 0; i < 9; i++) {
      limiter.onResponse(false);
    }
    at(origin, 200);
    limiter.onResponse(true);
  }

  /** Moves the fake clock to {@code ms} milliseconds after the limiter was built at {@code origin}. */
  private void at(long origin, long ms) {
    now.set(origin + ms * MS);
  }

  @Test
  void theDefaultsWorkedExample() {
    long origin = now.get();
    AdaptiveRateLimiter limiter = limiter().build();
    int readsAtBuild = clockReads.get();

    // t = 0.1 s: four successes. Not enabled: only counted (bucket 0, still open); nothing limited, and a
    // reservation reads no clock.
    at(origin, 100);
    for (int i = 0; i < 4; i++) {
      limiter.onResponse(false);
    }
    assertThat(limiter.enabled()).isFalse();
    assertThat(limiter.measuredSendRate()).isZero();
    assertThat(limiter.fillRate()).isZero();
    int reads = clockReads.get();
    assertThat(limiter.reserve()).isZero();
    assertThat(clockReads.get()).as("a reservation before the first throttle reads no clock").isEqualTo(reads);
    assertThat(reads - readsAtBuild).as("one read per response").isEqualTo(4);

    // t = 0.6 s: a throttle, in bucket 1 (0.5 s buckets). It closes bucket 0: 5 responses / 0.5 s = 10/s,
    // measured = 0.8 * 10 + 0.2 * 0 = 8. First throttle: W_max = measured = 8, K = cbrt(8 * 0.3 / 0.4) =
    // cbrt(6) = 1.8171205928..., rate = 0.7 * 8 = 5.6 (below the ceiling 2 * 8 = 16): fill 5.6/s,
    // capacity 5.6, and the bucket starts full.
    at(origin, 600);
    limiter.onResponse(true);
    assertThat(limiter.enabled()).isTrue();
    assertThat(limiter.measuredSendRate()).isCloseTo(8.0, EXACT);
    assertThat(limiter.fillRate()).isCloseTo(5.6, EXACT);
    assertThat(limiter.capacity()).isCloseTo(5.6, EXACT);
    assertThat(limiter.tokens()).isCloseTo(5.6, EXACT);
    assertThat(limiter.throttles()).isEqualTo(1);

    // Five requests go at once (5.6 -> 0.6 tokens); the sixth waits (1 - 0.6) / 5.6 s = 0.0714285714... s,
    // rounded up to whole nanoseconds: 71 428 572 ns (the token is taken: 0.6 -> -0.4).
    for (int i = 0; i < 5; i++) {
      assertThat(limiter.reserve()).isZero();
    }
    assertThat(limiter.reserve()).isEqualTo(71_428_572L);
    assertThat(limiter.tokens()).isCloseTo(-0.4, EXACT);
    assertThat(limiter.waits()).isEqualTo(1);
    limiter.unreserve(); // that request is not sent after all: -0.4 -> 0.6
    assertThat(limiter.tokens()).isCloseTo(0.6, EXACT);

    // t = 1.1 s: a success, in bucket 2. It closes bucket 1: 1 response / 0.5 s = 2/s, measured =
    // 0.8 * 2 + 0.2 * 8 = 3.2. Cubic: x = 1.1 - 0.6 - K = -1.3171205928..., 0.4 * x^3 + 8 = 7.0860201715;
    // the ceiling 2 * 3.2 = 6.4 is lower: fill 6.4. The tokens first refill at the old rate for 0.5 s:
    // 0.6 + 0.5 * 5.6 = 3.4.
    at(origin, 1_100);
    limiter.onResponse(false);
    assertThat(limiter.measuredSendRate()).isCloseTo(3.2, EXACT);
    assertThat(limiter.fillRate()).isCloseTo(6.4, EXACT);
    assertThat(limiter.capacity()).isCloseTo(6.4, EXACT);
    assertThat(limiter.tokens()).isCloseTo(3.4, EXACT);

    // t = 1.1 s: a throttle, same bucket (counted, measured unchanged). W_max = min(3.2, 6.4) = 3.2,
    // K = cbrt(3.2 * 0.3 / 0.4) = cbrt(2.4) = 1.3388659001..., rate = 0.7 * 3.2 = 2.24: fill 2.24,
    // capacity 2.24, the tokens clipped from 3.4 to 2.24.
    limiter.onResponse(true);
    assertThat(limiter.fillRate()).isCloseTo(2.24, EXACT);
    assertThat(limiter.tokens()).isCloseTo(2.24, EXACT);

    // t = 2.1 s: a success, in bucket 4. It closes buckets 2-3: 2 responses / 1 s = 2/s, measured =
    // 0.8 * 2 + 0.2 * 3.2 = 2.24. Cubic: x = 2.1 - 1.1 - 1.3388659002 = -0.3388659002,
    // 0.4 * x^3 + 3.2 = 3.1844351982 (below the ceiling 4.48): fill 3.1844351982; tokens stay 2.24 (full
    // at the old capacity, below the new one).
    at(origin, 2_100);
    limiter.onResponse(false);
    assertThat(limiter.measuredSendRate()).isCloseTo(2.24, EXACT);
    assertThat(limiter.fillRate()).isCloseTo(3.1844351981502323, EXACT);
    assertThat(limiter.tokens()).isCloseTo(2.24, EXACT);

    assertThat(heard).containsExactly("throttle 5.600000000", "wait 71428572", "rate 6.400000000",
        "throttle 2.240000000", "rate 3.184435198");
  }

  /**
   * The cubic curve alone (the send-rate ceiling lifted, 1 s buckets): W_max = 36 makes
   * K = cbrt(36 * 0.3 / 0.4) = cbrt(27) = 3 s, so the rate is 0.4 * (t - t_last - 3)^3 + 36.
   */
  @Test
  void theCubicCurveFallsByBetaFlattensAtTheOldRateAndThenProbesBeyondIt() {
    long origin = now.get();
    AdaptiveRateLimiter limiter = limiter().timeBucket(Duration.ofSeconds(1)).sendRateCeiling(1_000).build();
    at(origin, 500);
    for (int i = 0; i < 44; i++) {
      limiter.onResponse(false);
    }
    // t = 1 s: the 45th response, a throttle, closes bucket 0: 45/s, measured 0.8 * 45 = 36 = W_max.
    at(origin, 1_000);
    limiter.onResponse(true);
    assertThat(limiter.measuredSendRate()).isCloseTo(36, EXACT);
    assertThat(limiter.fillRate()).as("0.7 * 36").isCloseTo(25.2, EXACT);
    // At 36/s measured (36 responses a bucket, 4.5 per eighth of it) a success reads the clock only every
    // 4th response of a bucket: the first three at t = 2 s leave the rate where the cut put it; the 4th
    // closes bucket 1 (4 responses: 4/s, measured 0.8 * 4 + 0.2 * 36 = 10.4, so every response reads the
    // clock from now on) and moves the rate along the curve.
    at(origin, 2_000);
    for (int i = 0; i < 3; i++) {
      limiter.onResponse(false);
    }
    assertThat(limiter.fillRate()).isCloseTo(25.2, EXACT);
    limiter.onResponse(false);
    assertThat(limiter.measuredSendRate()).isCloseTo(10.4, EXACT);
    assertThat(limiter.fillRate()).as("0.4 * (1 - 3)^3 + 36").isCloseTo(32.8, EXACT);
    at(origin, 4_000);
    limiter.onResponse(false);
    assertThat(limiter.fillRate()).as("0.4 * 0^3 + 36: the plateau at W_max").isCloseTo(36, EXACT);
    at(origin, 5_000);
    limiter.onResponse(false);
    assertThat(limiter.fillRate()).as("0.4 * 1^3 + 36").isCloseTo(36.4, EXACT);
    at(origin, 7_000);
    limiter.onResponse(false);
    assertThat(limiter.fillRate()).as("0.4 * 3^3 + 36").isCloseTo(46.8, EXACT);
    assertThat(limiter.capacity()).isCloseTo(46.8, EXACT);
    // The measured rate meanwhile (one response a bucket-span): t=4: 1 over 2 s, 0.8*0.5 + 0.2*10.4 = 2.48;
    // t=5: 0.8*1 + 0.2*2.48 = 1.296; t=7: 1 over 2 s, 0.8*0.5 + 0.2*1.296 = 0.6592.
    assertThat(limiter.measuredSendRate()).isCloseTo(0.6592, EXACT);
    // t = 7 s, a throttle: W_max = min(measured 0.6592, fill 46.8), rate 0.7 * 0.6592 = 0.46144, below the
    // minimum fill rate: fill 0.5, capacity 1 (the minimum), tokens clipped to 1.
    limiter.onResponse(true);
    assertThat(limiter.fillRate()).isEqualTo(0.5);
    assertThat(limiter.capacity()).isEqualTo(1.0);
    assertThat(limiter.tokens()).isEqualTo(1.0);
  }

  /**
   * Before the first throttle a busy client reads the clock about 8 times per bucket, not once per response:
   * every (largest power of two at most measured x 0.5 s / 8)-th response of a bucket.
   */
  @Test
  void beforeTheFirstThrottleABusyClientReadsTheClockOnlyEveryNthResponse() {
    long origin = now.get();
    AdaptiveRateLimiter limiter = limiter().build();
    at(origin, 100);
    for (int i = 0; i < 1_600; i++) {
      limiter.onResponse(false); // measured still 0: every response reads the clock
    }
    at(origin, 600);
    int reads = clockReads.get();
    limiter.onResponse(false);
    // Bucket 0 closed: 1601 responses / 0.5 s = 3202/s, measured 0.8 * 3202 = 2561.6; 2561.6 * 0.5 / 8 =
    // 160.1 responses per reading, so every 128th response of a bucket reads the clock.
    assertThat(limiter.measuredSendRate()).isCloseTo(2561.6, EXACT);
    assertThat(clockReads.get() - reads).isEqualTo(1);
    at(origin, 700);
    reads = clockReads.get();
    for (int i = 0; i < 1_280; i++) {
      limiter.onResponse(false);
    }
    assertThat(clockReads.get() - reads).as("responses 128, 256, ... 1280 of bucket 1").isEqualTo(10);
    at(origin, 1_100);
    for (int i = 0; i < 128; i++) {
      limiter.onResponse(false);
    }
    // The 1408th response of the counting reads the clock, finds bucket 2 and closes bucket 1 with all
    // 1408: 2816/s, measured 0.8 * 2816 + 0.2 * 2561.6 = 2765.12.
    assertThat(limiter.measuredSendRate()).isCloseTo(2765.12, EXACT);
    assertThat(clockReads.get() - reads).isEqualTo(11);
    // A throttle always reads the clock, and enables the limiter: 0.7 * 2765.12.
    limiter.onResponse(true);
    assertThat(limiter.fillRate()).isCloseTo(0.7 * 2765.12, EXACT);
    assertThat(clockReads.get() - reads).isEqualTo(12);
    // Enabled, successes still read the clock only every 128th response of a bucket: the throttle was the
    // 1st of bucket 2, so 126 successes read nothing and the 127th (the 128th response) reads the clock and
    // moves the rate along its curve.
    reads = clockReads.get();
    heard.clear();
    for (int i = 0; i < 126; i++) {
      limiter.onResponse(false);
    }
    assertThat(clockReads.get() - reads).isZero();
    assertThat(heard).isEmpty();
    limiter.onResponse(false);
    assertThat(clockReads.get() - reads).isEqualTo(1);
    assertThat(heard).hasSize(1).allMatch(event -> event.startsWith("rate "));
  }

  /**
   * The cold start: a throttle before any time bucket closed takes its rate from the responses counted in
   * the open bucket (over a whole bucket), not from the measured rate of 0 (which dropped the rate to its
   * 0.5/s floor, where reservations then kept it).
   */
  @Test
  void aThrottleBeforeAnyMeasurementTakesTheRateOfTheOpenBucket() {
    long origin = now.get();
    AdaptiveRateLimiter limiter = limiter().build();
    throttleAfterTenResponses(limiter, origin); // 10 responses in the open bucket 0: 10 / 0.5 s = 20/s
    assertThat(limiter.measuredSendRate()).isCloseTo(20, EXACT);
    assertThat(limiter.fillRate()).as("0.7 * 20").isCloseTo(14, EXACT);
    assertThat(limiter.capacity()).isCloseTo(14, EXACT);
    assertThat(limiter.tokens()).isCloseTo(14, EXACT);
    // A throttle alone at the very start: 1 response over a whole bucket, 2/s, so 1.4/s (was the floor).
    AdaptiveRateLimiter alone = limiter().build();
    alone.onResponse(true);
    assertThat(alone.fillRate()).isCloseTo(1.4, EXACT);
  }

  /**
   * With no reservation waiting at a decrease, throttles within one time bucket of it are the same congestion
   * event (answers to requests sent before the cut): counted, but the rate is not cut again; a throttle a
   * bucket or more later cuts it.
   */
  @Test
  void throttlesWithinABucketOfACutAreOneCongestionEvent() {
    long origin = now.get();
    AdaptiveRateLimiter limiter = limiter().build();
    throttleAfterTenResponses(limiter, origin); // W_max 20, fill 14
    at(origin, 400);
    limiter.onResponse(true); // 0.2 s after the cut: the cubic (15.35/s) is above 14, and is not followed
    assertThat(limiter.fillRate()).isCloseTo(14, EXACT);
    assertThat(limiter.throttles()).isEqualTo(2);
    at(origin, 700);
    // 0.5 s after the cut: closes bucket 0 with 12 responses, 24/s, measured 0.8 * 24 + 0.2 * 20 = 23.2;
    // W_max = min(23.2, 14) = 14, fill 0.7 * 14.
    limiter.onResponse(true);
    assertThat(limiter.measuredSendRate()).isCloseTo(23.2, EXACT);
    assertThat(limiter.fillRate()).isCloseTo(9.8, EXACT);
    assertThat(limiter.throttles()).isEqualTo(3);
  }

  /**
   * One burst of 429s whose answers span more than a time bucket after the cut is still one congestion
   * event when its requests took their tokens before the cut: firm reservations made at the old rate go out
   * up to one horizon after it, and their throttles come back a bucket later still. They cut nothing; the
   * first throttle after the last of them is due plus a bucket cuts. (Before, the throttle 0.6 s after the
   * cut cut the rate a second time, to 0.7 * 4.16 = 2.912/s.)
   */
  @Test
  void aBurstAdmittedBeforeACutIsOneCongestionEventEvenWhenItsAnswersSpanBuckets() {
    long origin = now.get();
    AdaptiveRateLimiter limiter = limiter().sendRateCeiling(1_000).build();
    throttleAfterTenResponses(limiter, origin); // the first cut, at 0.2 s: W_max 20, fill 14, 14 tokens
    at(origin, 1_000);
    // The bucket is full again (14 tokens): 14 requests go at once, 7 more wait k/14 s, the last due at 1.5 s.
    for (int i = 0; i < 14; i++) {
      assertThat(limiter.reserveOrRecheck()).isZero();
    }
    for (int k = 1; k <= 7; k++) {
      assertThat(limiter.reserveOrRecheck()).isEqualTo((long) Math.ceil(k * 1e9 / 14));
    }
    // A throttle at 1.0 s, 0.8 s after the first cut: a new event. It closes buckets 0 and 1 with 11
    // responses in 1 s: measured 0.8 * 11 + 0.2 * 20 = 12.8 = W_max (below the fill rate 14): fill 8.96.
    limiter.onResponse(true);
    assertThat(limiter.fillRate()).isCloseTo(0.7 * 12.8, EXACT);
    // 0.6 s and 0.99 s after that cut (more than a bucket): answers to the requests sent up to 1.5 s.
    at(origin, 1_600);
    limiter.onResponse(true); // closes bucket 2 with 1 response: measured 0.8 * 2 + 0.2 * 12.8 = 4.16
    assertThat(limiter.measuredSendRate()).isCloseTo(4.16, EXACT);
    assertThat(limiter.fillRate()).as("not cut again").isCloseTo(0.7 * 12.8, EXACT);
    at(origin, 1_999);
    limiter.onResponse(true);
    assertThat(limiter.fillRate()).as("not cut again").isCloseTo(0.7 * 12.8, EXACT);
    assertThat(limiter.throttles()).isEqualTo(4);
    // 2.0 s: the last reservation made before the cut was due at 1.5 s, and a bucket has passed since.
    // Closes bucket 3 with 2 responses: measured 0.8 * 4 + 0.2 * 4.16 = 4.032 = W_max; fill 2.8224.
    at(origin, 2_000);
    limiter.onResponse(true);
    assertThat(limiter.measuredSendRate()).isCloseTo(4.032, EXACT);
    assertThat(limiter.fillRate()).isCloseTo(0.7 * 4.032, EXACT);
    assertThat(limiter.throttles()).isEqualTo(5);
  }

  /**
   * A rate raised while firm reservations wait prices the new ones at the new rate, but queues them one
   * refill interval after the last one made before: they do not overtake it. Before, the tokens owed were
   * re-priced at the new rate, so the next request was due 37.6 ms after the last old one instead of 63.9 ms:
   * two requests closer than either rate allows, which a server with no queue answers with a 429.
   */
  @Test
  void aRaisedRateQueuesNewReservationsBehindTheOldOnes() {
    long origin = now.get();
    AdaptiveRateLimiter limiter = limiter().sendRateCeiling(1_000).build();
    throttleAfterTenResponses(limiter, origin); // at 0.2 s: W_max 20, K = cbrt(15) s, fill 14, 14 tokens
    for (int i = 0; i < 14; i++) {
      assertThat(limiter.reserveOrRecheck()).isZero();
    }
    for (int k = 1; k <= 7; k++) {
      assertThat(limiter.reserveOrRecheck()).isEqualTo((long) Math.ceil(k * 1e9 / 14));
    }
    // The last is due at 0.7 s. At 0.45 s a success moves the rate along its curve: 0.4 (0.25 - K)^3 + 20.
    at(origin, 450);
    limiter.onResponse(false);
    double fill = 0.4 * Math.pow(0.25 - Math.cbrt(15), 3) + 20;
    assertThat(limiter.fillRate()).isCloseTo(fill, within(1e-9));
    assertThat(limiter.fillRate()).isCloseTo(15.646, within(0.001));
    assertThat(limiter.tokens()).as("-7 + 0.25 s * 14").isCloseTo(-3.5, EXACT);
    long interval = (long) Math.floor(1e9 / limiter.fillRate()); // 63.9 ms
    long repriced = (long) Math.ceil(4.5e9 / limiter.fillRate()); // what the tokens alone say: 287.6 ms
    assertThat(repriced).as("due 37.6 ms after the last old one").isLessThan(250 * MS + interval);
    assertThat(limiter.reserveOrRecheck()).as("0.25 s to the last old one, then an interval")
        .isEqualTo(250 * MS + interval);
    assertThat(limiter.reserveOrRecheck()).as("and the next an interval later").isEqualTo(250 * MS + 2 * interval);
    // Once every reservation is due (the last at 0.45 s + 0.25 s + 2 intervals, about 0.828 s) and the
    // bucket holds a token again (-5 + 0.45 s * 15.646 = 2.04 at 0.9 s), a request goes at once.
    at(origin, 900);
    assertThat(limiter.reserveOrRecheck()).isZero();
  }

  /**
   * A loop's reservation ({@link AdaptiveRateLimiter#reserveOrRecheck()}) is firm only within the horizon
   * (the longer of a time bucket and 1 / fillRate); beyond it no token is taken and the caller asks again
   * after one horizon, so it is priced at the rate of that moment, not held to a slot priced at a low rate.
   */
  @Test
  void beyondTheHorizonAReservationIsARecheckAndIsRepricedLater() {
    long origin = now.get();
    AdaptiveRateLimiter limiter = limiter().sendRateCeiling(1_000).build();
    throttleAfterTenResponses(limiter, origin); // fill 14/s, 14 tokens; K = cbrt(20 * 0.3 / 0.4) = cbrt(15) s
    for (int i = 0; i < 14; i++) {
      assertThat(limiter.reserveOrRecheck()).isZero();
    }
    // Horizon max(0.5 s, 1/14 s) = 0.5 s: waits (1 - T) / 14 for T = 0, -1, ... -6 are within it.
    for (int k = 1; k <= 7; k++) {
      assertThat(limiter.reserveOrRecheck()).as("firm wait %d/14 s", k)
          .isEqualTo((long) Math.ceil(k * 1e9 / 14));
    }
    long recheck = limiter.reserveOrRecheck(); // 8/14 s > 0.5 s
    assertThat(AdaptiveRateLimiter.isRecheck(recheck)).isTrue();
    assertThat(AdaptiveRateLimiter.recheckNanos(recheck)).isEqualTo(500 * MS);
    assertThat(limiter.tokens()).as("no token taken").isCloseTo(-7, EXACT);
    assertThat(limiter.rechecks()).isEqualTo(1);
    assertThat(limiter.waits()).isEqualTo(7);
    assertThat(limiter.reserve()).as("reserve() keeps its firm slot: 8/14 s").isEqualTo(571_428_572L);
    limiter.unreserve();
    // The rate climbs meanwhile: at t = 0.2 + K + cbrt(50) s the cubic is 0.4 * 50 + 20 = 40/s.
    long t = 200 * MS + Math.round((Math.cbrt(15) + Math.cbrt(50)) * 1e9);
    now.set(origin + t);
    limiter.onResponse(false);
    assertThat(limiter.fillRate()).isCloseTo(40, within(1e-6));
    // The re-check, asked again now, is priced at 40/s: the bucket refilled to its capacity meanwhile.
    assertThat(limiter.reserveOrRecheck()).isZero();
    // A limiter with a maximum wait never re-checks: its refusals need a firm price.
    AdaptiveRateLimiter failing = limiter().failFast(true).build();
    failing.onResponse(true);
    assertThat(failing.reserveOrRecheck()).isZero();
    assertThat(failing.reserveOrRecheck()).isEqualTo(AdaptiveRateLimiter.REFUSED);
  }

  @Test
  void failFastRefusesWithoutTakingAToken() {
    long origin = now.get();
    AdaptiveRateLimiter limiter = limiter().failFast(true).timeBucket(FLOOR_BUCKET).build();
    limiter.onResponse(true);
    assertThat(limiter.reserve()).isZero();
    assertThat(limiter.reserve()).isEqualTo(AdaptiveRateLimiter.REFUSED);
    assertThat(limiter.tokens()).as("no token taken").isZero();
    assertThat(limiter.refusals()).isEqualTo(1);
    assertThat(heard).containsExactly("throttle 0.500000000", "refused 2000000000");
    at(origin, 2_000);
    assertThat(limiter.reserve()).isZero();
  }

  @Test
  void aMaximumWaitRefusesOnlyLongerWaits() {
    long origin = now.get();
    AdaptiveRateLimiter limiter = limiter().maxWait(Duration.ofSeconds(2)).timeBucket(FLOOR_BUCKET).build();
    limiter.onResponse(true);
    assertThat(limiter.reserve()).isZero();
    assertThat(limiter.reserve()).isEqualTo(2_000_000_000L); // exactly the maximum: allowed
    assertThat(limiter.reserve()).isEqualTo(AdaptiveRateLimiter.REFUSED); // 4 s
    at(origin, 1_000);
    assertThat(limiter.reserve()).isEqualTo(AdaptiveRateLimiter.REFUSED); // still 3 s
    assertThat(limiter.waits()).isEqualTo(1);
    assertThat(limiter.refusals()).isEqualTo(2);
    assertThat(limiter.maxWait()).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void unreserveNeverOverfillsTheBucket() {
    AdaptiveRateLimiter limiter = limiter().timeBucket(FLOOR_BUCKET).build();
    limiter.unreserve(); // not enabled: nothing to give back
    limiter.onResponse(true);
    limiter.unreserve();
    assertThat(limiter.tokens()).isEqualTo(1.0);
  }

  @Test
  void theArgumentsAreCheckedWithTheirNames() {
    AdaptiveRateLimiter.Builder b = AdaptiveRateLimiter.builder();
    assertThatThrownBy(() -> b.beta(1)).hasMessage("beta must be in (0, 1), was 1.0");
    assertThatThrownBy(() -> b.beta(0)).hasMessage("beta must be in (0, 1), was 0.0");
    assertThatThrownBy(() -> b.beta(Double.NaN)).hasMessage("beta must be in (0, 1), was NaN");
    assertThatThrownBy(() -> b.scaleConstant(0)).hasMessage("scaleConstant must be positive and finite, was 0.0");
    assertThatThrownBy(() -> b.scaleConstant(Double.POSITIVE_INFINITY))
        .hasMessage("scaleConstant must be positive and finite, was Infinity");
    assertThatThrownBy(() -> b.smoothing(1.5)).hasMessage("smoothing must be in (0, 1], was 1.5");
    assertThatThrownBy(() -> b.smoothing(0)).hasMessage("smoothing must be in (0, 1], was 0.0");
    assertThatThrownBy(() -> b.minFillRate(-1)).hasMessage("minFillRate must be positive and finite, was -1.0");
    assertThatThrownBy(() -> b.minCapacity(0.5)).hasMessage("minCapacity must be at least 1 and finite, was 0.5");
    assertThatThrownBy(() -> b.sendRateCeiling(0.9))
        .hasMessage("sendRateCeiling must be at least 1 and finite, was 0.9");
    assertThatThrownBy(() -> b.timeBucket(Duration.ofNanos(999_999)))
        .hasMessage("timeBucket must be at least 1ms, was PT0.000999999S");
    assertThatThrownBy(() -> b.timeBucket(null)).hasMessage("timeBucket must not be null");
    assertThatThrownBy(() -> b.maxWait(Duration.ofMillis(-1))).hasMessage("maxWait must not be negative, was PT-0.001S");
    assertThatThrownBy(() -> b.name(" ")).hasMessage("name must not be blank, was ' '");
    assertThatThrownBy(() -> b.clock(null)).hasMessage("clock must not be null");
    assertThatThrownBy(() -> b.listener(null)).hasMessage("listener must not be null");
  }

  @Test
  void aThrowingListenerChangesNothing() {
    AdaptiveRateLimiter limiter = AdaptiveRateLimiter.builder().clock(clock)
        .listener(new AdaptiveRateLimiter.Listener() {
          @Override
          public void onRateChange(AdaptiveRateLimiter l, double fillRate, double measured, boolean throttled) {
            throw new IllegalStateException("a broken listener");
          }
        }).timeBucket(FLOOR_BUCKET).build();
    limiter.onResponse(true);
    assertThat(limiter.fillRate()).isEqualTo(0.5);
  }

  /** Many threads reserving at once get distinct places in the queue: the waits are the sequence k / rate. */
  @Test
  void concurrentReservationsQueueOneRefillIntervalApart() throws Exception {
    AdaptiveRateLimiter limiter = AdaptiveRateLimiter.builder().clock(clock).timeBucket(FLOOR_BUCKET).build();
    limiter.onResponse(true); // 0.5/s, one token
    assertThat(limiter.reserve()).isZero();
    int threads = 8;
    int each = 250;
    List<Long> waits = java.util.Collections.synchronizedList(new ArrayList<>());
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> started = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread thread = new Thread(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          return;
        }
        for (int i = 0; i < each; i++) {
          waits.add(limiter.reserve());
        }
      });
      thread.start();
      started.add(thread);
    }
    start.countDown();
    for (Thread thread : started) {
      thread.join();
    }
    // The clock stands still: reservation k (from 1) waits k / 0.5 s = 2k s, each exactly once.
    assertThat(waits).hasSize(threads * each);
    assertThat(waits.stream().sorted().toList()).isEqualTo(
        java.util.stream.LongStream.rangeClosed(1, threads * each).map(k -> 2_000_000_000L * k).boxed().toList());
  }
}
