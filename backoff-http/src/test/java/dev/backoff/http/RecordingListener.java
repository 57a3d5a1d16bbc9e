package dev.backoff.http;

import dev.backoff.RetryEvent;
import dev.backoff.RetryListener;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

/** Records every event as "kind" plus the event, in order. Thread-safe. For tests only. */
final class RecordingListener implements RetryListener<HttpResponse<?>> {
  private final List<String> kinds = new ArrayList<>();
  private final List<RetryEvent<HttpResponse<?>>> events = new ArrayList<>();

  @Override
  public synchronized void onRetryScheduled(RetryEvent<HttpResponse<?>> event) {
    kinds.add("retry");
    events.add(event);
  }

  @Override
  public synchronized void onSuccess(RetryEvent<HttpResponse<?>> event) {
    kinds.add("success");
    events.add(event);
  }

  @Override
  public synchronized void onExhausted(RetryEvent<HttpResponse<?>> event) {
    kinds.add("exhausted");
    events.add(event);
  }

  @Override
  public synchronized void onAborted(RetryEvent<HttpResponse<?>> event) {
    kinds.add("aborted");
    events.add(event);
  }

  synchronized List<String> kinds() {
    return List.copyOf(kinds);
  }

  synchronized List<RetryEvent<HttpResponse<?>>> events() {
    return List.copyOf(events);
  }

  synchronized RetryEvent<HttpResponse<?>> last() {
    return events.get(events.size() - 1);
  }
}
