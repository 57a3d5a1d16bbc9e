package dev.backoff.grpc;

import static dev.backoff.grpc.ScriptedServer.SAY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.Backoff;
import dev.backoff.FailureClass;
import dev.backoff.Hedging;
import dev.backoff.Jitter;
import dev.backoff.RetryBudgets;
import dev.backoff.RetryPolicy;
import dev.backoff.grpc.ScriptedServer.Answer;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.stub.ClientCalls;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The examples of docs/grpc.md, which copies them from here (checked below): they compile with the module
 * and run against an in-process server.
 */
class GrpcDocsExampleTest {
  private static final Path SOURCE = Path.of("src/test/java/dev/backoff/grpc/GrpcDocsExampleTest.java");
  private static final Path DOCS = Path.of("../docs/grpc.md");

  @Test
  void theInterceptorExampleRetriesToSuccess() throws Exception {
    try (ScriptedServer server = new ScriptedServer()) {
      server.answer(Answer.fail(Status.Code.UNAVAILABLE), Answer.fail(Status.Code.RESOURCE_EXHAUSTED, "10"),
          Answer.ok("order 42"));
      String serverName = server.name();
      // [interceptor]
      RetryPolicy<Object> policy = RetryPolicy.<Object>builder()
          .maxAttempts(4)                                   // the first attempt included
          .maxElapsed(Duration.ofSeconds(10))               // never beyond the call's own deadline either
          .backoff(Backoff.exponential(Duration.ofMillis(50), 2, Duration.ofSeconds(2), Jitter.full()))
          .backoff(FailureClass.THROTTLED,                  // RESOURCE_EXHAUSTED: back off longer
              Backoff.exponential(Duration.ofMillis(200), 2, Duration.ofSeconds(30), Jitter.full()))
          .budget(RetryBudgets.grpcThrottling())            // share one budget per backend
          .build();

      ManagedChannel channel = InProcessChannelBuilder.forName(serverName) // or ManagedChannelBuilder.forTarget(...)
          .disableRetry()                                   // Backoff retries: gRPC's own retry would multiply attempts
          .intercept(GrpcRetryInterceptor.of(policy))
          .build();

      // Any unary call on the channel is retried: generated stubs too (stub.withDeadlineAfter(...).getOrder(...)).
      String reply = ClientCalls.blockingUnaryCall(channel, SAY,
          CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS), "get order 42");
      // [/interceptor]
      channel.shutdownNow();
      assertThat(reply).isEqualTo("order 42");
      assertThat(server.attempts()).isEqualTo(3);

      // [export]
      GrpcServiceConfig config = GrpcServiceConfig.retryPolicy(policy);
      for (String dropped : config.unexpressed()) {                    // or config.requireExact(): strict
        System.getLogger("orders").log(System.Logger.Level.WARNING, "not in gRPC's config: {0}", dropped);
      }
      ManagedChannel nativeRetry = InProcessChannelBuilder.forName(serverName)
          .defaultServiceConfig(config.asMap())             // or config.toJson() for a name resolver
          .enableRetry()
          .build();
      // [/export]
      nativeRetry.shutdownNow();
      assertThat(config.unexpressed()).hasSize(2)
          .anySatisfy(s -> assertThat(s).startsWith("deadline (maxElapsed PT10S)"))
          .anySatisfy(s -> assertThat(s).startsWith("backoffs per failure class"));
      assertThat(config.toJson()).isEqualTo("{\"methodConfig\":[{\"name\":[{}],\"retryPolicy\":{\"maxAttempts\":4,"
          + "\"initialBackoff\":\"0.05s\",\"maxBackoff\":\"2s\",\"backoffMultiplier\":2,"
          + "\"retryableStatusCodes\":[\"RESOURCE_EXHAUSTED\",\"UNAVAILABLE\"]}}],"
          + "\"retryThrottling\":{\"maxTokens\":10,\"tokenRatio\":0.1}}");
    }
  }

  @Test
  void theHedgingExampleAnswersFromAHedgeAndExportsToGrpcsHedgingPolicy() throws Exception {
    try (ScriptedServer server = new ScriptedServer()) {
      server.answer(Answer.hanging(), Answer.ok("order 42")); // the first attempt never answers
      String serverName = server.name();
      // [hedging]
      RetryPolicy<Object> hedged = RetryPolicy.<Object>builder()
          .maxAttempts(3)                                   // the original call and at most 2 hedges
          .hedging(Hedging.after(Duration.ofMillis(40)))    // about the p95 latency of the method
          .budget(RetryBudgets.grpcThrottling())            // hedges draw on the budget like retries
          .build();
      ManagedChannel channel = InProcessChannelBuilder.forName(serverName) // or ManagedChannelBuilder.forTarget(...)
          .disableRetry()
          .intercept(GrpcRetryInterceptor.of(hedged))
          .build();
      // [/hedging]
      long start = System.nanoTime();
      String reply = ClientCalls.blockingUnaryCall(channel, SAY,
          CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), "get order 42");
      long answeredAfter = System.nanoTime() - start;
      assertThat(reply).isEqualTo("order 42"); // a hedge's: the first attempt never answers
      long delay = Duration.ofMillis(40).toNanos();
      List<Long> arrivals = server.arrivals();
      assertThat(arrivals).as("attempts that reached the server").hasSizeGreaterThanOrEqualTo(2);
      assertThat(arrivals.get(1) - start).as("the hedge left after its delay, ns").isGreaterThanOrEqualTo(delay);
      if (answeredAfter < 2 * delay) {
        // Answered before a second hedge was due: none may follow, not even after its time has passed.
        Thread.sleep(Duration.ofNanos(4 * delay - answeredAfter).toMillis());
        assertThat(server.attempts()).as("attempts, answered after %d ms", answeredAfter / 1_000_000).isEqualTo(2);
      } else {
        // A busy machine delivered the hedge's answer later than the next hedge delay: a second hedge may have
        // left, no earlier than two delays after the call began, and never a fourth attempt.
        arrivals = server.arrivals();
        assertThat(arrivals).as("attempts, answered after %d ms", answeredAfter / 1_000_000).hasSizeBetween(2, 3);
        if (arrivals.size() == 3) {
          assertThat(arrivals.get(2) - start).as("the second hedge's departure, ns").isGreaterThanOrEqualTo(2 * delay);
        }
      }
      System.out.println("hedging example: answered after " + answeredAfter / 1_000_000 + " ms, "
          + server.attempts() + " attempts");
      channel.shutdownNow();

      // [hedging-export]
      GrpcServiceConfig config = GrpcServiceConfig.hedgingPolicy(hedged).requireExact();
      ManagedChannel nativeHedging = InProcessChannelBuilder.forName(serverName) // or ManagedChannelBuilder.forTarget(...)
          .defaultServiceConfig(config.asMap())
          .enableRetry()                                    // gRPC's hedging is part of its retry support
          .build();
      // [/hedging-export]
      nativeHedging.shutdownNow();
      assertThat(config.toJson()).isEqualTo("{\"methodConfig\":[{\"name\":[{}],\"hedgingPolicy\":{\"maxAttempts\":3,"
          + "\"hedgingDelay\":\"0.04s\",\"nonFatalStatusCodes\":[\"RESOURCE_EXHAUSTED\",\"UNAVAILABLE\"]}}],"
          + "\"retryThrottling\":{\"maxTokens\":10,\"tokenRatio\":0.1}}");
    }
  }

  @Test
  void theDocsShowTheseExamplesVerbatim() throws IOException {
    String source = Files.readString(SOURCE);
    String docs = Files.readString(DOCS);
    for (String name : List.of("interceptor", "export", "hedging", "hedging-export")) {
      Matcher m = Pattern.compile("(?s)// \\[" + name + "]\\n(.*?)\\n\\s*// \\[/" + name + "]").matcher(source);
      assertThat(m.find()).as("snippet %s in %s", name, SOURCE).isTrue();
      String snippet = m.group(1).lines().map(line -> line.length() >= 6 ? line.substring(6) : line.strip())
          .collect(Collectors.joining("\n"));
      assertThat(docs).as("docs/grpc.md shows the '%s' example as in %s", name, SOURCE).contains(snippet);
    }
  }
}
