package dev.backoff.micrometer;

import dev.backoff.AdaptiveRateLimiter;
import dev.backoff.AdaptiveHedgeDelay;
import dev.backoff.ConcurrencyLimiter;
import dev.backoff.CircuitBreaker;
import dev.backoff.RetryBudget;
import dev.backoff.RetryEvent;
import dev.backoff.RetryListener;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Micrometer metrics for Backoff: a {@link RetryListener} that records, for each policy (tag {@code policy},
 * the policy's {@linkplain RetryPolicy#name() name}):
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>meter</th><th>type</th><th>what</th></tr>
 *   <tr><td>{@code backoff.calls}</td><td>counter, tag {@code outcome}</td><td>finished calls by outcome:
 *       {@code first_try_success}, {@code success_after_retries}, {@code exhausted}, {@code aborted},
 *       {@code budget_refused}</td></tr>
 *   <tr><td>{@code backoff.attempts}</td><td>distribution summary</td><td>attempts per finished call</td></tr>
 *   <tr><td>{@code backoff.retry.delay}</td><td>timer</td><td>each scheduled retry's delay</td></tr>
 *   <tr><td>{@code backoff.hedges.sent}</td><td>counter</td><td>hedges a hedged call started besides its
 *       first attempt (registered at the policy's first hedge)</td></tr>
 *   <tr><td>{@code backoff.hedges.won}</td><td>counter</td><td>hedged calls whose accepted result came from a
 *       hedge rather than the first attempt (registered at the policy's first win)</td></tr>
 *   <tr><td>{@code backoff.retry.amplification}</td><td>gauge</td><td>attempts / calls over the finished calls
 *       (1.0: no retries; NaN before the first call ends)</td></tr>
 *   <tr><td>{@code backoff.budget.level}</td><td>gauge</td><td>the budget's level (tokens or retries
 *       available), for budgets bound with {@link #instrument} or {@link #bindBudget}</td></tr>
 *   <tr><td>{@code backoff.breaker.state}</td><td>gauge, tags {@code breaker}, {@code state}</td><td>1 for
 *       the circuit breaker's current state ({@code closed}, {@code open}, {@code half_open}), 0 for the
 *       others, for breakers bound with {@link #bindCircuitBreaker}</td></tr>
 *   <tr><td>{@code backoff.breaker.failure.rate}</td><td>gauge, tag {@code breaker}</td><td>the closed
 *       breaker's failure rate over its window, in percent (NaN below its minimum number of calls)</td></tr>
 *   <tr><td>{@code backoff.breaker.refused}</td><td>function counter, tag {@code breaker}</td><td>calls the
 *       breaker refused</td></tr>
 *   <tr><td>{@code backoff.breaker.transitions}</td><td>counter, tags {@code breaker}, {@code from},
 *       {@code to}</td><td>state transitions, for breakers built with {@link #breakerListener}</td></tr>
 *   <tr><td>{@code backoff.limiter.fill.rate}</td><td>gauge, tag {@code limiter}</td><td>the adaptive rate
 *       limiter's fill rate, requests per second (0 until its first throttle enables it), for limiters bound
 *       with {@link #bindRateLimiter}</td></tr>
 *   <tr><td>{@code backoff.limiter.measured.rate}</td><td>gauge, tag {@code limiter}</td><td>its measured
 *       send rate, requests per second</td></tr>
 *   <tr><td>{@code backoff.limiter.capacity}, {@code backoff.limiter.tokens}</td><td>gauges, tag
 *       {@code limiter}</td><td>its bucket's capacity and the tokens in it (negative while reservations
 *       wait)</td></tr>
 *   <tr><td>{@code backoff.limiter.enabled}</td><td>gauge, tag {@code limiter}</td><td>1 once a throttle
 *       has enabled it, else 0</td></tr>
 *   <tr><td>{@code backoff.limiter.waits}, {@code backoff.limiter.refused},
 *       {@code backoff.limiter.throttles}</td><td>function counters, tag {@code limiter}</td><td>reservations
 *       that had to wait, reservations refused, throttles reported</td></tr>
 *   <tr><td>{@code backoff.limiter.wait}</td><td>timer, tag {@code limiter}</td><td>each wait for a token,
 *       for limiters built with {@link #rateLimiterListener}</td></tr>
 *   <tr><td>{@code backoff.concurrency.limit}</td><td>gauge, tag {@code limiter}</td><td>the concurrency
 *       limiter's current limit on attempts in flight, for limiters bound with
 *       {@link #bindConcurrencyLimiter}</td></tr>
 *   <tr><td>{@code backoff.concurrency.in.flight}</td><td>gauge, tag {@code limiter}</td><td>attempts holding
 *       one of its slots</td></tr>
 *   <tr><td>{@code backoff.concurrency.refused}</td><td>function counter, tags {@code limiter},
 *       {@code attempt}</td><td>attempts it refused: {@code first} (first attempts, each failing its call)
 *       and {@code retry_or_hedge} (retries and hedges, shed first)</td></tr>
 *   <tr><td>{@code backoff.hedge.delay}</td><td>gauge, tag {@code policy}</td><td>an adaptive hedging
 *       delay's current delay in seconds, for delays bound with {@link #bindHedgeDelay}</td></tr>
 *   <tr><td>{@code backoff.hedges.capped}</td><td>function counters, tags {@code policy},
 *       {@code outcome}</td><td>hedges its extra-load cap let go ({@code sent}) and those it refused
 *       ({@code refused}: the hedge was not sent)</td></tr>
 * </table>
 *
 * <pre>{@code
 * BackoffMetrics metrics = BackoffMetrics.of(registry);
 * RetryPolicy<Response> policy = metrics.instrument(RetryPolicy.<Response>builder().name("payments").build());
 * }</pre>
 *
 * <p>Adding a listener makes drivers read the clock on the success path and report first-try successes
 * (every driver runs on the core's loops, which apply that rule), so every call is counted. Thread-safe; one instance serves any
 * number of policies and threads.
 */
public final class BackoffMetrics implements RetryListener<Object> {
  private final MeterRegistry registry;
  private final Tags commonTags;
  private final ConcurrentMap<String, PolicyMeters> byPolicy = new ConcurrentHashMap<>();

  private BackoffMetrics(MeterRegistry registry, Tags commonTags) {
    this.registry = registry;
    this.commonTags = commonTags;
  }

  /**
   * Metrics registered in {@code registry}.
   *
   * @throws NullPointerException if {@code registry} is null
   */
  public static BackoffMetrics of(MeterRegistry registry) {
    return of(registry, Tags.empty());
  }

  /**
   * Metrics registered in {@code registry}, with {@code tags} added to every meter.
   *
   * @throws NullPointerException if an argument is null
   */
  public static BackoffMetrics of(MeterRegistry registry, Iterable<Tag> tags) {
    Objects.requireNonNull(registry, "registry must not be null");
    Objects.requireNonNull(tags, "tags must not be null");
    return new BackoffMetrics(registry, Tags.of(tags));
  }

  /** This listener, typed for a policy of any result type (it never looks at results). */
  @SuppressWarnings("unchecked")
  public <R> RetryListener<R> listener() {
    return (RetryListener<R>) (RetryListener<?>) this;
  }

  /**
   * A copy of {@code policy} that reports to these metrics, with its budget's level as a gauge (tag
   * {@code policy}) if it has a budget.
   *
   * @throws NullPointerException if {@code policy} is null
   */
  public <R> RetryPolicy<R> instrument(RetryPolicy<R> policy) {
    Objects.requireNonNull(policy, "policy must not be null");
    if (policy.budget() != null) {
      bindBudget(policy.name(), policy.budget());
    }
    return policy.toBuilder().listener(listener()).build();
  }

  /**
   * Reports {@code budget}'s level as the gauge {@code backoff.budget.level} tagged {@code policy=name}. The
   * gauge holds the budget weakly, as Micrometer gauges do: it reports NaN once the budget is unreachable.
   *
   * @throws NullPointerException if an argument is null
   */
  public void bindBudget(String name, RetryBudget budget) {
    Objects.requireNonNull(name, "name must not be null");
    Objects.requireNonNull(budget, "budget must not be null");
    Gauge.builder("backoff.budget.level", budget, RetryBudget::level)
        .description("Retries or tokens the retry budget has available")
        .tags(commonTags).tag("policy", name)
        .register(registry);
  }

  /**
   * Reports {@code breaker}'s state, failure rate and refused calls (see the table above), tagged
   * {@code breaker=}its name. The gauges hold the breaker weakly, as Micrometer gauges do.
   *
   * @throws NullPointerException if {@code breaker} is null
   */
  public void bindCircuitBreaker(CircuitBreaker breaker) {
    Objects.requireNonNull(breaker, "breaker must not be null");
    Tags tags = commonTags.and("breaker", breaker.name());
    for (CircuitBreaker.State state : CircuitBreaker.State.values()) {
      Gauge.builder("backoff.breaker.state", breaker, b -> b.state() == state ? 1 : 0)
          .description("1 for the circuit breaker's current state, 0 for the others")
          .tags(tags).tag("state", tagValue(state)).register(registry);
    }
    Gauge.builder("backoff.breaker.failure.rate", breaker, b -> b.metrics().failureRate())
        .description("The closed circuit breaker's failure rate over its window").baseUnit("percent")
        .tags(tags).register(registry);
    FunctionCounter.builder("backoff.breaker.refused", breaker, b -> b.metrics().refusedCalls())
        .description("Calls the circuit breaker refused").tags(tags).register(registry);
  }

  /**
   * A listener to build circuit breakers with ({@link CircuitBreaker.Builder#listener}): counts their state
   * transitions as {@code backoff.breaker.transitions}, tagged {@code breaker}, {@code from} and {@code to}.
   */
  public CircuitBreaker.Listener breakerListener() {
    return (breaker, from, to) -> Counter.builder("backoff.breaker.transitions")
        .description("Circuit breaker state transitions")
        .tags(commonTags).tag("breaker", breaker.name()).tag("from", tagValue(from)).tag("to", tagValue(to))
        .register(registry).increment();
  }

  /**
   * Reports {@code limiter}'s rates, bucket and counts (see the table above), tagged {@code limiter=}its
   * name. The gauges hold the limiter weakly, as Micrometer gauges do.
   *
   * @throws NullPointerException if {@code limiter} is null
   */
  public void bindRateLimiter(AdaptiveRateLimiter limiter) {
    Objects.requireNonNull(limiter, "limiter must not be null");
    Tags tags = commonTags.and("limiter", limiter.name());
    Gauge.builder("backoff.limiter.fill.rate", limiter, AdaptiveRateLimiter::fillRate)
        .description("The adaptive rate limiter's fill rate (0 until a throttle enables it)")
        .baseUnit("requests/s").tags(tags).register(registry);
    Gauge.builder("backoff.limiter.measured.rate", limiter, AdaptiveRateLimiter::measuredSendRate)
        .description("The send rate the adaptive rate limiter measured").baseUnit("requests/s")
        .tags(tags).register(registry);
    Gauge.builder("backoff.limiter.capacity", limiter, AdaptiveRateLimiter::capacity)
        .description("The adaptive rate limiter's bucket capacity").baseUnit("tokens").tags(tags).register(registry);
    Gauge.builder("backoff.limiter.tokens", limiter, AdaptiveRateLimiter::tokens)
        .description("Tokens in the adaptive rate limiter's bucket (negative while reservations wait)")
        .baseUnit("tokens").tags(tags).register(registry);
    Gauge.builder("backoff.limiter.enabled", limiter, l -> l.enabled() ? 1 : 0)
        .description("1 once a throttle has enabled the adaptive rate limiter").tags(tags).register(registry);
    FunctionCounter.builder("backoff.limiter.waits", limiter, AdaptiveRateLimiter::waits)
        .description("Reservations that waited for a token").tags(tags).register(registry);
    FunctionCounter.builder("backoff.limiter.refused", limiter, AdaptiveRateLimiter::refusals)
        .description("Reservations the adaptive rate limiter refused").tags(tags).register(registry);
    FunctionCounter.builder("backoff.limiter.throttles", limiter, AdaptiveRateLimiter::throttles)
        .description("Throttles reported to the adaptive rate limiter").tags(tags).register(registry);
  }

  /**
   * Reports {@code limiter}'s limit, attempts in flight and refusals (see the table above), tagged
   * {@code limiter=}its name. The gauges hold the limiter weakly, as Micrometer gauges do.
   *
   * @throws NullPointerException if {@code limiter} is null
   */
  public void bindConcurrencyLimiter(ConcurrencyLimiter limiter) {
    Objects.requireNonNull(limiter, "limiter must not be null");
    Tags tags = commonTags.and("limiter", limiter.name());
    Gauge.builder("backoff.concurrency.limit", limiter, ConcurrencyLimiter::limit)
        .description("The concurrency limiter's limit on attempts in flight").baseUnit("attempts").tags(tags)
        .register(registry);
    Gauge.builder("backoff.concurrency.in.flight", limiter, ConcurrencyLimiter::inFlight)
        .description("Attempts holding a slot of the concurrency limiter").baseUnit("attempts").tags(tags)
        .register(registry);
    FunctionCounter.builder("backoff.concurrency.refused", limiter, ConcurrencyLimiter::refusedFirstAttempts)
        .description("Attempts the concurrency limiter refused").tags(tags).tag("attempt", "first")
        .register(registry);
    FunctionCounter.builder("backoff.concurrency.refused", limiter, ConcurrencyLimiter::refusedRetriesAndHedges)
        .description("Attempts the concurrency limiter refused").tags(tags).tag("attempt", "retry_or_hedge")
        .register(registry);
  }

  /**
   * Reports an adaptive hedging delay's current delay and its extra-load cap's sent and refused hedges (see the
   * table above), tagged {@code policy=policyName}. The gauge holds the delay weakly, as Micrometer gauges do.
   *
   * @throws NullPointerException if an argument is null
   */
  public void bindHedgeDelay(String policyName, AdaptiveHedgeDelay delay) {
    Objects.requireNonNull(policyName, "policyName must not be null");
    Objects.requireNonNull(delay, "delay must not be null");
    Tags tags = commonTags.and("policy", policyName);
    Gauge.builder("backoff.hedge.delay", delay, d -> d.delayNanos() / 1e9)
        .description("The adaptive hedging delay now").baseUnit("seconds").tags(tags).register(registry);
    for (String outcome : new String[] {"sent", "refused"}) {
      FunctionCounter.builder("backoff.hedges.capped", delay,
              d -> outcome.equals("sent") ? d.hedgesSent() : d.hedgesRefused())
          .description("Hedges the extra-load cap let go or refused").tags(tags).tag("outcome", outcome)
          .register(registry);
    }
  }

  /**
   * A listener to build adaptive rate limiters with ({@link AdaptiveRateLimiter.Builder#listener}): times each
   * wait for a token as {@code backoff.limiter.wait}, tagged {@code limiter}.
   */
  public AdaptiveRateLimiter.Listener rateLimiterListener() {
    return new AdaptiveRateLimiter.Listener() {
      @Override
      public void onWait(AdaptiveRateLimiter limiter, long waitNanos) {
        Timer.builder("backoff.limiter.wait").description("Waits for an adaptive rate limiter's token")
            .tags(commonTags).tag("limiter", limiter.name()).register(registry)
            .record(waitNanos, TimeUnit.NANOSECONDS);
      }
    };
  }

  private static String tagValue(CircuitBreaker.State state) {
    return state.name().toLowerCase(java.util.Locale.ROOT);
  }

  @Override
  public void onRetryScheduled(RetryEvent<Object> event) {
    meters(event.policyName()).retryDelay.record(event.delayNanos(), TimeUnit.NANOSECONDS);
  }

  @Override
  public void onHedgeSent(RetryEvent<Object> event) {
    meters(event.policyName()).hedgesSent().increment();
  }

  @Override
  public void onHedgeWon(RetryEvent<Object> event) {
    meters(event.policyName()).hedgesWon().increment();
  }

  @Override
  public void onSuccess(RetryEvent<Object> event) {
    PolicyMeters meters = meters(event.policyName());
    (event.attempts() <= 1 ? meters.firstTrySuccess : meters.successAfterRetries).increment();
    meters.finished(event.attempts());
  }

  @Override
  public void onExhausted(RetryEvent<Object> event) {
    PolicyMeters meters = meters(event.policyName());
    (event.stopReason() == StopReason.BUDGET_EXHAUSTED ? meters.budgetRefused : meters.exhausted).increment();
    meters.finished(event.attempts());
  }

  @Override
  public void onAborted(RetryEvent<Object> event) {
    PolicyMeters meters = meters(event.policyName());
    meters.aborted.increment();
    meters.finished(event.attempts());
  }

  private PolicyMeters meters(String policyName) {
    PolicyMeters meters = byPolicy.get(policyName);
    return meters != null ? meters : byPolicy.computeIfAbsent(policyName, name -> new PolicyMeters(registry,
        commonTags.and("policy", name)));
  }

  @Override
  public String toString() {
    return "BackoffMetrics" + byPolicy.keySet();
  }

  /** The meters of one policy; the map above keeps them (and so the amplification gauge's state) reachable. */
  private static final class PolicyMeters {
    final Counter firstTrySuccess;
    final Counter successAfterRetries;
    final Counter exhausted;
    final Counter aborted;
    final Counter budgetRefused;
    final DistributionSummary attempts;
    final Timer retryDelay;
    final LongAdder calls = new LongAdder();
    final LongAdder totalAttempts = new LongAdder();
    private final MeterRegistry registry;
    private final Tags tags;
    // Registered at first use, so that a policy that never hedges shows no hedging meters.
    private volatile Counter hedgesSent;
    private volatile Counter hedgesWon;

    PolicyMeters(MeterRegistry registry, Tags tags) {
      this.registry = registry;
      this.tags = tags;
      firstTrySuccess = calls(registry, tags, "first_try_success");
      successAfterRetries = calls(registry, tags, "success_after_retries");
      exhausted = calls(registry, tags, "exhausted");
      aborted = calls(registry, tags, "aborted");
      budgetRefused = calls(registry, tags, "budget_refused");
      attempts = DistributionSummary.builder("backoff.attempts")
          .description("Attempts per call").baseUnit("attempts").tags(tags).register(registry);
      retryDelay = Timer.builder("backoff.retry.delay")
          .description("Delay before each retry").tags(tags).register(registry);
      Gauge.builder("backoff.retry.amplification", this, PolicyMeters::amplification)
          .description("Attempts per call: the load retries multiply").tags(tags).register(registry);
    }

    private static Counter calls(MeterRegistry registry, Tags tags, String outcome) {
      return Counter.builder("backoff.calls").description("Finished calls by outcome")
          .tags(tags).tag("outcome", outcome).register(registry);
    }

    Counter hedgesSent() {
      Counter counter = hedgesSent;
      if (counter == null) {
        counter = Counter.builder("backoff.hedges.sent").description("Hedges started besides the first attempt")
            .tags(tags).register(registry); // the registry returns the same counter to racing threads
        hedgesSent = counter;
      }
      return counter;
    }

    Counter hedgesWon() {
      Counter counter = hedgesWon;
      if (counter == null) {
        counter = Counter.builder("backoff.hedges.won").description("Hedged calls won by a hedge")
            .tags(tags).register(registry);
        hedgesWon = counter;
      }
      return counter;
    }

    void finished(int attemptCount) {
      attempts.record(attemptCount);
      totalAttempts.add(attemptCount);
      calls.increment();
    }

    double amplification() {
      long callCount = calls.sum();
      return callCount == 0 ? Double.NaN : totalAttempts.sum() / (double) callCount;
    }
  }
}
