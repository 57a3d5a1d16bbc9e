package dev.backoff.conformance;

import dev.backoff.Recovery;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryPolicy;
import dev.backoff.RetryScheduler;
import dev.backoff.Sleeper;
import dev.backoff.StopReason;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * The blocking executor ({@link RetryExecutor}): sleeps move a fake clock; a caller stopping the call
 * mid-backoff is an interrupt during the sleep. A policy with an attempt timeout runs with
 * {@code interruptOnAttemptTimeout(true)}, its watchdogs on a fake scheduler; an attempt that never completes
 * blocks, moving virtual time, until the watchdog interrupts it.
 */
final class SyncRunner implements DriverRunner {
  @Override
  public String name() {
    return "sync";
  }

  @Override
  public StopReason callerStop() {
    return StopReason.INTERRUPTED;
  }

  @Override
  public Map<Mechanism, String> refusals() {
    // The core's blocking executor refuses a hedging policy when the call starts (RetryExecutor.call).
    return Map.of(Mechanism.HEDGING, "a synchronous call cannot hedge");
  }

  @Override
  public Outcome run(Trial trial) {
    FakeClock clock = new FakeClock();
    Duration cancelAfter = trial.cancelAfter();
    Sleeper sleeper = nanos -> {
      if (cancelAfter != null && clock.nanoTime() + nanos > cancelAfter.toNanos()) {
        clock.advanceNanos(cancelAfter.toNanos() - clock.nanoTime());
        throw new InterruptedException("the caller interrupted the sleep");
      }
      clock.advanceNanos(nanos);
    };
    FakeScheduler watchdogs = new FakeScheduler(clock);
    RetryPolicy<String> policy = trial.policy(clock);
    if (policy.attemptTimeout() != null) {
      policy = policy.toBuilder().interruptOnAttemptTimeout(true).build();
    }
    RetryExecutor<String> executor = RetryExecutor.of(policy).withSleeper(sleeper)
        .withScheduler(RetryScheduler.of(watchdogs));
    try {
      Callable<String> attempt = () -> {
        try {
          return trial.attempt();
        } catch (Trial.Hang hang) {
          return block(watchdogs, trial);
        }
      };
      Recovery<String> recovery = trial.recovery();
      return Outcome.of(recovery == null ? executor.call(attempt) : executor.call(attempt, recovery));
    } catch (Exception failure) {
      return Outcome.failed(failure);
    } finally {
      Thread.interrupted(); // the executor sets the flag again when interrupted: clear it for the next test
    }
  }

  /**
   * An attempt blocked until its thread is interrupted: virtual time passes (running the watchdog when it is
   * due, on this thread) until the interrupt arrives, or fails the row after an hour without one.
   */
  private static String block(FakeScheduler watchdogs, Trial trial) throws InterruptedException {
    for (int ms = 0; ms < 3_600_000; ms++) {
      if (Thread.interrupted()) {
        trial.attemptCancelled();
        throw new InterruptedException("the attempt was interrupted");
      }
      watchdogs.advance(Duration.ofMillis(1));
    }
    throw new AssertionError("the blocked attempt was not interrupted within an hour");
  }
}
