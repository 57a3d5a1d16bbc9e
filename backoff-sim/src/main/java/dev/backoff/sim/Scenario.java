package dev.backoff.sim;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One simulator configuration: every parameter of the server, client and fault models and the policies to
 * compare, under the same keys as the command line's flags and the scenario files (YAML or JSON).
 * {@link #defaults()} is the retry-storm experiment. Values are validated when the scenario is built; a problem
 * raises a {@link ScenarioException} naming the key and the value.
 *
 * <p>Immutable and thread-safe.
 */
public final class Scenario {

  /** A scenario key: its name, default value and a one-line description (for help and docs). */
  public static final class Key {
    private final String name;
    private final Object defaultValue;
    private final String description;

    private Key(String name, Object defaultValue, String description) {
      this.name = name;
      this.defaultValue = defaultValue;
      this.description = description;
    }

    /** The key, as written in scenario files and (with two dashes) on the command line. */
    public String name() {
      return name;
    }

    /** The default, as text. */
    public String defaultValue() {
      return defaultValue instanceof List ? String.join(",", asStrings(defaultValue)) : String.valueOf(defaultValue);
    }

    /** What the key means. */
    public String description() {
      return description;
    }
  }

  private static final Map<String, Key> KEYS = new LinkedHashMap<>();

  private static void key(String name, Object defaultValue, String description) {
    KEYS.put(name, new Key(name, defaultValue, description));
  }

  static {
    key("duration", "400s", "simulated time of each run");
    key("seed", 3L, "random seed: the same seed and scenario give byte-identical output");
    key("policies", List.of("storm-fixed", "storm-exponential", "storm-exponential-full-jitter",
            "storm-exponential-full-jitter+budget"),
        "policies to compare (see 'backoff strategies': the experiment's storm-*, strategies like "
            + "full-jitter:100ms:20s, presets; suffixes +budget, +breaker[:rate%:window:wait:trials], +adaptive[:wait|fail|max-wait], "
            + "+hedge:delay|pNN[:max-hedges][:key=value...])");
    key("max-attempts", "the policy's own", "attempt limit, the first attempt included, or unlimited; when set it "
        + "applies to every policy, presets and storm-* too (unset, or own: each policy's own, as everywhere: a "
        + "strategy 3, as the library's default, a preset its own, storm-* unlimited; own undoes a scenario "
        + "file's limit)");
    key("budget", dev.backoff.spec.BudgetSpec.DEFAULT, "retry budget of '+budget' policies: token-bucket[:capacity:cost:timeout-cost] (AWS), grpc[:max-tokens:token-ratio] or ratio[:ratio:min-per-second:window] (Finagle)");
    key("breaker-scope", "shared", "circuit breakers of '+breaker' policies: shared (one per run, as the budget: "
        + "the clients are one process's callers) or per-client (closed loop: one per client, a fleet of "
        + "independent processes)");
    key("client", "closed", "client model: closed (as in the retry-storm experiment: N clients with think time) or open (Poisson arrivals)");
    key("clients", 1000L, "closed loop: number of clients");
    key("think-mean", "10s", "closed loop: mean of the exponential think time before each new request");
    key("timeout", "2s", "client timeout of each attempt");
    key("error-latency", "1ms", "time for a refused connection or a shed request to reach the client (positive: "
        + "a policy without backoff would otherwise retry forever at one instant)");
    key("rate", 100.0, "open loop: arrivals per second");
    key("rate-profile", "constant", "open loop: constant, step, spike or ramp");
    key("rate-peak", 200.0, "open loop: the rate after the step, during the spike, or at the end of the ramp");
    key("rate-at", "60s", "open loop: when the step, spike or ramp starts");
    key("rate-length", "30s", "open loop: how long the spike or ramp lasts");
    key("server", "knee", "server model: knee (the retry-storm experiment's server), linear, or pool (workers with a bounded queue)");
    key("base-latency", "100ms", "knee and linear: latency at low concurrency");
    key("knee-limit", 30L, "knee: concurrency up to which latency stays at base");
    key("knee-factor", 1.05, "knee: latency grows by this factor every knee-k requests above the limit");
    key("knee-k", 15.0, "knee: requests per factor step");
    key("latency-per-request", "1ms", "linear: latency added by each concurrent request");
    key("recheck", "0s", "knee and linear: 0 = exact completion times; 50ms = the original server's 50 ms polling");
    key("backlog", 512L, "connections the accept queue holds while the server is paused (see docs/simulator.md for why 512)");
    key("pause-overflow", "drop", "requests a paused server has no backlog room for: drop (never answered: "
        + "their clients wait for the timeout, as SYNs a full accept queue drops), close (closed at the resume: a "
        + "client still waiting sees an error and its policy decides) or reconnect (closed at the resume and sent "
        + "again at once, with a fresh timeout, by the HTTP client, not the policy: the lab)");
    key("workers", 10L, "pool: worker count");
    key("queue-size", 100L, "pool: bounded queue length; a request arriving to a full queue is shed");
    key("queue-order", "fifo", "pool: fifo or lifo");
    key("service-time", "100ms", "pool: time a worker spends on one request");
    key("service-distribution", "fixed", "pool: fixed or exponential service times");
    key("reject-status", 503L, "pool: status of a shed request, 503 or 429");
    key("retry-after", "none", "pool: Retry-After hint sent with a shed request (none or a duration)");
    key("faults", List.of("pause@60s+30s"),
        "faults as TYPE@START+LENGTH[:VALUE]: pause, crash, capacity (VALUE = fraction left), latency (VALUE = added)");
    key("recovery-window", "10s", "goodput must stay at >= 90% of baseline over windows this long to count as recovered");
  }

  /** Every key, in documentation order. */
  public static List<Key> keys() {
    return List.copyOf(KEYS.values());
  }

  private static final Scenario DEFAULTS = build(new LinkedHashMap<>());

  // Normalized values.
  final Map<String, Object> raw;
  final long durationNanos;
  final long seed;
  final List<PolicySpec> policies;
  final int maxAttempts;
  /** Whether max-attempts sets one limit for every policy (a number or unlimited), not each policy's own. */
  final boolean attemptLimitSet;
  final String budget;
  final boolean breakerPerClient;
  final boolean closedLoop;
  final int clients;
  final long thinkMeanNanos;
  final long timeoutNanos;
  final long errorLatencyNanos;
  final RateProfile rateProfile;
  final ServerModel serverModel;
  final long baseLatencyNanos;
  final int kneeLimit;
  final double kneeFactor;
  final double kneeK;
  final long latencyPerRequestNanos;
  final long recheckNanos;
  final int backlog;
  /** {@code pause-overflow}: 0 drop, 1 close, 2 reconnect. */
  final int pauseOverflow;
  final int workers;
  final int queueSize;
  final boolean lifo;
  final long serviceTimeNanos;
  final boolean exponentialService;
  final int rejectStatus;
  final long retryAfterNanos; // -1: none
  final List<Fault> faults;
  final long recoveryWindowNanos;

  enum ServerModel { KNEE, LINEAR, POOL }

  private Scenario(Map<String, Object> values) {
    this.raw = Collections.unmodifiableMap(values);
    durationNanos = positiveDuration("duration");
    if (durationNanos > 100L * 24 * 3_600_000_000_000L) {
      throw new ScenarioException("duration", "longer than 100 days of simulated time: " + get("duration"));
    }
    if (durationNanos < 1_000_000_000L || durationNanos % 1_000_000_000L != 0) {
      throw new ScenarioException("duration", "must be a whole number of seconds, at least 1s, was " + get("duration"));
    }
    seed = Values.wholeNumber("seed", get("seed"), Long.MIN_VALUE, Long.MAX_VALUE);
    String attempts = String.valueOf(get("max-attempts")).trim();
    attemptLimitSet = raw.containsKey("max-attempts") && !attempts.equalsIgnoreCase("own");
    if (!attemptLimitSet || attempts.equalsIgnoreCase("unlimited")) {
      maxAttempts = Integer.MAX_VALUE;
    } else {
      maxAttempts = (int) Values.wholeNumber("max-attempts", get("max-attempts"), 1, Integer.MAX_VALUE);
    }
    budget = String.valueOf(get("budget")).trim();
    BudgetSpec.check(budget);
    String client = choice("client", "closed", "open");
    closedLoop = client.equals("closed");
    breakerPerClient = choice("breaker-scope", "shared", "per-client").equals("per-client");
    clients = (int) Values.wholeNumber("clients", get("clients"), 1, Integer.MAX_VALUE);
    thinkMeanNanos = positiveDuration("think-mean");
    timeoutNanos = positiveDuration("timeout");
    errorLatencyNanos = positiveDuration("error-latency");
    rateProfile = RateProfile.of(this);
    serverModel = ServerModel.valueOf(choice("server", "knee", "linear", "pool").toUpperCase(Locale.ROOT));
    baseLatencyNanos = Values.durationNanos("base-latency", get("base-latency"));
    kneeLimit = (int) nonNegativeLong("knee-limit", 1_000_000_000L);
    kneeFactor = Values.doubleValue("knee-factor", get("knee-factor"));
    if (kneeFactor < 1) {
      throw new ScenarioException("knee-factor", "must be at least 1, was " + get("knee-factor"));
    }
    kneeK = Values.doubleValue("knee-k", get("knee-k"));
    if (!(kneeK > 0)) {
      throw new ScenarioException("knee-k", "must be positive, was " + get("knee-k"));
    }
    latencyPerRequestNanos = Values.durationNanos("latency-per-request", get("latency-per-request"));
    recheckNanos = Values.durationNanos("recheck", get("recheck"));
    backlog = (int) nonNegativeLong("backlog", 100_000_000L);
    pauseOverflow = List.of("drop", "close", "reconnect").indexOf(choice("pause-overflow", "drop", "close", "reconnect"));
    workers = (int) nonNegativeLong("workers", 10_000_000L);
    queueSize = (int) nonNegativeLong("queue-size", 100_000_000L);
    lifo = choice("queue-order", "fifo", "lifo").equals("lifo");
    serviceTimeNanos = Values.durationNanos("service-time", get("service-time"));
    exponentialService = choice("service-distribution", "fixed", "exponential").equals("exponential");
    long status = Values.wholeNumber("reject-status", get("reject-status"), Long.MIN_VALUE, Long.MAX_VALUE);
    if (status != 503 && status != 429) {
      throw new ScenarioException("reject-status", "must be 503 or 429, was " + get("reject-status"));
    }
    String retryAfter = String.valueOf(get("retry-after")).trim();
    rejectStatus = (int) status;
    retryAfterNanos = retryAfter.equalsIgnoreCase("none") ? -1 : Values.durationNanos("retry-after", retryAfter);
    recoveryWindowNanos = positiveDuration("recovery-window");
    if (recoveryWindowNanos < 1_000_000_000L || recoveryWindowNanos % 1_000_000_000L != 0) {
      throw new ScenarioException("recovery-window", "must be a whole number of seconds, at least 1s, was "
          + get("recovery-window"));
    }
    faults = Fault.parseAll(get("faults"), durationNanos, String.valueOf(get("duration")).trim());
    policies = PolicySpec.parseAll(get("policies"), attemptLimitSet);
    for (PolicySpec spec : policies) {
      if (spec.hedge != null) {
        try {
          spec.build(maxAttempts, null); // hedges need room in the attempt limit
        } catch (IllegalArgumentException e) {
          throw new ScenarioException(attemptLimitSet ? "max-attempts" : "policies",
              "policy '" + spec.name + "': " + e.getMessage());
        }
      }
    }
    checkContradictions();
    checkMemory();
  }

  private void checkContradictions() {
    if (serverModel == ServerModel.POOL) {
      if (workers == 0) {
        throw new ScenarioException("workers", "a pool server needs at least one worker, was 0");
      }
      if (serviceTimeNanos == 0) {
        throw new ScenarioException("service-time", "a pool server needs a positive service time, was 0s");
      }
    } else {
      if (baseLatencyNanos == 0) {
        throw new ScenarioException("base-latency", "must be positive for the " + get("server") + " server, was 0s");
      }
      if (recheckNanos != 0 && recheckNanos > baseLatencyNanos) {
        throw new ScenarioException("recheck", "a re-check interval of " + get("recheck")
            + " is longer than base-latency " + get("base-latency") + ": latencies would be meaningless");
      }
    }
    if (!closedLoop && breakerPerClient) {
      throw new ScenarioException("breaker-scope", "per-client breakers need the closed client model (an open-loop "
          + "arrival is one request, not a client that keeps a breaker); use breaker-scope: shared");
    }
    if (!closedLoop && raw.containsKey("clients")) {
      throw new ScenarioException("clients", "the open client model has no fixed client count (set rate instead); "
          + "remove clients or use client: closed");
    }
    if (closedLoop && raw.containsKey("rate")) {
      throw new ScenarioException("rate", "the closed client model has no arrival rate (set clients and think-mean); "
          + "remove rate or use client: open");
    }
  }

  private void checkMemory() {
    // The clients alone, a quick check for every scenario built; Simulator.run and the tipping-point
    // search add the worst-case storm (MemoryEstimate) before they start.
    long bytes = closedLoop ? MemoryEstimate.BYTES_PER_CLIENT * clients : 0;
    long limit = MemoryEstimate.usableBytes();
    if (bytes > limit) {
      throw new ScenarioException("clients", clients + " clients would need about " + (bytes >> 20)
          + " MiB of memory, more than this JVM can give a run (" + (limit >> 20) + " of "
          + (Runtime.getRuntime().maxMemory() >> 20) + " MiB); use fewer clients, or raise the heap: "
          + "BACKOFF_JAVA_OPTS=-Xmx" + Math.max(1, (long) Math.ceil(bytes / MemoryEstimate.USABLE_HEAP / (1L << 30))) + "g");
    }
  }

  private Object get(String key) {
    Object value = raw.get(key);
    return value != null ? value : KEYS.get(key).defaultValue;
  }

  private long positiveDuration(String key) {
    long nanos = Values.durationNanos(key, get(key));
    if (nanos == 0) {
      throw new ScenarioException(key, "must be positive, was " + get(key));
    }
    return nanos;
  }

  double doubleOf(String key) {
    return Values.doubleValue(key, get(key));
  }

  long durationOf(String key) {
    return Values.durationNanos(key, get(key));
  }

  String textOf(String key) {
    return String.valueOf(get(key)).trim();
  }

  private long nonNegativeLong(String key, long max) {
    return Values.wholeNumber(key, get(key), 0, max);
  }

  String choice(String key, String... allowed) {
    String value = String.valueOf(get(key)).trim().toLowerCase(Locale.ROOT);
    for (String option : allowed) {
      if (option.equals(value)) {
        return option;
      }
    }
    throw new ScenarioException(key, "unknown value '" + get(key) + "'; use one of " + String.join(", ", allowed));
  }

  /** The retry-storm experiment: knee server, 1000 closed-loop clients, a 30 s pause at 60 s, 400 s, four policies. */
  public static Scenario defaults() {
    return DEFAULTS;
  }

  /**
   * A scenario with these keys set and the rest at their defaults. Values may be strings (as on the command
   * line), numbers, booleans, or lists (for {@code policies} and {@code faults}).
   *
   * @throws ScenarioException for an unknown key or a bad value, naming it
   */
  public static Scenario of(Map<String, ?> values) {
    return DEFAULTS.with(values);
  }

  /**
   * This scenario with some keys replaced.
   *
   * @throws ScenarioException for an unknown key or a bad value, naming it
   */
  public Scenario with(Map<String, ?> values) {
    Map<String, Object> merged = new LinkedHashMap<>(raw);
    for (Map.Entry<String, ?> entry : values.entrySet()) {
      String key = entry.getKey();
      if (!KEYS.containsKey(key)) {
        throw new ScenarioException(key, "unknown key '" + key + "'; known keys: " + String.join(", ", KEYS.keySet()));
      }
      if (entry.getValue() == null) {
        throw new ScenarioException(key, "has no value");
      }
      merged.put(key, entry.getValue());
    }
    return build(merged);
  }

  /**
   * This scenario with one key replaced.
   *
   * @throws ScenarioException for an unknown key or a bad value
   */
  public Scenario with(String key, Object value) {
    Map<String, Object> one = new LinkedHashMap<>();
    one.put(key, value);
    return with(one);
  }

  private static Scenario build(Map<String, Object> values) {
    return new Scenario(values);
  }

  /**
   * Whether the scenario sets one attempt limit for every policy ({@code max-attempts} a number or
   * {@code unlimited}); false when each policy keeps its own (the key unset, or {@code own}).
   */
  public boolean setsAttemptLimit() {
    return attemptLimitSet;
  }

  /** The keys set explicitly (the rest are defaults), in the order they were given. */
  public Map<String, Object> explicitValues() {
    return raw;
  }

  /** The value of a key as text (its default if not set). */
  public String value(String key) {
    if (!KEYS.containsKey(key)) {
      throw new ScenarioException(key, "unknown key '" + key + "'");
    }
    Object value = get(key);
    return value instanceof List ? String.join(",", asStrings(value)) : String.valueOf(value);
  }

  /** The names of the policies this scenario compares. */
  public List<String> policyNames() {
    List<String> names = new ArrayList<>();
    for (PolicySpec spec : policies) {
      names.add(spec.name);
    }
    return names;
  }

  /**
   * The retry policy a run gives the policy of this name, as the simulator builds it, without the run's own
   * budget, breaker and rate limiter instances: the policy the name means everywhere, with the scenario's
   * {@code max-attempts} if it sets one.
   *
   * @throws IllegalArgumentException if the scenario compares no policy of that name
   */
  public dev.backoff.RetryPolicy<Object> policy(String name) {
    for (PolicySpec spec : policies) {
      if (spec.name.equals(name)) {
        return spec.build(maxAttempts, null);
      }
    }
    throw new IllegalArgumentException("no policy '" + name + "' in the scenario; it compares " + policyNames());
  }

  /** The knee server's latency model ({@code base-latency}, {@code knee-limit}, {@code knee-factor}, {@code knee-k}). */
  public KneeLatency kneeLatency() {
    return new KneeLatency(baseLatencyNanos, kneeLimit, kneeFactor, kneeK);
  }

  /** The closed loop's mean think time ({@code think-mean}). */
  public java.time.Duration thinkMean() {
    return java.time.Duration.ofNanos(thinkMeanNanos);
  }

  /** The client timeout of each attempt ({@code timeout}). */
  public java.time.Duration timeout() {
    return java.time.Duration.ofNanos(timeoutNanos);
  }

  /** The closed loop's client count ({@code clients}). */
  public int clients() {
    return clients;
  }

  /** The accept backlog of a paused server ({@code backlog}). */
  public int backlog() {
    return backlog;
  }

  /** Simulated seconds per run. */
  public int seconds() {
    return (int) (durationNanos / 1_000_000_000L);
  }

  long disturbanceStartNanos() {
    long start = Long.MAX_VALUE;
    for (Fault fault : faults) {
      start = Math.min(start, fault.atNanos);
    }
    if (!closedLoop && rateProfile.hasDisturbance()) {
      start = Math.min(start, rateProfile.atNanos);
    }
    return start;
  }

  long disturbanceEndNanos() {
    long end = Long.MIN_VALUE;
    for (Fault fault : faults) {
      end = Math.max(end, fault.endNanos());
    }
    if (!closedLoop && rateProfile.hasDisturbance()) {
      end = Math.max(end, rateProfile.disturbanceEndNanos());
    }
    return end;
  }

  /** A time window in which the server is disturbed, with its name in the scenario syntax. */
  record Window(long startNanos, long endNanos, String name) {}

  /**
   * The faults' windows, then an open-loop client's step (one second long), spike or ramp, in scenario order;
   * what the HTML report shades and the goodput picture marks.
   */
  List<Window> disturbanceWindows() {
    List<Window> windows = new ArrayList<>();
    for (Fault fault : faults) {
      windows.add(new Window(fault.atNanos, fault.endNanos(), fault.toString()));
    }
    if (!closedLoop && rateProfile.hasDisturbance()) {
      String name = textOf("rate-profile").toLowerCase(Locale.ROOT) + "@" + textOf("rate-at")
          + (rateProfile.shape == RateProfile.Shape.STEP ? "" : "+" + textOf("rate-length"));
      windows.add(new Window(rateProfile.atNanos,
          Math.max(rateProfile.disturbanceEndNanos(), rateProfile.atNanos + 1_000_000_000L), name));
    }
    return windows;
  }

  static List<String> asStrings(Object value) {
    List<String> out = new ArrayList<>();
    if (value instanceof List<?> list) {
      for (Object item : list) {
        out.add(String.valueOf(item).trim());
      }
    } else {
      for (String part : String.valueOf(value).split(",")) {
        if (!part.isBlank()) {
          out.add(part.trim());
        }
      }
    }
    return out;
  }

  @Override
  public String toString() {
    return "Scenario" + raw;
  }
}
