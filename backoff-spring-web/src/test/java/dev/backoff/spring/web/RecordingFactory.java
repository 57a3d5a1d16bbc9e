package dev.backoff.spring.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpRequest;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.JdkClientHttpRequestFactory;

/** A request factory over the JDK's client that counts the requests made and records whether each response was closed. */
final class RecordingFactory implements ClientHttpRequestFactory {
  private final ClientHttpRequestFactory delegate = new JdkClientHttpRequestFactory();
  private final List<Recorded> responses = new ArrayList<>();
  private int requests;

  /** A response as the interceptor saw it, and whether it was closed. */
  static final class Recorded extends ForwardingResponse {
    volatile boolean closed;

    Recorded(ClientHttpResponse response) {
      super(response);
    }

    @Override
    public void close() {
      closed = true;
      response.close();
    }
  }

  synchronized int requests() {
    return requests;
  }

  synchronized List<Recorded> responses() {
    return List.copyOf(responses);
  }

  @Override
  public ClientHttpRequest createRequest(URI uri, HttpMethod method) throws IOException {
    synchronized (this) {
      requests++;
    }
    ClientHttpRequest request = delegate.createRequest(uri, method);
    return new ClientHttpRequest() {
      @Override
      public ClientHttpResponse execute() throws IOException {
        Recorded recorded = new Recorded(request.execute());
        synchronized (RecordingFactory.this) {
          responses.add(recorded);
        }
        return recorded;
      }

      @Override
      public OutputStream getBody() throws IOException {
        return request.getBody();
      }

      @Override
      public HttpMethod getMethod() {
        return request.getMethod();
      }

      @Override
      public URI getURI() {
        return request.getURI();
      }

      @Override
      public HttpHeaders getHeaders() {
        return request.getHeaders();
      }

      @Override
      public Map<String, Object> getAttributes() {
        return request.getAttributes();
      }
    };
  }
}
