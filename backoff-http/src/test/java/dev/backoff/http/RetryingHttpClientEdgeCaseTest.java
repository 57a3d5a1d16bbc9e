package dev.backoff.http;

import static dev.backoff.testing.RecordingListener.Kind.ABORTED;
import static dev.backoff.testing.RecordingListener.Kind.RETRY;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.backoff.Backoff;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.RecordingListener;
import dev.backoff.testing.RecordingSleeper;
import dev.backoff.testing.ScriptedHttpServer;
import dev.backoff.testing.ScriptedHttpServer.Response;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 20, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class RetryingHttpClientEdgeCaseTest {
  final FakeClock clock = new FakeClock();
  final RecordingListener<HttpResponse<?>> listener = new RecordingListener<>();
  RecordingScheduler scheduler;

  @AfterEach
  void stopScheduler() {
    if (scheduler != null) {
      scheduler.shutdownNow();
    }
  }

  RetryPolicy.Builder<HttpResponse<?>> policy() {
    return RetryPolicy.<HttpResponse<?>>builder()
        .maxAttempts(5)
        .backoff(Backoff.fixed(Duration.ofMillis(100)))
        .clock(clock)
        .sleeper(new RecordingSleeper(clock))
        .listener(listener);
  }

  RetryingHttpClient client(HttpClient http, RetryPolicy<HttpResponse<?>> policy, boolean runAtOnce) {
    scheduler = new RecordingScheduler(runAtOnce);
    return RetryingHttpClient.builder(http).policy(policy).scheduler(scheduler).build();
  }

  static HttpClient http11() {
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  }

  @Test
  void asyncCallWhosePolicyCallbackThrowsCompletesWithThatExceptionInsteadOfHanging() throws IOException {
    IllegalStateException classifierBug = new IllegalStateException("classifier bug");
    RetryPolicy<HttpResponse<?>> policy = policy().classifyFailures(failure -> {
      throw classifierBug;
    }).build();
    CountingHttpClient http = new CountingHttpClient(http11());
    URI refused = RetryingHttpClientTest.refusedUri();

    CompletableFuture<HttpResponse<String>> future = client(http, policy, true)
        .sendAsync(HttpRequest.newBuilder(refused).build(), BodyHandlers.ofString());
    Throwable thrown = catchThrowable(() -> future.get(10, TimeUnit.SECONDS));

    assertThat(thrown).isInstanceOf(ExecutionException.class).hasCause(classifierBug);
    assertThat(http.sends).hasValue(1);
  }

  @Test
  void completingTheFutureFromOutsideStopsThePendingRetryAndTellsTheListeners() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(Response.of(503, "busy"))) {
      CountingHttpClient http = new CountingHttpClient(http11());
      CompletableFuture<HttpResponse<String>> future = client(http, policy().build(), false)
          .sendAsync(HttpRequest.newBuilder(server.uri("/")).build(), BodyHandlers.ofString());
      assertThat(scheduler.firstScheduled.await(10, TimeUnit.SECONDS)).isTrue();

      // What orTimeout does when its time is up.
      assertThat(future.completeExceptionally(new TimeoutException())).isTrue();

      assertThat(scheduler.futures()).singleElement().satisfies(pending -> assertThat(pending.isCancelled()).isTrue());
      assertThat(scheduler.getQueue()).isEmpty();
      scheduler.commands().get(0).run(); // the timer firing in a race with the completion starts nothing
      assertThat(http.sends).hasValue(1);
      assertThat(listener.kinds()).containsExactly(RETRY, ABORTED);
      assertThat(listener.last().stopReason()).isEqualTo(StopReason.CANCELLED);
    }
  }

  @Test
  @Timeout(value = 5, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aFailureWithCyclicCausesOnANonRepeatableRequestDoesNotHang() throws Exception {
    IOException outer = new IOException("outer");
    IOException inner = new IOException("inner", outer);
    outer.initCause(inner); // outer → inner → outer: legal, and seen in the wild with wrapping libraries
    CountingHttpClient http = new CountingHttpClient(http11(), outer);
    URI uri = URI.create("http://127.0.0.1:9/");
    HttpRequest post = HttpRequest.newBuilder(uri).POST(BodyPublishers.ofString("x")).build();
    RetryingHttpClient client = client(http, policy().build(), true);

    Throwable sync = catchThrowable(() -> client.send(post, BodyHandlers.ofString()));
    Throwable async = catchThrowable(() -> client.sendAsync(post, BodyHandlers.ofString()).get(10, TimeUnit.SECONDS));

    assertThat(sync).isSameAs(outer);
    assertThat(async).isInstanceOf(ExecutionException.class).hasCause(outer);
    assertThat(http.sends).hasValue(2); // a POST that may have been sent is not repeated
  }

  @Test
  void aFirstAttemptInterruptedIsReportedToTheListenersAndCarriesItsHistory() {
    InterruptedException interruption = new InterruptedException("interrupted during the first attempt");
    RetryingHttpClient client = client(new ControlledHttpClient(interruption), policy().build(), true);
    HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:9/")).build();

    Throwable thrown = catchThrowable(() -> client.send(get, BodyHandlers.ofString()));

    assertThat(Thread.interrupted()).as("the interrupt flag is set again").isTrue();
    assertThat(thrown).isSameAs(interruption);
    assertThat(dev.backoff.RetryHistory.of(thrown).stopReason()).isEqualTo(StopReason.INTERRUPTED);
    assertThat(listener.kinds()).containsExactly(ABORTED);
    assertThat(listener.last().stopReason()).isEqualTo(StopReason.INTERRUPTED);
  }
}
