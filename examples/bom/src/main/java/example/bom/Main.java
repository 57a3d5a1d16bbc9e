package example.bom;

import com.sun.net.httpserver.HttpServer;
import dev.backoff.Backoff;
import dev.backoff.RetryEvent;
import dev.backoff.RetryListener;
import dev.backoff.RetryPolicy;
import dev.backoff.http.RetryingHttpClient;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Calls a local server asynchronously; it is busy (503) on the first request, so the client waits and
 * retries on a scheduler, holding no thread meanwhile.
 */
public final class Main {
  private Main() {}

  /**
   * Runs the example.
   *
   * @param args not used
   * @throws Exception if the server cannot start or the call fails
   */
  public static void main(String[] args) throws Exception {
    AtomicInteger requests = new AtomicInteger();
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      boolean busy = requests.incrementAndGet() == 1;
      byte[] body = (busy ? "busy" : "hello").getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(busy ? 503 : 200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    // Retries wait on a scheduler, not on a thread of their own; this one is the application's, closed at the
    // end (without one, the client uses Backoff's shared daemon scheduler, which lives as long as the JVM).
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    try {
      List<String> retries = new CopyOnWriteArrayList<>();
      RetryingHttpClient client = RetryingHttpClient.builder(HttpClient.newHttpClient())
          .policy(RetryPolicy.<HttpResponse<?>>builder()
              .maxAttempts(3)
              .backoff(Backoff.fixed(Duration.ofMillis(10)))
              .listener(new RetryListener<HttpResponse<?>>() {
                @Override
                public void onRetryScheduled(RetryEvent<HttpResponse<?>> event) {
                  retries.add("attempt " + event.attempts() + " got " + event.result().statusCode()
                      + ", waiting " + event.delay().toMillis() + " ms");
                }
              })
              .build())
          .scheduler(scheduler)
          .build();
      URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
      HttpResponse<String> response = client
          .sendAsync(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString())
          .join();

      System.out.println("bom example: " + response.statusCode() + " '" + response.body() + "' after "
          + requests.get() + " requests (retried: " + String.join(", ", retries) + ")");
    } finally {
      scheduler.shutdownNow();
      server.stop(0);
    }
  }
}
