package dev.backoff.grpc;

import dev.backoff.Backoff;
import dev.backoff.AdaptiveHedgeDelay;
import dev.backoff.Hedging;
import dev.backoff.spec.Durations;
import dev.backoff.Jitter;
import dev.backoff.RetryBudget;
import dev.backoff.RetryPolicy;
import dev.backoff.driver.PolicyShapes;
import io.grpc.Status;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * A Backoff policy exported to gRPC's native service-config retry policy or hedging policy (gRFC A6), for
 * channels that let gRPC itself retry or hedge, with what gRPC cannot express listed. Immutable and
 * thread-safe.
 *
 * <pre>{@code
 * GrpcServiceConfig config = GrpcServiceConfig.retryPolicy(policy).requireExact(); // or read unexpressed()
 * ManagedChannel channel = ManagedChannelBuilder.forTarget(target)
 *     .defaultServiceConfig(config.asMap())
 *     .enableRetry()
 *     .build();
 * }</pre>
 *
 * <h2>What is exported</h2>
 * One {@code methodConfig} entry for the given services (all services when none are given) with a
 * {@code retryPolicy}: {@code maxAttempts}, {@code initialBackoff}, {@code maxBackoff} and
 * {@code backoffMultiplier} from an exponential (or fixed) backoff, and the {@code retryableStatusCodes}.
 * A policy of one attempt exports no {@code retryPolicy} (no retries), which is exact. A
 * {@link dev.backoff.RetryBudgets#grpcThrottling gRPC throttling budget} becomes {@code retryThrottling}
 * (gRPC keeps one token count per channel and server, where Backoff's budget is shared as far as the
 * object is).
 *
 * <p>{@link #hedgingPolicy} exports a policy with {@linkplain RetryPolicy#hedging() hedging} to a
 * {@code hedgingPolicy} instead: {@code maxAttempts} (the attempts the policy may start: its
 * {@code maxAttempts}, or the hedging's {@code maxHedges} plus one if fewer), {@code hedgingDelay} and the
 * {@code nonFatalStatusCodes} (the codes that start the next hedge at once; every other code ends the call).
 * A policy that may start only one attempt exports no {@code hedgingPolicy}. The backoff is not exported,
 * and need not be: neither Backoff nor gRPC backs off between hedges.
 *
 * <h2>What gRPC cannot express</h2>
 * {@link #unexpressed()} lists, one sentence each, every setting of the policy that the config drops or
 * changes; {@link #requireExact()} is the strict mode, which refuses the export instead. They are:
 * <ul>
 *   <li>a jitter other than full jitter: gRPC always waits a uniform time in {@code [0, scheduled)};
 *   <li>a strategy that is not exponential or fixed (linear, decorrelated, Google Cloud's algorithm, your
 *       own): exported as the exponential envelope of its first delays (the largest first delay, the growth
 *       from the first to the second, the largest delay within the policy's attempts);
 *   <li>no delay at all ({@code Backoff.none()}): gRPC needs a positive initial backoff, so 1 ns is exported;
 *   <li>a deadline ({@code maxElapsed}): gRPC's retry policy has none (a call deadline or the method
 *       config's {@code timeout} also cuts the attempt in flight, so neither is set for you);
 *   <li>a budget other than gRPC throttling; own backoffs per failure class; retry and abort rules on
 *       exceptions, and retries on results (gRPC decides by status code alone); listeners; a pushback
 *       extractor; a maximum pushback other than the default 60 s (gRPC honours any
 *       {@code grpc-retry-pushback-ms});
 *   <li>an attempt timeout, a circuit breaker, an adaptive rate limiter: gRPC's policies have none;
 *   <li>more than 5 attempts: gRPC limits {@code maxAttempts} to the channel's {@code maxRetryAttempts}
 *       (5 unless raised with {@code ManagedChannelBuilder.maxRetryAttempts}), or for hedging to its
 *       {@code maxHedgedAttempts} (5 unless raised with {@code ManagedChannelBuilder.maxHedgedAttempts});
 *   <li>for {@link #retryPolicy}, hedging: a retry policy retries one attempt at a time.
 * </ul>
 * The backoff's entries (jitter, strategy, no delay, backoffs per failure class) concern {@link #retryPolicy}
 * only: a hedged call never backs off.
 * Always different, and so not listed: gRPC waits exactly the pushback a server asks for, where Backoff
 * waits {@code max(pushback, backoff)}; gRPC's policy applies per channel, not per call; and after a
 * non-fatal status gRPC Java sends the next hedge at once only if the status carries a pushback (of any
 * value), and otherwise waits for the hedging delay, where Backoff hedges at once, or after the pushback.
 */
public final class GrpcServiceConfig {
  /**
   * gRPC's default limit on {@code maxAttempts} (the channel's {@code maxRetryAttempts}, and for hedging its
   * {@code maxHedgedAttempts}).
   */
  public static final int GRPC_DEFAULT_MAX_ATTEMPTS = 5;

  private static final Duration DEFAULT_MAX_PUSHBACK = Duration.ofSeconds(60);
  private static final int ENVELOPE_RETRIES = 64;
  /** A source whose every draw is the largest double below 1, so a strategy returns its largest delay. */
  private static final RandomGenerator TOP = () -> -1L;

  private final Map<String, Object> config;
  private final List<String> unexpressed;

  private GrpcServiceConfig(Map<String, Object> config, List<String> unexpressed) {
    this.config = config;
    this.unexpressed = unexpressed;
  }

  /**
   * Exports {@code policy} for all services, retrying {@code UNAVAILABLE} and {@code RESOURCE_EXHAUSTED}
   * (the {@link GrpcRetryInterceptor}'s defaults).
   *
   * @throws NullPointerException if {@code policy} is null
   */
  public static GrpcServiceConfig retryPolicy(RetryPolicy<?> policy) {
    return retryPolicy(policy, GrpcStatusRules.DEFAULT_RETRYABLE);
  }

  /**
   * Exports {@code policy} with these retryable status codes, for the given services or methods.
   *
   * @param retryableStatusCodes the codes gRPC retries; at least one, never {@code OK}
   * @param names fully qualified services ({@code "package.Service"}) or methods
   *     ({@code "package.Service/Method"}); none for every service of the channel
   * @throws IllegalArgumentException if the codes are empty or contain {@code OK}, or a name is blank, has
   *     more than one {@code '/'} or an empty part
   * @throws NullPointerException if an argument or element is null
   */
  public static GrpcServiceConfig retryPolicy(RetryPolicy<?> policy, Set<Status.Code> retryableStatusCodes,
      String... names) {
    Objects.requireNonNull(policy, "policy must not be null");
    Objects.requireNonNull(retryableStatusCodes, "retryableStatusCodes must not be null");
    Objects.requireNonNull(names, "names must not be null");
    if (retryableStatusCodes.isEmpty()) {
      throw new IllegalArgumentException("retryableStatusCodes must not be empty: gRPC requires at least one");
    }
    EnumSet<Status.Code> codes = validCodes("retryableStatusCodes", retryableStatusCodes);
    List<Object> nameList = nameList(names);

    List<String> unexpressed = new ArrayList<>();
    Map<String, Object> methodConfig = new LinkedHashMap<>();
    methodConfig.put("name", Collections.unmodifiableList(nameList));
    if (policy.maxAttempts() > 1) {
      methodConfig.put("retryPolicy", retryPolicyEntry(policy, codes, unexpressed));
    }
    if (policy.hedging() != null) {
      unexpressed.add("hedging (" + policy.hedging() + "): a retryPolicy retries one attempt at a time;"
          + " GrpcServiceConfig.hedgingPolicy exports gRPC's hedgingPolicy");
    }
    return finish(policy, methodConfig, unexpressed, false);
  }

  /**
   * Exports a hedging {@code policy} to a {@code hedgingPolicy} for all services, its non-fatal codes
   * {@code UNAVAILABLE} and {@code RESOURCE_EXHAUSTED} (the {@link GrpcRetryInterceptor}'s defaults, which it
   * hedges on at once).
   *
   * @throws IllegalArgumentException if the policy does not {@linkplain RetryPolicy#hedging() hedge}
   * @throws NullPointerException if {@code policy} is null
   */
  public static GrpcServiceConfig hedgingPolicy(RetryPolicy<?> policy) {
    return hedgingPolicy(policy, GrpcStatusRules.DEFAULT_RETRYABLE);
  }

  /**
   * Exports a hedging {@code policy} to a {@code hedgingPolicy} with these non-fatal status codes, for the
   * given services or methods.
   *
   * @param nonFatalStatusCodes the codes after which gRPC sends the next hedge at once, as the interceptor
   *     does after its {@linkplain GrpcRetryInterceptor#retryableStatusCodes() retryable codes}; every other
   *     code ends the call. May be empty (every failure is then fatal); never {@code OK}
   * @param names fully qualified services ({@code "package.Service"}) or methods
   *     ({@code "package.Service/Method"}); none for every service of the channel
   * @throws IllegalArgumentException if the policy does not hedge, the codes contain {@code OK}, or a name is
   *     blank, has more than one {@code '/'} or an empty part
   * @throws NullPointerException if an argument or element is null
   */
  public static GrpcServiceConfig hedgingPolicy(RetryPolicy<?> policy, Set<Status.Code> nonFatalStatusCodes,
      String... names) {
    Objects.requireNonNull(policy, "policy must not be null");
    Objects.requireNonNull(nonFatalStatusCodes, "nonFatalStatusCodes must not be null");
    Objects.requireNonNull(names, "names must not be null");
    Hedging hedging = policy.hedging();
    if (hedging == null) {
      throw new IllegalArgumentException("policy '" + policy.name() + "' does not hedge: export it with"
          + " GrpcServiceConfig.retryPolicy, or give it RetryPolicy.Builder.hedging(...)");
    }
    EnumSet<Status.Code> codes = validCodes("nonFatalStatusCodes", nonFatalStatusCodes);
    List<Object> nameList = nameList(names);

    List<String> unexpressed = new ArrayList<>();
    Map<String, Object> methodConfig = new LinkedHashMap<>();
    methodConfig.put("name", Collections.unmodifiableList(nameList));
    int maxAttempts = hedging.maxHedges() == Hedging.UNBOUNDED ? policy.maxAttempts()
        : Math.min(policy.maxAttempts(), hedging.maxHedges() + 1);
    if (maxAttempts > 1) {
      if (maxAttempts > GRPC_DEFAULT_MAX_ATTEMPTS) {
        unexpressed.add("maxAttempts " + maxAttempts + ": gRPC limits hedged attempts to the channel's"
            + " maxHedgedAttempts (" + GRPC_DEFAULT_MAX_ATTEMPTS + " unless raised with"
            + " ManagedChannelBuilder.maxHedgedAttempts)");
      }
      long delayNanos = hedging.delayNanos(); // an adaptive delay's value now, read once
      AdaptiveHedgeDelay adaptive = hedging.adaptiveDelay();
      if (adaptive != null) {
        unexpressed.add("adaptive hedging delay (quantile " + adaptive.quantile()
            + " of recent latencies): gRPC's hedgingDelay is fixed; exported as its value now, "
            + Durations.format(delayNanos) + " (" + adaptive.latenciesRecorded() + " latencies recorded; "
            + (adaptive.latenciesRecorded() < adaptive.warmUp() ? "still the initial delay" : "it will move")
            + "); export again for a newer value");
        unexpressed.add("the hedges' load cap (at most " + adaptive.maxExtraLoad()
            + " hedges per first attempt): gRPC's hedgingPolicy has none (retryThrottling counts failures,"
            + " not hedges)");
      }
      Map<String, Object> hedge = new LinkedHashMap<>();
      hedge.put("maxAttempts", (double) maxAttempts);
      hedge.put("hedgingDelay", seconds(delayNanos));
      hedge.put("nonFatalStatusCodes", codeNames(codes));
      methodConfig.put("hedgingPolicy", Collections.unmodifiableMap(hedge));
    }
    return finish(policy, methodConfig, unexpressed, true);
  }

  private static EnumSet<Status.Code> validCodes(String parameter, Set<Status.Code> given) {
    EnumSet<Status.Code> codes = EnumSet.noneOf(Status.Code.class);
    for (Status.Code code : given) {
      Objects.requireNonNull(code, "status code in " + parameter + " must not be null");
      if (code == Status.Code.OK) {
        throw new IllegalArgumentException(parameter + " must not contain OK, was " + given);
      }
      codes.add(code);
    }
    return codes;
  }

  private static List<Object> nameList(String... names) {
    List<Object> nameList = new ArrayList<>();
    for (String name : names) {
      nameList.add(nameEntry(name));
    }
    if (nameList.isEmpty()) {
      nameList.add(Map.of()); // an empty name: every method of every service
    }
    return nameList;
  }

  private static List<Object> codeNames(Set<Status.Code> codes) {
    List<Object> names = new ArrayList<>();
    for (Status.Code code : codes) {
      names.add(code.name());
    }
    return Collections.unmodifiableList(names);
  }

  /**
   * Adds what both exports share (the budget, and what neither can express) and builds the config. A hedged
   * call never backs off, so per-class backoffs are no difference when {@code hedging}.
   */
  private static GrpcServiceConfig finish(RetryPolicy<?> policy, Map<String, Object> methodConfig,
      List<String> unexpressed, boolean hedging) {
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("methodConfig", List.of(Collections.unmodifiableMap(methodConfig)));

    RetryBudget budget = policy.budget();
    if (budget != null) {
      PolicyShapes.GrpcThrottling throttling = PolicyShapes.grpcThrottling(budget);
      if (throttling == null) {
        unexpressed.add("budget " + budget + ": gRPC's only budget is retry throttling (RetryBudgets.grpcThrottling)");
      } else {
        Map<String, Object> retryThrottling = new LinkedHashMap<>();
        retryThrottling.put("maxTokens", (double) throttling.maxTokens());
        retryThrottling.put("tokenRatio", throttling.tokenRatio());
        config.put("retryThrottling", Collections.unmodifiableMap(retryThrottling));
      }
    }
    if (policy.maxElapsed() != null) {
      unexpressed.add("deadline (maxElapsed " + policy.maxElapsed() + "): gRPC's retry policy has none; a call"
          + " deadline or the method config's timeout would also cut the attempt in flight");
    }
    PolicyShapes.Features features = PolicyShapes.features(policy);
    if (features.failureClassBackoffs() && !hedging) {
      unexpressed.add("backoffs per failure class: gRPC has one backoff for every retryable status");
    }
    if (features.failureRules()) {
      unexpressed.add("retry and abort rules on exceptions: gRPC decides by status code alone");
    }
    if (features.resultRules()) {
      unexpressed.add("retries on results (retryOnResult): gRPC retries only failed calls");
    }
    if (features.listeners()) {
      unexpressed.add("listeners: gRPC reports no retry events");
    }
    if (features.pushbackExtractor()) {
      unexpressed.add("the pushback extractor: gRPC reads only the grpc-retry-pushback-ms trailer");
    }
    if (!policy.maxPushback().equals(DEFAULT_MAX_PUSHBACK)) {
      unexpressed.add("maxPushback " + policy.maxPushback() + ": gRPC honours any grpc-retry-pushback-ms");
    }
    if (policy.attemptTimeout() != null) {
      unexpressed.add("attemptTimeout " + policy.attemptTimeout() + ": gRPC's policies have no per-attempt"
          + " timeout (the method config's timeout bounds the whole call)");
    }
    if (policy.circuitBreaker() != null) {
      unexpressed.add("the circuit breaker: gRPC has none");
    }
    if (policy.rateLimiter() != null) {
      unexpressed.add("the adaptive rate limiter: gRPC has none");
    }
    return new GrpcServiceConfig(Collections.unmodifiableMap(config), List.copyOf(unexpressed));
  }

  private static Map<String, Object> retryPolicyEntry(RetryPolicy<?> policy, Set<Status.Code> codes,
      List<String> unexpressed) {
    int maxAttempts = policy.maxAttempts();
    if (maxAttempts > GRPC_DEFAULT_MAX_ATTEMPTS) {
      unexpressed.add("maxAttempts " + maxAttempts + ": gRPC limits it to the channel's maxRetryAttempts ("
          + GRPC_DEFAULT_MAX_ATTEMPTS + " unless raised with ManagedChannelBuilder.maxRetryAttempts)");
    }
    Backoff backoff = policy.backoff();
    PolicyShapes.Exponential shape = PolicyShapes.exponential(backoff);
    if (shape == null) {
      shape = envelope(backoff, maxAttempts - 1);
      unexpressed.add("backoff " + backoff + ": gRPC's backoff is exponential with full jitter; exported as the"
          + " envelope of its first delays (initial " + Duration.ofNanos(shape.initialNanos()) + ", multiplier "
          + shape.multiplier() + ", max " + Duration.ofNanos(shape.capNanos()) + ")");
    } else if (shape.jitter() != Jitter.full()) {
      unexpressed.add("jitter '" + shape.jitter() + "': gRPC always applies full jitter (a uniform wait in"
          + " [0, scheduled delay))");
    }
    long initial = shape.initialNanos();
    long cap = shape.capNanos();
    if (initial == 0) {
      unexpressed.add("no delay between attempts: gRPC's initialBackoff must be positive; exported as 1 ns");
      initial = 1;
      cap = Math.max(cap, 1);
    }
    Map<String, Object> retry = new LinkedHashMap<>();
    retry.put("maxAttempts", (double) maxAttempts);
    retry.put("initialBackoff", seconds(initial));
    retry.put("maxBackoff", seconds(cap));
    retry.put("backoffMultiplier", shape.multiplier());
    retry.put("retryableStatusCodes", codeNames(codes));
    return Collections.unmodifiableMap(retry);
  }

  /** The exponential shape whose full-jitter range covers {@code backoff}'s delays for the first retries. */
  private static PolicyShapes.Exponential envelope(Backoff backoff, int retries) {
    int count = Math.max(1, Math.min(retries, ENVELOPE_RETRIES));
    long first = Math.max(1, backoff.delayNanos(1, 0, 0, TOP));
    long second = count > 1 ? backoff.delayNanos(2, first, first, TOP) : first;
    long largest = Math.max(first, second);
    long previous = second;
    long total = first + second;
    for (int retry = 3; retry <= count; retry++) {
      long delay = backoff.delayNanos(retry, previous, total, TOP);
      largest = Math.max(largest, delay);
      previous = delay;
      total = total > Long.MAX_VALUE - delay ? Long.MAX_VALUE : total + delay;
    }
    if (backoff.maxDelayNanos() != Long.MAX_VALUE) {
      largest = Math.max(largest, backoff.maxDelayNanos()); // the strategy's own bound, where it has one
    }
    double multiplier = Math.max(1, second / (double) first);
    return new PolicyShapes.Exponential(first, multiplier, largest, Jitter.full());
  }

  private static Map<String, Object> nameEntry(String name) {
    Objects.requireNonNull(name, "service or method name must not be null");
    String[] parts = name.split("/", -1);
    if (name.isBlank() || parts.length > 2 || parts[0].isEmpty() || (parts.length == 2 && parts[1].isEmpty())) {
      throw new IllegalArgumentException("name must be 'package.Service' or 'package.Service/Method', was '" + name + "'");
    }
    Map<String, Object> entry = new LinkedHashMap<>();
    entry.put("service", parts[0]);
    if (parts.length == 2) {
      entry.put("method", parts[1]);
    }
    return Collections.unmodifiableMap(entry);
  }

  /** A protobuf JSON duration: seconds with up to nine decimals and an "s" suffix, such as "0.1s". */
  static String seconds(long nanos) {
    return BigDecimal.valueOf(nanos, 9).stripTrailingZeros().toPlainString() + "s";
  }

  /**
   * The service config as a map for {@code ManagedChannelBuilder.defaultServiceConfig(Map)}: nested
   * unmodifiable maps and lists, strings, and numbers as {@link Double} (as gRPC's own JSON parser gives
   * them).
   */
  public Map<String, Object> asMap() {
    return config;
  }

  /** The service config as JSON text, for a name resolver or a config file. */
  public String toJson() {
    StringBuilder out = new StringBuilder();
    writeJson(config, out);
    return out.toString();
  }

  /** What the config drops or changes of the policy, one sentence each; empty when the export is exact. */
  public List<String> unexpressed() {
    return unexpressed;
  }

  /** True when gRPC's config says everything the policy says (see the class description). */
  public boolean isExact() {
    return unexpressed.isEmpty();
  }

  /**
   * The strict mode: returns this config if it is exact.
   *
   * @throws IllegalArgumentException listing everything gRPC's config cannot express, if anything
   */
  public GrpcServiceConfig requireExact() {
    if (!unexpressed.isEmpty()) {
      throw new IllegalArgumentException("gRPC's service config cannot express this policy exactly: "
          + String.join("; ", unexpressed));
    }
    return this;
  }

  @Override
  public String toString() {
    return toJson();
  }

  private static void writeJson(Object value, StringBuilder out) {
    if (value instanceof Map<?, ?> map) {
      out.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        if (!first) {
          out.append(',');
        }
        first = false;
        writeString(entry.getKey().toString(), out);
        out.append(':');
        writeJson(entry.getValue(), out);
      }
      out.append('}');
    } else if (value instanceof List<?> list) {
      out.append('[');
      for (int i = 0; i < list.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        writeJson(list.get(i), out);
      }
      out.append(']');
    } else if (value instanceof Double number) {
      double d = number;
      out.append(d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d));
    } else {
      writeString(String.valueOf(value), out);
    }
  }

  private static void writeString(String text, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c < 0x20) {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    out.append('"');
  }
}
