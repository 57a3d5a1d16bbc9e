package dev.backoff.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * The retry-storm experiment's server and its linear variant: every request in service takes {@code D(c)}, a function of the
 * current concurrency {@code c}, and completes once its elapsed time reaches {@code D(c)} for the
 * concurrency of that moment (nothing caps admission: the knee is only where latency starts to grow).
 *
 * <h2>Exact mode (recheck 0, the default)</h2>
 * All requests in service share the threshold {@code D(c)}, so the one that started first always completes
 * first. They are kept in start order and only one completion event is pending: at {@code oldest.start +
 * D(c)}. When {@code c} grows, {@code D} grows and that event is simply early; on firing it re-reads
 * {@code D} and re-schedules itself (lazy rescheduling, no event per arrival). When a completion makes
 * {@code c} drop, the next oldest may already be due and completes at the same instant. This gives the
 * exact completion times of the continuous model at one event per completion, instead of re-evaluating
 * every request every 50 ms.
 *
 * <h2>Polling mode (recheck 50ms)</h2>
 * Faithful to the original Go handler: each request re-evaluates {@code D(c)} every {@code recheck} after
 * it started and completes at the first check where its elapsed time is at least {@code D(c)} (the Go
 * timers always fire a little late, so its strict {@code >} behaves as {@code >=} on exact ticks). It costs
 * one event per request per interval; use it to check that the quantization does not change a result.
 *
 * <p>Mutable, owned by a single-threaded run.
 */
final class CurveServer extends Server {
  static final int COMPLETION = 100;
  static final int TICK = 101;

  private final boolean knee;
  private final long baseNanos;
  private final KneeLatency kneeLatency;
  private final long perRequestNanos;
  private final long recheckNanos;

  private final ServiceRing inService = new ServiceRing();
  private final Attempt abandoned = Attempt.abandoned(); // stands for the requests whose attempt was dropped
  private int polledCount;
  // Polling mode: the requests in service, so that a crash can fail them, in the order they entered (attempts
  // have no equals, so this is an identity set; an identity hash order would differ from run to run).
  private final java.util.Set<Attempt> polled = new java.util.LinkedHashSet<>();
  private long scheduledAt = Long.MIN_VALUE; // the pending completion event's time, MIN_VALUE if none
  private final List<Attempt> deferredTicks = new ArrayList<>();
  private long[] latencyTable = new long[0]; // D(c) by c, for the current capacity and added latency
  private static final long SATURATED = 1L << 62; // about 146 years: D(c) never grows past it
  private int saturatedFrom = Integer.MAX_VALUE; // the smallest c seen with D(c) saturated

  CurveServer(Simulation simulation, Scenario s) {
    super(simulation, s.backlog);
    this.knee = s.serverModel == Scenario.ServerModel.KNEE;
    this.baseNanos = s.baseLatencyNanos;
    this.kneeLatency = new KneeLatency(s.baseLatencyNanos, s.kneeLimit, s.kneeFactor, s.kneeK);
    this.perRequestNanos = s.latencyPerRequestNanos;
    this.recheckNanos = s.recheckNanos;
  }

  /** The latency curve {@code D(c)} under the current capacity and added latency. */
  long latencyAt(int c) {
    if (c < latencyTable.length) {
      return latencyTable[c];
    }
    if (c >= saturatedFrom) {
      return SATURATED; // D is non-decreasing in c
    }
    if (c < 1 << 20) {
      int size = Math.max(64, Math.max(c + 1, latencyTable.length * 2));
      long[] table = java.util.Arrays.copyOf(latencyTable, size);
      for (int i = latencyTable.length; i < size; i++) {
        table[i] = computeLatency(i);
      }
      latencyTable = table;
      return table[c];
    }
    long latency = computeLatency(c);
    if (latency == SATURATED) {
      saturatedFrom = Math.min(saturatedFrom, c);
    }
    return latency;
  }

  private long computeLatency(int c) {
    // Reduced capacity: at concurrency c the server behaves as the full one at c / capacity.
    double effective = c / capacity;
    double latency;
    if (knee) {
      latency = kneeLatency.latencyNanos(effective);
    } else {
      latency = baseNanos + perRequestNanos * effective;
    }
    double total = latency + addedLatencyNanos;
    return total >= 0x1p62 ? SATURATED : (long) total;
  }

  @Override
  int concurrency() {
    return recheckNanos == 0 ? (int) inService.size() : polledCount;
  }

  @Override
  long latencyNanos() {
    return latencyAt(concurrency());
  }

  @Override
  void accept(Attempt attempt, long now) {
    attempt.serviceStartNanos = now;
    if (recheckNanos == 0) {
      attempt.ticket = inService.add(now, attempt);
      int c = (int) inService.size();
      simulation.metrics.concurrency(c);
      if (scheduledAt == Long.MIN_VALUE && !paused) {
        schedule(Math.max(now, now + latencyAt(c)));
      }
      // Otherwise the pending event is for an older request and, c having grown, early: it re-schedules.
    } else {
      polledCount++;
      polled.add(attempt);
      simulation.metrics.concurrency(polledCount);
      simulation.scheduleTick(now + recheckNanos, attempt, attempt.epoch);
    }
  }

  private void schedule(long at) {
    scheduledAt = at;
    simulation.schedule(at, COMPLETION, this, at);
  }

  @Override
  void onEvent(int kind, Object target, long datum, long now) {
    if (kind == COMPLETION) {
      if (datum != scheduledAt || paused) {
        return; // superseded, or frozen by a pause (resume re-schedules)
      }
      scheduledAt = Long.MIN_VALUE;
      completeDue(now);
    } else {
      Attempt attempt = (Attempt) target;
      if (attempt.epoch != (int) datum || datum != epoch) {
        return; // the server crashed since
      }
      if (paused) {
        deferredTicks.add(attempt); // the stopped process's timers fire when it resumes
        return;
      }
      if (now - attempt.serviceStartNanos >= latencyAt(polledCount)) {
        polledCount--;
        polled.remove(attempt);
        simulation.deliver(attempt, OK, -1, now);
      } else {
        simulation.scheduleTick(now + recheckNanos, attempt, attempt.epoch);
      }
    }
  }

  private void completeDue(long now) {
    ServiceRing ring = inService;
    while (!ring.isEmpty()) {
      long due = ring.firstStart() + latencyAt((int) ring.size());
      if (due > now) {
        schedule(due);
        return;
      }
      Attempt oldest = ring.first();
      ring.removeFirst();
      if (oldest != null) {
        simulation.deliver(oldest, OK, -1, now);
      } // else its client gave up: the answer is lost
    }
  }

  @Override
  void abandon(Attempt attempt) {
    if (recheckNanos == 0 && attempt.ticket >= 0) {
      inService.forget(attempt.ticket);
    }
  }

  @Override
  void onConditionsChanged(long now) {
    latencyTable = new long[0];
    saturatedFrom = Integer.MAX_VALUE;
    if (recheckNanos == 0 && !paused && !crashed) {
      scheduledAt = Long.MIN_VALUE; // D may have dropped: look again now
      completeDue(now);
    }
  }

  @Override
  void onResume(long now) {
    if (recheckNanos == 0) {
      scheduledAt = Long.MIN_VALUE;
      completeDue(now);
    } else {
      for (Attempt attempt : deferredTicks) {
        simulation.schedule(now, TICK, attempt, attempt.epoch);
      }
      deferredTicks.clear();
    }
  }

  @Override
  void clear(long now) {
    // Called by crash(), after the epoch was bumped: pending ticks and completion events become void.
    while (!inService.isEmpty()) {
      Attempt attempt = inService.first();
      inService.removeFirst();
      // An abandoned request's error is still an event (lost on arrival), as it was when it kept its attempt.
      simulation.deliverError(attempt != null ? attempt : abandoned, ERROR, -1, now);
    }
    for (Attempt attempt : polled.toArray(new Attempt[0])) {
      simulation.deliverError(attempt, ERROR, -1, now);
    }
    polled.clear();
    scheduledAt = Long.MIN_VALUE;
    polledCount = 0;
    deferredTicks.clear();
  }
}
