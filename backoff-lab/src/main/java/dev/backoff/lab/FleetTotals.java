package dev.backoff.lab;

/**
 * Running totals of a client fleet since it started. Immutable; {@link #minus} gives the counts of an
 * interval.
 */
final class FleetTotals {
  private final long attempts;
  private final long ok;
  private final long errors;
  private final long timeouts;
  private final long retries;
  private final long requests;
  private final long succeeded;
  private final long failed;

  FleetTotals(long attempts, long ok, long errors, long timeouts, long retries, long requests, long succeeded,
      long failed) {
    this.attempts = attempts;
    this.ok = ok;
    this.errors = errors;
    this.timeouts = timeouts;
    this.retries = retries;
    this.requests = requests;
    this.succeeded = succeeded;
    this.failed = failed;
  }

  static final FleetTotals ZERO = new FleetTotals(0, 0, 0, 0, 0, 0, 0, 0);

  /** Attempts sent. */
  public long attempts() {
    return attempts;
  }

  /** Attempts answered OK. */
  public long ok() {
    return ok;
  }

  /** Attempts that failed with an error (a status other than 200, a refused or reset connection). */
  public long errors() {
    return errors;
  }

  /** Attempts that timed out. */
  public long timeouts() {
    return timeouts;
  }

  /** Retries scheduled. */
  public long retries() {
    return retries;
  }

  /** Logical requests started (each client's request, however many attempts it takes). */
  public long requests() {
    return requests;
  }

  /** Logical requests that succeeded. */
  public long succeeded() {
    return succeeded;
  }

  /** Logical requests whose retries stopped without success. */
  public long failed() {
    return failed;
  }

  /** The counts between {@code earlier} and this. */
  public FleetTotals minus(FleetTotals earlier) {
    return new FleetTotals(attempts - earlier.attempts, ok - earlier.ok, errors - earlier.errors,
        timeouts - earlier.timeouts, retries - earlier.retries, requests - earlier.requests,
        succeeded - earlier.succeeded, failed - earlier.failed);
  }

  @Override
  public String toString() {
    return "attempts " + attempts + " (ok " + ok + ", errors " + errors + ", timeouts " + timeouts + "), retries "
        + retries + ", requests " + requests + " (succeeded " + succeeded + ", failed " + failed + ")";
  }
}
