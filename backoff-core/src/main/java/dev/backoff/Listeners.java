package dev.backoff;

/**
 * Tells a policy's listeners about an event, one by one; a listener that throws is logged and skipped, so it
 * never changes a call's outcome nor keeps the other listeners from hearing. Callers build the event only
 * when there are listeners.
 */
final class Listeners {
  static final int RETRY_SCHEDULED = 0;
  static final int SUCCESS = 1;
  static final int EXHAUSTED = 2;
  static final int ABORTED = 3;

  private Listeners() {}

  /** {@link #EXHAUSTED} or {@link #ABORTED}, as listeners see a stop for this reason. */
  static int stop(StopReason reason) {
    return reason.isExhaustion() ? EXHAUSTED : ABORTED;
  }

  static <R> void tell(RetryListener<R>[] listeners, int kind, RetryEvent<R> event) {
    for (RetryListener<R> listener : listeners) {
      try {
        switch (kind) {
          case RETRY_SCHEDULED:
            listener.onRetryScheduled(event);
            break;
          case SUCCESS:
            listener.onSuccess(event);
            break;
          case EXHAUSTED:
            listener.onExhausted(event);
            break;
          default:
            listener.onAborted(event);
            break;
        }
      } catch (RuntimeException e) {
        System.getLogger(RetryListener.class.getName())
            .log(System.Logger.Level.WARNING, "retry listener " + listener + " threw; ignored", e);
      }
    }
  }
}
