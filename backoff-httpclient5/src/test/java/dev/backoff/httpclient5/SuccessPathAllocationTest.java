package dev.backoff.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.RetryPolicy;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.ChainElement;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.message.BasicClassicHttpResponse;
import org.junit.jupiter.api.Test;

/**
 * What the handler adds to a successful classic call, in bytes allocated, counted by the JVM's per-thread
 * allocation counter over many calls answered in process (an element placed before the connection is
 * opened), against the same client without it. Allocation counts are deterministic enough for a bound;
 * no time is measured.
 */
class SuccessPathAllocationTest {
  private static final int CALLS = 20_000;
  private static final URI NEVER_CONNECTED = URI.create("http://127.0.0.1:9/");

  @Test
  void theHandlerAddsAFewSmallObjectsToASuccessfulCall() throws IOException {
    long alone = bytesPerCall(HttpClients.custom().disableAutomaticRetries());
    long withHandler = bytesPerCall(
        HttpClient5Retry.of(RetryPolicy.<HttpResponse>builder().maxAttempts(3).build()).install(HttpClients.custom()));
    long withOwnRetry = bytesPerCall(HttpClients.custom());
    System.out.println("SuccessPathAllocationTest: bytes per successful call: client alone " + alone
        + ", with HttpClient's own retry " + withOwnRetry + ", with the Backoff handler " + withHandler);
    // The call (ClassicExchange) and the loop's attempt context, 96 B with compressed references: under 128
    // bytes, against about 2.5 KB that the client allocates for the call itself.
    assertThat(withHandler - alone).isLessThan(128);
  }

  private static long bytesPerCall(HttpClientBuilder builder) throws IOException {
    builder.addExecInterceptorBefore(ChainElement.CONNECT.name(), "in-process",
        (request, scope, chain) -> new BasicClassicHttpResponse(200));
    try (CloseableHttpClient client = builder.build()) {
      run(client, CALLS); // warm up: the JIT may remove allocations, as it would in production
      com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
      long before = threads.getCurrentThreadAllocatedBytes();
      run(client, CALLS);
      return (threads.getCurrentThreadAllocatedBytes() - before) / CALLS;
    }
  }

  private static void run(CloseableHttpClient client, int calls) throws IOException {
    for (int i = 0; i < calls; i++) {
      int status = client.execute(new HttpGet(NEVER_CONNECTED), response -> response.getCode());
      if (status != 200) {
        throw new AssertionError("status " + status);
      }
    }
  }
}
