package dev.backoff.http.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.Pushback;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Every form of {@link WaitHeader}, read through {@link HttpRules#waitHintNanos} with a fixed "now". */
class WaitHeaderTest {
  /** 2026-01-01T00:00:00.250Z: Unix time 1767225600 and a quarter of a second. */
  static final Instant NOW = Instant.parse("2026-01-01T00:00:00.250Z");
  static final long NOW_EPOCH_SECONDS = 1_767_225_600L;
  static final HttpRules ALL = HttpRules.builder().waitHeaders(WaitHeader.values()).build();
  static final long SECOND = 1_000_000_000L;
  static final long MILLI = 1_000_000L;

  /** A response of {@code status} with headers given as name, value, name, value... (names repeat). */
  static HttpResponseView response(int status, String... namesAndValues) {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      headers.computeIfAbsent(namesAndValues[i].toLowerCase(Locale.ROOT), name -> new ArrayList<>())
          .add(namesAndValues[i + 1]);
    }
    return HttpResponseView.of(status, name -> headers.get(name.toLowerCase(Locale.ROOT)));
  }

  static long hint(HttpRules rules, int status, String... namesAndValues) {
    return rules.waitHintNanos(response(status, namesAndValues), NOW);
  }

  static long hint(String... namesAndValues) {
    return hint(ALL, 503, namesAndValues);
  }

  @Test
  void onlyRetryAfterIsReadByDefault() {
    HttpRules defaults = HttpRules.defaults();
    assertThat(defaults.waitHeaders()).containsExactly(WaitHeader.RETRY_AFTER);
    assertThat(hint(defaults, 429, "retry-after-ms", "1500", "x-amz-retry-after", "2500",
        "X-RateLimit-Reset", "30", "RateLimit", "\"q\";r=0;t=40")).isEqualTo(Pushback.NONE);
    assertThat(hint(defaults, 429, "Retry-After", "3", "retry-after-ms", "1500")).isEqualTo(3 * SECOND);
  }

  @Test
  void noWaitHeadersReadsNoWait() {
    HttpRules none = HttpRules.builder().waitHeaders().build();
    assertThat(none.waitHeaders()).isEmpty();
    assertThat(hint(none, 503, "Retry-After", "3")).isEqualTo(Pushback.NONE);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "retry-after-ms|0|0", "retry-after-ms|1|1000000", "retry-after-ms|1500|1500000000",
      "retry-after-ms|  250\t|250000000", "retry-after-ms|0007|7000000",
      "x-amz-retry-after|0|0", "x-amz-retry-after|2500|2500000000",
      "retry-after-ms|9223372036854|9223372036854000000",
      "retry-after-ms|9223372036855|9223372036854775807",
      "retry-after-ms|99999999999999999999|9223372036854775807"})
  void millisecondFieldsExactly(String name, String value, long nanos) {
    assertThat(hint(name, value)).isEqualTo(nanos);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "-1", "1.5", "1e3", "+5", "soon", "0x10", "1 500", "99999999999999999999x"})
  void unreadableMillisecondsGiveNoWait(String value) {
    assertThat(hint("retry-after-ms", value)).isEqualTo(Pushback.NONE);
    assertThat(hint("x-amz-retry-after", value)).isEqualTo(Pushback.NONE);
  }

  @Test
  void foldedAndRepeatedMillisecondsGiveTheLongestAndOneBadPartSpoilsItsValue() {
    assertThat(hint("retry-after-ms", "100, 900")).isEqualTo(900 * MILLI);
    assertThat(hint("retry-after-ms", "100", "retry-after-ms", "400")).isEqualTo(400 * MILLI);
    assertThat(hint("retry-after-ms", "100, soon")).isEqualTo(Pushback.NONE);
    assertThat(hint("retry-after-ms", "100, soon", "retry-after-ms", "300")).isEqualTo(300 * MILLI);
    assertThat(hint("retry-after-ms", "100", "x-amz-retry-after", "700")).isEqualTo(700 * MILLI);
  }

  @Test
  void xRateLimitResetBelowTheThresholdIsDeltaSeconds() {
    assertThat(ServerWait.EPOCH_THRESHOLD).isEqualTo(1_000_000_000L);
    assertThat(hint(ALL, 429, "X-RateLimit-Reset", "0")).isZero();
    assertThat(hint(ALL, 429, "X-RateLimit-Reset", "30")).isEqualTo(30 * SECOND);
    assertThat(hint(ALL, 429, "X-RateLimit-Reset", "999999999")).isEqualTo(999_999_999L * SECOND);
  }

  @Test
  void xRateLimitResetFromTheThresholdOnIsAUnixTime() {
    // The threshold itself is a time (2001-09-09), long past: retry now.
    assertThat(hint(ALL, 429, "X-RateLimit-Reset", "1000000000")).isZero();
    assertThat(hint(ALL, 429, "X-RateLimit-Reset", String.valueOf(NOW_EPOCH_SECONDS))).isZero();
    // One second after the whole second before NOW: 0.75 s from NOW.
    assertThat(hint(ALL, 429, "X-RateLimit-Reset", String.valueOf(NOW_EPOCH_SECONDS + 1))).isEqualTo(750 * MILLI);
    assertThat(hint(ALL, 429, "X-RateLimit-Reset", String.valueOf(NOW_EPOCH_SECONDS + 60)))
        .isEqualTo(59 * SECOND + 750 * MILLI);
    // Milliseconds sent as if seconds: tens of thousands of years ahead, an infinite wait, never a sooner retry.
    assertThat(hint(ALL, 429, "X-RateLimit-Reset", "1767225600000")).isEqualTo(RetryAfter.INFINITE_NANOS);
    assertThat(hint(ALL, 429, "X-RateLimit-Reset", "99999999999999999999")).isEqualTo(RetryAfter.INFINITE_NANOS);
  }

  @Test
  void xRateLimitResetCountsOnlyWhenTheQuotaIsSpent() {
    assertThat(hint(ALL, 503, "X-RateLimit-Reset", "30")).as("no remaining, not a 429").isEqualTo(Pushback.NONE);
    assertThat(hint(ALL, 503, "X-RateLimit-Reset", "30", "X-RateLimit-Remaining", "0")).isEqualTo(30 * SECOND);
    assertThat(hint(ALL, 429, "X-RateLimit-Reset", "30", "X-RateLimit-Remaining", "5"))
        .as("quota left, even on a 429").isEqualTo(Pushback.NONE);
    assertThat(hint(ALL, 429, "X-RateLimit-Reset", "30", "X-RateLimit-Remaining", "none"))
        .as("an unreadable remaining counts as absent").isEqualTo(30 * SECOND);
  }

  @ParameterizedTest
  @ValueSource(strings = {"-30", "30.5", "soon", "", "1767225660.5"})
  void unreadableResetsGiveNoWait(String value) {
    assertThat(hint(ALL, 429, "X-RateLimit-Reset", value)).isEqualTo(Pushback.NONE);
    assertThat(hint(ALL, 429, "RateLimit-Reset", value)).isEqualTo(Pushback.NONE);
  }

  @Test
  void ietfRateLimitWithNoQuotaLeftAsksForItsEffectiveWindow() {
    assertThat(hint("RateLimit", "\"default\";r=0;t=30")).isEqualTo(30 * SECOND);
    assertThat(hint("RateLimit", "default;r=0;t=0")).as("a token name").isZero();
    assertThat(hint("RateLimit", "\"default\";r=50;t=30")).as("quota left").isEqualTo(Pushback.NONE);
    assertThat(hint("RateLimit", "\"burst\";r=0;t=5, \"daily\";r=0;t=3600")).isEqualTo(3600 * SECOND);
    assertThat(hint("RateLimit", "\"burst\";r=0;t=5", "RateLimit", "\"daily\";r=10;t=3600"))
        .as("split over two fields").isEqualTo(5 * SECOND);
    assertThat(hint("RateLimit", "\"default\";r=0;t=30;pk=:cHsdsRa894==:;acme-x=?1;z=1.5"))
        .as("other parameters are comments").isEqualTo(30 * SECOND);
  }

  @Test
  void ietfRateLimitWithoutItsWindowTakesThePolicysWindow() {
    assertThat(hint("RateLimit", "\"perhr\";r=0", "RateLimit-Policy", "\"permin\";q=50;w=60,\"perhr\";q=1000;w=3600"))
        .isEqualTo(3600 * SECOND);
    assertThat(hint("RateLimit", "\"perday\";r=0", "RateLimit-Policy", "\"permin\";q=50;w=60"))
        .as("no such policy").isEqualTo(Pushback.NONE);
    assertThat(hint("RateLimit", "\"perhr\";r=0", "RateLimit-Policy", "\"perhr\";q=1000;w=3600,,"))
        .as("a malformed policy field").isEqualTo(Pushback.NONE);
    assertThat(hint("RateLimit-Policy", "\"perhr\";q=0;w=3600")).as("a policy alone asks for nothing")
        .isEqualTo(Pushback.NONE);
  }

  @ParameterizedTest
  @ValueSource(strings = {"\"default\";t=30", "\"default\";r=-1;t=30", "\"default\";r=0;t=-30",
      "\"default\";r=0;t=30.0", "\"default\";r=0;t=\"30\"", "\"default\";r=0;t=30,", "\"default\" r=0;t=30",
      "\"default;r=0;t=30", "(\"a\" \"b\");r=0;t=30", "\"default\";R=0;t=30", "", "\"ok\";r=0;t=30, \"bad\";t=1"})
  void aMalformedRateLimitFieldIsIgnoredWhole(String value) {
    assertThat(hint("RateLimit", value)).isEqualTo(Pushback.NONE);
  }

  @Test
  void anIntegerTooLongForAStructuredFieldIsAnInfiniteWait() {
    assertThat(hint("RateLimit", "\"default\";r=0;t=999999999999999")).isEqualTo(RetryAfter.INFINITE_NANOS);
    assertThat(hint("RateLimit", "\"default\";r=0;t=9999999999999999")).isEqualTo(RetryAfter.INFINITE_NANOS);
    assertThat(hint("RateLimit", "\"default\";r=0;t=9223372036")).isEqualTo(9_223_372_036L * SECOND);
  }

  @Test
  void olderDraftsRateLimitResetIsDeltaSecondsWhenTheQuotaIsSpent() {
    assertThat(hint(ALL, 429, "RateLimit-Reset", "20")).isEqualTo(20 * SECOND);
    assertThat(hint(ALL, 503, "RateLimit-Reset", "20", "RateLimit-Remaining", "0")).isEqualTo(20 * SECOND);
    assertThat(hint(ALL, 503, "RateLimit-Reset", "20")).isEqualTo(Pushback.NONE);
    assertThat(hint(ALL, 429, "RateLimit-Reset", "20", "RateLimit-Remaining", "3")).isEqualTo(Pushback.NONE);
    assertThat(hint(ALL, 429, "RateLimit-Reset", "1767225660")).as("never a Unix time")
        .isEqualTo(1_767_225_660L * SECOND);
  }

  @Test
  void theMillisecondFieldsOutrankRetryAfterWhichOutranksTheQuotaFields() {
    assertThat(hint(ALL, 429, "Retry-After", "2", "retry-after-ms", "1500")).isEqualTo(1500 * MILLI);
    assertThat(hint(ALL, 429, "Retry-After", "2", "retry-after-ms", "garbage")).isEqualTo(2 * SECOND);
    assertThat(hint(ALL, 429, "Retry-After", "2", "X-RateLimit-Reset", "60", "RateLimit", "\"d\";r=0;t=90"))
        .isEqualTo(2 * SECOND);
    assertThat(hint(ALL, 429, "Retry-After", "soon", "X-RateLimit-Reset", "60", "RateLimit", "\"d\";r=0;t=90"))
        .as("the longest of the quota fields").isEqualTo(90 * SECOND);
    // A field that is not enabled takes no part, even where it would outrank the others.
    HttpRules retryAfterAndQuota = HttpRules.builder()
        .waitHeaders(WaitHeader.RETRY_AFTER, WaitHeader.X_RATELIMIT_RESET).build();
    assertThat(hint(retryAfterAndQuota, 429, "retry-after-ms", "1", "X-RateLimit-Reset", "60"))
        .isEqualTo(60 * SECOND);
  }

  @Test
  void theSettingIsKeptByToBuilderShownAndValidated() {
    HttpRules rules = HttpRules.builder().waitHeaders(WaitHeader.RATELIMIT, WaitHeader.RETRY_AFTER_MS).build();
    assertThat(rules.waitHeaders()).containsExactly(WaitHeader.RETRY_AFTER_MS, WaitHeader.RATELIMIT);
    assertThat(rules.toBuilder().build().waitHeaders()).isEqualTo(rules.waitHeaders());
    assertThat(rules.toString()).contains("wait headers [RETRY_AFTER_MS, RATELIMIT]");
    assertThat(HttpRules.defaults().toString()).doesNotContain("wait headers");
    assertThatThrownBy(() -> HttpRules.builder().waitHeaders(WaitHeader.RETRY_AFTER, null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("wait header");
    assertThatThrownBy(() -> HttpRules.builder().waitHeaders((WaitHeader[]) null))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("waitHeaders");
    assertThat(WaitHeader.X_AMZ_RETRY_AFTER.headerName()).isEqualTo("x-amz-retry-after");
  }

  @Test
  void namesAsUsersWriteThemAddToRetryAfter() {
    assertThat(WaitHeader.fromNames(List.of())).containsExactly(WaitHeader.RETRY_AFTER);
    assertThat(WaitHeader.fromNames(List.of("RETRY-AFTER-MS", " x-ratelimit-reset ")))
        .containsExactly(WaitHeader.RETRY_AFTER, WaitHeader.RETRY_AFTER_MS, WaitHeader.X_RATELIMIT_RESET);
    assertThat(WaitHeader.fromNames(List.of("all"))).containsExactly(WaitHeader.values());
    assertThatThrownBy(() -> WaitHeader.fromNames(List.of("ratelimt")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("unknown wait header 'ratelimt'; did you mean 'RateLimit'?")
        .hasMessageEndingWith("(known: Retry-After, retry-after-ms, x-amz-retry-after, X-RateLimit-Reset, RateLimit, all)");
    assertThatThrownBy(() -> WaitHeader.fromNames(List.of("zz"))).hasMessage("unknown wait header 'zz'"
        + " (known: Retry-After, retry-after-ms, x-amz-retry-after, X-RateLimit-Reset, RateLimit, all)");
  }
}
