package dev.backoff.sim;

import dev.backoff.Execution;

/**
 * A closed-loop client (which loops forever: think, call, retry per policy) or one open-loop logical
 * request. Mutable, owned by a single-threaded run.
 */
final class Caller {
  final SplitMix64 random;
  final boolean closedLoop;
  long callStartNanos;
  long thinkNanos;
  boolean newCall = true;
  Execution<Object> execution;

  Caller(SplitMix64 random, boolean closedLoop) {
    this.random = random;
    this.closedLoop = closedLoop;
  }
}
