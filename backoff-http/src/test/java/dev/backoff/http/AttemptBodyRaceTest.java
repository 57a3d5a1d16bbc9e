package dev.backoff.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The connection, the attempt's timer and the caller's subscriber act on one body from different threads.
 * Whatever the interleaving, the caller's subscriber sees a well-formed sequence: items in order, then
 * exactly one end, never a signal after it or two at once; a timeout cancels the connection.
 */
@Timeout(60)
class AttemptBodyRaceTest {
  static final int ITERATIONS = 1000;
  static final int ITEMS = 20;
  final ExecutorService threads = Executors.newFixedThreadPool(2);

  @AfterEach
  void stop() {
    threads.shutdownNow();
  }

  @Test
  void aTimeoutRacingTheLastBytesEndsTheBodyOnceEitherWay() throws Exception {
    int completed = 0;
    for (int i = 0; i < ITERATIONS; i++) {
      RecordingSubscriber caller = new RecordingSubscriber(i % 2 == 0 ? Long.MAX_VALUE : 1);
      AttemptBody body = AttemptBody.direct(caller);
      FakeConnection connection = new FakeConnection();
      body.onSubscribe(connection);
      HttpTimeoutException timeout = new HttpTimeoutException("timed out");
      race(() -> deliver(body, ITEMS), () -> body.fail(timeout));

      caller.assertWellFormed();
      if (caller.failure == null) {
        completed++;
        assertThat(caller.bytes()).isEqualTo(ITEMS);
      } else {
        assertThat(caller.failure).isSameAs(timeout);
        assertThat(connection.cancelled).isTrue();
      }
    }
    System.out.println("AttemptBodyRaceTest: the body won " + completed + " of " + ITERATIONS + " races");
  }

  @Test
  void aHandOverRacingTheConnectionsEndDeliversEverythingOnce() throws Exception {
    for (int i = 0; i < ITERATIONS; i++) {
      boolean fails = i % 2 == 1;
      AttemptBody body = AttemptBody.readAhead(5);
      FakeConnection connection = new FakeConnection();
      body.onSubscribe(connection);
      deliver(body, 6, false); // more than the limit: the read-ahead is full, the decision can be made
      assertThat(body.getBody().toCompletableFuture().isDone()).isTrue();
      RecordingSubscriber caller = new RecordingSubscriber(1);
      IllegalStateException reset = new IllegalStateException("connection reset");
      // The connection ends (its last items were already on their way, or it breaks) while the caller
      // takes the body over.
      race(() -> body.bridge(caller), () -> {
        if (fails) {
          body.onError(reset);
        } else {
          body.onComplete();
        }
      });

      caller.assertWellFormed();
      if (fails) {
        assertThat(caller.failure).isSameAs(reset);
      } else {
        assertThat(caller.failure).isNull();
        assertThat(caller.bytes()).isEqualTo(6);
      }
    }
  }

  void race(Runnable first, Runnable second) throws Exception {
    CyclicBarrier start = new CyclicBarrier(2);
    Future<?> a = threads.submit(() -> {
      start.await();
      first.run();
      return null;
    });
    Future<?> b = threads.submit(() -> {
      start.await();
      second.run();
      return null;
    });
    a.get(10, TimeUnit.SECONDS);
    b.get(10, TimeUnit.SECONDS);
  }

  static void deliver(AttemptBody body, int items) {
    deliver(body, items, true);
  }

  static void deliver(AttemptBody body, int items, boolean complete) {
    for (int i = 0; i < items; i++) {
      body.onNext(List.of(ByteBuffer.wrap(new byte[] {(byte) i})));
    }
    if (complete) {
      body.onComplete();
    }
  }

  static final class FakeConnection implements Flow.Subscription {
    volatile boolean cancelled;

    @Override
    public void request(long n) {}

    @Override
    public void cancel() {
      cancelled = true;
    }
  }

  /** Records every signal; flags overlapping ones and signals after the end. */
  static final class RecordingSubscriber implements BodySubscriber<Void> {
    private final long batch;
    private final AtomicBoolean inSignal = new AtomicBoolean();
    private final List<Byte> received = new ArrayList<>();
    private final CompletableFuture<Void> body = new CompletableFuture<>();
    private Flow.Subscription subscription;
    private volatile int ends;
    private volatile boolean overlapped;
    private volatile boolean afterEnd;
    volatile Throwable failure;

    RecordingSubscriber(long batch) {
      this.batch = batch;
    }

    @Override
    public CompletionStage<Void> getBody() {
      return body;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      this.subscription = subscription;
      subscription.request(batch);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
      enter();
      if (ends > 0) {
        afterEnd = true;
      }
      for (ByteBuffer item : items) {
        while (item.hasRemaining()) {
          received.add(item.get());
        }
      }
      if (batch != Long.MAX_VALUE) {
        subscription.request(batch); // from within onNext: must not nest a signal
      }
      exit();
    }

    @Override
    public void onError(Throwable throwable) {
      enter();
      failure = throwable;
      ends++;
      body.completeExceptionally(throwable);
      exit();
    }

    @Override
    public void onComplete() {
      enter();
      ends++;
      body.complete(null);
      exit();
    }

    private void enter() {
      if (!inSignal.compareAndSet(false, true)) {
        overlapped = true;
      }
    }

    private void exit() {
      inSignal.set(false);
    }

    synchronized int bytes() {
      for (int i = 0; i < received.size(); i++) {
        assertThat(received.get(i)).isEqualTo((byte) i); // in order, none lost or repeated
      }
      return received.size();
    }

    void assertWellFormed() {
      assertThat(ends).isEqualTo(1);
      assertThat(overlapped).as("overlapping signals").isFalse();
      assertThat(afterEnd).as("a signal after the end").isFalse();
      bytes();
    }
  }
}
