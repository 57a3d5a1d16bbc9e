package dev.backoff.http;

import java.net.http.HttpResponse.BodySubscriber;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The body of one attempt's response, between the connection and whoever reads it. Two modes:
 * <ul>
 *   <li><b>read-ahead</b> (a response that may be retried): reads the body until it ends or more than
 *       {@code limit} bytes arrived (at most one network read more), then
 *       stops asking for more and completes {@link #getBody()} with itself, so the engine can decide on the
 *       status and headers. A retried response is then {@linkplain #discard() discarded}: if its body ended
 *       within the limit the connection goes back to the pool, otherwise it is cancelled (closed) rather
 *       than read on. A response that is kept is {@linkplain #bridge handed} to the caller's subscriber:
 *       the bytes read ahead, then the rest straight from the connection, never buffered whole.
 *   <li><b>direct</b> (no retry is possible): the caller's subscriber, bridged from the start.
 * </ul>
 * In both modes {@link #fail} ends the body at once with a failure (the attempt's timer uses it), and
 * cancels the connection.
 *
 * <p>Thread-safe: the connection, the caller's subscriber and the timer may call it from different threads.
 * Signals to the caller's subscriber are serialised by a drain loop, so they never overlap or nest.
 */
final class AttemptBody implements BodySubscriber<Object> {
  private static final Object COMPLETE = new Object();

  private final int limit;
  private final boolean direct;
  private final CompletableFuture<Object> readAhead = new CompletableFuture<>();
  private final AtomicReference<Object> terminal = new AtomicReference<>(); // null, COMPLETE or a Throwable
  private final ConcurrentLinkedQueue<List<ByteBuffer>> queue = new ConcurrentLinkedQueue<>();
  private final AtomicLong requested = new AtomicLong();
  private final AtomicInteger wip = new AtomicInteger();
  private volatile Flow.Subscription upstream;
  private volatile BodySubscriber<?> downstream;
  private volatile boolean downstreamCancelled;

  // Read-ahead bytes: written by the connection's signals before readAhead completes, read after it (the
  // future's completion orders them), then owned by the drain loop.
  private byte[] prefix = new byte[0];
  private int prefixLength;
  private boolean prefixPending;
  private boolean terminated; // drain loop only

  private AttemptBody(int limit, boolean direct) {
    this.limit = limit;
    this.direct = direct;
  }

  /** A body that reads ahead at most about {@code limit} bytes before the decision. */
  static AttemptBody readAhead(int limit) {
    return new AttemptBody(limit, false);
  }

  /** A body passed straight to {@code subscriber}, which can still be failed by the attempt's timer. */
  static AttemptBody direct(BodySubscriber<?> subscriber) {
    AttemptBody body = new AttemptBody(0, true);
    body.bridge(subscriber);
    return body;
  }

  /** How many bytes were read ahead (for messages and tests). */
  synchronized int bytesReadAhead() {
    return prefixLength;
  }

  /** Whether the whole body arrived (within the read-ahead limit, for a read-ahead body). */
  boolean isComplete() {
    return terminal.get() == COMPLETE;
  }

  @Override
  public CompletionStage<Object> getBody() {
    if (direct) {
      @SuppressWarnings("unchecked")
      CompletionStage<Object> body = (CompletionStage<Object>) downstream.getBody();
      return body;
    }
    return readAhead;
  }

  @Override
  public void onSubscribe(Flow.Subscription subscription) {
    Objects.requireNonNull(subscription, "subscription must not be null");
    if (upstream != null) {
      subscription.cancel(); // a second subscription is a protocol error: refuse it
      return;
    }
    upstream = subscription;
    if (terminal.get() instanceof Throwable) {
      subscription.cancel(); // failed (timed out) before the body even started
    }
    BodySubscriber<?> down = downstream;
    if (down != null) {
      down.onSubscribe(new Bridge());
      drain();
    } else if (limit <= 0) {
      readAhead.complete(this);
    } else {
      subscription.request(1);
    }
  }

  @Override
  public void onNext(List<ByteBuffer> items) {
    if (downstream != null) {
      queue.add(items);
      drain();
      return;
    }
    if (terminal.get() != null) {
      return; // failed or discarded meanwhile: drop what was still on its way
    }
    boolean full;
    synchronized (this) {
      // Copied, not kept: the client's buffers may be slices of much larger ones (a trickling server
      // would pin a whole buffer per byte).
      for (ByteBuffer item : items) {
        int n = item.remaining();
        if (prefixLength + n > prefix.length) {
          // Doubling, but never beyond what this read needs past the limit.
          long wanted = Math.max(prefixLength + (long) n, Math.min(Math.max(prefix.length * 2L, 1024), limit + (long) n));
          prefix = java.util.Arrays.copyOf(prefix, (int) Math.min(wanted, Integer.MAX_VALUE - 8));
        }
        item.get(prefix, prefixLength, n);
        prefixLength += n;
      }
      // Strictly more: a body of exactly the limit is read on to its end, so its connection can be reused.
      full = prefixLength > limit;
    }
    if (full) {
      readAhead.complete(this);
    } else {
      upstream.request(1);
    }
  }

  @Override
  public void onError(Throwable failure) {
    if (terminal.compareAndSet(null, failure)) {
      end();
    }
  }

  @Override
  public void onComplete() {
    if (terminal.compareAndSet(null, COMPLETE)) {
      end();
    }
  }

  /**
   * Ends the body with {@code failure} (unless it already ended): the connection is cancelled, and whoever
   * waits for the body gets the failure.
   */
  void fail(Throwable failure) {
    if (terminal.compareAndSet(null, failure)) {
      // Our failure first, then the cancel: on cancel some JDKs (25) fail the exchange with their own
      // "bytes received" IOException, which must not replace the timeout. With a caller's subscriber, the
      // drain loop cancels once it has delivered the failure (maybe on another thread, after an onNext).
      end();
      if (downstream == null) {
        cancelUpstream();
      }
    }
  }

  private void cancelUpstream() {
    Flow.Subscription s = upstream;
    if (s != null) {
      s.cancel();
    }
  }

  /** Releases a response nobody will read: its connection is closed unless its body already ended. */
  void discard() {
    downstreamCancelled = true;
    if (terminal.compareAndSet(null, new java.util.concurrent.CancellationException("response discarded"))) {
      Flow.Subscription s = upstream;
      if (s != null) {
        s.cancel();
      }
    }
    synchronized (this) {
      prefix = new byte[0];
      prefixLength = 0;
    }
  }

  /** Hands the body to {@code subscriber}: the bytes read ahead first, then the rest of the connection's. */
  void bridge(BodySubscriber<?> subscriber) {
    synchronized (this) {
      prefixPending = prefixLength > 0;
    }
    downstream = subscriber;
    if (upstream != null) {
      subscriber.onSubscribe(new Bridge());
      drain();
    }
  }

  private void end() {
    if (downstream != null) {
      drain();
      return;
    }
    Object end = terminal.get();
    if (end instanceof Throwable) {
      readAhead.completeExceptionally((Throwable) end);
    } else {
      readAhead.complete(this);
    }
  }

  /** Delivers, on one thread at a time: the read-ahead bytes, then queued items, then the end. */
  private void drain() {
    if (wip.getAndIncrement() != 0) {
      return;
    }
    BodySubscriber<?> down = downstream;
    int missed = 1;
    while (true) {
      while (!terminated && upstream != null) { // nothing is signalled before the caller is subscribed
        if (downstreamCancelled) {
          terminated = true;
          queue.clear();
          break;
        }
        Object end = terminal.get();
        if (end instanceof Throwable) {
          terminated = true; // a failure ends the body at once: what is still queued is dropped
          queue.clear();
          down.onError((Throwable) end);
          cancelUpstream(); // after the failure is delivered (see fail); a no-op if the connection failed
          break;
        }
        if (prefixPending) {
          if (requested.get() == 0) {
            break;
          }
          requested.decrementAndGet();
          prefixPending = false;
          ByteBuffer bytes;
          synchronized (this) {
            bytes = ByteBuffer.wrap(prefix, 0, prefixLength);
            prefix = new byte[0];
          }
          down.onNext(List.of(bytes));
          continue;
        }
        List<ByteBuffer> item = queue.poll();
        if (item != null) {
          down.onNext(item); // asked for upstream on the caller's demand: covered by it
          continue;
        }
        if (end == COMPLETE) {
          terminated = true;
          down.onComplete();
          break;
        }
        long n = requested.getAndSet(0);
        if (n > 0) {
          upstream.request(n); // may deliver at once, on this thread: queued, then picked up below
        }
        break;
      }
      missed = wip.addAndGet(-missed);
      if (missed == 0) {
        return;
      }
    }
  }

  @Override
  public String toString() {
    return "(" + bytesReadAhead() + " bytes read ahead of a retryable response's body"
        + (isComplete() ? ", all of it)" : ")");
  }

  /** The caller's subscription: demand and cancellation go to the connection through the drain loop. */
  private final class Bridge implements Flow.Subscription {
    @Override
    public void request(long n) {
      if (n <= 0) {
        fail(new IllegalArgumentException("demand must be positive, was " + n));
        return;
      }
      requested.accumulateAndGet(n, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b);
      drain();
    }

    @Override
    public void cancel() {
      downstreamCancelled = true;
      if (terminal.compareAndSet(null, new java.util.concurrent.CancellationException("cancelled by the reader"))) {
        Flow.Subscription s = upstream;
        if (s != null) {
          s.cancel();
        }
      }
    }
  }
}
