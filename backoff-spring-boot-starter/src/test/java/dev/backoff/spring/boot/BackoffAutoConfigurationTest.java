package dev.backoff.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.NanoClock;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryPolicy;
import dev.backoff.RetryScheduler;
import dev.backoff.Sleeper;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import dev.backoff.testing.RecordingSleeper;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

class BackoffAutoConfigurationTest {
  private static final String[] ORDERS = {
      "backoff.policies.orders.strategy=exponential:100ms:2:20s:none",
      "backoff.policies.orders.max-attempts=3",
      "backoff.policies.orders.retry-on=java.io.IOException"};

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class))
      .withUserConfiguration(FakeTime.class);

  /** Fake time for every test: a clock, a sleeper that moves it, a scheduler on it. */
  @Configuration(proxyBeanMethods = false)
  static class FakeTime {
    @Bean
    FakeClock fakeClock() {
      return new FakeClock();
    }

    @Bean
    RecordingSleeper recordingSleeper(FakeClock clock) {
      return new RecordingSleeper(clock);
    }

    @Bean
    FakeScheduler fakeScheduler(FakeClock clock) {
      return new FakeScheduler(clock);
    }

    @Bean
    RetryScheduler retryScheduler(FakeScheduler scheduler) {
      return RetryScheduler.of(scheduler);
    }

    @Bean
    Scheduler reactorScheduler(FakeScheduler scheduler) {
      return Schedulers.fromExecutorService(scheduler);
    }
  }

  // ------------------------------------------------------------------------------ properties

  @Test
  void propertiesBindIntoNamedPolicies() {
    runner.withPropertyValues(ORDERS)
        .withPropertyValues("backoff.policies.orders.max-elapsed=30s", "backoff.policies.orders.max-pushback=1m",
            "backoff.policies.orders.attempt-timeout=2s", "backoff.policies.cloud.strategy=google-cloud")
        .run(context -> {
          BackoffRegistry registry = context.getBean(BackoffRegistry.class);
          assertThat(registry.names()).containsExactly("orders", "cloud");
          RetryPolicy<Object> orders = registry.policy("orders");
          assertThat(orders.name()).isEqualTo("orders");
          assertThat(orders.maxAttempts()).isEqualTo(3);
          assertThat(orders.maxElapsed()).isEqualTo(Duration.ofSeconds(30));
          assertThat(orders.maxPushback()).isEqualTo(Duration.ofMinutes(1));
          assertThat(orders.attemptTimeout()).isEqualTo(Duration.ofSeconds(2));
          assertThat(orders.clock()).isSameAs(context.getBean(NanoClock.class));
          assertThat(orders.sleeper()).isSameAs(context.getBean(Sleeper.class));
          // The preset sets its own attempts (10) and cap.
          assertThat(registry.policy("cloud").maxAttempts()).isEqualTo(10);
          // One bean per policy, by name.
          assertThat(context.getBean("ordersRetryPolicy")).isSameAs(orders);
          assertThat(context.getBean("ordersRetryExecutor")).isSameAs(registry.executor("orders"));
          assertThat(context.getBean("cloudAsyncRetryExecutor")).isSameAs(registry.asyncExecutor("cloud"));
        });
  }

  @Test
  void aBareNumberAsADurationFailsTheContextNamingTheProperty() {
    runner.withPropertyValues(ORDERS).withPropertyValues("backoff.policies.orders.max-elapsed=10")
        .run(context -> assertThat(context).getFailure().rootCause()
            .isInstanceOf(BackoffConfigurationException.class)
            .hasMessageContaining("backoff.policies.orders.max-elapsed")
            .hasMessageContaining("'10'"));
  }

  @Test
  void aTypoInAKeyFailsTheContext() {
    runner.withPropertyValues(ORDERS).withPropertyValues("backoff.policies.orders.max-atempts=5")
        .run(context -> assertThat(context).getFailure()
            .hasStackTraceContaining("backoff.policies.orders.max-atempts"));
  }

  @Test
  void anUnknownStrategyFailsTheContextNamingThePropertyAndTheKnownNames() {
    runner.withPropertyValues("backoff.policies.orders.strategy=exponentail:100ms")
        .run(context -> assertThat(context).getFailure().rootCause()
            .hasMessageContaining("backoff.policies.orders.strategy")
            .hasMessageContaining("exponentail")
            .hasMessageContaining("exponential"));
  }

  @Test
  void aBadStrategyParameterFailsTheContext() {
    runner.withPropertyValues("backoff.policies.orders.strategy=exponential:100ms:0.5")
        .run(context -> assertThat(context).getFailure().rootCause()
            .hasMessageContaining("backoff.policies.orders.strategy"));
  }

  @Test
  void zeroAttemptsFailTheContext() {
    runner.withPropertyValues("backoff.policies.orders.max-attempts=0")
        .run(context -> assertThat(context).getFailure().rootCause()
            .hasMessageContaining("backoff.policies.orders.max-attempts").hasMessageContaining("'0'"));
  }

  @Test
  void aClassThatIsNotAThrowableFailsTheContext() {
    runner.withPropertyValues("backoff.policies.orders.retry-on=java.lang.String")
        .run(context -> assertThat(context).getFailure().rootCause()
            .hasMessageContaining("backoff.policies.orders.retry-on").hasMessageContaining("java.lang.String"));
  }

  @Test
  void anUnknownClassFailsTheContext() {
    runner.withPropertyValues("backoff.policies.orders.retry-on=com.example.NoSuchException")
        .run(context -> assertThat(context).getFailure()
            .hasStackTraceContaining("backoff.policies.orders.retry-on"));
  }

  @Test
  void anUnknownBudgetFailsTheContext() {
    runner.withPropertyValues("backoff.policies.orders.budget=shared")
        .run(context -> assertThat(context).getFailure().rootCause()
            .hasMessageContaining("backoff.policies.orders.budget").hasMessageContaining("'shared'"));
  }

  @Test
  void aBadBudgetSpecFailsTheContext() {
    runner.withPropertyValues("backoff.budgets.shared.spec=token-bucket:-1")
        .run(context -> assertThat(context).getFailure().rootCause()
            .hasMessageContaining("backoff.budgets.shared.spec"));
  }

  @Test
  void budgetsAreSharedByName() {
    runner.withPropertyValues("backoff.budgets.shared.spec=token-bucket:20:5:10",
            "backoff.budgets.other.spec=ratio:0.1:5:10s",
            "backoff.policies.a.budget=shared", "backoff.policies.b.budget=shared", "backoff.policies.c.budget=other")
        .run(context -> {
          BackoffRegistry registry = context.getBean(BackoffRegistry.class);
          assertThat(registry.policy("a").budget()).isSameAs(registry.budget("shared"))
              .isSameAs(registry.policy("b").budget());
          assertThat(registry.policy("c").budget()).isSameAs(registry.budget("other"));
          assertThat(registry.budget("shared").level()).isEqualTo(20.0);
          // A retry through policy a draws on b's budget: one token bucket, cost 5.
          RetryExecutor<Object> a = registry.executor("a");
          assertThatThrownBy(() -> a.call(() -> {
            throw new IOException("always");
          })).isInstanceOf(IOException.class);
          assertThat(registry.policy("b").budget().level()).isEqualTo(10.0); // two retries at 5 each
        });
  }

  // ------------------------------------------------------------------------------ annotation

  @Test
  void aSyncMethodIsRetriedWithThePolicysBackoff() {
    runner.withPropertyValues(ORDERS).withBean(Beans.Flaky.class, () -> new Beans.Flaky(2)).run(context -> {
      Beans.Flaky flaky = context.getBean(Beans.Flaky.class);
      assertThat(flaky.sync()).isEqualTo("ok after 3");
      assertThat(context.getBean(RecordingSleeper.class).sleeps())
          .containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
      assertThat(context.getBean(BackoffRegistry.class).stats("orders").attempts()).isEqualTo(3);
    });
  }

  @Test
  void exhaustedRetriesThrowTheLastFailure() {
    runner.withPropertyValues(ORDERS).withBean(Beans.Flaky.class, () -> new Beans.Flaky(10)).run(context -> {
      Beans.Flaky flaky = context.getBean(Beans.Flaky.class);
      assertThatThrownBy(flaky::sync).isInstanceOf(IOException.class).hasMessage("attempt 3 failed");
      assertThat(flaky.calls()).isEqualTo(3);
    });
  }

  @Test
  void methodLevelOverridesApply() {
    runner.withPropertyValues(ORDERS).withBean(Beans.Flaky.class, () -> new Beans.Flaky(4)).run(context -> {
      Beans.Flaky flaky = context.getBean(Beans.Flaky.class);
      assertThat(flaky.syncFiveAttempts()).isEqualTo("ok after 5"); // the policy alone allows 3
      assertThatThrownBy(flaky::aborting).isInstanceOf(IllegalStateException.class);
      assertThat(flaky.calls()).isEqualTo(6); // 5, then one for aborting()
    });
  }

  @Test
  void selfInvocationIsNotRetried() {
    runner.withPropertyValues(ORDERS).withBean(Beans.Flaky.class, () -> new Beans.Flaky(2)).run(context -> {
      Beans.Flaky flaky = context.getBean(Beans.Flaky.class);
      assertThatThrownBy(flaky::selfInvocation).isInstanceOf(IOException.class);
      assertThat(flaky.calls()).isEqualTo(1);
      assertThatThrownBy(flaky::plain).isInstanceOf(IOException.class).hasMessage("attempt 2 failed")
          .satisfies(e -> assertThat(flaky.calls()).isEqualTo(2)); // plain() is not annotated: fails once
    });
  }

  @Test
  void aCompletableFutureMethodIsRetriedOnTheSchedulerWithoutAThread() {
    runner.withPropertyValues(ORDERS).withBean(Beans.Flaky.class, () -> new Beans.Flaky(2)).run(context -> {
      Beans.Flaky flaky = context.getBean(Beans.Flaky.class);
      FakeScheduler scheduler = context.getBean(FakeScheduler.class);
      CompletableFuture<String> result = flaky.future();

      assertThat(result).isNotDone();
      assertThat(scheduler.pending()).isEqualTo(1);
      scheduler.advance(Duration.ofMillis(100));
      assertThat(result).isNotDone();
      scheduler.advance(Duration.ofMillis(200));
      assertThat(result).isCompletedWithValue("ok after 3");
      assertThat(scheduler.delays()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
      assertThat(context.getBean(RecordingSleeper.class).sleeps()).isEmpty(); // no thread slept
    });
  }

  @Test
  void aStageMethodThatThrowsIsRetriedLikeAFailedStage() {
    runner.withPropertyValues(ORDERS).withBean(Beans.Flaky.class, () -> new Beans.Flaky(1)).run(context -> {
      Beans.Flaky flaky = context.getBean(Beans.Flaky.class);
      CompletionStage<String> result = flaky.stageThrowing();
      context.getBean(FakeScheduler.class).advance(Duration.ofMillis(100));
      assertThat(result.toCompletableFuture()).isCompletedWithValue("ok after 2");
    });
  }

  @Test
  void cancellingTheFutureStopsTheRetries() {
    runner.withPropertyValues(ORDERS).withBean(Beans.Flaky.class, () -> new Beans.Flaky(10)).run(context -> {
      Beans.Flaky flaky = context.getBean(Beans.Flaky.class);
      FakeScheduler scheduler = context.getBean(FakeScheduler.class);
      CompletableFuture<String> result = flaky.future();
      assertThat(scheduler.pending()).isEqualTo(1);

      result.cancel(true);
      assertThat(scheduler.pending()).isZero();
      scheduler.advance(Duration.ofMinutes(1));
      assertThat(flaky.calls()).isEqualTo(1);
    });
  }

  @Test
  void aMonoMethodIsResubscribedPerAttempt() {
    runner.withPropertyValues(ORDERS).withBean(Beans.Flaky.class, () -> new Beans.Flaky(2)).run(context -> {
      Beans.Flaky flaky = context.getBean(Beans.Flaky.class);
      FakeScheduler scheduler = context.getBean(FakeScheduler.class);
      Mono<String> mono = flaky.mono();
      assertThat(flaky.calls()).isEqualTo(0); // lazy: nothing runs before subscription
      CompletableFuture<String> result = mono.toFuture();
      scheduler.advance(Duration.ofMillis(300));
      assertThat(result).isCompletedWithValue("ok after 3");
      assertThat(scheduler.delays()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
    });
  }

  @Test
  void cancellingTheMonoStopsTheRetries() {
    runner.withPropertyValues(ORDERS).withBean(Beans.Flaky.class, () -> new Beans.Flaky(10)).run(context -> {
      Beans.Flaky flaky = context.getBean(Beans.Flaky.class);
      FakeScheduler scheduler = context.getBean(FakeScheduler.class);
      Disposable subscription = flaky.mono().subscribe(value -> { }, error -> { });
      assertThat(scheduler.pending()).isEqualTo(1);

      subscription.dispose();
      assertThat(scheduler.pending()).isZero();
      scheduler.advance(Duration.ofMinutes(1));
      assertThat(flaky.calls()).isEqualTo(1);
    });
  }

  @Test
  void anAnnotationOnAnInterfaceMethodApplies() {
    runner.withPropertyValues(ORDERS).withBean(Beans.Greeter.class, Beans.FlakyGreeter::new).run(context -> {
      assertThat(context.getBean(Beans.Greeter.class).greet("ada")).isEqualTo("hello ada");
    });
  }

  @Test
  void anAnnotationOnATypeAppliesToItsPublicMethods() {
    runner.withPropertyValues(ORDERS).withBean(Beans.TypeAnnotated.class).run(context -> {
      assertThat(context.getBean(Beans.TypeAnnotated.class).call()).isEqualTo("ok");
    });
  }

  @Test
  void anUnknownPolicyInAnAnnotationFailsTheContextNamingTheMethod() {
    runner.withPropertyValues(ORDERS).withBean(Beans.UnknownPolicy.class).run(context ->
        assertThat(context).getFailure().rootCause()
            .hasMessageContaining("UnknownPolicy.call").hasMessageContaining("no-such-policy")
            .hasMessageContaining("orders"));
  }

  /** A context with the orders policy and {@code bean} fails at startup, its message holding every fragment. */
  private void failsAtStartup(Class<?> bean, String... fragments) {
    runner.withPropertyValues(ORDERS).withBean(Beans.Prefix.class).withBean(bean).run(context ->
        assertThat(context).getFailure().rootCause().isInstanceOf(BackoffConfigurationException.class)
            .hasMessageContainingAll(fragments));
  }

  @Test
  void anAnnotationOnAFinalMethodFailsTheContextNamingTheMethod() {
    failsAtStartup(Beans.FinalMethod.class, "@BackoffRetry on dev.backoff.spring.boot.Beans$FinalMethod.call",
        "the method is final", "remove 'final'");
    failsAtStartup(Beans.TypeAnnotatedFinal.class, "Beans$TypeAnnotatedFinal.call", "the method is final");
  }

  @Test
  void anAnnotationOnAPrivateMethodFailsTheContextNamingTheMethod() {
    failsAtStartup(Beans.PrivateMethod.class, "@BackoffRetry on dev.backoff.spring.boot.Beans$PrivateMethod.call",
        "the method is private");
  }

  @Test
  void aBadAnnotationOnAnyMethodFailsTheContextNotOnlyTheFirst() {
    failsAtStartup(Beans.GoodThenBad.class, "GoodThenBad.z", "no-such-policy");
  }

  @Test
  void protectedAndPackagePrivateMethodsReachedFromOutsideAreRetried() {
    runner.withPropertyValues(ORDERS).withBean(Beans.NonPublic.class).run(context -> {
      Beans.NonPublic bean = context.getBean(Beans.NonPublic.class);
      assertThat(bean.packagePrivate()).isEqualTo("ok after 2");
      assertThat(bean.isProtected()).isEqualTo("ok after 4"); // its inner packagePrivate() call is not retried
      assertThat(bean.calls()).isEqualTo(4);
    });
  }

  @Test
  void theAnnotationsRetryOnAddsToThePolicysTypes() {
    runner.withPropertyValues(ORDERS).withBean(Beans.NonPublic.class).run(context ->
        assertThat(context.getBean(Beans.NonPublic.class).addedRetryOn()).isEqualTo("ok after 3"));
  }

  @Test
  void aFluxMethodIsRetriedUntilItsFirstElement() {
    runner.withPropertyValues(ORDERS).withBean(Beans.Flaky.class, () -> new Beans.Flaky(2)).run(context -> {
      Beans.Flaky flaky = context.getBean(Beans.Flaky.class);
      FakeScheduler scheduler = context.getBean(FakeScheduler.class);
      CompletableFuture<java.util.List<String>> result = flaky.flux().collectList().toFuture();
      assertThat(result).isNotDone();
      scheduler.advance(Duration.ofMillis(300));
      assertThat(result).isCompletedWithValue(java.util.List.of("a", "b"));
      assertThat(flaky.calls()).isEqualTo(3);
      assertThat(scheduler.delays()).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));
    });
  }

  @Test
  void anotherPublisherTypeFailsTheContext() {
    runner.withPropertyValues(ORDERS).withBean(Beans.PublisherMethod.class).run(context ->
        assertThat(context).getFailure().rootCause()
            .hasMessageContaining("PublisherMethod.stream").hasMessageContaining("Mono and Flux"));
  }

  @Test
  void aBadOverrideFailsTheContext() {
    runner.withPropertyValues(ORDERS).withBean(Beans.BadOverride.class).run(context ->
        assertThat(context).getFailure().rootCause()
            .hasMessageContaining("BadOverride.call").hasMessageContaining("maxElapsed").hasMessageContaining("'10'"));
  }

  // ------------------------------------------------------------------------------ backing off

  @Test
  void theUsersOwnRegistryWins() {
    BackoffProperties properties = new BackoffProperties();
    properties.getPolicies().put("orders", new BackoffProperties.Policy());
    properties.getPolicies().get("orders").setMaxAttempts(7);
    runner.withPropertyValues(ORDERS)
        .withBean("myRegistry", BackoffRegistry.class,
            () -> new BackoffRegistry(properties, null, null, null, null, (name, policy) -> policy))
        .run(context -> {
          assertThat(context).hasSingleBean(BackoffRegistry.class);
          assertThat(context.getBean(BackoffRegistry.class).policy("orders").maxAttempts()).isEqualTo(7);
        });
  }

  @Test
  void theUsersOwnPolicyBeanWins() {
    RetryPolicy<Object> mine = RetryPolicy.builder().maxAttempts(9).build();
    runner.withPropertyValues(ORDERS).withBean("ordersRetryPolicy", RetryPolicy.class, () -> mine)
        .run(context -> assertThat(context.getBean("ordersRetryPolicy")).isSameAs(mine));
  }

  @Test
  void withoutPropertiesThereAreNoPolicies() {
    runner.run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context.getBean(BackoffRegistry.class).names()).isEmpty();
    });
  }

  @Test
  void theEndpointShowsRealValues() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class, BackoffEndpointAutoConfiguration.class))
        .withUserConfiguration(FakeTime.class)
        .withPropertyValues(ORDERS)
        .withPropertyValues("backoff.budgets.shared.spec=token-bucket:100:5:10", "backoff.policies.orders.budget=shared")
        .withPropertyValues("management.endpoints.web.exposure.include=backoff")
        .withBean(Beans.Flaky.class, () -> new Beans.Flaky(10))
        .run(context -> {
          Beans.Flaky flaky = context.getBean(Beans.Flaky.class);
          assertThatThrownBy(flaky::sync).isInstanceOf(IOException.class); // 3 attempts, 2 retries: -10
          flaky.failUpTo(4);
          assertThat(flaky.sync()).isEqualTo("ok after 5"); // 2 attempts: -5, then +5 on success
          BackoffEndpoint endpoint = context.getBean(BackoffEndpoint.class);
          Map<String, Object> orders = endpoint.policy("orders");
          assertThat(orders).containsEntry("strategy", "exponential:100ms:2:20s:none")
              .containsEntry("maxAttempts", 3)
              .containsEntry("budget", "shared")
              .containsEntry("budgetLevel", 90.0)
              .containsEntry("calls", 2L)
              .containsEntry("attempts", 5L)
              .containsEntry("amplification", 2.5);
          @SuppressWarnings("unchecked")
          Map<String, Object> budgets = (Map<String, Object>) endpoint.backoff().get("budgets");
          assertThat(budgets).containsKey("shared");
          assertThat(endpoint.policy("nope")).isNull();
        });
  }

  /** A method under Spring Retry's loop as well as ours. */
  static class SpringRetryToo {
    @BackoffRetry("orders")
    @org.springframework.retry.annotation.Retryable(retryFor = IOException.class)
    public String stock() throws IOException {
      throw new IOException("never called: the context fails first");
    }
  }

  @Test
  void aMethodAlsoUnderSpringRetrysRetryableFailsTheContextNamingIt() {
    runner.withPropertyValues(ORDERS).withBean(SpringRetryToo.class)
        .run(context -> assertThat(context).getFailure().rootCause()
            .isInstanceOf(BackoffConfigurationException.class)
            .hasMessageContaining("@BackoffRetry on " + SpringRetryToo.class.getName() + ".stock")
            .hasMessageContaining("org.springframework.retry.annotation.Retryable")
            .hasMessageContaining("keep one of the two annotations"));
  }
}
