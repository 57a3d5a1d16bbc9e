package dev.backoff.cli;

import dev.backoff.Hedging;
import dev.backoff.RetryEvent;
import dev.backoff.RetryHistory;
import dev.backoff.RetryListener;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.http.RetryingHttpClient;
import dev.backoff.http.rules.WaitHeader;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
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
        "Send an HTTP request, retrying 429, 500, 502, 503, 504, timeouts and lost connections with backoff and "
            + "honouring Retry-After.",
        "Only GET, HEAD, OPTIONS, PUT, DELETE and TRACE are retried, and other methods when they carry an "
            + "Idempotency-Key header (or with --retry-non-idempotent).",
        "The body of the last response goes to stdout; one line per attempt goes to stderr."})
final class HttpCommand implements Callable<Integer> {
  static final int GAVE_UP = 3;
  static final int NOT_SUCCESSFUL = 4;
  private static final Pattern HEADER = Pattern.compile("([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \\t]*(.*?)[ \\t]*");
  private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

  @Spec
  CommandSpec spec;

  @Option(names = {"-X", "--method"}, paramLabel = "<method>",
      description = "Request method. Default GET, or POST with --data.")
  String method;

  @Option(names = {"-H", "--header"}, paramLabel = "<header>",
      description = "A request header, 'Name: value'; repeatable.")
  List<String> headers = new ArrayList<>();

  @Option(names = {"-d", "--data"}, paramLabel = "<text>|@<file>",
      description = "Request body: the text itself, or @FILE for a file's bytes (a regular file, at most 16 MiB). Sent whole on every attempt.")
  String data;

  @Mixin
  PolicyOptions policy = new PolicyOptions();

  @Option(names = "--max-retry-after", paramLabel = "<duration>", converter = DurationConverter.class,
      description = "Longest Retry-After honoured; a longer one ends the call at once. Default 60s.")
  Duration maxRetryAfter;

  @Option(names = "--wait-header", paramLabel = "<header>", split = ",",
      description = "Also read this response header as the server's wait, beside Retry-After: retry-after-ms,"
          + " x-amz-retry-after, X-RateLimit-Reset or RateLimit (the IETF RateLimit/RateLimit-Policy fields),"
          + " or all; repeatable. The same limits apply as to Retry-After (--max-retry-after, --deadline).")
  List<String> waitHeaders = new ArrayList<>();

  @Option(names = "--timeout", paramLabel = "<duration>", converter = DurationConverter.class,
      description = "Timeout of each attempt, body included (shortened to what is left before --deadline)."
          + " Default: none.")
  Duration timeout;

  @Option(names = "--retry-status", paramLabel = "<status>", split = ",",
      description = "Also retry these statuses, e.g. 408.")
  List<Integer> retryStatuses = new ArrayList<>();

  @Option(names = "--retry-non-idempotent",
      description = "Retry any method, POST and PATCH included, even without an Idempotency-Key.")
  boolean retryNonIdempotent;

  @Option(names = {"-L", "--location"}, description = "Follow redirects.")
  boolean followRedirects;

  @Option(names = "--hedge", paramLabel = "<spec>",
      description = "Hedge the request, DELAY or DELAY:HEDGES (50ms, 50ms:2): when no answer came within DELAY,"
          + " send it again alongside (and at once after a retryable answer); the first good response wins, the"
          + " others are cancelled. At most HEDGES more requests (without it, up to --max-attempts in all; with"
          + " it and no --max-attempts, HEDGES+1 attempts). Only requests that may be repeated are hedged.")
  String hedge;

  /** Retry-After and the headers named by --wait-header. */
  WaitHeader[] waitHeaders() {
    try {
      return WaitHeader.fromNames(waitHeaders);
    } catch (IllegalArgumentException e) {
      throw new Errors.UsageException("--wait-header: " + e.getMessage());
    }
  }

  /** Error bodies (any status but 2xx) are printed up to this many bytes; 2xx bodies whole. */
  static final int ERROR_BODY_LIMIT = 64 * 1024;

  @Parameters(paramLabel = "<url>", description = "An http:// or https:// URL.")
  String url;

  @Override
  public Integer call() throws Exception {
    HttpRequest request = request();
    RetryPolicy.Builder<HttpResponse<?>> builder = policy.builder();
    Hedging hedging = hedging();
    if (hedging != null) {
      if (hedging.maxHedges() != Hedging.UNBOUNDED && policy.maxAttempts == null) {
        builder.maxAttempts(hedging.maxHedges() + 1);
      }
      builder.hedging(hedging);
    }
    if (maxRetryAfter != null) {
      builder.maxPushback(maxRetryAfter);
    }
    PrintWriter err = spec.commandLine().getErr();
    AtomicReference<StopReason> stopped = new AtomicReference<>();
    builder.listener(new AttemptPrinter(err, stopped, request.uri().getHost(), waitHeaders()));
    builder.rateLimiter(policy.rateLimiter(err)); // the HTTP rules classify 429 and 503 as throttles
    // A 2xx body that broke off after part of it was printed is not retried: the retry would print it again.
    builder.abortIf(PartialOutputException.class::isInstance);
    RetryPolicy<HttpResponse<?>> built;
    try {
      built = builder.build();
    } catch (IllegalArgumentException e) {
      throw new Errors.UsageException("--hedge " + hedge + ": " + e.getMessage()); // hedges beyond max attempts
    }
    RetryingHttpClient.Builder client = RetryingHttpClient.builder(HttpClient.newBuilder()
            .followRedirects(followRedirects ? HttpClient.Redirect.NORMAL : HttpClient.Redirect.NEVER)
            .build())
        .policy(built);
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
    WaitHeader[] read = waitHeaders();
    client.waitHeaders(read);
    PrintWriter out = spec.commandLine().getOut();
    installOutOfMemoryExit(err);
    HttpResponse<PrintedBody> response;
    try {
      HttpResponse.BodyHandler<PrintedBody> printing = info -> new PrintingSubscriber(out,
          charset(info.headers()), isSuccess(info.statusCode()) ? Long.MAX_VALUE : ERROR_BODY_LIMIT);
      response = hedging == null ? client.build().send(request, printing)
          : awaitHedged(client.build().sendAsync(request, printing));
    } catch (IOException e) {
      RetryHistory history = RetryHistory.of(e);
      err.println("backoff: " + describe(e, request.uri())
          + (history == null ? "" : " (" + plural(history.attempts(), "attempt") + ", "
              + history.stopReason().description() + ")"));
      err.flush();
      return history != null && history.stopReason() != null && history.stopReason().isExhaustion()
          ? GAVE_UP : Errors.FAILURE;
    }
    PrintedBody printed = response.body();
    if (printed.cut()) {
      long total = response.headers().firstValueAsLong("Content-Length").orElse(-1);
      err.println("backoff: body cut after " + printed.bytes() + " bytes"
          + (total >= 0 ? " of " + total : "") + " (error bodies are printed up to " + ERROR_BODY_LIMIT
          + " bytes; the rest was not read)");
      err.flush();
    }
    int status = response.statusCode();
    if (isSuccess(status)) {
      return 0;
    }
    StopReason reason = stopped.get();
    return reason != null && reason.isExhaustion() ? GAVE_UP : NOT_SUCCESSFUL;
  }

  /** The --hedge flag's value, or null without it. */
  private Hedging hedging() {
    if (hedge == null) {
      return null;
    }
    int colon = hedge.indexOf(':');
    Duration delay;
    try {
      delay = DurationConverter.parse(colon < 0 ? hedge : hedge.substring(0, colon));
    } catch (picocli.CommandLine.TypeConversionException e) {
      throw new Errors.UsageException("--hedge '" + hedge + "': " + e.getMessage());
    }
    if (delay.isNegative()) {
      throw new Errors.UsageException("--hedge delay must not be negative, was " + Durations.format(delay));
    }
    Hedging hedging = Hedging.after(delay);
    if (colon < 0) {
      return hedging;
    }
    String count = hedge.substring(colon + 1);
    int hedges;
    try {
      hedges = Integer.parseInt(count);
    } catch (NumberFormatException e) {
      throw new Errors.UsageException("--hedge '" + hedge + "': the number of hedges must be a whole number,"
          + " was '" + count + "'");
    }
    if (hedges < 1) {
      throw new Errors.UsageException("--hedge '" + hedge + "': the number of hedges must be at least 1, was "
          + hedges);
    }
    return hedging.maxHedges(hedges);
  }

  /** The hedged call's response, its failure thrown as {@link #send} would throw it. */
  private static <T> HttpResponse<T> awaitHedged(java.util.concurrent.CompletableFuture<HttpResponse<T>> call)
      throws IOException, InterruptedException {
    try {
      return call.get();
    } catch (InterruptedException e) {
      call.cancel(true);
      throw e;
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new IOException(cause);
    }
  }

  private HttpRequest request() {
    if (!url.contains("://")) {
      // "127.0.0.1:8080" or "localhost:8080/api": java.net.URI reads the host as a scheme and says "Illegal
      // character in scheme name", which does not tell the user what to do.
      throw new Errors.UsageException("URL '" + url + "' has no scheme; did you mean 'http://" + url + "'?");
    }
    URI uri;
    try {
      uri = new URI(url);
    } catch (java.net.URISyntaxException e) {
      throw new Errors.UsageException("URL '" + url + "' is malformed: " + e.getReason()
          + (e.getIndex() >= 0 ? " at character " + (e.getIndex() + 1) : ""));
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

  private static boolean isSuccess(int status) {
    return status >= 200 && status < 300;
  }

  /**
   * Makes an {@link OutOfMemoryError} that escapes any thread end the process (exit 1) rather than leave it
   * waiting for a thread that died. Installed once per process. (The JDK client's selector thread catches
   * its own; the launcher's {@code -XX:+ExitOnOutOfMemoryError} covers that one.)
   */
  private static synchronized void installOutOfMemoryExit(PrintWriter err) {
    Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
    if (previous instanceof OutOfMemoryExit) {
      return;
    }
    Thread.setDefaultUncaughtExceptionHandler(new OutOfMemoryExit(err, previous));
  }

  /** See {@link #installOutOfMemoryExit}; other uncaught exceptions go to the previous handler. */
  private static final class OutOfMemoryExit implements Thread.UncaughtExceptionHandler {
    private final PrintWriter err;
    private final Thread.UncaughtExceptionHandler previous;

    OutOfMemoryExit(PrintWriter err, Thread.UncaughtExceptionHandler previous) {
      this.err = err;
      this.previous = previous;
    }

    @Override
    public void uncaughtException(Thread thread, Throwable failure) {
      if (failure instanceof OutOfMemoryError) {
        try {
          err.println("backoff: out of memory in thread " + thread.getName() + "; exiting");
          err.flush();
        } finally {
          Runtime.getRuntime().halt(Errors.FAILURE); // halt: shutdown hooks may need the memory we lack
        }
      }
      if (previous != null) {
        previous.uncaughtException(thread, failure);
      } else {
        System.err.print("Exception in thread \"" + thread.getName() + "\" ");
        failure.printStackTrace();
      }
    }
  }

  /** The charset named by a Content-Type header, UTF-8 if none or unknown. */
  private static Charset charset(java.net.http.HttpHeaders headers) {
    String contentType = headers.firstValue("Content-Type").orElse("");
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

  /**
   * A failure in a few words; a host name that does not resolve reads "unknown host NAME" (the JDK's client
   * says only "ConnectException", with the reason two causes down).
   */
  static String describe(Throwable failure, String host) {
    return describe(failure, host, host);
  }

  private static String describe(Throwable failure, URI uri) {
    return describe(failure, uri.getHost(), uri.getPort() < 0 ? uri.getHost() : uri.getHost() + ":" + uri.getPort());
  }

  /** As {@link #describe(Throwable, String)}; {@code authority} (host and port) names what could not be reached. */
  private static String describe(Throwable failure, String host, String authority) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof java.nio.channels.UnresolvedAddressException
          || cause instanceof java.net.UnknownHostException) {
        return "unknown host " + host;
      }
    }
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof java.net.ConnectException) {
        // The JDK's client says only "ConnectException"; the reason ("Connection refused") is a cause down.
        String reason = null;
        for (Throwable inner = cause; inner != null && reason == null; inner = inner.getCause()) {
          String message = inner.getMessage();
          reason = message == null || message.isBlank() ? null : message;
        }
        return "cannot connect to " + authority + ": " + (reason == null ? "connection failed" : reason)
            + " (is the server running, and is the port right?)";
      }
    }
    return describe(failure);
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
    private final String host;
    private final WaitHeader[] shown;
    // Listener calls of one call come one at a time (the loop's lock or its single thread).
    private int hedges;
    private int winner;

    AttemptPrinter(PrintWriter err, AtomicReference<StopReason> stopped, String host, WaitHeader[] shown) {
      this.err = err;
      this.stopped = stopped;
      this.host = host;
      this.shown = shown;
    }

    @Override
    public void onRetryScheduled(RetryEvent<HttpResponse<?>> event) {
      print(event, "retrying in " + format(event.delay()) + " (" + event.failureClass() + ")");
    }

    @Override
    public void onHedgeSent(RetryEvent<HttpResponse<?>> event) {
      hedges++;
      err.println("attempt " + event.attempts() + ": sent as a hedge at " + format(event.elapsed())
          + (event.failure() == null ? "" : ", after " + describe(event.failure(), host)));
      err.flush();
    }

    @Override
    public void onHedgeWon(RetryEvent<HttpResponse<?>> event) {
      winner = event.attempts();
    }

    @Override
    public void onSuccess(RetryEvent<HttpResponse<?>> event) {
      if (hedges > 0) {
        // A hedged call: the response is the winner's (the original's unless a hedge won).
        int won = winner == 0 ? 1 : winner;
        err.println("attempt " + won + ": " + event.result().statusCode() + " (first of " + event.attempts()
            + " attempts)");
        err.flush();
        return;
      }
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
        line.append(describe(event.failure(), host));
      } else if (response != null) {
        line.append(response.statusCode());
        for (WaitHeader header : shown) { // the headers read as the server's wait, as the server sent them
          response.headers().firstValue(header.headerName())
              .ifPresent(value -> line.append(" (").append(header.headerName()).append(": ").append(value).append(')'));
        }
      }
      if (outcome != null) {
        line.append(", ").append(outcome);
      }
      err.println(line);
      err.flush();
    }
  }

  /** What was printed of the last response's body. */
  record PrintedBody(long bytes, boolean cut) {}

  /** The body broke off after part of it was printed: not retried, since the retry would print it again. */
  static final class PartialOutputException extends IOException {
    private static final long serialVersionUID = 1L;

    PartialOutputException(long printed, Throwable cause) {
      super("the response body broke off after " + printed + " bytes of it were printed: " + describe(cause),
          cause);
    }
  }

  /**
   * Prints a body, decoded with its charset. A 2xx body is printed as it arrives, never holding more than
   * one network read. Any other body is kept up to {@code limit} bytes and printed once it ends or reaches
   * the limit (the connection is then closed rather than read on), so that an error body that breaks off
   * prints nothing and its attempt can be retried cleanly. The body completes when it is printed, so the
   * request's timeout and deadline cover all of it.
   */
  static final class PrintingSubscriber implements HttpResponse.BodySubscriber<PrintedBody> {
    private final PrintWriter out;
    private final CharsetDecoder decoder;
    private final long limit;
    private final boolean streaming;
    private final CompletableFuture<PrintedBody> result = new CompletableFuture<>();
    private final CharBuffer chars = CharBuffer.allocate(8192);
    private final java.io.ByteArrayOutputStream kept = new java.io.ByteArrayOutputStream();
    private ByteBuffer pending = ByteBuffer.allocate(0); // an incomplete character from the last read
    private Flow.Subscription subscription;
    private long printed;

    /** {@code limit}: {@link Long#MAX_VALUE} streams the whole body; any other value keeps that much. */
    PrintingSubscriber(PrintWriter out, Charset charset, long limit) {
      this.out = out;
      this.decoder = charset.newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
          .onUnmappableCharacter(CodingErrorAction.REPLACE);
      this.limit = limit;
      this.streaming = limit == Long.MAX_VALUE;
    }

    @Override
    public CompletionStage<PrintedBody> getBody() {
      return result;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      this.subscription = subscription;
      subscription.request(1);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
      if (result.isDone()) {
        return;
      }
      for (ByteBuffer item : items) {
        if (streaming) {
          print(item, false);
          continue;
        }
        int room = (int) (limit - kept.size());
        if (item.remaining() > room) {
          item.limit(item.position() + room);
          keep(item);
          subscription.cancel();
          printKept(true);
          return;
        }
        keep(item);
      }
      subscription.request(1);
    }

    private void keep(ByteBuffer item) {
      byte[] bytes = new byte[item.remaining()];
      item.get(bytes);
      kept.writeBytes(bytes);
    }

    private void printKept(boolean cut) {
      print(ByteBuffer.wrap(kept.toByteArray()), true);
      out.flush();
      result.complete(new PrintedBody(printed, cut));
    }

    @Override
    public void onError(Throwable failure) {
      out.flush();
      result.completeExceptionally(printed > 0 ? new PartialOutputException(printed, failure) : failure);
    }

    @Override
    public void onComplete() {
      if (!streaming) {
        printKept(false);
        return;
      }
      print(ByteBuffer.allocate(0), true);
      out.flush();
      result.complete(new PrintedBody(printed, false));
    }

    private void print(ByteBuffer bytes, boolean last) {
      printed += bytes.remaining();
      ByteBuffer in = bytes;
      if (pending.hasRemaining()) {
        in = ByteBuffer.allocate(pending.remaining() + bytes.remaining()).put(pending).put(bytes).flip();
      }
      while (true) {
        java.nio.charset.CoderResult result = decoder.decode(in, chars, last);
        drainChars();
        if (!result.isOverflow()) {
          break;
        }
      }
      if (last) {
        while (decoder.flush(chars).isOverflow()) {
          drainChars();
        }
        drainChars();
      }
      pending = in.hasRemaining() ? ByteBuffer.allocate(in.remaining()).put(in).flip() : ByteBuffer.allocate(0);
    }

    private void drainChars() {
      chars.flip();
      out.append(chars);
      chars.clear();
    }
  }
}
