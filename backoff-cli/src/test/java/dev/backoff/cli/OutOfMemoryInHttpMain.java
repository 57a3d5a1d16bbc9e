package dev.backoff.cli;

/**
 * Run in a forked JVM by {@link HttpCommandForkedTest}: {@code backoff http URL} against a server that never
 * answers, while another thread dies of an {@link OutOfMemoryError} that escapes it. The process must end
 * rather than wait forever. (The JDK client's selector thread catches its own; the {@code ./backoff}
 * launcher's {@code -XX:+ExitOnOutOfMemoryError} covers that case.)
 */
public final class OutOfMemoryInHttpMain {
  private OutOfMemoryInHttpMain() {}

  public static void main(String[] args) {
    Thread dying = new Thread(() -> {
      // Once the command has started (it installs its handler first), or after 10 s in any case.
      for (int i = 0; i < 1000 && Thread.getDefaultUncaughtExceptionHandler() == null; i++) {
        try {
          Thread.sleep(10);
        } catch (InterruptedException e) {
          return;
        }
      }
      throw new OutOfMemoryError("simulated: Java heap space");
    }, "worker");
    dying.start();
    Main.main(new String[] {"http", args[0]});
  }
}
