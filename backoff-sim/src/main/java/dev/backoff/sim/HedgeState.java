package dev.backoff.sim;

import dev.backoff.CircuitBreaker;
import java.util.Arrays;

/**
 * The hedged attempts of one caller's current call (a {@code +hedge} policy), as the simulator carries them
 * out: the attempts started, by number, with their breaker permits, and the identity of the planned hedge's
 * event. What they mean (how many may start, when the call ends) is the core's call state machine's, kept in
 * the call's execution. Mutable, owned by a single-threaded run; reused from call to call.
 */
final class HedgeState {
  final Attempt[] attempts; // of the current call, by attempt number - 1; null once answered or abandoned
  final CircuitBreaker.Permit[] permits;
  /** Identifies the planned hedge event; an older one that fires anyway does nothing. */
  long generation;

  HedgeState(int maxStarted) {
    attempts = new Attempt[maxStarted];
    permits = new CircuitBreaker.Permit[maxStarted];
  }

  /** A new call starts. */
  void reset() {
    Arrays.fill(attempts, null);
    Arrays.fill(permits, null);
    generation++;
  }
}
