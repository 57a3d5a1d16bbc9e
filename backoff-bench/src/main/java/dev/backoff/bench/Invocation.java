package dev.backoff.bench;

/**
 * One call of a task through one library's retry wrapper, configured once in a benchmark's setup so the
 * measured method does nothing but invoke it (no per-call adaptation, for every library alike).
 */
@FunctionalInterface
public interface Invocation {
  /** Runs the task under the library's retry policy and returns its result. */
  String invoke() throws Exception;
}
