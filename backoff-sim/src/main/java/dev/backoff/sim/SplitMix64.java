package dev.backoff.sim;

import java.util.random.RandomGenerator;

/**
 * Steele, Lea and Flood's SplitMix64, written out here so that the sequence is fixed by this file rather
 * than by a JDK version: the simulator's output must be byte-identical on every JDK. Not thread-safe; the
 * simulator is single-threaded per run. Not final: a {@link Caller} is its client's stream itself, so that
 * drawing a think time or a jitter touches the caller's own cache lines rather than a separate object's.
 */
class SplitMix64 implements RandomGenerator {
  private static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;
  private long state;

  SplitMix64(long seed) {
    this.state = seed;
  }

  /** Continues {@code stream}'s sequence from where it is (the two then draw the same numbers). */
  SplitMix64(SplitMix64 stream) {
    this.state = stream.state;
  }

  /** An independent stream for one member (a client) of a run seeded with {@code seed}. */
  static SplitMix64 stream(long seed, long member) {
    return new SplitMix64(mix(seed ^ mix(member * GOLDEN_GAMMA + 0x632be59bd9b4e019L)));
  }

  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  @Override
  public long nextLong() {
    state += GOLDEN_GAMMA;
    return mix(state);
  }

  /** Uniform in [0, 1) from the top 53 bits, defined here rather than inherited. */
  @Override
  public double nextDouble() {
    return (nextLong() >>> 11) * 0x1.0p-53;
  }

  /** An exponentially distributed duration with the given mean, in nanoseconds (StrictMath: same bits everywhere). */
  long exponentialNanos(long meanNanos) {
    return (long) (-StrictMath.log(1.0 - nextDouble()) * meanNanos);
  }

  /** A standard normal variate by Box-Muller with StrictMath (one value per two draws, no caching). */
  double nextStandardNormal() {
    double u1 = 1.0 - nextDouble(); // (0, 1]
    double u2 = nextDouble();
    return StrictMath.sqrt(-2.0 * StrictMath.log(u1)) * StrictMath.cos(2 * Math.PI * u2);
  }
}
