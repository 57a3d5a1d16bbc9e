package dev.backoff.http;

import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * Delegates to a real client and counts the attempts started through it; or, given a failure, fails every
 * attempt with it without touching the network (for failures a loopback server cannot produce, such as an
 * unknown host). For tests only.
 */
final class CountingHttpClient extends HttpClient {
  private final HttpClient delegate;
  private final Exception failure;
  final AtomicInteger sends = new AtomicInteger();
  /** The futures {@code sendAsync} returned, in order (to see which exchanges were cancelled). */
  final List<CompletableFuture<?>> asyncExchanges = new CopyOnWriteArrayList<>();

  CountingHttpClient(HttpClient delegate) {
    this(delegate, null);
  }

  CountingHttpClient(HttpClient delegate, Exception failure) {
    this.delegate = delegate;
    this.failure = failure;
  }

  private void failIfScripted() throws IOException {
    if (failure instanceof IOException io) {
      throw io;
    }
    if (failure instanceof RuntimeException runtime) {
      throw runtime;
    }
  }

  @Override
  public Optional<CookieHandler> cookieHandler() {
    return delegate.cookieHandler();
  }

  @Override
  public Optional<Duration> connectTimeout() {
    return delegate.connectTimeout();
  }

  @Override
  public Redirect followRedirects() {
    return delegate.followRedirects();
  }

  @Override
  public Optional<ProxySelector> proxy() {
    return delegate.proxy();
  }

  @Override
  public SSLContext sslContext() {
    return delegate.sslContext();
  }

  @Override
  public SSLParameters sslParameters() {
    return delegate.sslParameters();
  }

  @Override
  public Optional<Authenticator> authenticator() {
    return delegate.authenticator();
  }

  @Override
  public Version version() {
    return delegate.version();
  }

  @Override
  public Optional<Executor> executor() {
    return delegate.executor();
  }

  @Override
  public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
      throws IOException, InterruptedException {
    sends.incrementAndGet();
    failIfScripted();
    return delegate.send(request, handler);
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
    sends.incrementAndGet();
    if (failure != null) {
      return CompletableFuture.failedFuture(failure);
    }
    CompletableFuture<HttpResponse<T>> exchange = delegate.sendAsync(request, handler);
    asyncExchanges.add(exchange);
    return exchange;
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler,
      HttpResponse.PushPromiseHandler<T> pushPromiseHandler) {
    sends.incrementAndGet();
    return delegate.sendAsync(request, handler, pushPromiseHandler);
  }
}
