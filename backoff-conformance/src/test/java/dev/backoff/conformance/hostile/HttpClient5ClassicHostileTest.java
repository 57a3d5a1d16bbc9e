package dev.backoff.conformance.hostile;

import dev.backoff.httpclient5.HttpClient5Retry;
import java.io.IOException;
import java.net.URI;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.StringEntity;
import org.apache.hc.core5.http.io.support.ClassicRequestBuilder;

/**
 * The hostile servers against {@link HttpClient5Retry} installed in Apache HttpClient 5's classic client,
 * its connection pool at the client's defaults. The classic client cannot hedge (installing a hedging policy
 * is refused), so the hedging cases are skipped.
 */
class HttpClient5ClassicHostileTest extends HostileServerSuite {
  @Override
  protected String adapter() {
    return "HttpClient 5 classic";
  }

  @Override
  protected Exchange open(Shape shape) {
    HttpClient5Retry retry = HttpClient5Retry.builder().policy(shape.<HttpResponse>policy()).rules(shape.rules()).build();
    CloseableHttpClient client = retry.classicClientBuilder().build();
    return new Exchange() {
      @Override
      public int send(String method, URI uri, String body) throws IOException {
        ClassicRequestBuilder request = ClassicRequestBuilder.create(method).setUri(uri);
        if (body != null) {
          request.setEntity(new StringEntity(body, ContentType.TEXT_PLAIN));
        }
        ClassicHttpRequest built = request.build();
        return client.execute(built, response -> {
          EntityUtils.consume(response.getEntity());
          return response.getCode();
        });
      }

      @Override
      public void close() throws IOException {
        client.close();
      }
    };
  }

  @Override
  protected boolean isClientError(Throwable failure) {
    return failure instanceof IOException || failure.getClass().getPackageName().equals("dev.backoff");
  }
}
