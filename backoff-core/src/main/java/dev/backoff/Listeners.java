package dev.backoff;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Tells a policy's listeners about an event, one by one. A listener that throws anything but a
 * {@link VirtualMachineError} (an {@code AssertionError} too) is skipped: it never changes a call's outcome,
 * never reaches the code that triggered the event (an executor, {@code future.cancel}), and never keeps the
 * other listeners from hearing. The first such failure in the JVM is logged at WARNING, later ones at DEBUG,
 * so a listener that throws on every event cannot flood the log. Callers build the event only when there are
 * listeners.
 */
final class Listeners {
  static final int RETRY_SCHEDULED = 0;
  static final int SUCCESS = 1;
  static final int EXHAUSTED = 2;
  static final int ABORTED = 3;

  private static final AtomicBoolean WARNED = new AtomicBoolean();

  private Listeners() {}

  /** {@link #EXHAUSTED} or {@link #ABORTED}, as listeners see a stop for this reason. */
  static int stop(StopReason reason) {
    return reason.isExhaustion() ? EXHAUSTED : ABORTED;
  }

  static <R> void tell(RetryListener<R>[] listeners, int kind, RetryEvent<R> event) {
    for (RetryListener<R> listener : listeners) {
      try {
        switch (kind) {
          case RETRY_SCHEDULED -> listener.onRetryScheduled(event);
          case SUCCESS -> listener.onSuccess(event);
          case EXHAUSTED -> listener.onExhausted(event);
          default -> listener.onAborted(event);
        }
      } catch (VirtualMachineError fatal) {
        throw fatal; // out of memory, stack overflow: the JVM's state is in doubt, nothing to isolate
      } catch (Throwable e) {
        report(listener, e);
      }
    }
  }

  private static void report(RetryListener<?> listener, Throwable e) {
    try {
      System.Logger.Level level = WARNED.compareAndSet(false, true)
          ? System.Logger.Level.WARNING : System.Logger.Level.DEBUG;
      System.getLogger(RetryListener.class.getName())
          .log(level, "retry listener " + listener + " threw; ignored", e);
    } catch (VirtualMachineError fatal) {
      throw fatal;
    } catch (Throwable loggingFailed) {
      // A broken logger (or listener toString) must not undo the isolation either.
    }
  }
}
