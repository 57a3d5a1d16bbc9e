package dev.backoff;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;

/**
 * When to retry, how long to wait, and when to give up: an immutable, thread-safe description shared by
 * every driver (the {@linkplain RetryExecutor synchronous executor}, the async executor, the HTTP client,
 * the simulator). Per-call state lives in the decision engine (one per call, created at its first failure).
 *
 * <h2>Defaults</h2>
 * {@code RetryPolicy.builder().build()} makes at most 3 attempts, waits with exponential backoff with full
 * jitter (initial 100 ms, multiplier 2, cap 20 s: AWS's standard mode), has no deadline, retries every
 * {@link Exception} except {@link InterruptedException}, never retries an {@link Error}, and never retries
 * on a result. A server's pushback hint is honoured up to 60 s.
 *
 * <h2>Elapsed time</h2>
 * A call's elapsed time runs from the start of its first attempt when the policy has a deadline or
 * listeners; otherwise, to keep the success path free of clock reads, from the end of the first (failed)
 * attempt.
 *
 * @param <R> the type of result the policy inspects ({@code Object} when it inspects none)
 */
public final class RetryPolicy<R> {
  static final long DEFAULT_MAX_PUSHBACK_NANOS = Duration.ofSeconds(60).toNanos();
  private static final Backoff DEFAULT_BACKOFF =
      Backoff.exponential(Duration.ofMillis(100), 2, Duration.ofSeconds(20), Jitter.full());

  static {
    // Every entry point of the driver SPI takes a policy (or something holding one), so the bridge is in
    // place before any driver needs it.
    dev.backoff.driver.CoreAccess.register(new DriverAccess());
  }

  final String name;
  final int maxAttempts;
  final long maxElapsedNanos; // Long.MAX_VALUE: no deadline
  final Backoff backoff;
  final FailureClass[] classesWithBackoff;
  final Backoff[] backoffByClass;
  final List<Class<? extends Throwable>> retryOn;
  final List<Predicate<? super Throwable>> retryIf;
  final List<Class<? extends Throwable>> abortOn;
  final List<Predicate<? super Throwable>> abortIf;
  final Predicate<? super R> retryOnResult;
  final Function<? super Throwable, FailureClass> failureClassifier;
  final Function<? super R, FailureClass> resultClassifier;
  final Pushback.Extractor<? super R> pushback;
  final long maxPushbackNanos;
  final long pushbackAboveBackoffNanos; // Long.MAX_VALUE: a hint may lift the wait by any amount
  final RetryBudget budget;
  final CircuitBreaker breaker; // null: none
  final AdaptiveRateLimiter rateLimiter; // null: none
  final ConcurrencyLimiter concurrencyLimiter; // null: none
  final Hedging hedging; // null: none
  final RetryListener<R>[] listeners;
  final NanoClock clock;
  final Sleeper sleeper;
  final RandomGenerator random;
  final int maxSuppressed;
  final boolean needsStartTime;
  // The decision engine's hot path tests one of these instead of several fields (see Execution.decide).
  final boolean hearsOutcomes; // a rate limiter or a budget hears of every outcome the rules would retry
  final boolean gatesRetries; // a deadline, a breaker or a budget may refuse a retry the rules allow
  // The loops' first test: a gate (breaker, concurrency limiter, rate limiter) or hedging stands before the
  // first attempt, so the call cannot go straight to it.
  final boolean gatesFirstAttempt;
  final long attemptTimeoutNanos; // Long.MAX_VALUE: none
  final boolean interruptOnAttemptTimeout;
  // The listeners that hear attempt events (those overriding onAttemptStarted or onAttemptFinished): the
  // loops build attempt events only for them, so other listeners cost nothing per attempt.
  final RetryListener<R>[] attemptListeners;

  private RetryPolicy(Builder<R> b) {
    this.name = b.name;
    this.maxAttempts = b.maxAttempts;
    this.maxElapsedNanos = b.maxElapsedNanos;
    this.backoff = b.backoff;
    this.classesWithBackoff = b.classesWithBackoff.toArray(new FailureClass[0]);
    this.backoffByClass = b.backoffByClass.toArray(new Backoff[0]);
    this.retryOn = List.copyOf(b.retryOn);
    this.retryIf = List.copyOf(b.retryIf);
    this.abortOn = List.copyOf(b.abortOn);
    this.abortIf = List.copyOf(b.abortIf);
    this.retryOnResult = b.retryOnResult;
    this.failureClassifier = b.failureClassifier;
    this.resultClassifier = b.resultClassifier;
    this.pushback = b.pushback;
    this.maxPushbackNanos = b.maxPushbackNanos;
    this.pushbackAboveBackoffNanos = b.pushbackAboveBackoffNanos;
    this.budget = b.budget;
    this.breaker = b.breaker;
    this.rateLimiter = b.rateLimiter;
    this.concurrencyLimiter = b.concurrencyLimiter;
    this.hedging = b.hedging;
    if (hedging != null && hedging.maxHedges() != Hedging.UNBOUNDED && hedging.maxHedges() >= maxAttempts) {
      throw new IllegalArgumentException("hedging maxHedges(" + hedging.maxHedges() + ") needs maxAttempts of at least "
          + ((long) hedging.maxHedges() + 1) + " (the original attempt and the hedges), but maxAttempts was "
          + maxAttempts);
    }
    this.listeners = b.listeners.toArray(newListenerArray(b.listeners.size()));
    this.clock = b.clock;
    this.sleeper = b.sleeper;
    this.random = b.random;
    this.maxSuppressed = b.maxSuppressed;
    this.needsStartTime = maxElapsedNanos != Long.MAX_VALUE || listeners.length > 0;
    this.hearsOutcomes = rateLimiter != null || budget != null;
    this.gatesRetries = maxElapsedNanos != Long.MAX_VALUE || breaker != null || budget != null;
    this.gatesFirstAttempt = hedging != null || breaker != null || rateLimiter != null || concurrencyLimiter != null;
    this.attemptTimeoutNanos = b.attemptTimeoutNanos;
    this.interruptOnAttemptTimeout = b.interruptOnAttemptTimeout;
    if (interruptOnAttemptTimeout && attemptTimeoutNanos == Long.MAX_VALUE) {
      throw new IllegalArgumentException(
          "interruptOnAttemptTimeout(true) needs an attemptTimeout, but the policy has none");
    }
    this.attemptListeners = Listeners.attemptListeners(listeners);
  }

  /** A copy with another deadline, sharing every other (immutable) setting: see {@link #withMaxElapsedNanos}. */
  private RetryPolicy(RetryPolicy<R> p, long maxElapsedNanos) {
    this.name = p.name;
    this.maxAttempts = p.maxAttempts;
    this.maxElapsedNanos = maxElapsedNanos;
    this.backoff = p.backoff;
    this.classesWithBackoff = p.classesWithBackoff;
    this.backoffByClass = p.backoffByClass;
    this.retryOn = p.retryOn;
    this.retryIf = p.retryIf;
    this.abortOn = p.abortOn;
    this.abortIf = p.abortIf;
    this.retryOnResult = p.retryOnResult;
    this.failureClassifier = p.failureClassifier;
    this.resultClassifier = p.resultClassifier;
    this.pushback = p.pushback;
    this.maxPushbackNanos = p.maxPushbackNanos;
    this.pushbackAboveBackoffNanos = p.pushbackAboveBackoffNanos;
    this.budget = p.budget;
    this.breaker = p.breaker;
    this.rateLimiter = p.rateLimiter;
    this.concurrencyLimiter = p.concurrencyLimiter;
    this.hedging = p.hedging;
    this.listeners = p.listeners;
    this.clock = p.clock;
    this.sleeper = p.sleeper;
    this.random = p.random;
    this.maxSuppressed = p.maxSuppressed;
    this.needsStartTime = maxElapsedNanos != Long.MAX_VALUE || listeners.length > 0;
    this.hearsOutcomes = p.hearsOutcomes;
    this.gatesRetries = maxElapsedNanos != Long.MAX_VALUE || breaker != null || budget != null;
    this.gatesFirstAttempt = p.gatesFirstAttempt;
    this.attemptTimeoutNanos = p.attemptTimeoutNanos;
    this.interruptOnAttemptTimeout = p.interruptOnAttemptTimeout;
    this.attemptListeners = p.attemptListeners;
  }

  /**
   * This policy with its deadline shortened to {@code maxElapsedNanos} (itself if its own is no longer), for
   * a driver whose call carries its own deadline. One small object: the settings are shared, not copied.
   */
  RetryPolicy<R> withMaxElapsedNanos(long maxElapsedNanos) {
    return maxElapsedNanos >= this.maxElapsedNanos ? this : new RetryPolicy<>(this, maxElapsedNanos);
  }

  @SuppressWarnings("unchecked")
  private static <R> RetryListener<R>[] newListenerArray(int size) {
    return (RetryListener<R>[]) new RetryListener<?>[size];
  }

  /** A builder with the defaults described above. */
  public static <R> Builder<R> builder() {
    return new Builder<>();
  }

  /** The default policy (see the class description). */
  public static <R> RetryPolicy<R> defaults() {
    return new Builder<R>().build();
  }

  /** A builder initialised with this policy's settings. */
  public Builder<R> toBuilder() {
    return new Builder<>(this);
  }

  /** For the core's tests: an execution started at {@code startNanos} with the policy's random source. */
  Execution<R> newExecution(long startNanos) {
    return new Execution<>(this, startNanos, random);
  }

  /** For the core's tests: an execution drawing jitter from {@code random}. */
  Execution<R> newExecution(long startNanos, RandomGenerator random) {
    Nanos.requireNonNull("random", random);
    return new Execution<>(this, startNanos, random);
  }

  /** The policy's name, used in events, metrics and messages. */
  public String name() {
    return name;
  }

  /** The maximum number of attempts, the first included. */
  public int maxAttempts() {
    return maxAttempts;
  }

  /** The maximum elapsed time, or null if there is no deadline. */
  public Duration maxElapsed() {
    return maxElapsedNanos == Long.MAX_VALUE ? null : Duration.ofNanos(maxElapsedNanos);
  }

  /**
   * The longest one attempt may take, or null if attempts have no timeout of their own (see
   * {@link Builder#attemptTimeout}).
   */
  public Duration attemptTimeout() {
    return attemptTimeoutNanos == Long.MAX_VALUE ? null : Duration.ofNanos(attemptTimeoutNanos);
  }

  /** Whether the synchronous executor interrupts an attempt that outlives its timeout. */
  public boolean interruptsOnAttemptTimeout() {
    return interruptOnAttemptTimeout;
  }

  /**
   * One attempt's timeout in nanoseconds: the attempt timeout clipped to {@code nanosLeft}, the time left
   * before the deadline. Never below 1 ms (as the HTTP client's): an attempt started at the deadline gets a
   * token millisecond rather than none.
   */
  long attemptTimeoutNanos(long nanosLeft) {
    return Math.max(MIN_ATTEMPT_TIMEOUT_NANOS, Math.min(attemptTimeoutNanos, nanosLeft));
  }

  private static final long MIN_ATTEMPT_TIMEOUT_NANOS = 1_000_000;

  /** The default backoff (used for failure classes without their own). */
  public Backoff backoff() {
    return backoff;
  }

  /** The backoff used for failures of this class. */
  public Backoff backoff(FailureClass failureClass) {
    for (int i = 0; i < classesWithBackoff.length; i++) {
      if (classesWithBackoff[i] == failureClass) {
        return backoffByClass[i];
      }
    }
    return backoff;
  }

  /** The retry budget, or null. */
  public RetryBudget budget() {
    return budget;
  }

  /** The adaptive rate limiter every attempt takes a token from, or null. */
  public AdaptiveRateLimiter rateLimiter() {
    return rateLimiter;
  }

  /** The concurrency limiter every attempt takes a slot from, or null (see {@link Builder#concurrencyLimiter}). */
  public ConcurrencyLimiter concurrencyLimiter() {
    return concurrencyLimiter;
  }

  /** The circuit breaker every attempt asks first, or null. */
  public CircuitBreaker circuitBreaker() {
    return breaker;
  }

  /** The hedging settings, or null if calls under this policy do not hedge (see {@link Builder#hedging}). */
  public Hedging hedging() {
    return hedging;
  }

  /** The largest pushback hint that is honoured. */
  public Duration maxPushback() {
    return Duration.ofNanos(maxPushbackNanos);
  }

  /** How far a pushback hint may lift the wait above the backoff, or null if by any amount. */
  public Duration pushbackAboveBackoff() {
    return pushbackAboveBackoffNanos == Long.MAX_VALUE ? null : Duration.ofNanos(pushbackAboveBackoffNanos);
  }

  /** The clock the synchronous and async executors read. */
  public NanoClock clock() {
    return clock;
  }

  /** The sleeper the synchronous executor waits with. */
  public Sleeper sleeper() {
    return sleeper;
  }

  /** The random source for jitter. */
  public RandomGenerator random() {
    return random;
  }

  @Override
  public String toString() {
    return "RetryPolicy[" + name + ": " + maxAttempts + " attempts, " + backoff
        + (maxElapsedNanos == Long.MAX_VALUE ? "" : ", deadline " + dev.backoff.spec.Durations.formatTruncated(maxElapsedNanos))
        + (budget == null ? "" : ", budget " + budget)
        + (breaker == null ? "" : ", breaker " + breaker.name())
        + (concurrencyLimiter == null ? "" : ", concurrency limiter " + concurrencyLimiter.name())
        + (rateLimiter == null ? "" : ", rate limiter " + rateLimiter.name())
        + (hedging == null ? "" : ", " + hedging) + "]";
  }

  /**
   * Builds a {@link RetryPolicy}. Each setter validates its argument at once and names it in the
   * exception's message. Not thread-safe; the policies it builds are.
   *
   * @param <R> the result type
   */
  public static final class Builder<R> {
    private String name = "default";
    private int maxAttempts = 3;
    private long maxElapsedNanos = Long.MAX_VALUE;
    private Backoff backoff = DEFAULT_BACKOFF;
    private final List<FailureClass> classesWithBackoff = new ArrayList<>();
    private final List<Backoff> backoffByClass = new ArrayList<>();
    private final List<Class<? extends Throwable>> retryOn = new ArrayList<>();
    private final List<Predicate<? super Throwable>> retryIf = new ArrayList<>();
    private final List<Class<? extends Throwable>> abortOn = new ArrayList<>();
    private final List<Predicate<? super Throwable>> abortIf = new ArrayList<>();
    private Predicate<? super R> retryOnResult;
    private Function<? super Throwable, FailureClass> failureClassifier = Classification.DEFAULT_CLASSIFIER;
    private Function<? super R, FailureClass> resultClassifier = result -> FailureClass.TRANSIENT;
    private Pushback.Extractor<? super R> pushback;
    private long maxPushbackNanos = DEFAULT_MAX_PUSHBACK_NANOS;
    private long pushbackAboveBackoffNanos = Long.MAX_VALUE;
    private RetryBudget budget;
    private CircuitBreaker breaker;
    private AdaptiveRateLimiter rateLimiter;
    private ConcurrencyLimiter concurrencyLimiter;
    private Hedging hedging;
    private final List<RetryListener<R>> listeners = new ArrayList<>();
    private NanoClock clock = NanoClock.system();
    private Sleeper sleeper = Sleeper.system();
    private RandomGenerator random = ThreadLocalRandomSource.INSTANCE;
    private int maxSuppressed = 10;
    private long attemptTimeoutNanos = Long.MAX_VALUE;
    private boolean interruptOnAttemptTimeout;

    Builder() {}

    Builder(RetryPolicy<R> p) {
      name = p.name;
      maxAttempts = p.maxAttempts;
      maxElapsedNanos = p.maxElapsedNanos;
      backoff = p.backoff;
      classesWithBackoff.addAll(Arrays.asList(p.classesWithBackoff));
      backoffByClass.addAll(Arrays.asList(p.backoffByClass));
      retryOn.addAll(p.retryOn);
      retryIf.addAll(p.retryIf);
      abortOn.addAll(p.abortOn);
      abortIf.addAll(p.abortIf);
      retryOnResult = p.retryOnResult;
      failureClassifier = p.failureClassifier;
      resultClassifier = p.resultClassifier;
      pushback = p.pushback;
      maxPushbackNanos = p.maxPushbackNanos;
      pushbackAboveBackoffNanos = p.pushbackAboveBackoffNanos;
      budget = p.budget;
      breaker = p.breaker;
      rateLimiter = p.rateLimiter;
      concurrencyLimiter = p.concurrencyLimiter;
      hedging = p.hedging;
      listeners.addAll(Arrays.asList(p.listeners));
      clock = p.clock;
      sleeper = p.sleeper;
      random = p.random;
      maxSuppressed = p.maxSuppressed;
      attemptTimeoutNanos = p.attemptTimeoutNanos;
      interruptOnAttemptTimeout = p.interruptOnAttemptTimeout;
    }

    /**
     * Names the policy (for events, metrics tags and messages). Default "default".
     *
     * @throws IllegalArgumentException if {@code name} is blank
     */
    public Builder<R> name(String name) {
      Nanos.requireNonNull("name", name);
      if (name.isBlank()) {
        throw new IllegalArgumentException("name must not be blank, was '" + name + "'");
      }
      this.name = name;
      return this;
    }

    /**
     * The maximum number of attempts, the first included (so 1 means no retries). Default 3.
     *
     * @throws IllegalArgumentException if {@code maxAttempts < 1}
     */
    public Builder<R> maxAttempts(int maxAttempts) {
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
      }
      this.maxAttempts = maxAttempts;
      return this;
    }

    /** Equivalent to {@code maxAttempts(Integer.MAX_VALUE)}: bound the call by a deadline instead. */
    public Builder<R> unlimitedAttempts() {
      this.maxAttempts = Integer.MAX_VALUE;
      return this;
    }

    /**
     * A deadline for the whole call: a sleep that would end past it is never started; the call stops
     * with {@link StopReason#DEADLINE_EXCEEDED} instead.
     *
     * @throws IllegalArgumentException if {@code maxElapsed} is not positive
     */
    public Builder<R> maxElapsed(Duration maxElapsed) {
      this.maxElapsedNanos = Nanos.positive("maxElapsed", maxElapsed);
      return this;
    }

    /**
     * A timeout for each attempt, clipped to what is left before the {@linkplain #maxElapsed deadline}
     * when there is one. An attempt that outlives it fails with a
     * {@link java.util.concurrent.TimeoutException}, classified {@link FailureClass#TIMEOUT} by the default
     * classifier (so a budget charges it as a timeout), and is retried by the policy's rules like any
     * other failure. The asynchronous executor enforces it with a timer on its scheduler and cancels the
     * attempt's stage; the synchronous executor cannot stop a running attempt without interrupting it, so
     * it enforces the timeout only if {@link #interruptOnAttemptTimeout(boolean)} opts in. An attempt
     * started at the deadline gets 1 ms. The HTTP client uses it as its per-attempt timeout when neither
     * the request nor the client sets one. Default: none.
     *
     * @throws IllegalArgumentException if {@code attemptTimeout} is not positive
     * @throws NullPointerException if {@code attemptTimeout} is null
     */
    public Builder<R> attemptTimeout(Duration attemptTimeout) {
      this.attemptTimeoutNanos = Nanos.positive("attemptTimeout", attemptTimeout);
      return this;
    }

    /**
     * Whether the synchronous executor enforces the {@linkplain #attemptTimeout attempt timeout} by
     * interrupting the attempt's thread (default false: a synchronous attempt runs to its end). When on, a
     * watchdog task on the executor's scheduler interrupts the thread when the attempt's time is up. The
     * attempt then fails with a {@link java.util.concurrent.TimeoutException} (whatever it returned or
     * threw, which is attached as suppressed), the loop clears the interrupt it caused, and the call goes
     * on by the policy's rules. Only code that responds to interruption (blocking I/O on interruptible
     * channels, {@code Thread.sleep}, {@code Object.wait}, locks, futures) stops early; other code runs to
     * its end and still counts as timed out.
     *
     * <p>An interrupt from anyone else wins: if the thread is already interrupted when the watchdog fires,
     * the watchdog does nothing and the call stops as {@link StopReason#INTERRUPTED}. An outside interrupt
     * that arrives after the watchdog's, while the attempt is still running, cannot be told apart from it
     * and is cleared with it.
     *
     * @throws IllegalArgumentException at {@link #build()} if this is on without an attempt timeout
     */
    public Builder<R> interruptOnAttemptTimeout(boolean interrupt) {
      this.interruptOnAttemptTimeout = interrupt;
      return this;
    }

    /** The backoff between attempts. */
    public Builder<R> backoff(Backoff backoff) {
      Nanos.requireNonNull("backoff", backoff);
      this.backoff = backoff;
      return this;
    }

    /** A backoff for failures of one class (e.g. a longer one for {@link FailureClass#THROTTLED}). */
    public Builder<R> backoff(FailureClass failureClass, Backoff backoff) {
      Nanos.requireNonNull("failureClass", failureClass);
      Nanos.requireNonNull("backoff", backoff);
      int index = classesWithBackoff.indexOf(failureClass);
      if (index >= 0) {
        backoffByClass.set(index, backoff);
      } else {
        classesWithBackoff.add(failureClass);
        backoffByClass.add(backoff);
      }
      return this;
    }

    /**
     * Retries failures of these types (or caused by them). The first call to {@code retryOn} or
     * {@link #retryIf} replaces the default (every {@link Exception}).
     *
     * @throws NullPointerException if a type is null
     */
    @SafeVarargs
    public final Builder<R> retryOn(Class<? extends Throwable>... types) {
      if (types == null) { // not passed on: letting the varargs array escape would void @SafeVarargs
        throw new NullPointerException("retryOn types must not be null");
      }
      for (Class<? extends Throwable> type : types) {
        Nanos.requireNonNull("retryOn type", type);
        retryOn.add(type);
      }
      return this;
    }

    /** Retries failures that match the predicate (tested on the failure and each of its causes). */
    public Builder<R> retryIf(Predicate<? super Throwable> predicate) {
      Nanos.requireNonNull("retryIf predicate", predicate);
      retryIf.add(predicate);
      return this;
    }

    /** Stops at once on failures of these types (or caused by them); abort rules win over retry rules. */
    @SafeVarargs
    public final Builder<R> abortOn(Class<? extends Throwable>... types) {
      if (types == null) { // not passed on: letting the varargs array escape would void @SafeVarargs
        throw new NullPointerException("abortOn types must not be null");
      }
      for (Class<? extends Throwable> type : types) {
        Nanos.requireNonNull("abortOn type", type);
        abortOn.add(type);
      }
      return this;
    }

    /** Stops at once on failures that match the predicate (tested on the failure and its causes). */
    public Builder<R> abortIf(Predicate<? super Throwable> predicate) {
      Nanos.requireNonNull("abortIf predicate", predicate);
      abortIf.add(predicate);
      return this;
    }

    /** Retries when an attempt's result matches (e.g. a 503 response); the last result is returned if retries run out. */
    public Builder<R> retryOnResult(Predicate<? super R> predicate) {
      Nanos.requireNonNull("retryOnResult predicate", predicate);
      this.retryOnResult = predicate;
      return this;
    }

    /** Classifies failures for per-class backoff and budget costs. Default: timeouts are {@link FailureClass#TIMEOUT}, the rest {@link FailureClass#TRANSIENT}. */
    public Builder<R> classifyFailures(Function<? super Throwable, FailureClass> classifier) {
      Nanos.requireNonNull("failure classifier", classifier);
      this.failureClassifier = classifier;
      return this;
    }

    /** Classifies retried results (e.g. 429 as {@link FailureClass#THROTTLED}). Default: {@link FailureClass#TRANSIENT}. */
    public Builder<R> classifyResults(Function<? super R, FailureClass> classifier) {
      Nanos.requireNonNull("result classifier", classifier);
      this.resultClassifier = classifier;
      return this;
    }

    /** Reads a server's pushback hint from each failed attempt. */
    public Builder<R> pushback(Pushback.Extractor<? super R> extractor) {
      Nanos.requireNonNull("pushback extractor", extractor);
      this.pushback = extractor;
      return this;
    }

    /**
     * The longest pushback honoured; a longer hint stops the call. Default 60 s.
     *
     * @throws IllegalArgumentException if {@code maxPushback} is negative
     */
    public Builder<R> maxPushback(Duration maxPushback) {
      this.maxPushbackNanos = Nanos.nonNegative("maxPushback", maxPushback);
      return this;
    }

    /**
     * Bounds how far a pushback hint may lift the wait above the backoff: the wait becomes
     * {@code min(max(hint, backoff), backoff + limit)} instead of {@code max(hint, backoff)}, so a long hint
     * is cut short rather than honoured (a hint above {@link #maxPushback} still stops the call). AWS's 2026
     * retry behaviour bounds {@code x-amz-retry-after} this way with 5 s. Default: no bound.
     *
     * @throws IllegalArgumentException if {@code limit} is negative
     */
    public Builder<R> pushbackAboveBackoff(Duration limit) {
      this.pushbackAboveBackoffNanos = Nanos.nonNegative("pushbackAboveBackoff", limit);
      return this;
    }

    /** A retry budget shared with other policies or calls; null removes it. */
    public Builder<R> budget(RetryBudget budget) {
      this.budget = budget;
      return this;
    }

    /**
     * A circuit breaker, usually shared by every call to one dependency; null removes it. Every attempt,
     * the first included, asks it for permission first and reports its outcome to it (see
     * {@link CircuitBreaker} for what counts as a failure). A refused first attempt fails the call at once
     * with a {@link CircuitOpenException}; a refused retry stops the call with
     * {@link StopReason#CIRCUIT_OPEN} and the last attempt's failure (or result), like any other stop. A
     * retry the breaker would refuse when it falls due stops the call before its sleep, not after.
     */
    public Builder<R> circuitBreaker(CircuitBreaker breaker) {
      this.breaker = breaker;
      return this;
    }

    /**
     * An adaptive client-side rate limiter, usually shared by every call to one service; null removes it.
     * Every attempt, the first included, takes a token from it ({@link AdaptiveRateLimiter#reserve()}) just
     * before it starts (after the backoff's sleep, and after the circuit breaker, if any, permitted it), and
     * reports whether its outcome was a throttle (an outcome this policy classifies
     * {@link FailureClass#THROTTLED}). When the limiter says wait, the call waits on the policy's
     * {@linkplain #sleeper sleeper} (synchronous calls) or the executor's scheduler (asynchronous calls),
     * honouring interruption and cancellation; a wait that would end past the deadline stops the call
     * ({@link StopReason#DEADLINE_EXCEEDED}), and a refusal stops it with {@link StopReason#RATE_LIMITED}.
     * A first attempt stopped this way fails the call with a {@link RateLimitedException}, or its recovery's
     * value; a retry stopped this way leaves the last attempt's failure (or result), like any other stop.
     * Until the limiter's first throttle, it costs a call one volatile read and, per attempt, one clock read.
     */
    public Builder<R> rateLimiter(AdaptiveRateLimiter rateLimiter) {
      this.rateLimiter = rateLimiter;
      return this;
    }

    /**
     * An adaptive concurrency limit, usually shared by every call to one dependency; null removes it. Every
     * attempt, the first included, takes a slot from it after the circuit breaker (if any) permitted it and
     * before the rate limiter (if any) is asked, so that a refused attempt spends neither a breaker trial nor a
     * token, and a call waiting for a token holds no slot. A retry takes one only within the limiter's retry
     * share (see {@link ConcurrencyLimiter}), so retries are refused before first attempts. The attempt's
     * latency and outcome complete the slot: an accepted attempt is a sample; a retryable failure of one of the
     * limiter's overload classes a drop; anything else frees the slot without a sample. A refused first
     * attempt fails the call at once with a {@link ConcurrencyLimitedException} (or its recovery's value); a
     * refused retry stops the call with {@link StopReason#CONCURRENCY_LIMITED} and the last attempt's failure
     * (or result), like any other stop. The synchronous and asynchronous executors and the drivers built on
     * their loops honour it, the hedging loop too: a hedge is admitted as a retry is, and a refused hedge means
     * no further hedge (the attempts in flight go on; the call ends with {@link StopReason#CONCURRENCY_LIMITED}
     * if none answers acceptably).
     */
    public Builder<R> concurrencyLimiter(ConcurrencyLimiter concurrencyLimiter) {
      this.concurrencyLimiter = concurrencyLimiter;
      return this;
    }

    /**
     * Hedges asynchronous calls: another attempt starts when the ones in flight have not answered within the
     * hedging delay, and the first acceptable result wins (see {@link Hedging} for the full semantics). Every
     * hedge counts as an attempt, so {@code maxAttempts} bounds them; the backoff is not used. Only the
     * asynchronous executor and drivers run hedged calls: a synchronous call under such a policy throws an
     * {@link IllegalArgumentException}.
     * Null removes it. Default: none.
     *
     * @throws IllegalArgumentException at {@link #build()} if {@code hedging} sets {@code maxHedges} that
     *     {@code maxAttempts} does not allow, or the policy also has a {@linkplain #concurrencyLimiter
     *     concurrency limiter}
     */
    public Builder<R> hedging(Hedging hedging) {
      this.hedging = hedging;
      return this;
    }

    /** Adds a listener. */
    @SuppressWarnings("unchecked") // a listener of a supertype only reads R values through its events
    public Builder<R> listener(RetryListener<? super R> listener) {
      Nanos.requireNonNull("listener", listener);
      listeners.add((RetryListener<R>) listener);
      return this;
    }

    /** The clock (default {@link NanoClock#system()}). */
    public Builder<R> clock(NanoClock clock) {
      Nanos.requireNonNull("clock", clock);
      this.clock = clock;
      return this;
    }

    /** The sleeper (default {@link Sleeper#system()}). */
    public Builder<R> sleeper(Sleeper sleeper) {
      Nanos.requireNonNull("sleeper", sleeper);
      this.sleeper = sleeper;
      return this;
    }

    /** The random source for jitter (default: the calling thread's {@link ThreadLocalRandom}). It must be thread-safe if the policy is shared. */
    public Builder<R> random(RandomGenerator random) {
      Nanos.requireNonNull("random", random);
      this.random = random;
      return this;
    }

    /**
     * How many earlier failures are attached as suppressed exceptions to the one the caller gets. Default 10.
     *
     * @throws IllegalArgumentException if negative
     */
    public Builder<R> maxSuppressed(int maxSuppressed) {
      if (maxSuppressed < 0) {
        throw new IllegalArgumentException("maxSuppressed must not be negative, was " + maxSuppressed);
      }
      this.maxSuppressed = maxSuppressed;
      return this;
    }

    /**
     * Builds the immutable policy.
     *
     * @throws IllegalArgumentException if {@code interruptOnAttemptTimeout} is on without an attempt timeout,
     *     the hedging's {@code maxHedges} exceeds {@code maxAttempts - 1}, or the policy has both hedging and a
     *     concurrency limiter
     */
    public RetryPolicy<R> build() {
      return new RetryPolicy<>(this);
    }
  }

  /** The default random source: the calling thread's {@link ThreadLocalRandom}, looked up on each use. */
  enum ThreadLocalRandomSource implements RandomGenerator {
    INSTANCE;

    @Override
    public long nextLong() {
      return ThreadLocalRandom.current().nextLong();
    }

    @Override
    public double nextDouble() {
      return ThreadLocalRandom.current().nextDouble();
    }
  }
}
