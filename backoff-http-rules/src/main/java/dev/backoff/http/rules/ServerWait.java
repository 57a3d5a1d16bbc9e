package dev.backoff.http.rules;

import dev.backoff.Pushback;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The one parser of every header through which a server says "wait" ({@link WaitHeader}): a response's
 * enabled fields to one pushback hint in nanoseconds. The ranks, the rule for hostile values and each form
 * are described on {@link WaitHeader}. Stateless; "now" is passed in.
 */
final class ServerWait {
  /** From this value on, {@code X-RateLimit-Reset} is a Unix time in seconds; below it, delta-seconds. */
  static final long EPOCH_THRESHOLD = 1_000_000_000L;

  /** A number too large for a {@code long}: read as an infinite wait. */
  private static final long TOO_LARGE = Long.MAX_VALUE;
  /** Not a non-negative decimal integer. */
  private static final long UNREADABLE = -1;
  /** Structured-field integers have at most 15 digits (RFC 9651 §3.3.1). */
  private static final int SF_INTEGER_DIGITS = 15;

  private static final long NANOS_PER_MILLI = 1_000_000L;
  private static final long NANOS_PER_SECOND = 1_000_000_000L;

  private ServerWait() {}

  /**
   * The pushback hint from the enabled fields of {@code response}: the highest-ranked field with a readable
   * wait, the longest within its rank; {@link RetryAfter#INFINITE_NANOS} for a wait too long to represent;
   * {@link Pushback#NONE} when no enabled field gives a wait.
   */
  static long hintNanos(Set<WaitHeader> enabled, HttpResponseView response, Instant now) {
    long hint = Pushback.NONE;
    if (enabled.contains(WaitHeader.RETRY_AFTER_MS)) {
      hint = Math.max(hint, millis(response.headers(WaitHeader.RETRY_AFTER_MS.headerName())));
    }
    if (enabled.contains(WaitHeader.X_AMZ_RETRY_AFTER)) {
      hint = Math.max(hint, millis(response.headers(WaitHeader.X_AMZ_RETRY_AFTER.headerName())));
    }
    if (hint != Pushback.NONE) {
      return hint;
    }
    if (enabled.contains(WaitHeader.RETRY_AFTER)) {
      hint = RetryAfter.hintNanos(response.headers(RetryAfter.HEADER), now);
      if (hint != Pushback.NONE) {
        return hint;
      }
    }
    if (enabled.contains(WaitHeader.X_RATELIMIT_RESET)
        && quotaSpent(response, response.headers("X-RateLimit-Remaining"))) {
      hint = Math.max(hint, rateLimitReset(response.headers(WaitHeader.X_RATELIMIT_RESET.headerName()), now));
    }
    if (enabled.contains(WaitHeader.RATELIMIT)) {
      hint = Math.max(hint, serviceLimits(response));
      if (quotaSpent(response, response.headers("RateLimit-Remaining"))) {
        hint = Math.max(hint, longest(response.headers("RateLimit-Reset"), ServerWait::seconds));
      }
    }
    return hint;
  }

  // -------------------------------------------------------------------------------- plain numbers

  /** A millisecond field's values: the longest wait. */
  private static long millis(List<String> values) {
    return longest(values, value -> {
      long millis = integer(value);
      return millis < 0 ? Pushback.NONE : saturatedNanos(millis, NANOS_PER_MILLI);
    });
  }

  private static long seconds(String value) {
    long seconds = integer(value);
    return seconds < 0 ? Pushback.NONE : saturatedNanos(seconds, NANOS_PER_SECOND);
  }

  /** {@code X-RateLimit-Reset}: delta-seconds below {@link #EPOCH_THRESHOLD}, else a Unix time in seconds. */
  private static long rateLimitReset(List<String> values, Instant now) {
    return longest(values, value -> {
      long number = integer(value);
      if (number < EPOCH_THRESHOLD) {
        return number < 0 ? Pushback.NONE : saturatedNanos(number, NANOS_PER_SECOND);
      }
      if (number == TOO_LARGE || number > Instant.MAX.getEpochSecond()) {
        return RetryAfter.INFINITE_NANOS;
      }
      Instant reset = Instant.ofEpochSecond(number);
      return reset.isAfter(now) ? RetryAfter.nanos(Duration.between(now, reset)) : 0;
    });
  }

  /**
   * Whether a quota's reset is a wait: its "remaining" field says 0, or, with no readable one, the status
   * is 429 (the server said "too many requests").
   */
  private static boolean quotaSpent(HttpResponseView response, List<String> remaining) {
    long left = UNREADABLE;
    for (String value : remaining) {
      long number = integer(value);
      if (number >= 0) {
        left = left < 0 ? number : Math.min(left, number);
      }
    }
    return left < 0 ? response.status() == 429 : left == 0;
  }

  /**
   * The longest wait among a field's values, each of which may hold several comma-separated parts (folded
   * by a proxy); a value with an unreadable part gives nothing.
   */
  private static long longest(List<String> values, java.util.function.ToLongFunction<String> wait) {
    long hint = Pushback.NONE;
    for (String value : values) {
      if (value == null) {
        continue;
      }
      long valueHint = Pushback.NONE;
      for (String part : value.split(",", -1)) {
        long partHint = wait.applyAsLong(part);
        if (partHint == Pushback.NONE) {
          valueHint = Pushback.NONE;
          break;
        }
        valueHint = Math.max(valueHint, partHint);
      }
      hint = Math.max(hint, valueHint);
    }
    return hint;
  }

  /**
   * A non-negative decimal integer with optional surrounding spaces and tabs: its value, {@link #TOO_LARGE}
   * beyond a {@code long}, {@link #UNREADABLE} for anything else (a sign, a fraction, garbage, nothing).
   */
  static long integer(String value) {
    String text = RetryAfter.stripWhitespace(value);
    if (text.isEmpty()) {
      return UNREADABLE;
    }
    long number = 0;
    boolean overflow = false;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return UNREADABLE; // keep scanning after an overflow: "99999999999999999999x" is garbage
      }
      if (!overflow && number > (Long.MAX_VALUE - (c - '0')) / 10) {
        overflow = true;
      } else if (!overflow) {
        number = number * 10 + (c - '0');
      }
    }
    return overflow ? TOO_LARGE : number;
  }

  /** {@code amount} units of {@code nanosPerUnit}: {@link RetryAfter#INFINITE_NANOS} when that overflows. */
  private static long saturatedNanos(long amount, long nanosPerUnit) {
    return amount > Long.MAX_VALUE / nanosPerUnit ? RetryAfter.INFINITE_NANOS : amount * nanosPerUnit;
  }

  // ----------------------------------------------------------------- the IETF structured fields

  /**
   * {@code RateLimit}: the longest effective window among the service limits with no quota left (their
   * {@code t}, else the {@code w} of the same-named {@code RateLimit-Policy}); none if the field is absent or
   * malformed.
   */
  private static long serviceLimits(HttpResponseView response) {
    List<Item> limits = StructuredList.parse(response.headers(WaitHeader.RATELIMIT.headerName()));
    if (limits == null || limits.isEmpty()) {
      return Pushback.NONE;
    }
    Map<String, Long> windows = null;
    long hint = Pushback.NONE;
    for (Item limit : limits) {
      Long remaining = limit.integer("r");
      if (remaining == null || remaining < 0 || limit.has("t") && (limit.integer("t") == null || limit.integer("t") < 0)) {
        return Pushback.NONE; // "r" is required, "t" a non-negative integer: a malformed field is ignored
      }
      if (remaining != 0) {
        continue;
      }
      Long window = limit.integer("t");
      if (window == null) {
        if (windows == null) {
          windows = policyWindows(response);
        }
        window = windows.get(limit.name());
      }
      if (window != null) {
        hint = Math.max(hint, saturatedNanos(window, NANOS_PER_SECOND));
      }
    }
    return hint;
  }

  /** {@code RateLimit-Policy}: each named policy's window {@code w} in seconds (empty if malformed). */
  private static Map<String, Long> policyWindows(HttpResponseView response) {
    List<Item> policies = StructuredList.parse(response.headers("RateLimit-Policy"));
    Map<String, Long> windows = new HashMap<>();
    if (policies != null) {
      for (Item policy : policies) {
        Long window = policy.integer("w");
        if (window != null && window > 0 && policy.name() != null) {
          windows.putIfAbsent(policy.name(), window);
        }
      }
    }
    return windows;
  }

  /**
   * One member of a structured-field list: its bare item as text when it is a string or a token (the
   * policy's name; null for another type), and its parameters (integers as {@code Long}, anything else as
   * text).
   */
  record Item(String name, Map<String, Object> parameters) {
    boolean has(String key) {
      return parameters.containsKey(key);
    }

    /** The parameter as an integer, or null if absent or of another type. */
    Long integer(String key) {
      return parameters.get(key) instanceof Long value ? value : null;
    }
  }

  /**
   * A strict parser of RFC 9651 lists of items with parameters, as far as the rate-limit fields need:
   * strings, tokens, integers, decimals, booleans and byte sequences as bare items and parameter values.
   * Inner lists and anything malformed make the whole field malformed (null). An integer longer than a
   * structured field allows is read as {@link Long#MAX_VALUE} (an infinite wait), not rejected.
   */
  static final class StructuredList {
    private final String text;
    private int at;

    private StructuredList(String text) {
      this.text = text;
    }

    /** The field's values joined as one list (RFC 9651 §4.2), or null if malformed; empty if absent. */
    static List<Item> parse(List<String> values) {
      List<String> present = new ArrayList<>();
      for (String value : values) {
        if (value != null) {
          present.add(value);
        }
      }
      if (present.isEmpty()) {
        return List.of();
      }
      return new StructuredList(String.join(", ", present)).list();
    }

    private List<Item> list() {
      List<Item> items = new ArrayList<>();
      skip(' ');
      if (at == text.length()) {
        return null; // an empty field value is not a list
      }
      while (at < text.length()) {
        Item item = item();
        if (item == null) {
          return null;
        }
        items.add(item);
        skipOptionalWhitespace();
        if (at == text.length()) {
          return items;
        }
        if (text.charAt(at++) != ',') {
          return null;
        }
        skipOptionalWhitespace();
        if (at == text.length()) {
          return null; // a trailing comma
        }
      }
      return items;
    }

    private Item item() {
      Object bare = bareItem();
      if (bare == null) {
        return null;
      }
      Map<String, Object> parameters = new HashMap<>();
      while (at < text.length() && text.charAt(at) == ';') {
        at++;
        skip(' ');
        String key = key();
        if (key == null) {
          return null;
        }
        Object value = Boolean.TRUE;
        if (at < text.length() && text.charAt(at) == '=') {
          at++;
          value = bareItem();
          if (value == null) {
            return null;
          }
        }
        parameters.put(key, value);
      }
      return new Item(bare instanceof String name ? name : null, parameters);
    }

    /** A bare item: a String for a string or a token, a Long for an integer, another object otherwise. */
    private Object bareItem() {
      if (at >= text.length()) {
        return null;
      }
      char c = text.charAt(at);
      if (c == '-' || isDigit(c)) {
        return number();
      }
      if (c == '"') {
        return string();
      }
      if (c == '*' || isAlpha(c)) {
        int start = at;
        while (at < text.length() && isTokenChar(text.charAt(at))) {
          at++;
        }
        return text.substring(start, at);
      }
      if (c == ':') {
        int end = text.indexOf(':', at + 1);
        if (end < 0 || !text.substring(at + 1, end).matches("[A-Za-z0-9+/=]*")) {
          return null;
        }
        at = end + 1;
        return new Object(); // a byte sequence: not needed here
      }
      if (c == '?' && at + 1 < text.length() && (text.charAt(at + 1) == '0' || text.charAt(at + 1) == '1')) {
        at += 2;
        return text.charAt(at - 1) == '1';
      }
      return null;
    }

    private Object number() {
      int start = at;
      boolean negative = text.charAt(at) == '-';
      if (negative) {
        at++;
      }
      int digitsStart = at;
      while (at < text.length() && isDigit(text.charAt(at))) {
        at++;
      }
      int digits = at - digitsStart;
      if (digits == 0) {
        return null;
      }
      if (at < text.length() && text.charAt(at) == '.') {
        at++;
        int fraction = at;
        while (at < text.length() && isDigit(text.charAt(at))) {
          at++;
        }
        if (digits > 12 || at == fraction || at - fraction > 3) {
          return null;
        }
        return Double.valueOf(text.substring(start, at)); // a decimal: never a wait here
      }
      if (digits > SF_INTEGER_DIGITS) {
        // Too long for a structured integer; a larger wait must never mean a sooner retry, so it is infinite.
        return negative ? (Object) Double.NEGATIVE_INFINITY : (Object) Long.MAX_VALUE;
      }
      long value = Long.parseLong(text.substring(digitsStart, at));
      return negative ? -value : value;
    }

    private String string() {
      StringBuilder out = new StringBuilder();
      at++; // the opening quote
      while (at < text.length()) {
        char c = text.charAt(at++);
        if (c == '"') {
          return out.toString();
        }
        if (c == '\\') {
          if (at >= text.length() || (text.charAt(at) != '"' && text.charAt(at) != '\\')) {
            return null;
          }
          c = text.charAt(at++);
        } else if (c < 0x20 || c > 0x7e) {
          return null;
        }
        out.append(c);
      }
      return null; // no closing quote
    }

    private String key() {
      int start = at;
      if (at >= text.length() || !(isLowerAlpha(text.charAt(at)) || text.charAt(at) == '*')) {
        return null;
      }
      while (at < text.length()) {
        char c = text.charAt(at);
        if (!(isLowerAlpha(c) || isDigit(c) || c == '_' || c == '-' || c == '.' || c == '*')) {
          break;
        }
        at++;
      }
      return text.substring(start, at);
    }

    private void skip(char c) {
      while (at < text.length() && text.charAt(at) == c) {
        at++;
      }
    }

    private void skipOptionalWhitespace() {
      while (at < text.length() && (text.charAt(at) == ' ' || text.charAt(at) == '\t')) {
        at++;
      }
    }

    private static boolean isDigit(char c) {
      return c >= '0' && c <= '9';
    }

    private static boolean isLowerAlpha(char c) {
      return c >= 'a' && c <= 'z';
    }

    private static boolean isAlpha(char c) {
      return isLowerAlpha(c) || c >= 'A' && c <= 'Z';
    }

    /** tchar, ':' and '/' (RFC 9651 §3.3.4). */
    private static boolean isTokenChar(char c) {
      return isAlpha(c) || isDigit(c) || "!#$%&'*+-.^_`|~:/".indexOf(c) >= 0;
    }
  }
}
