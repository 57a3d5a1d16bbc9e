package dev.backoff.plan;

/**
 * A planning question that has no answer for the given inputs (a deadline no schedule can meet, a wanted
 * interval below the initial delay, a result beyond the range of a double, ...). The message says why, in
 * terms of the inputs. It is an {@link IllegalArgumentException} because the inputs, not the planner, are at
 * fault. Immutable.
 */
public final class UnsolvableException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  UnsolvableException(String message) {
    super(message);
  }
}
