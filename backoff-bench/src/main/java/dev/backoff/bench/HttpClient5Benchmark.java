package dev.backoff.bench;

import com.sun.net.httpserver.HttpServer;
import dev.backoff.RetryPolicy;
import dev.backoff.httpclient5.HttpClient5Retry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.classic.ExecChainHandler;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.impl.ChainElement;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClientBuilder;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.http.message.BasicClassicHttpResponse;
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

/**
 * Apache HttpClient 5 (classic), one successful GET per operation: the client alone (its retries disabled),
 * with HttpClient's own retry ({@code DefaultHttpRequestRetryStrategy}, the builder's default), and with
 * Backoff's handler installed. {@code transport}: {@value #IN_PROCESS} answers from an element placed just
 * before the connection is opened, so the figure is the client's own per-call work and what each retry
 * element adds to it (no socket noise); {@value #LOOPBACK} is a real exchange with the JDK's HTTP server on
 * 127.0.0.1, which shows how much of a real call that is.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class HttpClient5Benchmark {
  public static final String CLIENT_ALONE = "client-alone";
  public static final String HC5_RETRY = "hc5-default-retry";
  public static final String BACKOFF = "backoff";
  public static final String IN_PROCESS = "in-process";
  public static final String LOOPBACK = "loopback";

  @Param({CLIENT_ALONE, HC5_RETRY, BACKOFF})
  public String retry;

  @Param({IN_PROCESS, LOOPBACK})
  public String transport;

  private CloseableHttpClient client;
  private HttpServer server;
  private ExecutorService serverThreads;
  private URI uri;

  @Setup
  public void setUp() throws IOException {
    HttpClientBuilder builder = HttpClients.custom()
        .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create().build());
    switch (retry) {
      case CLIENT_ALONE -> builder.disableAutomaticRetries();
      case HC5_RETRY -> { } // the builder's default: DefaultHttpRequestRetryStrategy
      case BACKOFF -> HttpClient5Retry.of(RetryPolicy.<HttpResponse>builder().maxAttempts(3).build()).install(builder);
      default -> throw new IllegalArgumentException("unknown retry: " + retry);
    }
    if (transport.equals(IN_PROCESS)) {
      builder.addExecInterceptorBefore(ChainElement.CONNECT.name(), "in-process", answerOk());
      uri = URI.create("http://127.0.0.1:9/"); // never connected to
    } else if (transport.equals(LOOPBACK)) {
      startServer();
    } else {
      throw new IllegalArgumentException("unknown transport: " + transport);
    }
    client = builder.build();
  }

  private static ExecChainHandler answerOk() {
    return (request, scope, chain) -> {
      BasicClassicHttpResponse response = new BasicClassicHttpResponse(200);
      response.setEntity(new StringEntity("ok", ContentType.TEXT_PLAIN));
      return response;
    };
  }

  private void startServer() throws IOException {
    // The JDK's server writes the head and the body separately: without TCP_NODELAY each exchange waits for
    // the client's delayed ACK (about 40 ms on Linux), which would measure the kernel, not the client.
    System.setProperty("sun.net.httpserver.nodelay", "true");
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
    serverThreads = Executors.newSingleThreadExecutor();
    server.setExecutor(serverThreads);
    byte[] ok = "ok".getBytes(StandardCharsets.US_ASCII);
    server.createContext("/", exchange -> {
      exchange.getRequestBody().readAllBytes();
      exchange.sendResponseHeaders(200, ok.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(ok);
      }
    });
    server.start();
    uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
  }

  @TearDown
  public void tearDown() throws IOException {
    client.close();
    if (server != null) {
      server.stop(0);
      serverThreads.shutdownNow();
    }
  }

  @Benchmark
  public String get() throws IOException {
    return client.execute(new HttpGet(uri), HttpClient5Benchmark::body);
  }

  private static String body(ClassicHttpResponse response) throws IOException {
    try {
      return response.getCode() + " " + EntityUtils.toString(response.getEntity());
    } catch (org.apache.hc.core5.http.ParseException e) {
      throw new IOException(e);
    }
  }
}
