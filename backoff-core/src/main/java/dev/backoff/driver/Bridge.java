package dev.backoff.driver;

/** Holds the core's {@link CoreAccess}. */
final class Bridge {
  private static volatile CoreAccess access;

  private Bridge() {}

  static synchronized void register(CoreAccess implementation) {
    if (implementation == null) {
      throw new NullPointerException("access must not be null");
    }
    if (access != null) {
      throw new IllegalStateException("the core's access is registered already");
    }
    access = implementation;
  }

  static CoreAccess core() {
    CoreAccess a = access;
    if (a == null) {
      throw new IllegalStateException("dev.backoff is not initialised: use a RetryPolicy first");
    }
    return a;
  }
}
