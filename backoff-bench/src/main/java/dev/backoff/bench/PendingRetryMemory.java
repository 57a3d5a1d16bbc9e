package dev.backoff.bench;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.Hedging;
import dev.backoff.RetryPolicy;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Measures the heap each pending asynchronous retry holds: starts {@value #DEFAULT_CALLS} calls whose first
 * attempt fails and whose retry is scheduled an hour ahead, then compares the heap used after a full GC
 * with the heap used before. The caller keeps each returned future (it would in use), so the figure is
 * everything a waiting call retains: the future, the library's per-call state, and the scheduler's entry.
 * The failed stage and its exception are shared by all calls, so they are not counted.
 *
 * <p>{@value #BACKOFF_HEDGED} measures a pending hedged call instead: under a policy hedging at once
 * ({@code Hedging.after(0)}, 3 attempts), each call has its original attempt and 2 hedges in flight, on one
 * shared stage that never completes (so the figure is the call's own state and its three callbacks on that
 * stage, not a client's request), and no task left in the scheduler.
 *
 * <p>Run with {@code -XX:+UseSerialGC} for the most exact accounting (bench/run does). Usage:
 * {@code java -cp benchmarks.jar dev.backoff.bench.PendingRetryMemory [calls] [library...]}.
 */
public final class PendingRetryMemory {
  static final int DEFAULT_CALLS = 100_000;
  /** The pseudo-library for a hedged call with 2 hedges in flight. */
  static final String BACKOFF_HEDGED = "backoff-hedged";
  private static final CompletableFuture<String> FAILED = AsyncRetryBenchmark.FAILED;

  private PendingRetryMemory() {}

  /** The outcome of one measurement. */
  record Result(String library, int calls, long bytes, int queued) {
    double bytesPerCall() {
      return (double) bytes / calls;
    }
  }

  public static void main(String[] args) throws InterruptedException {
    if (args.length > 0 && args[0].equals("--help")) {
      System.out.println("usage: PendingRetryMemory [calls] [library...]");
      return;
    }
    int calls = args.length > 0 ? Integer.parseInt(args[0]) : DEFAULT_CALLS;
    List<String> libraries = args.length > 1 ? List.of(args).subList(1, args.length)
        : List.of(AsyncLibraries.BACKOFF, AsyncLibraries.RESILIENCE4J, AsyncLibraries.FAILSAFE,
            AsyncLibraries.BACKOFF_REACTOR, AsyncLibraries.REACTOR_RETRY, AsyncLibraries.BACKOFF_KOTLIN,
            BACKOFF_HEDGED);
    System.out.printf(Locale.ROOT, "%nMemory per pending retry (%d calls pending, retry due in 1 h)%n", calls);
    System.out.printf(Locale.ROOT, "%-14s %12s %16s%n", "library", "bytes", "bytes/pending");
    for (String library : libraries) {
      measure(library, Math.max(1_000, calls / 10)); // warm up class loading and the scheduler's queue
      Result result = measure(library, calls);
      System.out.printf(Locale.ROOT, "%-14s %12d %16.1f%n", library, result.bytes(), result.bytesPerCall());
    }
  }

  /**
   * Starts {@code calls} calls of {@code library} that wait for their retry, measures, and cancels them.
   *
   * @throws IllegalStateException if not every call has exactly one retry pending in the scheduler
   */
  static Result measure(String library, int calls) throws InterruptedException {
    if (library.equals(BACKOFF_HEDGED)) {
      return measureHedged(calls);
    }
    ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    scheduler.setRemoveOnCancelPolicy(true);
    try {
      AsyncLibraries.AsyncInvocation invocation =
          AsyncLibraries.wrap(library, scheduler, 2, Duration.ofHours(1), () -> FAILED);
      CompletableFuture<?>[] futures = new CompletableFuture<?>[calls];
      long before = usedHeapAfterGc();
      for (int i = 0; i < calls; i++) {
        futures[i] = invocation.start();
      }
      // Some libraries (Failsafe) run even the first attempt on the scheduler: wait until every call has
      // reached its pending retry.
      long deadline = System.nanoTime() + 30_000_000_000L;
      int settled = 0;
      while (settled < 2 && System.nanoTime() < deadline) {
        Thread.sleep(20);
        settled = allRetriesPending(scheduler, calls) ? settled + 1 : 0;
      }
      long after = usedHeapAfterGc();
      int queued = scheduler.getQueue().size();
      for (CompletableFuture<?> future : futures) {
        if (future.isDone()) {
          throw new IllegalStateException(library + ": a call completed instead of waiting for its retry");
        }
      }
      if (queued != calls) {
        int done = 0;
        for (CompletableFuture<?> future : futures) {
          done += future.isDone() ? 1 : 0;
        }
        throw new IllegalStateException(library + ": " + queued + " retries queued for " + calls + " calls ("
            + done + " done, " + scheduler.getActiveCount() + " running, " + scheduler.getCompletedTaskCount()
            + " tasks completed)");
      }
      for (CompletableFuture<?> future : futures) {
        future.cancel(false);
      }
      return new Result(library, calls, after - before, queued);
    } finally {
      scheduler.shutdownNow();
    }
  }

  /**
   * Starts {@code calls} hedged calls that each end up with 3 attempts in flight on a stage that never
   * completes, measures, and cancels them.
   *
   * @throws IllegalStateException if a call completed, or the hedges did not all start
   */
  static Result measureHedged(int calls) throws InterruptedException {
    ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    scheduler.setRemoveOnCancelPolicy(true);
    CompletableFuture<String> never = new CompletableFuture<>();
    try {
      AsyncRetryExecutor<String> executor = AsyncRetryExecutor.of(RetryPolicy.<String>builder()
          .maxAttempts(3)
          .hedging(Hedging.after(Duration.ZERO))
          .build(), scheduler);
      AtomicLong attempts = new AtomicLong();
      Supplier<CompletionStage<String>> attempt = () -> {
        attempts.incrementAndGet();
        return never;
      };
      CompletableFuture<?>[] futures = new CompletableFuture<?>[calls];
      long before = usedHeapAfterGc();
      for (int i = 0; i < calls; i++) {
        futures[i] = executor.call(attempt);
      }
      long deadline = System.nanoTime() + 30_000_000_000L;
      while ((attempts.get() < 3L * calls || scheduler.getQueue().size() > 0 || scheduler.getActiveCount() > 0)
          && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      long after = usedHeapAfterGc();
      int queued = scheduler.getQueue().size();
      if (attempts.get() != 3L * calls || queued != 0) {
        throw new IllegalStateException(BACKOFF_HEDGED + ": " + attempts.get() + " attempts started for " + calls
            + " calls (3 each expected), " + queued + " tasks queued");
      }
      for (CompletableFuture<?> future : futures) {
        if (future.isDone()) {
          throw new IllegalStateException(BACKOFF_HEDGED + ": a call completed instead of waiting");
        }
      }
      long bytes = after - before;
      for (CompletableFuture<?> future : futures) {
        future.cancel(false);
      }
      return new Result(BACKOFF_HEDGED, calls, bytes, 0);
    } finally {
      scheduler.shutdownNow();
    }
  }

  /** True when the scheduler holds exactly {@code calls} tasks, all of them retries an hour ahead. */
  private static boolean allRetriesPending(ScheduledThreadPoolExecutor scheduler, int calls) {
    if (scheduler.getActiveCount() != 0 || scheduler.getQueue().size() != calls) {
      return false;
    }
    for (Runnable task : scheduler.getQueue()) {
      if (((Delayed) task).getDelay(TimeUnit.MINUTES) < 30) {
        return false; // a first attempt some libraries run on the scheduler
      }
    }
    return true;
  }

  private static long usedHeapAfterGc() {
    long used = Long.MAX_VALUE;
    // Repeat until the figure settles: one System.gc() may leave garbage that a second collects.
    for (int i = 0; i < 5; i++) {
      System.gc();
      long now = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      if (now >= used) {
        return now;
      }
      used = now;
    }
    return used;
  }
}
