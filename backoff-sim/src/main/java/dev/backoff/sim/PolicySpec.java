package dev.backoff.sim;

import dev.backoff.AdaptiveRateLimiter;
import dev.backoff.Backoff;
import dev.backoff.CircuitBreaker;
import dev.backoff.FailureClass;
import dev.backoff.Preset;
import dev.backoff.RetryBudget;
import dev.backoff.RetryPolicy;
import dev.backoff.spec.BackoffSpec;
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
 * {@code +hedge:DELAY[:MAX]} hedging. The scenario's {@code max-attempts} applies to strategies; to presets and experiment policies only
 * when the scenario sets it (they keep their own limits otherwise). Immutable.
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
  private final Preset preset;
  private final String experiment;
  private final Backoff backoff;
  private final boolean limitSet;

  private PolicySpec(dev.backoff.spec.PolicySpec policy, boolean firstRetryQuirk, Preset preset, String experiment,
      Backoff backoff, boolean limitSet) {
    this.limitSet = limitSet;
    this.name = policy.text();
    this.withBudget = policy.withBudget();
    this.breaker = policy.breaker();
    this.adaptive = policy.adaptive();
    this.hedge = policy.hedge();
    this.firstRetryQuirk = firstRetryQuirk;
    this.preset = preset;
    this.experiment = experiment;
    this.backoff = backoff;
  }

  /**
   * The policies of a scenario; {@code limitSet}: the scenario sets max-attempts, which then applies to
   * presets and experiment policies too.
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
    try {
      policy = dev.backoff.spec.PolicySpec.parse(text);
    } catch (IllegalArgumentException e) {
      throw new ScenarioException("policies", e.getMessage());
    }
    if (policy.adaptive() != null && policy.hedge() != null) {
      throw new ScenarioException("policies", "policy '" + policy.text() + "': the simulator runs +adaptive or "
          + "+hedge, not both in one policy (a hedge waiting for the limiter's token is not modelled)");
    }
    String experiment = ExperimentPolicies.canonical(policy.base());
    if (experiment != null) {
      return new PolicySpec(policy, ExperimentPolicies.hasFirstRetryQuirk(experiment),
          null, experiment, ExperimentPolicies.backoff(experiment), limitSet);
    }
    BackoffSpec strategy;
    try {
      strategy = policy.strategy();
    } catch (IllegalArgumentException e) {
      String message = e.getMessage();
      throw new ScenarioException("policies", message.startsWith("unknown strategy")
          ? "unknown policy '" + policy.text() + "'; known: " + String.join(", ", names())
              + ", each with suffixes such as +budget or +breaker; or a strategy with parameters such as full-jitter:100ms:20s"
          : message);
    }
    return strategy.isPreset()
        ? new PolicySpec(policy, false, strategy.preset(), null, null, limitSet)
        : new PolicySpec(policy, false, null, null, strategy.toBackoff(), limitSet);
  }

  private static List<String> names() {
    return ExperimentPolicies.allNames();
  }

  /** Builds the policy for one run without a breaker (see {@link #build(int, RetryBudget, CircuitBreaker)}). */
  RetryPolicy<Object> build(int maxAttempts, RetryBudget budget) {
    return build(maxAttempts, budget, null);
  }

  /** Builds the policy for one run without a rate limiter (see the four-argument build). */
  RetryPolicy<Object> build(int maxAttempts, RetryBudget budget, CircuitBreaker circuitBreaker) {
    return build(maxAttempts, budget, circuitBreaker, null);
  }

  /**
   * Builds the policy for one run (or one client); {@code budget} is that run's budget (or null without
   * +budget), {@code circuitBreaker} the breaker its attempts ask (or null without +breaker),
   * {@code rateLimiter} the run's adaptive limiter (or null without +adaptive); +hedge adds its hedging.
   *
   * @throws IllegalArgumentException if the policy's attempt limit leaves no room for its hedges
   */
  RetryPolicy<Object> build(int maxAttempts, RetryBudget budget, CircuitBreaker circuitBreaker,
      AdaptiveRateLimiter rateLimiter) {
    RetryPolicy.Builder<Object> builder;
    if (preset != null) {
      builder = preset.policy();
      builder.name(name);
      if (limitSet) {
        builder.maxAttempts(maxAttempts);
      }
    } else {
      builder = RetryPolicy.builder().name(name).backoff(backoff)
          .maxAttempts(experiment == null || limitSet ? maxAttempts : Integer.MAX_VALUE);
    }
    builder.classifyFailures(PolicySpec::failureClass);
    builder.maxSuppressed(0);
    if (withBudget) {
      builder.budget(budget);
    }
    builder.circuitBreaker(circuitBreaker);
    builder.rateLimiter(rateLimiter);
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

  /** For the original client's quirk: see {@link ExperimentPolicies#withFirstRetryAfter}. */
  static RetryPolicy<Object> withFirstRetryAfter(RetryPolicy<Object> policy, long thinkNanos) {
    return ExperimentPolicies.withFirstRetryAfter(policy, thinkNanos);
  }

  @Override
  public String toString() {
    return name;
  }
}
