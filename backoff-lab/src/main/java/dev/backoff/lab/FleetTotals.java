package dev.backoff.lab;

/**
 * Running totals of a client fleet since it started. Immutable; {@link #minus} gives the counts of an
 * interval. Once every attempt has ended, {@code attempts = ok + errors + timeouts + cancelled}, and
 * {@code sent = attempts}: the policy's events and the sending layer count the same attempts.
 *
 * @param attempts attempts started, hedges included
 * @param ok attempts answered OK
 * @param errors attempts that failed with an error (a status other than 200, a refused or reset connection)
 * @param timeouts attempts that timed out
 * @param retries retries scheduled
 * @param requests logical requests started (each client's request, however many attempts it takes)
 * @param succeeded logical requests that succeeded
 * @param failed logical requests whose retries stopped without success
 * @param refused logical requests the policy's circuit breaker or adaptive rate limiter ended without an
 *     attempt it would not permit: a first attempt refused (the request failed at once) or a retry refused
 *     (counted in failed too)
 * @param hedgesSent hedges sent: attempts a hedged call started alongside the ones in flight (counted in
 *     attempts too), as the simulator counts them
 * @param hedgesWon logical requests a hedge's answer won (not the first attempt's)
 * @param cancelled attempts that ended unjudged because their call had ended first: a hedged call's
 *     losers, cancelled once another attempt won (or the call stopped)
 * @param sent requests handed to the HTTP client, counted at the sending layer (what the server receives)
 * @param answers responses that reached the HTTP client, any status, a losing hedge's that arrived before
 *     it was cancelled included
 */
record FleetTotals(long attempts, long ok, long errors, long timeouts, long retries, long requests, long succeeded,
    long failed, long refused, long hedgesSent, long hedgesWon, long cancelled, long sent, long answers) {
  static final FleetTotals ZERO = new FleetTotals(0, 0, 0, 0, 0, 0, 0, 0, 0);

  /** Totals of a fleet without a breaker or hedging (and no sending-layer counts). */
  FleetTotals(long attempts, long ok, long errors, long timeouts, long retries, long requests, long succeeded,
      long failed) {
    this(attempts, ok, errors, timeouts, retries, requests, succeeded, failed, 0);
  }

  /** Totals of a fleet without hedging (and no sending-layer counts). */
  FleetTotals(long attempts, long ok, long errors, long timeouts, long retries, long requests, long succeeded,
      long failed, long refused) {
    this(attempts, ok, errors, timeouts, retries, requests, succeeded, failed, refused, 0, 0, 0, 0, 0);
  }

  /** The counts between {@code earlier} and this. */
  FleetTotals minus(FleetTotals earlier) {
    return new FleetTotals(attempts - earlier.attempts, ok - earlier.ok, errors - earlier.errors,
        timeouts - earlier.timeouts, retries - earlier.retries, requests - earlier.requests,
        succeeded - earlier.succeeded, failed - earlier.failed, refused - earlier.refused,
        hedgesSent - earlier.hedgesSent, hedgesWon - earlier.hedgesWon, cancelled - earlier.cancelled,
        sent - earlier.sent, answers - earlier.answers);
  }

  @Override
  public String toString() {
    return "attempts " + attempts + " (ok " + ok + ", errors " + errors + ", timeouts " + timeouts
        + (cancelled == 0 ? "" : ", cancelled " + cancelled) + "), retries "
        + retries + ", requests " + requests + " (succeeded " + succeeded + ", failed " + failed
        + (refused == 0 ? "" : ", refused by the breaker or limiter " + refused) + ")"
        + (hedgesSent == 0 && hedgesWon == 0 ? "" : ", hedges " + hedgesSent + " (won " + hedgesWon + ")")
        + ", sent " + sent + ", answers " + answers;
  }
}
