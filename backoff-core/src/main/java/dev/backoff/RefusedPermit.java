package dev.backoff;

/**
 * A gate's answer that is not a permit: the circuit breaker's refusal ({@link #CIRCUIT_OPEN}, which the driver
 * SPI hands out as {@code Engine.CIRCUIT_OPEN}) or the concurrency limiter's ({@link #CONCURRENCY_LIMITED}). No
 * attempt runs with it, so an outcome reported to it goes nowhere. Immutable; two instances, compared by identity.
 */
final class RefusedPermit implements CircuitBreaker.Permit {
  /** The breaker refused the attempt. */
  static final RefusedPermit CIRCUIT_OPEN = new RefusedPermit("circuit open");
  /** The concurrency limiter refused the attempt (the breaker's permit given back). */
  static final RefusedPermit CONCURRENCY_LIMITED = new RefusedPermit("concurrency limited");

  private final String name;

  private RefusedPermit(String name) {
    this.name = name;
  }

  @Override
  public void onSuccess() {}

  @Override
  public void onFailure(FailureClass failureClass) {}

  @Override
  public void release() {}

  @Override
  public String toString() {
    return name;
  }
}
