package dev.backoff.http;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.BodySubscribers;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLSession;

/**
 * The body of a response with a retryable status, read to its end into memory. Reading it whole is what
 * lets the client reuse the connection for the retry (an unread body would pin or close it); these are
 * error pages, small as a rule. If the response turns out to be the last one, its bytes are replayed
 * through the caller's body handler, so the caller gets the body in the form it asked for.
 */
final class BufferedBody {
  private final byte[] bytes;

  private BufferedBody(byte[] bytes) {
    this.bytes = bytes;
  }

  /** A handler that buffers responses with one of {@code statuses} and hands the rest to {@code handler}. */
  @SuppressWarnings("unchecked")
  static BodyHandler<Object> forStatuses(java.util.Set<Integer> statuses, BodyHandler<?> handler) {
    return info -> statuses.contains(info.statusCode())
        ? BodySubscribers.mapping(BodySubscribers.ofByteArray(), BufferedBody::new)
        : (BodySubscriber<Object>) handler.apply(info);
  }

  /**
   * The response as the caller's handler would have produced it: unchanged unless its body was buffered,
   * in which case the bytes are replayed through {@code handler}.
   */
  @SuppressWarnings("unchecked")
  static <T> CompletableFuture<HttpResponse<T>> finish(HttpResponse<?> response, BodyHandler<T> handler) {
    Object body = response.body();
    if (!(body instanceof BufferedBody)) {
      return CompletableFuture.completedFuture((HttpResponse<T>) response);
    }
    byte[] bytes = ((BufferedBody) body).bytes;
    BodySubscriber<T> subscriber;
    try {
      subscriber = handler.apply(new Info(response));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    subscriber.onSubscribe(new OneShotSubscription(subscriber, bytes));
    return subscriber.getBody().toCompletableFuture()
        .thenApply(converted -> new ReplayedResponse<>((HttpResponse<Object>) response, converted));
  }

  @Override
  public String toString() {
    return "(" + bytes.length + " bytes of a retried response, buffered)";
  }

  /** Delivers the buffered bytes as one item, then completes; honours demand and cancellation. */
  private static final class OneShotSubscription implements Flow.Subscription {
    private final BodySubscriber<?> subscriber;
    private final byte[] bytes;
    private final AtomicBoolean started = new AtomicBoolean();

    OneShotSubscription(BodySubscriber<?> subscriber, byte[] bytes) {
      this.subscriber = subscriber;
      this.bytes = bytes;
    }

    @Override
    public void request(long n) {
      if (!started.compareAndSet(false, true)) {
        return; // everything was delivered already (or is being delivered: a nested request)
      }
      if (n <= 0) {
        subscriber.onError(new IllegalArgumentException("demand must be positive, was " + n));
        return;
      }
      if (bytes.length > 0) {
        subscriber.onNext(List.of(ByteBuffer.wrap(bytes)));
      }
      subscriber.onComplete();
    }

    @Override
    public void cancel() {
      started.set(true);
    }
  }

  private static final class Info implements HttpResponse.ResponseInfo {
    private final HttpResponse<?> response;

    Info(HttpResponse<?> response) {
      this.response = response;
    }

    @Override
    public int statusCode() {
      return response.statusCode();
    }

    @Override
    public HttpHeaders headers() {
      return response.headers();
    }

    @Override
    public HttpClient.Version version() {
      return response.version();
    }
  }

  /** The last response with its body converted by the caller's handler; everything else delegated. */
  private static final class ReplayedResponse<T> implements HttpResponse<T> {
    private final HttpResponse<Object> response;
    private final T body;

    ReplayedResponse(HttpResponse<Object> response, T body) {
      this.response = response;
      this.body = body;
    }

    @Override
    public int statusCode() {
      return response.statusCode();
    }

    @Override
    public HttpRequest request() {
      return response.request();
    }

    @Override
    @SuppressWarnings("unchecked")
    public Optional<HttpResponse<T>> previousResponse() {
      // Earlier responses of a redirect chain carry no body, so the cast is only nominal.
      return response.previousResponse().map(previous -> (HttpResponse<T>) previous);
    }

    @Override
    public HttpHeaders headers() {
      return response.headers();
    }

    @Override
    public T body() {
      return body;
    }

    @Override
    public Optional<SSLSession> sslSession() {
      return response.sslSession();
    }

    @Override
    public java.net.URI uri() {
      return response.uri();
    }

    @Override
    public HttpClient.Version version() {
      return response.version();
    }

    @Override
    public String toString() {
      return response.toString();
    }
  }

  /** Joins a replay started by {@link #finish}, rethrowing its failure as an {@link IOException}. */
  static <T> HttpResponse<T> join(CompletableFuture<HttpResponse<T>> replay) throws IOException {
    try {
      return replay.join();
    } catch (java.util.concurrent.CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException) {
        throw (IOException) cause;
      }
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      throw new IOException("the body handler failed on the last response's body", cause);
    }
  }
}
