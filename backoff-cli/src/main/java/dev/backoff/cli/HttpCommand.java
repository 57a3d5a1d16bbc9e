package dev.backoff.cli;

import dev.backoff.RetryEvent;
import dev.backoff.RetryHistory;
import dev.backoff.RetryListener;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.http.RetryAfter;
import dev.backoff.http.RetryingHttpClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import dev.backoff.spec.Durations;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code backoff http}: a curl-like client that retries with Backoff's HTTP rules (see
 * {@link RetryingHttpClient}). The last response's body goes to stdout, one line per attempt to stderr.
 */
@Command(name = "http", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Send an HTTP request, retrying 429, 500, 502, 503, 504, timeouts and lost connections with backoff,",
        "honouring Retry-After. Only GET, HEAD, OPTIONS, PUT, DELETE and TRACE are retried, and other methods",
        "when they carry an Idempotency-Key header (or with --retry-non-idempotent).",
        "The body of the last response goes to stdout; one line per attempt goes to stderr."},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
        "0:the last response has a 2xx status",
        "1:the request failed and was not retried (TLS error, unknown host, ...)",
        "2:usage error (bad URL, header, flag)",
        "3:gave up after retrying (attempts, deadline, budget, or a Retry-After beyond --max-retry-after)",
        "4:the server answered with a status that is not retried (4xx, 3xx, a 5xx to a non-repeatable request)"})
final class HttpCommand implements Callable<Integer> {
  static final int GAVE_UP = 3;
  static final int NOT_SUCCESSFUL = 4;
  private static final Pattern HEADER = Pattern.compile("([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \\t]*(.*?)[ \\t]*");
  private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

  @Spec
  CommandSpec spec;

  @Option(names = {"-X", "--method"}, paramLabel = "M",
      description = "Request method. Default GET, or POST with --data.")
  String method;

  @Option(names = {"-H", "--header"}, paramLabel = "'K: V'", description = "A request header; repeatable.")
  List<String> headers = new ArrayList<>();

  @Option(names = {"-d", "--data"}, paramLabel = "TEXT|@FILE",
      description = "Request body: the text itself, or @FILE for a file's bytes (a regular file, at most 16 MiB). Sent whole on every attempt.")
  String data;

  @Mixin
  PolicyOptions policy = new PolicyOptions();

  @Option(names = "--max-retry-after", paramLabel = "D", converter = DurationConverter.class,
      description = "Longest Retry-After honoured; a longer one ends the call at once. Default 60s.")
  Duration maxRetryAfter;

  @Option(names = "--timeout", paramLabel = "D", converter = DurationConverter.class,
      description = "Timeout of each attempt (shortened to what is left before --deadline). Default: none.")
  Duration timeout;

  @Option(names = "--retry-status", paramLabel = "CODE", split = ",",
      description = "Also retry these statuses, e.g. 408.")
  List<Integer> retryStatuses = new ArrayList<>();

  @Option(names = "--retry-non-idempotent",
      description = "Retry any method, POST and PATCH included, even without an Idempotency-Key.")
  boolean retryNonIdempotent;

  @Option(names = {"-L", "--location"}, description = "Follow redirects.")
  boolean followRedirects;

  @Parameters(paramLabel = "URL", description = "An http:// or https:// URL.")
  String url;

  @Override
  public Integer call() throws Exception {
    HttpRequest request = request();
    RetryPolicy.Builder<HttpResponse<?>> builder = policy.builder();
    if (maxRetryAfter != null) {
      builder.maxPushback(maxRetryAfter);
    }
    PrintWriter err = spec.commandLine().getErr();
    AtomicReference<StopReason> stopped = new AtomicReference<>();
    builder.listener(new AttemptPrinter(err, stopped));
    RetryingHttpClient.Builder client = RetryingHttpClient.builder(HttpClient.newBuilder()
            .followRedirects(followRedirects ? HttpClient.Redirect.NORMAL : HttpClient.Redirect.NEVER)
            .build())
        .policy(builder.build());
    for (int status : retryStatuses) {
      if (status < 100 || status > 599) {
        throw new Errors.UsageException("--retry-status must be between 100 and 599, was " + status);
      }
      client.retryOnStatus(status);
    }
    if (timeout != null) {
      if (timeout.isZero() || timeout.isNegative()) {
        throw new Errors.UsageException("--timeout must be positive, was " + Durations.format(timeout));
      }
      client.attemptTimeout(timeout);
    }
    if (retryNonIdempotent) {
      client.retryNonIdempotent();
    }
    HttpResponse<byte[]> response;
    try {
      response = client.build().send(request, BodyHandlers.ofByteArray());
    } catch (IOException e) {
      RetryHistory history = RetryHistory.of(e);
      err.println("backoff: " + describe(e)
          + (history == null ? "" : " (" + plural(history.attempts(), "attempt") + ", "
              + history.stopReason().description() + ")"));
      err.flush();
      return history != null && history.stopReason() != null && history.stopReason().isExhaustion()
          ? GAVE_UP : Errors.FAILURE;
    }
    PrintWriter out = spec.commandLine().getOut();
    out.print(new String(response.body(), charset(response)));
    out.flush();
    int status = response.statusCode();
    if (status >= 200 && status < 300) {
      return 0;
    }
    StopReason reason = stopped.get();
    return reason != null && reason.isExhaustion() ? GAVE_UP : NOT_SUCCESSFUL;
  }

  private HttpRequest request() {
    URI uri;
    try {
      uri = new URI(url);
    } catch (java.net.URISyntaxException e) {
      throw new Errors.UsageException("URL '" + url + "' is malformed: " + e.getReason());
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https") || uri.getHost() == null) {
      throw new Errors.UsageException("URL '" + url + "' is not an http:// or https:// URL with a host");
    }
    HttpRequest.Builder builder = HttpRequest.newBuilder(uri);
    for (String header : headers) {
      Matcher matcher = HEADER.matcher(header);
      if (!matcher.matches()) {
        throw new Errors.UsageException("--header '" + header + "' is not of the form 'Name: value'");
      }
      try {
        builder.header(matcher.group(1), matcher.group(2));
      } catch (IllegalArgumentException e) {
        throw new Errors.UsageException("--header '" + header + "' is refused: " + e.getMessage());
      }
    }
    String verb = method != null ? method : data != null ? "POST" : "GET";
    if (!TOKEN.matcher(verb).matches()) {
      throw new Errors.UsageException("--method '" + verb + "' is not a valid method name");
    }
    builder.method(verb, data == null ? BodyPublishers.noBody() : BodyPublishers.ofByteArray(body()));
    return builder.build();
  }

  private byte[] body() {
    if (!data.startsWith("@")) {
      return data.getBytes(StandardCharsets.UTF_8);
    }
    return InputFiles.readBytes("--data", Path.of(data.substring(1)), InputFiles.BODY_LIMIT);
  }

  /** The charset named by the response's Content-Type, UTF-8 if none or unknown. */
  private static Charset charset(HttpResponse<?> response) {
    String contentType = response.headers().firstValue("Content-Type").orElse("");
    Matcher matcher = Pattern.compile("(?i)charset=\"?([^\";\\s]+)").matcher(contentType);
    if (matcher.find()) {
      try {
        return Charset.forName(matcher.group(1));
      } catch (IllegalArgumentException e) {
        return StandardCharsets.UTF_8;
      }
    }
    return StandardCharsets.UTF_8;
  }

  static String describe(Throwable failure) {
    String message = failure.getMessage();
    String type = failure.getClass().getSimpleName();
    return message == null || message.isBlank() ? type : type + ": " + message;
  }

  private static String plural(int count, String noun) {
    return count + " " + noun + (count == 1 ? "" : "s");
  }

  /**
   * A wait for a log line in the one duration format ({@code 250ms}, {@code 1.786s}, {@code 2m}), to the
   * millisecond (to the microsecond below one).
   */
  static String format(Duration duration) {
    Duration shown = duration.compareTo(Duration.ofMillis(1)) < 0 ? duration.truncatedTo(ChronoUnit.MICROS)
        : duration.truncatedTo(ChronoUnit.MILLIS);
    return Durations.format(shown);
  }

  /** Prints one line per attempt: what came back, then the wait before the retry or why it stopped. */
  private static final class AttemptPrinter implements RetryListener<HttpResponse<?>> {
    private final PrintWriter err;
    private final AtomicReference<StopReason> stopped;

    AttemptPrinter(PrintWriter err, AtomicReference<StopReason> stopped) {
      this.err = err;
      this.stopped = stopped;
    }

    @Override
    public void onRetryScheduled(RetryEvent<HttpResponse<?>> event) {
      print(event, "retrying in " + format(event.delay()) + " (" + event.failureClass() + ")");
    }

    @Override
    public void onSuccess(RetryEvent<HttpResponse<?>> event) {
      print(event, null);
    }

    @Override
    public void onExhausted(RetryEvent<HttpResponse<?>> event) {
      stopped.set(event.stopReason());
      print(event, "gave up: " + event.stopReason().description());
    }

    @Override
    public void onAborted(RetryEvent<HttpResponse<?>> event) {
      stopped.set(event.stopReason());
      print(event, "not retried: " + event.stopReason().description());
    }

    private void print(RetryEvent<HttpResponse<?>> event, String outcome) {
      StringBuilder line = new StringBuilder("attempt ").append(event.attempts()).append(": ");
      HttpResponse<?> response = event.result();
      if (event.failure() != null) {
        line.append(describe(event.failure()));
      } else if (response != null) {
        line.append(response.statusCode());
        response.headers().firstValue(RetryAfter.HEADER)
            .ifPresent(value -> line.append(" (Retry-After: ").append(value).append(')'));
      }
      if (outcome != null) {
        line.append(", ").append(outcome);
      }
      err.println(line);
      err.flush();
    }
  }
}
