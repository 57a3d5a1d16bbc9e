package dev.backoff.grpc;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.driver.AsyncAttempt;
import dev.backoff.driver.AttemptContext;
import dev.backoff.driver.OutcomeJudge;
import dev.backoff.driver.RetryLoops;
import dev.backoff.driver.Verdict;
import io.grpc.Attributes;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * One retried (or hedged) unary call, as its caller sees it: the caller's {@code start}, {@code sendMessage}
 * and {@code halfClose} are remembered, and at {@code halfClose} the core's asynchronous loop starts; each
 * attempt is a new call on the next channel with the same headers and request message, and keeps its own
 * response (headers, message, trailers) until the loop has judged it. The caller's listener hears only of the
 * outcome, once: the winning attempt's response, or the last failure.
 *
 * <p>Under a hedging policy the loop calls {@link #start(AttemptContext)} again while earlier attempts are
 * in flight (possibly on another thread while one still runs) and cancels the losers' stages, which cancels
 * their calls. Every attempt is then kept in {@code hedged}, and the winner is found by its message.
 *
 * <p>The caller drives it as gRPC allows (one thread at a time, except {@code cancel} and {@code request},
 * which may come from any thread); the loop and the attempts' listeners run on other threads, so the state
 * they share is volatile or guarded by this object's lock.
 */
final class RetryingUnaryCall<ReqT, RespT> extends ClientCall<ReqT, RespT>
    implements AsyncAttempt<Object>, OutcomeJudge<Object>, Context.CancellationListener {
  private final GrpcRetryInterceptor interceptor;
  private final MethodDescriptor<ReqT, RespT> method;
  private final CallOptions callOptions;
  private final Channel next;
  private final Context context;

  private Listener<RespT> listener;
  private Metadata headers;
  private ReqT request;
  private boolean hasRequest;
  private Boolean messageCompression;
  private Deadline deadline; // the call's: the sooner of the options' and the context's; null for none

  private volatile CompletableFuture<Object> loop;
  private volatile Attempt<RespT> current; // the latest attempt started
  // Every attempt started, in order, when the policy hedges (several may be in flight); null otherwise.
  // Guarded by itself.
  private final List<Attempt<RespT>> hedged;
  private volatile Status cancelStatus;

  // Guarded by this: the outcome waiting for the caller's request(n), and whether the listener was closed.
  private int requested;
  private Attempt<RespT> succeeded;
  private boolean closed;

  RetryingUnaryCall(GrpcRetryInterceptor interceptor, MethodDescriptor<ReqT, RespT> method, CallOptions callOptions,
      Channel next, boolean hedges) {
    this.interceptor = interceptor;
    this.method = method;
    this.callOptions = callOptions;
    this.next = next;
    this.context = Context.current();
    this.hedged = hedges ? new ArrayList<>(2) : null;
  }

  @Override
  public void start(Listener<RespT> responseListener, Metadata headers) {
    if (listener != null) {
      throw new IllegalStateException("the call was already started");
    }
    if (responseListener == null || headers == null) {
      throw new NullPointerException(responseListener == null ? "responseListener must not be null"
          : "headers must not be null");
    }
    this.listener = responseListener;
    this.headers = headers;
    Status cancelled = cancelStatus;
    if (cancelled != null) {
      close(cancelled, new Metadata());
    }
  }

  @Override
  public void request(int numMessages) {
    if (numMessages < 0) {
      throw new IllegalArgumentException("numMessages must not be negative, was " + numMessages);
    }
    Attempt<RespT> ready;
    synchronized (this) {
      requested = (int) Math.min(Integer.MAX_VALUE, (long) requested + numMessages);
      ready = claimSuccess();
    }
    if (ready != null) {
      deliverSuccess(ready);
    }
  }

  @Override
  public void sendMessage(ReqT message) {
    if (hasRequest) {
      throw new IllegalStateException("a unary call sends exactly one request message; "
          + method.getFullMethodName() + " was sent a second one");
    }
    request = message;
    hasRequest = true;
  }

  @Override
  public void setMessageCompression(boolean enabled) {
    messageCompression = enabled;
  }

  @Override
  public boolean isReady() {
    return loop == null && cancelStatus == null;
  }

  @Override
  public Attributes getAttributes() {
    Attempt<RespT> attempt = current;
    return attempt == null ? Attributes.EMPTY : attempt.call.getAttributes();
  }

  @Override
  public void halfClose() {
    if (listener == null) {
      throw new IllegalStateException("the call was not started");
    }
    if (cancelStatus != null) {
      return; // cancelled before it began: the listener is closed already
    }
    if (!hasRequest) {
      close(Status.INTERNAL.withDescription("a unary call must send one request message; "
          + method.getFullMethodName() + " was sent none"), new Metadata());
      return;
    }
    deadline = soonest(callOptions.getDeadline(), context.getDeadline());
    AsyncRetryExecutor<Object> executor = interceptor.executor(hedged != null);
    if (deadline != null) {
      long left = deadline.timeRemaining(TimeUnit.NANOSECONDS);
      if (left > 0) {
        executor = interceptor.executorWithin(hedged != null, left);
      }
    }
    context.addListener(this, Runnable::run); // a no-op for a context that cannot be cancelled
    if (cancelStatus != null) {
      return; // the context was cancelled already: the listener ran at once and closed the call
    }
    CompletableFuture<Object> call = RetryLoops.async(executor, this, this);
    loop = call;
    call.whenComplete(this::finish);
    if (cancelStatus != null) {
      call.cancel(true); // cancelled while the loop was starting; cancel saw no loop to stop
    }
  }

  @Override
  public void cancel(String message, Throwable cause) {
    if (message == null && cause == null) {
      message = "the call was cancelled"; // as gRPC's own calls do, so the status says what happened
    }
    Status status = Status.CANCELLED.withDescription(message).withCause(cause);
    cancel(status);
  }

  /** The caller's context was cancelled (or its deadline passed). */
  @Override
  public void cancelled(Context cancelledContext) {
    cancel(Contexts.statusFromCancelled(cancelledContext));
  }

  private void cancel(Status status) {
    if (cancelStatus != null) {
      return;
    }
    cancelStatus = status;
    CompletableFuture<Object> call = loop;
    if (call != null) {
      call.cancel(true); // no attempt starts after this; the in-flight one is cancelled; finish closes the listener
    } else if (listener != null) {
      close(status, new Metadata());
    }
  }

  // ---- the loop's hooks ----

  @Override
  public CompletionStage<Object> start(AttemptContext attemptContext) {
    int number = attemptContext.attempt();
    Status cancelled = cancelStatus;
    if (cancelled != null) {
      // Cancelled while the loop was being started (the loop stops retries by itself once it exists).
      return CompletableFuture.failedFuture(cancelled.asRuntimeException());
    }
    if (deadline != null && deadline.isExpired()) {
      return CompletableFuture.failedFuture(Status.DEADLINE_EXCEEDED
          .withDescription("the call's deadline passed before attempt " + number).asRuntimeException());
    }
    CallOptions options = attemptOptions(attemptContext.nanosLeft());
    Metadata attemptHeaders = new Metadata();
    attemptHeaders.merge(headers); // each attempt's own copy: a call may add to the headers it sends
    if (number > 1) {
      attemptHeaders.put(GrpcStatusRules.PREVIOUS_ATTEMPTS, Integer.toString(number - 1));
    }
    Context previous = context.attach(); // the attempt inherits the caller's context (its deadline, its values)
    try {
      ClientCall<ReqT, RespT> call = next.newCall(method, options);
      Attempt<RespT> attempt = new Attempt<>(call);
      if (hedged != null) {
        synchronized (hedged) {
          hedged.add(attempt);
        }
      }
      current = attempt;
      call.start(attempt, attemptHeaders);
      call.request(2); // two, as gRPC's stubs ask: a second message is a protocol error, not silently dropped
      if (messageCompression != null) {
        call.setMessageCompression(messageCompression);
      }
      call.sendMessage(request);
      call.halfClose();
      return attempt.stage;
    } finally {
      context.detach(previous);
    }
  }

  private static final long MIN_ATTEMPT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private CallOptions attemptOptions(long policyNanosLeft) {
    long limit = interceptor.attemptTimeoutNanos();
    if (policyNanosLeft != AttemptContext.NO_DEADLINE && (limit == 0 || policyNanosLeft < limit)) {
      // An attempt the engine starts at its deadline gets a token millisecond, as the core's attempt timeout
      // and the HTTP client give it, rather than a deadline already passed.
      limit = Math.max(policyNanosLeft, MIN_ATTEMPT_NANOS);
    }
    if (limit == 0) {
      return callOptions;
    }
    Deadline own = callOptions.getDeadline();
    if (own != null && own.timeRemaining(TimeUnit.NANOSECONDS) <= limit) {
      return callOptions;
    }
    return callOptions.withDeadline(deadline == null ? interceptor.attemptDeadline(limit)
        : Deadline.after(limit, TimeUnit.NANOSECONDS));
  }

  @Override
  public Verdict judge(RetryPolicy<Object> policy, Object result, Throwable failure) {
    if (failure == null) {
      return OutcomeJudge.policyRules().judge(policy, result, null);
    }
    if (deadline != null && deadline.isExpired()) {
      return Verdict.stop(StopReason.DEADLINE_EXCEEDED);
    }
    Status status = GrpcStatusRules.statusOf(failure);
    if (status == null) {
      return Verdict.RETRYABLE; // not a status: the policy's own rules decide
    }
    if (!interceptor.retries(status.getCode())) {
      return Verdict.stop(StopReason.NOT_RETRYABLE);
    }
    long hint = GrpcStatusRules.pushbackNanos(GrpcStatusRules.trailersOf(failure));
    return hint == dev.backoff.Pushback.NONE ? Verdict.RETRYABLE : Verdict.retryable(hint);
  }

  // ---- the outcome ----

  private void finish(Object result, Throwable failure) {
    context.removeListener(this);
    Attempt<RespT> winner = hedged == null ? current : winnerOf(result, failure);
    if (failure == null) {
      if (winner == null) {
        close(Status.INTERNAL.withDescription("no attempt of " + method.getFullMethodName()
            + " succeeded with the message the retry loop accepted"), new Metadata());
        return;
      }
      Attempt<RespT> ready;
      synchronized (this) {
        succeeded = winner;
        ready = claimSuccess();
      }
      if (ready != null) {
        deliverSuccess(ready);
      }
      return;
    }
    Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    Status cancelled = cancelStatus;
    if (cancelled != null || cause instanceof CancellationException) {
      close(cancelled != null ? cancelled : Status.CANCELLED.withDescription("the call was cancelled"), new Metadata());
      return;
    }
    Status status = GrpcStatusRules.statusOf(cause);
    Metadata trailers = GrpcStatusRules.trailersOf(cause);
    // The cause is the last attempt's exception: it carries the earlier failures and the retry history.
    close((status == null ? Status.fromThrowable(cause) : status).withCause(cause),
        trailers == null ? new Metadata() : trailers);
  }

  /**
   * The hedged attempt whose message won: the loop completes the call with the winner's message itself, so
   * it is the attempt that succeeded with that very object. A marshaller may give several attempts the same
   * instance (protobuf's shared default instance for an empty message): their messages are then one and the
   * same, and the first such attempt started is taken, so the headers and trailers relayed are those of an
   * attempt that did succeed with it. Forgets the other attempts (and their messages): the call has ended.
   * Null if the call failed.
   */
  private Attempt<RespT> winnerOf(Object result, Throwable failure) {
    synchronized (hedged) {
      Attempt<RespT> winner = null;
      if (failure == null) {
        for (Attempt<RespT> attempt : hedged) {
          if (attempt.succeededWith(result)) {
            winner = attempt;
            break;
          }
        }
      }
      hedged.clear();
      return winner; // null on success cannot happen: the loop completes a call only with an attempt's message
    }
  }

  /** The successful attempt, once, when the caller has asked for a message; null otherwise. */
  private Attempt<RespT> claimSuccess() {
    if (succeeded == null || requested == 0 || closed) {
      return null;
    }
    closed = true;
    return succeeded;
  }

  private void deliverSuccess(Attempt<RespT> attempt) {
    Listener<RespT> target = listener;
    run(() -> {
      if (attempt.headers != null) {
        target.onHeaders(attempt.headers);
      }
      target.onMessage(attempt.message);
      target.onClose(Status.OK, attempt.trailers);
    });
  }

  private void close(Status status, Metadata trailers) {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    Listener<RespT> target = listener;
    run(() -> target.onClose(status, trailers));
  }

  /** Runs a listener callback on the call's executor (a blocking stub waits on it), else here. */
  private void run(Runnable callback) {
    Executor executor = callOptions.getExecutor();
    if (executor == null) {
      callback.run();
    } else {
      executor.execute(callback);
    }
  }

  private static Deadline soonest(Deadline a, Deadline b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    // By time left rather than isBefore: the two may come from different tickers (tests use fake ones).
    return a.timeRemaining(TimeUnit.NANOSECONDS) <= b.timeRemaining(TimeUnit.NANOSECONDS) ? a : b;
  }

  @Override
  public String toString() {
    return "RetryingUnaryCall[" + method.getFullMethodName() + "]";
  }

  /**
   * One attempt: its call, its listener (which keeps the response), and the stage the loop waits on.
   * Cancelling the stage cancels the call. A call's listener callbacks never overlap, and the stage is
   * completed by {@code onClose} alone, which publishes the fields to whoever reads the stage's outcome.
   */
  static final class Attempt<RespT> extends ClientCall.Listener<RespT> {
    final ClientCall<?, RespT> call;
    final Stage stage;
    Metadata headers;
    RespT message;
    int messages;
    Metadata trailers;

    Attempt(ClientCall<?, RespT> call) {
      this.call = call;
      this.stage = new Stage(call);
    }

    @Override
    public void onHeaders(Metadata responseHeaders) {
      headers = responseHeaders;
    }

    @Override
    public void onMessage(RespT response) {
      if (++messages == 1) {
        message = response;
      } else if (messages == 2) {
        call.cancel("a unary call received a second response message", null);
      }
    }

    /** True if the call closed OK with exactly this message object. */
    boolean succeededWith(Object result) {
      return stage.isDone() && !stage.isCompletedExceptionally() && stage.getNow(null) == result;
    }

    @Override
    public void onClose(Status status, Metadata closeTrailers) {
      trailers = closeTrailers;
      if (status.isOk() && messages != 1) {
        // A server that broke the unary contract: no message, or more than one (then the call was cancelled).
        status = Status.INTERNAL.withDescription(messages == 0
            ? "a unary call completed without a response message" : "a unary call received more than one response message");
      }
      if (status.isOk()) {
        stage.complete(message);
      } else {
        stage.completeExceptionally(status.asRuntimeException(closeTrailers));
      }
    }
  }

  /**
   * An attempt's stage: cancelling it cancels the attempt's call, so the server hears of it. The loop cancels
   * it when the caller cancels, when the attempt's timeout passes, and, under hedging, when another attempt
   * has won or a fatal status has ended the call.
   */
  static final class Stage extends CompletableFuture<Object> {
    private final ClientCall<?, ?> call;

    Stage(ClientCall<?, ?> call) {
      this.call = call;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean cancelled = super.cancel(mayInterruptIfRunning);
      if (cancelled) {
        call.cancel("Backoff ended this attempt: the call was cancelled, timed out, or another attempt decided it",
            null);
      }
      return cancelled;
    }
  }
}
