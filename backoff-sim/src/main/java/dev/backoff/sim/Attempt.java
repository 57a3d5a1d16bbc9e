package dev.backoff.sim;

/** One request on the wire. Mutable, owned by a single-threaded run. */
final class Attempt {
  static final int PENDING = 0;
  static final int ANSWERED = 1;
  static final int TIMED_OUT = 2;
  /** A hedged attempt whose call another attempt already decided: its answer is ignored. */
  static final int ABANDONED = 3;

  /**
   * An attempt for a request whose client gave up and whose own attempt the server no longer keeps (see
   * {@link ServiceRing}): events addressed to it are lost on arrival, as for any abandoned attempt. One per
   * run (a run writes to it), never shared between runs.
   */
  static Attempt abandoned() {
    Attempt attempt = new Attempt(null, -1);
    attempt.state = TIMED_OUT;
    return attempt;
  }

  // 56 bytes with compressed pointers: a storm allocates one per request, tens of millions in a run.
  final Caller caller;
  long serviceStartNanos; // when a server started serving it; its send time until then
  long answeredNanos = -1; // when a server answered (even if the client had given up)
  long ticket = -1; // its place in a knee or linear server's ring (ServiceRing), -1 before it got there
  int epoch; // the server's crash epoch when it entered; events from an older epoch are void
  int state;
  int outcome = -1;
  int number; // the attempt's number in its call (1: the first), for hedged calls; 0 otherwise

  Attempt(Caller caller, long sentNanos) {
    this.caller = caller;
    this.serviceStartNanos = sentNanos;
  }
}
