package dev.backoff.httpclient5;

import dev.backoff.Backoff;
import dev.backoff.RetryPolicy;
import dev.backoff.testing.ScriptedBudget;
import dev.backoff.testing.ScriptedHttpServer;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.async.methods.AbstractBinResponseConsumer;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.async.methods.SimpleRequestProducer;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HttpResponse;

/**
 * Run in a forked JVM with a small heap by {@link HugeBodyTest}: one call against a server streaming a huge
 * retryable body, read by the caller as a stream with every byte checked, then one line
 * {@code status=... bytes=... peakHeapBytes=...} on stdout. Arguments: {@code classic|async}, the number of
 * attempts, {@code budget|refusing-budget}, the URL.
 */
public final class HugeBodyClientMain {
  private HugeBodyClientMain() {}

  public static void main(String[] args) throws Exception {
    boolean async = args[0].equals("async");
    int attempts = Integer.parseInt(args[1]);
    RetryPolicy.Builder<HttpResponse> policy = RetryPolicy.<HttpResponse>builder()
        .maxAttempts(attempts)
        .backoff(Backoff.fixed(Duration.ZERO));
    if (args[2].equals("refusing-budget")) {
      policy.budget(ScriptedBudget.refusing()); // a retry looks possible until the budget is asked: the handover path
    }
    HttpClient5Retry retry = HttpClient5Retry.of(policy.build());
    URI uri = URI.create(args[3]);
    long[] result;
    if (async) {
      try (CloseableHttpAsyncClient client = retry.asyncClientBuilder().build()) {
        client.start();
        result = client.execute(SimpleRequestProducer.create(SimpleRequestBuilder.get(uri).build()),
            new CheckingConsumer(), null).get(60, TimeUnit.SECONDS);
      }
    } else {
      try (CloseableHttpClient client = retry.classicClientBuilder().build()) {
        result = client.execute(new HttpGet(uri), response -> {
          long offset = 0;
          byte[] buffer = new byte[64 * 1024];
          try (InputStream in = response.getEntity().getContent()) {
            for (int n; (n = in.read(buffer)) > 0; offset += n) {
              for (int i = 0; i < n; i++) {
                check(offset + i, buffer[i]);
              }
            }
          }
          return new long[] {response.getCode(), offset};
        });
      }
    }
    long peak = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        peak += pool.getPeakUsage().getUsed();
      }
    }
    System.out.println("status=" + result[0] + " bytes=" + result[1] + " peakHeapBytes=" + peak);
  }

  static void check(long offset, byte actual) {
    if (actual != ScriptedHttpServer.patternByte(offset)) {
      throw new AssertionError("byte " + offset + " is " + actual);
    }
  }

  /** Counts and checks the body as it streams; holds nothing. */
  private static final class CheckingConsumer extends AbstractBinResponseConsumer<long[]> {
    private int status;
    private long offset;

    @Override
    protected void start(HttpResponse response, ContentType contentType) {
      status = response.getCode();
    }

    @Override
    protected int capacityIncrement() {
      return 64 * 1024;
    }

    @Override
    protected void data(ByteBuffer src, boolean endOfStream) {
      while (src.hasRemaining()) {
        check(offset++, src.get());
      }
    }

    @Override
    protected long[] buildResult() {
      return new long[] {status, offset};
    }

    @Override
    public void releaseResources() {}
  }
}
