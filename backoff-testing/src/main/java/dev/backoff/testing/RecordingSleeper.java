package dev.backoff.testing;

import dev.backoff.Sleeper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A sleeper that returns at once, records every requested sleep, and (if given a {@link FakeClock})
 * advances that clock by the sleep, so retry code runs in zero real time. It honours interruption like a
 * real sleeper: an interrupted thread gets an {@link InterruptedException} and no sleep is recorded.
 * Thread-safe.
 */
public final class RecordingSleeper implements Sleeper {
  private final FakeClock clock;
  private final List<Long> sleeps = new ArrayList<>();
  private int interruptAfter = -1;

  /** A sleeper that advances no clock. */
  public RecordingSleeper() {
    this(null);
  }

  /** A sleeper that advances {@code clock} by each sleep. */
  public RecordingSleeper(FakeClock clock) {
    this.clock = clock;
  }

  /**
   * Makes sleep number {@code count + 1} (counting from 1) throw {@link InterruptedException}, as if the
   * thread were interrupted during it; the earlier ones succeed.
   */
  public synchronized RecordingSleeper interruptAfter(int count) {
    this.interruptAfter = count;
    return this;
  }

  @Override
  public void sleep(long nanos) throws InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException("interrupted before sleeping " + nanos + " ns");
    }
    synchronized (this) {
      if (interruptAfter >= 0 && sleeps.size() == interruptAfter) {
        throw new InterruptedException("scripted interruption during sleep " + (sleeps.size() + 1));
      }
      sleeps.add(nanos);
    }
    if (clock != null && nanos > 0) {
      clock.advanceNanos(nanos);
    }
  }

  /** The sleeps requested so far, in order. */
  public synchronized List<Duration> sleeps() {
    List<Duration> result = new ArrayList<>(sleeps.size());
    for (long nanos : sleeps) {
      result.add(Duration.ofNanos(nanos));
    }
    return result;
  }

  /** The sleeps requested so far, in nanoseconds. */
  public synchronized List<Long> sleepNanos() {
    return List.copyOf(sleeps);
  }

  /** The sum of all sleeps requested so far (exact: it may exceed {@link Long#MAX_VALUE} nanoseconds). */
  public synchronized Duration total() {
    Duration sum = Duration.ZERO;
    for (long nanos : sleeps) {
      sum = sum.plusNanos(nanos); // a long sum could wrap negative after sleeps near Long.MAX_VALUE
    }
    return sum;
  }
}
