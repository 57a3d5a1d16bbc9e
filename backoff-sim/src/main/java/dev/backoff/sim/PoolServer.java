package dev.backoff.sim;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A fixed pool of workers in front of a bounded FIFO or LIFO queue. A request arriving to a full queue is
 * shed at once with 503 or 429, optionally carrying a Retry-After hint that clients pass to the decision
 * engine as pushback. Capacity faults scale the worker count; latency faults lengthen service. A request
 * whose client gave up is still served when its turn comes. Work in progress when the server is paused
 * finishes at resume; a crash fails the requests being served and queued. Mutable, owned by a single-threaded run.
 */
final class PoolServer extends Server {
  static final int WORKER_DONE = 200;

  private final int workers;
  private final int queueLimit;
  private final boolean lifo;
  private final long serviceNanos;
  private final boolean exponentialService;
  private final long retryAfterNanos;
  private final SplitMix64 random;
  private final ArrayDeque<Attempt> queue = new ArrayDeque<>();
  private final List<Attempt> deferred = new ArrayList<>();
  // The requests being served, so that a crash can fail them, in the order they started (attempts have no
  // equals, so this is an identity set; an identity hash order would differ from run to run).
  private final java.util.Set<Attempt> inService = new java.util.LinkedHashSet<>();
  private int busy;

  PoolServer(Simulation simulation, Scenario s, SplitMix64 random) {
    super(simulation, s.backlog);
    this.workers = s.workers;
    this.queueLimit = s.queueSize;
    this.lifo = s.lifo;
    this.serviceNanos = s.serviceTimeNanos;
    this.exponentialService = s.exponentialService;
    this.retryAfterNanos = s.retryAfterNanos;
    this.random = random;
  }

  private int availableWorkers() {
    return (int) Math.floor(workers * capacity);
  }

  @Override
  int concurrency() {
    return busy + queue.size();
  }

  @Override
  long latencyNanos() {
    long service = serviceNanos + addedLatencyNanos;
    int available = Math.max(1, availableWorkers());
    // FIFO: a new request waits for the whole queue; LIFO: it is served next.
    return lifo ? service : service + service * queue.size() / available;
  }

  @Override
  void accept(Attempt attempt, long now) {
    if (busy < availableWorkers()) {
      start(attempt, now);
    } else if (queue.size() < queueLimit) {
      queue.addLast(attempt);
      simulation.metrics.concurrency(concurrency());
    } else {
      simulation.deliverError(attempt, REJECTED, retryAfterNanos, now);
    }
  }

  private void start(Attempt attempt, long now) {
    busy++;
    inService.add(attempt);
    attempt.serviceStartNanos = now;
    long service = exponentialService ? random.exponentialNanos(serviceNanos) : serviceNanos;
    simulation.metrics.concurrency(concurrency());
    simulation.schedule(now + service + addedLatencyNanos, WORKER_DONE, attempt, attempt.epoch);
  }

  @Override
  void onEvent(int kind, Object target, long datum, long now) {
    Attempt attempt = (Attempt) target;
    if (datum != epoch) {
      return; // the server crashed since
    }
    if (paused) {
      deferred.add(attempt);
      return;
    }
    finish(attempt, now);
  }

  private void finish(Attempt attempt, long now) {
    busy--;
    inService.remove(attempt);
    simulation.deliver(attempt, OK, -1, now);
    startQueued(now);
  }

  private void startQueued(long now) {
    while (busy < availableWorkers() && !queue.isEmpty()) {
      start(lifo ? queue.pollLast() : queue.pollFirst(), now);
    }
  }

  @Override
  void onConditionsChanged(long now) {
    if (!paused && !crashed) {
      startQueued(now);
    }
  }

  @Override
  void onResume(long now) {
    for (Attempt attempt : deferred) {
      finish(attempt, now);
    }
    deferred.clear();
    startQueued(now);
  }

  @Override
  void clear(long now) {
    for (Attempt attempt : inService.toArray(new Attempt[0])) {
      simulation.deliverError(attempt, ERROR, -1, now);
    }
    inService.clear();
    for (Attempt attempt : queue) {
      simulation.deliverError(attempt, ERROR, -1, now);
    }
    queue.clear();
    deferred.clear();
    busy = 0; // their completion events belong to the old epoch
  }
}
