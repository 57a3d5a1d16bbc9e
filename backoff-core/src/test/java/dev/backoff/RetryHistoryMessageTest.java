package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The message a person reads in a log: the elapsed time in the one duration format, not ISO-8601. */
class RetryHistoryMessageTest {
  @Test
  void elapsedTimeReadsAsAPersonWritesIt() {
    assertThat(RetryHistory.readable(38_352_162)).isEqualTo("38ms");
    assertThat(RetryHistory.readable(1_786_400_000)).isEqualTo("1.786s");
    assertThat(RetryHistory.readable(120_000_000_000L)).isEqualTo("2m");
    assertThat(RetryHistory.readable(352_162)).isEqualTo("352us");
    assertThat(RetryHistory.readable(999)).isEqualTo("999ns");
    assertThat(RetryHistory.readable(0)).isEqualTo("0s");
    assertThat(RetryHistory.readable(-5)).isEqualTo("0s");
    assertThat(RetryHistory.readable(Long.MAX_VALUE)).doesNotContain("PT");
  }

  @Test
  void messageCarriesTheReadableTime() {
    RetryHistory history = new RetryHistory("orders", 3, 38_352_162, StopReason.ATTEMPTS_EXHAUSTED);
    assertThat(history.getMessage()).isEqualTo("orders: gave up after 3 attempts in 38ms: attempts exhausted");
  }
}
