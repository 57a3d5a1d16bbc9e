package dev.backoff.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.FailureClass;
import dev.backoff.Pushback;
import io.grpc.Metadata;
import io.grpc.Status;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.StringLength;

class GrpcStatusRulesTest {
  @Example
  void statusCodesAreFailureClasses() {
    assertThat(GrpcStatusRules.classify(Status.Code.RESOURCE_EXHAUSTED)).isSameAs(FailureClass.THROTTLED);
    assertThat(GrpcStatusRules.classify(Status.Code.DEADLINE_EXCEEDED)).isSameAs(FailureClass.TIMEOUT);
    assertThat(GrpcStatusRules.classify(Status.Code.UNAVAILABLE)).isSameAs(FailureClass.TRANSIENT);
    assertThat(GrpcStatusRules.classify(Status.Code.INTERNAL)).isSameAs(FailureClass.TRANSIENT);
  }

  @Example
  void pushbackValues() {
    assertThat(GrpcStatusRules.parsePushback("0")).isZero();
    assertThat(GrpcStatusRules.parsePushback("1500")).isEqualTo(1_500_000_000L);
    assertThat(GrpcStatusRules.parsePushback("007")).isEqualTo(7_000_000L);
    assertThat(GrpcStatusRules.parsePushback("9223372036854")).isEqualTo(9_223_372_036_854_000_000L);
    assertThat(GrpcStatusRules.parsePushback("9223372036855")).isEqualTo(Long.MAX_VALUE); // saturates
    assertThat(GrpcStatusRules.parsePushback("99999999999999999999999")).isEqualTo(Long.MAX_VALUE);
    assertThat(GrpcStatusRules.parsePushback("-1")).isEqualTo(Pushback.STOP);
    assertThat(GrpcStatusRules.parsePushback("")).isEqualTo(Pushback.STOP);
    assertThat(GrpcStatusRules.parsePushback("1e3")).isEqualTo(Pushback.STOP);
    assertThat(GrpcStatusRules.parsePushback("+5")).isEqualTo(Pushback.STOP);
    assertThat(GrpcStatusRules.parsePushback("99999999999999999999x")).isEqualTo(Pushback.STOP);
  }

  @Example
  void noTrailerIsNoHint() {
    assertThat(GrpcStatusRules.pushbackNanos(new Metadata())).isEqualTo(Pushback.NONE);
    assertThat(GrpcStatusRules.pushbackNanos(null)).isEqualTo(Pushback.NONE);
    Metadata trailers = new Metadata();
    trailers.put(GrpcStatusRules.PUSHBACK, "250");
    assertThat(GrpcStatusRules.pushbackNanos(trailers)).isEqualTo(250_000_000L);
  }

  @Property
  void everyNonNegativeMillisecondCountIsItsNanosecondsSaturated(@ForAll @LongRange(min = 0) long millis) {
    long expected = millis > Long.MAX_VALUE / 1_000_000 ? Long.MAX_VALUE : millis * 1_000_000;
    assertThat(GrpcStatusRules.parsePushback(Long.toString(millis))).isEqualTo(expected);
  }

  @Property
  void everyNegativeNumberMeansStop(@ForAll @LongRange(min = Long.MIN_VALUE, max = -1) long millis) {
    assertThat(GrpcStatusRules.parsePushback(Long.toString(millis))).isEqualTo(Pushback.STOP);
  }

  @Property
  void aHintIsNeverANegativeDelay(@ForAll @StringLength(max = 30) String value) {
    long hint = GrpcStatusRules.parsePushback(value);
    assertThat(hint == Pushback.STOP || hint >= 0).isTrue();
    if (!value.chars().allMatch(c -> c >= '0' && c <= '9') || value.isEmpty()) {
      assertThat(hint).isEqualTo(Pushback.STOP);
    }
  }
}
