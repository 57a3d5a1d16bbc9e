package dev.backoff.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import java.util.function.LongConsumer;

/**
 * Runs many independent simulations in parallel: a list of {@linkplain Task tasks} (a scenario, one policy,
 * one seed each) on a number of threads, with the results in task order. The runs share nothing (each has
 * its own clients, server, budget and random streams), and each is single-threaded and deterministic, so the
 * results are identical for any thread count: only the wall time changes.
 *
 * <pre>{@code
 * List<Runs.Task> tasks = Runs.seeds(Scenario.defaults(), 20);   // every policy over seeds 3..22
 * List<PolicyResult> results = Runs.run(tasks, Runs.defaultThreads(), null);
 * }</pre>
 *
 * <p>Before anything runs, the heap is checked for the worst case of the runs that may be in flight at once
 * (the {@code threads} largest worst-case estimates, each as for a single run: a storm in which the server
 * stops answering) plus every result kept until the end; a plan that does not fit is refused with a
 * {@link ScenarioException} that says how many threads would fit.
 *
 * <p>Interruption: a thread interrupted while waiting in {@link #run} stops every run (each checks once per
 * simulated second), waits for the workers to finish, and throws {@link InterruptedException}; no run starts
 * after that. A run that fails stops the others the same way, and its exception is rethrown.
 *
 * <p>Stateless and thread-safe; each call uses threads of its own, which end before it returns.
 */
public final class Runs {
  private Runs() {}

  /**
   * One run to make: a scenario with exactly one policy and a seed. Immutable and thread-safe.
   */
  public static final class Task {
    private final Scenario scenario;
    private final String policy;
    private final long seed;
    final Scenario run;

    private Task(Scenario scenario, String policy, long seed, Scenario run) {
      this.scenario = scenario;
      this.policy = policy;
      this.seed = seed;
      this.run = run;
    }

    /** The scenario as given (its own {@code policies} and {@code seed} are replaced for this run). */
    public Scenario scenario() {
      return scenario;
    }

    /** The policy, in the policy grammar ({@code full-jitter:100ms:20s+budget}). */
    public String policy() {
      return policy;
    }

    /** The random seed of this run. */
    public long seed() {
      return seed;
    }

    /** The scenario this task runs: the given one with only this policy and this seed. */
    public Scenario runScenario() {
      return run;
    }

    @Override
    public String toString() {
      return policy + " seed " + seed;
    }
  }

  /**
   * A task: {@code scenario} run with only {@code policy} (which need not be one of the scenario's own) and
   * {@code seed}.
   *
   * @throws NullPointerException if {@code scenario} or {@code policy} is null
   * @throws ScenarioException if the policy is not a valid policy spec (naming {@code policies})
   */
  public static Task task(Scenario scenario, String policy, long seed) {
    Objects.requireNonNull(scenario, "scenario");
    Objects.requireNonNull(policy, "policy");
    Map<String, Object> values = new LinkedHashMap<>();
    values.put("policies", List.of(policy));
    values.put("seed", seed);
    return new Task(scenario, policy, seed, scenario.with(values));
  }

  /**
   * Every policy of the scenario over {@code seeds} seeds: seed {@code i} (from 0) is the scenario's seed
   * plus {@code i}, so {@code seeds(s, 1)} is the scenario's own run. Tasks are ordered by policy (in
   * scenario order), then by seed.
   *
   * @throws NullPointerException if {@code scenario} is null
   * @throws ScenarioException naming {@code seeds} if it is less than 1, or if the last seed would overflow
   *     a long
   */
  public static List<Task> seeds(Scenario scenario, int seeds) {
    Objects.requireNonNull(scenario, "scenario");
    checkSeeds(scenario, seeds);
    List<Task> tasks = new ArrayList<>(scenario.policies.size() * seeds);
    for (PolicySpec spec : scenario.policies) {
      for (int i = 0; i < seeds; i++) {
        tasks.add(task(scenario, spec.name, scenario.seed + i));
      }
    }
    return List.copyOf(tasks);
  }

  static void checkSeeds(Scenario scenario, int seeds) {
    if (seeds < 1) {
      throw new ScenarioException("seeds", "must be at least 1, was " + seeds);
    }
    try {
      Math.addExact(scenario.seed, seeds - 1L);
    } catch (ArithmeticException e) {
      throw new ScenarioException("seeds", seeds + " seeds from seed " + scenario.seed
          + " would pass the largest seed, " + Long.MAX_VALUE + "; use a smaller seed");
    }
  }

  /** The default thread count: the processors available to this JVM. */
  public static int defaultThreads() {
    return Runtime.getRuntime().availableProcessors();
  }

  /** Simulated seconds over all tasks: the total a progress callback counts up to. */
  public static long totalSeconds(List<Task> tasks) {
    long total = 0;
    for (Task task : tasks) {
      total += task.run.seconds();
    }
    return total;
  }

  /**
   * Runs every task and returns its result (with its per-second series), in task order.
   *
   * @param tasks the runs; not null, no null element
   * @param threads how many runs at once, at least 1 (more than the tasks is the same as one per task)
   * @param progress receives the simulated seconds completed over all runs, rising to
   *     {@link #totalSeconds}; called from the worker threads but never concurrently, so it needs no
   *     synchronisation of its own; may be null
   * @throws IllegalArgumentException naming {@code threads} if it is less than 1
   * @throws ScenarioException if the runs could need more heap than this JVM has (before anything runs), or
   *     a run fails for a reason of its scenario
   * @throws InterruptedException if the calling thread is interrupted; every run is stopped first
   */
  public static List<PolicyResult> run(List<Task> tasks, int threads, LongConsumer progress)
      throws InterruptedException {
    checkArguments(tasks, threads);
    checkMemory(tasks, threads, true);
    return map(tasks, threads, progress, (task, seconds) -> Simulator.runOne(task.run, task.run.policies.get(0),
        seconds, 0));
  }

  /**
   * Runs every task and returns only its {@link Summary}, in task order: the per-second series are dropped
   * as each run ends, so many runs need little heap beyond the ones in flight. Otherwise as {@link #run}.
   *
   * @throws IllegalArgumentException naming {@code threads} if it is less than 1
   * @throws ScenarioException if the runs in flight could need more heap than this JVM has, or a run fails
   * @throws InterruptedException if the calling thread is interrupted; every run is stopped first
   */
  public static List<Summary> summaries(List<Task> tasks, int threads, LongConsumer progress)
      throws InterruptedException {
    checkArguments(tasks, threads);
    checkMemory(tasks, threads, false);
    return map(tasks, threads, progress, (task, seconds) -> Simulator.runOne(task.run, task.run.policies.get(0),
        seconds, 0).summary());
  }

  /** As {@link #summaries}, with each run's storm-protection numbers taken from its series before they go. */
  static List<Confidence.Run> summariesWithProtection(List<Task> tasks, int threads, LongConsumer progress)
      throws InterruptedException {
    checkArguments(tasks, threads);
    checkMemory(tasks, threads, false);
    return map(tasks, threads, progress, (task, seconds) -> {
      PolicyResult result = Simulator.runOne(task.run, task.run.policies.get(0), seconds, 0);
      return new Confidence.Run(result.summary(), ProtectionSummary.of(task.run, result));
    });
  }

  private static void checkArguments(List<Task> tasks, int threads) {
    Objects.requireNonNull(tasks, "tasks");
    for (Task task : tasks) {
      Objects.requireNonNull(task, "a task is null");
    }
    checkThreads(threads);
  }

  static void checkThreads(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, was " + threads);
    }
  }

  /**
   * Refuses a plan whose runs in flight (the {@code threads} largest worst cases) and kept results cannot fit
   * in the heap, saying how many threads would.
   */
  static void checkMemory(List<Task> tasks, int threads, boolean keepSeries) {
    if (tasks.isEmpty()) {
      return;
    }
    long[] worst = new long[tasks.size()];
    long kept = 0;
    for (int i = 0; i < worst.length; i++) {
      Scenario run = tasks.get(i).run;
      worst[i] = MemoryEstimate.estimate(run, run.policies.get(0))[0];
      kept = saturatedAdd(kept, keepSeries ? (long) run.seconds() * MemoryEstimate.BYTES_PER_SECOND
          : SUMMARY_BYTES);
    }
    Arrays.sort(worst);
    long usable = MemoryEstimate.usableBytes();
    long inFlight = 0;
    int fit = 0;
    int concurrent = Math.min(threads, worst.length);
    for (int k = 0; k < concurrent; k++) {
      inFlight = saturatedAdd(inFlight, worst[worst.length - 1 - k]);
      if (saturatedAdd(inFlight, kept) <= usable) {
        fit = k + 1;
      }
    }
    long total = saturatedAdd(inFlight, kept);
    if (total <= usable) {
      return;
    }
    long max = Runtime.getRuntime().maxMemory();
    String advice = fit >= 1
        ? "use at most " + fit + (fit == 1 ? " thread" : " threads")
        : "use fewer clients, a lower rate, a shorter duration or fewer runs";
    throw new ScenarioException(fit >= 1 ? "threads" : "clients", tasks.size() + " runs, " + concurrent
        + " at a time, may need about " + (total >> 20) + " MiB of heap (the largest run alone up to "
        + (worst[worst.length - 1] >> 20) + " MiB, and " + (kept >> 20) + " MiB of results kept), more than this "
        + "JVM can give them (" + (usable >> 20) + " of " + (max >> 20) + " MiB); " + advice
        + ", or raise the heap: BACKOFF_JAVA_OPTS=-Xmx"
        + Math.max(1, (long) Math.ceil(total / MemoryEstimate.USABLE_HEAP / (1L << 30)) + 1) + "g");
  }

  /** What one kept summary costs (the record, its boxed recovery time and its protection numbers), rounded up. */
  static final long SUMMARY_BYTES = 256;

  /** One unit of work for {@link #map}: its result, reporting simulated seconds completed of this unit. */
  interface Job<T, R> {
    R apply(T input, IntConsumer secondsCompleted);
  }

  /** Thrown inside a run, from its progress callback, to stop it. */
  private static final class Stopped extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Stopped() {
      super("stopped", null, false, false);
    }
  }

  /**
   * Applies {@code job} to every input on {@code threads} threads, results in input order. The job's progress
   * callback must be called from the thread that runs it; it throws to stop the job when the whole map is
   * stopped (interrupted, or another job failed).
   */
  static <T, R> List<R> map(List<T> inputs, int threads, LongConsumer progress, Job<T, R> job)
      throws InterruptedException {
    int n = inputs.size();
    Object[] results = new Object[n];
    if (n == 0) {
      return List.of();
    }
    Shared shared = new Shared(progress);
    int workers = Math.min(threads, n);
    if (workers == 1) {
      Thread caller = Thread.currentThread();
      try {
        for (int i = 0; i < n; i++) {
          if (caller.isInterrupted()) {
            throw new Stopped();
          }
          results[i] = runOne(inputs.get(i), job, shared, caller);
        }
      } catch (Stopped stopped) {
        Thread.interrupted();
        throw new InterruptedException("runs interrupted");
      }
      return list(results);
    }
    AtomicInteger next = new AtomicInteger();
    Thread[] pool = new Thread[workers];
    for (int w = 0; w < workers; w++) {
      pool[w] = new Thread(() -> {
        Thread self = Thread.currentThread();
        try {
          for (int i = next.getAndIncrement(); i < n && !shared.stopped; i = next.getAndIncrement()) {
            results[i] = runOne(inputs.get(i), job, shared, self);
          }
        } catch (Stopped stopped) {
          // the map was stopped: nothing to record
        } catch (Throwable failure) {
          shared.fail(failure);
        }
      }, "backoff-sim-run-" + (w + 1));
      pool[w].setDaemon(true);
      pool[w].start();
    }
    try {
      for (Thread worker : pool) {
        worker.join();
      }
    } catch (InterruptedException interrupted) {
      shared.stopped = true;
      for (Thread worker : pool) {
        worker.interrupt();
      }
      for (Thread worker : pool) {
        joinUninterruptibly(worker);
      }
      throw interrupted;
    }
    Throwable failure = shared.failure;
    if (failure instanceof RuntimeException runtime) {
      throw runtime;
    }
    if (failure instanceof Error error) {
      throw error;
    }
    if (failure != null) {
      throw new IllegalStateException(failure);
    }
    return list(results);
  }

  private static <T, R> R runOne(T input, Job<T, R> job, Shared shared, Thread self) {
    int[] last = {0};
    R result = job.apply(input, completed -> {
      if (shared.stopped || self.isInterrupted()) {
        throw new Stopped();
      }
      int delta = completed - last[0];
      if (delta > 0) {
        last[0] = completed;
        shared.advance(delta);
      }
    });
    if (shared.stopped || self.isInterrupted()) {
      throw new Stopped();
    }
    return result;
  }

  private static void joinUninterruptibly(Thread thread) {
    boolean interrupted = false;
    while (true) {
      try {
        thread.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  @SuppressWarnings("unchecked")
  private static <R> List<R> list(Object[] results) {
    List<R> list = new ArrayList<>(results.length);
    for (Object result : results) {
      list.add((R) result);
    }
    return java.util.Collections.unmodifiableList(list);
  }

  /** State shared by one map's workers. */
  private static final class Shared {
    private final LongConsumer progress;
    private final AtomicLong completed = new AtomicLong();
    private long reported;
    volatile boolean stopped;
    volatile Throwable failure;

    Shared(LongConsumer progress) {
      this.progress = progress;
    }

    void advance(long seconds) {
      long total = completed.addAndGet(seconds);
      if (progress != null) {
        synchronized (this) {
          if (total > reported) {
            reported = total;
            progress.accept(total);
          }
        }
      }
    }

    synchronized void fail(Throwable t) {
      if (failure == null) {
        failure = t;
      }
      stopped = true;
    }
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }
}
