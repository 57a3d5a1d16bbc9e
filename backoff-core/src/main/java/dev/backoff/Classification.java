package dev.backoff;

import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.nio.channels.ClosedByInterruptException;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/** How a failure is matched against a policy's rules and classified. */
final class Classification {
  private Classification() {}

  /** Causes deeper than this are not inspected (and cause cycles end here too). */
  private static final int MAX_CAUSE_DEPTH = 16;

  static FailureClass classify(Throwable failure) {
    // Bounded like the other walks: causes can form a cycle (a → b → a), which would loop forever.
    int depth = 0;
    for (Throwable t = failure; t != null && depth < MAX_CAUSE_DEPTH; t = t.getCause(), depth++) {
      if (t instanceof TimeoutException || t instanceof SocketTimeoutException
          || t.getClass().getName().equals("java.net.http.HttpTimeoutException")
          || t.getClass().getName().equals("java.net.http.HttpConnectTimeoutException")) {
        return FailureClass.TIMEOUT;
      }
    }
    return FailureClass.TRANSIENT;
  }

  /** True if the failure or one of its causes is an interruption. */
  static boolean isInterruption(Throwable failure) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < MAX_CAUSE_DEPTH; t = t.getCause(), depth++) {
      if (t instanceof InterruptedException || t instanceof ClosedByInterruptException
          || (t instanceof InterruptedIOException && !(t instanceof SocketTimeoutException))) {
        return true;
      }
    }
    return false;
  }

  static boolean matches(Throwable failure, List<Class<? extends Throwable>> types,
      List<Predicate<? super Throwable>> predicates) {
    if (types.isEmpty() && predicates.isEmpty()) {
      return false;
    }
    int depth = 0;
    for (Throwable t = failure; t != null && depth < MAX_CAUSE_DEPTH; t = t.getCause(), depth++) {
      for (int i = 0; i < types.size(); i++) {
        if (types.get(i).isInstance(t)) {
          return true;
        }
      }
      for (int i = 0; i < predicates.size(); i++) {
        if (predicates.get(i).test(t)) {
          return true;
        }
      }
    }
    return false;
  }

  /** The stop reason for a failure that must not be retried, or null if the rules allow a retry. */
  static StopReason refusal(RetryPolicy<?> policy, Throwable failure) {
    if (isInterruption(failure)) {
      return StopReason.INTERRUPTED;
    }
    if (matches(failure, policy.abortOn, policy.abortIf)) {
      return StopReason.ABORTED;
    }
    if (policy.retryOn.isEmpty() && policy.retryIf.isEmpty()) {
      return failure instanceof Exception ? null : StopReason.NOT_RETRYABLE;
    }
    return matches(failure, policy.retryOn, policy.retryIf) ? null : StopReason.NOT_RETRYABLE;
  }
}
