package dev.backoff.spring.boot;

import dev.backoff.AdaptiveRateLimiter;
import dev.backoff.CircuitBreaker;
import dev.backoff.ConcurrencyLimiter;
import dev.backoff.Hedging;
import dev.backoff.RetryBudget;
import dev.backoff.RetryPolicy;
import dev.backoff.spec.Durations;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The Actuator endpoint {@code backoff} ({@code /actuator/backoff} once exposed): every named policy with
 * its parameters, its budget and the budget's current level, its circuit breaker's state, its rate
 * limiter's rates, its hedging and its concurrency limiter's limit and refusals (each null when the policy
 * has none), its calls, attempts and
 * amplification (attempts per call), and every named budget with its level. Read-only; thread-safe.
 */
@Endpoint(id = "backoff")
public class BackoffEndpoint {
  private final BackoffRegistry registry;

  /** An endpoint describing {@code registry}. */
  public BackoffEndpoint(BackoffRegistry registry) {
    this.registry = registry;
  }

  /** Everything: {@code policies} and {@code budgets}, each by name. */
  @ReadOperation
  public Map<String, Object> backoff() {
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("policies", registry.names().stream()
        .collect(Collectors.toMap(name -> name, this::policy, (a, b) -> a, LinkedHashMap::new)));
    Map<String, Object> budgets = new LinkedHashMap<>();
    for (String name : registry.budgetNames()) {
      budgets.put(name, Map.of("spec", registry.budgetSpec(name), "level", registry.budget(name).level()));
    }
    result.put("budgets", budgets);
    return result;
  }

  /**
   * One policy ({@code /actuator/backoff/{name}}), or null (404) if there is none.
   *
   * @param name the policy's name
   */
  @ReadOperation
  public Map<String, Object> policy(@Selector String name) {
    if (!registry.names().contains(name)) {
      return null;
    }
    RetryPolicy<Object> policy = registry.policy(name);
    BackoffProperties.Policy settings = registry.settings(name);
    BackoffRegistry.Stats stats = registry.stats(name);
    Map<String, Object> view = new LinkedHashMap<>();
    view.put("strategy", settings.getStrategy() == null ? "default" : settings.getStrategy());
    view.put("backoff", policy.backoff().toString());
    view.put("maxAttempts", policy.maxAttempts());
    view.put("maxElapsed", format(policy.maxElapsed()));
    view.put("attemptTimeout", format(policy.attemptTimeout()));
    view.put("maxPushback", format(policy.maxPushback()));
    view.put("retryOn", settings.getRetryOn().stream().map(Class::getName).collect(Collectors.toList()));
    view.put("abortOn", settings.getAbortOn().stream().map(Class::getName).collect(Collectors.toList()));
    view.put("retryOnStatuses", settings.getRetryOnStatuses());
    view.put("waitHeaders", settings.getWaitHeaders());
    view.put("budget", settings.getBudget());
    RetryBudget budget = policy.budget();
    view.put("budgetLevel", budget == null ? null : budget.level());
    view.put("circuitBreaker", breaker(policy.circuitBreaker()));
    view.put("rateLimiter", limiter(policy.rateLimiter()));
    view.put("hedging", hedging(policy.hedging()));
    view.put("concurrencyLimiter", concurrencyLimiter(policy.concurrencyLimiter()));
    view.put("calls", stats.calls());
    view.put("attempts", stats.attempts());
    double amplification = stats.amplification();
    view.put("amplification", Double.isNaN(amplification) ? null : amplification);
    return view;
  }

  /** The breaker's state and window, or null. */
  private static Map<String, Object> breaker(CircuitBreaker breaker) {
    if (breaker == null) {
      return null;
    }
    CircuitBreaker.Metrics metrics = breaker.metrics();
    Map<String, Object> view = new LinkedHashMap<>();
    view.put("state", metrics.state().name());
    view.put("calls", metrics.calls());
    view.put("failures", metrics.failures());
    view.put("failureRate", Double.isNaN(metrics.failureRate()) ? null : metrics.failureRate());
    view.put("refusedCalls", metrics.refusedCalls());
    return view;
  }

  /** The limiter's rates and counts, or null. */
  private static Map<String, Object> limiter(AdaptiveRateLimiter limiter) {
    if (limiter == null) {
      return null;
    }
    Map<String, Object> view = new LinkedHashMap<>();
    view.put("enabled", limiter.enabled());
    view.put("fillRate", limiter.fillRate());
    view.put("measuredSendRate", limiter.measuredSendRate());
    view.put("waits", limiter.waits());
    view.put("refusals", limiter.refusals());
    view.put("throttles", limiter.throttles());
    return view;
  }

  /** The concurrency limiter's limit, bounds, attempts in flight and refusals, or null. */
  private static Map<String, Object> concurrencyLimiter(ConcurrencyLimiter limiter) {
    if (limiter == null) {
      return null;
    }
    Map<String, Object> view = new LinkedHashMap<>();
    view.put("limit", limiter.limit());
    view.put("minLimit", limiter.minLimit());
    view.put("maxLimit", limiter.maxLimit());
    view.put("inFlight", limiter.inFlight());
    view.put("retryShare", limiter.retryShare());
    view.put("refusedFirstAttempts", limiter.refusedFirstAttempts());
    view.put("refusedRetriesAndHedges", limiter.refusedRetriesAndHedges());
    return view;
  }

  /** The hedging delay and bound, or null. */
  private static Map<String, Object> hedging(Hedging hedging) {
    if (hedging == null) {
      return null;
    }
    Map<String, Object> view = new LinkedHashMap<>();
    view.put("delay", Durations.format(hedging.delay()));
    view.put("maxHedges", hedging.maxHedges() == Hedging.UNBOUNDED ? null : hedging.maxHedges());
    return view;
  }

  private static String format(Duration duration) {
    if (duration == null) {
      return null;
    }
    return duration.compareTo(Duration.ofNanos(Long.MAX_VALUE)) >= 0 ? "unlimited" : Durations.format(duration);
  }
}
