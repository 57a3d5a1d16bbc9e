package dev.backoff.sim;

import dev.backoff.CircuitBreaker;
import dev.backoff.NanoClock;
import dev.backoff.RetryBudget;
import dev.backoff.RetryPolicy;
import dev.backoff.driver.CallState;
import dev.backoff.driver.Effect;
import dev.backoff.driver.Engine;
import dev.backoff.driver.Verdict;
import dev.backoff.spec.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The contention scenario of AWS's "Exponential Backoff and Jitter": N clients each make one
 * optimistic-concurrency write to a single row. A client reads the row's version, then sends a conditional
 * write; if another write landed in between, the write fails and the client backs off (per the core
 * policy under test) and starts over. Every message takes {@code |normal(mean, deviation)|}. Reported per
 * strategy and N: mean write calls and mean completion time (until the last client has written) over R
 * runs. Stateless and thread-safe; each run is deterministic given the seed.
 *
 * <p>The strategies are named as in every command ({@code full-jitter}, {@code decorrelated-v2}; the former
 * {@code full}, {@code equal} and {@code decorrelatedV2} are refused with the name to use), with the scenario's
 * {@code base}, {@code cap} and {@code max-attempts} as overrides (see {@link #policy}). A strategy may carry
 * the policy grammar's {@code +budget} and {@code +breaker[:...]} suffixes ({@code full-jitter+breaker}): the run's clients then share one retry budget ({@link dev.backoff.spec.BudgetSpec#DEFAULT})
 * and one circuit breaker on the virtual clock, as callers of one service writing one row. Every attempt
 * (read and conditional write) asks the breaker first; a conflict is a failure, a write that lands a
 * success. A client whose retry the budget or the breaker refuses gives up without writing, and the
 * completion time is then until every client has written or given up; {@link Row#gaveUp()} says how many
 * did. {@code +adaptive} and {@code +hedge} are refused: a conflict is not a throttling answer, and a hedged
 * conditional write would conflict with its own twin.
 */
public final class Contention {
  private Contention() {}

  /**
   * The strategies of the article (plus Polly's decorrelated V2), by their names in every command, in the
   * order they are reported.
   */
  public static final List<String> STRATEGIES =
      List.of("none", "exponential", "full-jitter", "equal-jitter", "decorrelated", "decorrelated-v2");

  /** The largest client count of one row. */
  static final int MAX_CLIENTS = 100_000;

  /** Keys, defaults and meanings, as for {@link Scenario}. */
  private static final Map<String, Object> DEFAULTS = new LinkedHashMap<>();

  static {
    DEFAULTS.put("clients", "10,30,50,70,90,110,130,150,170,190");
    DEFAULTS.put("runs", 30L);
    DEFAULTS.put("base", "5ms");
    DEFAULTS.put("cap", "2s");
    DEFAULTS.put("max-attempts", "unlimited");
    DEFAULTS.put("network-mean", "10ms");
    DEFAULTS.put("network-deviation", "2ms");
    DEFAULTS.put("strategies", String.join(",", STRATEGIES));
    DEFAULTS.put("seed", 3L);
  }

  /** The keys of the contention scenario with their defaults (flags and scenario-file keys alike). */
  public static Map<String, Object> defaults() {
    return java.util.Collections.unmodifiableMap(DEFAULTS);
  }

  /**
   * One line of the result. Immutable and thread-safe.
   *
   * @param strategy the strategy's name
   * @param clients N
   * @param calls mean write calls per run
   * @param timeMs mean time until every client has written (or given up), in milliseconds
   * @param gaveUp mean clients per run that gave up without writing (a {@code +budget} or {@code +breaker}
   *     strategy's refusal; always 0 for the others)
   */
  public record Row(String strategy, int clients, double calls, double timeMs, double gaveUp) {
    /** A row in which no client gave up. */
    public Row(String strategy, int clients, double calls, double timeMs) {
      this(strategy, clients, calls, timeMs, 0);
    }
  }

  /**
   * The most write calls a run may be estimated to need: the work grows with the square of the clients
   * (without jitter every client collides with every other), and this is about a minute or two of work on
   * a small machine (0.5 µs per call). Beyond it a run is refused, naming the estimate.
   */
  public static final long MAX_ESTIMATED_CALLS = 200_000_000L;

  /**
   * Runs the scenario with these keys overriding {@link #defaults()}.
   *
   * @throws ScenarioException for an unknown key or a bad value, naming it, or if the estimated work is
   *     beyond {@link #MAX_ESTIMATED_CALLS}
   */
  public static List<Row> run(Map<String, ?> values) {
    return run(values, null);
  }

  /**
   * Runs the scenario, reporting progress as the permille (0 to 1000) of the estimated work done.
   *
   * @param progress receives the permille done, non-decreasing, 1000 at the end; may be null
   * @throws ScenarioException for an unknown key or a bad value, naming it, or if the estimated work is
   *     beyond {@link #MAX_ESTIMATED_CALLS}
   */
  public static List<Row> run(Map<String, ?> values, java.util.function.IntConsumer progress) {
    Map<String, Object> merged = new LinkedHashMap<>(DEFAULTS);
    for (Map.Entry<String, ?> entry : values.entrySet()) {
      if (!DEFAULTS.containsKey(entry.getKey())) {
        throw new ScenarioException(entry.getKey(), "unknown key '" + entry.getKey() + "'; known keys: "
            + String.join(", ", DEFAULTS.keySet()));
      }
      merged.put(entry.getKey(), entry.getValue());
    }
    List<Integer> clients = new ArrayList<>();
    for (String text : Scenario.asStrings(merged.get("clients"))) {
      clients.add((int) Values.wholeNumber("clients", text, 1, MAX_CLIENTS));
    }
    if (clients.isEmpty()) {
      throw new ScenarioException("clients", "at least one client count is needed");
    }
    long runs = Values.wholeNumber("runs", merged.get("runs"), 1, 1_000_000);
    long base = positive("base", merged);
    long cap = positive("cap", merged);
    if (cap < base) {
      throw new ScenarioException("cap", "must be at least base " + merged.get("base") + ", was " + merged.get("cap"));
    }
    long mean = positive("network-mean", merged);
    long deviation = Values.durationNanos("network-deviation", merged.get("network-deviation"));
    long seed = Values.wholeNumber("seed", merged.get("seed"), Long.MIN_VALUE, Long.MAX_VALUE);
    List<String> strategies = Scenario.asStrings(merged.get("strategies"));
    String attempts = String.valueOf(merged.get("max-attempts")).trim();
    int maxAttempts = attempts.equalsIgnoreCase("unlimited") ? Integer.MAX_VALUE
        : (int) Values.wholeNumber("max-attempts", merged.get("max-attempts"), 1, Integer.MAX_VALUE);
    List<RetryPolicy<Object>> shipped = new ArrayList<>();
    List<dev.backoff.spec.PolicySpec> specs = new ArrayList<>();
    for (String name : strategies) {
      dev.backoff.spec.PolicySpec spec = suffixes(name);
      specs.add(spec);
      shipped.add(policy(spec, Duration.ofNanos(base), Duration.ofNanos(cap), maxAttempts));
    }
    double total = 0;
    for (dev.backoff.spec.PolicySpec spec : specs) {
      for (int n : clients) {
        total += runs * estimatedCalls(spec.base(), n);
      }
    }
    if (total > MAX_ESTIMATED_CALLS) {
      throw new ScenarioException("clients", "about " + Values.format(total, 0) + " write calls estimated ("
          + runs + " runs of " + strategies.size() + " strategies at " + String.join(",", Scenario.asStrings(merged.get("clients")))
          + " clients; the work grows with the square of the clients), more than the limit of "
          + MAX_ESTIMATED_CALLS + "; use fewer or smaller client counts, fewer runs or fewer strategies");
    }
    double done = 0;
    List<Row> rows = new ArrayList<>();
    for (int s = 0; s < strategies.size(); s++) {
      dev.backoff.spec.PolicySpec spec = specs.get(s);
      for (int n : clients) {
        double calls = 0;
        double time = 0;
        double gaveUp = 0;
        for (long r = 0; r < runs; r++) {
          // A fresh budget and breaker per run, on the run's virtual clock.
          long[] clock = new long[1];
          RetryBudget budget = spec.withBudget()
              ? dev.backoff.spec.BudgetSpec.parse(dev.backoff.spec.BudgetSpec.DEFAULT).create(() -> clock[0]) : null;
          CircuitBreaker breaker = spec.breaker() == null ? null
              : spec.breaker().builder().name(spec.text()).clock(() -> clock[0]).build();
          RetryPolicy<Object> policy = shipped.get(s).toBuilder().budget(budget).circuitBreaker(breaker).build();
          // The same random stream for every strategy at (N, run): common random numbers.
          long[] outcome = runOnce(policy, n, mean, deviation, SplitMix64.stream(seed, n * 1_000_003L + r), clock);
          calls += outcome[0];
          time += outcome[1];
          gaveUp += outcome[2];
          if (progress != null) {
            done += estimatedCalls(spec.base(), n);
            progress.accept((int) Math.min(999, 1000 * done / total));
          }
        }
        rows.add(new Row(strategies.get(s), n, calls / runs, time / runs / 1e6, gaveUp / runs));
      }
    }
    if (progress != null) {
      progress.accept(1000);
    }
    return rows;
  }

  /**
   * An estimate from above of one run's write calls: {@code c·N² + 5N}, with {@code c} fitted to measured
   * runs (no backoff: 0.18 N² at N = 2000; no jitter: 0.15 at 190 and 0.06 at 2000; with jitter at most
   * 0.07, falling as N grows). The growth is at most quadratic, so the estimate only gets safer for large N.
   */
  static double estimatedCalls(String strategy, int clients) {
    double c = switch (strategy.toLowerCase(Locale.ROOT)) {
      case "none" -> 0.2;
      case "exponential" -> 0.15;
      default -> 0.07;
    };
    return c * clients * (double) clients + 5.0 * clients;
  }

  private static long positive(String key, Map<String, Object> values) {
    long nanos = Values.durationNanos(key, values.get(key));
    if (nanos == 0) {
      throw new ScenarioException(key, "must be positive, was " + values.get(key));
    }
    return nanos;
  }

  /** The strategy's suffixes, checked: only +budget and +breaker apply to the contention scenario. */
  private static dev.backoff.spec.PolicySpec suffixes(String name) {
    dev.backoff.spec.PolicySpec spec;
    try {
      spec = dev.backoff.spec.PolicySpec.parse(name);
    } catch (IllegalArgumentException e) {
      throw new ScenarioException("strategies", e.getMessage());
    }
    if (spec.adaptive() != null) {
      throw new ScenarioException("strategies", "strategy '" + name + "': +adaptive does not apply to contention "
          + "(a conflict is not a throttling answer); use +budget or +breaker");
    }
    if (spec.hedge() != null) {
      throw new ScenarioException("strategies", "strategy '" + name + "': +hedge does not apply to contention "
          + "(a hedged conditional write would conflict with its own twin); use +budget or +breaker");
    }
    if (spec.concurrency() != null) {
      throw new ScenarioException("strategies", "strategy '" + name + "': +concurrency is not modelled by the "
          + "contention scenario (its clients write one at a time each); use +budget or +breaker");
    }
    return spec;
  }

  /**
   * The policy a name means in every command ({@link dev.backoff.spec.PolicySpec#builder()}), with the
   * scenario's overrides, as {@code --initial}, {@code --cap} and {@code --max-attempts} are for {@code run}:
   * {@code base} and {@code cap} set the first delay and the cap of every strategy that takes them and does
   * not give its own; {@code max-attempts} (default unlimited: the article's clients write until they succeed)
   * applies to every policy.
   *
   * @throws ScenarioException for a name that is not a policy, or a bad parameter
   */
  public static RetryPolicy<Object> policy(dev.backoff.spec.PolicySpec spec, Duration base, Duration cap, int maxAttempts) {
    try {
      RetryPolicy.Builder<Object> builder;
      if (spec.experimentPolicy() != null) {
        builder = spec.builder();
      } else {
        dev.backoff.spec.BackoffSpec strategy = spec.resolvedStrategy()
            .withDefault("initial", Durations.format(base)).withDefault("cap", Durations.format(cap));
        builder = strategy.policy().name(spec.text());
      }
      return builder.maxAttempts(maxAttempts).maxSuppressed(0).build();
    } catch (IllegalArgumentException e) {
      throw new ScenarioException("strategies", e.getMessage());
    }
  }

  private static final int READ = 0; // the read reaches the row
  private static final int WRITE = 1; // the conditional write reaches the row
  private static final int RESULT = 2; // the write's outcome reaches the client

  /** One run without a budget or breaker: returns {write calls, completion time in nanoseconds, 0}. */
  static long[] runOnce(RetryPolicy<Object> policy, int clients, long mean, long deviation, SplitMix64 random) {
    return runOnce(policy, clients, mean, deviation, random, new long[1]);
  }

  /**
   * One run: returns {write calls, completion time in nanoseconds, clients that gave up}; {@code clock[0]}
   * is kept at the virtual time, for the policy's budget and breaker. Each client's write is one call driven
   * by the core's call state machine ({@link Engine#gate} or {@link Engine#timerFired} before a read, the
   * judged outcome through {@link Engine#firstAccepted}, {@link Engine#firstFailed} and {@link Engine#outcome});
   * the event queue carries out its waits.
   */
  static long[] runOnce(RetryPolicy<Object> policy, int clients, long mean, long deviation, SplitMix64 random,
      long[] clock) {
    NanoClock virtual = () -> clock[0];
    CircuitBreaker.Permit[] permits = policy.circuitBreaker() == null ? null : new CircuitBreaker.Permit[clients];
    long gaveUp = 0;
    EventQueue queue = new EventQueue();
    long[] readVersion = new long[clients];
    boolean[] succeeded = new boolean[clients];
    long[] startNanos = new long[clients];
    @SuppressWarnings({"unchecked", "rawtypes"}) // an array of a generic type: filled with CallState<Object> only
    CallState<Object>[] executions = new CallState[clients];
    for (int c = 0; c < clients; c++) {
      queue.schedule(delay(random, mean, deviation), READ, null, c);
    }
    long version = 0;
    long calls = 0;
    long finished = 0;
    int remaining = clients;
    while (remaining > 0) {
      queue.poll();
      long now = queue.time;
      clock[0] = now;
      int client = (int) queue.datum;
      CallState<Object> execution = executions[client];
      switch (queue.kind) {
        case READ: {
          // An attempt starts: the gate (the breaker; +adaptive is refused for contention) is asked first.
          CircuitBreaker.Permit permit = Engine.admit(policy);
          long effect;
          if (execution == null) {
            startNanos[client] = Engine.startNanos(policy, virtual);
            effect = Engine.gate(policy, startNanos[client], virtual, permit);
          } else {
            effect = Engine.timerFired(policy, execution, permit, virtual);
          }
          if (effect != Effect.START) { // refused: the client gives up without writing
            remaining--;
            gaveUp++;
            finished = now;
            break;
          }
          if (permits != null) {
            permits[client] = permit;
          }
          readVersion[client] = version;
          // The version travels back, then the write travels to the row.
          queue.schedule(now + delay(random, mean, deviation) + delay(random, mean, deviation), WRITE, null, client);
          break;
        }
        case WRITE:
          calls++;
          if (version == readVersion[client]) {
            version++;
            succeeded[client] = true;
          } else {
            succeeded[client] = false;
          }
          queue.schedule(now + delay(random, mean, deviation), RESULT, null, client);
          break;
        default: {
          CircuitBreaker.Permit permit = permits == null ? null : permits[client];
          Throwable failure = succeeded[client] ? null : PolicySpec.ERROR; // a conflict fails the write
          Verdict verdict = Engine.judge(policy, null, null, failure);
          long effect;
          if (execution == null && verdict == Verdict.ACCEPT) {
            effect = Engine.firstAccepted(policy, null, startNanos[client], virtual, permit);
          } else {
            if (execution == null) {
              execution = Engine.firstFailed(policy, startNanos[client], now, random, permit);
              executions[client] = execution;
            }
            effect = Engine.outcome(execution, null, failure, verdict, now, permit);
          }
          if (Effect.isWait(effect)) {
            queue.schedule(now + effect + delay(random, mean, deviation), READ, null, client);
            break;
          }
          if (effect != Effect.SUCCEEDED) { // only a budget or a breaker stops an unlimited policy
            gaveUp++;
          }
          remaining--;
          finished = now;
        }
      }
    }
    return new long[] {calls, finished, gaveUp};
  }

  private static long delay(SplitMix64 random, long mean, long deviation) {
    return (long) Math.abs(mean + deviation * random.nextStandardNormal());
  }

  /**
   * {@code {"results":[{"strategy":…,"clients":…,"calls":…,"timeMs":…},…]}}; a row of a {@code +budget} or
   * {@code +breaker} strategy adds {@code "gaveUp":…}.
   */
  public static String json(List<Row> rows) {
    Json json = Json.lines().object().field("results").array();
    for (Row row : rows) {
      json.object().field("strategy").string(row.strategy()).field("clients").number(row.clients())
          .field("calls").decimal(row.calls(), 3).field("timeMs").decimal(row.timeMs(), 3);
      if (mayGiveUp(row)) {
        json.field("gaveUp").decimal(row.gaveUp(), 3);
      }
      json.endObject();
    }
    return json.endArray().endObject() + "\n";
  }

  /** One CSV line per strategy and N; a last column {@code gaveUp} if a strategy has +budget or +breaker. */
  public static String csv(List<Row> rows) {
    boolean gaveUp = rows.stream().anyMatch(Contention::mayGiveUp);
    StringBuilder out = new StringBuilder("strategy,clients,calls,timeMs" + (gaveUp ? ",gaveUp" : "") + "\n");
    for (Row row : rows) {
      out.append(row.strategy().contains(",") ? '"' + row.strategy() + '"' : row.strategy()).append(',')
          .append(row.clients()).append(',').append(Values.format(row.calls(), 3))
          .append(',').append(Values.format(row.timeMs(), 3));
      if (gaveUp) {
        out.append(',').append(Values.format(row.gaveUp(), 3));
      }
      out.append('\n');
    }
    return out.toString();
  }

  /** Whether the row's strategy may give up (it has +budget or +breaker). */
  static boolean mayGiveUp(Row row) {
    return row.strategy().contains("+");
  }

  /**
   * A table: one row per N, calls and time per strategy, and the clients that gave up if a strategy has
   * +budget or +breaker.
   */
  public static String table(List<Row> rows) {
    List<String> strategies = new ArrayList<>();
    List<Integer> clients = new ArrayList<>();
    for (Row row : rows) {
      if (!strategies.contains(row.strategy())) {
        strategies.add(row.strategy());
      }
      if (!clients.contains(row.clients())) {
        clients.add(row.clients());
      }
    }
    StringBuilder out = new StringBuilder();
    List<String> metrics = rows.stream().anyMatch(Contention::mayGiveUp)
        ? List.of("mean write calls", "mean completion time (ms)", "mean clients that gave up")
        : List.of("mean write calls", "mean completion time (ms)");
    for (String metric : metrics) {
      out.append(metric).append('\n').append(String.format(Locale.ROOT, "%8s", "clients"));
      for (String s : strategies) {
        out.append(String.format(Locale.ROOT, "%16s", s));
      }
      out.append('\n');
      for (int n : clients) {
        out.append(String.format(Locale.ROOT, "%8d", n));
        for (String s : strategies) {
          for (Row row : rows) {
            if (row.clients() == n && row.strategy().equals(s)) {
              double value = metric.startsWith("mean write") ? row.calls()
                  : metric.startsWith("mean completion") ? row.timeMs() : row.gaveUp();
              out.append(String.format(Locale.ROOT, "%16s", Values.format(value, 1)));
            }
          }
        }
        out.append('\n');
      }
      out.append('\n');
    }
    return out.toString();
  }
}
