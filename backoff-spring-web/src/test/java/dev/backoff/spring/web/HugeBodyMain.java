package dev.backoff.spring.web;

import dev.backoff.Backoff;
import dev.backoff.RetryPolicy;
import dev.backoff.RetryScheduler;
import dev.backoff.http.rules.HttpRules;
import dev.backoff.testing.ScriptedHttpServer;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Run by {@link HugeBodyTest} in a JVM with a small heap: calls a server whose retryable responses have
 * huge bodies, with 3 attempts, reads the last body to its end checking every byte, and prints
 * {@code status=... bytes=...}. Exits 0 on success; an OutOfMemoryError (a body buffered whole) exits
 * non-zero.
 */
public final class HugeBodyMain {
  private HugeBodyMain() {}

  /** {@code args}: {@code rest} or {@code web}, then the server's URI. */
  public static void main(String[] args) throws Exception {
    URI uri = URI.create(args[1]);
    RetryPolicy<Object> policy = RetryPolicy.builder().maxAttempts(3).backoff(Backoff.fixed(Duration.ZERO)).build();
    long[] bytes = {0};
    int status;
    if (args[0].equals("rest")) {
      RestClient client = RestClient.builder().requestFactory(new JdkClientHttpRequestFactory())
          .requestInterceptor(BackoffRestInterceptor.of(policy)).build();
      status = client.get().uri(uri).exchange((request, response) -> {
        byte[] buffer = new byte[64 * 1024];
        try (InputStream in = response.getBody()) {
          for (int n; (n = in.read(buffer)) > 0; ) {
            check(buffer, 0, n, bytes[0]);
            bytes[0] += n;
          }
        }
        return response.getStatusCode().value();
      });
    } else {
      ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
      WebClient client = WebClient.builder().clientConnector(new JdkClientHttpConnector())
          .filter(BackoffExchangeFilter.of(policy, HttpRules.defaults(), RetryScheduler.of(timer))).build();
      status = client.get().uri(uri).exchangeToMono(response -> response.bodyToFlux(DataBuffer.class)
          .doOnNext(buffer -> {
            byte[] chunk = new byte[buffer.readableByteCount()];
            buffer.read(chunk);
            DataBufferUtils.release(buffer);
            check(chunk, 0, chunk.length, bytes[0]);
            bytes[0] += chunk.length;
          })
          .then(reactor.core.publisher.Mono.just(response.statusCode().value())))
          .block(Duration.ofSeconds(50));
      timer.shutdownNow();
    }
    System.out.println("status=" + status + " bytes=" + bytes[0] + " maxHeap=" + Runtime.getRuntime().maxMemory());
  }

  private static void check(byte[] buffer, int from, int to, long offset) {
    for (int i = from; i < to; i++) {
      if (buffer[i] != ScriptedHttpServer.patternByte(offset + i - from)) {
        throw new AssertionError("byte " + (offset + i - from) + " differs");
      }
    }
  }
}
