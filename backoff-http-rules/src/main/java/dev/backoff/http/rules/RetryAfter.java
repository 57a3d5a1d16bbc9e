package dev.backoff.http.rules;

import dev.backoff.Pushback;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Parses the {@code Retry-After} header (RFC 9110 §10.2.3): either delay-seconds (a non-negative decimal
 * integer) or an HTTP-date in any of the three forms a recipient must accept (§5.6.7):
 * <ul>
 *   <li>IMF-fixdate, {@code Sun, 06 Nov 1994 08:49:37 GMT} (the one servers should send);
 *   <li>the obsolete RFC 850 form, {@code Sunday, 06-Nov-94 08:49:37 GMT}, whose two-digit year is read as
 *       the nearest year not more than 50 years after "now", as §5.6.7 requires;
 *   <li>the obsolete asctime form, {@code Sun Nov  6 08:49:37 1994}.
 * </ul>
 *
 * <p>The parser is strict, because a misread header must never turn into a wrong wait: dates are case
 * sensitive, fields have their exact widths, the calendar date must exist. Only the day name's form is
 * checked, not that it matches the date. Surrounding spaces and tabs are ignored. What it cannot read
 * gives "no hint", so the caller falls back to its backoff; that covers garbage and negative or fractional
 * numbers. A well-formed value is never ignored for being large: a larger value must never give a sooner
 * retry. Several values folded into one line by a proxy ({@code 5, 120}) give the longest of them, where
 * each part is readable. Delay-seconds too large for a {@link Duration} (more than 19 digits' worth) give {@link #FOREVER};
 * a far date gives its exact wait, and {@link HttpRules} treats every wait beyond about 292 years
 * (too long for a {@code long} of nanoseconds) as infinite, which ends the call. A date in the past means
 * "retry now" (a zero wait).
 *
 * <p>Stateless and thread-safe; "now" is always passed in (read it from a {@link java.time.Clock}).
 */
public final class RetryAfter {
  /** The header's name. */
  public static final String HEADER = "Retry-After";

  /**
   * What {@link #parse} returns for delay-seconds too large for a {@link Duration}: the largest
   * {@code Duration}, longer than any wait a caller can honour, so such a value means "never".
   */
  public static final Duration FOREVER = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);

  /** The largest wait that fits a {@code long} of nanoseconds. */
  private static final Duration MAX_WAIT = Duration.ofNanos(Long.MAX_VALUE);

  /**
   * The pushback hint, in nanoseconds, for a wait too long for a {@code long} of nanoseconds (about 292
   * years or more): "infinite", which ends a call ({@link HttpRules#retryAfterNanos}).
   */
  public static final long INFINITE_NANOS = Long.MAX_VALUE;
  private static final List<String> DAYS = List.of("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun");
  private static final List<String> LONG_DAYS =
      List.of("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday");
  private static final List<String> MONTHS =
      List.of("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec");

  private RetryAfter() {}

  /**
   * The wait a {@code Retry-After} value asks for, measured from {@code now}.
   *
   * @param value the header's value, or null if there was none
   * @param now the current wall-clock time, for HTTP-dates
   * @return the wait (zero for a date in the past; {@link #FOREVER} for delay-seconds beyond what a
   *     {@code Duration} holds), or empty if the value is absent or unreadable
   * @throws NullPointerException if {@code now} is null
   */
  public static Optional<Duration> parse(String value, Instant now) {
    Objects.requireNonNull(now, "now must not be null");
    if (value == null) {
      return Optional.empty();
    }
    String text = stripWhitespace(value);
    if (text.isEmpty()) {
      return Optional.empty();
    }
    if (isDigit(text.charAt(0))) {
      return delaySeconds(text);
    }
    Instant date = httpDate(text, now);
    if (date == null) {
      return Optional.empty();
    }
    if (!date.isAfter(now)) {
      return Optional.of(Duration.ZERO);
    }
    return Optional.of(Duration.between(now, date));
  }

  /**
   * The pushback hint for the decision engine from a response's {@code Retry-After} values: the longest
   * wait among the readable ones (the most conservative: a server that sent several meant at least the
   * longest), in nanoseconds; {@link #INFINITE_NANOS} when that wait does not fit a {@code long} of
   * nanoseconds; {@link Pushback#NONE} when no value is readable.
   */
  static long hintNanos(List<String> values, Instant now) {
    long hint = Pushback.NONE;
    for (int i = 0; i < values.size(); i++) {
      String value = values.get(i);
      Optional<Duration> wait = parse(value, now);
      if (wait.isPresent()) {
        hint = Math.max(hint, nanos(wait.get()));
      } else if (value != null && value.indexOf(',') >= 0) {
        hint = Math.max(hint, foldedHintNanos(value, now));
      }
    }
    return hint;
  }

  /**
   * The longest wait in a value that is not one {@code Retry-After} but several folded into one line by a
   * proxy ({@code 5, 120}, or IMF-fixdates joined after their {@code GMT}): RFC 9110 does not define the
   * header as a list, but a proxy that joins repeated fields makes one, and ignoring it would drop the
   * server's pushback. Each part must parse on its own; one unreadable part makes the whole value
   * unreadable ({@link Pushback#NONE}), as for any garbage.
   */
  private static long foldedHintNanos(String value, Instant now) {
    List<String> parts = new java.util.ArrayList<>();
    String text = stripWhitespace(value);
    if (!text.isEmpty() && isDigit(text.charAt(0))) {
      parts.addAll(List.of(text.split(",", -1)));
    } else {
      for (String date : text.split("(?<=GMT),", -1)) {
        parts.add(date);
      }
    }
    if (parts.size() < 2) {
      return Pushback.NONE;
    }
    long hint = Pushback.NONE;
    for (String part : parts) {
      Optional<Duration> wait = parse(part, now);
      if (wait.isEmpty()) {
        return Pushback.NONE;
      }
      hint = Math.max(hint, nanos(wait.get()));
    }
    return hint;
  }

  /** The wait in nanoseconds, {@link #INFINITE_NANOS} from about 292 years on. */
  static long nanos(Duration wait) {
    return wait.compareTo(MAX_WAIT) >= 0 ? INFINITE_NANOS : wait.toNanos();
  }

  /** Removes leading and trailing spaces and tabs (HTTP's optional whitespace), nothing else. */
  static String stripWhitespace(String value) {
    int start = 0;
    int end = value.length();
    while (start < end && isSpaceOrTab(value.charAt(start))) {
      start++;
    }
    while (end > start && isSpaceOrTab(value.charAt(end - 1))) {
      end--;
    }
    return value.substring(start, end);
  }

  private static boolean isSpaceOrTab(char c) {
    return c == ' ' || c == '\t';
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  /** delay-seconds = 1*DIGIT: the wait, {@link #FOREVER} if too large for a Duration, empty if not all digits. */
  private static Optional<Duration> delaySeconds(String text) {
    long seconds = 0;
    boolean overflow = false;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!isDigit(c)) {
        return Optional.empty();
      }
      // Keep scanning after an overflow: "99999999999999999999x" is garbage, not "forever".
      if (!overflow) {
        int digit = c - '0';
        if (seconds > (Long.MAX_VALUE - digit) / 10) {
          overflow = true;
        } else {
          seconds = seconds * 10 + digit;
        }
      }
    }
    return Optional.of(overflow ? FOREVER : Duration.ofSeconds(seconds));
  }

  /** One of the three HTTP-date forms, or null. */
  static Instant httpDate(String text, Instant now) {
    int comma = text.indexOf(',');
    if (comma == 3) {
      return imfFixdate(text);
    }
    if (comma > 3) {
      return rfc850Date(text, comma, now);
    }
    if (comma < 0) {
      return asctimeDate(text);
    }
    return null;
  }

  /** {@code Sun, 06 Nov 1994 08:49:37 GMT}. */
  private static Instant imfFixdate(String s) {
    if (s.length() != 29 || !DAYS.contains(s.substring(0, 3)) || !s.startsWith(", ", 3) || s.charAt(7) != ' '
        || s.charAt(11) != ' ' || s.charAt(16) != ' ' || !s.startsWith(" GMT", 25)) {
      return null;
    }
    return instant(number(s, 12, 4), MONTHS.indexOf(s.substring(8, 11)) + 1, number(s, 5, 2), s, 17);
  }

  /** {@code Sunday, 06-Nov-94 08:49:37 GMT}. */
  private static Instant rfc850Date(String s, int comma, Instant now) {
    int d = comma + 2; // start of the two-digit day
    if (s.length() != comma + 24 || !LONG_DAYS.contains(s.substring(0, comma)) || s.charAt(comma + 1) != ' '
        || s.charAt(d + 2) != '-' || s.charAt(d + 6) != '-' || s.charAt(d + 9) != ' '
        || !s.startsWith(" GMT", d + 18)) {
      return null;
    }
    int twoDigitYear = number(s, d + 7, 2);
    if (twoDigitYear < 0) {
      return null;
    }
    int thisYear = now.atOffset(ZoneOffset.UTC).getYear();
    int year = Math.floorDiv(thisYear, 100) * 100 + twoDigitYear;
    if (year > thisYear + 50) {
      year -= 100; // more than 50 years ahead: the most recent past year with those digits
    } else if (year + 100 <= thisYear + 50) {
      year += 100;
    }
    return instant(year, MONTHS.indexOf(s.substring(d + 3, d + 6)) + 1, number(s, d, 2), s, d + 10);
  }

  /** {@code Sun Nov  6 08:49:37 1994} (the day is two digits or a space and one digit). */
  private static Instant asctimeDate(String s) {
    if (s.length() != 24 || !DAYS.contains(s.substring(0, 3)) || s.charAt(3) != ' ' || s.charAt(7) != ' '
        || s.charAt(10) != ' ' || s.charAt(19) != ' ') {
      return null;
    }
    int day = s.charAt(8) == ' ' ? number(s, 9, 1) : number(s, 8, 2);
    return instant(number(s, 20, 4), MONTHS.indexOf(s.substring(4, 7)) + 1, day, s, 11);
  }

  /** Builds the instant from the date and the {@code HH:MM:SS} at {@code time}; null if anything is invalid. */
  private static Instant instant(int year, int month, int day, String s, int time) {
    if (year < 0 || month < 1 || day < 1 || s.charAt(time + 2) != ':' || s.charAt(time + 5) != ':') {
      return null;
    }
    int hour = number(s, time, 2);
    int minute = number(s, time + 3, 2);
    int second = number(s, time + 6, 2);
    // 60 is a leap second (RFC 9110 allows it): the instant one second after :59.
    if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) {
      return null;
    }
    LocalDate date;
    try {
      date = LocalDate.of(year, month, day);
    } catch (DateTimeException e) {
      return null; // no such day, such as 30 Feb
    }
    return date.atStartOfDay(ZoneOffset.UTC).toInstant().plusSeconds(hour * 3600L + minute * 60L + second);
  }

  /** The decimal number of exactly {@code width} digits at {@code start}, or -1. */
  private static int number(String s, int start, int width) {
    int value = 0;
    for (int i = start; i < start + width; i++) {
      char c = s.charAt(i);
      if (!isDigit(c)) {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }
}
