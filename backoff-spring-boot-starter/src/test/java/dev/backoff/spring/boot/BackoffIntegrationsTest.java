package dev.backoff.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.backoff.testing.RecordingSleeper;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import dev.backoff.testing.FakeScheduler;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.web.client.RestClientCustomizer;
import org.springframework.boot.web.reactive.function.client.WebClientCustomizer;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/** The starter with Micrometer and backoff-spring-web present. */
class BackoffIntegrationsTest {
  private static final String[] ORDERS = {
      "backoff.policies.orders.strategy=exponential:100ms:2:20s:none",
      "backoff.policies.orders.max-attempts=3",
      "backoff.policies.orders.retry-on=java.io.IOException"};

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class, BackoffMetricsAutoConfiguration.class,
          BackoffHttpAutoConfiguration.class))
      .withUserConfiguration(BackoffAutoConfigurationTest.FakeTime.class);

  private HttpServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  /** A loopback server answering these statuses in turn (the last repeats), counting requests. */
  private AtomicInteger serve(Integer... statuses) throws Exception {
    Deque<Integer> script = new ArrayDeque<>(List.of(statuses));
    AtomicInteger requests = new AtomicInteger();
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/", exchange -> {
      requests.incrementAndGet();
      int status;
      synchronized (script) {
        status = script.size() > 1 ? script.poll() : script.peek();
      }
      byte[] body = ("status " + status).getBytes(StandardCharsets.UTF_8);
      if (status != 200) { // read only by a policy whose wait-headers name it
        exchange.getResponseHeaders().add("retry-after-ms", "700");
      }
      exchange.sendResponseHeaders(status, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    return requests;
  }

  private String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/";
  }

  @Test
  void policiesAreBoundToTheMeterRegistry() {
    runner.withPropertyValues(ORDERS)
        .withPropertyValues("backoff.budgets.shared.spec=token-bucket:100:5:10", "backoff.policies.orders.budget=shared")
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withBean(Beans.Flaky.class, () -> new Beans.Flaky(1))
        .run(context -> {
          context.getBean(Beans.Flaky.class).sync(); // 2 attempts
          MeterRegistry meters = context.getBean(MeterRegistry.class);
          assertThat(meters.get("backoff.calls").tags("policy", "orders", "outcome", "success_after_retries")
              .counter().count()).isEqualTo(1.0);
          assertThat(meters.get("backoff.attempts").tag("policy", "orders").summary().totalAmount()).isEqualTo(2.0);
          assertThat(meters.get("backoff.retry.delay").tag("policy", "orders").timer().totalTime(
              java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(100.0);
          assertThat(meters.get("backoff.budget.level").tag("policy", "orders").gauge().value()).isEqualTo(100.0);
        });
  }

  @Test
  void withoutAMeterRegistryNothingIsBound() {
    runner.withPropertyValues(ORDERS).run(context -> {
      assertThat(context).hasNotFailed().doesNotHaveBean(MeterRegistry.class);
      assertThat(context.getBean(BackoffRegistry.class).policy("orders").maxAttempts()).isEqualTo(3);
    });
  }

  @Test
  void theRestClientCustomizerAppliesTheNamedPolicy() throws Exception {
    AtomicInteger requests = serve(503, 502, 200);
    runner.withPropertyValues(ORDERS).withPropertyValues("backoff.http.rest-client-policy=orders").run(context -> {
      RestClient.Builder builder = RestClient.builder().requestFactory(new JdkClientHttpRequestFactory());
      context.getBean(RestClientCustomizer.class).customize(builder);

      assertThat(builder.build().get().uri(url()).retrieve().body(String.class)).isEqualTo("status 200");
      assertThat(requests).hasValue(3);
      assertThat(context.getBean(RecordingSleeper.class).sleeps())
          .containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
    });
  }

  @Test
  void thePolicysStatusesReplaceTheDefaults() throws Exception {
    AtomicInteger requests = serve(500, 200);
    runner.withPropertyValues(ORDERS)
        .withPropertyValues("backoff.http.rest-client-policy=orders", "backoff.policies.orders.retry-on-statuses=503,429")
        .run(context -> {
          RestClient.Builder builder = RestClient.builder().requestFactory(new JdkClientHttpRequestFactory());
          context.getBean(RestClientCustomizer.class).customize(builder);
          int status = builder.build().get().uri(url()).exchange((request, response) -> response.getStatusCode().value());
          assertThat(status).isEqualTo(500); // 500 is not among this policy's statuses
          assertThat(requests).hasValue(1);
        });
  }

  @Test
  void thePolicysWaitHeadersAreReadAsTheServersWait() throws Exception {
    AtomicInteger requests = serve(503, 200);
    runner.withPropertyValues(ORDERS)
        .withPropertyValues("backoff.http.rest-client-policy=orders", "backoff.policies.orders.wait-headers=retry-after-ms")
        .run(context -> {
          RestClient.Builder builder = RestClient.builder().requestFactory(new JdkClientHttpRequestFactory());
          context.getBean(RestClientCustomizer.class).customize(builder);

          assertThat(builder.build().get().uri(url()).retrieve().body(String.class)).isEqualTo("status 200");
          assertThat(requests).hasValue(2);
          // The server's 700ms, not the backoff's 100ms (without the property the 503 waits 100ms: see above).
          assertThat(context.getBean(RecordingSleeper.class).sleeps()).containsExactly(Duration.ofMillis(700));
        });
  }

  @Test
  void aMisspeltWaitHeaderFailsTheContextNamingTheProperty() {
    runner.withPropertyValues(ORDERS).withPropertyValues("backoff.policies.orders.wait-headers=retry-after-msec")
        .run(context -> assertThat(context).getFailure().rootCause()
            .hasMessageContaining("backoff.policies.orders.wait-headers").hasMessageContaining("'retry-after-msec'")
            .hasMessageContaining("did you mean 'retry-after-ms'?"));
  }

  @Test
  void anUnknownPolicyForTheHttpClientsFailsTheContext() {
    runner.withPropertyValues(ORDERS).withPropertyValues("backoff.http.web-client-policy=ordres")
        .run(context -> assertThat(context).getFailure().rootCause()
            .hasMessageContaining("backoff.http.web-client-policy").hasMessageContaining("'ordres'"));
  }

  @Test
  void theWebClientCustomizerAppliesTheNamedPolicyOnTheScheduler() throws Exception {
    AtomicInteger requests = serve(503, 200);
    runner.withPropertyValues(ORDERS).withPropertyValues("backoff.http.web-client-policy=orders").run(context -> {
      WebClient.Builder builder = WebClient.builder().clientConnector(new JdkClientHttpConnector());
      context.getBean(WebClientCustomizer.class).customize(builder);
      CompletableFuture<String> body = builder.build().get().uri(url()).retrieve().bodyToMono(String.class).toFuture();

      FakeScheduler scheduler = context.getBean(FakeScheduler.class);
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (scheduler.pending() == 0 && System.nanoTime() - end < 0) {
        Thread.sleep(5); // the first attempt completes on the client's thread
      }
      assertThat(scheduler.delays()).containsExactly(Duration.ofMillis(100));
      scheduler.advance(Duration.ofMillis(100));
      assertThat(body.get(20, TimeUnit.SECONDS)).isEqualTo("status 200");
      assertThat(requests).hasValue(2);
    });
  }

  @Test
  void theWebClientCustomizerIsThereOnlyWhenAsked() {
    runner.withPropertyValues(ORDERS).run(context -> assertThat(context)
        .doesNotHaveBean(WebClientCustomizer.class).doesNotHaveBean(RestClientCustomizer.class));
    runner.withPropertyValues(ORDERS).withPropertyValues("backoff.http.web-client-policy=orders")
        .run(context -> assertThat(context).hasSingleBean(WebClientCustomizer.class));
  }
}
