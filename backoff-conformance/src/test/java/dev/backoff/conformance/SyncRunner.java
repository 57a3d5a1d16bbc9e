package dev.backoff.conformance;

import dev.backoff.RetryExecutor;
import dev.backoff.Sleeper;
import dev.backoff.StopReason;
import dev.backoff.testing.FakeClock;
import java.time.Duration;

/**
 * The blocking executor ({@link RetryExecutor}): sleeps move a fake clock; a caller stopping the call
 * mid-backoff is an interrupt during the sleep.
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
    RetryExecutor<String> executor = RetryExecutor.of(trial.policy(clock)).withSleeper(sleeper);
    try {
      return Outcome.of(executor.call(trial::attempt));
    } catch (Exception failure) {
      return Outcome.failed(failure);
    } finally {
      Thread.interrupted(); // the executor sets the flag again when interrupted: clear it for the next test
    }
  }
}
