package example.modulepath;

import com.sun.net.httpserver.HttpServer;
import dev.backoff.Backoff;
import dev.backoff.RetryPolicy;
import dev.backoff.http.RetryingHttpClient;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** Calls a local server that is busy (503) on the first request; the client retries and gets a 200. */
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
    try {
      RetryingHttpClient client = RetryingHttpClient.builder(HttpClient.newHttpClient())
          .policy(RetryPolicy.<HttpResponse<?>>builder()
              .maxAttempts(3)
              .backoff(Backoff.fixed(Duration.ofMillis(10)))
              .build())
          .build();
      URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
      HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri).build(),
          HttpResponse.BodyHandlers.ofString());

      System.out.println("modulepath example: " + response.statusCode() + " '" + response.body() + "' after "
          + requests.get() + " requests, " + describe(Main.class.getModule()));
    } catch (IOException e) {
      throw new IOException("the call failed after " + requests.get() + " requests", e);
    } finally {
      server.stop(0);
    }
  }

  private static String describe(Module module) {
    return "module " + module.getName() + " reads " + RetryingHttpClient.class.getModule().getName();
  }
}
