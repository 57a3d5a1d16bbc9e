package dev.backoff.lab;

import dev.backoff.sim.KneeLatency;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleSupplier;

/**
 * The lab server's logic without sockets, driven by explicit clock readings so that tests run it on a fake
 * clock. The retry-storm experiment's server re-checks each request every 50 ms: a request that started at {@code s} looks at
 * {@code s + 50 ms, s + 100 ms, ...} and answers at the first look where its elapsed time has reached
 * {@code D(current concurrency)}. Here one ticker does the looking for every request: time is cut into
 * slots (5 ms), a request's checks fall in every 10th slot after the one it started in, and at each tick
 * the slots that have ended since the previous tick are checked in order, each against the concurrency of
 * that moment. That is the original's rule at 5 ms resolution (an answer is at most one slot late, never
 * early), without a timer per request.
 *
 * <p>Requests whose checks share a slot phase are kept in start order in one of 10 queues; they compare
 * their elapsed time with the same D, so the ones that finish are always a prefix of their queue, and a
 * slot costs O(1 + answered). D is recomputed after each answer: finishing requests lower the concurrency
 * for the ones after them, as in the original where each request's goroutine reads the live counter.
 *
 * <p>Pause is SIGSTOP seen from outside: nothing is answered, clocks keep running, new requests wait in an
 * accept backlog (the oldest {@code backlog} ones; later ones are dropped at resume, their connections closed
 * without an answer, like connections the kernel had no room for). At resume every request in service checks
 * once at once (its sleep has long expired), then every 50 ms from then on, and the backlog starts at once.
 * Nothing ever cancels a request whose client gave up: abandoned requests keep counting.
 *
 * <p>At most {@code maxConnections} requests are held (in service or waiting); beyond that a new request is
 * refused at once, unless room can be made: while paused the oldest one beyond the backlog is dropped, and
 * otherwise the request abandoned first (its client gone, its connection already closed) is forgotten. So
 * memory and file descriptors stay bounded during a storm, and requests nobody waits for cannot keep the
 * server refusing everyone forever.
 *
 * <p>With a service-time draw ({@code serviceFactor}), each request gets its own factor when it arrives and
 * answers at the first check where its elapsed time has reached {@code factor × D(c)}: with exponential
 * factors of mean 1, a server at low load has exponential service times of mean {@code base}, a slow tail
 * that hedging can cut. The finishing requests are then no longer a prefix of their queue, so each check
 * looks at every request of its queue: O(requests in the queue) per slot, each request looked at once per
 * 50 ms.
 *
 * <p>Not thread-safe: the caller serializes every call.
 *
 * @param <T> the caller's handle for a request (an HTTP exchange)
 */
final class ServerCore<T> {
  private static final class Entry<T> {
    final T request;
    long startSlot;
    boolean inService;
    boolean abandoned; // its client has gone: the work goes on, nobody waits for the answer
    boolean gone; // answered, dropped or forgotten while still in a queue (removed lazily)
    double factor = 1; // its service time is factor × D

    Entry(T request) {
      this.request = request;
    }
  }

  /** After a longer stall only the latest slots are checked: every request has a check among them anyway. */
  private static final long MAX_SLOTS_PER_TICK = 1 << 16;

  private final KneeLatency latency;
  private final DoubleSupplier serviceFactor; // null: every request takes D
  private final long slotNanos;
  private final int slotsPerCheck;
  private final int backlog;
  private final int maxConnections;
  private final ArrayDeque<Entry<T>>[] byPhase;
  private final ArrayDeque<Entry<T>> waiting = new ArrayDeque<>();
  private final ArrayDeque<Entry<T>> overflow = new ArrayDeque<>();
  private final Map<T, Entry<T>> held = new HashMap<>();
  /** Abandoned requests in service, oldest abandonment first (answered ones removed lazily). */
  private final ArrayDeque<Entry<T>> abandonedInService = new ArrayDeque<>();
  private int goneInQueues;
  private int abandoned;
  private int concurrency;
  private boolean hasOrigin;
  private long originNanos;
  private long lastSlot = Long.MIN_VALUE; // the last slot whose checks were done
  private boolean paused;
  private long lastDelayNanos;
  private int peakConcurrency;
  private int peakSinceMark;
  private long received;
  private long hungUp;
  private long answered;
  private long dropped;
  private long refused;
  private long forgotten;

  ServerCore(KneeLatency latency, long slotNanos, int slotsPerCheck, int backlog, int maxConnections) {
    this(latency, slotNanos, slotsPerCheck, backlog, maxConnections, null);
  }

  /**
   * A core whose requests each take {@code factor × D(c)}, with a factor drawn from {@code serviceFactor}
   * when the request arrives (null: 1 for every request).
   */
  @SuppressWarnings({"unchecked", "rawtypes"}) // an array of generic queues
  ServerCore(KneeLatency latency, long slotNanos, int slotsPerCheck, int backlog, int maxConnections,
      DoubleSupplier serviceFactor) {
    if (slotNanos <= 0) {
      throw new IllegalArgumentException("slot must be positive, was " + slotNanos + "ns");
    }
    if (slotsPerCheck < 1) {
      throw new IllegalArgumentException("slotsPerCheck must be at least 1, was " + slotsPerCheck);
    }
    if (backlog < 1) {
      throw new IllegalArgumentException("backlog must be at least 1, was " + backlog);
    }
    if (maxConnections < 1) {
      throw new IllegalArgumentException("maxConnections must be at least 1, was " + maxConnections);
    }
    this.latency = latency;
    this.serviceFactor = serviceFactor;
    this.slotNanos = slotNanos;
    this.slotsPerCheck = slotsPerCheck;
    this.backlog = backlog;
    this.maxConnections = maxConnections;
    this.byPhase = new ArrayDeque[slotsPerCheck];
    for (int i = 0; i < slotsPerCheck; i++) {
      byPhase[i] = new ArrayDeque<>();
    }
  }

  /**
   * A request arrived. Returns true if it is held (in service or waiting); false if the server holds
   * {@code maxConnections} requests and the caller must refuse this one now. A full server makes room
   * instead, if it can: while paused by closing the oldest request beyond the backlog (into
   * {@code evictedOut}; its client has most likely given up, while the newcomer's is waiting), and otherwise
   * by forgetting the request in service that was abandoned first (its client is gone and its connection
   * closed; nobody can tell it stopped counting). Handles must be distinct while held.
   */
  boolean arrive(T request, long nowNanos, List<T> evictedOut) {
    received++;
    if (held() >= maxConnections) {
      if (paused && !overflow.isEmpty()) {
        Entry<T> evicted = overflow.removeFirst();
        leave(evicted);
        evictedOut.add(evicted.request);
        dropped++;
      } else if (!forgetOldestAbandoned()) {
        refused++;
        return false;
      }
    }
    Entry<T> entry = new Entry<>(request);
    if (serviceFactor != null) {
      double factor = serviceFactor.getAsDouble();
      if (!(factor >= 0) || Double.isInfinite(factor)) {
        throw new IllegalStateException("service factor must be finite and not negative, was " + factor);
      }
      entry.factor = factor;
    }
    held.put(request, entry);
    if (!paused) {
      long slot = slotOf(nowNanos);
      if (lastSlot == Long.MIN_VALUE) {
        lastSlot = slot - 1;
      }
      start(entry, slot, phaseOf(slot));
    } else if (waiting.size() < backlog) {
      waiting.addLast(entry);
    } else {
      overflow.addLast(entry);
    }
    return true;
  }

  /**
   * The request's client has gone (its connection is closed). The request keeps its place and keeps
   * counting until the model answers it, as in the original, where nothing cancels abandoned work; only
   * a full server forgets it (see {@link #arrive}). Unknown or already answered requests are ignored.
   */
  void abandon(T request) {
    Entry<T> entry = held.get(request);
    if (entry == null || entry.abandoned) {
      return;
    }
    entry.abandoned = true;
    abandoned++;
    hungUp++;
    if (entry.inService) {
      trackAbandoned(entry);
    }
  }

  private void trackAbandoned(Entry<T> entry) {
    if (abandonedInService.size() > 64 + 2 * abandoned) {
      abandonedInService.removeIf(old -> old.gone); // answered since: keeps this queue bounded
    }
    abandonedInService.addLast(entry);
  }

  private boolean forgetOldestAbandoned() {
    while (!abandonedInService.isEmpty()) {
      Entry<T> oldest = abandonedInService.removeFirst();
      if (!oldest.gone) {
        oldest.gone = true; // stays in its phase queue until a check or a compaction removes it
        goneInQueues++;
        concurrency--;
        leave(oldest);
        forgotten++;
        compactIfMostlyGone();
        return true;
      }
    }
    return false;
  }

  /** Keeps forgotten entries from piling up in the queues of requests that may never be answered. */
  private void compactIfMostlyGone() {
    if (goneInQueues > 64 && goneInQueues > concurrency) {
      for (ArrayDeque<Entry<T>> queue : byPhase) {
        queue.removeIf(entry -> entry.gone);
      }
      goneInQueues = 0;
    }
  }

  /** Bookkeeping for an entry that is no longer held. */
  private void leave(Entry<T> entry) {
    held.remove(entry.request);
    if (entry.abandoned) {
      abandoned--;
    }
  }

  /** Slots are counted from the first reading seen, so readings may wrap like {@link System#nanoTime()}. */
  private long slotOf(long nowNanos) {
    if (!hasOrigin) {
      hasOrigin = true;
      originNanos = nowNanos;
    }
    return Math.floorDiv(nowNanos - originNanos, slotNanos);
  }

  private int phaseOf(long slot) {
    return (int) Math.floorMod(slot, (long) slotsPerCheck);
  }

  private void start(Entry<T> entry, long startSlot, int phase) {
    entry.startSlot = startSlot;
    entry.inService = true;
    byPhase[phase].addLast(entry);
    if (entry.abandoned) {
      trackAbandoned(entry);
    }
    concurrency++;
    peakConcurrency = Math.max(peakConcurrency, concurrency);
    peakSinceMark = Math.max(peakSinceMark, concurrency);
  }

  /** Does the checks of every slot that ended since the previous tick; answered requests go to {@code out}. */
  void tick(long nowNanos, List<T> out) {
    long current = slotOf(nowNanos);
    if (paused || lastSlot == Long.MIN_VALUE) {
      lastSlot = current - 1;
      return;
    }
    long first = lastSlot + 1;
    if (current - first > MAX_SLOTS_PER_TICK) {
      first = current - MAX_SLOTS_PER_TICK;
    }
    for (long slot = first; slot < current; slot++) {
      check(byPhase[phaseOf(slot)], slot, out);
    }
    lastSlot = current - 1;
  }

  /** The checks falling in {@code slot}: the queue's oldest requests whose elapsed time reached D. */
  private void check(ArrayDeque<Entry<T>> queue, long slot, List<T> out) {
    if (serviceFactor != null) {
      checkEach(queue, slot, out);
      return;
    }
    while (!queue.isEmpty()) {
      Entry<T> oldest = queue.peekFirst();
      if (oldest.gone) {
        queue.removeFirst();
        goneInQueues--;
        continue;
      }
      long slots = slot - oldest.startSlot;
      if (slots <= 0) {
        return;
      }
      long delay = latency.delayNanos(concurrency);
      lastDelayNanos = delay;
      if (slots < Long.MAX_VALUE / slotNanos && slots * slotNanos < delay) {
        return;
      }
      queue.removeFirst();
      oldest.gone = true; // for the lazy removal from abandonedInService
      concurrency--;
      answered++;
      leave(oldest);
      out.add(oldest.request);
    }
  }

  /**
   * The checks falling in {@code slot} with a service-time draw: every request of the queue whose elapsed
   * time reached its own {@code factor × D}, in start order (later ones have not been in service longer).
   */
  private void checkEach(ArrayDeque<Entry<T>> queue, long slot, List<T> out) {
    Iterator<Entry<T>> entries = queue.iterator();
    while (entries.hasNext()) {
      Entry<T> entry = entries.next();
      if (entry.gone) {
        entries.remove();
        goneInQueues--;
        continue;
      }
      long slots = slot - entry.startSlot;
      if (slots <= 0) {
        return; // this one and every later one started in this slot or after
      }
      long delay = latency.delayNanos(concurrency);
      lastDelayNanos = delay;
      double own = delay * entry.factor;
      if (slots < Long.MAX_VALUE / slotNanos && slots * slotNanos < own) {
        continue;
      }
      entries.remove();
      entry.gone = true; // for the lazy removal from abandonedInService
      concurrency--;
      answered++;
      leave(entry);
      out.add(entry.request);
    }
  }

  /** Stops answering and starts queueing new requests. */
  void pause() {
    paused = true;
  }

  /**
   * Resumes: every request in service checks once now (answered ones go to {@code answeredOut}) and from
   * then on every 50 ms from now; the waiting requests start now, at once; those beyond the backlog go to
   * {@code droppedOut} for the caller to close without an answer.
   */
  void resume(long nowNanos, List<T> answeredOut, List<T> droppedOut) {
    if (!paused) {
      return;
    }
    paused = false;
    long now = slotOf(nowNanos);
    List<Entry<T>> all = new ArrayList<>(concurrency);
    for (ArrayDeque<Entry<T>> queue : byPhase) {
      for (Entry<T> entry : queue) {
        if (!entry.gone) {
          all.add(entry);
        }
      }
      queue.clear();
    }
    goneInQueues = 0;
    all.sort(Comparator.comparingLong(entry -> entry.startSlot - now)); // oldest first, wrap-safe
    ArrayDeque<Entry<T>> resumed = byPhase[phaseOf(now)];
    resumed.addAll(all);
    check(resumed, now, answeredOut);
    while (!waiting.isEmpty()) {
      start(waiting.removeFirst(), now, phaseOf(now));
    }
    while (!overflow.isEmpty()) {
      Entry<T> entry = overflow.removeFirst();
      leave(entry);
      droppedOut.add(entry.request);
      dropped++;
    }
    lastSlot = now;
  }

  /** Removes and returns every held request (for shutdown). */
  void drainAll(List<T> out) {
    for (ArrayDeque<Entry<T>> queue : byPhase) {
      for (Entry<T> entry : queue) {
        if (!entry.gone) {
          out.add(entry.request);
        }
      }
      queue.clear();
    }
    for (Entry<T> entry : waiting) {
      out.add(entry.request);
    }
    waiting.clear();
    for (Entry<T> entry : overflow) {
      out.add(entry.request);
    }
    overflow.clear();
    concurrency = 0;
    goneInQueues = 0;
    abandoned = 0;
    abandonedInService.clear();
    held.clear();
  }

  /**
   * Forgets every held request, abandoned or not (into {@code out}, for the caller to close without an
   * answer): the way out of a storm the model would never end. The pause state and the counters stay.
   */
  void reset(List<T> out) {
    int before = out.size();
    drainAll(out);
    forgotten += out.size() - before;
  }

  /** Entries in the check queues, forgotten ones not yet removed included (for tests of the bound). */
  int entriesInQueues() {
    int entries = 0;
    for (ArrayDeque<Entry<T>> queue : byPhase) {
      entries += queue.size();
    }
    return entries;
  }

  int held() {
    return concurrency + waiting.size() + overflow.size();
  }

  int concurrency() {
    return concurrency;
  }

  int waiting() {
    return waiting.size() + overflow.size();
  }

  boolean paused() {
    return paused;
  }

  long lastDelayNanos() {
    return lastDelayNanos;
  }

  int peakConcurrency() {
    return peakConcurrency;
  }

  /** The peak concurrency since the previous call, which starts a new window at the current concurrency. */
  int takePeakSinceMark() {
    int peak = peakSinceMark;
    peakSinceMark = concurrency;
    return peak;
  }

  /** Requests that reached the server (through {@link #arrive}): held, refused, or since answered or let go. */
  long received() {
    return received;
  }

  /** Requests whose client hung up while they were held (before their answer), since the start. */
  long hungUp() {
    return hungUp;
  }

  long answered() {
    return answered;
  }

  long dropped() {
    return dropped;
  }

  long refused() {
    return refused;
  }

  /** Held requests whose client has gone (in service or waiting). */
  int abandoned() {
    return abandoned;
  }

  /** Requests forgotten: abandoned ones that made room for a newcomer, and every one held at a reset. */
  long forgotten() {
    return forgotten;
  }

  KneeLatency latency() {
    return latency;
  }
}
