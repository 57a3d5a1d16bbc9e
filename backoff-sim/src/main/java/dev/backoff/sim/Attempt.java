package dev.backoff.sim;

/** One request on the wire. Mutable, owned by a single-threaded run. */
final class Attempt {
  static final int PENDING = 0;
  static final int ANSWERED = 1;
  static final int TIMED_OUT = 2;
  /** A hedged attempt whose call another attempt already decided: its answer is ignored. */
  static final int ABANDONED = 3;

  final Caller caller;
  final long sentNanos;
  long serviceStartNanos;
  int epoch; // the server's crash epoch when it entered; events from an older epoch are void
  int state;
  long answeredNanos = -1; // when a server answered (even if the client had given up)
  int outcome = -1;
  int number; // the attempt's number in its call (1: the first), for hedged calls; 0 otherwise

  Attempt(Caller caller, long sentNanos) {
    this.caller = caller;
    this.sentNanos = sentNanos;
  }
}
