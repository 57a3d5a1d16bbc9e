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
  static final int ATTEMPT_STARTED = 4;
  static final int ATTEMPT_FINISHED = 5;
  static final int HEDGE_SENT = 6;
  static final int HEDGE_WON = 7;

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
          case ATTEMPT_STARTED -> listener.onAttemptStarted(event);
          case ATTEMPT_FINISHED -> listener.onAttemptFinished(event);
          case HEDGE_SENT -> listener.onHedgeSent(event);
          case HEDGE_WON -> listener.onHedgeWon(event);
          default -> listener.onAborted(event);
        }
      } catch (VirtualMachineError fatal) {
        throw fatal; // out of memory, stack overflow: the JVM's state is in doubt, nothing to isolate
      } catch (Throwable e) {
        report(listener, e);
      }
    }
  }

  /** The listeners that override an attempt event's method: only they are sent attempt events. */
  static <R> RetryListener<R>[] attemptListeners(RetryListener<R>[] listeners) {
    int count = 0;
    RetryListener<R>[] hearing = listeners.clone();
    for (RetryListener<R> listener : listeners) {
      if (overrides(listener, "onAttemptStarted") || overrides(listener, "onAttemptFinished")) {
        hearing[count++] = listener;
      }
    }
    return java.util.Arrays.copyOf(hearing, count);
  }

  private static boolean overrides(RetryListener<?> listener, String method) {
    try {
      return listener.getClass().getMethod(method, RetryEvent.class).getDeclaringClass() != RetryListener.class;
    } catch (NoSuchMethodException impossible) {
      return true; // every listener has the interface's method; if it cannot be found, send the events
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
