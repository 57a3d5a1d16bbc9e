package dev.backoff.spring.web;

import java.io.IOException;
import java.io.InputStream;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.client.ClientHttpResponse;

/** A response that forwards every call to another; subclasses change what they wrap (the body, closing). */
abstract class ForwardingResponse implements ClientHttpResponse {
  final ClientHttpResponse response;

  ForwardingResponse(ClientHttpResponse response) {
    this.response = response;
  }

  @Override
  public InputStream getBody() throws IOException {
    return response.getBody();
  }

  @Override
  public void close() {
    response.close();
  }

  @Override
  public HttpStatusCode getStatusCode() throws IOException {
    return response.getStatusCode();
  }

  @Override
  @SuppressWarnings("deprecation")
  public String getStatusText() throws IOException {
    return response.getStatusText();
  }

  @Override
  public HttpHeaders getHeaders() {
    return response.getHeaders();
  }
}
