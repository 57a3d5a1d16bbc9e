package dev.backoff.grpc;

import dev.backoff.FailureClass;
import dev.backoff.Pushback;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import java.util.EnumSet;
import java.util.Set;

/** How gRPC outcomes are read: status codes as failure classes, and the server's pushback trailer. */
final class GrpcStatusRules {
  private GrpcStatusRules() {}

  /** The codes retried unless configured otherwise: the server is unavailable or asks to slow down. */
  static final Set<Status.Code> DEFAULT_RETRYABLE =
      java.util.Collections.unmodifiableSet(EnumSet.of(Status.Code.UNAVAILABLE, Status.Code.RESOURCE_EXHAUSTED));

  /** The trailer in which a server tells the client how long to wait before retrying (gRFC A6). */
  static final Metadata.Key<String> PUSHBACK = Metadata.Key.of("grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER);

  /** The header that tells the server how many attempts came before this one, as gRPC's own retry sends. */
  static final Metadata.Key<String> PREVIOUS_ATTEMPTS =
      Metadata.Key.of("grpc-previous-rpc-attempts", Metadata.ASCII_STRING_MARSHALLER);

  private static final long NANOS_PER_MILLI = 1_000_000;

  /** RESOURCE_EXHAUSTED is throttled, DEADLINE_EXCEEDED a timeout, everything else transient. */
  static FailureClass classify(Status.Code code) {
    return switch (code) {
      case RESOURCE_EXHAUSTED -> FailureClass.THROTTLED;
      case DEADLINE_EXCEEDED -> FailureClass.TIMEOUT;
      default -> FailureClass.TRANSIENT;
    };
  }

  /** The status a failure carries, or null if it is not a gRPC status exception. */
  static Status statusOf(Throwable failure) {
    if (failure instanceof StatusRuntimeException e) {
      return e.getStatus();
    }
    if (failure instanceof StatusException e) {
      return e.getStatus();
    }
    return null;
  }

  /** The trailers a failure carries, or null. */
  static Metadata trailersOf(Throwable failure) {
    if (failure instanceof StatusRuntimeException e) {
      return e.getTrailers();
    }
    if (failure instanceof StatusException e) {
      return e.getTrailers();
    }
    return null;
  }

  /**
   * The pushback hint in {@code trailers}: {@link Pushback#NONE} without the trailer, the delay for a
   * non-negative whole number of milliseconds (a number too large for nanoseconds saturates, and is then
   * longer than any policy's maximum pushback), and {@link Pushback#STOP} for a negative or malformed value,
   * which gRPC specifies as "do not retry".
   */
  static long pushbackNanos(Metadata trailers) {
    String value = trailers == null ? null : trailers.get(PUSHBACK);
    return value == null ? Pushback.NONE : parsePushback(value);
  }

  static long parsePushback(String value) {
    int length = value.length();
    if (length == 0) {
      return Pushback.STOP;
    }
    if (value.charAt(0) == '-') {
      // Negative: do not retry. (Malformed after the sign: do not retry either.)
      return Pushback.STOP;
    }
    long millis = 0;
    for (int i = 0; i < length; i++) {
      char c = value.charAt(i);
      if (c < '0' || c > '9') {
        return Pushback.STOP;
      }
      if (millis > (Long.MAX_VALUE - 9) / 10) {
        millis = Long.MAX_VALUE; // keep checking the remaining characters are digits
      } else {
        millis = millis * 10 + (c - '0');
      }
    }
    return millis > Long.MAX_VALUE / NANOS_PER_MILLI ? Long.MAX_VALUE : millis * NANOS_PER_MILLI;
  }
}
