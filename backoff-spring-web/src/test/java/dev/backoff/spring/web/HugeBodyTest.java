package dev.backoff.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.testing.ForkedJvm;
import dev.backoff.testing.ScriptedHttpServer.Response;
import dev.backoff.testing.ScriptedHttpServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A 200 MB retryable body, three attempts, in a JVM with a 48 MB heap: nothing holds a body whole. The
 * retried responses are read at most to the read-ahead limit (plus what the client had in flight), the
 * last is handed to the caller and read to its end, every byte checked.
 */
@Tag("slow")
class HugeBodyTest {
  static final long BODY = 200L * 1024 * 1024;

  @ParameterizedTest
  @ValueSource(strings = {"rest", "web"})
  void aHugeRetryableBodyIsNeverBufferedWhole(String client) throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.ofLength(503, BODY))) {
      ForkedJvm.Result result = ForkedJvm.run(HugeBodyMain.class, List.of("-Xmx48m"), Duration.ofSeconds(60),
          client, server.uri().toString());
      String output = result.output();

      assertThat(result.exitCode()).as(output).isZero();
      assertThat(output).contains("status=503 bytes=" + BODY);
      assertThat(server.requestCount()).isEqualTo(3);
      for (int i = 0; i < 500 && server.bodyBytesSent().size() < 3; i++) {
        Thread.sleep(10); // the server records a connection just after the client closed it
      }
      // The two retried bodies were cut short, never read to their end; the last was read whole.
      assertThat(server.bodyBytesSent()).filteredOn(bytes -> bytes < BODY).hasSize(2);
      assertThat(server.bodyBytesSent()).filteredOn(bytes -> bytes == BODY).hasSize(1);
      System.out.println("HugeBodyTest " + client + ": " + output.strip()
          + ", body bytes sent per connection " + server.bodyBytesSent());
    }
  }
}
