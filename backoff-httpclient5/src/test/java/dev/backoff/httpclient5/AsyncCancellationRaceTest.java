package dev.backoff.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.Backoff;
import dev.backoff.RetryEvent;
import dev.backoff.RetryListener;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.httpclient5.ScriptedServer.Reply;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.core5.http.HttpResponse;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Cancelling async calls at arbitrary moments (while an attempt is in flight, while its body is read
 * ahead, while the retry is being scheduled, while it waits) on a real scheduler: every call ends
 * cancelled, its listeners hear CANCELLED once, no retry is left queued, and at most the one request that
 * was already on its way reaches the server after {@code cancel} returned.
 */
@Tag("slow")
class AsyncCancellationRaceTest {
  private static final int CALLS = 150;

  @Test
  void cancellingAtAnyMomentStopsTheCallForGood() throws Exception {
    ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    scheduler.setRemoveOnCancelPolicy(true);
    List<StopReason> stops = new CopyOnWriteArrayList<>();
    RetryPolicy<HttpResponse> policy = RetryPolicy.<HttpResponse>builder()
        .maxAttempts(1_000)
        .backoff(Backoff.fixed(Duration.ofMillis(1)))
        .listener(new RetryListener<HttpResponse>() {
          @Override
          public void onAborted(RetryEvent<HttpResponse> event) {
            stops.add(event.stopReason());
          }

          @Override
          public void onExhausted(RetryEvent<HttpResponse> event) {
            stops.add(event.stopReason());
          }
        })
        .build();
    SplittableRandom random = new SplittableRandom(42);
    try (ScriptedServer server = new ScriptedServer(Reply.of(503, "z".repeat(2_000)));
        CloseableHttpAsyncClient client = HttpClient5Retry.builder().policy(policy).scheduler(scheduler).build()
            .asyncClientBuilder().build()) {
      client.start();
      for (int i = 0; i < CALLS; i++) {
        Future<SimpleHttpResponse> call = client.execute(SimpleRequestBuilder.get(server.uri("/a")).build(), null);
        long pauseMicros = random.nextLong(0, 8_000);
        TimeUnit.MICROSECONDS.sleep(pauseMicros);
        assertThat(call.cancel(true)).as("call %d", i).isTrue();
        int atCancel = server.requests();
        awaitStops(stops, i + 1);
        int settled = server.requests();
        assertThat(settled - atCancel).as("requests after cancel returned, call %d", i).isLessThanOrEqualTo(1);
        assertThat(call.isCancelled()).isTrue();
      }
      assertThat(stops).hasSize(CALLS).containsOnly(StopReason.CANCELLED);
      assertThat(scheduler.getQueue()).isEmpty();
    } finally {
      scheduler.shutdownNow();
    }
  }

  /** Waits (bounded: a hang guard, not a timing assertion) until the listeners heard of {@code count} stops. */
  private static void awaitStops(List<StopReason> stops, int count) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (stops.size() < count) {
      if (System.nanoTime() > end) {
        throw new AssertionError("call " + count + " never told its listeners it stopped: " + stops.size());
      }
      Thread.sleep(1);
    }
  }
}
