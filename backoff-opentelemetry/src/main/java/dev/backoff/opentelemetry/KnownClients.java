package dev.backoff.opentelemetry;

import dev.backoff.opentelemetry.HttpAttributes.Exchange;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.http.HttpResponse;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The known clients' responses, read through their public API by reflection (see
 * {@link HttpAttributes#detect()}). Thread-safe.
 */
final class KnownClients implements HttpAttributes<Object> {
  static final KnownClients INSTANCE = new KnownClients();

  /** Reads nothing: for classes that are no known response. */
  private static final Reader NONE = response -> null;

  /** What one response class is read with ({@link #NONE} for a class that is no known response). */
  private static final ClassValue<Reader> READERS = new ClassValue<>() {
    @Override
    protected Reader computeValue(Class<?> type) {
      try {
        Reader reader = readerFor(type);
        return reader == null ? NONE : reader;
      } catch (NoSuchMethodException | RuntimeException incompatible) {
        return NONE; // a client version whose API differs: no attributes rather than a broken listener
      }
    }
  };

  private KnownClients() {}

  @Override
  public Exchange read(Object result) {
    if (result instanceof HttpResponse<?> response) {
      return new Exchange(response.statusCode(), response.request().method(), response.uri().toString());
    }
    try {
      return READERS.get(result.getClass()).read(result);
    } catch (InvocationTargetException | IllegalAccessException | RuntimeException unreadable) {
      return null;
    }
  }

  @Override
  public String toString() {
    return "HttpAttributes.detect()";
  }

  /** Reads one class's responses. */
  private interface Reader {
    Exchange read(Object response) throws InvocationTargetException, IllegalAccessException;
  }

  private static Reader readerFor(Class<?> type) throws NoSuchMethodException {
    Class<?> okHttp = supertype(type, "okhttp3.Response");
    if (okHttp != null) {
      Method code = okHttp.getMethod("code");
      Method request = okHttp.getMethod("request");
      Method method = request.getReturnType().getMethod("method");
      Method url = request.getReturnType().getMethod("url");
      return response -> {
        Object sent = request.invoke(response);
        return new Exchange((Integer) code.invoke(response), (String) method.invoke(sent),
            String.valueOf(url.invoke(sent)));
      };
    }
    Class<?> webClient = supertype(type, "org.springframework.web.reactive.function.client.ClientResponse");
    if (webClient != null) {
      Method statusCode = webClient.getMethod("statusCode");
      Method value = statusCode.getReturnType().getMethod("value");
      Method request = webClient.getMethod("request");
      Method method = request.getReturnType().getMethod("getMethod");
      Method name = method.getReturnType().getMethod("name");
      Method uri = request.getReturnType().getMethod("getURI");
      return response -> {
        Object sent = request.invoke(response);
        return new Exchange((Integer) value.invoke(statusCode.invoke(response)),
            (String) name.invoke(method.invoke(sent)), String.valueOf(uri.invoke(sent)));
      };
    }
    Class<?> spring = supertype(type, "org.springframework.http.client.ClientHttpResponse");
    if (spring != null) {
      Method statusCode = spring.getMethod("getStatusCode");
      Method value = statusCode.getReturnType().getMethod("value");
      return response -> new Exchange((Integer) value.invoke(statusCode.invoke(response)), null, null);
    }
    Class<?> httpClient5 = supertype(type, "org.apache.hc.core5.http.HttpResponse");
    if (httpClient5 != null) {
      Method code = httpClient5.getMethod("getCode");
      return response -> new Exchange((Integer) code.invoke(response), null, null);
    }
    return null;
  }

  /** The class or interface named {@code name} among {@code type} and its supertypes, or null. */
  private static Class<?> supertype(Class<?> type, String name) {
    Deque<Class<?>> pending = new ArrayDeque<>();
    pending.add(type);
    while (!pending.isEmpty()) {
      Class<?> next = pending.poll();
      if (next.getName().equals(name)) {
        return next;
      }
      if (next.getSuperclass() != null) {
        pending.add(next.getSuperclass());
      }
      for (Class<?> implemented : next.getInterfaces()) {
        pending.add(implemented);
      }
    }
    return null;
  }
}
