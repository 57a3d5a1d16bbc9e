package dev.backoff.okhttp;

import dev.backoff.http.rules.RetryAfter;
import java.io.IOException;
import java.util.List;
import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;

/**
 * The network interceptor that keeps OkHttp from repeating a Backoff attempt on its own. OkHttp's follow-up
 * step, which runs between the application and the network interceptors, sends a request again when a 503
 * says {@code Retry-After: 0} (whatever the method), and its parser of {@code Retry-After} throws a
 * {@code NumberFormatException} on a number past an {@code int}. This interceptor takes {@code Retry-After}
 * off each network response of a Backoff attempt before that step sees it, and keeps the values in the
 * attempt's {@link Mark} (a request tag); the adapter puts them back on the response it judges and returns,
 * and its rules ({@code HttpRules}) alone read them. Requests without a mark pass untouched. Stateless; one
 * instance for every {@link BackoffOkHttp}.
 */
final class FollowUpGuard implements Interceptor {
  static final FollowUpGuard INSTANCE = new FollowUpGuard();

  private FollowUpGuard() {}

  /** One attempt's request tag: the {@code Retry-After} values of its last network response. */
  static final class Mark {
    private volatile List<String> retryAfter = List.of();

    /** The request, marked as a Backoff attempt's. */
    Request mark(Request request) {
      return request.newBuilder().tag(Mark.class, this).build();
    }

    /**
     * The response with the {@code Retry-After} values the guard took off its network response put back;
     * the response itself when there were none or it came from somewhere else (a cache).
     */
    Response restore(Response response) {
      List<String> values = retryAfter;
      if (values.isEmpty() || response.networkResponse() == null || response.header(RetryAfter.HEADER) != null) {
        return response;
      }
      Response.Builder restored = response.newBuilder();
      for (String value : values) {
        restored.addHeader(RetryAfter.HEADER, value);
      }
      return restored.build();
    }
  }

  @Override
  public Response intercept(Chain chain) throws IOException {
    Mark mark = chain.request().tag(Mark.class);
    Response response = chain.proceed(chain.request());
    if (mark == null) {
      return response;
    }
    List<String> values = response.headers(RetryAfter.HEADER);
    mark.retryAfter = values;
    return values.isEmpty() ? response : response.newBuilder().removeHeader(RetryAfter.HEADER).build();
  }
}
