package dev.backoff.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpServer;
import dev.backoff.RetryExecutor;
import dev.backoff.http.RetryingHttpClient;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The library modules as a user on the module path sees them: a consumer with its own
 * {@code module-info} is compiled ({@code --release 17}) against the just-built modules and run in a
 * forked JVM on the module path, so a missing {@code requires} or {@code exports} in a descriptor fails here
 * (this build's own tests run on the class path, which ignores descriptors).
 */
@Tag("slow")
class ModulePathConsumerTest {
  private static final JavaCompiler JAVAC = ToolProvider.getSystemJavaCompiler();

  @TempDir Path dir;

  @Test
  void aConsumerOnTheModulePathRetriesThroughTheExecutorTheHttpClientAndEveryLibraryModule()
      throws Exception {
    Path classes = compile("consumer", """
        module consumer {
          requires dev.backoff.core;
          requires dev.backoff.http;
          requires dev.backoff.http.rules;
          requires dev.backoff.okhttp;
          requires dev.backoff.testing;
          requires dev.backoff.micrometer;
          requires dev.backoff.sim;
          requires dev.backoff.lab;
        }
        """, CONSUMER).classes();

    // Loopback server: the first request gets 503, the second 200, so the HTTP client retries once.
    AtomicInteger requests = new AtomicInteger();
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      byte[] body = (requests.incrementAndGet() == 1 ? "busy" : "hello").getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(requests.get() == 1 ? 503 : 200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    try {
      String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/";
      Run run = java(classes, "consumer/consumer.Main", url);

      assertThat(run.exitCode()).as(run.output() + run.errors()).isZero();
      assertThat(run.output().lines()).containsExactly(
          "modules: consumer dev.backoff.core dev.backoff.http dev.backoff.http.rules dev.backoff.lab"
              + " dev.backoff.micrometer dev.backoff.okhttp dev.backoff.sim dev.backoff.testing",
          "executor: ok after 2 attempts",
          "http: 200 hello",
          "rules: [429, 500, 502, 503, 504] Optional[PT2M]",
          "okhttp: 200 hello",
          "testing: 5",
          "spec: 1500000000",
          "micrometer: backoff.calls registered",
          "sim: {clients=3}",
          "lab: /admin/stats 200");
      assertThat(run.errors()).as("the consumer's standard error").isEmpty();
      assertThat(requests).hasValue(3);
    } finally {
      server.stop(0);
    }
  }

  @Test
  void aConsumerOnTheModulePathRetriesThroughApacheHttpClient5() throws Exception {
    // HttpClient's jars are automatic modules, named by their manifests; the adapter requires them static,
    // so the application requires them itself. As automatic modules they cannot say that they use jdk.net
    // (socket options): an application on the module path must add it (here, or --add-modules jdk.net).
    // Nor that they use SLF4J: from SLF4J 2 its API is an explicit module (org.slf4j), which no automatic
    // module pulls into the graph, so the application requires it too (with SLF4J 1.7, an automatic module,
    // it came along); its provider (here slf4j-nop) then joins by service binding.
    Compilation compilation = compile("hc5", """
        module consumer {
          requires dev.backoff.httpclient5;
          requires org.apache.httpcomponents.client5.httpclient5;
          requires org.apache.httpcomponents.core5.httpcore5;
          requires jdk.net;
          requires org.slf4j;
        }
        """, """
        package consumer;

        import dev.backoff.Backoff;
        import dev.backoff.RetryPolicy;
        import dev.backoff.httpclient5.HttpClient5Retry;
        import java.time.Duration;
        import org.apache.hc.client5.http.classic.methods.HttpGet;
        import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
        import org.apache.hc.core5.http.HttpResponse;
        import org.apache.hc.core5.http.io.entity.EntityUtils;

        public class Main {
          public static void main(String[] args) throws Exception {
            HttpClient5Retry retry = HttpClient5Retry.of(RetryPolicy.<HttpResponse>builder()
                .backoff(Backoff.fixed(Duration.ofMillis(10))).build());
            try (CloseableHttpClient client = retry.classicClientBuilder().build()) {
              String answer = client.execute(new HttpGet(args[0]),
                  response -> response.getCode() + " " + EntityUtils.toString(response.getEntity()));
              System.out.println("httpclient5: " + answer);
            }
          }
        }
        """);
    assertThat(compilation.exitCode()).as(compilation.diagnostics()).isZero();
    Path classes = compilation.classes();
    AtomicInteger requests = new AtomicInteger();
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      byte[] body = (requests.incrementAndGet() == 1 ? "busy" : "hello").getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(requests.get() == 1 ? 503 : 200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    try {
      Run run = java(classes, "consumer/consumer.Main", "http://127.0.0.1:" + server.getAddress().getPort() + "/");

      assertThat(run.exitCode()).as(run.output() + run.errors()).isZero();
      assertThat(run.output().lines()).containsExactly("httpclient5: 200 hello");
      assertThat(requests).hasValue(2);
    } finally {
      server.stop(0);
    }
  }

  @Test
  void aConsumerOnTheModulePathRetriesAGrpcCall() throws Exception {
    // gRPC's jars are automatic modules named by their manifests (io.grpc, io.grpc.inprocess, io.grpc.stub);
    // the adapter requires io.grpc transitively, the in-process transport and the stubs are the consumer's.
    // Guava (gRPC's, an automatic module) needs its failureaccess jar, which is an explicit module that no
    // descriptor requires: an application on the module path requires it (or --add-modules it), else the
    // first call fails with NoClassDefFoundError InternalFutureFailureAccess. gRPC's matter, not the adapter's.
    Compilation compilation = compile("grpc", """
        module consumer {
          requires dev.backoff.grpc;
          requires io.grpc.inprocess;
          requires io.grpc.stub;
          requires com.google.common.util.concurrent.internal;
        }
        """, """
        package consumer;

        import dev.backoff.Backoff;
        import dev.backoff.RetryPolicy;
        import dev.backoff.grpc.GrpcRetryInterceptor;
        import io.grpc.CallOptions;
        import io.grpc.ManagedChannel;
        import io.grpc.MethodDescriptor;
        import io.grpc.Server;
        import io.grpc.ServerServiceDefinition;
        import io.grpc.Status;
        import io.grpc.inprocess.InProcessChannelBuilder;
        import io.grpc.inprocess.InProcessServerBuilder;
        import io.grpc.stub.ClientCalls;
        import io.grpc.stub.ServerCalls;
        import java.io.ByteArrayInputStream;
        import java.io.IOException;
        import java.io.InputStream;
        import java.io.UncheckedIOException;
        import java.nio.charset.StandardCharsets;
        import java.util.concurrent.atomic.AtomicInteger;

        public final class Main {
          static final MethodDescriptor.Marshaller<String> STRINGS = new MethodDescriptor.Marshaller<>() {
            @Override
            public InputStream stream(String value) {
              return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
            }

            @Override
            public String parse(InputStream in) {
              try {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            }
          };
          static final MethodDescriptor<String, String> SAY = MethodDescriptor.<String, String>newBuilder()
              .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("consumer.Greeter/Say")
              .setRequestMarshaller(STRINGS).setResponseMarshaller(STRINGS).build();

          public static void main(String[] args) throws Exception {
            AtomicInteger calls = new AtomicInteger();
            Server server = InProcessServerBuilder.forName("consumer").directExecutor()
                .addService(ServerServiceDefinition.builder("consumer.Greeter")
                    .addMethod(SAY, ServerCalls.asyncUnaryCall((String request, io.grpc.stub.StreamObserver<String> out) -> {
                      if (calls.incrementAndGet() == 1) {
                        out.onError(Status.UNAVAILABLE.withDescription("busy").asRuntimeException());
                      } else {
                        out.onNext("hello " + request);
                        out.onCompleted();
                      }
                    }))
                    .build())
                .build().start();
            ManagedChannel channel = InProcessChannelBuilder.forName("consumer").directExecutor()
                .intercept(GrpcRetryInterceptor.of(
                    RetryPolicy.<Object>builder().maxAttempts(3).backoff(Backoff.none()).build()))
                .build();
            try {
              String reply = ClientCalls.blockingUnaryCall(channel, SAY, CallOptions.DEFAULT, "you");
              System.out.println("grpc: " + reply + " after " + calls.get() + " calls");
            } finally {
              channel.shutdownNow();
              server.shutdownNow();
            }
          }
        }
        """);
    assertThat(compilation.exitCode()).as(compilation.diagnostics()).isZero();

    Run run = java(compilation.classes(), "consumer/consumer.Main");

    assertThat(run.exitCode()).as(run.output() + run.errors()).isZero();
    assertThat(run.output().lines()).containsExactly("grpc: hello you after 2 calls");
  }

  @Test
  void aConsumerOnTheModulePathTracesRetriesWithOpenTelemetry() throws Exception {
    // OpenTelemetry's jars are automatic modules named by their manifests; the adapter requires the API
    // transitively, the SDK is the consumer's.
    Compilation compilation = compile("otel", """
        module consumer {
          requires dev.backoff.opentelemetry;
          requires io.opentelemetry.sdk;
          requires io.opentelemetry.sdk.trace;
          requires io.opentelemetry.sdk.common;
        }
        """, """
        package consumer;

        import dev.backoff.Backoff;
        import dev.backoff.RetryExecutor;
        import dev.backoff.RetryPolicy;
        import dev.backoff.opentelemetry.RetryTelemetry;
        import io.opentelemetry.sdk.OpenTelemetrySdk;
        import io.opentelemetry.sdk.common.CompletableResultCode;
        import io.opentelemetry.sdk.trace.SdkTracerProvider;
        import io.opentelemetry.sdk.trace.data.SpanData;
        import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
        import io.opentelemetry.sdk.trace.export.SpanExporter;
        import java.io.IOException;
        import java.util.ArrayList;
        import java.util.Collection;
        import java.util.Collections;
        import java.util.List;
        import java.util.concurrent.atomic.AtomicInteger;

        public final class Main {
          public static void main(String[] args) throws Exception {
            List<String> ended = Collections.synchronizedList(new ArrayList<>());
            SpanExporter exporter = new SpanExporter() {
              @Override
              public CompletableResultCode export(Collection<SpanData> spans) {
                spans.forEach(span -> ended.add(span.getName()));
                return CompletableResultCode.ofSuccess();
              }

              @Override
              public CompletableResultCode flush() {
                return CompletableResultCode.ofSuccess();
              }

              @Override
              public CompletableResultCode shutdown() {
                return CompletableResultCode.ofSuccess();
              }
            };
            OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setTracerProvider(
                SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build()).build();
            RetryPolicy<String> policy = RetryPolicy.<String>builder().name("orders").maxAttempts(3)
                .backoff(Backoff.none()).listener(RetryTelemetry.create(sdk).listener()).build();
            AtomicInteger attempts = new AtomicInteger();
            String result = RetryExecutor.of(policy).call(() -> {
              if (attempts.incrementAndGet() == 1) {
                throw new IOException("the first attempt fails");
              }
              return "ok";
            });
            List<String> names = new ArrayList<>(ended);
            Collections.sort(names);
            System.out.println("opentelemetry: " + result + ", spans " + names);
            sdk.close();
          }
        }
        """);
    assertThat(compilation.exitCode()).as(compilation.diagnostics()).isZero();

    Run run = java(compilation.classes(), "consumer/consumer.Main");

    assertThat(run.exitCode()).as(run.output() + run.errors()).isZero();
    assertThat(run.output().lines())
        .containsExactly("opentelemetry: ok, spans [retry attempt, retry attempt, retry orders]");
  }

  @Test
  void aConsumerOnTheModulePathRetriesADynamoDbCallUnderABackoffPolicy() throws Exception {
    // The SDK's jars are automatic modules named by their manifests; the adapter requires the retries API
    // transitively (its types are in the adapter's API), the service client, its HTTP client, regions and
    // credentials are the application's. The SDK logs through SLF4J, whose API is an explicit module from SLF4J 2
    // that no automatic module pulls into the graph: the application requires it (as with HttpClient 5).
    Compilation compilation = compile("aws", """
        module consumer {
          requires dev.backoff.aws;
          requires software.amazon.awssdk.services.dynamodb;
          requires software.amazon.awssdk.http.urlconnection;
          requires software.amazon.awssdk.regions;
          requires software.amazon.awssdk.auth;
          requires software.amazon.awssdk.awscore;
          requires software.amazon.awssdk.core;
          requires org.slf4j;
        }
        """, """
        package consumer;

        import dev.backoff.aws.AwsRetryMode;
        import dev.backoff.aws.AwsSdkRetryStrategy;
        import java.net.URI;
        import java.util.Map;
        import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
        import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
        import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
        import software.amazon.awssdk.regions.Region;
        import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
        import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

        public final class Main {
          public static void main(String[] args) {
            AwsSdkRetryStrategy strategy = AwsSdkRetryStrategy.builder(AwsRetryMode.STANDARD).dynamoDb().build();
            try (DynamoDbClient client = DynamoDbClient.builder()
                .endpointOverride(URI.create(args[0]))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDTEST", "secret")))
                .httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(o -> o.retryStrategy(strategy))
                .build()) {
              AttributeValue id = client.getItem(r -> r.tableName("orders").key(Map.of("id", AttributeValue.fromS("1"))))
                  .item().get("id");
              System.out.println("aws: item " + id.s() + ", budget " + strategy.policy().budget().level());
            }
          }
        }
        """);
    assertThat(compilation.exitCode()).as(compilation.diagnostics()).isZero();
    // DynamoDB's answers: a 500 InternalServerError (retried after the adapter's short backoff), then the item.
    List<String> retryHeaders = new ArrayList<>();
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      exchange.getRequestBody().readAllBytes();
      synchronized (retryHeaders) {
        retryHeaders.add(exchange.getRequestHeaders().getFirst("amz-sdk-request"));
      }
      boolean first = retryHeaders.size() == 1;
      byte[] body = (first
          ? "{\"__type\":\"com.amazonaws.dynamodb.v20120810#InternalServerError\",\"message\":\"down\"}"
          : "{\"Item\":{\"id\":{\"S\":\"1\"}}}").getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.0");
      exchange.sendResponseHeaders(first ? 500 : 200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    try {
      Run run = java(compilation.classes(), "consumer/consumer.Main",
          "http://127.0.0.1:" + server.getAddress().getPort());

      assertThat(run.exitCode()).as(run.output() + run.errors()).isZero();
      // The retry took 5 from the policy's budget of 500; the success after it gave them back.
      assertThat(run.output().lines()).containsExactly("aws: item 1, budget 500.0");
      // The SDK told the server the policy's attempt limit (DynamoDB's 9) on both requests.
      assertThat(retryHeaders).containsExactly("attempt=1; max=9", "attempt=2; max=9");
    } finally {
      server.stop(0);
    }
  }

  @Test
  void aConsumerOnTheModulePathRetriesThroughSpringsRestClient() throws Exception {
    // Spring's jars are automatic modules named by their manifests (spring.web, spring.core); the adapter
    // requires them static, so the application requires them itself. As automatic modules they cannot say
    // that JdkClientHttpRequestFactory uses java.net.http: the application requires it too.
    Compilation compilation = compile("spring", """
        module consumer {
          requires dev.backoff.spring.web;
          requires spring.web;
          requires spring.core;
          requires java.net.http;
        }
        """, """
        package consumer;

        import dev.backoff.Backoff;
        import dev.backoff.RetryPolicy;
        import dev.backoff.spring.web.BackoffRestInterceptor;
        import java.nio.charset.StandardCharsets;
        import org.springframework.http.client.JdkClientHttpRequestFactory;
        import org.springframework.web.client.RestClient;

        public final class Main {
          public static void main(String[] args) {
            RestClient client = RestClient.builder()
                .requestFactory(new JdkClientHttpRequestFactory())
                .requestInterceptor(BackoffRestInterceptor.of(
                    RetryPolicy.<Object>builder().maxAttempts(3).backoff(Backoff.none()).build()))
                .build();
            String answer = client.get().uri(args[0]).exchange((request, response) ->
                response.getStatusCode().value() + " " + new String(response.getBody().readAllBytes(), StandardCharsets.UTF_8));
            System.out.println("spring-web: " + answer);
          }
        }
        """);
    assertThat(compilation.exitCode()).as(compilation.diagnostics()).isZero();
    AtomicInteger requests = new AtomicInteger();
    HttpServer server = busyOnceServer(requests);
    try {
      Run run = java(compilation.classes(), "consumer/consumer.Main",
          "http://127.0.0.1:" + server.getAddress().getPort() + "/");

      assertThat(run.exitCode()).as(run.output() + run.errors()).isZero();
      assertThat(run.output().lines()).containsExactly("spring-web: 200 hello");
      assertThat(requests).hasValue(2);
    } finally {
      server.stop(0);
    }
  }

  /** A loopback server answering the first request 503 "busy", the others 200 "hello". */
  private static HttpServer busyOnceServer(AtomicInteger requests) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      exchange.getRequestBody().readAllBytes();
      boolean first = requests.incrementAndGet() == 1;
      byte[] body = (first ? "busy" : "hello").getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(first ? 503 : 200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    return server;
  }

  @Test
  void theReactorAndKotlinDriversRunOnTheModulePath() throws Exception {
    // Both drivers reach the core's loop through the driver SPI, exported to them by name: a missing
    // qualified export would fail here with an IllegalAccessError. The Kotlin jar is an automatic module, named
    // by its manifest: only the packaged jar has one (a plain `mvn test` puts its class directory here).
    assumeTrue(location(dev.backoff.kotlin.RetryingKt.class).endsWith(".jar"),
        "backoff-kotlin is not packaged: its module name comes from its jar's manifest");
    Compilation compilation = compile("drivers", """
        module drivers {
          requires dev.backoff.reactor;
          requires dev.backoff.kotlin;
          requires kotlin.stdlib;
          requires kotlinx.coroutines.core;
        }
        """, """
        package consumer;

        import dev.backoff.Backoff;
        import dev.backoff.RetryPolicy;
        import dev.backoff.kotlin.RetryingKt;
        import dev.backoff.reactor.BackoffOperators;
        import java.io.IOException;
        import java.util.concurrent.atomic.AtomicInteger;
        import kotlin.coroutines.EmptyCoroutineContext;
        import kotlinx.coroutines.BuildersKt;
        import reactor.core.publisher.Mono;

        public final class Main {
          public static void main(String[] args) throws Exception {
            RetryPolicy<String> policy = RetryPolicy.<String>builder().maxAttempts(3).backoff(Backoff.none()).build();
            AtomicInteger subscriptions = new AtomicInteger();
            String value = Mono.defer(() -> subscriptions.incrementAndGet() == 1
                    ? Mono.<String>error(new IOException("the first attempt fails")) : Mono.just("ok"))
                .transform(BackoffOperators.retry(policy))
                .block();
            System.out.println("reactor: " + value + " after " + subscriptions.get() + " subscriptions");

            AtomicInteger attempts = new AtomicInteger();
            // The suspend function called from Java in continuation-passing style.
            Object result = BuildersKt.runBlocking(EmptyCoroutineContext.INSTANCE, (scope, continuation) ->
                RetryingKt.retrying(policy, policy.clock(), policy.random(), blockContinuation -> {
                  if (attempts.incrementAndGet() == 1) {
                    throw new IllegalStateException("the first attempt fails");
                  }
                  return "ok";
                }, continuation));
            System.out.println("kotlin: " + result + " after " + attempts.get() + " attempts");
          }
        }
        """);
    assertThat(compilation.exitCode()).as(compilation.diagnostics()).isZero();
    Path classes = compilation.classes();

    Run run = java(classes, "drivers/consumer.Main");

    assertThat(run.exitCode()).as(run.output() + run.errors()).isZero();
    assertThat(run.output().lines()).containsExactly("reactor: ok after 2 subscriptions", "kotlin: ok after 2 attempts");
    assertThat(run.errors()).as("the consumer's standard error").isEmpty();
  }

  @Test
  void theDriverSpiIsNotReadableByAConsumer() throws Exception {
    Compilation compilation = compile("spi", "module spi { requires dev.backoff.core; }\n", """
        package consumer;

        import dev.backoff.driver.RetryLoops;

        public final class Main {
          public static void main(String[] args) {
            System.out.println(RetryLoops.class);
          }
        }
        """);

    assertThat(compilation.exitCode()).as(compilation.diagnostics()).isNotZero();
    assertThat(compilation.diagnostics())
        .contains("package dev.backoff.driver is declared in module dev.backoff.core, which does not export it");
  }

  @Test
  void theExportedApiPackagesAreReadable() throws Exception {
    Compilation compilation = compile("api", "module api { requires dev.backoff.core; }\n", """
        package consumer;

        public final class Main {
          public static void main(String[] args) {
            System.out.println(dev.backoff.RetryPolicy.class);
            System.out.println(dev.backoff.plan.Schedule.class);
            System.out.println(dev.backoff.spec.Durations.class);
          }
        }
        """);

    assertThat(compilation.exitCode()).as(compilation.diagnostics()).isZero();
  }

  private static final String CONSUMER = """
      package consumer;

      import dev.backoff.Backoff;
      import dev.backoff.RetryExecutor;
      import dev.backoff.RetryPolicy;
      import dev.backoff.http.RetryingHttpClient;
      import dev.backoff.http.rules.HttpRules;
      import dev.backoff.http.rules.RetryAfter;
      import dev.backoff.lab.LabServer;
      import dev.backoff.micrometer.BackoffMetrics;
      import dev.backoff.okhttp.BackoffOkHttp;
      import dev.backoff.sim.ScenarioFiles;
      import dev.backoff.spec.Durations;
      import dev.backoff.testing.FakeClock;
      import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
      import java.io.IOException;
      import java.net.URI;
      import java.net.http.HttpClient;
      import java.net.http.HttpRequest;
      import java.net.http.HttpResponse;
      import java.util.concurrent.atomic.AtomicInteger;
      import java.util.stream.Collectors;

      public final class Main {
        public static void main(String[] args) throws Exception {
          // dev.backoff.kotlin, an automatic module, is resolved with the other automatic modules when it is
          // packaged (its name comes from its jar's manifest); it is not one this consumer requires.
          System.out.println("modules: " + ModuleLayer.boot().modules().stream().map(Module::getName)
              .filter(name -> name.equals("consumer") || name.startsWith("dev.backoff."))
              .filter(name -> !name.equals("dev.backoff.kotlin"))
              .sorted().collect(Collectors.joining(" ")));

          AtomicInteger attempts = new AtomicInteger();
          RetryPolicy<String> policy = RetryPolicy.<String>builder().maxAttempts(3).backoff(Backoff.none()).build();
          String result = RetryExecutor.of(policy).call(() -> {
            if (attempts.incrementAndGet() == 1) {
              throw new IOException("the first attempt fails");
            }
            return "ok";
          });
          System.out.println("executor: " + result + " after " + attempts.get() + " attempts");

          RetryingHttpClient client = RetryingHttpClient.builder(HttpClient.newHttpClient())
              .policy(RetryPolicy.<HttpResponse<?>>builder().maxAttempts(3).backoff(Backoff.none()).build())
              .build();
          HttpResponse<String> response = client.send(
              HttpRequest.newBuilder(URI.create(args[0])).build(), HttpResponse.BodyHandlers.ofString());
          System.out.println("http: " + response.statusCode() + " " + response.body());
          System.out.println("rules: " + HttpRules.defaults().retryStatuses() + " "
              + RetryAfter.parse("120", java.time.Instant.EPOCH));

          // OkHttp through the adapter's interceptor: okhttp3, okio and kotlin.stdlib on the module path too.
          okhttp3.OkHttpClient okHttp = new okhttp3.OkHttpClient.Builder()
              .addInterceptor(BackoffOkHttp.of(
                  RetryPolicy.<okhttp3.Response>builder().maxAttempts(2).backoff(Backoff.none()).build()).interceptor())
              .build();
          try (okhttp3.Response ok = okHttp.newCall(new okhttp3.Request.Builder().url(args[0]).build()).execute()) {
            System.out.println("okhttp: " + ok.code() + " " + ok.body().string());
          }
          okHttp.dispatcher().executorService().shutdown();
          okHttp.connectionPool().evictAll();

          System.out.println("testing: " + new FakeClock(5).nanoTime());
          System.out.println("spec: " + Durations.parseNanos("1.5s"));

          SimpleMeterRegistry registry = new SimpleMeterRegistry();
          RetryExecutor.of(BackoffMetrics.of(registry).instrument(policy)).call(() -> "ok");
          System.out.println("micrometer: backoff.calls "
              + (registry.find("backoff.calls").counter() == null ? "missing" : "registered"));

          // YAML through Jackson, on the module path.
          System.out.println("sim: " + ScenarioFiles.parseMap("clients: 3\\n", "inline"));

          try (LabServer lab = LabServer.builder().start()) {
            HttpResponse<String> stats = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + lab.port() + "/admin/stats")).build(),
                HttpResponse.BodyHandlers.ofString());
            System.out.println("lab: /admin/stats " + stats.statusCode());
          }
        }
      }
      """;

  private record Compilation(int exitCode, String diagnostics, Path classes) {}

  private record Run(int exitCode, String output, String errors) {}

  private Compilation compile(String name, String moduleInfo, String main) throws IOException {
    Path sources = dir.resolve(name + "-src");
    Path classes = dir.resolve(name + "-classes");
    Files.createDirectories(sources.resolve("consumer"));
    Files.writeString(sources.resolve("module-info.java"), moduleInfo);
    Files.writeString(sources.resolve("consumer/Main.java"), main);
    ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
    int exitCode = JAVAC.run(null, diagnostics, diagnostics,
        // An empty class path: javac would otherwise default to this JVM's, where every package is readable.
        "--release", "17", "--class-path", Files.createDirectories(dir.resolve("empty")).toString(),
        "--module-path", modulePath(), "-d", classes.toString(),
        sources.resolve("module-info.java").toString(), sources.resolve("consumer/Main.java").toString());
    return new Compilation(exitCode, diagnostics.toString(StandardCharsets.UTF_8), classes);
  }

  private Run java(Path classes, String mainModuleAndClass, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(
        Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
        "--module-path", classes + File.pathSeparator + modulePath()));
    if (Runtime.version().feature() >= 24) {
      // As the lab commands do: keeps Netty off sun.misc.Unsafe, whose use the JVM warns about from JDK 24.
      command.add("-Dio.netty.noUnsafe=true");
    }
    command.addAll(List.of("-m", mainModuleAndClass));
    command.addAll(Arrays.asList(args));
    // Standard error (logging, a stack trace) goes to a file, kept out of the asserted output.
    Path errors = dir.resolve("stderr.txt");
    Process process = new ProcessBuilder(command).redirectError(errors.toFile()).start();
    byte[] output = process.getInputStream().readAllBytes();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the consumer did not finish in 30 s: " + new String(output, StandardCharsets.UTF_8));
    }
    return new Run(process.exitValue(), new String(output, StandardCharsets.UTF_8), Files.readString(errors));
  }

  /**
   * The library modules as this build made them (jars in a reactor {@code verify}, class directories with
   * their {@code module-info.class} in a {@code test} run), and their third-party dependencies: the test
   * class path without the test frameworks and this module's own classes.
   */
  private static String modulePath() {
    List<String> entries = new ArrayList<>();
    entries.add(location(RetryExecutor.class));
    entries.add(location(RetryingHttpClient.class));
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      String name = Paths.get(entry).getFileName().toString();
      boolean testFramework = name.matches(
          "(junit|opentest4j|apiguardian|jqwik|assertj|byte-buddy|surefire|common-java5|common-junit).*");
      boolean library = name.endsWith(".jar") || entry.contains("backoff-");
      if (library && !testFramework && !entry.contains("backoff-it") && !entries.contains(entry)) {
        entries.add(entry);
      }
    }
    return entries.stream().collect(Collectors.joining(File.pathSeparator));
  }

  private static String location(Class<?> type) {
    try {
      return Paths.get(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
