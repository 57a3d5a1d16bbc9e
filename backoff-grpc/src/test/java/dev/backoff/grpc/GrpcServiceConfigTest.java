package dev.backoff.grpc;

import static dev.backoff.grpc.ScriptedServer.SAY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.AdaptiveHedgeDelay;
import dev.backoff.Backoff;
import dev.backoff.CircuitBreaker;
import dev.backoff.FailureClass;
import dev.backoff.Hedging;
import dev.backoff.Jitter;
import dev.backoff.Pushback;
import dev.backoff.RetryBudgets;
import dev.backoff.RetryListener;
import dev.backoff.RetryPolicy;
import dev.backoff.grpc.ScriptedServer.Answer;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.IOException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class GrpcServiceConfigTest {
  private static final RetryPolicy<Object> GRPC_LIKE = RetryPolicy.<Object>builder()
      .maxAttempts(4)
      .backoff(Backoff.exponential(Duration.ofMillis(100), 2, Duration.ofSeconds(1), Jitter.full()))
      .build();

  @Test
  void anExponentialFullJitterPolicyExportsExactly() {
    GrpcServiceConfig config = GrpcServiceConfig.retryPolicy(GRPC_LIKE);

    assertThat(config.isExact()).isTrue();
    assertThat(config.unexpressed()).isEmpty();
    assertThat(config.requireExact()).isSameAs(config);
    assertThat(config.toJson()).isEqualTo("{\"methodConfig\":[{\"name\":[{}],\"retryPolicy\":{\"maxAttempts\":4,"
        + "\"initialBackoff\":\"0.1s\",\"maxBackoff\":\"1s\",\"backoffMultiplier\":2,"
        + "\"retryableStatusCodes\":[\"RESOURCE_EXHAUSTED\",\"UNAVAILABLE\"]}}]}"); // in the codes' order
    assertThat(config.asMap()).isEqualTo(Map.of("methodConfig", List.of(Map.of(
        "name", List.of(Map.of()),
        "retryPolicy", Map.of("maxAttempts", 4.0, "initialBackoff", "0.1s", "maxBackoff", "1s",
            "backoffMultiplier", 2.0, "retryableStatusCodes", List.of("RESOURCE_EXHAUSTED", "UNAVAILABLE"))))));
  }

  @Test
  void namesCodesAndAGrpcThrottlingBudgetAreExported() {
    RetryPolicy<Object> policy = GRPC_LIKE.toBuilder().budget(RetryBudgets.grpcThrottling(10, 0.1)).build();

    GrpcServiceConfig config = GrpcServiceConfig.retryPolicy(policy,
        EnumSet.of(Status.Code.UNAVAILABLE, Status.Code.ABORTED), "shop.Orders", "shop.Payments/Charge");

    assertThat(config.isExact()).isTrue();
    assertThat(config.toJson()).isEqualTo("{\"methodConfig\":[{\"name\":[{\"service\":\"shop.Orders\"},"
        + "{\"service\":\"shop.Payments\",\"method\":\"Charge\"}],\"retryPolicy\":{\"maxAttempts\":4,"
        + "\"initialBackoff\":\"0.1s\",\"maxBackoff\":\"1s\",\"backoffMultiplier\":2,"
        + "\"retryableStatusCodes\":[\"ABORTED\",\"UNAVAILABLE\"]}}],"
        + "\"retryThrottling\":{\"maxTokens\":10,\"tokenRatio\":0.1}}");
  }

  @Test
  void oneAttemptExportsNoRetryPolicy() {
    GrpcServiceConfig config = GrpcServiceConfig.retryPolicy(RetryPolicy.builder().maxAttempts(1).build());
    assertThat(config.isExact()).isTrue();
    assertThat(config.toJson()).isEqualTo("{\"methodConfig\":[{\"name\":[{}]}]}");
  }

  @Test
  void everySettingGrpcCannotExpressIsListedAndStrictModeRefusesIt() {
    RetryPolicy<Object> policy = RetryPolicy.<Object>builder()
        .maxAttempts(8)
        .backoff(Backoff.exponential(Duration.ofMillis(200), 1.5, Duration.ofSeconds(3), Jitter.equal()))
        .maxElapsed(Duration.ofSeconds(30))
        .budget(RetryBudgets.awsStandard())
        .backoff(FailureClass.THROTTLED, Backoff.fixed(Duration.ofSeconds(1)))
        .retryOn(IOException.class)
        .retryOnResult(result -> false)
        .listener(new RetryListener<>() {})
        .pushback((result, failure) -> Pushback.NONE)
        .maxPushback(Duration.ofSeconds(5))
        .build();

    GrpcServiceConfig config = GrpcServiceConfig.retryPolicy(policy);

    assertThat(config.isExact()).isFalse();
    assertThat(config.unexpressed()).hasSize(10);
    assertThat(config.unexpressed()).anySatisfy(s -> assertThat(s).startsWith("maxAttempts 8: gRPC limits it"))
        .anySatisfy(s -> assertThat(s).startsWith("jitter 'equal': gRPC always applies full jitter"))
        .anySatisfy(s -> assertThat(s).startsWith("deadline (maxElapsed PT30S)"))
        .anySatisfy(s -> assertThat(s).startsWith("budget ").contains("gRPC's only budget is retry throttling"))
        .anySatisfy(s -> assertThat(s).startsWith("backoffs per failure class"))
        .anySatisfy(s -> assertThat(s).startsWith("retry and abort rules on exceptions"))
        .anySatisfy(s -> assertThat(s).startsWith("retries on results"))
        .anySatisfy(s -> assertThat(s).startsWith("listeners"))
        .anySatisfy(s -> assertThat(s).startsWith("the pushback extractor"))
        .anySatisfy(s -> assertThat(s).startsWith("maxPushback PT5S"));
    // The expressible part is still exported.
    assertThat(config.toJson()).contains("\"maxAttempts\":8,\"initialBackoff\":\"0.2s\",\"maxBackoff\":\"3s\","
        + "\"backoffMultiplier\":1.5");
    assertThatThrownBy(config::requireExact).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("gRPC's service config cannot express this policy exactly: maxAttempts 8")
        .hasMessageContaining("listeners: gRPC reports no retry events");
  }

  @Test
  void aStrategyWithoutAnExponentialShapeIsExportedAsItsEnvelope() {
    // Decorrelated jitter: U(base, min(cap, 3·previous)), previous starting at base; the tops of the first
    // ranges are 0.3 s, 0.9 s, 2 s (the cap), 2 s: gRPC's U(0, 0.3 s·3^(n−1)) capped at 2 s covers them.
    RetryPolicy<Object> policy = RetryPolicy.<Object>builder().maxAttempts(5)
        .backoff(Backoff.decorrelated(Duration.ofMillis(100), Duration.ofSeconds(2))).build();

    GrpcServiceConfig config = GrpcServiceConfig.retryPolicy(policy);

    assertThat(config.unexpressed()).singleElement().asString()
        .startsWith("backoff decorrelated").contains("exported as the envelope of its first delays");
    @SuppressWarnings("unchecked")
    Map<String, Object> retry = (Map<String, Object>) ((Map<String, Object>) ((List<?>) config.asMap()
        .get("methodConfig")).get(0)).get("retryPolicy");
    assertThat(retry.get("initialBackoff")).isEqualTo("0.3s");
    assertThat((Double) retry.get("backoffMultiplier")).isCloseTo(3.0, org.assertj.core.data.Offset.offset(1e-6));
    assertThat(retry.get("maxBackoff")).isEqualTo("2s");
  }

  @Test
  void noDelayIsExportedAsOneNanosecond() {
    GrpcServiceConfig config = GrpcServiceConfig.retryPolicy(RetryPolicy.builder().backoff(Backoff.none()).build());
    assertThat(config.unexpressed()).containsExactly(
        "jitter 'none': gRPC always applies full jitter (a uniform wait in [0, scheduled delay))",
        "no delay between attempts: gRPC's initialBackoff must be positive; exported as 1 ns");
    assertThat(config.toJson()).contains("\"initialBackoff\":\"0.000000001s\",\"maxBackoff\":\"0.000000001s\","
        + "\"backoffMultiplier\":1");
  }

  @Test
  void durationsAreProtobufJsonSeconds() {
    assertThat(GrpcServiceConfig.seconds(100_000_000L)).isEqualTo("0.1s");
    assertThat(GrpcServiceConfig.seconds(20_000_000_000L)).isEqualTo("20s");
    assertThat(GrpcServiceConfig.seconds(1)).isEqualTo("0.000000001s");
    assertThat(GrpcServiceConfig.seconds(1_500_000_000L)).isEqualTo("1.5s");
    assertThat(GrpcServiceConfig.seconds(Long.MAX_VALUE)).isEqualTo("9223372036.854775807s");
  }

  @Test
  void badArgumentsAreRefusedByName() {
    assertThatThrownBy(() -> GrpcServiceConfig.retryPolicy(GRPC_LIKE, Set.of()))
        .hasMessage("retryableStatusCodes must not be empty: gRPC requires at least one");
    assertThatThrownBy(() -> GrpcServiceConfig.retryPolicy(GRPC_LIKE, Set.of(Status.Code.OK)))
        .hasMessage("retryableStatusCodes must not contain OK, was [OK]");
    assertThatThrownBy(() -> GrpcServiceConfig.retryPolicy(GRPC_LIKE, Set.of(Status.Code.UNAVAILABLE), "a/b/c"))
        .hasMessage("name must be 'package.Service' or 'package.Service/Method', was 'a/b/c'");
    assertThatThrownBy(() -> GrpcServiceConfig.retryPolicy(GRPC_LIKE, Set.of(Status.Code.UNAVAILABLE), "svc/"))
        .hasMessageContaining("was 'svc/'");
    assertThatThrownBy(() -> GrpcServiceConfig.retryPolicy(null)).hasMessage("policy must not be null");
  }

  // ---- gRPC accepts the export: a channel built with it retries natively ----

  private static int nativeAttempts(GrpcServiceConfig config, Answer... answers) throws Exception {
    try (ScriptedServer server = new ScriptedServer()) {
      server.answer(answers);
      ManagedChannel channel = server.channel(b -> b.defaultServiceConfig(config.asMap()).enableRetry());
      try {
        ClientCalls.blockingUnaryCall(channel, SAY, CallOptions.DEFAULT, "hello");
      } catch (StatusRuntimeException expected) {
        // The test looks at the attempts the server saw.
      } finally {
        channel.shutdownNow();
      }
      if (server.attempts() > 1) {
        assertThat(server.previousAttemptHeaders().get(1)).isEqualTo("1"); // gRPC's own retry sent it
      }
      return server.attempts();
    }
  }

  private static final RetryPolicy<Object> FAST = RetryPolicy.<Object>builder().maxAttempts(4)
      .backoff(Backoff.exponential(Duration.ofMillis(1), 2, Duration.ofMillis(4), Jitter.full())).build();

  @Test
  void grpcRetriesNativelyUnderTheExportedPolicy() throws Exception {
    Answer unavailable = Answer.fail(Status.Code.UNAVAILABLE);
    assertThat(nativeAttempts(GrpcServiceConfig.retryPolicy(FAST), unavailable, unavailable, Answer.ok("ok")))
        .isEqualTo(3);
    assertThat(nativeAttempts(GrpcServiceConfig.retryPolicy(FAST), unavailable)).isEqualTo(4);
    assertThat(nativeAttempts(GrpcServiceConfig.retryPolicy(FAST.toBuilder().maxAttempts(2).build()), unavailable))
        .isEqualTo(2);
    // Not in the exported codes: no retry.
    assertThat(nativeAttempts(GrpcServiceConfig.retryPolicy(FAST), Answer.fail(Status.Code.ABORTED))).isEqualTo(1);
  }

  @Test
  void grpcThrottlesNativelyUnderTheExportedBudget() throws Exception {
    // Two tokens: the first failure leaves one, not above half the maximum, so gRPC does not retry.
    RetryPolicy<Object> throttled = FAST.toBuilder().budget(RetryBudgets.grpcThrottling(2, 0.5)).build();
    assertThat(nativeAttempts(GrpcServiceConfig.retryPolicy(throttled), Answer.fail(Status.Code.UNAVAILABLE)))
        .isEqualTo(1);
  }

  @Test
  void grpcRejectsAConfigItCannotParse() {
    // The acceptance tests above mean something only if gRPC checks the config when the channel is built.
    Map<String, Object> broken = Map.of("methodConfig", List.of(Map.of("name", List.of(Map.of()),
        "retryPolicy", Map.of("maxAttempts", 1.0, "initialBackoff", "0.1s", "maxBackoff", "1s",
            "backoffMultiplier", 2.0, "retryableStatusCodes", List.of("UNAVAILABLE")))));
    assertThatThrownBy(() -> {
      try (ScriptedServer server = new ScriptedServer()) {
        server.channel(b -> b.defaultServiceConfig(broken).enableRetry()).shutdownNow();
      }
    }).isInstanceOf(IllegalStateException.class).hasMessageContaining("maxAttempts must be greater than 1");
  }

  // ---- hedgingPolicy ----

  private static final RetryPolicy<Object> HEDGED = RetryPolicy.<Object>builder().maxAttempts(3)
      .hedging(Hedging.after(Duration.ofMillis(50))).build();

  @Test
  void aHedgingPolicyExportsExactlyToAHedgingPolicy() {
    GrpcServiceConfig config = GrpcServiceConfig.hedgingPolicy(HEDGED);

    assertThat(config.isExact()).isTrue();
    assertThat(config.toJson()).isEqualTo("{\"methodConfig\":[{\"name\":[{}],\"hedgingPolicy\":{\"maxAttempts\":3,"
        + "\"hedgingDelay\":\"0.05s\",\"nonFatalStatusCodes\":[\"RESOURCE_EXHAUSTED\",\"UNAVAILABLE\"]}}]}");
    assertThat(config.asMap()).isEqualTo(Map.of("methodConfig", List.of(Map.of(
        "name", List.of(Map.of()),
        "hedgingPolicy", Map.of("maxAttempts", 3.0, "hedgingDelay", "0.05s",
            "nonFatalStatusCodes", List.of("RESOURCE_EXHAUSTED", "UNAVAILABLE"))))));
  }

  @Test
  void maxHedgesBoundsTheExportedAttemptsAndAZeroDelayIsZeroSeconds() {
    RetryPolicy<Object> policy = RetryPolicy.<Object>builder().maxAttempts(5)
        .hedging(Hedging.after(Duration.ZERO).maxHedges(2)).build();

    GrpcServiceConfig config = GrpcServiceConfig.hedgingPolicy(policy);

    assertThat(config.isExact()).isTrue();
    assertThat(config.toJson()).contains("\"hedgingPolicy\":{\"maxAttempts\":3,\"hedgingDelay\":\"0s\"");
  }

  @Test
  void anAdaptiveDelayIsExportedAsItsValueNowAndSaidNotToBeExpressible() {
    AdaptiveHedgeDelay delay = AdaptiveHedgeDelay.builder().quantile(0.9).initialDelay(Duration.ofMillis(300))
        .warmUp(10).bounds(Duration.ofMillis(1), Duration.ofSeconds(1)).build();
    RetryPolicy<Object> policy = RetryPolicy.<Object>builder().maxAttempts(3).hedging(Hedging.adaptive(delay))
        .build();

    GrpcServiceConfig warming = GrpcServiceConfig.hedgingPolicy(policy);
    assertThat(warming.isExact()).isFalse();
    assertThat(warming.toJson()).contains("\"hedgingDelay\":\"0.3s\"");
    assertThat(warming.unexpressed()).contains("adaptive hedging delay (quantile 0.9 of recent latencies): gRPC's"
        + " hedgingDelay is fixed; exported as its value now, 300ms (0 latencies recorded; still the initial"
        + " delay); export again for a newer value");
    assertThat(warming.unexpressed()).anySatisfy(line -> assertThat(line).startsWith(
        "the hedges' load cap (at most 0.05 hedges per first attempt): gRPC's hedgingPolicy has none"));

    for (int i = 1; i <= 10; i++) {
      delay.record(TimeUnit.MILLISECONDS.toNanos(10 * i)); // 10..100 ms: the 0.9 quantile is about 90 ms
    }
    GrpcServiceConfig warm = GrpcServiceConfig.hedgingPolicy(policy);
    assertThat(delay.delayNanos()).isBetween(TimeUnit.MILLISECONDS.toNanos(80), TimeUnit.MILLISECONDS.toNanos(101));
    assertThat(warm.unexpressed()).anySatisfy(line -> assertThat(line).contains("10 latencies recorded; it will move"));
    assertThat(warm.toJson()).doesNotContain("\"0.3s\"");
  }

  @Test
  void hedgingNamesCodesAndAGrpcThrottlingBudgetAreExported() {
    RetryPolicy<Object> policy = HEDGED.toBuilder().budget(RetryBudgets.grpcThrottling(10, 0.1)).build();

    GrpcServiceConfig config = GrpcServiceConfig.hedgingPolicy(policy, EnumSet.of(Status.Code.UNAVAILABLE),
        "shop.Orders/Get");

    assertThat(config.isExact()).isTrue();
    assertThat(config.toJson()).isEqualTo("{\"methodConfig\":[{\"name\":[{\"service\":\"shop.Orders\","
        + "\"method\":\"Get\"}],\"hedgingPolicy\":{\"maxAttempts\":3,\"hedgingDelay\":\"0.05s\","
        + "\"nonFatalStatusCodes\":[\"UNAVAILABLE\"]}}],\"retryThrottling\":{\"maxTokens\":10,\"tokenRatio\":0.1}}");
    // No non-fatal code: every failure ends the call.
    assertThat(GrpcServiceConfig.hedgingPolicy(HEDGED, Set.of()).toJson()).contains("\"nonFatalStatusCodes\":[]");
  }

  @Test
  void everyHedgingSettingGrpcCannotExpressIsListed() {
    RetryPolicy<Object> policy = RetryPolicy.<Object>builder()
        .maxAttempts(8)
        .hedging(Hedging.after(Duration.ofMillis(20)))
        .maxElapsed(Duration.ofSeconds(30))
        .attemptTimeout(Duration.ofSeconds(2))
        .budget(RetryBudgets.awsStandard())
        .backoff(FailureClass.THROTTLED, Backoff.fixed(Duration.ofSeconds(1))) // a hedge never backs off
        .retryOnResult(result -> false)
        .listener(new RetryListener<>() {})
        .maxPushback(Duration.ofSeconds(5))
        .circuitBreaker(CircuitBreaker.builder().build())
        .build();

    GrpcServiceConfig config = GrpcServiceConfig.hedgingPolicy(policy);

    assertThat(config.unexpressed()).hasSize(8);
    assertThat(config.unexpressed())
        .anySatisfy(s -> assertThat(s).startsWith("maxAttempts 8: gRPC limits hedged attempts to the channel's"
            + " maxHedgedAttempts"))
        .anySatisfy(s -> assertThat(s).startsWith("deadline (maxElapsed PT30S)"))
        .anySatisfy(s -> assertThat(s).startsWith("attemptTimeout PT2S"))
        .anySatisfy(s -> assertThat(s).startsWith("budget "))
        .anySatisfy(s -> assertThat(s).startsWith("retries on results"))
        .anySatisfy(s -> assertThat(s).startsWith("listeners"))
        .anySatisfy(s -> assertThat(s).startsWith("maxPushback PT5S"))
        .anySatisfy(s -> assertThat(s).startsWith("the circuit breaker"));
    assertThat(config.toJson()).contains("\"hedgingPolicy\":{\"maxAttempts\":8,\"hedgingDelay\":\"0.02s\"");
    assertThatThrownBy(config::requireExact).hasMessageStartingWith(
        "gRPC's service config cannot express this policy exactly: maxAttempts 8");
  }

  @Test
  void aPolicyThatMayStartOneAttemptExportsNoHedgingPolicy() {
    RetryPolicy<Object> policy = RetryPolicy.<Object>builder().maxAttempts(1)
        .hedging(Hedging.after(Duration.ofMillis(10))).build();
    GrpcServiceConfig config = GrpcServiceConfig.hedgingPolicy(policy);
    assertThat(config.isExact()).isTrue();
    assertThat(config.toJson()).isEqualTo("{\"methodConfig\":[{\"name\":[{}]}]}");
  }

  @Test
  void aRetryPolicyExportOfAHedgingPolicySaysItDoesNotHedge() {
    GrpcServiceConfig config = GrpcServiceConfig.retryPolicy(HEDGED);
    assertThat(config.unexpressed()).anySatisfy(s -> assertThat(s)
        .startsWith("hedging (hedging after 50ms): a retryPolicy retries one attempt at a time")
        .endsWith("GrpcServiceConfig.hedgingPolicy exports gRPC's hedgingPolicy"));
    assertThat(config.toJson()).contains("\"retryPolicy\"").doesNotContain("hedgingPolicy");
  }

  @Test
  void hedgingBadArgumentsAreRefusedByName() {
    assertThatThrownBy(() -> GrpcServiceConfig.hedgingPolicy(GRPC_LIKE.toBuilder().name("plain").build()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("policy 'plain' does not hedge: export it with GrpcServiceConfig.retryPolicy, or give it"
            + " RetryPolicy.Builder.hedging(...)");
    assertThatThrownBy(() -> GrpcServiceConfig.hedgingPolicy(HEDGED, Set.of(Status.Code.OK)))
        .hasMessage("nonFatalStatusCodes must not contain OK, was [OK]");
    assertThatThrownBy(() -> GrpcServiceConfig.hedgingPolicy(HEDGED, Set.of(Status.Code.UNAVAILABLE), ""))
        .hasMessage("name must be 'package.Service' or 'package.Service/Method', was ''");
    assertThatThrownBy(() -> GrpcServiceConfig.hedgingPolicy(null)).hasMessage("policy must not be null");
    assertThatThrownBy(() -> GrpcServiceConfig.hedgingPolicy(HEDGED, null))
        .hasMessage("nonFatalStatusCodes must not be null");
  }

  // ---- gRPC accepts the hedging export: a channel built with it hedges natively ----

  /** A call on a channel with gRPC's own hedging under {@code config}; its answer, or its failure's code. */
  private static String nativeHedgedCall(ScriptedServer server, GrpcServiceConfig config) {
    // The deadline only keeps a broken build from hanging; no outcome depends on it.
    return nativeHedgedCall(server, config, Duration.ofSeconds(30));
  }

  private static String nativeHedgedCall(ScriptedServer server, GrpcServiceConfig config, Duration deadline) {
    ManagedChannel channel = server.channel(b -> b.defaultServiceConfig(config.asMap()).enableRetry());
    try {
      return ClientCalls.blockingUnaryCall(channel, SAY,
          CallOptions.DEFAULT.withDeadlineAfter(deadline.toNanos(), TimeUnit.NANOSECONDS), "hello");
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode().name();
    } finally {
      channel.shutdownNow();
    }
  }

  private static GrpcServiceConfig nativeHedging(int maxAttempts, Duration delay) {
    return GrpcServiceConfig.hedgingPolicy(RetryPolicy.<Object>builder().maxAttempts(maxAttempts)
        .hedging(Hedging.after(delay)).build()).requireExact();
  }

  @Test
  void grpcHedgesNativelyUnderTheExportedPolicy() throws Exception {
    try (ScriptedServer server = new ScriptedServer()) {
      // The first attempt never answers: only gRPC's hedge can answer the call.
      server.answer(Answer.hanging(), Answer.ok("from gRPC's hedge"));
      assertThat(nativeHedgedCall(server, nativeHedging(2, Duration.ofMillis(5)))).isEqualTo("from gRPC's hedge");
      assertThat(server.attempts()).isEqualTo(2);
      assertThat(server.previousAttemptHeaders()).containsExactly(null, "1");
      for (int i = 0; i < 1000 && server.cancelledAttempts() < 1; i++) {
        Thread.sleep(10); // gRPC cancels the loser; the server may hear of it after the caller woke
      }
      assertThat(server.cancelledAttempts()).isEqualTo(1);
    }
  }

  @Test
  void grpcStopsNativelyAtTheExportedAttemptsAndOnAFatalCode() throws Exception {
    try (ScriptedServer server = new ScriptedServer()) {
      server.answer(Answer.fail(Status.Code.UNAVAILABLE)); // non-fatal every time
      assertThat(nativeHedgedCall(server, nativeHedging(3, Duration.ofMillis(1)))).isEqualTo("UNAVAILABLE");
      assertThat(server.attempts()).isEqualTo(3);
    }
    try (ScriptedServer server = new ScriptedServer()) {
      // Fatal (not in nonFatalStatusCodes): the call ends before the hedging delay (an hour) has passed.
      server.answer(Answer.fail(Status.Code.ABORTED), Answer.ok("never asked"));
      assertThat(nativeHedgedCall(server, nativeHedging(3, Duration.ofHours(1)))).isEqualTo("ABORTED");
      assertThat(server.attempts()).isEqualTo(1);
    }
  }

  @Test
  void grpcHedgesAtOnceAfterANonFatalStatusOnlyWhenItCarriesAPushback() throws Exception {
    // What docs/grpc.md states as a difference (Backoff hedges at once after any non-fatal status): the
    // hedging delay is an hour, so only a hedge sent at once can answer these calls.
    try (ScriptedServer server = new ScriptedServer()) {
      server.answer(Answer.fail(Status.Code.UNAVAILABLE), Answer.ok("never asked"));
      assertThat(nativeHedgedCall(server, nativeHedging(3, Duration.ofHours(1)), Duration.ofMillis(300)))
          .isEqualTo("DEADLINE_EXCEEDED"); // gRPC waited for the hedging delay
      assertThat(server.attempts()).isEqualTo(1);
    }
    try (ScriptedServer server = new ScriptedServer()) {
      // A pushback of a minute: gRPC still sends the next hedge at once.
      server.answer(Answer.fail(Status.Code.UNAVAILABLE, "60000"), Answer.ok("at once"));
      assertThat(nativeHedgedCall(server, nativeHedging(3, Duration.ofHours(1)))).isEqualTo("at once");
      assertThat(server.attempts()).isEqualTo(2);
    }
  }
}
