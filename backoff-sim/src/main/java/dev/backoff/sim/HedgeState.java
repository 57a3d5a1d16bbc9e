package dev.backoff.sim;

import dev.backoff.CircuitBreaker;
import dev.backoff.FailureClass;
import java.util.Arrays;

/**
 * The hedged attempts of one caller's current call (a {@code +hedge} policy): the attempts started, with
 * their breaker permits, how many are still awaited, and the planned next hedge. Mutable, owned by a
 * single-threaded run; reused from call to call.
 */
final class HedgeState {
  final Attempt[] attempts; // of the current call, by attempt number - 1; null once answered or abandoned
  final CircuitBreaker.Permit[] permits;
  int started;
  int inFlight;
  /** Identifies the planned hedge event; an older one that fires anyway does nothing. */
  long generation;
  boolean planned;
  /** No further hedge may start in this call. */
  boolean noMore;
  /** Why no further hedge may start (the call's stop reason once none is in flight), or null. */
  dev.backoff.StopReason stopReason;
  /** The failure that triggered the planned hedge (the budget is asked for its class), or null. */
  FailureClass triggerClass;
  Throwable trigger;

  HedgeState(int maxStarted) {
    attempts = new Attempt[maxStarted];
    permits = new CircuitBreaker.Permit[maxStarted];
  }

  /** A new call starts. */
  void reset() {
    Arrays.fill(attempts, null);
    Arrays.fill(permits, null);
    started = 0;
    inFlight = 0;
    generation++;
    planned = false;
    noMore = false;
    stopReason = null;
    triggerClass = null;
    trigger = null;
  }
}
