package dev.backoff.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import dev.backoff.RetryExecutor;
import dev.backoff.Sleeper;
import dev.backoff.testing.RecordingSleeper;
import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedHttpServer.Response;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.Primary;
import org.springframework.core.SpringVersion;
import org.springframework.core.retry.RetryException;
import org.springframework.core.retry.RetryOperations;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.resilience.annotation.ConcurrencyLimit;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.resilience.annotation.Retryable;

/**
 * {@link StarterScenarios} on Spring Boot 4 (this module's build), and the starter beside Spring Framework
 * 7's own retry: {@code @Retryable} side by side on different methods, migrated by one annotation, refused
 * on one method; a {@code RetryTemplate} call moved onto a policy's executor.
 */
class Boot4StarterTest extends StarterScenarios {
  @Test
  void theseScenariosRunOnSpringBoot4AndSpringFramework7() {
    assertThat(SpringBootVersion.getVersion()).startsWith("4.");
    assertThat(SpringVersion.getVersion()).startsWith("7.");
  }

  /** The same method twice: retried by Spring Framework 7, and migrated to Backoff by one annotation. */
  public static class Inventory {
    final AtomicInteger springCalls = new AtomicInteger();
    final AtomicInteger backoffCalls = new AtomicInteger();

    /** The attempts each way so far (through the proxy: a proxy's own fields are not the bean's). */
    public int[] calls() {
      return new int[] {springCalls.get(), backoffCalls.get()};
    }

    @Retryable(includes = IOException.class, maxRetries = 3, delay = 1)
    public String bySpring() throws IOException {
      return attempt(springCalls);
    }

    @BackoffRetry("orders") // the migration: this annotation in place of the one above
    public String byBackoff() throws IOException {
      return attempt(backoffCalls);
    }

    private static String attempt(AtomicInteger calls) throws IOException {
      if (calls.incrementAndGet() <= 2) {
        throw new IOException("attempt " + calls.get() + " failed");
      }
      return "ok after " + calls.get();
    }
  }

  /** A method under both loops. */
  public static class Twice {
    @BackoffRetry("orders")
    @Retryable(includes = IOException.class, maxRetries = 3, delay = 1)
    public String stock() throws IOException {
      throw new IOException("never reached: the context fails first");
    }
  }

  /** An application with Spring Framework 7's resilient methods on, besides the starter. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  @EnableResilientMethods
  @Import(BackoffAutoConfigurationTest.FakeTime.class)
  static class Resilient {}

  /** Starts {@link Resilient} with {@code beans} (each class a bean) and the scenarios' properties. */
  private static ConfigurableApplicationContext startWith(Class<?>... beans) {
    Class<?>[] sources = new Class<?>[beans.length + 1];
    sources[0] = Resilient.class;
    System.arraycopy(beans, 0, sources, 1, beans.length);
    return new SpringApplicationBuilder(sources).web(WebApplicationType.NONE).properties(PROPERTIES).run();
  }

  /** A method under a rejecting concurrency limit of one and a retry; its first attempt fails. */
  public static class Limited {
    final AtomicInteger calls = new AtomicInteger();

    @BackoffRetry("orders")
    @ConcurrencyLimit(limit = 1, policy = ConcurrencyLimit.ThrottlePolicy.REJECT)
    public String stock() throws IOException {
      if (calls.incrementAndGet() == 1) {
        throw new IOException("attempt 1 failed");
      }
      return "ok after " + calls.get();
    }
  }

  /** While the retry waits, calls the limited method from another thread and keeps what that call got. */
  @Primary
  public static class ProbingSleeper implements Sleeper {
    private final ObjectProvider<Limited> limited;
    final List<String> seenWhileWaiting = new CopyOnWriteArrayList<>();

    public ProbingSleeper(ObjectProvider<Limited> limited) {
      this.limited = limited;
    }

    @Override
    public void sleep(long nanos) {
      seenWhileWaiting.add(CompletableFuture.supplyAsync(() -> {
        try {
          return limited.getObject().stock();
        } catch (Exception e) {
          return e.getClass().getSimpleName();
        }
      }).join());
    }
  }

  @Test
  @Tag("slow") // one more application starts
  void aConcurrencyLimitOnARetriedMethodIsTakenPerAttempt_aWaitBetweenAttemptsHoldsNoPermit() throws Exception {
    try (ConfigurableApplicationContext context = startWith(Limited.class, ProbingSleeper.class)) {
      // Attempt 1 fails; during its wait another thread's call gets the one permit and succeeds (call 2), which
      // a limit around the whole retried call would have refused (InvocationRejectedException); then attempt 2.
      assertThat(context.getBean(Limited.class).stock()).isEqualTo("ok after 3");
      assertThat(context.getBean(ProbingSleeper.class).seenWhileWaiting).containsExactly("ok after 2");
    }
  }

  /** Fails while {@code calls} (counted from 1) is at most 2. */
  private static String failTwice(AtomicInteger calls) throws IOException {
    if (calls.incrementAndGet() <= 2) {
      throw new IOException("attempt " + calls.get() + " failed");
    }
    return "ok after " + calls.get();
  }

  @Test
  void aRetryTemplateCallMovesUnderABackoffPolicyWithItsLambdaUnchanged() throws Exception {
    // Spring Framework 7: its loop, its backoff, nothing more.
    RetryTemplate template = new RetryTemplate(RetryPolicy.builder().includes(IOException.class).maxRetries(3)
        .delay(Duration.ofMillis(1)).build());
    AtomicInteger springCalls = new AtomicInteger();
    assertThat(template.execute(() -> failTwice(springCalls))).isEqualTo("ok after 3");
    // The same call under the named policy (its backoff, budget, breaker, limiter, metrics): the executor bean.
    @SuppressWarnings("unchecked")
    RetryExecutor<Object> orders = context().getBean("ordersRetryExecutor", RetryExecutor.class);
    AtomicInteger backoffCalls = new AtomicInteger();
    assertThat(orders.call(() -> failTwice(backoffCalls))).isEqualTo("ok after 3");

    // When retries run out, Spring wraps the last failure in a RetryException; Backoff throws it as it is.
    AtomicInteger failing = new AtomicInteger(-100);
    assertThatThrownBy(() -> template.execute(() -> failTwice(failing))).isInstanceOf(RetryException.class)
        .cause().isInstanceOf(IOException.class).hasMessage("attempt -96 failed");
    assertThatThrownBy(() -> orders.call(() -> failTwice(failing))).isExactlyInstanceOf(IOException.class)
        .hasMessage("attempt -92 failed");
  }

  @Test
  @Tag("slow") // two more applications start
  void springsRetryableAndBackoffRetryWorkSideBySide_andOnlyBackoffsCallsReachThePolicysMeters() throws Exception {
    try (ConfigurableApplicationContext context = startWith(Inventory.class)) {
      Inventory inventory = context.getBean(Inventory.class);
      assertThat(inventory.bySpring()).isEqualTo("ok after 3");
      assertThat(inventory.byBackoff()).isEqualTo("ok after 3");
      assertThat(inventory.calls()).containsExactly(3, 3);
      MeterRegistry meters = context.getBean(MeterRegistry.class);
      assertThat(meters.get("backoff.attempts").tag("policy", "orders").summary().totalAmount()).isEqualTo(3.0);
      assertThat(context.getBean(BackoffRegistry.class).stats("orders").calls()).isEqualTo(1);
    }
    assertThatThrownBy(() -> startWith(Twice.class).close()).rootCause()
        .isInstanceOf(BackoffConfigurationException.class)
        .hasMessageContaining("@BackoffRetry on " + Twice.class.getName() + ".stock")
        .hasMessageContaining("org.springframework.resilience.annotation.Retryable")
        .hasMessageContaining("keep one of the two annotations");
  }

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /** A GET of the loopback server: the body of a 200, an IOException naming any other status. */
  private static String get(ScriptedHttpServer server) throws IOException, InterruptedException {
    HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(server.uri()).build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("status " + response.statusCode());
    }
    return response.body();
  }

  @Test
  @Tag("slow") // one more application starts
  void codeWrittenAgainstSpringsRetryOperationsRunsUnderANamedPolicy_againstALoopbackServer() throws Exception {
    try (ConfigurableApplicationContext context = startWith()) {
      RetryOperations orders = context.getBean("ordersRetryOperations", RetryOperations.class);
      assertThat(orders).isInstanceOf(BackoffRetryOperations.class);
      RecordingSleeper sleeper = context.getBean(RecordingSleeper.class);
      try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503), Response.of(503), Response.of(200, "42"))) {
        assertThat(orders.execute(() -> get(server))).isEqualTo("42");
        assertThat(server.requestCount()).isEqualTo(3);
      }
      // The policy's waits (exponential from 100 ms, no jitter), not a Spring RetryPolicy's.
      assertThat(sleeper.sleeps()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));

      try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503))) {
        // The policy's 4 attempts; its 3 retries drew 5 tokens each from the policy's budget.
        double budgetBefore = context.getBean(BackoffRegistry.class).budget("shared").level();
        assertThatThrownBy(() -> orders.execute(() -> get(server))).isInstanceOf(RetryException.class)
            .hasMessageContaining("Backoff policy 'orders'")
            .cause().isInstanceOf(IOException.class).hasMessage("status 503");
        assertThat(server.requestCount()).isEqualTo(4);
        assertThat(context.getBean(BackoffRegistry.class).budget("shared").level()).isEqualTo(budgetBefore - 15);
        // invoke: the last failure itself when unchecked, as RetryTemplate.invoke throws it.
        assertThatThrownBy(() -> orders.invoke(() -> {
          try {
            return get(server);
          } catch (IOException e) {
            throw new UncheckedIOException(e); // retried: the policy's IOException is its cause
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
          }
        })).isExactlyInstanceOf(UncheckedIOException.class).hasRootCauseMessage("status 503");
        assertThat(server.requestCount()).isEqualTo(8);
      }
      // Every call reached the policy's statistics and meters.
      assertThat(context.getBean(BackoffRegistry.class).stats("orders").calls()).isEqualTo(3);
      assertThat(context.getBean(MeterRegistry.class).get("backoff.attempts").tag("policy", "orders").summary()
          .totalAmount()).isEqualTo(11.0);
    }
  }
}
