package dev.backoff.spring.web;

import dev.backoff.NanoClock;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.TimeoutException;
import org.springframework.web.reactive.function.client.ClientResponse;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A {@code WebClient} response whose body ends at the call's deadline: past it the body's {@code Flux} fails
 * with a {@link TimeoutException} and its subscription to the connection is cancelled (the connection
 * closed), so a trickling or stalled body cannot hold the call, or a retried response's release, past it.
 */
final class DeadlineBody {
  private DeadlineBody() {}

  /** {@code response} with its body bounded by {@code deadline} (nanoseconds on {@code clock}). */
  static ClientResponse bound(ClientResponse response, NanoClock clock, long deadline, Duration maxElapsed) {
    return response.mutate()
        .body(body -> body.timeout(timeLeft(clock, deadline), buffer -> timeLeft(clock, deadline),
            Flux.error(() -> new TimeoutException("the call's deadline (maxElapsed "
                + maxElapsed.truncatedTo(ChronoUnit.MILLIS) + ") passed while reading the response's body"))))
        .build();
  }

  /** A signal when the deadline comes: each buffer waits at most the time left until then. */
  private static Mono<Long> timeLeft(NanoClock clock, long deadline) {
    return Mono.delay(Duration.ofNanos(Math.max(0, deadline - clock.nanoTime())));
  }
}
