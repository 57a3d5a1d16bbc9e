package dev.backoff.conformance;

import dev.backoff.reactor.BackoffOperators;
import dev.backoff.reactor.ReactorRetryScheduler;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * The Reactor driver ({@code mono.transform(BackoffOperators.retry(policy))}) on a virtual-time scheduler,
 * whose time is also the policy's clock; the caller disposes its subscription.
 */
final class ReactorRunner implements DriverRunner {
  @Override
  public String name() {
    return "reactor";
  }

  @Override
  public Map<Mechanism, String> notOffered() {
    return Map.of(Mechanism.RECOVERY, DriverRunner.NO_RECOVERY_REACTOR);
  }

  @Override
  public Outcome run(Trial trial) {
    VirtualTimeScheduler time = VirtualTimeScheduler.create();
    Mono<String> source = Mono.defer(() -> {
      try {
        return Mono.just(trial.attempt());
      } catch (Trial.Hang hang) {
        return Mono.<String>never().doOnCancel(trial::attemptCancelled);
      } catch (Exception failure) {
        return Mono.error(failure);
      }
    });
    Mono<String> retried = source.transform(BackoffOperators.<String>retry(trial.policy(ReactorRetryScheduler.clock(time)))
        .withScheduler(time));
    AtomicReference<String> result = new AtomicReference<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Disposable subscription = retried.subscribe(result::set, failure::set);
    if (trial.cancelAfter() != null) {
      time.advanceTimeBy(trial.cancelAfter());
      subscription.dispose();
    }
    time.advanceTimeBy(Duration.ofHours(1));
    time.dispose();
    return new Outcome(result.get(), failure.get());
  }
}
