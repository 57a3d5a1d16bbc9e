package dev.backoff.lab;

/**
 * Running totals of a client fleet since it started. Immutable; {@link #minus} gives the counts of an
 * interval.
 *
 * @param attempts attempts sent
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
 */
record FleetTotals(long attempts, long ok, long errors, long timeouts, long retries, long requests, long succeeded,
    long failed, long refused) {
  static final FleetTotals ZERO = new FleetTotals(0, 0, 0, 0, 0, 0, 0, 0, 0);

  /** Totals of a fleet without a breaker. */
  FleetTotals(long attempts, long ok, long errors, long timeouts, long retries, long requests, long succeeded,
      long failed) {
    this(attempts, ok, errors, timeouts, retries, requests, succeeded, failed, 0);
  }

  /** The counts between {@code earlier} and this. */
  FleetTotals minus(FleetTotals earlier) {
    return new FleetTotals(attempts - earlier.attempts, ok - earlier.ok, errors - earlier.errors,
        timeouts - earlier.timeouts, retries - earlier.retries, requests - earlier.requests,
        succeeded - earlier.succeeded, failed - earlier.failed, refused - earlier.refused);
  }

  @Override
  public String toString() {
    return "attempts " + attempts + " (ok " + ok + ", errors " + errors + ", timeouts " + timeouts + "), retries "
        + retries + ", requests " + requests + " (succeeded " + succeeded + ", failed " + failed
        + (refused == 0 ? "" : ", refused by the breaker or limiter " + refused) + ")";
  }
}
