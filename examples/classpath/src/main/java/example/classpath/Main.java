package example.classpath;

import dev.backoff.Backoff;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryPolicy;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** Retries a call that fails twice with an IOException, then answers. */
public final class Main {
  private Main() {}

  /**
   * Runs the example.
   *
   * @param args not used
   * @throws Exception if the call fails after its retries (it does not here)
   */
  public static void main(String[] args) throws Exception {
    RetryPolicy<String> policy = RetryPolicy.<String>builder()
        .maxAttempts(5)                                       // the first attempt included
        .backoff(Backoff.exponential(Duration.ofMillis(10), 2, Duration.ofMillis(100)))
        .retryOn(IOException.class)
        .build();

    AtomicInteger attempts = new AtomicInteger();
    String answer = RetryExecutor.of(policy).call(() -> flakyCall(attempts.incrementAndGet()));

    System.out.println("classpath example: '" + answer + "' after " + attempts.get() + " attempts");
  }

  /** Stands in for a network call: the first two attempts fail. */
  private static String flakyCall(int attempt) throws IOException {
    if (attempt <= 2) {
      throw new IOException("connection reset (attempt " + attempt + ")");
    }
    return "hello";
  }
}
