package dev.backoff;

/** Helpers shared by the executors. */
final class Executors {
  private Executors() {}

  /** Rethrows any throwable without wrapping it (checked exceptions pass through as they are). */
  @SuppressWarnings("unchecked")
  static <E extends Throwable> E sneaky(Throwable failure) throws E {
    throw (E) failure;
  }
}
