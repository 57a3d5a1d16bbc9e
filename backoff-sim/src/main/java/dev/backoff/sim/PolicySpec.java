package dev.backoff.sim;

import dev.backoff.AdaptiveRateLimiter;
import dev.backoff.Backoff;
import dev.backoff.CircuitBreaker;
import dev.backoff.ConcurrencyLimiter;
import dev.backoff.FailureClass;
import dev.backoff.Jitter;
import dev.backoff.RetryBudget;
import dev.backoff.RetryPolicy;
import dev.backoff.spec.ExperimentPolicies;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * A policy to simulate, in the one policy grammar ({@link dev.backoff.spec.PolicySpec}): a strategy or
 * preset with optional colon parameters ({@code full-jitter}, {@code exponential:100ms:2:20s:full},
 * {@code aws-standard}, {@code google-cloud:32s}) or an {@linkplain ExperimentPolicies experiment policy}
 * ({@code storm-exponential}), with the grammar's optional suffixes: {@code +budget} attaches the scenario's
 * retry budget, {@code +breaker[:...]} a circuit breaker on the virtual clock (one per run, or one per client
 * with {@code breaker-scope: per-client}), {@code +adaptive[:...]} an adaptive rate limiter (one per run) and
 * {@code +hedge:DELAY[:MAX]} hedging and {@code +concurrency[:...]} a concurrency limiter on the virtual clock
 * (one per run, shared by its clients). A name means the policy it means everywhere
 * ({@link dev.backoff.spec.PolicySpec#builder()}: a strategy the library's 3 attempts, a preset its own limits,
 * an experiment policy none); the scenario's {@code max-attempts}, when set, applies to every policy. Immutable.
 */
final class PolicySpec {
  /** The failure a timed-out attempt reports (a TimeoutException, so the core classifies it TIMEOUT). */
  static final Throwable TIMEOUT = new SimulatedTimeout();
  /** A refused or reset connection, or a 5xx error. */
  static final Throwable ERROR = new SimulatedFailure("connection refused or reset");
  /** A request the server shed (503 or 429). */
  static final Throwable REJECTED = new SimulatedFailure("request shed by the server");

  /**
   * The simulated failures have no cause. They say so without {@link Throwable#getCause()}'s lock: the core
   * walks a failure's causes on every attempt it records, and these few instances are shared by every
   * attempt of a run (tens of millions at scale).
   */
  static final class SimulatedTimeout extends TimeoutException {
    private static final long serialVersionUID = 1L;

    SimulatedTimeout() {
      super("simulated timeout");
      setStackTrace(new StackTraceElement[0]);
    }

    @Override
    public Throwable getCause() {
      return null;
    }
  }

  /** A simulated failure other than a timeout; it has no cause (see {@link SimulatedTimeout}). */
  static final class SimulatedFailure extends Exception {
    private static final long serialVersionUID = 1L;

    SimulatedFailure(String message) {
      super(message, null, false, false);
    }

    @Override
    public Throwable getCause() {
      return null;
    }
  }

  final String name;
  final boolean withBudget;
  final boolean firstRetryQuirk;
  /** The {@code +breaker} settings, or null. */
  final dev.backoff.spec.PolicySpec.Breaker breaker;
  /** The {@code +adaptive} settings, or null. */
  final dev.backoff.spec.PolicySpec.Adaptive adaptive;
  /** The {@code +hedge} settings, or null. */
  final dev.backoff.spec.PolicySpec.Hedge hedge;
  /** The {@code +concurrency} settings, or null. */
  final dev.backoff.spec.PolicySpec.Concurrency concurrency;
  /** The policy the name means as shipped, resolved once; each run adds its limit, budget and gates. */
  private final RetryPolicy<Object> shipped;
  private final boolean preset;
  private final boolean limitSet;

  private PolicySpec(dev.backoff.spec.PolicySpec policy, boolean firstRetryQuirk, RetryPolicy<Object> shipped,
      boolean limitSet) {
    this.limitSet = limitSet;
    this.name = policy.text();
    this.withBudget = policy.withBudget();
    this.breaker = policy.breaker();
    this.adaptive = policy.adaptive();
    this.hedge = policy.hedge();
    this.concurrency = policy.concurrency();
    this.firstRetryQuirk = firstRetryQuirk;
    this.shipped = shipped;
    this.preset = policy.experimentPolicy() == null && policy.resolvedStrategy().isPreset();
  }

  /**
   * The policies of a scenario; {@code limitSet}: the scenario sets max-attempts, which then applies to
   * every policy (otherwise each keeps the limit its name means everywhere).
   */
  static List<PolicySpec> parseAll(Object value, boolean limitSet) {
    List<PolicySpec> specs = new ArrayList<>();
    for (String name : Scenario.asStrings(value)) {
      PolicySpec spec = parse(name, limitSet);
      for (PolicySpec other : specs) {
        if (other.name.equals(spec.name)) {
          throw new ScenarioException("policies", "policy '" + name + "' is listed twice");
        }
      }
      specs.add(spec);
    }
    if (specs.isEmpty()) {
      throw new ScenarioException("policies", "at least one policy is needed");
    }
    return List.copyOf(specs);
  }

  static PolicySpec parse(String text, boolean limitSet) {
    dev.backoff.spec.PolicySpec policy;
    RetryPolicy.Builder<Object> builder;
    try {
      policy = dev.backoff.spec.PolicySpec.parse(text);
      builder = policy.builder();
    } catch (IllegalArgumentException e) {
      throw new ScenarioException("policies", e.getMessage());
    }
    if (policy.adaptive() != null && policy.hedge() != null) {
      throw new ScenarioException("policies", "policy '" + policy.text() + "': the simulator runs +adaptive or "
          + "+hedge, not both in one policy (a hedge waiting for the limiter's token is not modelled)");
    }
    String experiment = policy.experimentPolicy();
    boolean quirk = experiment != null && ExperimentPolicies.hasFirstRetryQuirk(experiment);
    // Without the hedging here: the run's attempt limit, set in build, decides whether the hedges fit.
    RetryPolicy<Object> shipped = builder.hedging(null).classifyFailures(PolicySpec::failureClass).maxSuppressed(0)
        .build();
    return new PolicySpec(policy, quirk, shipped, limitSet);
  }

  /** Builds the policy for one run without a breaker (see {@link #build(int, RetryBudget, CircuitBreaker)}). */
  RetryPolicy<Object> build(int maxAttempts, RetryBudget budget) {
    return build(maxAttempts, budget, null);
  }

  /** Builds the policy for one run without a rate limiter (see the four-argument build). */
  RetryPolicy<Object> build(int maxAttempts, RetryBudget budget, CircuitBreaker circuitBreaker) {
    return build(maxAttempts, budget, circuitBreaker, null);
  }

  /** Builds the policy for one run without a concurrency limiter (see the five-argument build). */
  RetryPolicy<Object> build(int maxAttempts, RetryBudget budget, CircuitBreaker circuitBreaker,
      AdaptiveRateLimiter rateLimiter) {
    return build(maxAttempts, budget, circuitBreaker, rateLimiter, null);
  }

  /**
   * Builds the policy for one run (or one client): the policy the name means, with the scenario's attempt
   * limit if it sets one; {@code budget} is that run's budget (or null without +budget),
   * {@code circuitBreaker} the breaker its attempts ask (or null without +breaker), {@code rateLimiter} the
   * run's adaptive limiter (or null without +adaptive), {@code concurrencyLimiter} the run's concurrency
   * limiter (or null without +concurrency); +hedge adds its hedging.
   *
   * @throws IllegalArgumentException if the policy's attempt limit leaves no room for its hedges
   */
  RetryPolicy<Object> build(int maxAttempts, RetryBudget budget, CircuitBreaker circuitBreaker,
      AdaptiveRateLimiter rateLimiter, ConcurrencyLimiter concurrencyLimiter) {
    // A strategy's or experiment policy's meaning is its backoff and limit: a fresh builder with just those
    // costs less than toBuilder's copies, which counts when each of 100 000 clients builds its own policy.
    RetryPolicy.Builder<Object> builder = preset ? shipped.toBuilder()
        : RetryPolicy.builder().name(name).backoff(shipped.backoff()).maxAttempts(shipped.maxAttempts())
            .classifyFailures(PolicySpec::failureClass).maxSuppressed(0);
    if (limitSet) {
      builder.maxAttempts(maxAttempts);
    }
    if (withBudget) {
      builder.budget(budget);
    }
    builder.circuitBreaker(circuitBreaker);
    builder.rateLimiter(rateLimiter);
    builder.concurrencyLimiter(concurrencyLimiter);
    if (hedge != null) {
      builder.hedging(hedge.hedging());
    }
    return builder.build();
  }

  /**
   * The class of a simulated failure, as the policy classifies it and as a breaker's permit is told: a shed
   * request is throttled, a timeout a timeout, anything else transient.
   */
  static FailureClass failureClass(Throwable failure) {
    return failure == REJECTED ? FailureClass.THROTTLED
        : failure == TIMEOUT ? FailureClass.TIMEOUT : FailureClass.TRANSIENT;
  }

  /**
   * For the original client's quirk: the call's policy whose first retry waits e × the think time before the
   * call (its reset to the minimum delay after a success was overwritten by the next think time), growing by
   * e from there, up to the experiment client's cap.
   */
  static RetryPolicy<Object> withFirstRetryAfter(RetryPolicy<Object> policy, long thinkNanos) {
    long cap = policy.backoff().maxDelayNanos();
    long first = Math.max(1, Math.min(cap, (long) (Math.E * thinkNanos)));
    return policy.toBuilder()
        .backoff(Backoff.exponential(Duration.ofNanos(first), Math.E, Duration.ofNanos(cap), Jitter.gaussian(0.1)))
        .build();
  }

  @Override
  public String toString() {
    return name;
  }
}
