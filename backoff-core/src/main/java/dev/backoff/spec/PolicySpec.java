package dev.backoff.spec;

import dev.backoff.AdaptiveHedgeDelay;
import dev.backoff.AdaptiveRateLimiter;
import dev.backoff.Backoff;
import dev.backoff.CircuitBreaker;
import dev.backoff.ConcurrencyLimiter;
import dev.backoff.Hedging;
import dev.backoff.RetryPolicy;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A policy as written: a strategy or preset ({@link BackoffSpec}'s grammar, or a name a driver adds, such as
 * the simulator's experiment clients) followed by optional suffixes, each at most once, in any order:
 *
 * <ul>
 *   <li>{@code +budget}: attaches the context's retry budget ({@link BudgetSpec#DEFAULT} unless the context
 *       sets another). No parameters: the budget's own grammar is {@link BudgetSpec}'s.
 *   <li>{@code +breaker[:RATE[:WINDOW[:WAIT[:TRIALS]]]]}: a {@linkplain Breaker circuit breaker}, by default
 *       {@code +breaker:50%:20:30s:3}.
 *   <li>{@code +adaptive[:MAX_WAIT]}: an {@linkplain Adaptive adaptive client-side rate limiter} that learns
 *       the sustainable send rate from throttling answers; MAX_WAIT {@code wait} (the default: wait as long
 *       as it takes), {@code fail} (fail fast when no token is there) or a duration.
 *   <li>{@code +hedge:DELAY[:MAX]}: {@linkplain Hedge hedging}: another attempt after DELAY without an
 *       answer, up to MAX (default 1) hedges besides the first attempt; {@code +hedge:p95[:MAX][:KEY=VALUE...]}
 *       takes the delay from a live quantile of recent latencies, with a cap on the extra load
 *       ({@link AdaptiveHedge}'s keys).
 *   <li>{@code +concurrency[:ALGORITHM][:KEY=VALUE...]}: a {@linkplain Concurrency concurrency limiter}, an
 *       adaptive limit on attempts in flight that refuses retries and hedges first; ALGORITHM {@code gradient}
 *       (the default), {@code aimd} or {@code fixed=N}, then keys such as {@code max=200} or
 *       {@code retry-share=0.5}.
 * </ul>
 *
 * <p>For example {@code full-jitter+budget+breaker}, {@code aws-standard+adaptive},
 * {@code exponential:100ms:2:20s:full+hedge:50ms:2}. An empty parameter takes its default
 * ({@code +breaker::50} sets only the window). Suffix names and their parameters are case-insensitive.
 * Every part is checked here, once, so the simulator, the lab and the command line reject the same
 * mistakes with the same message, which names the policy and the bad part. Immutable and thread-safe.
 *
 * @param text the spec as written, trimmed (the policy's name in reports)
 * @param base the part before the first {@code +}, lower case
 * @param withBudget whether {@code +budget} was given
 * @param breaker the {@code +breaker} suffix's settings, or null without it
 * @param adaptive the {@code +adaptive} suffix's settings, or null without it
 * @param hedge the {@code +hedge} suffix's settings, or null without it
 * @param concurrency the {@code +concurrency} suffix's settings, or null without it
 */
public record PolicySpec(String text, String base, boolean withBudget, Breaker breaker, Adaptive adaptive,
    Hedge hedge, Concurrency concurrency) {
  /** The suffix that attaches a budget. */
  public static final String BUDGET_SUFFIX = "+budget";

  private static final List<String> SUFFIXES = List.of("+budget", "+breaker[:rate%:window:wait:trials]",
      "+adaptive[:wait|fail|max-wait]", "+hedge:delay|pNN[:max-hedges][:key=value...]",
      "+concurrency[:gradient|aimd|fixed=n][:key=value...]");
  private static final List<String> SUFFIX_NAMES = List.of("budget", "breaker", "adaptive", "hedge", "concurrency");

  /**
   * Splits {@code text} into base and suffixes and checks every suffix's parameters; the base is not
   * resolved here.
   *
   * @throws IllegalArgumentException if the text or its base is blank, a suffix is unknown or given twice,
   *     or a suffix's parameter is malformed or out of range; the message names the policy and the part
   * @throws NullPointerException if {@code text} is null
   */
  public static PolicySpec parse(String text) {
    if (text == null) {
      throw new NullPointerException("policy must not be null");
    }
    String trimmed = text.trim();
    String lower = trimmed.toLowerCase(Locale.ROOT);
    String[] parts = lower.split("\\+", -1);
    String base = parts[0].trim();
    if (base.isEmpty()) {
      throw new IllegalArgumentException("policy '" + Durations.show(text) + "' names no strategy");
    }
    boolean budget = false;
    Breaker breaker = null;
    Adaptive adaptive = null;
    Hedge hedge = null;
    Concurrency concurrency = null;
    for (int i = 1; i < parts.length; i++) {
      String part = parts[i].trim();
      String[] fields = part.split(":", -1);
      String name = fields[0].trim();
      String[] parameters = new String[fields.length - 1];
      for (int f = 1; f < fields.length; f++) {
        parameters[f - 1] = fields[f].trim().isEmpty() ? null : fields[f].trim();
      }
      boolean repeated = switch (name) {
        case "budget" -> budget;
        case "breaker" -> breaker != null;
        case "adaptive" -> adaptive != null;
        case "hedge" -> hedge != null;
        case "concurrency" -> concurrency != null;
        default -> throw unknownSuffix(text, name, part);
      };
      if (repeated) {
        throw bad(text, "+" + name + " is given twice");
      }
      switch (name) {
        case "budget" -> {
          if (parameters.length > 0) {
            throw bad(text, "+budget takes no parameters (the budget itself is set where the policy is used, "
                + "such as the simulator's budget key)");
          }
          budget = true;
        }
        case "breaker" -> breaker = Breaker.parse(text, parameters);
        case "adaptive" -> adaptive = Adaptive.parse(text, parameters);
        case "concurrency" -> concurrency = Concurrency.parse(text, parameters);
        default -> hedge = Hedge.parse(text, parameters);
      }
    }
    return new PolicySpec(trimmed, base, budget, breaker, adaptive, hedge, concurrency);
  }

  private static IllegalArgumentException unknownSuffix(String text, String name, String part) {
    String closest = Suggestions.closest(name, SUFFIX_NAMES);
    return bad(text, "unknown suffix '+" + Durations.show(part) + "'"
        + (closest == null ? "" : "; did you mean '+" + closest + "'?") + "; use " + String.join(", ", SUFFIXES));
  }

  /** Every suffix form, for help texts. */
  public static List<String> suffixes() {
    return SUFFIXES;
  }

  /**
   * Every base name a policy may have, exactly what {@link #builder()} resolves: the experiment's clients
   * ({@link ExperimentPolicies}), then every strategy and preset ({@link BackoffSpec#names()}).
   */
  public static List<String> names() {
    return ExperimentPolicies.allNames();
  }

  /** The experiment policy the base names ({@code storm-exponential}, canonical), or null if it names none. */
  public String experimentPolicy() {
    return ExperimentPolicies.canonical(base.split(":", -1)[0]);
  }

  /**
   * The policy this spec names, as the library ships it: the one resolution behind every command
   * ({@code run}, {@code http}, {@code simulate}, {@code advise}, {@code sweep}, {@code contention}), the
   * lab and the Spring starter, so that a bare name means one policy everywhere. A strategy gets the library's
   * defaults ({@link RetryPolicy#builder()}: 3 attempts, no deadline); a preset its own limits; an
   * experiment policy no attempt limit. The builder is named after the spec as written and carries
   * {@code +hedge}'s hedging; the budget, breaker, rate limiter and concurrency limiter of the other suffixes
   * are the caller's to attach (they need a clock and a scope: one per run, per fleet, per client).
   *
   * @throws IllegalArgumentException if the base names no policy (the message lists the known names and,
   *     for a former spelling, the name to use), or its parameters are bad (as {@link BackoffSpec#parse})
   */
  public <R> RetryPolicy.Builder<R> builder() {
    String experiment = experimentPolicy();
    RetryPolicy.Builder<R> builder;
    if (experiment != null) {
      checkNoParameters(experiment);
      builder = ExperimentPolicies.policy(experiment);
    } else {
      builder = resolvedStrategy().policy();
    }
    builder.name(text);
    if (hedge != null) {
      builder.hedging(hedge.hedging());
    }
    return builder;
  }

  /**
   * The backoff of the policy this spec names (see {@link #builder()}).
   *
   * @throws IllegalArgumentException as {@link #builder()}
   */
  public Backoff backoff() {
    String experiment = experimentPolicy();
    if (experiment != null) {
      checkNoParameters(experiment);
      return ExperimentPolicies.backoff(experiment);
    }
    return resolvedStrategy().toBackoff();
  }

  /**
   * The base as a strategy or preset, with the spec language's message for a name that is neither: it lists
   * every policy name and, for a former spelling ({@code full}, {@code decorrelatedV2}), the name to use.
   *
   * @throws IllegalArgumentException if the base is not a strategy or preset, or its parameters are bad
   */
  public BackoffSpec resolvedStrategy() {
    String name = base.split(":", -1)[0].trim();
    if (!BackoffSpec.names().contains(name)) {
      String instead = FORMER_NAMES.get(name.replace("-", "").replace("_", ""));
      String closest = instead != null ? null : Suggestions.closest(name, names());
      throw new IllegalArgumentException("unknown policy '" + Durations.show(name) + "'"
          + (instead == null ? "" : "; did you mean '" + instead + "'? (its name in every command)")
          + (closest == null ? "" : "; did you mean '" + closest + "'?")
          + "; known: " + String.join(", ", names()) + "; a strategy may take parameters, such as "
          + "full-jitter:100ms:20s");
    }
    return BackoffSpec.parse(base);
  }

  /** Spellings some commands used to accept, for the hint: the contention scenario's article names. */
  private static final Map<String, String> FORMER_NAMES = Map.of("full", "full-jitter", "equal", "equal-jitter",
      "decorrelatedv2", "decorrelated-v2", "fulljitter", "full-jitter", "equaljitter", "equal-jitter");

  private void checkNoParameters(String experiment) {
    if (base.indexOf(':') >= 0) {
      throw bad(text, "the experiment policy '" + experiment + "' takes no parameters (its values are fixed)");
    }
  }

  /**
   * This spec with one parameter of its strategy set, the rest as written: the edit the sweeps and the
   * advisor make ({@code full-jitter} with {@code cap} 5s is {@code full-jitter::5s}; suffixes are kept).
   *
   * @param key {@code initial} (also the delay of {@code fixed}, the base of {@code decorrelated}, the median
   *     of {@code decorrelated-v2}), {@code multiplier}, {@code cap}, {@code increment} or {@code jitter-factor}
   * @param value the value as the grammar writes it ({@code 5s}, {@code 1.5})
   * @throws IllegalArgumentException if the base is a preset or an experiment policy (whose parameters are
   *     fixed; the message says "has fixed parameters"), the strategy has no such parameter (the message names
   *     its usage), or the result does not parse
   */
  public PolicySpec withParameter(String key, String value) {
    BackoffSpec strategy = experimentPolicy() != null ? null : resolvedStrategy();
    if (strategy == null || strategy.parameterKeys().isEmpty()) {
      throw new IllegalArgumentException("policy '" + text + "' has fixed parameters (a preset or a named policy), so "
          + key + " cannot be varied");
    }
    if (!strategy.parameterKeys().contains(key)) {
      throw new IllegalArgumentException("policy '" + text + "' has no " + key + " ("
          + BackoffSpec.usage(strategy.name()) + ")");
    }
    int plus = text.indexOf('+');
    return parse(strategy.withParameter(key, value).text() + (plus >= 0 ? text.substring(plus) : ""));
  }

  /**
   * The base as a strategy or preset.
   *
   * @throws IllegalArgumentException as {@link BackoffSpec#parse(String)}
   */
  public BackoffSpec strategy() {
    return BackoffSpec.parse(base);
  }

  /**
   * The settings of {@code +breaker[:RATE[:WINDOW[:WAIT[:TRIALS]]]]}, a {@link CircuitBreaker}:
   *
   * <ul>
   *   <li>RATE: the failure rate in percent at or above which the breaker opens, in (0, 100], with or without
   *       {@code %}; default 50%.
   *   <li>WINDOW: a whole number of calls (a count window of the last N calls, which must all be in before
   *       the rate counts) or a duration (a time window of that length in 10 buckets, whose rate counts from
   *       {@value #TIME_WINDOW_MINIMUM_CALLS} calls on); default 20 calls. Twenty calls react within a few
   *       seconds at the rates a simulated fleet sends, yet a single unlucky call cannot open it.
   *   <li>WAIT: how long the breaker stays open before it lets trial calls through; default 30 s.
   *   <li>TRIALS: the trial calls the half-open breaker permits at a time, all of which must succeed to close
   *       it; default 3.
   * </ul>
   *
   * Immutable and thread-safe.
   *
   * @param failureRatePercent RATE
   * @param windowCalls WINDOW in calls, or 0 for a time window
   * @param windowNanos WINDOW as a duration, in nanoseconds, or 0 for a count window
   * @param waitNanos WAIT in nanoseconds
   * @param trialCalls TRIALS
   */
  public record Breaker(double failureRatePercent, int windowCalls, long windowNanos, long waitNanos,
      int trialCalls) {
    /** The breaker of a bare {@code +breaker}: 50%, 20 calls, 30 s, 3 trials. */
    public static final Breaker DEFAULT = new Breaker(50, 20, 0, 30_000_000_000L, 3);
    /** The least calls a time window must hold before its failure rate counts. */
    public static final int TIME_WINDOW_MINIMUM_CALLS = 10;
    private static final int TIME_WINDOW_BUCKETS = 10;

    /**
     * The breaker of {@code +breaker:RATE:WINDOW:WAIT:TRIALS} from its parameters one by one (null or absent:
     * the default), for configuration that keeps each in a key of its own (the Spring starter's properties).
     *
     * @throws IllegalArgumentException naming the bad parameter and its value, as for the suffix
     */
    public static Breaker of(String... parameters) {
      return parameters(parameters, values -> parse("", values));
    }

    static Breaker parse(String policy, String[] parameters) {
      if (parameters.length > 4) {
        throw bad(policy, "+breaker takes at most 4 parameters (+breaker[:rate%:window:wait:trials])");
      }
      double rate = DEFAULT.failureRatePercent;
      int calls = DEFAULT.windowCalls;
      long windowNanos = 0;
      long wait = DEFAULT.waitNanos;
      int trials = DEFAULT.trialCalls;
      if (parameters.length > 0 && parameters[0] != null) {
        String value = parameters[0];
        String number = value.endsWith("%") ? value.substring(0, value.length() - 1).trim() : value;
        try {
          rate = new BigDecimal(number).doubleValue();
        } catch (NumberFormatException e) {
          throw bad(policy, "breaker failure rate '" + Durations.show(value) + "': not a percentage");
        }
        if (!(rate > 0 && rate <= 100)) {
          throw bad(policy, "breaker failure rate '" + Durations.show(value) + "': out of range (0..100]%");
        }
      }
      if (parameters.length > 1 && parameters[1] != null) {
        String value = parameters[1];
        if (value.chars().allMatch(c -> c >= '0' && c <= '9' || c == '_')) {
          calls = (int) whole(policy, "breaker window", value, 1, 1_000_000);
        } else {
          try {
            windowNanos = Durations.parseNanos(value);
          } catch (IllegalArgumentException e) {
            throw bad(policy, "breaker window '" + Durations.show(value)
                + "': neither a number of calls nor a duration (" + e.getMessage() + ")");
          }
          if (windowNanos / TIME_WINDOW_BUCKETS < 1_000_000) {
            throw bad(policy, "breaker window '" + Durations.show(value) + "': a time window must be at least 10ms");
          }
          calls = 0;
        }
      }
      if (parameters.length > 2 && parameters[2] != null) {
        try {
          wait = Durations.parseNanos(parameters[2]);
        } catch (IllegalArgumentException e) {
          throw bad(policy, "breaker wait '" + Durations.show(parameters[2]) + "': " + e.getMessage());
        }
      }
      if (parameters.length > 3 && parameters[3] != null) {
        trials = (int) whole(policy, "breaker trials", parameters[3], 1, 10_000);
      }
      return new Breaker(rate, calls, windowNanos, wait, trials);
    }

    /**
     * A builder for this breaker, ready for a name, a clock and listeners.
     */
    public CircuitBreaker.Builder builder() {
      CircuitBreaker.Builder builder = CircuitBreaker.builder()
          .failureRateThreshold(failureRatePercent)
          .waitInOpen(Duration.ofNanos(waitNanos))
          .trialCalls(trialCalls);
      return windowCalls > 0
          ? builder.countWindow(windowCalls).minimumCalls(windowCalls)
          : builder.timeWindow(Duration.ofNanos(windowNanos), TIME_WINDOW_BUCKETS)
              .minimumCalls(TIME_WINDOW_MINIMUM_CALLS);
    }
  }

  /**
   * The settings of {@code +adaptive[:MAX_WAIT]}, an {@link AdaptiveRateLimiter} (AWS's adaptive retry mode):
   * before every attempt, first or retry, it takes a token from a bucket whose fill rate drops on each
   * throttling answer and grows back once throttling stops. MAX_WAIT is how long an attempt may wait for its
   * token: {@code wait} (the default) as long as it takes, as the AWS SDKs do; {@code fail} not at all (the
   * attempt fails at once when no token is there); or a duration. Immutable and thread-safe.
   *
   * @param maxWaitNanos MAX_WAIT in nanoseconds: 0 for {@code fail}, {@link Long#MAX_VALUE} for {@code wait}
   */
  public record Adaptive(long maxWaitNanos) {
    /** The limiter of a bare {@code +adaptive}: it waits for its token as long as it takes. */
    public static final Adaptive DEFAULT = new Adaptive(Long.MAX_VALUE);

    /**
     * The limiter of {@code +adaptive:MAX_WAIT} from its parameter (null: the default), as {@link Breaker#of}.
     *
     * @throws IllegalArgumentException naming the bad value, as for the suffix
     */
    public static Adaptive of(String maxWait) {
      return parameters(new String[] {maxWait}, values -> parse("", values));
    }

    static Adaptive parse(String policy, String[] parameters) {
      if (parameters.length > 1) {
        throw bad(policy, "+adaptive takes at most 1 parameter (+adaptive[:wait|fail|max-wait])");
      }
      if (parameters.length == 0 || parameters[0] == null || parameters[0].equals("wait")) {
        return DEFAULT;
      }
      if (parameters[0].equals("fail")) {
        return new Adaptive(0);
      }
      try {
        return new Adaptive(Durations.parseNanos(parameters[0]));
      } catch (IllegalArgumentException e) {
        throw bad(policy, "adaptive max-wait '" + Durations.show(parameters[0]) + "': use wait, fail or a "
            + "duration (" + e.getMessage() + ")");
      }
    }

    /** Whether the limiter fails fast ({@code fail}: no wait at all). */
    public boolean failFast() {
      return maxWaitNanos == 0;
    }

    /** A builder for this limiter (AWS's defaults and this maximum wait), ready for a name and a clock. */
    public AdaptiveRateLimiter.Builder builder() {
      AdaptiveRateLimiter.Builder builder = AdaptiveRateLimiter.builder();
      return maxWaitNanos == Long.MAX_VALUE ? builder : builder.maxWait(Duration.ofNanos(maxWaitNanos));
    }
  }

  /**
   * The settings of {@code +hedge:DELAY[:MAX]}, hedging: when an attempt has had no answer for DELAY, another
   * one is sent alongside it, up to MAX hedges (1 to 10; default 1) besides the first attempt; the first
   * acceptable answer wins and the others are abandoned. DELAY is required (no default suits every
   * service: it should sit near the latency's 95th percentile), or {@code pNN} ({@code p95}, {@code p99.9}):
   * the delay then follows that quantile of recent latencies, with {@link AdaptiveHedge}'s keys after MAX
   * ({@code +hedge:p95:max-extra-load=0.1}). Immutable and thread-safe.
   *
   * @param delayNanos DELAY in nanoseconds, 0 or more (an adaptive delay's initial delay)
   * @param maxHedges MAX
   * @param adaptive the adaptive delay's settings, or null for a fixed DELAY
   */
  public record Hedge(long delayNanos, int maxHedges, AdaptiveHedge adaptive) {
    /** A fixed DELAY's hedging. */
    public Hedge(long delayNanos, int maxHedges) {
      this(delayNanos, maxHedges, null);
    }

    /**
     * The hedging of {@code +hedge:DELAY:MAX} from its parameters (null: the default; DELAY has none), as
     * {@link Breaker#of}.
     *
     * @throws IllegalArgumentException naming the bad parameter and its value, as for the suffix
     */
    public static Hedge of(String delay, String maxHedges) {
      return parameters(new String[] {delay, maxHedges}, values -> parse("", values));
    }

    /**
     * The hedging of the suffix from its settings one by one, for configuration that keeps each in a key of
     * its own (the Spring starter's properties): {@code delay} (a duration or {@code pNN}), {@code max-hedges}
     * and {@link AdaptiveHedge#KEYS}. A missing or null value takes its default.
     *
     * @throws IllegalArgumentException naming the bad key and its value, as for the suffix
     */
    public static Hedge of(Map<String, String> settings) {
      Map<String, String> given = new java.util.LinkedHashMap<>();
      settings.forEach((key, value) -> {
        if (value != null && !value.trim().isEmpty()) {
          given.put(key.trim().toLowerCase(Locale.ROOT), value.trim().toLowerCase(Locale.ROOT));
        }
      });
      List<String> parameters = new java.util.ArrayList<>();
      parameters.add(given.remove("delay"));
      parameters.add(given.remove("max-hedges"));
      given.forEach((key, value) -> parameters.add(key + "=" + value));
      return parameters(parameters.toArray(new String[0]), values -> parse("", values));
    }

    static Hedge parse(String policy, String[] parameters) {
      if (parameters.length == 0 || parameters[0] == null) {
        throw bad(policy, "+hedge needs a delay, such as +hedge:50ms");
      }
      String first = parameters[0].trim();
      boolean quantile = first.startsWith("p");
      int keysFrom = parameters.length > 1 && parameters[1] != null && (parameters[1].contains("=")
          || AdaptiveHedge.KEYS.contains(parameters[1].trim())) ? 1 : 2; // MAX, or the keys at once
      if (!quantile && keysFrom == 1) {
        throw bad(policy, "hedge " + parameters[1].trim() + ": keys apply to a quantile's delay (+hedge:p95:"
            + parameters[1].trim() + ")");
      }
      if (!quantile && parameters.length > 2) {
        throw bad(policy, "+hedge takes at most 2 parameters (+hedge:delay[:max-hedges])");
      }
      int max = keysFrom > 1 && parameters.length > 1 && parameters[1] != null
          ? (int) whole(policy, "hedge max-hedges", parameters[1], 1, 10) : 1;
      if (quantile) {
        AdaptiveHedge adaptive = AdaptiveHedge.parse(policy, first,
            java.util.Arrays.copyOfRange(parameters, Math.min(keysFrom, parameters.length), parameters.length));
        return new Hedge(adaptive.initialDelayNanos(), max, adaptive);
      }
      long delay;
      try {
        delay = Durations.parseNanos(first);
      } catch (IllegalArgumentException e) {
        throw bad(policy, "hedge delay '" + Durations.show(first) + "': " + e.getMessage()
            + (first.contains("=") ? " (keys follow a quantile: +hedge:p95:" + first + ")" : ""));
      }
      return new Hedge(delay, max);
    }

    /**
     * The core's {@link Hedging} for these settings (an adaptive one with a fresh {@link AdaptiveHedgeDelay}:
     * call this once per policy and share the policy). A policy that uses it needs {@code maxAttempts} of at
     * least MAX + 1.
     */
    public Hedging hedging() {
      Hedging hedging = adaptive == null ? Hedging.after(Duration.ofNanos(delayNanos))
          : Hedging.adaptive(adaptive.delay());
      return hedging.maxHedges(maxHedges);
    }

    /**
     * The suffix in its shortest form, which parses back to these settings: {@code +hedge:50ms},
     * {@code +hedge:50ms:2}, {@code +hedge:p95}, {@code +hedge:p99:2:max-extra-load=0.1} (an adaptive delay's
     * keys only where they differ from their defaults, in the order of {@link AdaptiveHedge#KEYS}).
     */
    public String canonical() {
      String text = "+hedge:" + (adaptive == null ? Durations.format(delayNanos)
          : "p" + BigDecimal.valueOf(adaptive.quantile()).movePointRight(2).stripTrailingZeros().toPlainString());
      return text + (maxHedges == 1 ? "" : ":" + maxHedges) + (adaptive == null ? "" : adaptive.keys());
    }
  }

  /**
   * An adaptive hedging delay's settings ({@code +hedge:pNN[:MAX][:KEY=VALUE...]}, {@link AdaptiveHedgeDelay}):
   * the quantile, then the keys, each at most once and in any order:
   *
   * <ul>
   *   <li>{@code min-delay}, {@code max-delay}: the delay's bounds; default 1ms and 10s;
   *   <li>{@code initial-delay}: the delay until {@code warm-up} latencies are known, within the bounds; default
   *       the max-delay;
   *   <li>{@code max-extra-load}: the most hedges per first attempt, in (0, 1]; default 0.05;
   *   <li>{@code window}: how many recent latencies the quantile is taken over, in [10, 1000000]; default 1000;
   *   <li>{@code warm-up}: how many latencies must be known first, in [1, window]; default 100 (or the window).
   * </ul>
   *
   * @param quantile the quantile, in (0, 1) ({@code p95}: 0.95)
   * @param minDelayNanos {@code min-delay}
   * @param maxDelayNanos {@code max-delay}
   * @param initialDelayNanos {@code initial-delay}
   * @param maxExtraLoad {@code max-extra-load}
   * @param window {@code window}
   * @param warmUp {@code warm-up}
   */
  public record AdaptiveHedge(double quantile, long minDelayNanos, long maxDelayNanos, long initialDelayNanos,
      double maxExtraLoad, int window, int warmUp) {
    /** Every key, in the order help texts and the canonical form list them. */
    public static final List<String> KEYS = List.of("min-delay", "max-delay", "initial-delay", "max-extra-load",
        "window", "warm-up");

    static AdaptiveHedge parse(String policy, String quantileText, String[] parameters) {
      double quantile = percentile(policy, quantileText);
      Map<String, String> values = new java.util.LinkedHashMap<>();
      for (String parameter : parameters) {
        if (parameter == null) {
          throw bad(policy, "hedge: an empty parameter; write KEY=VALUE (" + String.join(", ", KEYS) + ")");
        }
        String[] pair = parameter.split("=", 2);
        String key = pair[0].trim();
        if (!KEYS.contains(key)) {
          String closest = Suggestions.closest(key, KEYS);
          throw bad(policy, "hedge parameter '" + Durations.show(key) + "': unknown"
              + (closest == null ? "" : "; did you mean '" + closest + "'?") + "; known: " + String.join(", ", KEYS)
              + (pair.length == 1 ? " (max-hedges comes right after the quantile)" : ""));
        }
        if (pair.length < 2 || pair[1].trim().isEmpty()) {
          throw bad(policy, "hedge " + key + " needs a value, such as " + key + "="
              + (key.endsWith("delay") ? "50ms" : key.equals("max-extra-load") ? "0.05" : "100"));
        }
        if (values.put(key, pair[1].trim()) != null) {
          throw bad(policy, "hedge " + key + " is given twice");
        }
      }
      long min = delay(policy, values, "min-delay", 1_000_000);
      long max = delay(policy, values, "max-delay", 10_000_000_000L);
      if (min > max) {
        throw bad(policy, "hedge min-delay " + Durations.format(min) + " must not exceed max-delay "
            + Durations.format(max));
      }
      long initial = delay(policy, values, "initial-delay", max);
      if (initial < min || initial > max) {
        throw bad(policy, "hedge initial-delay " + Durations.format(initial) + " must lie within min-delay "
            + Durations.format(min) + " and max-delay " + Durations.format(max));
      }
      double load = setting(policy, "hedge max-extra-load", values.get("max-extra-load"), 0.05, PolicySpec::decimal);
      if (!(load > 0 && load <= 1)) {
        throw bad(policy, "hedge max-extra-load '" + values.get("max-extra-load") + "': out of range (0..1]");
      }
      String windowText = values.get("window");
      int window = windowText == null ? 1000 : (int) whole(policy, "hedge window", windowText, 10, 1_000_000);
      String warmUpText = values.get("warm-up");
      int warmUp = warmUpText == null ? Math.min(100, window) : (int) whole(policy, "hedge warm-up", warmUpText, 1,
          window);
      return new AdaptiveHedge(quantile, min, max, initial, load, window, warmUp);
    }

    private static double percentile(String policy, String text) {
      BigDecimal value;
      try {
        value = new BigDecimal(text.substring(1));
      } catch (NumberFormatException e) {
        throw bad(policy, "hedge quantile '" + Durations.show(text) + "': not pNN (such as p95 or p99.9)");
      }
      if (value.signum() <= 0 || value.compareTo(BigDecimal.valueOf(100)) >= 0) {
        throw bad(policy, "hedge quantile '" + Durations.show(text) + "': out of range (p0..p100, both excluded)");
      }
      return value.movePointLeft(2).doubleValue();
    }

    private static long delay(String policy, Map<String, String> values, String key, long fallback) {
      return setting(policy, "hedge " + key, values.get(key), fallback, Durations::parseNanos);
    }

    /** The keys whose values differ from their defaults, each as {@code :key=value}. */
    String keys() {
      StringBuilder text = new StringBuilder();
      if (minDelayNanos != 1_000_000) {
        text.append(":min-delay=").append(Durations.format(minDelayNanos));
      }
      if (maxDelayNanos != 10_000_000_000L) {
        text.append(":max-delay=").append(Durations.format(maxDelayNanos));
      }
      if (initialDelayNanos != maxDelayNanos) {
        text.append(":initial-delay=").append(Durations.format(initialDelayNanos));
      }
      if (maxExtraLoad != 0.05) {
        text.append(":max-extra-load=").append(BigDecimal.valueOf(maxExtraLoad).stripTrailingZeros().toPlainString());
      }
      if (window != 1000) {
        text.append(":window=").append(window);
      }
      if (warmUp != Math.min(100, window)) {
        text.append(":warm-up=").append(warmUp);
      }
      return text.toString();
    }

    /** A fresh {@link AdaptiveHedgeDelay} with these settings. */
    public AdaptiveHedgeDelay delay() {
      return AdaptiveHedgeDelay.builder().quantile(quantile).bounds(Duration.ofNanos(minDelayNanos),
          Duration.ofNanos(maxDelayNanos)).initialDelay(Duration.ofNanos(initialDelayNanos)).maxExtraLoad(maxExtraLoad)
          .window(window).warmUp(warmUp).build();
    }
  }

  /**
   * The settings of {@code +concurrency[:ALGORITHM][:KEY=VALUE...]}, a {@link ConcurrencyLimiter}: an adaptive
   * limit on attempts in flight that refuses retries and hedges before first attempts. ALGORITHM is
   * {@code gradient} (the default: a latency gradient in the style of TCP Vegas), {@code aimd} (additive
   * increase, multiplicative decrease) or {@code fixed=N} (a static bulkhead of N slots). The keys, each at
   * most once and in any order:
   *
   * <ul>
   *   <li>{@code initial}, {@code min}, {@code max} (gradient and aimd): the limit before any sample (default
   *       20, or the nearest bound when the bounds exclude 20) and its bounds (default 1 and 1000), whole
   *       numbers in [1, {@value ConcurrencyLimiter#MAX_SLOTS}];
   *   <li>{@code retry-share}: the share of the limit retries and hedges may fill, in (0, 1]; default 0.8;
   *   <li>{@code backoff-ratio} (gradient and aimd): what a drop multiplies the limit by, in (0, 1); default 0.9;
   *   <li>{@code latency-threshold} (aimd): the latency above which a success counts as a drop; default 5s;
   *   <li>{@code smoothing} (gradient): how far one sample moves the limit toward its target, in (0, 1];
   *       default 0.2;
   *   <li>{@code queue-allowance} (gradient): attempts allowed to queue above what the minimum latency
   *       explains, in [0, {@value ConcurrencyLimiter#MAX_SLOTS}]; default 4;
   *   <li>{@code min-rtt-window} (gradient): how long a minimum latency is trusted; default 30s.
   * </ul>
   *
   * For example {@code +concurrency}, {@code +concurrency:aimd:max=200}, {@code +concurrency:fixed=20},
   * {@code +concurrency:gradient:min=5:max=100:retry-share=0.5}. Immutable and thread-safe.
   *
   * @param algorithm {@code gradient}, {@code aimd} or {@code fixed}
   * @param initialLimit {@code initial} (for {@code fixed}: N)
   * @param minLimit {@code min} (for {@code fixed}: N)
   * @param maxLimit {@code max} (for {@code fixed}: N)
   * @param retryShare {@code retry-share}
   * @param backoffRatio {@code backoff-ratio}
   * @param latencyThresholdNanos {@code latency-threshold} in nanoseconds
   * @param smoothing {@code smoothing}
   * @param queueAllowance {@code queue-allowance}
   * @param minRttWindowNanos {@code min-rtt-window} in nanoseconds
   */
  public record Concurrency(String algorithm, int initialLimit, int minLimit, int maxLimit, double retryShare,
      double backoffRatio, long latencyThresholdNanos, double smoothing, double queueAllowance,
      long minRttWindowNanos) {
    /** The limiter of a bare {@code +concurrency}: the gradient algorithm with the core's defaults. */
    public static final Concurrency DEFAULT = new Concurrency("gradient", 20, 1, 1000, 0.8, 0.9, 5_000_000_000L,
        0.2, 4, 30_000_000_000L);
    /** The algorithms, in the order help texts list them. */
    public static final List<String> ALGORITHMS = List.of("gradient", "aimd", "fixed");
    /** Every key, in the order help texts list them. */
    public static final List<String> KEYS = List.of("initial", "min", "max", "retry-share", "backoff-ratio",
        "latency-threshold", "smoothing", "queue-allowance", "min-rtt-window");
    private static final List<String> ADAPTIVE_KEYS = List.of("initial", "min", "max", "backoff-ratio");

    /**
     * The limiter of {@code +concurrency} from its settings one by one, for configuration that keeps each in a
     * key of its own (the Spring starter's properties): {@code algorithm} ({@code gradient}, {@code aimd},
     * {@code fixed}; default gradient), {@code limit} (fixed's N) and the suffix's keys. A missing or null
     * value takes its default.
     *
     * @throws IllegalArgumentException naming the bad key and its value, as for the suffix
     */
    public static Concurrency of(Map<String, String> settings) {
      Map<String, String> given = new java.util.LinkedHashMap<>();
      settings.forEach((key, value) -> {
        if (value != null && !value.trim().isEmpty()) {
          given.put(key.trim().toLowerCase(Locale.ROOT), value.trim().toLowerCase(Locale.ROOT));
        }
      });
      String algorithm = given.remove("algorithm");
      String limit = given.remove("limit");
      if (limit != null && !"fixed".equals(algorithm)) {
        throw new IllegalArgumentException("concurrency limit applies to the fixed algorithm only (the "
            + (algorithm == null ? "gradient" : algorithm) + " algorithm takes initial, min and max)");
      }
      List<String> parameters = new java.util.ArrayList<>();
      if (algorithm != null || limit != null) {
        String name = algorithm == null ? "gradient" : algorithm;
        parameters.add(limit == null ? name : name + "=" + limit);
      }
      given.forEach((key, value) -> parameters.add(key + "=" + value));
      return parameters(parameters.toArray(new String[0]), values -> parse("", values));
    }

    static Concurrency parse(String policy, String[] parameters) {
      String algorithm = "gradient";
      String fixedLimit = null;
      int first = 0;
      if (parameters.length > 0 && parameters[0] != null) {
        String[] pair = parameters[0].split("=", 2);
        String name = pair[0].trim();
        if (ALGORITHMS.contains(name)) {
          algorithm = name;
          first = 1;
          if (name.equals("fixed")) {
            if (pair.length < 2 || pair[1].trim().isEmpty()) {
              throw bad(policy, "concurrency fixed needs a limit, such as +concurrency:fixed=20");
            }
            fixedLimit = pair[1].trim();
          } else if (pair.length > 1) {
            throw bad(policy, "concurrency algorithm '" + Durations.show(parameters[0]) + "' takes no value (only "
                + "fixed=N does)");
          }
        } else if (pair.length == 1 && !KEYS.contains(name)) {
          String closest = Suggestions.closest(name, ALGORITHMS);
          throw bad(policy, "concurrency algorithm '" + Durations.show(name) + "': unknown"
              + (closest == null ? "" : "; did you mean '" + closest + "'?") + "; use gradient, aimd or fixed=N");
        }
      }
      Map<String, String> values = new java.util.LinkedHashMap<>();
      for (int i = first; i < parameters.length; i++) {
        if (parameters[i] == null) {
          throw bad(policy, "concurrency: an empty parameter; write KEY=VALUE (" + String.join(", ", KEYS) + ")");
        }
        String[] pair = parameters[i].split("=", 2);
        String key = pair[0].trim();
        if (!KEYS.contains(key)) {
          String closest = Suggestions.closest(key, KEYS);
          throw bad(policy, "concurrency parameter '" + Durations.show(key) + "': unknown"
              + (closest == null ? "" : "; did you mean '" + closest + "'?") + "; known: " + String.join(", ", KEYS)
              + (ALGORITHMS.contains(key) ? " (the algorithm comes first)" : ""));
        }
        if (pair.length < 2 || pair[1].trim().isEmpty()) {
          throw bad(policy, "concurrency " + key + " needs a value, such as " + key + "=" + example(key));
        }
        if (values.put(key, pair[1].trim()) != null) {
          throw bad(policy, "concurrency " + key + " is given twice");
        }
        String owner = key.equals("latency-threshold") ? "aimd"
            : List.of("smoothing", "queue-allowance", "min-rtt-window").contains(key) ? "gradient" : null;
        if (owner != null && !owner.equals(algorithm)
            || algorithm.equals("fixed") && ADAPTIVE_KEYS.contains(key)) {
          throw bad(policy, "concurrency " + key + " does not apply to the " + algorithm + " algorithm"
              + (owner == null ? " (its limit is fixed=N)" : " (only to " + owner + ")"));
        }
      }
      Concurrency d = DEFAULT;
      if (fixedLimit != null) {
        int limit = (int) whole(policy, "concurrency fixed", fixedLimit, 1, ConcurrencyLimiter.MAX_SLOTS);
        return new Concurrency(algorithm, limit, limit, limit, share(policy, values, d.retryShare), d.backoffRatio,
            d.latencyThresholdNanos, d.smoothing, d.queueAllowance, d.minRttWindowNanos);
      }
      int min = slots(policy, values, "min", d.minLimit);
      int max = slots(policy, values, "max", d.maxLimit);
      if (min > max) {
        throw bad(policy, "concurrency min " + min + " must not exceed max " + max);
      }
      int initial = slots(policy, values, "initial", Math.max(min, Math.min(max, d.initialLimit)));
      if (initial < min || initial > max) {
        throw bad(policy, "concurrency initial " + initial + " must lie within min " + min + " and max " + max);
      }
      double ratio = number(policy, values, "backoff-ratio", d.backoffRatio);
      if (!(ratio > 0 && ratio < 1)) {
        throw bad(policy, "concurrency backoff-ratio '" + values.get("backoff-ratio") + "': out of range (0..1)");
      }
      double smoothing = number(policy, values, "smoothing", d.smoothing);
      if (!(smoothing > 0 && smoothing <= 1)) {
        throw bad(policy, "concurrency smoothing '" + values.get("smoothing") + "': out of range (0..1]");
      }
      double allowance = number(policy, values, "queue-allowance", d.queueAllowance);
      if (!(allowance >= 0 && allowance <= ConcurrencyLimiter.MAX_SLOTS)) {
        throw bad(policy, "concurrency queue-allowance '" + values.get("queue-allowance") + "': out of range [0.."
            + ConcurrencyLimiter.MAX_SLOTS + "]");
      }
      return new Concurrency(algorithm, initial, min, max, share(policy, values, d.retryShare), ratio,
          duration(policy, values, "latency-threshold", d.latencyThresholdNanos), smoothing, allowance,
          duration(policy, values, "min-rtt-window", d.minRttWindowNanos));
    }

    private static String example(String key) {
      return switch (key) {
        case "latency-threshold" -> "2s";
        case "min-rtt-window" -> "30s";
        case "retry-share", "backoff-ratio" -> "0.5";
        case "smoothing" -> "0.2";
        default -> "20";
      };
    }

    private static int slots(String policy, Map<String, String> values, String key, int fallback) {
      String value = values.get(key);
      return value == null ? fallback
          : (int) whole(policy, "concurrency " + key, value, 1, ConcurrencyLimiter.MAX_SLOTS);
    }

    private static double share(String policy, Map<String, String> values, double fallback) {
      double share = number(policy, values, "retry-share", fallback);
      if (!(share > 0 && share <= 1)) {
        throw bad(policy, "concurrency retry-share '" + values.get("retry-share") + "': out of range (0..1]");
      }
      return share;
    }

    private static double number(String policy, Map<String, String> values, String key, double fallback) {
      return setting(policy, values, key, fallback, PolicySpec::decimal);
    }

    private static long duration(String policy, Map<String, String> values, String key, long fallback) {
      long nanos = setting(policy, values, key, fallback, Durations::parseNanos);
      if (nanos == 0) {
        throw bad(policy, "concurrency " + key + " '" + Durations.show(values.get(key)) + "': must be positive");
      }
      return nanos;
    }

    private static <T> T setting(String policy, Map<String, String> values, String key, T fallback,
        java.util.function.Function<String, T> parser) {
      return PolicySpec.setting(policy, "concurrency " + key, values.get(key), fallback, parser);
    }

    /**
     * The suffix as it is written in its shortest form, which parses back to these settings: the algorithm
     * unless it is the default gradient, then only the keys whose values differ from their defaults, in the
     * order of {@link #KEYS} ({@code +concurrency}, {@code +concurrency:aimd:max=200},
     * {@code +concurrency:fixed=20:retry-share=0.5}).
     */
    public String canonical() {
      StringBuilder text = new StringBuilder("+concurrency");
      Concurrency d = DEFAULT;
      if (algorithm.equals("fixed")) {
        text.append(":fixed=").append(maxLimit);
      } else if (!algorithm.equals("gradient")) {
        text.append(':').append(algorithm);
      }
      boolean adaptive = !algorithm.equals("fixed");
      if (adaptive && initialLimit != Math.max(minLimit, Math.min(maxLimit, d.initialLimit))) {
        text.append(":initial=").append(initialLimit);
      }
      if (adaptive && minLimit != d.minLimit) {
        text.append(":min=").append(minLimit);
      }
      if (adaptive && maxLimit != d.maxLimit) {
        text.append(":max=").append(maxLimit);
      }
      append(text, "retry-share", retryShare, d.retryShare, true);
      append(text, "backoff-ratio", backoffRatio, d.backoffRatio, adaptive);
      if (algorithm.equals("aimd") && latencyThresholdNanos != d.latencyThresholdNanos) {
        text.append(":latency-threshold=").append(Durations.format(latencyThresholdNanos));
      }
      boolean gradient = algorithm.equals("gradient");
      append(text, "smoothing", smoothing, d.smoothing, gradient);
      append(text, "queue-allowance", queueAllowance, d.queueAllowance, gradient);
      if (gradient && minRttWindowNanos != d.minRttWindowNanos) {
        text.append(":min-rtt-window=").append(Durations.format(minRttWindowNanos));
      }
      return text.toString();
    }

    private static void append(StringBuilder text, String key, double value, double fallback, boolean applies) {
      if (applies && value != fallback) {
        text.append(':').append(key).append('=').append(BigDecimal.valueOf(value).stripTrailingZeros().toPlainString());
      }
    }

    /** A builder for this limiter, ready for a name, a clock and overload classes. */
    public ConcurrencyLimiter.Builder builder() {
      return switch (algorithm) {
        case "fixed" -> ConcurrencyLimiter.fixed(maxLimit).retryShare(retryShare);
        case "aimd" -> ConcurrencyLimiter.aimd().bounds(minLimit, maxLimit).initialLimit(initialLimit)
            .retryShare(retryShare).backoffRatio(backoffRatio).latencyThreshold(Duration.ofNanos(latencyThresholdNanos));
        default -> ConcurrencyLimiter.gradient().bounds(minLimit, maxLimit).initialLimit(initialLimit)
            .retryShare(retryShare).backoffRatio(backoffRatio).smoothing(smoothing).queueAllowance(queueAllowance)
            .minRttWindow(Duration.ofNanos(minRttWindowNanos));
      };
    }
  }

  /** {@code value} parsed, or {@code fallback} without one; a parser's message names the setting. */
  private static <T> T setting(String policy, String name, String value, T fallback,
      java.util.function.Function<String, T> parser) {
    if (value == null) {
      return fallback;
    }
    try {
      return parser.apply(value);
    } catch (IllegalArgumentException e) {
      throw bad(policy, name + " '" + Durations.show(value) + "': " + e.getMessage());
    }
  }

  private static double decimal(String value) {
    try {
      return new BigDecimal(value.replace("_", "")).doubleValue();
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a number", e);
    }
  }

  private static long whole(String policy, String name, String value, long min, long max) {
    BigDecimal exact;
    try {
      exact = new BigDecimal(value.replace("_", ""));
    } catch (NumberFormatException e) {
      throw bad(policy, name + " '" + Durations.show(value) + "': not a whole number");
    }
    if (exact.signum() != 0 && exact.stripTrailingZeros().scale() > 0) {
      throw bad(policy, name + " '" + Durations.show(value) + "': not a whole number");
    }
    if (exact.compareTo(BigDecimal.valueOf(min)) < 0 || exact.compareTo(BigDecimal.valueOf(max)) > 0) {
      throw bad(policy, name + " '" + Durations.show(value) + "': out of range (" + min + ".." + max + ")");
    }
    return exact.longValueExact();
  }

  /** A suffix's settings from its parameters alone: trailing nulls dropped, messages without a policy. */
  private static <T> T parameters(String[] given, java.util.function.Function<String[], T> parser) {
    int length = given.length;
    while (length > 0 && given[length - 1] == null) {
      length--;
    }
    String[] values = new String[length];
    for (int i = 0; i < length; i++) {
      values[i] = given[i] == null || given[i].trim().isEmpty() ? null : given[i].trim();
    }
    try {
      return parser.apply(values);
    } catch (IllegalArgumentException e) {
      String lead = "bad policy '': ";
      String message = e.getMessage();
      throw new IllegalArgumentException(message.startsWith(lead) ? message.substring(lead.length()) : message, e);
    }
  }

  private static IllegalArgumentException bad(String policy, String why) {
    return new IllegalArgumentException("bad policy '" + Durations.show(policy.trim()) + "': " + why);
  }
}
