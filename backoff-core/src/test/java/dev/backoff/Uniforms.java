package dev.backoff;

import java.util.random.RandomGenerator;

/**
 * A scripted random source for core tests (core cannot use backoff-testing's ScriptedRandom: that module
 * depends on core). Returns the given {@code u} values in order, cycling; counts the draws.
 */
final class Uniforms implements RandomGenerator {
  private final double[] values;
  private int next;
  int draws;

  Uniforms(double... values) {
    this.values = values.clone();
  }

  @Override
  public double nextDouble() {
    draws++;
    double value = values[next];
    next = (next + 1) % values.length;
    return value;
  }

  @Override
  public long nextLong() {
    throw new AssertionError("strategies must draw only nextDouble()");
  }
}
