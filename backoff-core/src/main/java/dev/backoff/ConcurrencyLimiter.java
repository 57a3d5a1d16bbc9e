package dev.backoff;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;

/**
 * An adaptive concurrency limit: a bulkhead whose limit on attempts in flight follows what the dependency's
 * latency and overload signals say it can take, usually shared by every call to one dependency. Usable alone,
 * or composed with a retry policy ({@link RetryPolicy.Builder#concurrencyLimiter}), which then asks it before
 * every attempt, after the circuit breaker and before the rate limiter.
 *
 * <h2>Algorithms</h2>
 * <ul>
 *   <li>{@link #aimd()}: additive increase, multiplicative decrease, as TCP's congestion window. A success
 *       whose latency is within the {@linkplain Builder#latencyThreshold latency threshold} counts towards an
 *       increase of 1, taken once a limit's worth of such successes has arrived (about one per round trip when
 *       the limit is used: growing by 1 per success would double the limit every round trip and overshoot). A
 *       drop (an overload failure, or a success slower than the threshold) multiplies the limit by the
 *       {@linkplain Builder#backoffRatio backoff ratio}, rounded down.
 *   <li>{@link #gradient()}: a latency gradient in the style of TCP Vegas. The limit follows the ratio of the
 *       shortest latency seen in the current {@linkplain Builder#minRttWindow window} (the dependency without
 *       a queue) to the latency of each sample, plus a {@linkplain Builder#queueAllowance queue allowance}:
 *       {@code target = limit × clamp(minRtt / rtt, 0.5, 1) + queueAllowance}, then
 *       {@code limit = limit × (1 − smoothing) + target × smoothing}. While latency stays at its minimum the
 *       limit grows by {@code queueAllowance × smoothing} per sample; when a queue builds, latency rises and the
 *       limit shrinks (by at most {@code smoothing / 2} of it per sample). A drop multiplies the limit by the
 *       backoff ratio. The minimum is forgotten when its window ends, so that a dependency that became slower
 *       for good is measured again instead of being throttled to the minimum limit.
 *   <li>{@link #fixed(int)}: a static bulkhead, the degenerate case: the limit never moves.
 * </ul>
 * In both adaptive algorithms the limit does not grow from samples of attempts that started while fewer than
 * half the limit's slots were taken: a lightly used limit says nothing about what the dependency can take,
 * and would otherwise drift to its maximum and admit a burst. The limit stays within
 * [{@linkplain Builder#bounds minLimit, maxLimit}].
 *
 * <h2>Outcomes</h2>
 * Every permit is completed exactly once: {@link Permit#onSuccess()} (a latency sample), {@link Permit#onDropped()}
 * (an overload: the limit decreases) or {@link Permit#release()} (the attempt never ran, was cancelled, or its
 * outcome says nothing about load: no sample). Composed with a retry policy, an accepted attempt is a success;
 * a failure the rules would retry whose {@link FailureClass} is one of the
 * {@linkplain Builder#overloadOn overload classes} ({@link FailureClass#THROTTLED} and
 * {@link FailureClass#TIMEOUT} by default: 429/503-style answers and attempt timeouts) is a drop; any other
 * outcome (another failure class, a failure the rules refuse, a cancelled or interrupted attempt) releases
 * the slot without a sample, since a fast error would pass for a short latency.
 *
 * <h2>Priority: first attempts before retries and hedges</h2>
 * A first attempt takes a slot while fewer than {@code limit} attempts are in flight; a retry or a hedge only
 * while fewer than {@code max(1, floor(limit × retryShare))} are ({@linkplain Builder#retryShare retryShare}
 * 0.8 by default). So as the limit fills up, retries and hedges are refused first, and a storm of retries
 * can never take the last {@code 1 − retryShare} of the slots from new work: a first attempt carries work
 * nobody has tried, while a retry repeats work that just failed, against a dependency that is likely to be the
 * reason. The floor of one slot keeps a lone call able to retry when nothing else is in flight (a limit of 1 or
 * 2 would otherwise refuse every retry).
 *
 * <h2>Use</h2>
 * <pre>{@code
 * ConcurrencyLimiter limiter = ConcurrencyLimiter.gradient().bounds(5, 200).build();
 * ConcurrencyLimiter.Permit permit = limiter.tryAcquire(ConcurrencyLimiter.AttemptKind.FIRST);
 * if (permit == null) { ...shed the call... }
 * try { result = call(); permit.onSuccess(); }
 * catch (OverloadedException e) { permit.onDropped(); throw e; }
 * catch (Exception e) { permit.release(); throw e; }
 * }</pre>
 *
 * <h2>Cost and threads</h2>
 * Thread-safe. The count of attempts in flight and the top of a lock-free stack of reusable permits (one per
 * slot, created the first time that many attempts are in flight at once) share one word: acquiring is one
 * compare-and-set on it, completing one on the permit (so that a second completion changes nothing) and one on
 * the word. Once the peak concurrency has been reached acquiring and completing allocate nothing. The adaptive
 * algorithms read the {@linkplain Builder#clock clock} once at acquire and once at a sample, and update the
 * limit under a lock held for a few arithmetic operations; a fixed limiter reads no clock and takes no lock.
 * A permit object is reused once completed: complete it once and drop the reference (a second completion of a
 * permit that was handed out again would complete the new holder's attempt).
 */
public final class ConcurrencyLimiter {
  /** The largest {@code maxLimit} (and fixed limit): the limiter keeps one reusable permit per slot. */
  public static final int MAX_SLOTS = 65_536;

  /** What an attempt is, for the {@linkplain ConcurrencyLimiter priority rule}. */
  public enum AttemptKind {
    /** A call's first attempt: may take a slot up to the limit. */
    FIRST,
    /** A retry after a failed attempt: only up to {@code limit × retryShare}. */
    RETRY,
    /** A hedge sent beside an attempt in flight: only up to {@code limit × retryShare}. */
    HEDGE
  }

  /** One slot, from {@link #tryAcquire}: complete it exactly once. Thread-safe. */
  public interface Permit {
    /** The attempt succeeded: its latency is a sample for the limit. */
    void onSuccess();

    /** The attempt was dropped by an overloaded dependency (a timeout, a 429 or 503): the limit decreases. */
    void onDropped();

    /** The attempt never ran, was cancelled, or its outcome says nothing about load: no sample. */
    void release();
  }

  static final int FIXED = 0;
  static final int AIMD = 1;
  static final int GRADIENT = 2;

  private static final AtomicIntegerFieldUpdater<ConcurrencyLimiter> CREATED =
      AtomicIntegerFieldUpdater.newUpdater(ConcurrencyLimiter.class, "created");
  private static final AtomicLongFieldUpdater<ConcurrencyLimiter> SLOTS_STATE =
      AtomicLongFieldUpdater.newUpdater(ConcurrencyLimiter.class, "slotsState");
  // The layout of slotsState: the free stack's top (slot index + 1, 0 when empty) in the low 17 bits, the
  // attempts in flight in the next 17 (at most MAX_SLOTS = 2^16 each), a stamp in the top 30.
  private static final int TOP_BITS = 17;
  private static final long TOP_MASK = (1L << TOP_BITS) - 1;
  private static final long IN_FLIGHT_ONE = 1L << TOP_BITS;
  private static final long STAMP_ONE = 1L << (2 * TOP_BITS);
  private static final AtomicLongFieldUpdater<ConcurrencyLimiter> REFUSED_FIRST =
      AtomicLongFieldUpdater.newUpdater(ConcurrencyLimiter.class, "refusedFirst");
  private static final AtomicLongFieldUpdater<ConcurrencyLimiter> REFUSED_LATER =
      AtomicLongFieldUpdater.newUpdater(ConcurrencyLimiter.class, "refusedLater");

  private final String name;
  private final int algorithm;
  private final int minLimit;
  private final int maxLimit;
  private final double retryShare;
  private final FailureClass[] overloadOn;
  private final NanoClock clock;
  private final double backoffRatio;
  private final long latencyThresholdNanos;
  private final double smoothing;
  private final double queueAllowance;
  private final long minRttWindowNanos;

  private volatile int limit;
  private volatile long refusedFirst;
  private volatile long refusedLater;

  // The algorithms' state, guarded by this.
  private double estimate;
  private int successesTowardIncrease;
  private long minRttNanos = -1; // -1: no sample in this window yet
  private long windowStartNanos;

  // Reusable permits. Up to BITMAP_SLOTS slots (every fixed(n) with n <= 64, and adaptive limiters bounded so):
  // slotsState is a bitmap of the slots held, so that taking a slot (its bit set; the count is the bits set) and
  // giving it back (its bit cleared, or nothing if it is clear already: a second completion) are one
  // compare-and-set each, as a semaphore's acquire and release are; the slots are made at construction.
  // More slots: a Treiber stack of slot indices, whose head shares one word with the count of attempts in
  // flight, so that taking a slot (the count up, the top popped) and giving it back (pushed, the count down) are
  // one compare-and-set each (see TOP_BITS), plus one on the slot's state that makes a second completion change
  // nothing. The stamp grows on every change, so that a word read before another
  // thread's pop and push is not taken for the same word (the ABA problem). Every change keeps
  // (slots on the stack) + (attempts in flight) = (slots created or about to be): a take from an empty stack
  // counts one in flight and then creates its slot, so at most maxLimit slots are ever created.
  private static final int BITMAP_SLOTS = Long.SIZE;
  private final boolean bitmap;
  private final Slot[] slots;
  private final int[] nextFree; // below slot i on the stack: the slot index + 1, 0 at the bottom
  private volatile long slotsState;
  private volatile int created;

  private ConcurrencyLimiter(Builder b) {
    this.name = b.name;
    this.algorithm = b.algorithm;
    this.minLimit = b.minLimit;
    this.maxLimit = b.maxLimit;
    this.retryShare = b.retryShare;
    this.overloadOn = b.overloadOn.clone();
    this.clock = b.clock;
    this.backoffRatio = b.backoffRatio;
    this.latencyThresholdNanos = b.latencyThresholdNanos;
    this.smoothing = b.smoothing;
    this.queueAllowance = b.queueAllowance;
    this.minRttWindowNanos = b.minRttWindowNanos;
    this.limit = b.initialLimit;
    this.estimate = b.initialLimit;
    this.slots = new Slot[maxLimit];
    this.bitmap = maxLimit <= BITMAP_SLOTS;
    this.nextFree = bitmap ? null : new int[maxLimit];
    if (bitmap) {
      for (int i = 0; i < maxLimit; i++) {
        slots[i] = new Slot(this, i);
      }
    }
  }

  /**
   * A builder of an AIMD limiter: initial limit 20, within [1, 1000], backoff ratio 0.9, latency threshold 5 s.
   */
  public static Builder aimd() {
    return new Builder(AIMD, 20);
  }

  /**
   * A builder of a latency-gradient limiter: initial limit 20, within [1, 1000], smoothing 0.2, queue
   * allowance 4, min-RTT window 30 s, backoff ratio 0.9 on a drop.
   */
  public static Builder gradient() {
    return new Builder(GRADIENT, 20);
  }

  /**
   * A builder of a static bulkhead of {@code limit} slots (its limit never moves; the priority rule still
   * applies: {@link Builder#retryShare}{@code (1)} turns it off).
   *
   * @throws IllegalArgumentException if {@code limit} is not within [1, {@link #MAX_SLOTS}]
   */
  public static Builder fixed(int limit) {
    Builder builder = new Builder(FIXED, Builder.requireSlots("limit", limit));
    builder.minLimit = limit;
    builder.maxLimit = limit;
    return builder;
  }

  /**
   * A slot for an attempt of this kind, or null if the {@linkplain ConcurrencyLimiter priority rule} refuses it.
   *
   * @throws NullPointerException if {@code kind} is null
   */
  public Permit tryAcquire(AttemptKind kind) {
    Nanos.requireNonNull("kind", kind);
    return acquire(kind, null);
  }

  /**
   * The gate's way in ({@link CallMachine}): a slot that also completes the breaker's {@code permit} (or null)
   * with the attempt's outcome, or null if refused (the breaker's permit is then the caller's to release).
   */
  Slot acquire(AttemptKind kind, CircuitBreaker.Permit permit) {
    int current = limit;
    int allowed = kind == AttemptKind.FIRST ? current : retryLimit(current, retryShare);
    while (true) {
      long word = slotsState;
      int taken = inFlightOf(word);
      if (taken >= allowed) {
        (kind == AttemptKind.FIRST ? REFUSED_FIRST : REFUSED_LATER).incrementAndGet(this);
        return null;
      }
      Slot slot;
      if (bitmap) { // taken < allowed <= maxLimit <= 64: a clear bit below maxLimit
        int index = Long.numberOfTrailingZeros(~word);
        slot = SLOTS_STATE.compareAndSet(this, word, word | 1L << index) ? slots[index] : null;
      } else {
        int top = (int) (word & TOP_MASK) - 1;
        long below = top < 0 ? 0 : nextFree[top];
        slot = SLOTS_STATE.compareAndSet(this, word, ((word & ~TOP_MASK) + STAMP_ONE + IN_FLIGHT_ONE) | below)
            ? top < 0 ? create() : slots[top]
            : null;
      }
      if (slot != null) {
        boolean wrote = algorithm != FIXED;
        if (wrote) { // only the adaptive algorithms take a sample
          slot.startNanos = clock.nanoTime();
          slot.inFlightAtStart = taken + 1;
        }
        if (slot.breakerPermit != permit) {
          slot.breakerPermit = permit;
          wrote = true;
        }
        if (wrote || !bitmap)
        // A release store (no fence), of a value the slot's state never had in the last hand-out (the bitmap's
        // slots count their hand-outs in odd numbers, never FREE): publishes the fields above to whoever
        // completes the slot, which reads the state first.
        Slot.STATE.lazySet(slot, bitmap ? (slot.state + 2) | 1 : Slot.HELD);
        return slot;
      }
    }
  }

  private int inFlightOf(long word) {
    return bitmap ? Long.bitCount(word) : (int) ((word >>> TOP_BITS) & TOP_MASK);
  }

  /**
   * How many attempts a retry or hedge may find in flight and still take a slot:
   * {@code max(1, floor(limit × share))}.
   */
  static int retryLimit(int limit, double retryShare) {
    return Math.max(1, (int) (limit * retryShare));
  }

  /** The current limit on attempts in flight. */
  public int limit() {
    return limit;
  }

  /** Attempts in flight now (slots taken and not yet completed). */
  public int inFlight() {
    return inFlightOf(slotsState);
  }

  /** First attempts refused since the limiter was built. */
  public long refusedFirstAttempts() {
    return refusedFirst;
  }

  /** Retries and hedges refused since the limiter was built. */
  public long refusedRetriesAndHedges() {
    return refusedLater;
  }

  /** The limiter's name, for messages and metrics. */
  public String name() {
    return name;
  }

  /** The smallest limit. */
  public int minLimit() {
    return minLimit;
  }

  /** The largest limit. */
  public int maxLimit() {
    return maxLimit;
  }

  /** The share of the limit retries and hedges may fill. */
  public double retryShare() {
    return retryShare;
  }

  /** Whether a failure of this class is a drop (the dependency is overloaded) rather than no sample. */
  boolean isOverload(FailureClass failureClass) {
    for (FailureClass overload : overloadOn) {
      if (overload == failureClass) {
        return true;
      }
    }
    return false;
  }

  /** The exception a refused first attempt fails with. */
  ConcurrencyLimitedException refusal() {
    return new ConcurrencyLimitedException("concurrency limiter '" + name + "' refused the first attempt: "
        + inFlight() + " attempts in flight, limit " + limit);
  }

  @Override
  public String toString() {
    String kind = switch (algorithm) {
      case AIMD -> "aimd, backoff ratio " + backoffRatio + ", latency threshold " + Nanos.format(latencyThresholdNanos);
      case GRADIENT -> "gradient, smoothing " + smoothing + ", queue allowance " + queueAllowance
          + ", min-RTT window " + Nanos.format(minRttWindowNanos) + ", backoff ratio " + backoffRatio;
      default -> "fixed";
    };
    return "ConcurrencyLimiter[" + name + ": " + kind + ", limit " + limit + " in [" + minLimit + ", " + maxLimit
        + "], " + inFlight() + " in flight, retry share " + retryShare + "]";
  }

  // ---- the algorithms ------------------------------------------------------------------------------------

  /** A completed attempt's sample: reads the clock (adaptive algorithms only) and updates the limit. */
  private void sample(long startNanos, int inFlightAtStart, boolean dropped) {
    if (algorithm != FIXED) {
      long now = clock.nanoTime();
      update(now, Math.max(0, now - startNanos), inFlightAtStart, dropped);
    }
  }

  /**
   * Updates the limit with one sample: at {@code nowNanos}, an attempt that took {@code rttNanos}, started
   * when {@code inFlightAtStart} attempts (itself included) were in flight, and was or was not dropped.
   * Returns the new limit.
   */
  synchronized int update(long nowNanos, long rttNanos, int inFlightAtStart, boolean dropped) {
    if (algorithm == AIMD) {
      aimd(rttNanos, inFlightAtStart, dropped);
    } else if (algorithm == GRADIENT) {
      gradient(nowNanos, rttNanos, inFlightAtStart, dropped);
    }
    int updated = (int) estimate;
    limit = updated;
    return updated;
  }

  private void aimd(long rttNanos, int inFlightAtStart, boolean dropped) {
    int current = (int) estimate;
    if (dropped || rttNanos > latencyThresholdNanos) {
      successesTowardIncrease = 0;
      estimate = Math.max(minLimit, (int) (current * backoffRatio));
    } else if (inFlightAtStart * 2 >= current && ++successesTowardIncrease >= current) {
      successesTowardIncrease = 0;
      estimate = Math.min(maxLimit, current + 1);
    }
  }

  private void gradient(long nowNanos, long rttNanos, int inFlightAtStart, boolean dropped) {
    if (dropped) {
      estimate = Math.max(minLimit, estimate * backoffRatio);
      return;
    }
    if (minRttNanos < 0 || nowNanos - windowStartNanos >= minRttWindowNanos) {
      minRttNanos = rttNanos; // a new window: the minimum is measured again
      windowStartNanos = nowNanos;
    } else {
      minRttNanos = Math.min(minRttNanos, rttNanos);
    }
    double ratio = rttNanos == 0 ? 1.0 : Math.min(1.0, Math.max(0.5, (double) minRttNanos / rttNanos));
    double target = estimate * ratio + queueAllowance;
    if (target > estimate && inFlightAtStart * 2 < estimate) {
      return; // a lightly used limit: no growth
    }
    estimate = Math.min(maxLimit, Math.max(minLimit, estimate * (1 - smoothing) + target * smoothing));
  }

  // ---- reusable permits ----------------------------------------------------------------------------------

  /** Whether {@code slot} is taken (not completed since it was last handed out). */
  private boolean holds(Slot slot) {
    return bitmap ? (slotsState & 1L << slot.index) != 0 : slot.state != Slot.FREE;
  }

  /** The slot of a take that found the stack empty: the first time this many attempts are in flight at once. */
  private Slot create() {
    int index = CREATED.getAndIncrement(this);
    Slot slot = new Slot(this, index); // index < maxLimit: see slotsState
    slots[index] = slot; // published by the stack's word when it is first freed
    return slot;
  }

  /**
   * Gives the slot back, unless it was given back already (a second completion); whether it was. The caller
   * has read the slot's fields: once it is back, another attempt may take it.
   */
  private boolean free(Slot slot) {
    int index = slot.index;
    if (bitmap) {
      long bit = 1L << index;
      while (true) {
        long word = slotsState;
        if ((word & bit) == 0) {
          return false;
        }
        if (SLOTS_STATE.compareAndSet(this, word, word & ~bit)) {
          return true;
        }
      }
    }
    if (!Slot.STATE.compareAndSet(slot, Slot.HELD, Slot.FREE)) {
      return false;
    }
    // (A bitmap's slot keeps the breaker's permit it completed until it is handed out again: one per slot.)
    slot.breakerPermit = null; // not kept while the slot waits on the stack
    while (true) {
      long word = slotsState;
      nextFree[index] = (int) (word & TOP_MASK);
      if (SLOTS_STATE.compareAndSet(this, word, ((word & ~TOP_MASK) + STAMP_ONE - IN_FLIGHT_ONE) | (index + 1L))) {
        return true;
      }
    }
  }

  /**
   * A slot taken for one attempt, reused after it completes. It is both the public permit and, composed with a
   * policy, the permit the call machine carries through the attempt: it completes the breaker's permit it wraps
   * with the same outcome.
   */
  static final class Slot implements Permit, CircuitBreaker.Permit {
    static final int FREE = 0;
    static final int HELD = 1;
    private static final int SUCCESS = 0;
    private static final int DROPPED = 1;
    private static final int IGNORED = 2;
    static final AtomicIntegerFieldUpdater<Slot> STATE =
        AtomicIntegerFieldUpdater.newUpdater(Slot.class, "state");

    private final ConcurrencyLimiter limiter;
    final int index;
    volatile int state;
    long startNanos;
    int inFlightAtStart;
    CircuitBreaker.Permit breakerPermit;

    Slot(ConcurrencyLimiter limiter, int index) {
      this.limiter = limiter;
      this.index = index;
    }

    @Override
    public void onSuccess() {
      CircuitBreaker.Permit permit = complete(SUCCESS);
      if (permit != null) {
        permit.onSuccess();
      }
    }

    @Override
    public void onDropped() {
      CircuitBreaker.Permit permit = complete(DROPPED);
      if (permit != null) {
        permit.onFailure(FailureClass.THROTTLED);
      }
    }

    /** A failure the policy's rules would retry: a drop if its class is an overload, else no sample. */
    @Override
    public void onFailure(FailureClass failureClass) {
      Nanos.requireNonNull("failureClass", failureClass);
      CircuitBreaker.Permit permit = complete(limiter.isOverload(failureClass) ? DROPPED : IGNORED);
      if (permit != null) {
        permit.onFailure(failureClass);
      }
    }

    @Override
    public void release() {
      CircuitBreaker.Permit permit = complete(IGNORED);
      if (permit != null) {
        permit.release();
      }
    }

    /** Frees the slot and takes the sample; returns the breaker's permit to complete, or null. */
    private CircuitBreaker.Permit complete(int outcome) {
      if (state == FREE && !limiter.bitmap) { // a volatile read: the fields below as the slot's taker wrote them
        return null; // completed already (a stack's slot), or never handed out
      }
      long start = startNanos;
      int used = inFlightAtStart;
      CircuitBreaker.Permit permit = breakerPermit;
      if (!limiter.free(this)) {
        return null; // completed already
      }
      if (outcome != IGNORED) {
        limiter.sample(start, used, outcome == DROPPED);
      }
      return permit;
    }

    @Override
    public String toString() {
      return "ConcurrencyLimiter.Permit[" + limiter.name + (limiter.holds(this) ? ", held]" : ", free]");
    }
  }

  /**
   * Builds a {@link ConcurrencyLimiter}. Every setter validates its argument at once, with a message naming it;
   * {@link #build()} checks that the initial limit lies within the bounds. Not thread-safe.
   */
  public static final class Builder {
    private final int algorithm;
    private String name = "default";
    private int initialLimit;
    private int minLimit = 1;
    private int maxLimit = 1000;
    private double retryShare = 0.8;
    private FailureClass[] overloadOn = {FailureClass.THROTTLED, FailureClass.TIMEOUT};
    private NanoClock clock = NanoClock.system();
    private double backoffRatio = 0.9;
    private long latencyThresholdNanos = 5_000_000_000L;
    private double smoothing = 0.2;
    private double queueAllowance = 4;
    private long minRttWindowNanos = 30_000_000_000L;

    Builder(int algorithm, int initialLimit) {
      this.algorithm = algorithm;
      this.initialLimit = initialLimit;
    }

    static int requireSlots(String parameter, int value) {
      if (value < 1 || value > MAX_SLOTS) {
        throw new IllegalArgumentException(parameter + " must be within [1, " + MAX_SLOTS + "], was " + value);
      }
      return value;
    }

    private void requireAlgorithm(String parameter, int... algorithms) {
      for (int allowed : algorithms) {
        if (allowed == algorithm) {
          return;
        }
      }
      String kind = algorithm == FIXED ? "fixed(n)" : algorithm == AIMD ? "aimd()" : "gradient()";
      throw new IllegalStateException(parameter + " does not apply to a " + kind + " limiter");
    }

    /**
     * The name, for messages and metrics (default "default").
     *
     * @throws IllegalArgumentException if {@code name} is blank
     * @throws NullPointerException if {@code name} is null
     */
    public Builder name(String name) {
      this.name = Nanos.nonBlank("name", name);
      return this;
    }

    /**
     * The limit before any sample (default 20); must lie within the {@linkplain #bounds bounds}, checked at
     * {@link #build()}.
     *
     * @throws IllegalArgumentException if not within [1, {@link #MAX_SLOTS}]
     * @throws IllegalStateException on a fixed limiter (its limit is the one given to {@link #fixed(int)})
     */
    public Builder initialLimit(int initialLimit) {
      requireAlgorithm("initialLimit", AIMD, GRADIENT);
      this.initialLimit = requireSlots("initialLimit", initialLimit);
      return this;
    }

    /**
     * The smallest and the largest limit (default 1 and 1000). The limiter keeps up to {@code maxLimit}
     * reusable permits.
     *
     * @throws IllegalArgumentException if either is not within [1, {@link #MAX_SLOTS}], or {@code minLimit}
     *     exceeds {@code maxLimit}
     * @throws IllegalStateException on a fixed limiter
     */
    public Builder bounds(int minLimit, int maxLimit) {
      requireAlgorithm("bounds", AIMD, GRADIENT);
      requireSlots("minLimit", minLimit);
      requireSlots("maxLimit", maxLimit);
      if (minLimit > maxLimit) {
        throw new IllegalArgumentException("minLimit (" + minLimit + ") must not exceed maxLimit (" + maxLimit + ")");
      }
      this.minLimit = minLimit;
      this.maxLimit = maxLimit;
      return this;
    }

    /**
     * The share of the limit that retries and hedges may fill (default 0.8): they take a slot only while fewer
     * than {@code max(1, floor(limit × retryShare))} attempts are in flight. 1 treats them as first attempts.
     *
     * @throws IllegalArgumentException if not within (0, 1]
     */
    public Builder retryShare(double retryShare) {
      this.retryShare = fraction("retryShare", retryShare, true);
      return this;
    }

    /**
     * The failure classes that mean the dependency is overloaded (default {@link FailureClass#THROTTLED} and
     * {@link FailureClass#TIMEOUT}): a composed policy reports a retryable failure of one of them as a drop.
     * None leaves the adaptive algorithms only latency to go by.
     *
     * @throws NullPointerException if {@code classes} or one of them is null
     */
    public Builder overloadOn(FailureClass... classes) {
      Nanos.requireNonNull("overloadOn classes", classes);
      for (int i = 0; i < classes.length; i++) {
        Nanos.requireNonNull("overloadOn classes[" + i + "]", classes[i]);
      }
      this.overloadOn = classes.clone();
      return this;
    }

    /** The clock that times attempts (default {@link NanoClock#system()}; a fake one in tests). */
    public Builder clock(NanoClock clock) {
      Nanos.requireNonNull("clock", clock);
      this.clock = clock;
      return this;
    }

    /**
     * What a drop multiplies the limit by (default 0.9).
     *
     * @throws IllegalArgumentException if not within (0, 1)
     * @throws IllegalStateException on a fixed limiter
     */
    public Builder backoffRatio(double backoffRatio) {
      requireAlgorithm("backoffRatio", AIMD, GRADIENT);
      this.backoffRatio = fraction("backoffRatio", backoffRatio, false);
      return this;
    }

    /**
     * AIMD: the latency above which a success counts as a drop (default 5 s).
     *
     * @throws IllegalArgumentException if not positive
     * @throws IllegalStateException on a limiter other than {@link #aimd()}
     */
    public Builder latencyThreshold(Duration latencyThreshold) {
      requireAlgorithm("latencyThreshold", AIMD);
      this.latencyThresholdNanos = positive("latencyThreshold", latencyThreshold);
      return this;
    }

    /**
     * Gradient: how far one sample moves the limit toward its target (default 0.2; 1 jumps to it).
     *
     * @throws IllegalArgumentException if not within (0, 1]
     * @throws IllegalStateException on a limiter other than {@link #gradient()}
     */
    public Builder smoothing(double smoothing) {
      requireAlgorithm("smoothing", GRADIENT);
      this.smoothing = fraction("smoothing", smoothing, true);
      return this;
    }

    /**
     * Gradient: the attempts allowed to queue at the dependency above what its minimum latency explains
     * (default 4): the limit's growth per sample while latency is at its minimum, times the smoothing.
     *
     * @throws IllegalArgumentException if negative, NaN or infinite
     * @throws IllegalStateException on a limiter other than {@link #gradient()}
     */
    public Builder queueAllowance(double queueAllowance) {
      requireAlgorithm("queueAllowance", GRADIENT);
      if (!(queueAllowance >= 0 && queueAllowance <= MAX_SLOTS)) {
        throw new IllegalArgumentException("queueAllowance must be within [0, " + MAX_SLOTS + "], was "
            + queueAllowance);
      }
      this.queueAllowance = queueAllowance;
      return this;
    }

    /**
     * Gradient: how long a minimum latency is trusted before it is measured again (default 30 s).
     *
     * @throws IllegalArgumentException if not positive
     * @throws IllegalStateException on a limiter other than {@link #gradient()}
     */
    public Builder minRttWindow(Duration minRttWindow) {
      requireAlgorithm("minRttWindow", GRADIENT);
      this.minRttWindowNanos = positive("minRttWindow", minRttWindow);
      return this;
    }

    /** {@code value}, which must lie in (0, 1), or (0, 1] if {@code oneIncluded}. */
    private static double fraction(String parameter, double value, boolean oneIncluded) {
      if (!(value > 0 && (value < 1 || oneIncluded && value == 1))) {
        throw new IllegalArgumentException(parameter + " must be within (0, 1" + (oneIncluded ? "]" : ")")
            + ", was " + value);
      }
      return value;
    }

    private static long positive(String parameter, Duration value) {
      Nanos.requireNonNull(parameter, value);
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(parameter + " must be positive, was " + value);
      }
      return Nanos.of(value);
    }

    /**
     * Builds the limiter.
     *
     * @throws IllegalArgumentException if the initial limit lies outside the bounds
     */
    public ConcurrencyLimiter build() {
      if (initialLimit < minLimit || initialLimit > maxLimit) {
        throw new IllegalArgumentException("initialLimit (" + initialLimit + ") must be within [minLimit "
            + minLimit + ", maxLimit " + maxLimit + "]");
      }
      return new ConcurrencyLimiter(this);
    }
  }
}
