package dev.backoff.opentelemetry;

import dev.backoff.RetryEvent;
import dev.backoff.RetryListener;
import dev.backoff.StopReason;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Traces and measures retried calls with OpenTelemetry, through a {@link RetryListener} added to a policy:
 *
 * <pre>{@code
 * RetryTelemetry telemetry = RetryTelemetry.create(openTelemetry);
 * RetryPolicy<Order> policy = RetryPolicy.<Order>builder().listener(telemetry.listener()).build();
 * RetryingHttpClient http = RetryingHttpClient.builder(client)
 *     .policy(RetryPolicy.<HttpResponse<?>>builder().listener(telemetry.httpListener()).build()).build();
 * }</pre>
 *
 * <h2>Spans</h2>
 * Each call is one span ({@code retry <policy name>}, kind {@code INTERNAL}), a child of the context
 * current when its first attempt starts; each attempt is a child span of it ({@code retry attempt}). Child
 * spans rather than span events, because an attempt has a duration, an outcome and a status of its own,
 * which trace views show as a timeline and which sampling and tail queries can select; the retry
 * decisions between attempts, which have no duration, are span events on the call's span
 * ({@code backoff.retry_scheduled}). The attempt spans are not made current while the attempt runs (a
 * listener does not wrap the attempt's code, and an asynchronous attempt starts and ends on different
 * threads), so spans your client makes inside an attempt are not their children.
 *
 * <p>Attributes: on the call span {@code backoff.policy}, {@code backoff.attempts} (attempts made),
 * {@code backoff.outcome} ({@code success}, {@code exhausted} or {@code aborted}) and, when it stopped
 * without success, {@code backoff.stop_reason} (the {@link StopReason} in lower case, such as
 * {@code attempts_exhausted}) with status {@code ERROR} and the last failure recorded as an exception
 * event. On each attempt span {@code backoff.attempt} (1 for the first), {@code backoff.retry.delay} (the
 * wait before it, in seconds; from the second attempt on), and, for a failed attempt, status
 * {@code ERROR}, the failure as an exception event and {@code error.type} (the exception's class name).
 * The {@linkplain #httpListener() HTTP listener} adds OpenTelemetry's HTTP client attributes:
 * {@code http.request.resend_count} (1 on the second attempt, 2 on the third; absent on the first, as the
 * semantic conventions ask) and, when an attempt returns a response, {@code http.response.status_code}
 * (with {@code error.type} the status code and status {@code ERROR} from 400 up) and, where the response
 * carries its request, {@code http.request.method} and {@code url.full}. It reads the responses of every
 * Backoff HTTP driver (java.net.http, OkHttp, HttpClient 5, Spring's RestClient, RestTemplate and WebClient)
 * through {@link HttpAttributes}, without depending on those clients.
 *
 * <h2>Metrics</h2>
 * OpenTelemetry's semantic conventions define no metric for retries (its HTTP client metrics belong to the
 * HTTP instrumentation, which times each request itself), so these follow their naming rules under
 * {@code backoff.}: {@code backoff.call.duration} (histogram, seconds; {@code backoff.policy},
 * {@code backoff.outcome}, {@code backoff.stop_reason}), {@code backoff.attempts} (counter,
 * {@code {attempt}}; {@code backoff.policy}, {@code error.type} for failed ones) and
 * {@code backoff.retry.delay} (histogram, seconds; {@code backoff.policy}, {@code backoff.failure_class}).
 * The call's duration is the policy's elapsed time ({@link RetryEvent#elapsed()}).
 *
 * <h2>Cost</h2>
 * The listeners hear attempt events, so a policy with one pays for them: a clock reading before and after
 * each attempt, an event object per event, and a span per attempt. Policies without it pay nothing.
 * A call that ends without any of the listener's end events (a policy callback that throws) leaves its
 * spans unended; their state is dropped with the call.
 *
 * <p>Thread-safe: the telemetry and its listeners serve any number of calls and threads.
 */
public final class RetryTelemetry {
  /** The instrumentation scope's name: the tracer's and the meter's. */
  public static final String INSTRUMENTATION_SCOPE = "dev.backoff";

  static final AttributeKey<String> POLICY = AttributeKey.stringKey("backoff.policy");
  static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("backoff.attempt");
  static final AttributeKey<Long> ATTEMPTS = AttributeKey.longKey("backoff.attempts");
  static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("backoff.outcome");
  static final AttributeKey<String> STOP_REASON = AttributeKey.stringKey("backoff.stop_reason");
  static final AttributeKey<Double> RETRY_DELAY = AttributeKey.doubleKey("backoff.retry.delay");
  static final AttributeKey<String> FAILURE_CLASS = AttributeKey.stringKey("backoff.failure_class");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  static final AttributeKey<Long> RESEND_COUNT = AttributeKey.longKey("http.request.resend_count");
  static final AttributeKey<Long> STATUS_CODE = AttributeKey.longKey("http.response.status_code");
  static final AttributeKey<String> METHOD = AttributeKey.stringKey("http.request.method");
  static final AttributeKey<String> URL = AttributeKey.stringKey("url.full");

  private final Tracer tracer;
  private final DoubleHistogram callDuration;
  private final LongCounter attempts;
  private final DoubleHistogram retryDelay;

  private RetryTelemetry(OpenTelemetry openTelemetry) {
    this.tracer = openTelemetry.getTracer(INSTRUMENTATION_SCOPE);
    Meter meter = openTelemetry.getMeter(INSTRUMENTATION_SCOPE);
    this.callDuration = meter.histogramBuilder("backoff.call.duration").setUnit("s")
        .setDescription("Duration of retried calls, from the first attempt's start to the outcome").build();
    this.attempts = meter.counterBuilder("backoff.attempts").setUnit("{attempt}")
        .setDescription("Attempts made by retried calls, the first included").build();
    this.retryDelay = meter.histogramBuilder("backoff.retry.delay").setUnit("s")
        .setDescription("Waits before retries, as scheduled").build();
  }

  /**
   * Telemetry on {@code openTelemetry}'s tracer and meter (scope {@value #INSTRUMENTATION_SCOPE}).
   *
   * @throws NullPointerException if {@code openTelemetry} is null
   */
  public static RetryTelemetry create(OpenTelemetry openTelemetry) {
    if (openTelemetry == null) {
      throw new NullPointerException("openTelemetry must not be null");
    }
    return new RetryTelemetry(openTelemetry);
  }

  /** A listener tracing and measuring the calls of the policies it is added to (see the class description). */
  public <R> RetryListener<R> listener() {
    return new TracingListener<>(this, null);
  }

  /**
   * As {@link #listener()}, for HTTP calls through any of Backoff's HTTP drivers (backoff-http, backoff-okhttp,
   * backoff-httpclient5, backoff-spring-web): each attempt span also carries
   * {@code http.request.resend_count} and, when the attempt returns a response, its status and, where the
   * response carries its request, the method and URL. Responses are read by {@link HttpAttributes#detect()},
   * which lists what it reads from each client.
   */
  public <R> RetryListener<R> httpListener() {
    return new TracingListener<>(this, HttpAttributes.detect());
  }

  /**
   * As {@link #httpListener()}, reading each attempt's response with {@code attributes} (for a client whose
   * responses {@link HttpAttributes#detect()} does not know, or to supply a method and URL it cannot read).
   *
   * @throws NullPointerException if {@code attributes} is null
   */
  public <R> RetryListener<R> httpListener(HttpAttributes<? super R> attributes) {
    if (attributes == null) {
      throw new NullPointerException("attributes must not be null");
    }
    return new TracingListener<>(this, attributes);
  }

  /** One call's spans, and the wait before its next attempt. */
  private static final class CallState {
    final Span call;
    Span attempt;
    double nextDelaySeconds;

    CallState(Span call) {
      this.call = call;
    }
  }

  /** The listener: per-call state keyed by the call's identity ({@link RetryEvent#call()}), held weakly. */
  private static final class TracingListener<R> implements RetryListener<R> {
    private final RetryTelemetry telemetry;
    private final HttpAttributes<? super R> http; // null: not an HTTP listener
    private final Map<Object, CallState> calls = Collections.synchronizedMap(new WeakHashMap<>());

    TracingListener(RetryTelemetry telemetry, HttpAttributes<? super R> http) {
      this.telemetry = telemetry;
      this.http = http;
    }

    @Override
    public void onAttemptStarted(RetryEvent<R> event) {
      Object key = event.call();
      if (key == null) {
        return;
      }
      CallState state;
      if (event.attempts() == 1) {
        Span call = telemetry.tracer.spanBuilder("retry " + event.policyName()).setSpanKind(SpanKind.INTERNAL)
            .setParent(Context.current()).setAttribute(POLICY, event.policyName()).startSpan();
        state = new CallState(call);
        calls.put(key, state);
      } else {
        state = calls.get(key);
        if (state == null) {
          return;
        }
      }
      var attempt = telemetry.tracer.spanBuilder("retry attempt").setSpanKind(SpanKind.INTERNAL)
          .setParent(Context.root().with(state.call))
          .setAttribute(POLICY, event.policyName())
          .setAttribute(ATTEMPT, (long) event.attempts());
      if (event.attempts() > 1) {
        attempt.setAttribute(RETRY_DELAY, state.nextDelaySeconds);
        if (http != null) {
          attempt.setAttribute(RESEND_COUNT, (long) event.attempts() - 1);
        }
      }
      state.attempt = attempt.startSpan();
    }

    @Override
    public void onAttemptFinished(RetryEvent<R> event) {
      CallState state = state(event);
      if (state == null || state.attempt == null) {
        return;
      }
      Span span = state.attempt;
      state.attempt = null;
      AttributesBuilder counted = Attributes.builder().put(POLICY, event.policyName());
      Throwable failure = event.failure();
      if (failure != null) {
        String type = failure.getClass().getName();
        span.recordException(failure);
        span.setStatus(StatusCode.ERROR);
        span.setAttribute(ERROR_TYPE, type);
        counted.put(ERROR_TYPE, type);
      } else if (http != null && event.result() != null) {
        HttpAttributes.Exchange exchange = read(event.result());
        int status = exchange == null ? 0 : exchange.status();
        if (exchange != null) {
          span.setAttribute(STATUS_CODE, (long) status);
          if (exchange.method() != null) {
            span.setAttribute(METHOD, exchange.method());
          }
          if (exchange.url() != null) {
            span.setAttribute(URL, exchange.url());
          }
        }
        if (status >= 400) {
          span.setStatus(StatusCode.ERROR);
          span.setAttribute(ERROR_TYPE, Integer.toString(status));
          counted.put(ERROR_TYPE, Integer.toString(status));
        }
      }
      span.end();
      telemetry.attempts.add(1, counted.build());
    }

    /** The response's attributes, or null if unreadable (a reader that throws loses them, not the call). */
    private HttpAttributes.Exchange read(R result) {
      try {
        return http.read(result);
      } catch (RuntimeException unreadable) {
        return null;
      }
    }

    @Override
    public void onRetryScheduled(RetryEvent<R> event) {
      double delaySeconds = event.delayNanos() / 1e9;
      String failureClass = event.failureClass() == null ? "transient" : event.failureClass().name();
      telemetry.retryDelay.record(delaySeconds, Attributes.of(POLICY, event.policyName(), FAILURE_CLASS, failureClass));
      CallState state = state(event);
      if (state == null) {
        return;
      }
      state.nextDelaySeconds = delaySeconds;
      state.call.addEvent("backoff.retry_scheduled", Attributes.of(ATTEMPT, (long) event.attempts(),
          RETRY_DELAY, delaySeconds, FAILURE_CLASS, failureClass));
    }

    @Override
    public void onSuccess(RetryEvent<R> event) {
      end(event, "success");
    }

    @Override
    public void onExhausted(RetryEvent<R> event) {
      end(event, "exhausted");
    }

    @Override
    public void onAborted(RetryEvent<R> event) {
      end(event, "aborted");
    }

    private CallState state(RetryEvent<R> event) {
      Object key = event.call();
      return key == null ? null : calls.get(key);
    }

    private void end(RetryEvent<R> event, String outcome) {
      StopReason reason = event.stopReason();
      String stopReason = reason == null ? null : reason.name().toLowerCase(Locale.ROOT);
      AttributesBuilder measured = Attributes.builder().put(POLICY, event.policyName()).put(OUTCOME, outcome);
      if (stopReason != null) {
        measured.put(STOP_REASON, stopReason);
      }
      telemetry.callDuration.record(event.elapsedNanos() / 1e9, measured.build());
      Object key = event.call();
      CallState state = key == null ? null : calls.remove(key);
      if (state == null) {
        return;
      }
      if (state.attempt != null) {
        state.attempt.end(); // the call ended while an attempt was in flight (cancelled)
      }
      Span call = state.call;
      call.setAttribute(ATTEMPTS, (long) event.attempts());
      call.setAttribute(OUTCOME, outcome);
      if (stopReason != null) {
        call.setAttribute(STOP_REASON, stopReason);
        call.setStatus(StatusCode.ERROR, reason.description());
        if (event.failure() != null) {
          call.recordException(event.failure());
        }
      }
      call.end();
    }
  }
}
