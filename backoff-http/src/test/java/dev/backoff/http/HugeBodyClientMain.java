package dev.backoff.http;

import dev.backoff.Backoff;
import dev.backoff.RetryPolicy;
import dev.backoff.testing.ScriptedBudget;
import dev.backoff.testing.ScriptedHttpServer.Response;
import dev.backoff.testing.ScriptedHttpServer;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Run in a forked JVM with a small heap by {@link HugeBodyTest}: one call against a server streaming a huge
 * retryable body, then one line {@code status=... bytes=... peakHeapBytes=...} on stdout. Arguments:
 * {@code send|async}, {@code discarding|stream}, the number of attempts, {@code budget|refusing-budget},
 * the URL.
 */
public final class HugeBodyClientMain {
  private HugeBodyClientMain() {}

  public static void main(String[] args) throws Exception {
    boolean async = args[0].equals("async");
    boolean stream = args[1].equals("stream");
    int attempts = Integer.parseInt(args[2]);
    boolean refuse = args[3].equals("refusing-budget");
    RetryPolicy.Builder<HttpResponse<?>> policy = RetryPolicy.<HttpResponse<?>>builder()
        .maxAttempts(attempts)
        .backoff(Backoff.fixed(Duration.ZERO));
    if (refuse) {
      policy.budget(ScriptedBudget.refusing()); // a retry looks possible until the budget is asked: the bridged path
    }
    RetryingHttpClient http = RetryingHttpClient.builder(
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build())
        .policy(policy.build())
        .build();
    HttpRequest request = HttpRequest.newBuilder(URI.create(args[4])).build();
    long bytes;
    int status;
    if (stream) {
      HttpResponse<InputStream> response = async
          ? http.sendAsync(request, BodyHandlers.ofInputStream()).get()
          : http.send(request, BodyHandlers.ofInputStream());
      status = response.statusCode();
      bytes = 0;
      byte[] buffer = new byte[64 * 1024];
      try (InputStream in = response.body()) {
        long offset = 0;
        for (int n; (n = in.read(buffer)) > 0; offset += n) {
          for (int i = 0; i < n; i++) {
            if (buffer[i] != ScriptedHttpServer.patternByte(offset + i)) {
              throw new AssertionError("byte " + (offset + i) + " is " + buffer[i]);
            }
          }
          bytes += n;
        }
      }
    } else {
      HttpResponse<Void> response = async
          ? http.sendAsync(request, BodyHandlers.discarding()).get()
          : http.send(request, BodyHandlers.discarding());
      status = response.statusCode();
      bytes = -1;
    }
    long peak = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        peak += pool.getPeakUsage().getUsed();
      }
    }
    System.out.println("status=" + status + " bytes=" + bytes + " peakHeapBytes=" + peak);
  }
}
