package dev.backoff;

import java.util.concurrent.CompletableFuture;

/**
 * The future of an asynchronous call ({@link AsyncCall}, {@link HedgedCall}): a completion from outside (the
 * caller's {@code cancel}, {@code complete} or {@code completeExceptionally}) stops the call ({@link #stopIf});
 * the call completes itself with {@link #settle} and {@link #settleExceptionally}, which do not.
 */
abstract class CallFuture<T> extends CompletableFuture<T> {
  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    return stopIf(super.cancel(mayInterruptIfRunning));
  }

  @Override
  public boolean complete(T value) {
    return stopIf(super.complete(value));
  }

  @Override
  public boolean completeExceptionally(Throwable failure) {
    return stopIf(super.completeExceptionally(failure));
  }

  /** The call's own completion with its outcome; false if the caller completed the future first. */
  final boolean settle(T value) {
    return super.complete(value);
  }

  /** The call's own completion with a failure; false if the caller completed the future first. */
  final boolean settleExceptionally(Throwable failure) {
    return super.completeExceptionally(failure);
  }

  /**
   * After a completion from outside ({@code completed}: it took effect), stops the call: no attempt starts
   * after this returns. Returns {@code completed}.
   */
  abstract boolean stopIf(boolean completed);
}
