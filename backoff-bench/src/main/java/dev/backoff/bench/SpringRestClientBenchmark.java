package dev.backoff.bench;

import com.sun.net.httpserver.HttpServer;
import dev.backoff.RetryPolicy;
import dev.backoff.spring.web.BackoffRestInterceptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/**
 * What backoff-spring-web's {@link BackoffRestInterceptor} adds to a successful {@code RestClient} GET
 * (status and body read, response closed), against the same client without it and with a pass-through
 * interceptor (what any interceptor costs in Spring's chain). {@code transport}: {@value #IN_PROCESS}, a
 * last interceptor answering 200 at once without creating a request (RestClient's own per-call work, no
 * I/O to hide the adapter); {@value #LOOPBACK}, a real exchange through Spring's
 * {@link JdkClientHttpRequestFactory} (the JDK's {@code HttpClient}, HTTP/1.1) with the JDK's HTTP server on
 * 127.0.0.1 over a kept-alive connection.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class SpringRestClientBenchmark {
  public static final String BARE = "bare";
  public static final String PASS_THROUGH = "pass-through";
  public static final String BACKOFF = "backoff";
  public static final String IN_PROCESS = "in-process";
  public static final String LOOPBACK = "loopback";

  /** {@value #PASS_THROUGH}: an interceptor that only calls {@code execute}, Spring's cost of any interceptor. */
  @Param({BARE, PASS_THROUGH, BACKOFF})
  public String client;

  @Param({IN_PROCESS, LOOPBACK})
  public String transport;

  private static final byte[] OK = "ok".getBytes(StandardCharsets.US_ASCII);

  private RestClient restClient;
  private HttpClient jdkClient;
  private HttpServer server;
  private ExecutorService serverThreads;
  private URI uri;

  @Setup
  public void setUp() throws IOException {
    RestClient.Builder builder = RestClient.builder();
    switch (client) {
      case BARE -> { }
      case PASS_THROUGH -> builder.requestInterceptor((request, body, execution) -> execution.execute(request, body));
      case BACKOFF -> builder.requestInterceptor(BackoffRestInterceptor.of(RetryPolicy.defaults()));
      default -> throw new IllegalArgumentException("unknown client: " + client);
    }
    // The factory is set in both cases: left to itself, RestClient picks Apache HttpClient 5 (on this
    // module's class path). In-process it is never asked for a request.
    jdkClient = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    builder.requestFactory(new JdkClientHttpRequestFactory(jdkClient));
    if (transport.equals(IN_PROCESS)) {
      builder.requestInterceptor(answerOk());
      uri = URI.create("http://127.0.0.1:9/resource"); // never connected to
    } else if (transport.equals(LOOPBACK)) {
      startServer();
    } else {
      throw new IllegalArgumentException("unknown transport: " + transport);
    }
    restClient = builder.build();
  }

  private static ClientHttpRequestInterceptor answerOk() {
    HttpHeaders headers = new HttpHeaders();
    headers.setContentType(MediaType.TEXT_PLAIN);
    headers.setContentLength(OK.length);
    return (request, body, execution) -> new ClientHttpResponse() {
      private final InputStream in = new ByteArrayInputStream(OK);

      @Override
      public HttpStatusCode getStatusCode() {
        return HttpStatus.OK;
      }

      @Override
      public String getStatusText() {
        return "OK";
      }

      @Override
      public HttpHeaders getHeaders() {
        return headers;
      }

      @Override
      public InputStream getBody() {
        return in;
      }

      @Override
      public void close() { }
    };
  }

  private void startServer() throws IOException {
    // The JDK's server writes the head and the body separately: without TCP_NODELAY each exchange waits for
    // the client's delayed ACK (about 40 ms on Linux), which would measure the kernel, not the client.
    System.setProperty("sun.net.httpserver.nodelay", "true");
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    serverThreads = Executors.newSingleThreadExecutor();
    server.setExecutor(serverThreads);
    server.createContext("/", exchange -> {
      exchange.getRequestBody().readAllBytes();
      exchange.sendResponseHeaders(200, OK.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(OK);
      }
    });
    server.start();
    uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/resource");
  }

  @TearDown
  public void tearDown() {
    if (server != null) {
      server.stop(0);
      serverThreads.shutdownNow();
    }
  }

  /** One GET: the status and the body's length, read through the client, the response then closed. */
  @Benchmark
  public int get() {
    return restClient.get().uri(uri).exchange((request, response) ->
        response.getStatusCode().value() * 1000 + response.getBody().readAllBytes().length);
  }
}
