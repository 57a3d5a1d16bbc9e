package dev.backoff.http.rules;

import dev.backoff.spec.Suggestions;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;

/**
 * The response header fields through which a server says "wait before you try again", which
 * {@link HttpRules} can read as the engine's pushback hint ({@link HttpRules.Builder#waitHeaders}). Only
 * {@link #RETRY_AFTER} is read by default; the others are opt-in, because each is a convention of some
 * servers rather than part of HTTP.
 *
 * <p>Every form is read by one parser with one rule for hostile values: an unreadable value (garbage, a
 * negative or fractional number) gives no hint, so the backoff applies; a well-formed value is never ignored
 * for being large (a larger value never gives a sooner retry), and a wait too long for a {@code long} of
 * nanoseconds (about 292 years) is infinite, which ends the call; values folded into one line by a proxy
 * ({@code 5, 120}) and repeated fields give the longest wait, provided each part is readable.
 *
 * <p>When a response carries several of the enabled fields, one rank decides, and within a rank the longest
 * readable wait wins:
 * <ol>
 *   <li>the millisecond fields, {@link #RETRY_AFTER_MS} and {@link #X_AMZ_RETRY_AFTER}: servers send them
 *       beside {@code Retry-After} as its precise form (that one is rounded up to whole seconds);
 *   <li>{@link #RETRY_AFTER};
 *   <li>the quota fields, {@link #RATELIMIT} and {@link #X_RATELIMIT_RESET}, which count only when the quota is
 *       spent (the IETF draft gives {@code Retry-After} precedence over them).
 * </ol>
 */
public enum WaitHeader {
  /**
   * {@code Retry-After} (RFC 9110): delay-seconds or an HTTP-date, see {@link RetryAfter}. On by default.
   */
  RETRY_AFTER("Retry-After"),

  /** {@code retry-after-ms}: the wait in whole milliseconds (a non-negative decimal integer). */
  RETRY_AFTER_MS("retry-after-ms"),

  /** {@code x-amz-retry-after}: the wait in whole milliseconds, as AWS services send it. */
  X_AMZ_RETRY_AFTER("x-amz-retry-after"),

  /**
   * {@code X-RateLimit-Reset}: when the quota refills, as a non-negative integer that is either
   * delta-seconds or a Unix time in seconds. A value below 1000000000 (about 31.7
   * years as a delay, September 2001 as a time) is delta-seconds; from it on, a Unix time, whose wait is
   * measured from the rules' wall clock (zero once it has passed). A Unix time in milliseconds reads as a
   * time tens of thousands of years ahead, which ends the call rather than retrying early. It counts only
   * when {@code X-RateLimit-Remaining} is {@code 0}, or, without a readable {@code X-RateLimit-Remaining},
   * on a 429.
   */
  X_RATELIMIT_RESET("X-RateLimit-Reset"),

  /**
   * The IETF fields of draft-ietf-httpapi-ratelimit-headers: {@code RateLimit} (a structured-field list of
   * service limits, {@code "policy";r=0;t=30}) with {@code RateLimit-Policy} ({@code "policy";q=100;w=60}).
   * A service limit whose available quota {@code r} is 0 asks for its effective window {@code t} in
   * seconds; without {@code t}, for the window {@code w} of the policy of the same name in
   * {@code RateLimit-Policy}, if any. Limits with quota left ask for nothing; a malformed field is ignored
   * whole (as the draft requires), except that an integer too long for a structured field (16 digits or
   * more) is read as an infinite wait, not ignored. Also the older drafts' (-00 to -06)
   * {@code RateLimit-Reset} in delta-seconds, which counts when {@code RateLimit-Remaining} is {@code 0} or,
   * without a readable {@code RateLimit-Remaining}, on a 429. The drafts' dictionary form
   * ({@code RateLimit: limit=10, remaining=0, reset=5}, -05 to -07) is not read.
   */
  RATELIMIT("RateLimit");

  private final String headerName;

  WaitHeader(String headerName) {
    this.headerName = headerName;
  }

  /** The name of the header field (compared case-insensitively, as every header name is). */
  public String headerName() {
    return headerName;
  }

  /**
   * {@link #RETRY_AFTER} and the headers named in {@code names}, as a user writes them in a flag or a
   * property: header names in any case, or {@code all} for every one.
   *
   * @throws IllegalArgumentException naming an unknown name, with the closest known one if any
   * @throws NullPointerException if {@code names} or one of them is null
   */
  public static WaitHeader[] fromNames(Collection<String> names) {
    EnumSet<WaitHeader> read = EnumSet.of(RETRY_AFTER);
    for (String name : names) {
      String key = name.trim().toLowerCase(Locale.ROOT);
      if (key.equals("all")) {
        read.addAll(EnumSet.allOf(WaitHeader.class));
        continue;
      }
      List<String> known = new ArrayList<>();
      WaitHeader found = null;
      for (WaitHeader header : values()) {
        known.add(header.headerName);
        if (header.headerName.equalsIgnoreCase(key)) {
          found = header;
        }
      }
      if (found == null) {
        known.add("all");
        String closest = Suggestions.closest(key, known);
        throw new IllegalArgumentException("unknown wait header '" + name + "'"
            + (closest == null ? "" : "; did you mean '" + closest + "'?") + " (known: " + String.join(", ", known) + ")");
      }
      read.add(found);
    }
    return read.toArray(WaitHeader[]::new);
  }
}
