package dev.backoff;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.random.RandomGenerator;

/**
 * A circuit breaker: stops calling a dependency whose recent calls mostly failed, and probes it with a few
 * trial calls before trusting it again. Usable alone, or composed with a retry policy
 * ({@link RetryPolicy.Builder#circuitBreaker}), which then asks it before every attempt.
 *
 * <h2>States</h2>
 * <ul>
 *   <li>{@link State#CLOSED}: every call is permitted, and its outcome recorded in a sliding window, either
 *       the last N calls ({@link Builder#countWindow}) or the calls of the last D ({@link Builder#timeWindow},
 *       kept in buckets). Once the window holds at least {@linkplain Builder#minimumCalls the minimum number
 *       of calls} and its failure rate (failures / calls, in percent) reaches the
 *       {@linkplain Builder#failureRateThreshold threshold}, the breaker opens.
 *   <li>{@link State#OPEN}: every call is refused, for the {@linkplain Builder#waitInOpen wait in open}
 *       (which may grow with a {@link Backoff} each time a trial fails and the breaker opens again). The
 *       first permission asked for after the wait moves it to half-open.
 *   <li>{@link State#HALF_OPEN}: at most K ({@link Builder#trialCalls}) calls are permitted at a time. K
 *       successful trials close the breaker, with an empty window; one failed trial opens it again.
 * </ul>
 *
 * <h2>Use</h2>
 * <pre>{@code
 * CircuitBreaker.Permit permit = breaker.tryAcquire();
 * if (permit == null) { ...fail fast... }
 * try { result = call(); permit.onSuccess(); }
 * catch (Exception e) { permit.onFailure(FailureClass.TRANSIENT); throw e; }
 * }</pre>
 * Every permit must be completed exactly once: {@link Permit#onSuccess()}, {@link Permit#onFailure} or, for a
 * permit whose call never ran, {@link Permit#release()}. A permit belongs to the state that granted it: the
 * outcome of a call permitted before the breaker changed state is not counted in the new state (a slow call
 * started while closed cannot close a half-open breaker).
 *
 * <h2>What counts as a failure</h2>
 * The caller says, by the {@link FailureClass} it reports. Every class counts as a failure except those
 * {@linkplain Builder#ignoring ignored}, whose outcome counts as neither (the permit is released). Composed
 * with a retry policy, the policy's classification decides: an attempt the policy accepts is a success; a
 * failed attempt or a retryable result is a failure of the class the policy's classifier gives it; a failure
 * the policy's rules refuse to retry (not retryable, aborted) and an attempt cut short (interrupted,
 * cancelled) count as neither, as a budget does not count them either: they say nothing about the
 * dependency's health.
 *
 * <h2>Cost and threads</h2>
 * Thread-safe and lock-free: the state is one atomic reference, half-open permits an atomic counter, the
 * windows atomic slots. While closed, {@code tryAcquire} is one volatile read and allocates nothing; with a
 * count window, recording an outcome reads no clock and allocates nothing (a time window reads the clock,
 * and allocates one bucket per bucket interval). Under contention, an outcome recorded while the window
 * wraps around can be lost or counted in a neighbouring slot; sequentially the rate is exact.
 */
public final class CircuitBreaker {

  /** The breaker's states. */
  public enum State {
    /** Calls are permitted and their outcomes recorded. */
    CLOSED,
    /** Calls are refused until the wait in open has passed. */
    OPEN,
    /** A limited number of trial calls are permitted. */
    HALF_OPEN
  }

  /**
   * Permission for one call, from {@link #tryAcquire()}: complete it exactly once with its outcome. Calling
   * a second completion on the same permit counts a second call. Thread-safe.
   */
  public interface Permit {
    /** The call succeeded. */
    void onSuccess();

    /**
     * The call failed; a failure of an {@linkplain Builder#ignoring ignored} class counts as neither
     * success nor failure.
     *
     * @throws NullPointerException if {@code failureClass} is null
     */
    void onFailure(FailureClass failureClass);

    /** The call this permit was granted for never ran (or its outcome should count as neither). */
    void release();
  }

  /** Hears the breaker's state transitions; runs on the thread that caused them, so it must be quick. */
  @FunctionalInterface
  public interface Listener {
    /**
     * The breaker moved from {@code from} to {@code to}. Anything it throws, except a
     * {@link VirtualMachineError}, is ignored.
     */
    void onStateTransition(CircuitBreaker breaker, State from, State to);
  }

  /**
   * A snapshot of the breaker, for metrics: its state, the window's calls and failures (those of the
   * current closed period; 0 while open or half-open), the failure rate in percent (NaN while the window
   * holds fewer calls than the minimum), how many calls it refused and how many times it opened since it
   * was built.
   */
  public record Metrics(State state, int calls, int failures, double failureRate, long refusedCalls,
      long openings) {}

  private final String name;
  private final NanoClock clock;
  private final RandomGenerator random;
  private final int windowSize; // count window: calls; time window: buckets
  private final long bucketNanos; // 0: count window
  private final int minimumCalls;
  private final double failureRateThreshold;
  private final long waitNanos;
  private final Backoff waitBackoff; // null: a fixed wait
  private final int trialCalls;
  private final FailureClass[] ignored;
  private final Listener[] listeners;
  private final AtomicReference<Object> state = new AtomicReference<>();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong openings = new AtomicLong();

  private CircuitBreaker(Builder b, int minimumCalls) {
    this.name = b.name;
    this.clock = b.clock;
    this.random = b.random;
    this.windowSize = b.windowSize;
    this.bucketNanos = b.bucketNanos;
    this.minimumCalls = minimumCalls;
    this.failureRateThreshold = b.failureRateThreshold;
    this.waitNanos = b.waitNanos;
    this.waitBackoff = b.waitBackoff;
    this.trialCalls = b.trialCalls;
    this.ignored = b.ignored.toArray(new FailureClass[0]);
    this.listeners = b.listeners.toArray(new Listener[0]);
    state.set(new Closed(this));
  }

  /** A builder with the defaults given on its setters. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Asks for permission to make one call. While closed, always granted; while open, refused until the wait
   * has passed (the first request after it moves the breaker to half-open); while half-open, granted while
   * fewer than the trial calls are in flight.
   *
   * @return the permit to complete with the call's outcome, or null if the call must not be made
   */
  public Permit tryAcquire() {
    while (true) {
      Object current = state.get();
      if (current instanceof Closed closed) {
        return closed;
      }
      if (current instanceof HalfOpen halfOpen) {
        if (halfOpen.acquire()) {
          return halfOpen;
        }
        refused.incrementAndGet();
        return null;
      }
      Open open = (Open) current;
      if (clock.nanoTime() - open.openedAt < open.waitNanos) {
        refused.incrementAndGet();
        return null;
      }
      transition(open, new HalfOpen(this, open));
    }
  }

  /**
   * Whether a call asked for {@code inNanos} from now may be permitted, without taking a permit: false while
   * the breaker is open and will still be open then, or half-open with every trial taken. The retry loops
   * ask this before sleeping, so that a retry the breaker would refuse stops the call without the sleep.
   */
  boolean mayPermitIn(long inNanos) {
    Object current = state.get();
    if (current instanceof Open open) {
      return Nanos.add(clock.nanoTime() - open.openedAt, inNanos) >= open.waitNanos;
    }
    if (current instanceof HalfOpen halfOpen) {
      return inNanos > 0 || halfOpen.available.get() > 0;
    }
    return true;
  }

  /** The current state. */
  public State state() {
    Object current = state.get();
    return current instanceof Closed ? State.CLOSED : current instanceof Open ? State.OPEN : State.HALF_OPEN;
  }

  /** The breaker's name, for metrics and messages. */
  public String name() {
    return name;
  }

  /** A snapshot for metrics (see {@link Metrics}); reads the clock with a time window. */
  public Metrics metrics() {
    Object current = state.get();
    int calls = 0;
    int failures = 0;
    if (current instanceof Closed closed) {
      long counts = closed.window.counts(clock);
      calls = (int) Math.min(Integer.MAX_VALUE, counts >>> 32);
      failures = (int) Math.min(Integer.MAX_VALUE, counts & 0xFFFF_FFFFL);
    }
    double rate = calls < minimumCalls || calls == 0 ? Double.NaN : failures * 100.0 / calls;
    return new Metrics(state(), calls, failures, rate, refused.get(), openings.get());
  }

  /** A {@link CircuitOpenException} naming this breaker, for a call it refused before any attempt. */
  CircuitOpenException openException() {
    return new CircuitOpenException("circuit breaker '" + name + "' is " + state() + " and refused the call");
  }

  @Override
  public String toString() {
    return "CircuitBreaker[" + name + ": " + state() + ", "
        + (bucketNanos == 0 ? "last " + windowSize + " calls" : "last " + Nanos.format(bucketNanos * windowSize))
        + ", opens at " + failureRateThreshold + "% of at least " + minimumCalls + " calls]";
  }

  private boolean isIgnored(FailureClass failureClass) {
    Nanos.requireNonNull("failureClass", failureClass);
    for (FailureClass c : ignored) {
      if (c == failureClass) {
        return true;
      }
    }
    return false;
  }

  private boolean transition(Object from, Object to) {
    if (!state.compareAndSet(from, to)) {
      return false;
    }
    State fromState = from instanceof Closed ? State.CLOSED : from instanceof Open ? State.OPEN : State.HALF_OPEN;
    State toState = to instanceof Closed ? State.CLOSED : to instanceof Open ? State.OPEN : State.HALF_OPEN;
    if (toState == State.OPEN) {
      openings.incrementAndGet();
    }
    for (Listener listener : listeners) {
      try {
        listener.onStateTransition(this, fromState, toState);
      } catch (VirtualMachineError fatal) {
        throw fatal;
      } catch (Throwable ignoredFailure) {
        // A listener never changes the breaker's behaviour.
      }
    }
    return true;
  }

  /** Opens the breaker from {@code from}, the {@code openings}-th consecutive opening. */
  private void open(Object from, int consecutive, long previousWait, long totalWait) {
    long wait = waitBackoff == null ? waitNanos
        : Math.max(0, waitBackoff.delayNanos(consecutive, previousWait, totalWait, random));
    transition(from, new Open(clock.nanoTime(), wait, consecutive, Nanos.add(totalWait, wait)));
  }

  /** The closed state, its window, and the permit it grants (itself: a permit allocates nothing). */
  private static final class Closed implements Permit {
    private final CircuitBreaker breaker;
    final Window window;

    Closed(CircuitBreaker breaker) {
      this.breaker = breaker;
      this.window = breaker.bucketNanos == 0 ? new CountWindow(breaker.windowSize)
          : new TimeWindow(breaker.windowSize, breaker.bucketNanos, breaker.clock.nanoTime());
    }

    @Override
    public void onSuccess() {
      record(false);
    }

    @Override
    public void onFailure(FailureClass failureClass) {
      if (!breaker.isIgnored(failureClass)) {
        record(true);
      }
    }

    @Override
    public void release() {
      // Closed permits are not counted: nothing to give back.
    }

    private void record(boolean failed) {
      long counts = window.record(failed, breaker.clock);
      long calls = counts >>> 32;
      long failures = counts & 0xFFFF_FFFFL;
      if (calls >= breaker.minimumCalls && failures * 100.0 >= breaker.failureRateThreshold * calls
          && breaker.state.get() == this) {
        breaker.open(this, 1, 0, 0);
      }
    }
  }

  /** The open state: when it opened, for how long, and how many consecutive openings led here. */
  private static final class Open {
    final long openedAt;
    final long waitNanos;
    final int consecutive;
    final long totalWait;

    Open(long openedAt, long waitNanos, int consecutive, long totalWait) {
      this.openedAt = openedAt;
      this.waitNanos = waitNanos;
      this.consecutive = consecutive;
      this.totalWait = totalWait;
    }
  }

  /** The half-open state: trial permits available, and successful trials so far. */
  private static final class HalfOpen implements Permit {
    private final CircuitBreaker breaker;
    private final Open after;
    final AtomicInteger available;
    private final AtomicInteger successes = new AtomicInteger();

    HalfOpen(CircuitBreaker breaker, Open after) {
      this.breaker = breaker;
      this.after = after;
      this.available = new AtomicInteger(breaker.trialCalls);
    }

    boolean acquire() {
      while (true) {
        int n = available.get();
        if (n == 0) {
          return false;
        }
        if (available.compareAndSet(n, n - 1)) {
          return true;
        }
      }
    }

    @Override
    public void onSuccess() {
      if (breaker.state.get() == this && successes.incrementAndGet() == breaker.trialCalls) {
        breaker.transition(this, new Closed(breaker));
      }
    }

    @Override
    public void onFailure(FailureClass failureClass) {
      if (breaker.isIgnored(failureClass)) {
        release();
      } else if (breaker.state.get() == this) {
        breaker.open(this, after.consecutive + 1, after.waitNanos, after.totalWait);
      }
    }

    @Override
    public void release() {
      if (breaker.state.get() == this) {
        available.incrementAndGet();
      }
    }
  }

  /** A sliding window of outcomes; {@code record} and {@code counts} return calls << 32 | failures. */
  private interface Window {
    long record(boolean failed, NanoClock clock);

    long counts(NanoClock clock);
  }

  /** The last N calls, in a ring of slots (1: failed). */
  private static final class CountWindow implements Window {
    private final AtomicIntegerArray slots;
    private final AtomicLong total = new AtomicLong();
    private final AtomicInteger failures = new AtomicInteger();

    CountWindow(int size) {
      slots = new AtomicIntegerArray(size);
    }

    @Override
    public long record(boolean failed, NanoClock clock) {
      int outcome = failed ? 1 : 0;
      long index = total.getAndIncrement();
      int previous = slots.getAndSet((int) (index % slots.length()), outcome);
      int failuresNow = outcome == previous ? failures.get() : failures.addAndGet(outcome - previous);
      long calls = Math.min(index + 1, slots.length());
      return calls << 32 | failuresNow;
    }

    @Override
    public long counts(NanoClock clock) {
      return Math.min(total.get(), slots.length()) << 32 | failures.get();
    }
  }

  /**
   * The calls of the last B buckets of D/B each, the current one included: a call counts for between
   * D - D/B and D after it was recorded.
   */
  private static final class TimeWindow implements Window {
    private final AtomicReferenceArray<Bucket> buckets;
    private final long bucketNanos;
    private final long origin;

    TimeWindow(int count, long bucketNanos, long origin) {
      this.buckets = new AtomicReferenceArray<>(count);
      this.bucketNanos = bucketNanos;
      this.origin = origin;
    }

    @Override
    public long record(boolean failed, NanoClock clock) {
      // Never negative: a reading taken on another thread just before the window was created counts in
      // its first bucket.
      long epoch = Math.max(0, (clock.nanoTime() - origin) / bucketNanos);
      int index = (int) (epoch % buckets.length());
      Bucket bucket = buckets.get(index);
      while (bucket == null || bucket.epoch < epoch) {
        Bucket fresh = new Bucket(epoch);
        if (buckets.compareAndSet(index, bucket, fresh)) {
          bucket = fresh;
        } else {
          bucket = buckets.get(index);
        }
      }
      bucket.counts.addAndGet(failed ? (1L << 32) | 1 : 1L << 32);
      return sum(epoch);
    }

    @Override
    public long counts(NanoClock clock) {
      return sum(Math.max(0, (clock.nanoTime() - origin) / bucketNanos));
    }

    private long sum(long epoch) {
      long calls = 0;
      long failures = 0;
      for (int i = 0; i < buckets.length(); i++) {
        Bucket bucket = buckets.get(i);
        if (bucket != null && bucket.epoch > epoch - buckets.length() && bucket.epoch <= epoch) {
          long counts = bucket.counts.get();
          calls += counts >>> 32;
          failures += counts & 0xFFFF_FFFFL;
        }
      }
      return Math.min(calls, 0x7FFF_FFFFL) << 32 | Math.min(failures, 0x7FFF_FFFFL);
    }
  }

  private static final class Bucket {
    final long epoch;
    final AtomicLong counts = new AtomicLong(); // calls << 32 | failures

    Bucket(long epoch) {
      this.epoch = epoch;
    }
  }

  /**
   * Builds a {@link CircuitBreaker}. Each setter validates its argument at once and names it in the
   * exception's message. Not thread-safe; the breakers it builds are.
   */
  public static final class Builder {
    private static final int DEFAULT_MINIMUM_CALLS = 100;
    private String name = "default";
    private NanoClock clock = NanoClock.system();
    private RandomGenerator random = RetryPolicy.ThreadLocalRandomSource.INSTANCE;
    private int windowSize = 100;
    private long bucketNanos;
    private int minimumCalls; // 0: unset, the default applies
    private double failureRateThreshold = 50;
    private long waitNanos = Duration.ofSeconds(60).toNanos();
    private Backoff waitBackoff;
    private int trialCalls = 10;
    private final List<FailureClass> ignored = new ArrayList<>();
    private final List<Listener> listeners = new ArrayList<>();

    Builder() {}

    /**
     * Names the breaker (for metrics and messages). Default "default".
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
     * A window of the last {@code calls} calls (the default, with 100).
     *
     * @throws IllegalArgumentException if {@code calls < 1}
     */
    public Builder countWindow(int calls) {
      if (calls < 1) {
        throw new IllegalArgumentException("countWindow calls must be at least 1, was " + calls);
      }
      this.windowSize = calls;
      this.bucketNanos = 0;
      return this;
    }

    /**
     * A window of the calls of the last {@code duration}, kept in {@code buckets} buckets of
     * {@code duration / buckets} each: a call counts until its bucket is no longer among the last
     * {@code buckets}, so for between {@code duration - duration / buckets} and {@code duration}.
     *
     * @throws IllegalArgumentException if {@code duration} is not positive, {@code buckets < 1}, or
     *     {@code duration / buckets} is less than 1 ms
     * @throws NullPointerException if {@code duration} is null
     */
    public Builder timeWindow(Duration duration, int buckets) {
      long nanos = Nanos.positive("timeWindow duration", duration);
      if (buckets < 1) {
        throw new IllegalArgumentException("timeWindow buckets must be at least 1, was " + buckets);
      }
      if (nanos / buckets < 1_000_000) {
        throw new IllegalArgumentException("timeWindow buckets must be at least 1 ms each, was " + duration
            + " in " + buckets + " buckets");
      }
      this.windowSize = buckets;
      this.bucketNanos = nanos / buckets;
      return this;
    }

    /**
     * The fewest calls the window must hold before its failure rate can open the breaker. Default 100, or the
     * {@linkplain #countWindow count window}'s size when that is smaller. With a count window larger than
     * this minimum it has no effect once the window is full.
     *
     * @throws IllegalArgumentException if {@code calls < 1}, or at {@link #build()} if it exceeds the count
     *     window's size (the window could never hold that many calls, so the breaker would never open)
     */
    public Builder minimumCalls(int calls) {
      if (calls < 1) {
        throw new IllegalArgumentException("minimumCalls must be at least 1, was " + calls);
      }
      this.minimumCalls = calls;
      return this;
    }

    /**
     * The failure rate, in percent of the window's calls, at or above which the breaker opens. Default 50.
     *
     * @throws IllegalArgumentException if {@code percent} is not in (0, 100]
     */
    public Builder failureRateThreshold(double percent) {
      if (!(percent > 0 && percent <= 100)) {
        throw new IllegalArgumentException("failureRateThreshold must be in (0, 100] percent, was " + percent);
      }
      this.failureRateThreshold = percent;
      return this;
    }

    /**
     * How long the breaker stays open before it lets trial calls through. Default 60 s. Replaces a
     * {@linkplain #waitInOpen(Backoff) growing wait}.
     *
     * @throws IllegalArgumentException if {@code wait} is negative
     * @throws NullPointerException if {@code wait} is null
     */
    public Builder waitInOpen(Duration wait) {
      this.waitNanos = Nanos.nonNegative("waitInOpen", wait);
      this.waitBackoff = null;
      return this;
    }

    /**
     * A wait in open that grows while trials keep failing: the n-th consecutive opening (1 when the breaker
     * opens from closed, 2 when the first trial after it fails, ...) waits {@code backoff}'s delay for retry
     * n; closing starts the count again. Replaces a {@linkplain #waitInOpen(Duration) fixed wait}.
     *
     * @throws NullPointerException if {@code backoff} is null
     */
    public Builder waitInOpen(Backoff backoff) {
      Nanos.requireNonNull("waitInOpen backoff", backoff);
      this.waitBackoff = backoff;
      return this;
    }

    /**
     * How many trial calls the half-open breaker permits at a time, and how many must succeed to close it.
     * Default 10.
     *
     * @throws IllegalArgumentException if {@code calls < 1}
     */
    public Builder trialCalls(int calls) {
      if (calls < 1) {
        throw new IllegalArgumentException("trialCalls must be at least 1, was " + calls);
      }
      this.trialCalls = calls;
      return this;
    }

    /**
     * Failure classes that count as neither success nor failure (for example {@link FailureClass#THROTTLED},
     * if throttling should be left to a budget or a rate limiter).
     *
     * @throws NullPointerException if {@code classes} or one of them is null
     */
    public Builder ignoring(FailureClass... classes) {
      Nanos.requireNonNull("ignoring classes", classes);
      for (FailureClass c : classes) {
        Nanos.requireNonNull("ignoring class", c);
        ignored.add(c);
      }
      return this;
    }

    /**
     * Adds a listener of state transitions.
     *
     * @throws NullPointerException if {@code listener} is null
     */
    public Builder listener(Listener listener) {
      Nanos.requireNonNull("listener", listener);
      listeners.add(listener);
      return this;
    }

    /**
     * The clock (default {@link NanoClock#system()}).
     *
     * @throws NullPointerException if {@code clock} is null
     */
    public Builder clock(NanoClock clock) {
      Nanos.requireNonNull("clock", clock);
      this.clock = clock;
      return this;
    }

    /**
     * The random source of a jittered {@linkplain #waitInOpen(Backoff) growing wait} (default: the calling
     * thread's {@link java.util.concurrent.ThreadLocalRandom}); it must be thread-safe.
     *
     * @throws NullPointerException if {@code random} is null
     */
    public Builder random(RandomGenerator random) {
      Nanos.requireNonNull("random", random);
      this.random = random;
      return this;
    }

    /**
     * Builds the breaker, closed with an empty window.
     *
     * @throws IllegalArgumentException if {@code minimumCalls} exceeds the count window's size
     */
    public CircuitBreaker build() {
      boolean countWindow = bucketNanos == 0;
      if (minimumCalls == 0) {
        return new CircuitBreaker(this,
            countWindow ? Math.min(DEFAULT_MINIMUM_CALLS, windowSize) : DEFAULT_MINIMUM_CALLS);
      }
      if (countWindow && minimumCalls > windowSize) {
        throw new IllegalArgumentException("minimumCalls(" + minimumCalls + ") exceeds countWindow(" + windowSize
            + "), which holds at most " + windowSize + " calls, so the breaker would never open: set minimumCalls"
            + " to at most " + windowSize + " or widen the window");
      }
      return new CircuitBreaker(this, minimumCalls);
    }
  }
}
