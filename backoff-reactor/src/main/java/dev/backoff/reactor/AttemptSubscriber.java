package dev.backoff.reactor;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * One attempt of a Mono: a subscription to the source seen as the stage the asynchronous loop waits for. It
 * carries the downstream subscriber's {@link Context} upstream (unlike {@code Mono.toFuture()}), so the source
 * sees the same context on every attempt; cancelling the stage cancels the subscription.
 */
final class AttemptSubscriber<T> extends CompletableFuture<T> implements CoreSubscriber<T> {
  @SuppressWarnings("rawtypes")
  private static final AtomicReferenceFieldUpdater<AttemptSubscriber, Subscription> UPSTREAM =
      AtomicReferenceFieldUpdater.newUpdater(AttemptSubscriber.class, Subscription.class, "upstream");
  private volatile Subscription upstream;
  private final Context context;

  AttemptSubscriber(Context context) {
    this.context = context;
  }

  @Override
  public Context currentContext() {
    return context;
  }

  @Override
  public void onSubscribe(Subscription s) {
    if (UPSTREAM.compareAndSet(this, null, s)) {
      s.request(Long.MAX_VALUE);
      if (isDone()) { // cancelled before the source called back
        s.cancel();
      }
    } else {
      s.cancel();
    }
  }

  @Override
  public void onNext(T value) {
    // A Mono emits at most once; anything after the first value is dropped as Reactor drops it.
    if (!complete(value)) {
      Operators.onNextDropped(value, context);
    }
  }

  @Override
  public void onError(Throwable failure) {
    if (!completeExceptionally(failure)) {
      Operators.onErrorDropped(failure, context);
    }
  }

  @Override
  public void onComplete() {
    complete(null); // after a value this does nothing; alone it is an empty Mono: a null result
  }

  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    boolean cancelled = super.cancel(mayInterruptIfRunning);
    Subscription s = upstream;
    if (cancelled && s != null) {
      s.cancel();
    }
    return cancelled;
  }
}
