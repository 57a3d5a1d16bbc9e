package dev.backoff.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.RetryPolicy;
import dev.backoff.testing.FakeScheduler;
import dev.backoff.testing.RecordingSleeper;
import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedHttpServer.Response;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * The starter's behaviours in a real Spring Boot application (auto-configuration as an application gets
 * it, no list of configurations given), written once against types both Spring Boot lines share and run
 * on each: {@code Boot3StarterTest} here (Spring Boot 3.5), {@code Boot4StarterTest} in
 * backoff-spring-boot4-tests (Spring Boot 4, through this module's test-jar). Boot's own
 * {@code RestClient.Builder}, {@code WebClient.Builder} and {@code MeterRegistry} beans are used, so each
 * line's customizer types and metrics auto-configuration are what is exercised.
 */
public abstract class StarterScenarios {
  /** The properties of the one context the scenarios share (each scenario has its own policy). */
  static final String[] PROPERTIES = {
      "backoff.budgets.shared.spec=token-bucket:100:5:10",
      "backoff.policies.orders.strategy=exponential:100ms:2:20s:none",
      "backoff.policies.orders.max-attempts=4",
      "backoff.policies.orders.max-elapsed=10s",
      "backoff.policies.orders.retry-on=java.io.IOException",
      "backoff.policies.orders.budget=shared",
      "backoff.policies.http.strategy=exponential:200ms:2:20s:none",
      "backoff.policies.http.max-attempts=3",
      "backoff.policies.http.retry-on-statuses=503,502",
      "backoff.policies.inventory.concurrency-limiter.algorithm=aimd",
      "backoff.policies.inventory.concurrency-limiter.max=50",
      "backoff.policies.inventory.concurrency-limiter.retry-share=0.5",
      "backoff.http.rest-client-policy=http",
      "backoff.http.web-client-policy=http",
      "management.endpoints.web.exposure.include=health,backoff"};

  private static ConfigurableApplicationContext context;

  /** An application as a user writes one: Boot's auto-configuration, a fake clock, one annotated bean. */
  @SpringBootConfiguration
  @EnableAutoConfiguration // no component scan: the test package holds other configurations
  @Import(BackoffAutoConfigurationTest.FakeTime.class)
  public static class App {
    @Bean
    Beans.Flaky flaky() {
      return new Beans.Flaky(0);
    }
  }

  /** Starts {@code app} as a non-web Spring Boot application with {@code properties}. */
  protected static ConfigurableApplicationContext start(Class<?> app, String... properties) {
    return new SpringApplicationBuilder(app).web(WebApplicationType.NONE).properties(properties).run();
  }

  @BeforeAll
  static void startTheApplication() {
    context = start(App.class, PROPERTIES);
  }

  @AfterAll
  static void stopTheApplication() {
    if (context != null) {
      context.close();
    }
  }

  /** The shared application's context. */
  protected static ConfigurableApplicationContext context() {
    return context;
  }

  @Test
  void propertiesBindIntoNamedPoliciesAndBeans() {
    BackoffRegistry registry = context.getBean(BackoffRegistry.class);
    assertThat(registry.names()).containsExactlyInAnyOrder("orders", "http", "inventory");
    RetryPolicy<?> orders = context.getBean("ordersRetryPolicy", RetryPolicy.class);
    assertThat(orders).isSameAs(registry.policy("orders"));
    assertThat(orders.maxAttempts()).isEqualTo(4);
    assertThat(orders.maxElapsed()).isEqualTo(Duration.ofSeconds(10));
    assertThat(orders.budget()).isSameAs(registry.budget("shared"));
    assertThat(registry.settings("http").getRetryOnStatuses()).containsExactly(503, 502);
    assertThat(registry.policy("inventory").concurrencyLimiter().toString()).isEqualTo("ConcurrencyLimiter[inventory: "
        + "aimd, backoff ratio 0.9, latency threshold 5s, limit 20 in [1, 50], 0 in flight, retry share 0.5]");
  }

  @Test
  void anAnnotatedBeanRetriesWithThePolicysBackoff_andTheEndpointAndMetersCountIt() throws Exception {
    Beans.Flaky flaky = context.getBean(Beans.Flaky.class);
    RecordingSleeper sleeper = context.getBean(RecordingSleeper.class);
    BackoffEndpoint endpoint = context.getBean(BackoffEndpoint.class);
    MeterRegistry meters = context.getBean(MeterRegistry.class);
    long calls = (Long) endpoint.policy("orders").get("calls");
    long attempts = (Long) endpoint.policy("orders").get("attempts");
    double recovered = meters.find("backoff.calls").tags("policy", "orders", "outcome", "success_after_retries")
        .counters().stream().mapToDouble(c -> c.count()).sum();
    int sleeps = sleeper.sleeps().size();
    int before = flaky.calls();
    flaky.failUpTo(before + 2);

    assertThat(flaky.sync()).isEqualTo("ok after " + (before + 3));

    assertThat(flaky.calls() - before).isEqualTo(3);
    assertThat(sleeper.sleeps().subList(sleeps, sleeper.sleeps().size()))
        .containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
    Map<String, Object> view = endpoint.policy("orders");
    assertThat(view).containsEntry("strategy", "exponential:100ms:2:20s:none").containsEntry("maxAttempts", 4)
        .containsEntry("budget", "shared").containsEntry("calls", calls + 1).containsEntry("attempts", attempts + 3);
    assertThat(endpoint.policy("nope")).isNull();
    assertThat(meters.get("backoff.calls").tags("policy", "orders", "outcome", "success_after_retries")
        .counter().count()).isEqualTo(recovered + 1);
    assertThat(meters.get("backoff.budget.level").tag("policy", "orders").gauge().value())
        .isEqualTo(context.getBean(BackoffRegistry.class).budget("shared").level());
  }

  @Test
  void bootsRestClientBuilderRetriesWithTheNamedPolicy() throws Exception {
    RecordingSleeper sleeper = context.getBean(RecordingSleeper.class);
    int sleeps = sleeper.sleeps().size();
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503), Response.of(502),
        Response.of(200, "fine"))) {
      RestClient client = context.getBean(RestClient.Builder.class).build();

      assertThat(client.get().uri(server.uri()).retrieve().body(String.class)).isEqualTo("fine");

      assertThat(server.requestCount()).isEqualTo(3);
      assertThat(sleeper.sleeps().subList(sleeps, sleeper.sleeps().size()))
          .containsExactly(Duration.ofMillis(200), Duration.ofMillis(400));
    }
  }

  @Test
  void aStatusOutsideThePolicysIsNotRetried() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(500), Response.of(200))) {
      RestClient client = context.getBean(RestClient.Builder.class).build();
      int status = client.get().uri(server.uri()).exchange((request, response) -> response.getStatusCode().value());
      assertThat(status).isEqualTo(500);
      assertThat(server.requestCount()).isEqualTo(1);
    }
  }

  @Test
  void bootsWebClientBuilderRetriesOnTheScheduler() throws Exception {
    FakeScheduler scheduler = context.getBean(FakeScheduler.class);
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503), Response.of(200, "fine"))) {
      WebClient client = context.getBean(WebClient.Builder.class).clientConnector(new JdkClientHttpConnector()).build();
      int delays = scheduler.delays().size();
      CompletableFuture<String> body = client.get().uri(server.uri()).retrieve().bodyToMono(String.class).toFuture();

      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (scheduler.pending() == 0 && System.nanoTime() - end < 0) {
        Thread.sleep(5); // the first attempt completes on the client's thread
      }
      List<Duration> waits = scheduler.delays().subList(delays, scheduler.delays().size());
      assertThat(waits).containsExactly(Duration.ofMillis(200));
      scheduler.advance(Duration.ofMillis(200));
      assertThat(body.get(20, TimeUnit.SECONDS)).isEqualTo("fine");
      assertThat(server.requestCount()).isEqualTo(2);
    }
  }

  @Test
  @Tag("slow") // three applications start (and fail)
  void aBadPropertyFailsStartupNamingIt() {
    assertThatThrownBy(() -> start(App.class, "backoff.policies.orders.max-attempts=0").close())
        .rootCause().hasMessageContaining("backoff.policies.orders.max-attempts").hasMessageContaining("'0'");
    assertThatThrownBy(() -> start(App.class, "backoff.policies.orders.strategy=exponentail").close())
        .rootCause().hasMessageContaining("backoff.policies.orders.strategy").hasMessageContaining("exponentail");
    assertThatThrownBy(() -> start(App.class, "backoff.policies.orders.max-attempts=3",
        "backoff.http.rest-client-policy=ordres").close())
        .rootCause().hasMessageContaining("backoff.http.rest-client-policy").hasMessageContaining("'ordres'");
  }
}
