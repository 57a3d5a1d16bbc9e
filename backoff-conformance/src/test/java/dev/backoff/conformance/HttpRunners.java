package dev.backoff.conformance;

import static dev.backoff.conformance.HttpRunner.RULES;
import static dev.backoff.conformance.HttpRunner.onCallerThread;
import static dev.backoff.conformance.HttpRunner.replyOf;

import dev.backoff.RetryPolicy;
import dev.backoff.conformance.HttpRunner.Adapter;
import dev.backoff.conformance.HttpRunner.Client;
import dev.backoff.conformance.HttpRunner.Reply;
import dev.backoff.http.RetryingHttpClient;
import dev.backoff.httpclient5.HttpClient5Retry;
import dev.backoff.okhttp.BackoffOkHttp;
import dev.backoff.spring.web.BackoffExchangeFilter;
import dev.backoff.spring.web.BackoffRestInterceptor;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.apache.hc.client5.http.async.methods.SimpleHttpResponse;
import org.apache.hc.client5.http.async.methods.SimpleRequestBuilder;
import org.apache.hc.client5.http.impl.async.CloseableHttpAsyncClient;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.core5.concurrent.FutureCallback;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.support.ClassicRequestBuilder;
import org.apache.hc.core5.io.CloseMode;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;

/**
 * Every HTTP adapter as a driver of the matrix ({@link HttpRunner}): what the matrix knows of it, and its
 * client, built as its documentation shows, sending one GET. The blocking ones (an interceptor on the caller's
 * thread) refuse a hedging policy when they are built; the matrix asserts those refusals.
 */
final class HttpRunners {
  private HttpRunners() {}

  /** Every adapter. */
  static List<DriverRunner> all() {
    return List.of(
        new HttpRunner(new Adapter("java.net.http send", true, "a synchronous call cannot hedge", null),
            HttpRunners::jdkSend),
        new HttpRunner(new Adapter("java.net.http sendAsync", false, null, null), HttpRunners::jdkSendAsync),
        new HttpRunner(new Adapter("OkHttp interceptor", true, "hedges (hedging after 100ms)", null),
            HttpRunners::okHttpInterceptor),
        new HttpRunner(new Adapter("OkHttp enqueue", false, null, null), HttpRunners::okHttpEnqueue),
        new HttpRunner(new Adapter("HttpClient 5 classic", true, "hedges (hedging after 100ms)",
            "which the classic client cannot apply"),
            HttpRunners::httpClient5Classic),
        new HttpRunner(new Adapter("HttpClient 5 async", false, null, null), HttpRunners::httpClient5Async),
        new HttpRunner(new Adapter("Spring RestClient", true, "hedges (hedging after 100ms)",
            "which BackoffRestInterceptor cannot apply"),
            HttpRunners::springRestClient),
        new HttpRunner(new Adapter("Spring WebClient", false, null, null), HttpRunners::springWebClient));
  }

  @SuppressWarnings("unchecked") // each adapter's response type; the row's policy reads no response
  private static <R> RetryPolicy<R> typed(RetryPolicy<Object> policy) {
    return (RetryPolicy<R>) (RetryPolicy<?>) policy;
  }

  private static HttpClient jdkClient() {
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  }

  /** {@code RetryingHttpClient.send}, on the JDK's client. */
  private static Client jdkSend(RetryPolicy<Object> policy) {
    RetryingHttpClient client = RetryingHttpClient.builder(jdkClient()).policy(typed(policy)).rules(RULES).build();
    return uri -> onCallerThread(() -> {
      HttpResponse<String> response = client.send(HttpRequest.newBuilder(uri).build(),
          HttpResponse.BodyHandlers.ofString());
      return new Reply(response.statusCode(), response.body());
    });
  }

  /** {@code RetryingHttpClient.sendAsync}, on the JDK's client. */
  private static Client jdkSendAsync(RetryPolicy<Object> policy) {
    RetryingHttpClient client = RetryingHttpClient.builder(jdkClient()).policy(typed(policy)).rules(RULES).build();
    return uri -> replyOf(client.sendAsync(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()),
        response -> new Reply(response.statusCode(), response.body()));
  }

  /** OkHttp's {@code execute()} through {@code BackoffOkHttp}'s interceptor. */
  private static Client okHttpInterceptor(RetryPolicy<Object> policy) {
    OkHttpClient client = BackoffOkHttp.builder().policy(typed(policy)).rules(RULES).build()
        .install(new OkHttpClient.Builder()).build();
    return okHttp(client, uri -> onCallerThread(() -> {
      try (Response response = client.newCall(new Request.Builder().url(uri.toString()).build()).execute()) {
        return new Reply(response.code(), response.body().string());
      }
    }));
  }

  /** {@code BackoffOkHttp.enqueue} on a plain OkHttp client. */
  private static Client okHttpEnqueue(RetryPolicy<Object> policy) {
    BackoffOkHttp backoff = BackoffOkHttp.builder().policy(typed(policy)).rules(RULES).build();
    OkHttpClient client = new OkHttpClient();
    return okHttp(client, uri -> replyOf(backoff.enqueue(client, new Request.Builder().url(uri.toString()).build()),
        response -> {
          try (response) {
            return new Reply(response.code(), response.body().string());
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        }));
  }

  /** An OkHttp client whose dispatcher and pool are shut down on close. */
  private static Client okHttp(OkHttpClient client, Function<URI, CompletableFuture<Reply>> send) {
    return new Client() {
      @Override
      public CompletableFuture<Reply> send(URI uri) {
        return send.apply(uri);
      }

      @Override
      public void close() {
        client.dispatcher().cancelAll();
        client.dispatcher().executorService().shutdown();
        client.connectionPool().evictAll();
      }
    };
  }

  /** Apache HttpClient 5's classic client, with {@code HttpClient5Retry} installed. */
  private static Client httpClient5Classic(RetryPolicy<Object> policy) {
    CloseableHttpClient client = HttpClient5Retry.builder().policy(typed(policy)).rules(RULES).build()
        .classicClientBuilder().build();
    return new Client() {
      @Override
      public CompletableFuture<Reply> send(URI uri) {
        return onCallerThread(() -> client.execute(ClassicRequestBuilder.get(uri).build(),
            response -> new Reply(response.getCode(), EntityUtils.toString(response.getEntity()))));
      }

      @Override
      public void close() {
        client.close(CloseMode.IMMEDIATE);
      }
    };
  }

  /** Apache HttpClient 5's async client, with {@code HttpClient5Retry} installed. */
  private static Client httpClient5Async(RetryPolicy<Object> policy) {
    CloseableHttpAsyncClient client = HttpClient5Retry.builder().policy(typed(policy)).rules(RULES).build()
        .asyncClientBuilder().build();
    client.start();
    return new Client() {
      @Override
      public CompletableFuture<Reply> send(URI uri) {
        CompletableFuture<Reply> reply = new CompletableFuture<>();
        java.util.concurrent.Future<SimpleHttpResponse> call = client.execute(SimpleRequestBuilder.get(uri).build(),
            new FutureCallback<>() {
              @Override
              public void completed(SimpleHttpResponse response) {
                reply.complete(new Reply(response.getCode(), response.getBodyText()));
              }

              @Override
              public void failed(Exception failure) {
                reply.completeExceptionally(failure);
              }

              @Override
              public void cancelled() {
                reply.cancel(false);
              }
            });
        reply.whenComplete((done, failure) -> {
          if (reply.isCancelled()) {
            call.cancel(true); // the caller's cancel reaches the client's call
          }
        });
        return reply;
      }

      @Override
      public void close() {
        client.close(CloseMode.IMMEDIATE);
      }
    };
  }

  /** Spring's {@code RestClient} with {@code BackoffRestInterceptor}, over the JDK's client. */
  private static Client springRestClient(RetryPolicy<Object> policy) {
    RestClient client = RestClient.builder()
        .requestFactory(new JdkClientHttpRequestFactory(jdkClient()))
        .requestInterceptor(BackoffRestInterceptor.of(typed(policy), RULES))
        .build();
    return uri -> onCallerThread(() -> {
      ResponseEntity<String> entity = client.get().uri(uri).retrieve()
          .onStatus(HttpStatusCode::isError, (request, response) -> { }) // the caller reads every status
          .toEntity(String.class);
      return new Reply(entity.getStatusCode().value(), entity.getBody());
    });
  }

  /** Spring's {@code WebClient} with {@code BackoffExchangeFilter}, over the JDK's client. */
  private static Client springWebClient(RetryPolicy<Object> policy) {
    WebClient client = WebClient.builder()
        .clientConnector(new JdkClientHttpConnector(jdkClient()))
        .filter(BackoffExchangeFilter.of(typed(policy), RULES))
        .build();
    return uri -> client.get().uri(uri).retrieve()
        .onStatus(HttpStatusCode::isError, response -> Mono.empty()) // the caller reads every status
        .toEntity(String.class)
        .map(entity -> new Reply(entity.getStatusCode().value(), entity.getBody()))
        .toFuture();
  }
}
