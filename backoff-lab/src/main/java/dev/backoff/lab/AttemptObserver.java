package dev.backoff.lab;

/**
 * What a fleet learns about each attempt of its logical requests: the original experiment's client counts attempts that
 * were answered OK, failed with an error, or timed out. Implementations must be thread-safe: attempts end
 * on the HTTP client's threads.
 */
interface AttemptObserver {
  /** How an attempt ended. */
  enum Outcome {
    /** Answered 200. */
    OK,
    /** Failed quickly: another status, a refused or reset connection. */
    ERROR,
    /** No answer within the per-attempt timeout. */
    TIMEOUT
  }

  /** An attempt was sent. */
  void attemptStarted();

  /** An attempt ended. */
  void attemptEnded(Outcome outcome);

  /** The policy scheduled a retry. */
  void retryScheduled();

  /** The policy's circuit breaker refused a logical request's next attempt (its first or a retry). */
  void refused();
}
