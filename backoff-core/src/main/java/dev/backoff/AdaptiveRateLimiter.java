package dev.backoff;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;

/**
 * A client-side rate limiter whose rate adapts to throttling responses: AWS's "adaptive" retry mode. It
 * lets requests through freely until the first throttle; from then on every request takes a token from a
 * token bucket whose fill rate falls by a constant factor on each throttle and grows back along a cubic
 * curve (the congestion-avoidance curve of TCP CUBIC) while throttles stay away, never above twice the
 * rate the client is measured to send at. Usually one limiter is shared by every call to one service
 * ({@link RetryPolicy.Builder#rateLimiter}), so a fleet of callers slows down together.
 *
 * <h2>The model</h2>
 * Times {@code t} are in seconds on the limiter's {@linkplain Builder#clock clock}; rates in requests per
 * second. After every response, {@link #onResponse(boolean)}:
 * <ol>
 *   <li><b>Measured send rate.</b> Responses are counted in time buckets of {@linkplain Builder#timeBucket
 *       0.5 s}. When a response falls in a later bucket than the last one closed, the bucket's rate
 *       {@code n / (bucketStart - lastBucketStart)} ({@code n}: the responses counted since, this one
 *       included) is smoothed into the measured rate: {@code measured = s * rate + (1 - s) * measured},
 *       with {@linkplain Builder#smoothing smoothing} {@code s = 0.8}.
 *   <li><b>On a throttle</b>: {@code W_max = measured} the first time, {@code min(measured, fillRate)}
 *       afterwards; {@code K = cbrt(W_max * (1 - beta) / C)}; the time of the throttle is remembered as
 *       {@code t_last}; the new rate is {@code beta * W_max} ({@linkplain Builder#beta beta} {@code 0.7}).
 *       The first throttle enables the limiter; if no bucket has closed yet, the measured rate is first
 *       raised to the open bucket's count over a whole bucket (the cold start: not 0, which would drop the
 *       rate to its floor). <b>One cut per congestion event</b>: a throttle that comes before every
 *       request that took its token before the last cut was due to be sent, plus one time bucket, is the
 *       same congestion event (the answer to a request admitted at the old rate): it is counted but cuts
 *       nothing, and the rate stays at most where it is. A firm reservation (see below) made before a cut is
 *       sent up to one horizon after it, at the old rate, and the server's answer takes a round trip more, so
 *       a burst of throttles can span more than a bucket after the cut; counting it once is TCP's rule (one
 *       window reduction per congestion event, as in CUBIC; NewReno, RFC 6582, ignores further losses of
 *       segments sent before its reduction, its recovery point). The limiter cannot tell which request
 *       a response answers ({@link #onResponse(boolean)} carries no send time), so it bounds the event by
 *       time: the latest due time of a reservation taken before the cut (it knows every one it granted),
 *       plus one time bucket for the answer, the round trip this limiter already assumed (a server slower
 *       than a bucket to answer a throttle is cut again after it). The AWS SDKs, their 2026 revision
 *       included, cut on every throttle; their revised token bucket re-prices waiters at the rate of the
 *       moment they are served, so requests still waiting at a cut are slowed by it, where a firm
 *       reservation here keeps its price: hence the event reaches to the last one's due time.
 *   <li><b>Otherwise</b> (once enabled): the new rate is {@code C * (t - t_last - K)^3 + W_max}
 *       ({@linkplain Builder#scaleConstant scale constant} {@code C = 0.4}): it starts at
 *       {@code beta * W_max} right after the throttle, flattens out at {@code W_max} after {@code K}
 *       seconds, then probes beyond it ever faster.
 *   <li>The bucket's rate becomes {@code min(newRate, 2 * measured)}
 *       ({@linkplain Builder#sendRateCeiling send-rate ceiling} 2): fill rate
 *       {@code max(rate, minFillRate)} tokens per second ({@linkplain Builder#minFillRate 0.5}), capacity
 *       {@code max(rate, minCapacity)} tokens ({@linkplain Builder#minCapacity 1}), the tokens held
 *       clipped to the new capacity.
 * </ol>
 * Every default is the AWS SDKs' own: the AWS SDK for Java 2.x's rate-limiting token bucket
 * ({@code RateLimiterTokenBucket}: {@code BETA = 0.7}, {@code SCALE_CONSTANT = 0.4}, {@code SMOOTH = 0.8},
 * {@code MIN_FILL_RATE = 0.5}, {@code MIN_CAPACITY = 1.0}, time buckets of half a second, the rate capped
 * at twice the measured rate) and botocore's {@code retries/throttling.py} ({@code _BETA = 0.7},
 * {@code _SCALE_CONSTANT = 0.4}), {@code retries/adaptive.py} ({@code _DEFAULT_SMOOTHING = 0.8},
 * {@code _TIME_BUCKET_RANGE = 0.5}, {@code _MAX_RATE_ADJUST_SCALE = 2.0}) and {@code retries/bucket.py}
 * ({@code _MIN_RATE = 0.5}, a capacity of at least 1).
 *
 * <h2>Sending</h2>
 * Before each attempt a caller takes a token with {@link #reserve()}, which never blocks: it returns 0
 * (send now), the nanoseconds to wait before sending (the token is taken now, so concurrent callers queue
 * up one refill interval apart), or {@link #REFUSED} when that wait would exceed the
 * {@linkplain Builder#maxWait maximum wait} (no token taken). A caller that reserved but will not send
 * gives the token back with {@link #unreserve()}. A composed {@link RetryPolicy} does all this for every
 * attempt, the first included: it waits on its sleeper (synchronous calls) or scheduler (asynchronous
 * calls), and stops with {@link StopReason#RATE_LIMITED} on a refusal.
 *
 * <p><b>Spaced behind the last.</b> While a firm reservation is still to be sent, no request goes at once, and
 * a new firm one waits at least until one refill interval ({@code 1 / fillRate}, rounded down to whole
 * nanoseconds) after it. The tokens owed are priced at the fill rate of the moment, so without this a rate
 * raised while reservations waited would let the next one fall a few milliseconds after one priced at the
 * old rate: two requests closer than either rate allows, which a server with no queue answers with a
 * throttle below its capacity. A slot {@link #unreserve() given back} stays in that schedule.
 *
 * <p>{@link #reserveOrRecheck()} (what a composed policy's call uses, through every driver): a wait within the horizon (the
 * longer of a time bucket and {@code 1 / fillRate}) is firm as above, a longer one takes no token and the
 * caller asks again after one horizon, priced at the rate of that moment. Without it, reservations made
 * while the rate was low kept slots priced at that rate, the send rate (and with it the ceiling of twice
 * the measured rate) stayed there, and the rate never climbed back.
 *
 * <p>Departures from the SDKs, on purpose (docs/storm-protection.md lists them with the SDKs' own 2024-2026
 * revisions): the bucket starts full when the first throttle enables it; a firm reservation keeps its place
 * (the tokens held go below zero) instead of being woken and re-checked, which keeps {@code reserve}
 * non-blocking for event loops and the simulator; a fill rate lowered after a reservation does not lengthen
 * that reservation's wait (its throttle belongs to the cut's congestion event), and one raised does not let
 * a later reservation overtake it (spaced behind the last); the cold start and the one cut per congestion
 * event above.
 *
 * <h2>Cost and threads</h2>
 * Thread-safe. Until the first throttle, {@link #reserve()} is one volatile read: no clock read, no lock,
 * no allocation. The send rate is measured from the start, as the SDKs do, so that the first throttle knows
 * the rate it came at; but a successful {@link #onResponse(boolean)} is an atomic increment that reads the
 * clock only about 8 times per time bucket, whatever the send rate: every response while the measured rate
 * is below 16 per bucket, then every n-th response of a bucket (n the largest power of two at most
 * {@code measured × bucket / 8}). So a bucket closes at most n − 1 responses late, an eighth of a bucket at
 * a steady rate; a sudden drop in the send rate is seen late (at the next reading, or at the throttle, which
 * always reads the clock). Once enabled, those readings also move the rate along its curve (about 16
 * updates a second at the default bucket: the curve changes over seconds), and every throttle reads the
 * clock. An enabled {@link #reserve()} reads the clock once, to refill the bucket exactly: so a call that
 * goes through at once reads it once, at any rate above 16 responses per bucket. While the bucket stays full
 * (callers below the fill rate) the refill is a comparison with a time computed once per rate and token count
 * (past it the refill is known to reach the capacity), not a division: the same tokens to the last bit. The state is guarded by one small
 * lock, held only for a few arithmetic operations (never while waiting, never while a listener runs), rather
 * than lock-free: a rate update changes a dozen numbers together, and a lock-free copy of them would
 * allocate on every response. Nothing allocates after construction.
 */
public final class AdaptiveRateLimiter {
  /** What {@link #reserve()} returns when the limiter refuses: the wait would exceed the maximum wait. */
  public static final long REFUSED = -1;

  /** The default multiplicative decrease on a throttle (the SDKs' {@code BETA}). */
  public static final double DEFAULT_BETA = 0.7;
  /** The default cubic scale constant (the SDKs' {@code SCALE_CONSTANT}). */
  public static final double DEFAULT_SCALE_CONSTANT = 0.4;
  /** The default smoothing of the measured send rate (the SDKs' {@code SMOOTH}). */
  public static final double DEFAULT_SMOOTHING = 0.8;
  /** The default lowest fill rate, in tokens per second (the SDKs' {@code MIN_FILL_RATE}). */
  public static final double DEFAULT_MIN_FILL_RATE = 0.5;
  /** The default lowest bucket capacity, in tokens (the SDKs' {@code MIN_CAPACITY}). */
  public static final double DEFAULT_MIN_CAPACITY = 1.0;
  /** The default ceiling on the rate, as a multiple of the measured send rate (botocore's 2.0). */
  public static final double DEFAULT_SEND_RATE_CEILING = 2.0;
  /** The default time bucket of the measured send rate: half a second, as in the SDKs. */
  public static final Duration DEFAULT_TIME_BUCKET = Duration.ofMillis(500);

  private static final double NANOS_PER_SECOND = 1e9;
  // Before the first throttle, a response reads the clock only if it is a multiple of this many responses
  // into its time bucket: about this many readings per bucket, at any send rate (see sampleMask).
  private static final int READINGS_PER_BUCKET = 8;
  private static final AtomicLongFieldUpdater<AdaptiveRateLimiter> RESPONSES_IN_BUCKET =
      AtomicLongFieldUpdater.newUpdater(AdaptiveRateLimiter.class, "responsesInBucket");

  /**
   * Hears the limiter's rate changes, waits and refusals; runs on the thread that caused them, after the
   * limiter's lock is released, so it must be quick. Anything it throws, except a
   * {@link VirtualMachineError}, is ignored. Every method does nothing by default.
   */
  public interface Listener {
    /**
     * A response updated the rate of an enabled limiter (every throttle does, and a success that reads the
     * clock: see the class comment).
     *
     * @param fillRate the new fill rate, tokens per second
     * @param measuredSendRate the measured send rate, requests per second
     * @param throttled whether the response was a throttle
     */
    default void onRateChange(AdaptiveRateLimiter limiter, double fillRate, double measuredSendRate,
        boolean throttled) {}

    /** A reservation must wait {@code waitNanos} (positive) nanoseconds before sending. */
    default void onWait(AdaptiveRateLimiter limiter, long waitNanos) {}

    /** A reservation was refused: it would have had to wait {@code waitNanos} nanoseconds. */
    default void onRefusal(AdaptiveRateLimiter limiter, long waitNanos) {}
  }

  private final String name;
  private final NanoClock clock;
  private final double beta;
  private final double scaleConstant;
  private final double smoothing;
  private final double minFillRate;
  private final double minCapacity;
  private final double sendRateCeiling;
  private final long bucketNanos;
  private final long maxWaitNanos;
  private final Listener[] listeners;
  private final long originNanos; // the clock's reading at construction: t = 0, and bucket 0 starts there

  private final Object lock = new Object();
  private volatile boolean enabled;
  // Guarded by lock (read without it only by the accessors, as volatile doubles would not be atomic either
  // across fields; the accessors take the lock).
  private double fillRate;
  private double maxCapacity;
  private double tokens; // may be negative: reservations waiting for their tokens
  private long lastRefillNanos;
  // A shortcut of refill that changes no result: from these tokens (NaN: none yet), any refill at least
  // fullAfterNanos after the last fills the bucket to its capacity, so that a limiter whose bucket stays full
  // (a call rate below the fill rate) refills with a comparison, not a division (see fillsAfter).
  private double fullFrom = Double.NaN;
  private long fullAfterNanos;
  private double measuredRate;
  // Counted without the lock (so that responses before the first throttle take none); a bucket is closed,
  // and lastBucket moved, under the lock.
  private volatile long lastBucket;
  private volatile long responsesInBucket;
  // Before the first throttle, only responses whose count in the bucket is a multiple of (sampleMask + 1)
  // read the clock: 0 (every response) until a bucket's rate is measured, then the largest power of two
  // that still gives READINGS_PER_BUCKET readings per bucket at the measured rate.
  private volatile long sampleMask;
  private double maxRate; // W_max
  private double timeWindow; // K, seconds
  private double lastThrottleSeconds;
  // Until this time a throttle belongs to the last cut's congestion event: the time by which every request
  // that took its token before the cut was due to be sent, plus a time bucket for its answer.
  private long eventEndNanos;
  // When the last firm reservation is due to be sent: a later one is spaced at least one refill interval after
  // it, and a throttle before it (plus a bucket) belongs to the congestion event of a cut made before it.
  private long lastDueNanos;
  private long waits;
  private long rechecks;
  private long refusals;
  private long throttles;

  private AdaptiveRateLimiter(Builder b) {
    this.name = b.name;
    this.clock = b.clock;
    this.beta = b.beta;
    this.scaleConstant = b.scaleConstant;
    this.smoothing = b.smoothing;
    this.minFillRate = b.minFillRate;
    this.minCapacity = b.minCapacity;
    this.sendRateCeiling = b.sendRateCeiling;
    this.bucketNanos = b.bucketNanos;
    this.maxWaitNanos = b.maxWaitNanos;
    this.listeners = b.listeners.toArray(new Listener[0]);
    this.originNanos = clock.nanoTime();
    this.lastDueNanos = originNanos - 1; // none pending
  }

  /** A builder with the AWS SDKs' defaults, the system clock and no limit on waits. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Takes one token for a request about to be sent. Never blocks, and reads no clock until the limiter is
   * enabled (then one).
   *
   * @return 0 if the request may be sent now; otherwise the nanoseconds to wait before sending it (the
   *     token is taken: a caller that will not send after all calls {@link #unreserve()}); or
   *     {@link #REFUSED} (negative) if that wait would exceed the {@linkplain Builder#maxWait maximum wait},
   *     in which case no token is taken
   */
  public long reserve() {
    return reserve(false);
  }

  /**
   * Like {@link #reserve()}, but a wait longer than the limiter's horizon takes no token: the caller waits
   * {@link #recheckNanos(long) that long} and asks again, and is priced then at the rate of that moment.
   * A composed policy reserves so, through every driver: reservations made while the rate is low do not keep slots that
   * far ahead, so the rate they are sent at follows the fill rate when it climbs back. The horizon is the
   * longer of one {@linkplain Builder#timeBucket time bucket} and one token's refill interval
   * ({@code 1 / fillRate}). A limiter with a finite {@linkplain Builder#maxWait maximum wait} (or failing
   * fast) behaves exactly as {@link #reserve()}: its refusal needs a firm price.
   *
   * @return 0 (send now); a positive wait, its token taken, as {@link #reserve()}; {@link #REFUSED}; or a
   *     re-check ({@link #isRecheck(long)}): no token taken, ask again after {@link #recheckNanos(long)}
   */
  public long reserveOrRecheck() {
    return reserve(maxWaitNanos == Long.MAX_VALUE);
  }

  /** Whether a {@link #reserveOrRecheck()} result says: no token taken, ask again later. */
  public static boolean isRecheck(long reservation) {
    return reservation < REFUSED;
  }

  /** The nanoseconds to wait before asking again, for a result that {@linkplain #isRecheck is a re-check}. */
  public static long recheckNanos(long reservation) {
    return REFUSED - reservation;
  }

  private long reserve(boolean recheck) {
    if (!enabled) {
      return 0;
    }
    long now = clock.nanoTime();
    long waitNanos;
    boolean refused = false;
    boolean deferred = false;
    synchronized (lock) {
      refill(now);
      long pending = lastDueNanos - now; // at least 0: a firm reservation is still to be sent
      if (tokens >= 1 && pending < 0) {
        tokens -= 1;
        return 0;
      }
      // Round up: a wait that ends a fraction of a nanosecond early would find the token not yet there.
      waitNanos = tokens >= 1 ? 0 : Nanos.fromDouble(Math.ceil((1 - tokens) / fillRate * NANOS_PER_SECOND));
      if (pending >= 0) {
        // Not before one refill interval (rounded down: never later than the tokens alone would say at a
        // steady rate) after the last firm reservation, which a rate raised since may not overtake.
        long interval = Nanos.fromDouble(Math.floor(NANOS_PER_SECOND / fillRate));
        waitNanos = Math.max(waitNanos, Nanos.add(pending, interval));
      }
      waitNanos = Math.max(1, waitNanos);
      long horizon = Math.max(bucketNanos, Nanos.fromDouble(Math.ceil(NANOS_PER_SECOND / fillRate)));
      if (waitNanos > maxWaitNanos) {
        refused = true;
        refusals++;
      } else if (recheck && waitNanos > horizon) {
        deferred = true; // no token: asked again after one horizon, at the rate of that moment
        waitNanos = horizon;
        rechecks++;
      } else {
        tokens -= 1;
        waits++;
        lastDueNanos = now + waitNanos; // later than the last: spaced after it, or after now when none is pending
      }
    }
    if (deferred) {
      return REFUSED - waitNanos;
    }
    for (Listener listener : listeners) {
      try {
        if (refused) {
          listener.onRefusal(this, waitNanos);
        } else {
          listener.onWait(this, waitNanos);
        }
      } catch (VirtualMachineError fatal) {
        throw fatal;
      } catch (Throwable ignored) {
        // A listener never changes the limiter's behaviour.
      }
    }
    return refused ? REFUSED : waitNanos;
  }

  /**
   * Gives back the token of a reservation that will not be sent (its caller was interrupted or cancelled,
   * or gave up at its deadline). Call it only for a reservation that returned a positive wait; the tokens
   * never exceed the capacity. Its slot stays in the schedule (see "Spaced behind the last"): the limiter does
   * not know which slot it was, and moving the last one back could put the next request on one still due.
   */
  public void unreserve() {
    if (!enabled) {
      return;
    }
    synchronized (lock) {
      tokens = Math.min(maxCapacity, tokens + 1);
    }
  }

  /**
   * Reports a response: whether it was a throttle (for a composed policy: an outcome the policy classifies
   * {@link FailureClass#THROTTLED}, such as HTTP 429 or 503 or gRPC's {@code RESOURCE_EXHAUSTED}). Updates
   * the measured send rate and, once enabled, the fill rate; the first throttle enables the limiter. A
   * throttle reads the clock once; a success only about 8 times per time bucket (see the class comment).
   */
  public void onResponse(boolean throttled) {
    if (!throttled) {
      // A success reads the clock only every (sampleMask + 1)-th response of a bucket: before the first
      // throttle to measure the send rate, afterwards to move the rate along its curve as well.
      if ((RESPONSES_IN_BUCKET.incrementAndGet(this) & sampleMask) != 0) {
        return;
      }
      if (!enabled) {
        closeBucket(clock.nanoTime());
        return;
      }
    }
    long now = clock.nanoTime();
    double rate;
    double measured;
    synchronized (lock) {
      if (throttled) {
        measure(now);
      } else {
        closeBucket(now); // this success is counted already
      }
      double t = (now - originNanos) / NANOS_PER_SECOND;
      double calculated;
      if (throttled && enabled && now - eventEndNanos < 0) {
        // The same congestion event as the last decrease (an answer to a request that took its token before
        // it): the rate is not cut again, nor raised: the curve goes on from that decrease at the next success.
        throttles++;
        double x = t - lastThrottleSeconds - timeWindow;
        calculated = Math.min(scaleConstant * x * x * x + maxRate, fillRate);
      } else if (throttled) {
        if (!enabled) {
          // The first throttle may come before any time bucket closed (measuredRate still 0, which would
          // drop the rate to its floor): the responses counted in the open bucket then give the rate.
          measuredRate = Math.max(measuredRate, openBucketRate(now));
        }
        maxRate = enabled ? Math.min(measuredRate, fillRate) : measuredRate;
        timeWindow = Math.cbrt(maxRate * (1 - beta) / scaleConstant);
        lastThrottleSeconds = t;
        // Firm reservations made before the cut still go out at the old rate, up to one horizon after it.
        eventEndNanos = (lastDueNanos - now > 0 ? lastDueNanos : now) + bucketNanos;
        calculated = maxRate * beta;
        throttles++;
      } else {
        double x = t - lastThrottleSeconds - timeWindow;
        calculated = scaleConstant * x * x * x + maxRate;
      }
      rate = Math.min(calculated, sendRateCeiling * measuredRate);
      if (enabled) {
        refill(now);
        setRate(rate);
        tokens = Math.min(tokens, maxCapacity);
      } else {
        setRate(rate);
        tokens = maxCapacity; // the first throttle finds the bucket full (see the class comment)
        lastRefillNanos = now;
        enabled = true;
      }
      rate = fillRate;
      measured = measuredRate;
    }
    for (Listener listener : listeners) {
      try {
        listener.onRateChange(this, rate, measured, throttled);
      } catch (VirtualMachineError fatal) {
        throw fatal;
      } catch (Throwable ignored) {
        // A listener never changes the limiter's behaviour.
      }
    }
  }

  private void setRate(double rate) {
    fillRate = Math.max(rate, minFillRate);
    maxCapacity = Math.max(rate, minCapacity);
    fullFrom = Double.NaN;
  }

  /** Adds the tokens earned since the last refill, up to the capacity. Under the lock. */
  private void refill(long now) {
    long elapsed = now - lastRefillNanos;
    if (elapsed > 0) {
      if (tokens != fullFrom) {
        fullFrom = tokens;
        fullAfterNanos = fillsAfter(tokens, maxCapacity, fillRate);
      }
      tokens = elapsed >= fullAfterNanos ? maxCapacity
          : Math.min(maxCapacity, tokens + elapsed / NANOS_PER_SECOND * fillRate);
      lastRefillNanos = now;
    }
  }

  /**
   * An elapsed time {@code e} at which the refill from {@code from} tokens, {@code from + e / 1e9 × fillRate}
   * in doubles, reaches {@code capacity}; {@link Long#MAX_VALUE} if none is found at once. Every longer time
   * does too (each floating-point step of that expression is monotonic in {@code e}), so a refill at least that
   * long gives exactly the capacity, as the expression capped at it would.
   */
  static long fillsAfter(double from, double capacity, double fillRate) {
    long candidate = Nanos.fromDouble(Math.ceil((capacity - from) / fillRate * NANOS_PER_SECOND));
    for (int tries = 0; tries < 3 && candidate < Long.MAX_VALUE / 2; tries++) {
      if (from + candidate / NANOS_PER_SECOND * fillRate >= capacity) {
        return candidate;
      }
      candidate += 1 + (candidate >> 20); // rounding fell short: a little longer
    }
    return Long.MAX_VALUE;
  }

  /**
   * Counts a response in its time bucket; the first response in a later bucket closes the counting (this
   * response included) and smooths its rate in, under the lock. Without the lock otherwise: responses
   * counted concurrently with a closing may land in the next count, which sequential use never sees.
   */
  private void measure(long now) {
    RESPONSES_IN_BUCKET.incrementAndGet(this);
    closeBucket(now);
  }

  /**
   * The send rate shown by the responses counted since the last bucket closed: their count over the time
   * since that bucket's start, or over a whole bucket if less has passed (never more than the bucket will
   * show when it closes, so a throttle among the very first responses does not claim thousands per second).
   * Under the lock.
   */
  private double openBucketRate(long now) {
    long since = now - originNanos - lastBucket * bucketNanos;
    return responsesInBucket / (Math.max(since, bucketNanos) / NANOS_PER_SECOND);
  }

  /** Closes the counting if {@code now} is in a later bucket than the last one closed (see {@link #measure}). */
  private void closeBucket(long now) {
    long bucket = Math.floorDiv(now - originNanos, bucketNanos);
    if (bucket <= lastBucket) {
      return;
    }
    synchronized (lock) {
      long last = lastBucket;
      if (bucket <= last) { // another response closed it first
        return;
      }
      long responses = RESPONSES_IN_BUCKET.getAndSet(this, 0);
      double bucketSeconds = bucketNanos / NANOS_PER_SECOND;
      double current = responses / ((bucket - last) * bucketSeconds);
      measuredRate = smoothing * current + (1 - smoothing) * measuredRate;
      lastBucket = bucket;
      double perReading = measuredRate * bucketSeconds / READINGS_PER_BUCKET;
      sampleMask = perReading < 2 ? 0 : Long.highestOneBit(Math.min((long) perReading, 1L << 40)) - 1;
    }
  }

  /** Whether a throttle has enabled the limiter (it stays enabled). Before that it limits nothing. */
  public boolean enabled() {
    return enabled;
  }

  /**
   * The fill rate, in tokens (requests) per second; 0 while the limiter is not enabled (it then limits
   * nothing). Once enabled, never below the minimum fill rate.
   */
  public double fillRate() {
    synchronized (lock) {
      return enabled ? fillRate : 0;
    }
  }

  /** The measured send rate, in requests per second (responses counted in time buckets, smoothed). */
  public double measuredSendRate() {
    synchronized (lock) {
      return measuredRate;
    }
  }

  /** The bucket's capacity in tokens; 0 while the limiter is not enabled. */
  public double capacity() {
    synchronized (lock) {
      return enabled ? maxCapacity : 0;
    }
  }

  /**
   * The tokens in the bucket now (negative while reservations wait for theirs); 0 while not enabled.
   * Reads the clock.
   */
  public double tokens() {
    long now = clock.nanoTime();
    synchronized (lock) {
      if (!enabled) {
        return 0;
      }
      long elapsed = Math.max(0, now - lastRefillNanos);
      return Math.min(maxCapacity, tokens + elapsed / NANOS_PER_SECOND * fillRate);
    }
  }

  /** Reservations that had to wait, since the limiter was built. */
  public long waits() {
    synchronized (lock) {
      return waits;
    }
  }

  /**
   * Reservations told to ask again ({@link #reserveOrRecheck()}: their wait was beyond the horizon), since
   * the limiter was built.
   */
  public long rechecks() {
    synchronized (lock) {
      return rechecks;
    }
  }

  /** Reservations refused (their wait exceeded the maximum wait), since the limiter was built. */
  public long refusals() {
    synchronized (lock) {
      return refusals;
    }
  }

  /** Throttles reported, since the limiter was built. */
  public long throttles() {
    synchronized (lock) {
      return throttles;
    }
  }

  /** The limiter's name (for metrics and messages). */
  public String name() {
    return name;
  }

  /** The longest wait a reservation may be given; {@link Long#MAX_VALUE} nanoseconds means no limit. */
  public Duration maxWait() {
    return Duration.ofNanos(maxWaitNanos);
  }

  /** The exception a composed policy's call fails with when this limiter refuses its first attempt. */
  RateLimitedException refusal(String why) {
    return new RateLimitedException("rate limiter '" + name + "' " + why);
  }

  @Override
  public String toString() {
    return "AdaptiveRateLimiter[" + name + (enabled ? ", " + fillRate() + "/s" : ", not enabled") + "]";
  }

  /**
   * Builds an {@link AdaptiveRateLimiter}; every argument is checked at once, with a message naming it.
   * Not thread-safe.
   */
  public static final class Builder {
    private String name = "default";
    private NanoClock clock = NanoClock.system();
    private double beta = DEFAULT_BETA;
    private double scaleConstant = DEFAULT_SCALE_CONSTANT;
    private double smoothing = DEFAULT_SMOOTHING;
    private double minFillRate = DEFAULT_MIN_FILL_RATE;
    private double minCapacity = DEFAULT_MIN_CAPACITY;
    private double sendRateCeiling = DEFAULT_SEND_RATE_CEILING;
    private long bucketNanos = DEFAULT_TIME_BUCKET.toNanos();
    private long maxWaitNanos = Long.MAX_VALUE;
    private final List<Listener> listeners = new ArrayList<>();

    Builder() {}

    /**
     * Names the limiter (for metrics and messages). Default "default".
     *
     * @throws IllegalArgumentException if {@code name} is blank
     * @throws NullPointerException if {@code name} is null
     */
    public Builder name(String name) {
      Nanos.requireNonNull("name", name);
      if (name.isBlank()) {
        throw new IllegalArgumentException("name must not be blank, was '" + name + "'");
      }
      this.name = name;
      return this;
    }

    /**
     * The clock (default {@link NanoClock#system()}); it is read once at {@link #build()}, where the
     * limiter's time starts.
     *
     * @throws NullPointerException if {@code clock} is null
     */
    public Builder clock(NanoClock clock) {
      Nanos.requireNonNull("clock", clock);
      this.clock = clock;
      return this;
    }

    /**
     * The factor the rate is multiplied by on a throttle, in (0, 1). Default {@value #DEFAULT_BETA}.
     *
     * @throws IllegalArgumentException if {@code beta} is not in (0, 1)
     */
    public Builder beta(double beta) {
      if (!(beta > 0 && beta < 1)) {
        throw new IllegalArgumentException("beta must be in (0, 1), was " + beta);
      }
      this.beta = beta;
      return this;
    }

    /**
     * The cubic curve's scale constant {@code C}, in requests per second per second cubed: larger grows the
     * rate back faster. Default {@value #DEFAULT_SCALE_CONSTANT}.
     *
     * @throws IllegalArgumentException if {@code scaleConstant} is not positive and finite
     */
    public Builder scaleConstant(double scaleConstant) {
      if (!(scaleConstant > 0) || Double.isInfinite(scaleConstant)) {
        throw new IllegalArgumentException("scaleConstant must be positive and finite, was " + scaleConstant);
      }
      this.scaleConstant = scaleConstant;
      return this;
    }

    /**
     * The weight of the newest time bucket in the measured send rate, in (0, 1]; 1 keeps no history.
     * Default {@value #DEFAULT_SMOOTHING}.
     *
     * @throws IllegalArgumentException if {@code smoothing} is not in (0, 1]
     */
    public Builder smoothing(double smoothing) {
      if (!(smoothing > 0 && smoothing <= 1)) {
        throw new IllegalArgumentException("smoothing must be in (0, 1], was " + smoothing);
      }
      this.smoothing = smoothing;
      return this;
    }

    /**
     * The lowest fill rate, tokens per second: however many throttles, one request gets through every
     * {@code 1 / minFillRate} seconds. Default {@value #DEFAULT_MIN_FILL_RATE}.
     *
     * @throws IllegalArgumentException if {@code minFillRate} is not positive and finite
     */
    public Builder minFillRate(double minFillRate) {
      if (!(minFillRate > 0) || Double.isInfinite(minFillRate)) {
        throw new IllegalArgumentException("minFillRate must be positive and finite, was " + minFillRate);
      }
      this.minFillRate = minFillRate;
      return this;
    }

    /**
     * The lowest bucket capacity, tokens (the burst an idle client may send at once), at least 1. Default
     * {@value #DEFAULT_MIN_CAPACITY}.
     *
     * @throws IllegalArgumentException if {@code minCapacity} is below 1 or not finite
     */
    public Builder minCapacity(double minCapacity) {
      if (!(minCapacity >= 1) || Double.isInfinite(minCapacity)) {
        throw new IllegalArgumentException("minCapacity must be at least 1 and finite, was " + minCapacity);
      }
      this.minCapacity = minCapacity;
      return this;
    }

    /**
     * The ceiling on the rate as a multiple of the measured send rate, at least 1: the rate never grows
     * past what the client has shown it sends. Default {@value #DEFAULT_SEND_RATE_CEILING}.
     *
     * @throws IllegalArgumentException if {@code multiple} is below 1 or not finite
     */
    public Builder sendRateCeiling(double multiple) {
      if (!(multiple >= 1) || Double.isInfinite(multiple)) {
        throw new IllegalArgumentException("sendRateCeiling must be at least 1 and finite, was " + multiple);
      }
      this.sendRateCeiling = multiple;
      return this;
    }

    /**
     * The time bucket in which the send rate is measured, at least 1 ms. Default 500 ms.
     *
     * @throws IllegalArgumentException if {@code bucket} is shorter than 1 ms
     * @throws NullPointerException if {@code bucket} is null
     */
    public Builder timeBucket(Duration bucket) {
      Nanos.requireNonNull("timeBucket", bucket);
      if (bucket.compareTo(Duration.ofMillis(1)) < 0) {
        throw new IllegalArgumentException("timeBucket must be at least 1ms, was " + bucket);
      }
      this.bucketNanos = Nanos.of(bucket);
      return this;
    }

    /**
     * The longest a reservation may wait for its token; a longer wait is refused ({@link #REFUSED}), and a
     * composed policy stops the call with {@link StopReason#RATE_LIMITED}. Zero fails fast whenever there
     * is no token. Default: no limit (the SDKs wait), though a policy's deadline still stops a call whose
     * wait would pass it.
     *
     * @throws IllegalArgumentException if {@code maxWait} is negative
     * @throws NullPointerException if {@code maxWait} is null
     */
    public Builder maxWait(Duration maxWait) {
      this.maxWaitNanos = Nanos.nonNegative("maxWait", maxWait);
      return this;
    }

    /** {@code true}: {@code maxWait(Duration.ZERO)}, refuse whenever there is no token; {@code false}: no limit. */
    public Builder failFast(boolean failFast) {
      this.maxWaitNanos = failFast ? 0 : Long.MAX_VALUE;
      return this;
    }

    /**
     * Adds a listener of rate changes, waits and refusals.
     *
     * @throws NullPointerException if {@code listener} is null
     */
    public Builder listener(Listener listener) {
      Nanos.requireNonNull("listener", listener);
      listeners.add(listener);
      return this;
    }

    /** Builds the limiter, not enabled, its time starting now (one clock read). */
    public AdaptiveRateLimiter build() {
      return new AdaptiveRateLimiter(this);
    }
  }
}
