package dev.backoff.conformance;

import dev.backoff.reactor.BackoffOperators;
import dev.backoff.reactor.ReactorRetryScheduler;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * The Reactor driver for a Flux ({@code flux.transform(BackoffOperators.retryFlux(policy))}): each attempt is
 * a one-element Flux; a stream has no single result, so the result-rule rows are skipped.
 */
final class FluxRunner implements DriverRunner {
  @Override
  public String name() {
    return "reactor flux";
  }

  @Override
  public boolean judgesResults() {
    return false;
  }

  @Override
  public Map<Mechanism, String> notOffered() {
    return Map.of(Mechanism.RECOVERY, DriverRunner.NO_RECOVERY_REACTOR);
  }

  @Override
  public Map<Mechanism, String> refusals() {
    return Map.of(Mechanism.HEDGING, "a Flux cannot be hedged");
  }

  @Override
  public Outcome run(Trial trial) {
    VirtualTimeScheduler time = VirtualTimeScheduler.create();
    Flux<String> source = Flux.defer(() -> {
      try {
        return Flux.just(trial.attempt());
      } catch (Trial.Hang hang) {
        return Flux.<String>never().doOnCancel(trial::attemptCancelled);
      } catch (Exception failure) {
        return Flux.error(failure);
      }
    });
    Flux<String> retried = source.transform(BackoffOperators.<String>retryFlux(
        trial.policy(ReactorRetryScheduler.clock(time))).withScheduler(time));
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
