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

  /**
   * A hedged call sent another attempt alongside the one(s) in flight (the attempt is also reported by
   * {@link #attemptStarted()}).
   */
  default void hedgeSent() {}

  /** A hedge (an attempt after a hedged call's first) started; reported after {@link #attemptStarted()}. */
  default void hedgeStarted() {}

  /** A hedge (an attempt after a hedged call's first) ended: answered, failed, or cancelled as a loser. */
  default void hedgeEnded() {}

  /** A hedge's answer won its call. */
  default void hedgeWon() {}

  /**
   * An attempt ended without its outcome being judged, because its call had already ended: a hedged call's
   * loser, cancelled once another attempt won (or the call stopped). It is one of the attempts counted by
   * {@link #attemptStarted()}, so every started attempt ends once: by {@link #attemptEnded} or by this.
   */
  default void attemptCancelled() {}

  /** A request was handed to the HTTP client (the sending layer's count; hedges included). */
  default void requestSent() {}

  /** A response reached the HTTP client, whatever its status and whether its call still wanted it. */
  default void answerReceived() {}
}
