package dev.backoff.httpclient5;

import java.io.IOException;
import org.apache.hc.client5.http.async.AsyncExecCallback;
import org.apache.hc.core5.http.EntityDetails;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.nio.AsyncDataConsumer;

/**
 * A callback that passes responses on to another and does something of its own when the exchange ends
 * (subclasses say what). Thread-safe if the callback it passes to is.
 */
abstract class ForwardingCallback implements AsyncExecCallback {
  final AsyncExecCallback delegate;

  ForwardingCallback(AsyncExecCallback callback) {
    this.delegate = callback;
  }

  @Override
  public AsyncDataConsumer handleResponse(HttpResponse head, EntityDetails entityDetails)
      throws HttpException, IOException {
    return delegate.handleResponse(head, entityDetails);
  }

  @Override
  public void handleInformationResponse(HttpResponse informational) throws HttpException, IOException {
    delegate.handleInformationResponse(informational);
  }
}
