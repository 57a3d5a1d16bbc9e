package dev.backoff;

import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.nio.channels.ClosedByInterruptException;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Predicate;

/** How a failure is matched against a policy's rules and classified. */
final class Classification {
  private Classification() {}

  /** Causes deeper than this are not inspected (and cause cycles end here too). */
  private static final int MAX_CAUSE_DEPTH = 16;

  /** java.net.http's timeout (HttpConnectTimeoutException extends it), if that module is present. */
  private static final Class<?> HTTP_TIMEOUT = load("java.net.http.HttpTimeoutException");

  /** The default failure classifier; {@link Execution} recognises it and classifies in its single walk. */
  static final Function<Throwable, FailureClass> DEFAULT_CLASSIFIER = Classification::classify;

  private static Class<?> load(String name) {
    try {
      return Class.forName(name, false, Classification.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError absent) {
      return null;
    }
  }

  private static boolean isTimeout(Throwable t) {
    return t instanceof TimeoutException || t instanceof SocketTimeoutException
        || (HTTP_TIMEOUT != null && HTTP_TIMEOUT.isInstance(t));
  }

  private static boolean isInterruptionItself(Throwable t) {
    return t instanceof InterruptedException || t instanceof ClosedByInterruptException
        || (t instanceof InterruptedIOException && !(t instanceof SocketTimeoutException));
  }

  /** Timeouts (also as causes) are {@link FailureClass#TIMEOUT}, everything else {@link FailureClass#TRANSIENT}. */
  static FailureClass classify(Throwable failure) {
    // Bounded like every walk here: causes can form a cycle (a → b → a), which would loop forever.
    int depth = 0;
    for (Throwable t = failure; t != null && depth < MAX_CAUSE_DEPTH; t = t.getCause(), depth++) {
      if (isTimeout(t)) {
        return FailureClass.TIMEOUT;
      }
    }
    return FailureClass.TRANSIENT;
  }

  /** True if the failure or one of its causes is an interruption. */
  static boolean isInterruption(Throwable failure) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < MAX_CAUSE_DEPTH; t = t.getCause(), depth++) {
      if (isInterruptionItself(t)) {
        return true;
      }
    }
    return false;
  }

  private static boolean matchesOne(Throwable t, List<Class<? extends Throwable>> types,
      List<Predicate<? super Throwable>> predicates) {
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
    return false;
  }

  static final int INTERRUPTED = 1;
  static final int ABORT = 2;
  static final int RETRY = 4;
  static final int TIMEOUT = 8;

  /**
   * Walks the failure and its causes once (each {@link Throwable#getCause()} is a lock), and reports as bit
   * flags whether any of them is an interruption, matches an abort rule, matches a retry rule, or is a
   * timeout.
   */
  static int inspect(RetryPolicy<?> policy, Throwable failure) {
    boolean abortRules = !policy.abortOn.isEmpty() || !policy.abortIf.isEmpty();
    boolean retryRules = !policy.retryOn.isEmpty() || !policy.retryIf.isEmpty();
    int flags = 0;
    int depth = 0;
    for (Throwable t = failure; t != null && depth < MAX_CAUSE_DEPTH; t = t.getCause(), depth++) {
      if (isInterruptionItself(t)) {
        return flags | INTERRUPTED; // wins over everything: no need to look further
      }
      if (abortRules && (flags & ABORT) == 0 && matchesOne(t, policy.abortOn, policy.abortIf)) {
        flags |= ABORT;
      }
      if (retryRules && (flags & RETRY) == 0 && matchesOne(t, policy.retryOn, policy.retryIf)) {
        flags |= RETRY;
      }
      if ((flags & TIMEOUT) == 0 && isTimeout(t)) {
        flags |= TIMEOUT;
      }
    }
    return flags;
  }

  /** The stop reason for a failure with these {@link #inspect} flags, or null if the rules allow a retry. */
  static StopReason refusal(RetryPolicy<?> policy, Throwable failure, int flags) {
    if ((flags & INTERRUPTED) != 0) {
      return StopReason.INTERRUPTED;
    }
    if ((flags & ABORT) != 0) {
      return StopReason.ABORTED;
    }
    if (policy.retryOn.isEmpty() && policy.retryIf.isEmpty()) {
      return failure instanceof Exception ? null : StopReason.NOT_RETRYABLE;
    }
    return (flags & RETRY) != 0 ? null : StopReason.NOT_RETRYABLE;
  }

  /** The stop reason for a failure that must not be retried, or null if the rules allow a retry. */
  static StopReason refusal(RetryPolicy<?> policy, Throwable failure) {
    return refusal(policy, failure, inspect(policy, failure));
  }
}
