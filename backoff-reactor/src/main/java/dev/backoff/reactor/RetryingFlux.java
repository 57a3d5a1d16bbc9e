package dev.backoff.reactor;

import dev.backoff.driver.AsyncAttempt;
import dev.backoff.driver.AttemptContext;
import dev.backoff.driver.OutcomeJudge;
import dev.backoff.driver.RetryLoops;
import dev.backoff.driver.Verdict;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/** The Flux {@link FluxRetry} returns: one retried call per subscriber. */
final class RetryingFlux<T> extends Flux<T> {
  /** A Flux attempt has no result to judge: it failed before its first signal, or it is committed. */
  private static final OutcomeJudge<Object> FAILURES_ONLY =
      (policy, result, failure) -> failure == null ? Verdict.ACCEPT : Verdict.RETRYABLE;

  private final Flux<T> source;
  private final Driver driver;

  RetryingFlux(Flux<T> source, Driver driver) {
    this.source = source;
    this.driver = driver;
  }

  @Override
  public void subscribe(CoreSubscriber<? super T> actual) {
    Relay<T> relay = new Relay<>(source, actual);
    actual.onSubscribe(relay);
    if (relay.cancelled) {
      return; // cancelled from onSubscribe: no attempt at all
    }
    CompletableFuture<Object> call = RetryLoops.async(driver.executor(), relay, FAILURES_ONLY);
    relay.call = call;
    if (relay.cancelled) {
      call.cancel(false);
    }
    call.whenComplete((ignored, failure) -> {
      // Success is signalled by the committed attempt itself; a failure is the call's, after the last attempt.
      if (failure != null && !(failure instanceof CancellationException) && !relay.cancelled) {
        actual.onError(failure);
      }
    });
  }

  /**
   * Between the subscriber and the attempts: forwards demand to the current attempt, starts attempts for the
   * loop, and cancels the call when the subscriber cancels.
   */
  static final class Relay<T> implements Subscription, AsyncAttempt<Object> {
    final Flux<T> source;
    final CoreSubscriber<? super T> actual;
    volatile CompletableFuture<Object> call;
    volatile boolean cancelled;
    volatile boolean committed;
    private long requested; // guarded by this
    private Subscription current; // guarded by this: the latest attempt's subscription

    Relay(Flux<T> source, CoreSubscriber<? super T> actual) {
      this.source = source;
      this.actual = actual;
    }

    @Override
    public CompletionStage<Object> start(AttemptContext context) {
      Attempt<T> attempt = new Attempt<>(this);
      source.subscribe(attempt);
      return attempt;
    }

    /** The attempt's subscription arrived: it becomes the current one and receives the demand so far. */
    void attach(Subscription s) {
      long demand;
      synchronized (this) {
        current = s;
        demand = requested;
      }
      if (cancelled) {
        s.cancel();
      } else if (demand > 0) {
        s.request(demand);
      }
    }

    @Override
    public void request(long n) {
      if (n <= 0) {
        cancel();
        actual.onError(new IllegalArgumentException("request must be positive (rule 3.9), was " + n));
        return;
      }
      Subscription s;
      synchronized (this) {
        requested = Operators.addCap(requested, n);
        s = current;
      }
      if (s != null) {
        s.request(n);
      }
    }

    @Override
    public void cancel() {
      if (cancelled) {
        return;
      }
      cancelled = true;
      CompletableFuture<Object> c = call;
      if (c != null) {
        c.cancel(false); // a pending retry never starts; an attempt in flight is cancelled
      }
      Subscription s;
      synchronized (this) {
        s = current;
      }
      if (s != null) {
        s.cancel(); // the committed attempt, which the finished call no longer cancels
      }
    }
  }

  /** One subscription to the source; completes (as a stage) at its first signal. */
  static final class Attempt<T> extends CompletableFuture<Object> implements CoreSubscriber<T> {
    private final Relay<T> relay;
    private volatile Subscription upstream;

    Attempt(Relay<T> relay) {
      this.relay = relay;
    }

    @Override
    public Context currentContext() {
      return relay.actual.currentContext();
    }

    @Override
    public void onSubscribe(Subscription s) {
      if (upstream != null) {
        s.cancel();
        return;
      }
      upstream = s;
      if (isDone()) {
        s.cancel(); // cancelled by the loop before the source called back
      } else {
        relay.attach(s);
      }
    }

    @Override
    public void onNext(T value) {
      if (!relay.committed) {
        relay.committed = true;
        complete(null); // the loop accepts: the call is over, this attempt streams on
      }
      if (relay.cancelled) {
        Operators.onDiscard(value, currentContext());
        return;
      }
      relay.actual.onNext(value);
    }

    @Override
    public void onError(Throwable failure) {
      if (!relay.committed) {
        completeExceptionally(failure); // the loop decides: retry, or end the call with it
      } else if (!relay.cancelled) {
        relay.actual.onError(failure);
      } else {
        Operators.onErrorDropped(failure, currentContext());
      }
    }

    @Override
    public void onComplete() {
      if (!relay.committed) {
        relay.committed = true;
        complete(null);
      }
      if (!relay.cancelled) {
        relay.actual.onComplete();
      }
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
}
