package dev.backoff.httpclient5;

import dev.backoff.driver.RetryLoops;
import org.apache.hc.client5.http.async.AsyncExecCallback;
import org.apache.hc.client5.http.async.AsyncExecChain;
import org.apache.hc.client5.http.async.AsyncExecChainHandler;
import org.apache.hc.core5.http.HttpRequest;
import org.apache.hc.core5.http.nio.AsyncEntityProducer;

/**
 * The async client's retry element: each request runs on the core's asynchronous loop
 * ({@link RetryLoops#async}) with an {@link AsyncExchange} as its attempt and judge; no thread waits between
 * attempts. Stateless and thread-safe.
 */
final class AsyncRetryHandler implements AsyncExecChainHandler {
  private final HttpClient5Retry owner;

  AsyncRetryHandler(HttpClient5Retry owner) {
    this.owner = owner;
  }

  @Override
  public void execute(HttpRequest request, AsyncEntityProducer entityProducer, AsyncExecChain.Scope scope,
      AsyncExecChain chain, AsyncExecCallback asyncExecCallback) {
    new AsyncExchange(owner, request, entityProducer, scope, chain, asyncExecCallback).begin();
  }

  @Override
  public String toString() {
    return HttpClient5Retry.HANDLER_NAME + " (async)";
  }
}
