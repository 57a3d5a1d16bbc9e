package dev.backoff.testing;

import java.util.random.RandomGenerator;

/**
 * A random source that returns the uniform values {@code u} it is given, in order (cycling when it runs
 * out), so jittered delays can be asserted exactly. Backoff's strategies draw only
 * {@link #nextDouble()}; {@link #nextLong()} returns the same script scaled to the long range. Not
 * thread-safe.
 */
public final class ScriptedRandom implements RandomGenerator {
  private final double[] values;
  private int next;

  /**
   * A source that returns {@code values} in order, then starts again.
   *
   * @throws IllegalArgumentException if there are no values or one is outside {@code [0, 1)}
   * @throws NullPointerException if {@code values} is null
   */
  public ScriptedRandom(double... values) {
    if (values == null) {
      throw new NullPointerException("scripted values must not be null");
    }
    if (values.length == 0) {
      throw new IllegalArgumentException("ScriptedRandom needs at least one value");
    }
    for (double value : values) {
      if (!(value >= 0 && value < 1)) {
        throw new IllegalArgumentException("scripted values must be in [0, 1), was " + value);
      }
    }
    this.values = values.clone();
  }

  @Override
  public double nextDouble() {
    double value = values[next];
    next = (next + 1) % values.length;
    return value;
  }

  @Override
  public long nextLong() {
    return (long) (nextDouble() * 0x1p64 - 0x1p63);
  }

  /** How many values have been drawn modulo the script's length (the index of the next one). */
  public int position() {
    return next;
  }
}
