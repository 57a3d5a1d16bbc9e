package dev.backoff.spring.boot;

/**
 * A {@code backoff.*} property with a bad value: the message names the property, the value and what is
 * wrong. Thrown while the context starts, so that it fails instead of running with a default.
 */
public class BackoffConfigurationException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  /** The property's full name, such as {@code backoff.policies.payments.max-elapsed}. */
  private final String property;

  /** The value as written (null if unset). */
  private final String value;

  /**
   * A failure for {@code property} with {@code value}.
   *
   * @param property the property's full name
   * @param value the value as written, or null
   * @param problem what is wrong with it
   */
  public BackoffConfigurationException(String property, String value, String problem) {
    super("Invalid value " + (value == null ? "(unset)" : "'" + value + "'") + " for " + property + ": " + problem);
    this.property = property;
    this.value = value;
  }

  /** The property's full name. */
  public String property() {
    return property;
  }

  /** The value as written, or null. */
  public String value() {
    return value;
  }
}
