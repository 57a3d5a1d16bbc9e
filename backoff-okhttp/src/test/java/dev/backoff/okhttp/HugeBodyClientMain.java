package dev.backoff.okhttp;

import dev.backoff.Backoff;
import dev.backoff.RetryPolicy;
import dev.backoff.testing.ScriptedBudget;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * Run in a forked JVM with a small heap by {@link HugeBodyTest}: one call against a server answering a
 * huge retryable body, then one line {@code status=... bytes=... peakHeapBytes=...} on stdout. Arguments:
 * {@code interceptor|enqueue}, {@code close|stream}, the number of attempts, {@code budget|refusing-budget},
 * the URL.
 */
public final class HugeBodyClientMain {
  private HugeBodyClientMain() {}

  public static void main(String[] args) throws Exception {
    boolean enqueue = args[0].equals("enqueue");
    boolean stream = args[1].equals("stream");
    RetryPolicy.Builder<Response> policy = RetryPolicy.<Response>builder()
        .maxAttempts(Integer.parseInt(args[2]))
        .backoff(Backoff.fixed(Duration.ZERO));
    if (args[3].equals("refusing-budget")) {
      policy.budget(ScriptedBudget.refusing()); // a retry looks possible until the budget is asked
    }
    BackoffOkHttp backoff = BackoffOkHttp.of(policy.build());
    OkHttpClient plain = new OkHttpClient.Builder().retryOnConnectionFailure(false).build();
    Request request = new Request.Builder().url(args[4]).build();
    Response response = enqueue
        ? backoff.enqueue(plain, request).get(60, TimeUnit.SECONDS)
        : plain.newBuilder().addInterceptor(backoff.interceptor()).build().newCall(request).execute();
    long bytes = -1;
    try (response) {
      if (stream) {
        bytes = 0;
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = response.body().byteStream()) {
          for (int n; (n = in.read(buffer)) > 0; bytes += n) {
            for (int i = 0; i < n; i++) {
              if (buffer[i] != HugeBodyTest.expected(bytes + i)) {
                throw new AssertionError("byte " + (bytes + i) + " is " + buffer[i]);
              }
            }
          }
        }
      }
    }
    long peak = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        peak += pool.getPeakUsage().getUsed();
      }
    }
    System.out.println("status=" + response.code() + " bytes=" + bytes + " peakHeapBytes=" + peak);
    plain.dispatcher().executorService().shutdown();
    plain.connectionPool().evictAll();
  }
}
