package dev.backoff.spring.boot;

import dev.backoff.AdaptiveRateLimiter;
import dev.backoff.AsyncRetryExecutor;
import dev.backoff.CircuitBreaker;
import dev.backoff.ConcurrencyLimiter;
import dev.backoff.NanoClock;
import dev.backoff.RetryBudget;
import dev.backoff.RetryEvent;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryListener;
import dev.backoff.RetryPolicy;
import dev.backoff.RetryScheduler;
import dev.backoff.Sleeper;
import dev.backoff.spec.BudgetSpec;
import dev.backoff.spec.Durations;
import dev.backoff.spec.ExperimentPolicies;
import dev.backoff.spec.PolicySpec;
import java.time.Duration;
import org.springframework.util.ClassUtils;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;

/**
 * The named retry policies and budgets of {@code backoff.*}, built and checked once: a policy, a
 * synchronous and an asynchronous executor per name, and the budgets they share by name. The starter
 * makes one bean of it; {@code @BackoffRetry} and the HTTP customizers use it, and so can application
 * code ({@code registry.executor("payments").call(...)}).
 *
 * <p>Every policy counts its calls and attempts, for {@link #stats(String)} and the Actuator endpoint
 * (a listener: a call on such a policy reads the clock even when its first attempt succeeds).
 *
 * <p>Immutable after construction and thread-safe.
 */
public final class BackoffRegistry {
  private final Map<String, Entry> policies;
  private final Map<String, BudgetEntry> budgets;
  private final RetryScheduler scheduler;

  /**
   * Builds every budget and policy in {@code properties}, checking each value.
   *
   * @param properties the bound {@code backoff.*} properties
   * @param clock the clock policies and ratio budgets read, or null for the system's
   * @param sleeper the sleeper synchronous retries wait with, or null for the system's
   * @param scheduler the scheduler asynchronous retries wait on, or null for the core's shared one
   * @param random the random source of jitter, or null for the policy's default
   * @param customizer applied to each built policy, with its name (metrics instrument it here); not null
   * @throws BackoffConfigurationException naming the property and its value, if one is invalid
   * @throws NullPointerException if {@code properties} or {@code customizer} is null
   */
  public BackoffRegistry(BackoffProperties properties, NanoClock clock, Sleeper sleeper, RetryScheduler scheduler,
      RandomGenerator random, PolicyCustomizer customizer) {
    Objects.requireNonNull(properties, "properties must not be null");
    Objects.requireNonNull(customizer, "customizer must not be null");
    this.scheduler = scheduler;
    NanoClock budgetClock = clock != null ? clock : NanoClock.system();
    Map<String, BudgetEntry> builtBudgets = new LinkedHashMap<>();
    properties.getBudgets().forEach((name, budget) -> {
      String key = "backoff.budgets." + name + ".spec";
      if (budget.getSpec() == null || budget.getSpec().isBlank()) {
        throw new BackoffConfigurationException(key, budget.getSpec(), "a budget needs a spec, one of " + BudgetSpec.usage());
      }
      BudgetSpec spec = parse(key, budget.getSpec(), BudgetSpec::parse);
      builtBudgets.put(name, new BudgetEntry(spec, spec.create(budgetClock)));
    });
    this.budgets = Collections.unmodifiableMap(builtBudgets);
    Map<String, Entry> built = new LinkedHashMap<>();
    properties.getPolicies().forEach((name, settings) -> {
      Stats stats = new Stats();
      RetryPolicy.Builder<Object> builder = builder(name, settings, budgets, clock, sleeper);
      if (random != null) {
        builder.random(random);
      }
      RetryPolicy<Object> policy = customizer.customize(name, builder.listener(stats).build());
      Objects.requireNonNull(policy, "the policy customizer returned null for policy " + name);
      built.put(name, new Entry(settings, policy, stats, scheduler));
    });
    this.policies = Collections.unmodifiableMap(built);
  }

  /** A policy's builder from its properties, every value checked. */
  static RetryPolicy.Builder<Object> builder(String name, BackoffProperties.Policy settings,
      Map<String, BudgetEntry> budgets, NanoClock clock, Sleeper sleeper) {
    String prefix = "backoff.policies." + name + ".";
    RetryPolicy.Builder<Object> builder;
    if (settings.getStrategy() != null && settings.getStrategy().indexOf('+') >= 0) {
      // The command line's "full-jitter+breaker": here each suffix is a key of its own.
      throw new BackoffConfigurationException(prefix + "strategy", settings.getStrategy(), "a strategy or preset "
          + "only; the spec language's suffixes are keys of the policy here: +breaker is circuit-breaker.*, "
          + "+adaptive is rate-limiter.*, +hedge is hedging.*, +concurrency is concurrency-limiter.*, +budget is budget (a name under backoff.budgets)");
    }
    if (settings.getStrategy() != null) {
      // What the name means everywhere: a strategy with the library's defaults, a preset with its own limits.
      builder = parse(prefix + "strategy", settings.getStrategy(), text -> {
        PolicySpec spec = PolicySpec.parse(text);
        if (spec.experimentPolicy() != null && ExperimentPolicies.hasFirstRetryQuirk(spec.experimentPolicy())) {
          throw new IllegalArgumentException("the experiment policy '" + spec.experimentPolicy() + "' needs the "
              + "simulator's think times; use storm-exponential");
        }
        return spec.<Object>builder();
      });
    } else {
      builder = RetryPolicy.builder();
    }
    builder.name(name);
    if (settings.getMaxAttempts() != null) {
      int attempts = settings.getMaxAttempts();
      parse(prefix + "max-attempts", String.valueOf(attempts), text -> builder.maxAttempts(attempts));
    }
    if (settings.getMaxElapsed() != null) {
      Duration maxElapsed = parse(prefix + "max-elapsed", settings.getMaxElapsed(), Durations::parse);
      parse(prefix + "max-elapsed", settings.getMaxElapsed(), text -> builder.maxElapsed(maxElapsed));
    }
    if (settings.getAttemptTimeout() != null) {
      Duration timeout = parse(prefix + "attempt-timeout", settings.getAttemptTimeout(), Durations::parse);
      parse(prefix + "attempt-timeout", settings.getAttemptTimeout(), text -> builder.attemptTimeout(timeout));
    }
    if (settings.getMaxPushback() != null) {
      Duration maxPushback = parse(prefix + "max-pushback", settings.getMaxPushback(), Durations::parse);
      parse(prefix + "max-pushback", settings.getMaxPushback(), text -> builder.maxPushback(maxPushback));
    }
    if (!settings.getRetryOn().isEmpty()) {
      builder.retryOn(throwables(prefix + "retry-on", settings.getRetryOn()));
    }
    if (!settings.getAbortOn().isEmpty()) {
      builder.abortOn(throwables(prefix + "abort-on", settings.getAbortOn()));
    }
    for (int status : settings.getRetryOnStatuses()) {
      if (status < 100 || status > 599) {
        throw new BackoffConfigurationException(prefix + "retry-on-statuses", String.valueOf(status),
            "an HTTP status is between 100 and 599");
      }
    }
    if (!settings.getWaitHeaders().isEmpty()) {
      if (!ClassUtils.isPresent("dev.backoff.http.rules.WaitHeader", BackoffRegistry.class.getClassLoader())) {
        throw new BackoffConfigurationException(prefix + "wait-headers", String.join(",", settings.getWaitHeaders()),
            "HTTP wait headers need backoff-http-rules on the class path (it comes with backoff-spring-web)");
      }
      WaitHeaderNames.parse(prefix + "wait-headers", settings.getWaitHeaders()); // fails at startup, naming it
    }
    if (settings.getBudget() != null) {
      BudgetEntry budget = budgets.get(settings.getBudget());
      if (budget == null) {
        throw new BackoffConfigurationException(prefix + "budget", settings.getBudget(),
            "no such budget under backoff.budgets; known: " + budgets.keySet());
      }
      builder.budget(budget.budget);
    }
    if (clock != null) {
      builder.clock(clock);
    }
    if (sleeper != null) {
      builder.sleeper(sleeper);
    }
    PolicySpec.Breaker breaker = breaker(prefix + "circuit-breaker.", settings.getCircuitBreaker());
    if (breaker != null) {
      CircuitBreaker.Builder breakerBuilder = breaker.builder().name(name);
      if (clock != null) {
        breakerBuilder.clock(clock);
      }
      builder.circuitBreaker(breakerBuilder.build());
    }
    PolicySpec.Adaptive adaptive = rateLimiter(prefix + "rate-limiter.", settings.getRateLimiter());
    if (adaptive != null) {
      AdaptiveRateLimiter.Builder limiterBuilder = adaptive.builder().name(name);
      if (clock != null) {
        limiterBuilder.clock(clock);
      }
      builder.rateLimiter(limiterBuilder.build());
    }
    PolicySpec.Concurrency concurrency = concurrencyLimiter(prefix + "concurrency-limiter.",
        settings.getConcurrencyLimiter());
    if (concurrency != null) {
      ConcurrencyLimiter.Builder limiterBuilder = concurrency.builder().name(name);
      if (clock != null) {
        limiterBuilder.clock(clock);
      }
      builder.concurrencyLimiter(limiterBuilder.build());
    }
    PolicySpec.Hedge hedge = hedging(prefix + "hedging.", settings.getHedging());
    if (hedge != null) {
      builder.hedging(hedge.hedging());
      try {
        builder.build(); // the one rule across keys: max-attempts must allow the hedges
      } catch (IllegalArgumentException e) {
        // Blame the key the user wrote: max-hedges if given, else max-attempts (too few for the one default hedge).
        boolean hedgesGiven = settings.getHedging().getMaxHedges() != null;
        throw new BackoffConfigurationException(prefix + (hedgesGiven ? "hedging.max-hedges" : "max-attempts"),
            hedgesGiven ? String.valueOf(hedge.maxHedges())
                : settings.getMaxAttempts() == null ? null : settings.getMaxAttempts().toString(),
            e.getMessage() + " (set " + prefix + "max-attempts to at least " + (hedge.maxHedges() + 1)
                + (hedgesGiven ? ", or fewer hedges)" : " for hedging)"));
      }
    }
    return builder;
  }

  /**
   * The breaker of {@code +breaker} with these settings, or null if there is none (or it is turned off). Each
   * key is checked by the spec layer on its own, so that a bad value is reported under its own property.
   */
  private static PolicySpec.Breaker breaker(String prefix, BackoffProperties.CircuitBreakerSettings settings) {
    if (settings == null || Boolean.FALSE.equals(settings.getEnabled())) {
      return null;
    }
    String[] keys = {"failure-rate-threshold", "window", "wait-in-open", "trial-calls"};
    String[] values = {settings.getFailureRateThreshold(), settings.getWindow(), settings.getWaitInOpen(),
        settings.getTrialCalls() == null ? null : settings.getTrialCalls().toString()};
    return settings(prefix, keys, values, PolicySpec.Breaker::of);
  }

  /** The limiter of {@code +adaptive} with these settings, or null if there is none (or it is turned off). */
  private static PolicySpec.Adaptive rateLimiter(String prefix, BackoffProperties.RateLimiterSettings settings) {
    if (settings == null || Boolean.FALSE.equals(settings.getEnabled())) {
      return null;
    }
    return settings(prefix, new String[] {"max-wait"}, new String[] {settings.getMaxWait()},
        given -> PolicySpec.Adaptive.of(given[0]));
  }

  /**
   * The limiter of {@code +concurrency} with these settings, or null if there is none (or it is turned off).
   * Each key is checked by the spec layer, after those before it, so a bad value is reported under its own
   * property (and a bound that contradicts the initial limit under the later of the two).
   */
  private static PolicySpec.Concurrency concurrencyLimiter(String prefix,
      BackoffProperties.ConcurrencyLimiterSettings settings) {
    if (settings == null || Boolean.FALSE.equals(settings.getEnabled())) {
      return null;
    }
    String[] keys = {"algorithm", "limit", "initial", "min", "max", "retry-share", "backoff-ratio",
        "latency-threshold", "smoothing", "queue-allowance", "min-rtt-window"};
    String[] values = {settings.getAlgorithm(), text(settings.getLimit()), text(settings.getInitial()),
        text(settings.getMin()), text(settings.getMax()), settings.getRetryShare(), settings.getBackoffRatio(),
        settings.getLatencyThreshold(), settings.getSmoothing(), settings.getQueueAllowance(),
        settings.getMinRttWindow()};
    boolean fixed = "fixed".equalsIgnoreCase(String.valueOf(settings.getAlgorithm()).trim());
    if (fixed && settings.getLimit() == null) {
      throw new BackoffConfigurationException(prefix + "limit", null, "the fixed algorithm needs a limit, such as 20");
    }
    if (fixed) { // the limit first, under its own key: the algorithm is checked with it
      parse(prefix + "limit", values[1], limit -> PolicySpec.Concurrency.of(Map.of("algorithm", "fixed", "limit", limit)));
    }
    return settings(prefix, keys, values, given -> {
      Map<String, String> named = new LinkedHashMap<>();
      for (int i = 0; i < given.length; i++) {
        named.put(keys[i], given[i]);
      }
      if (fixed) {
        named.put("limit", values[1]);
      }
      return PolicySpec.Concurrency.of(named);
    });
  }

  private static String text(Integer value) {
    return value == null ? null : value.toString();
  }

  /** The hedging of {@code +hedge} with these settings, or null if there is none (or it is turned off). */
  private static PolicySpec.Hedge hedging(String prefix, BackoffProperties.HedgingSettings settings) {
    if (settings == null || Boolean.FALSE.equals(settings.getEnabled())) {
      return null;
    }
    if (settings.getDelay() == null) {
      throw new BackoffConfigurationException(prefix + "delay", null, "hedging needs a delay, such as 50ms (about "
          + "the call's 95th-percentile latency: no default suits every service)");
    }
    String[] keys = {"delay", "max-hedges", "min-delay", "max-delay", "initial-delay", "max-extra-load", "window",
        "warm-up"};
    String[] values = {settings.getDelay(), text(settings.getMaxHedges()), settings.getMinDelay(),
        settings.getMaxDelay(), settings.getInitialDelay(), settings.getMaxExtraLoad(), text(settings.getWindow()),
        text(settings.getWarmUp())};
    return settings(prefix, keys, values, given -> {
      Map<String, String> named = new LinkedHashMap<>();
      for (int i = 0; i < given.length; i++) {
        named.put(keys[i], given[i]);
      }
      return PolicySpec.Hedge.of(named);
    });
  }

  /**
   * A suffix's settings from these parameters (null: the default) by the spec layer, checking each given one
   * on its own first (with those before it, already checked) so that a failure names its property.
   */
  private static <T> T settings(String prefix, String[] keys, String[] values, Function<String[], T> parser) {
    for (int i = 0; i < keys.length; i++) {
      String value = values[i];
      if (value != null) {
        String key = prefix + keys[i];
        if (value.isBlank()) {
          throw new BackoffConfigurationException(key, value, "must not be blank (remove the key for its default)");
        }
        if (value.indexOf(':') >= 0 || value.indexOf('+') >= 0) {
          throw new BackoffConfigurationException(key, value, "one value, without ':' or '+'");
        }
        String[] upToHere = java.util.Arrays.copyOf(values, i + 1);
        parse(key, value, text -> parser.apply(upToHere));
      }
    }
    return parser.apply(values);
  }

  @SuppressWarnings({"unchecked", "rawtypes"}) // an array of a generic type, each element checked first
  private static Class<? extends Throwable>[] throwables(String key, List<Class<?>> types) {
    for (Class<?> type : types) {
      if (type == null || !Throwable.class.isAssignableFrom(type)) {
        throw new BackoffConfigurationException(key, type == null ? null : type.getName(),
            "not a Throwable type");
      }
    }
    return types.toArray(new Class[0]);
  }

  /** Runs {@code parser}, turning its IllegalArgumentException into one naming the property. */
  static <T> T parse(String key, String value, Function<String, T> parser) {
    try {
      return parser.apply(value);
    } catch (IllegalArgumentException e) {
      throw new BackoffConfigurationException(key, value, e.getMessage());
    }
  }

  /** The policy names, in the order configured. */
  public Set<String> names() {
    return policies.keySet();
  }

  /** The budget names, in the order configured. */
  public Set<String> budgetNames() {
    return budgets.keySet();
  }

  /**
   * The named policy.
   *
   * @throws IllegalArgumentException if there is no such policy (the message lists the known names)
   */
  public RetryPolicy<Object> policy(String name) {
    return entry(name).policy;
  }

  /**
   * A synchronous executor of the named policy.
   *
   * @throws IllegalArgumentException if there is no such policy
   */
  public RetryExecutor<Object> executor(String name) {
    return entry(name).sync;
  }

  /**
   * An asynchronous executor of the named policy, waiting on the context's {@link RetryScheduler} if it
   * has one, else on the core's shared scheduler.
   *
   * @throws IllegalArgumentException if there is no such policy
   */
  public AsyncRetryExecutor<Object> asyncExecutor(String name) {
    return entry(name).async;
  }

  /** The scheduler asynchronous retries wait on, or null for the core's shared one. */
  public RetryScheduler scheduler() {
    return scheduler;
  }

  /**
   * The named policy's properties as bound.
   *
   * @throws IllegalArgumentException if there is no such policy
   */
  public BackoffProperties.Policy settings(String name) {
    return entry(name).settings;
  }

  /**
   * The named budget.
   *
   * @throws IllegalArgumentException if there is no such budget (the message lists the known names)
   */
  public RetryBudget budget(String name) {
    return budgetEntry(name).budget;
  }

  /**
   * The named budget's spec as written.
   *
   * @throws IllegalArgumentException if there is no such budget
   */
  public String budgetSpec(String name) {
    return budgetEntry(name).spec.toString();
  }

  /**
   * The named policy's calls and attempts so far.
   *
   * @throws IllegalArgumentException if there is no such policy
   */
  public Stats stats(String name) {
    return entry(name).stats;
  }

  /**
   * A variant of the named policy: its builder with the overrides applied, then its listeners and budget
   * kept (the same budget object, so the variant shares it).
   *
   * @throws IllegalArgumentException if there is no such policy
   */
  public RetryPolicy<Object> variant(String name, UnaryOperator<RetryPolicy.Builder<Object>> overrides) {
    return overrides.apply(policy(name).toBuilder()).build();
  }

  private Entry entry(String name) {
    Entry entry = policies.get(name);
    if (entry == null) {
      throw new IllegalArgumentException("no retry policy named '" + name + "' under backoff.policies; known: "
          + policies.keySet());
    }
    return entry;
  }

  private BudgetEntry budgetEntry(String name) {
    BudgetEntry entry = budgets.get(name);
    if (entry == null) {
      throw new IllegalArgumentException("no retry budget named '" + name + "' under backoff.budgets; known: "
          + budgets.keySet());
    }
    return entry;
  }

  @Override
  public String toString() {
    return "BackoffRegistry[policies " + policies.keySet() + ", budgets " + budgets.keySet() + "]";
  }

  /** Changes each policy as it is built (the metrics binding instruments it). */
  @FunctionalInterface
  public interface PolicyCustomizer {
    /** The customized policy (never null); {@code name} is its name under {@code backoff.policies}. */
    RetryPolicy<Object> customize(String name, RetryPolicy<Object> policy);
  }

  /**
   * A policy's calls and attempts, counted when calls end. Thread-safe; the counts are sums read without a
   * lock, so a reading taken while calls end may mix them.
   */
  public static final class Stats implements RetryListener<Object> {
    private final LongAdder calls = new LongAdder();
    private final LongAdder attempts = new LongAdder();

    Stats() {}

    /** Calls ended so far (successful, exhausted or aborted). */
    public long calls() {
      return calls.sum();
    }

    /** Attempts made by those calls. */
    public long attempts() {
      return attempts.sum();
    }

    /** Attempts per call (1.0 when nothing was retried), or NaN before the first call ends. */
    public double amplification() {
      long c = calls();
      return c == 0 ? Double.NaN : (double) attempts() / c;
    }

    @Override
    public void onSuccess(RetryEvent<Object> event) {
      ended(event);
    }

    @Override
    public void onExhausted(RetryEvent<Object> event) {
      ended(event);
    }

    @Override
    public void onAborted(RetryEvent<Object> event) {
      ended(event);
    }

    private void ended(RetryEvent<Object> event) {
      calls.increment();
      attempts.add(event.attempts());
    }
  }

  private static final class Entry {
    final BackoffProperties.Policy settings;
    final RetryPolicy<Object> policy;
    final Stats stats;
    final RetryExecutor<Object> sync;
    final AsyncRetryExecutor<Object> async;

    Entry(BackoffProperties.Policy settings, RetryPolicy<Object> policy, Stats stats, RetryScheduler scheduler) {
      this.settings = settings;
      this.policy = policy;
      this.stats = stats;
      this.sync = RetryExecutor.of(policy);
      this.async = scheduler == null ? AsyncRetryExecutor.of(policy) : AsyncRetryExecutor.of(policy, scheduler);
    }
  }

  static final class BudgetEntry {
    final BudgetSpec spec;
    final RetryBudget budget;

    BudgetEntry(BudgetSpec spec, RetryBudget budget) {
      this.spec = spec;
      this.budget = budget;
    }
  }
}
