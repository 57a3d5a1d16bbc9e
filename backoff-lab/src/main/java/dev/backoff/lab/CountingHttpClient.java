package dev.backoff.lab;

import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * The fleet's {@link HttpClient}: the real one, counting at the sending layer what the policy's events cannot
 * see. Every request handed to the client is counted as sent ({@link AttemptObserver#requestSent()}), and
 * every response that reaches the client, whatever its status and whether or not its call still wants it
 * (a losing hedge's answer that arrived before the hedge was cancelled), as an answer
 * ({@link AttemptObserver#answerReceived()}). So the fleet's sent count is what the server should have
 * received, hedges included, whatever the retry loop did with the outcomes.
 *
 * <p>The future returned by {@link #sendAsync} is the real client's own, so cancelling it (a hedged call
 * cancels its losers that way) aborts the exchange as before. Thread-safe, as the client it wraps.
 */
final class CountingHttpClient extends HttpClient {
  private final HttpClient client;
  private final AttemptObserver observer;

  CountingHttpClient(HttpClient client, AttemptObserver observer) {
    this.client = client;
    this.observer = observer;
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request,
      HttpResponse.BodyHandler<T> handler) {
    return counted(client.sendAsync(request, handler));
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler,
      HttpResponse.PushPromiseHandler<T> pushPromiseHandler) {
    return counted(client.sendAsync(request, handler, pushPromiseHandler));
  }

  private <T> CompletableFuture<HttpResponse<T>> counted(CompletableFuture<HttpResponse<T>> exchange) {
    observer.requestSent();
    exchange.whenComplete((response, failure) -> {
      if (response != null) {
        observer.answerReceived();
      }
    });
    return exchange;
  }

  @Override
  public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
      throws IOException, InterruptedException {
    observer.requestSent();
    HttpResponse<T> response = client.send(request, handler);
    observer.answerReceived();
    return response;
  }

  @Override
  public Optional<CookieHandler> cookieHandler() {
    return client.cookieHandler();
  }

  @Override
  public Optional<Duration> connectTimeout() {
    return client.connectTimeout();
  }

  @Override
  public Redirect followRedirects() {
    return client.followRedirects();
  }

  @Override
  public Optional<ProxySelector> proxy() {
    return client.proxy();
  }

  @Override
  public SSLContext sslContext() {
    return client.sslContext();
  }

  @Override
  public SSLParameters sslParameters() {
    return client.sslParameters();
  }

  @Override
  public Optional<Authenticator> authenticator() {
    return client.authenticator();
  }

  @Override
  public Version version() {
    return client.version();
  }

  @Override
  public Optional<Executor> executor() {
    return client.executor();
  }
}
