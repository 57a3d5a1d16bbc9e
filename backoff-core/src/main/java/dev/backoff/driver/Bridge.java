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

  /**
   * {@link #core()}, initialising the core first if nothing has yet (for a constant of this package that is
   * the core's, read before any policy is built).
   */
  static CoreAccess initialisedCore() {
    if (access == null) {
      try {
        Class.forName("dev.backoff.RetryPolicy", true, Bridge.class.getClassLoader()); // registers the access
      } catch (ClassNotFoundException missing) {
        throw new NoClassDefFoundError("dev.backoff.RetryPolicy");
      }
    }
    return core();
  }

  static CoreAccess core() {
    CoreAccess a = access;
    if (a == null) {
      throw new IllegalStateException("dev.backoff is not initialised: use a RetryPolicy first");
    }
    return a;
  }
}
