package dev.backoff.http;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;

/**
 * An {@link HttpClient} whose asynchronous attempts the test completes by hand, so it can order an attempt's
 * outcome against a cancellation exactly. Each attempt's future ignores {@code cancel} (as a response that
 * is already on its way cannot be stopped) but records that it was asked. For tests only.
 */
final class ControlledHttpClient extends HttpClient {
  /** One attempt: its request, and the future the test completes. */
  static final class Attempt extends CompletableFuture<HttpResponse<Object>> {
    final HttpRequest request;
    final HttpResponse.BodyHandler<Object> handler;
    final AtomicBoolean cancelRequested = new AtomicBoolean();

    Attempt(HttpRequest request, HttpResponse.BodyHandler<Object> handler) {
      this.request = request;
      this.handler = handler;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      cancelRequested.set(true);
      return false;
    }

    /** Completes the attempt with a response whose body the handler would make of a stream of {@code body}. */
    void respondWithStream(int status, TrackedStream body) {
      complete(new FakeResponse(request, status, body));
    }
  }

  /** A response body stream that remembers whether it was closed (closing is what frees a connection). */
  static final class TrackedStream extends ByteArrayInputStream {
    final AtomicBoolean closed = new AtomicBoolean();

    TrackedStream(String text) {
      super(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
      closed.set(true);
    }
  }

  private final List<Attempt> attempts = new ArrayList<>();
  private final InterruptedException sendInterruption;

  /** A client for asynchronous attempts only. */
  ControlledHttpClient() {
    this(null);
  }

  /** A client whose synchronous sends are interrupted with {@code sendInterruption}. */
  ControlledHttpClient(InterruptedException sendInterruption) {
    this.sendInterruption = sendInterruption;
  }

  synchronized List<Attempt> attempts() {
    return List.copyOf(attempts);
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
    Attempt attempt = new Attempt(request, (HttpResponse.BodyHandler<Object>) handler);
    synchronized (this) {
      attempts.add(attempt);
    }
    return (CompletableFuture<HttpResponse<T>>) (CompletableFuture<?>) attempt;
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler,
      HttpResponse.PushPromiseHandler<T> pushPromiseHandler) {
    return sendAsync(request, handler);
  }

  @Override
  public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
      throws InterruptedException {
    if (sendInterruption != null) {
      throw sendInterruption;
    }
    throw new UnsupportedOperationException("asynchronous attempts only, or interrupted sends");
  }

  @Override
  public Optional<CookieHandler> cookieHandler() {
    return Optional.empty();
  }

  @Override
  public Optional<Duration> connectTimeout() {
    return Optional.empty();
  }

  @Override
  public Redirect followRedirects() {
    return Redirect.NEVER;
  }

  @Override
  public Optional<ProxySelector> proxy() {
    return Optional.empty();
  }

  @Override
  public SSLContext sslContext() {
    return null;
  }

  @Override
  public SSLParameters sslParameters() {
    return null;
  }

  @Override
  public Optional<Authenticator> authenticator() {
    return Optional.empty();
  }

  @Override
  public Version version() {
    return Version.HTTP_1_1;
  }

  @Override
  public Optional<Executor> executor() {
    return Optional.empty();
  }

  private static final class FakeResponse implements HttpResponse<Object> {
    private final HttpRequest request;
    private final int status;
    private final InputStream body;

    FakeResponse(HttpRequest request, int status, InputStream body) {
      this.request = request;
      this.status = status;
      this.body = body;
    }

    @Override
    public int statusCode() {
      return status;
    }

    @Override
    public HttpRequest request() {
      return request;
    }

    @Override
    public Optional<HttpResponse<Object>> previousResponse() {
      return Optional.empty();
    }

    @Override
    public HttpHeaders headers() {
      return HttpHeaders.of(Map.of(), (name, value) -> true);
    }

    @Override
    public Object body() {
      return body;
    }

    @Override
    public Optional<SSLSession> sslSession() {
      return Optional.empty();
    }

    @Override
    public URI uri() {
      return request.uri();
    }

    @Override
    public Version version() {
      return Version.HTTP_1_1;
    }
  }
}
