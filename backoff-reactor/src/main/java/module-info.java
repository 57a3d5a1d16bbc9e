/**
 * Project Reactor driver: retries a {@code Mono} or {@code Flux} under a Backoff policy on the core's
 * asynchronous loop, waiting on a Reactor {@code Scheduler}.
 */
// Its API takes Reactor's types, so readers of this module must read Reactor (which has its own descriptor)
// and Reactive Streams ("org.reactivestreams", that jar's Automatic-Module-Name).
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.backoff.reactor {
  exports dev.backoff.reactor;

  requires transitive dev.backoff.core;
  requires transitive reactor.core;
  requires transitive org.reactivestreams;
}
