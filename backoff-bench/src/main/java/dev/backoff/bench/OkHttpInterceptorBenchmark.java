package dev.backoff.bench;

import com.sun.net.httpserver.HttpServer;
import dev.backoff.RetryPolicy;
import dev.backoff.okhttp.BackoffOkHttp;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
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
 * What backoff-okhttp's interceptor adds to a successful OkHttp call, against the same client without it
 * (which keeps OkHttp's own retry of lost connections, on by default, in both), and against a
 * pass-through interceptor (what any interceptor costs in OkHttp's chain). Two transports:
 * {@code in-process}, where a last application interceptor answers 200 at once (OkHttp's call machinery,
 * no network: the adapter's cost is not hidden by I/O), and {@code loopback}, a real exchange with the
 * JDK's HTTP server on 127.0.0.1 over a kept-alive connection.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class OkHttpInterceptorBenchmark {
  /** {@code pass-through}: an interceptor that only calls {@code proceed}, OkHttp's cost of any interceptor. */
  @Param({"bare", "pass-through", "backoff"})
  public String client;

  @Param({"in-process", "loopback"})
  public String transport;

  static {
    // The JDK server writes headers and body apart: without TCP_NODELAY, Nagle's algorithm and the
    // client's delayed ACK add about 40 ms to every loopback exchange, hiding everything else.
    System.setProperty("sun.net.httpserver.nodelay", "true");
  }

  private static final byte[] OK = "ok".getBytes(StandardCharsets.UTF_8);
  private static final MediaType TEXT = MediaType.get("text/plain");

  OkHttpClient okHttp;
  Request request;
  HttpServer server;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    OkHttpClient.Builder builder = new OkHttpClient.Builder();
    if (client.equals("backoff")) {
      builder.addInterceptor(BackoffOkHttp.of(RetryPolicy.<Response>defaults()).interceptor());
    } else if (client.equals("pass-through")) {
      builder.addInterceptor(chain -> chain.proceed(chain.request()));
    }
    String url;
    if (transport.equals("in-process")) {
      builder.addInterceptor(OkHttpInterceptorBenchmark::answerOk);
      url = "http://127.0.0.1:1/resource"; // never connected to
    } else {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.createContext("/", exchange -> {
        exchange.getRequestBody().readAllBytes();
        exchange.sendResponseHeaders(200, OK.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(OK);
        }
      });
      server.start();
      url = "http://127.0.0.1:" + server.getAddress().getPort() + "/resource";
    }
    okHttp = builder.build();
    request = new Request.Builder().url(url).build();
  }

  private static Response answerOk(Interceptor.Chain chain) {
    return new Response.Builder().request(chain.request()).protocol(Protocol.HTTP_1_1).code(200).message("OK")
        .body(ResponseBody.create(OK, TEXT)).build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    okHttp.dispatcher().executorService().shutdown();
    okHttp.connectionPool().evictAll();
    if (server != null) {
      server.stop(0);
    }
  }

  @Benchmark
  public int call() throws IOException {
    try (Response response = okHttp.newCall(request).execute()) {
      return response.body().bytes().length + response.code();
    }
  }
}
