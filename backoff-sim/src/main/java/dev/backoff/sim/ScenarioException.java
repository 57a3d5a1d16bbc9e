package dev.backoff.sim;

/**
 * A scenario key or value the simulator cannot accept: an unknown key or policy, a negative rate or
 * duration, a fault outside the run, contradictory parameters, or a run too large for memory. The message
 * names the key and the bad value. The command line maps it to exit status 2.
 *
 * <p>Immutable, like every exception's message; thread-safe.
 */
public final class ScenarioException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;
  private final String key;

  ScenarioException(String key, String message) {
    super(key == null ? message : key + ": " + message);
    this.key = key;
  }

  /** The scenario key (and flag name without the leading dashes) the problem is about, or null. */
  public String key() {
    return key;
  }
}
