package dev.backoff.httpclient5;

import dev.backoff.driver.AttemptContext;
import dev.backoff.driver.Verdict;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import org.apache.hc.client5.http.async.AsyncExecCallback;
import org.apache.hc.client5.http.async.AsyncExecRuntime;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.concurrent.ComplexCancellable;
import org.apache.hc.core5.http.EntityDetails;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.nio.AsyncDataConsumer;

/**
 * One attempt of an async request: the callback the rest of the chain reports to, and the stage the loop
 * waits on.
 *
 * <p>On the response head it judges the response once ({@code Retry-After} read once) and asks the engine's
 * side-effect-free preview ({@link AsyncExchange#mayRetry}) whether a retry may follow. If not, the response
 * goes straight to the caller's callback ({@linkplain #forwarded() forwarded}) and the stage completes when
 * the exchange does. If so, the body is read ahead
 * ({@link ReadAhead}) up to the read-ahead limit; the stage completes when the body ended within it (and the
 * exchange completed), or as soon as the limit is reached (the body then waits, flow-controlled, for the
 * decision). Then either {@link #discard} (a retry: the connection kept if the body ended, else closed) or
 * {@link #handOver} (the call's outcome: the caller's consumer gets what was read ahead and the rest).
 *
 * <p>In a hedged call ({@link #hedged}) attempts overlap, so each has its own runtime (forked from the
 * call's) and context (a copy of the caller's), and nothing goes to the caller before the call has its
 * winner: every body is read ahead, never forwarded on its head. An attempt whose whole response was read
 * ahead gives its connection back to the pool when its exchange completes, even while the call holds the
 * response as its possible outcome; a response the call lets go of for good is {@linkplain #drop()
 * dropped} (its connection closed if its body had not ended). The winner's connection is released when its
 * exchange completes ({@link Releasing}); a failed attempt's is always closed.
 *
 * <p>Thread-safe: the I/O thread reports to it while the loop decides on another thread.
 */
final class AsyncAttemptState implements AsyncExecCallback {
  private final AsyncExchange exchange;
  private final int number;
  private final AttemptContext context;
  private final boolean hedged;
  private final AsyncExecRuntime runtime; // the call's, or (hedged) this attempt's own fork
  private final HttpClientContext clientContext; // the caller's, or (hedged) this attempt's own copy
  private final ComplexCancellable dependency = new ComplexCancellable();
  private final Stage stage = new Stage();
  private volatile HttpResponse response;
  private volatile EntityDetails details;
  private volatile Verdict verdict; // the response's, judged once as its head arrived
  private volatile boolean forwarded;
  private volatile ReadAhead readAhead;
  private volatile boolean exchangeOver; // hedged: the exchange completed

  /**
   * One attempt. {@code hedged}: the call hedges, so this attempt runs on {@code runtime} and
   * {@code clientContext} of its own; otherwise they are the call's scope's.
   */
  AsyncAttemptState(AsyncExchange exchange, int number, AttemptContext context, boolean hedged,
      AsyncExecRuntime runtime, HttpClientContext clientContext) {
    this.exchange = exchange;
    this.number = number;
    this.context = context;
    this.hedged = hedged;
    this.runtime = runtime;
    this.clientContext = clientContext;
  }

  HttpClientContext clientContext() {
    return clientContext;
  }

  AsyncExecRuntime runtime() {
    return runtime;
  }

  ComplexCancellable dependency() {
    return dependency;
  }

  CompletableFuture<HttpResponse> stage() {
    return stage;
  }

  /** Whether the response went straight to the caller's callback. */
  boolean forwarded() {
    return forwarded;
  }

  /** The verdict the response was judged with as its head arrived ({@code Retry-After} read once); null before. */
  Verdict verdict() {
    return verdict;
  }

  @Override
  public AsyncDataConsumer handleResponse(HttpResponse head, EntityDetails entityDetails)
      throws HttpException, IOException {
    response = head;
    details = entityDetails;
    Verdict judged = exchange.judgeHead(head);
    verdict = judged;
    if (hedged) {
      exchange.responded(head, this); // before the loop can see the response
    } else if (!exchange.mayRetry(judged, number, context)) {
      // Without hedging, a response that cannot be retried is the call's outcome: the caller reads it now.
      // A hedged call's attempts overlap: only the winner may reach the caller, so every body is read ahead.
      forwarded = true;
      return exchange.callback().handleResponse(head, entityDetails);
    }
    if (entityDetails == null) {
      return null; // no body: completed() follows
    }
    ReadAhead body = new ReadAhead(this, exchange.rules().readAheadLimit());
    readAhead = body;
    body.startReading();
    return body;
  }

  @Override
  public void handleInformationResponse(HttpResponse informational) throws HttpException, IOException {
    if (hedged) {
      return; // from any of several attempts, before the winner is known: the caller would get a loser's
    }
    exchange.callback().handleInformationResponse(informational);
  }

  /** The read-ahead limit was reached before the body ended: the loop decides now. */
  void limitReached() {
    stage.complete(response);
  }

  @Override
  public void completed() {
    HttpResponse head = response;
    if (head == null) {
      failed(new IOException("the exchange completed without a response"));
      return;
    }
    ReadAhead body = readAhead;
    if (hedged) {
      exchangeOver = true;
      if (body != null) {
        // Recorded before the loop sees the response, so that retiring it knows the connection is free.
        body.exchangeCompleted();
      }
      if (body == null || body.endedAhead()) {
        // The whole response is read ahead: its connection goes back to the pool now, not when the call lets
        // go of the response. The call may hold a retried response until it ends, and its next hedge may be
        // waiting for this very connection (a pool of one per route, or siblings holding the rest).
        runtime.releaseEndpoint();
      }
      if (!stage.complete(head) && stage.isCancelled()) {
        runtime.discardEndpoint(); // a loser whose exchange ran on: nobody will read it
      }
      return;
    }
    if (stage.complete(head)) {
      return;
    }
    if (body != null) {
      body.exchangeCompleted(); // the rest of a body handed over (or discarded) has arrived
    }
  }

  @Override
  public void failed(Exception cause) {
    if (hedged) {
      runtime.discardEndpoint(); // this attempt's own connection: never used again after a failure
    }
    if (!stage.isDone()) {
      // As HttpClient's own retry: the connection of a failed exchange is not used again.
      runtime.discardEndpoint();
      stage.completeExceptionally(cause);
      return;
    }
    ReadAhead body = readAhead;
    if (body != null) {
      body.exchangeFailed(cause);
    }
  }

  /** A retry follows (or nobody will read the response): the body read ahead is dropped. */
  void discard() {
    ReadAhead body = readAhead;
    if (body != null && body.discard() && !stage.isCompletedExceptionally()) {
      runtime.discardEndpoint(); // the body did not end: close, do not read on
    }
  }

  /**
   * Hedged: nobody will read this attempt's response (a later outcome replaced it, another won, or the call
   * was cancelled): the bytes read ahead are dropped, and the connection closed if the body had not ended
   * (one that ended went back to the pool when the exchange completed).
   */
  void drop() {
    ReadAhead body = readAhead;
    if (body != null ? body.discard() : !exchangeOver) {
      runtime.discardEndpoint();
    }
  }

  /** The call failed or was cancelled with this attempt last: nothing more goes to the caller from it. */
  void abandon() {
    ReadAhead body = readAhead;
    if (body != null && body.discard()) {
      dependency.cancel();
    }
  }

  /**
   * The call's deadline passed: an attempt still in flight ends with {@code timeout} (the loop then stops
   * on its deadline), and its exchange is cancelled and its connection closed, whether it was waiting for a
   * connection, for a response, or for the rest of a body.
   */
  void expire(IOException timeout) {
    stage.completeExceptionally(timeout);
    dependency.cancel();
    runtime.discardEndpoint();
  }

  /** The call ends with this attempt's response: the caller's callback gets it. */
  void handOver() {
    AsyncExecCallback callback = exchange.callback();
    if (forwarded) {
      callback.completed(); // its consumer has had the body already
      return;
    }
    // Hedged: the caller's callback releases the call's runtime, not this attempt's, which is released here.
    AsyncExecCallback to = hedged ? new Releasing(callback) : callback;
    ReadAhead body = readAhead;
    try {
      AsyncDataConsumer consumer = callback.handleResponse(response, details);
      if (body == null) {
        to.completed(); // no body
        return;
      }
      body.handOver(consumer, to);
    } catch (HttpException | IOException | RuntimeException e) {
      if (body != null && body.discard() || hedged) {
        runtime.discardEndpoint();
      }
      callback.failed(e);
    }
  }

  /** The winner's outcome, reported to the caller's callback after its own connection is let go of. */
  private final class Releasing extends ForwardingCallback {
    Releasing(AsyncExecCallback callback) {
      super(callback);
    }

    @Override
    public void completed() {
      try {
        runtime.releaseEndpoint(); // back to the pool if the exchange left it reusable, else closed
      } finally {
        delegate.completed();
      }
    }

    @Override
    public void failed(Exception cause) {
      try {
        runtime.discardEndpoint();
      } finally {
        delegate.failed(cause);
      }
    }
  }

  /**
   * The attempt's stage as the loop sees it. Cancelling it (the loop does when the caller cancels) cancels
   * the exchange in flight.
   */
  private final class Stage extends CompletableFuture<HttpResponse> {
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean cancelled = super.cancel(mayInterruptIfRunning);
      dependency.cancel();
      if (cancelled) {
        // An attempt cancelled before its outcome (a hedge that lost, the policy's attempt timeout, a cancelled
        // call) is never read: its connection is closed and leaves the pool, even where the client's hard
        // cancellation is off and the exchange would run on. Unhedged attempts share the call's runtime, so
        // a retry after an attempt timeout would otherwise wait on the abandoned exchange's connection.
        runtime.discardEndpoint();
      }
      return cancelled;
    }
  }
}
