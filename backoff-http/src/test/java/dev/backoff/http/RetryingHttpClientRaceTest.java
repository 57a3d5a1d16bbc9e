package dev.backoff.http;

import static dev.backoff.testing.RecordingListener.Kind.ABORTED;
import static dev.backoff.testing.RecordingListener.Kind.RETRY;
import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.Backoff;
import dev.backoff.RetryPolicy;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.RecordingListener;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Races of the asynchronous HTTP call, made deterministic with attempts the test completes by hand. */
@Timeout(20)
class RetryingHttpClientRaceTest {
  final ControlledHttpClient http = new ControlledHttpClient();
  final HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:9/")).build();
  ScheduledThreadPoolExecutor scheduler;

  @AfterEach
  void stopScheduler() {
    if (scheduler != null) {
      scheduler.shutdownNow();
    }
  }

  RetryingHttpClient client(ScheduledThreadPoolExecutor scheduler) {
    this.scheduler = scheduler;
    return RetryingHttpClient.builder(http)
        .policy(RetryPolicy.<HttpResponse<?>>builder().maxAttempts(5).backoff(Backoff.fixed(Duration.ofMillis(100)))
            .clock(new FakeClock()).build())
        .scheduler(scheduler)
        .build();
  }

  @Test
  void aResponseArrivingAfterTheCallerCancelledIsClosedNotLeaked() {
    CompletableFuture<HttpResponse<InputStream>> future = client(new ScheduledThreadPoolExecutor(1))
        .sendAsync(get, BodyHandlers.ofInputStream());
    ControlledHttpClient.Attempt attempt = http.attempts().get(0);

    assertThat(future.cancel(true)).isTrue();
    assertThat(attempt.cancelRequested).isTrue(); // asked, but this response was already on its way
    ControlledHttpClient.TrackedStream body = new ControlledHttpClient.TrackedStream("ok");
    attempt.respondWithStream(200, body);

    assertThat(body.closed).as("the unwanted body is closed, which frees its connection").isTrue();
  }

  @Test
  void aResponseArrivingAfterTheCallerTimedOutIsClosedNotLeaked() {
    CompletableFuture<HttpResponse<InputStream>> future = client(new ScheduledThreadPoolExecutor(1))
        .sendAsync(get, BodyHandlers.ofInputStream());
    ControlledHttpClient.Attempt attempt = http.attempts().get(0);

    assertThat(future.completeExceptionally(new TimeoutException())).isTrue(); // what orTimeout does
    ControlledHttpClient.TrackedStream body = new ControlledHttpClient.TrackedStream("ok");
    attempt.respondWithStream(200, body);

    assertThat(body.closed).isTrue();
  }

  /** Runs the first task inline, before schedule returns (as a task on another thread may), then queues. */
  static final class FirstTaskInlineScheduler extends ScheduledThreadPoolExecutor {
    private boolean first = true;

    FirstTaskInlineScheduler() {
      super(1);
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
      if (first) {
        first = false;
        task.run();
        return super.schedule(() -> { }, 0, TimeUnit.NANOSECONDS);
      }
      return super.schedule(task, 1, TimeUnit.HOURS);
    }

    /** The core's async loop schedules its retry as a Callable: the same rules. */
    @Override
    public <V> ScheduledFuture<V> schedule(java.util.concurrent.Callable<V> task, long delay, TimeUnit unit) {
      if (first) {
        first = false;
        try {
          task.call();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
        return super.schedule(() -> null, 0, TimeUnit.NANOSECONDS);
      }
      return super.schedule(task, 1, TimeUnit.HOURS);
    }
  }

  @Test
  void cancellingReachesTheAttemptInFlightEvenIfItsRetryStartedBeforeScheduleReturned() {
    CompletableFuture<HttpResponse<String>> future = client(new FirstTaskInlineScheduler())
        .sendAsync(get, BodyHandlers.ofString());
    http.attempts().get(0).completeExceptionally(new ConnectException("refused"));
    assertThat(http.attempts()).hasSize(2); // the retry ran inside schedule()
    ControlledHttpClient.Attempt inFlight = http.attempts().get(1);

    assertThat(future.cancel(true)).isTrue();

    assertThat(inFlight.cancelRequested).as("the attempt in flight is cancelled").isTrue();
  }

  @Test
  void anAttemptCompletedOnAnInterruptedThreadIsStillRetried() {
    CompletableFuture<HttpResponse<String>> future = client(new ScheduledThreadPoolExecutor(1))
        .sendAsync(get, BodyHandlers.ofString());
    // Another task's thread, interrupted for its own reasons, happens to complete this call's attempt.
    Thread.currentThread().interrupt();
    try {
      http.attempts().get(0).completeExceptionally(new ConnectException("refused"));
    } finally {
      assertThat(Thread.interrupted()).as("the flag is left as it was").isTrue();
    }

    assertThat(scheduler.getQueue()).as("a retry is scheduled; the call was not interrupted").hasSize(1);
    assertThat(future).isNotDone();
    future.cancel(true);
  }

  @Test
  void aListenerThatCancelsWhenTheRetryIsScheduledLeavesNoTaskQueued() {
    java.util.List<CompletableFuture<HttpResponse<String>>> returned = new java.util.ArrayList<>();
    RecordingListener<HttpResponse<?>> recording = new RecordingListener<>();
    scheduler = new RecordingScheduler(false);
    RetryingHttpClient client = RetryingHttpClient.builder(http)
        .policy(RetryPolicy.<HttpResponse<?>>builder().maxAttempts(5).backoff(Backoff.fixed(Duration.ofMillis(100)))
            .clock(new FakeClock())
            .listener(recording) // first: it hears the retry before the cancelling listener runs
            .listener(new dev.backoff.RetryListener<HttpResponse<?>>() {
              @Override
              public void onRetryScheduled(dev.backoff.RetryEvent<HttpResponse<?>> event) {
                returned.get(0).cancel(true); // stands in for a cancel from another thread at this moment
              }
            })
            .build())
        .scheduler(scheduler)
        .build();
    returned.add(client.sendAsync(get, BodyHandlers.ofString()));
    http.attempts().get(0).completeExceptionally(new ConnectException("refused"));

    assertThat(returned.get(0)).isCancelled();
    assertThat(scheduler.getQueue()).as("no retry left queued until it falls due").isEmpty();
    assertThat(http.attempts()).hasSize(1);
    assertThat(recording.kinds()).containsExactly(RETRY, ABORTED);
  }
}
