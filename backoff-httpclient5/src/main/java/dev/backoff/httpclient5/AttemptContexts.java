package dev.backoff.httpclient5;

import java.util.Map;
import org.apache.hc.client5.http.HttpRoute;
import org.apache.hc.client5.http.RouteInfo;
import org.apache.hc.client5.http.auth.AuthExchange;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.HttpHost;

/**
 * The contexts of a hedged call's attempts. The chain's elements and HttpClient's protocol handlers write
 * into the context they are given (route, request, response, cookie and authentication state, in plain
 * fields and hash maps), so attempts in flight at once on different I/O threads must not share one: each gets
 * a copy of the caller's, and the winner's state is copied back when the call ends with it. Stateless.
 */
final class AttemptContexts {
  private AttemptContexts() {}

  /**
   * A context for one attempt: what the caller (and the client, before the chain ran) configured is copied;
   * the caller's other attributes are read through it (it is their child), and what the attempt writes
   * stays in it.
   */
  static HttpClientContext copyOf(HttpClientContext caller) {
    HttpClientContext attempt = new HttpClientContext(caller);
    attempt.setRequestConfig(caller.getRequestConfig());
    attempt.setCookieSpecRegistry(caller.getCookieSpecRegistry());
    attempt.setAuthSchemeRegistry(caller.getAuthSchemeRegistry());
    attempt.setCookieStore(caller.getCookieStore());
    attempt.setCredentialsProvider(caller.getCredentialsProvider());
    attempt.setAuthCache(caller.getAuthCache());
    attempt.setUserToken(caller.getUserToken());
    attempt.setExchangeId(caller.getExchangeId());
    RouteInfo route = caller.getHttpRoute();
    if (route instanceof HttpRoute) {
      attempt.setRoute((HttpRoute) route);
    }
    return attempt;
  }

  /** The call ended with {@code winner}'s response: the caller's context shows that exchange. */
  static void copyBack(HttpClientContext winner, HttpClientContext caller) {
    RouteInfo route = winner.getHttpRoute();
    if (route instanceof HttpRoute) {
      caller.setRoute((HttpRoute) route);
    }
    caller.setRedirectLocations(winner.getRedirectLocations());
    caller.setCookieSpec(winner.getCookieSpec());
    caller.setCookieOrigin(winner.getCookieOrigin());
    for (Map.Entry<HttpHost, AuthExchange> exchange : winner.getAuthExchanges().entrySet()) {
      caller.setAuthExchange(exchange.getKey(), exchange.getValue());
    }
    caller.setUserToken(winner.getUserToken());
    caller.setRequest(winner.getRequest());
    caller.setResponse(winner.getResponse());
    caller.setEndpointDetails(winner.getEndpointDetails());
    caller.setSSLSession(winner.getSSLSession());
    caller.setProtocolVersion(winner.getProtocolVersion());
  }
}
