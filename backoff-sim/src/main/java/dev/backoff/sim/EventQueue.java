package dev.backoff.sim;

import java.util.Arrays;

/**
 * The simulator's agenda: events ordered by virtual time, ties broken by the order in which they were
 * scheduled (a sequence number), so that a run is fully deterministic. (time, sequence) pairs are unique, so
 * any correct priority queue pops them in one and the same order; the layout below only decides how fast.
 *
 * <p>The heap is 4-ary, and each entry is three {@code long}s side by side in one array (time, sequence with
 * the event's kind in its low 8 bits, datum) plus the target in a parallel array: the four children of a node
 * lie in two adjacent cache lines, and popping reads the event from the root. With 100 000 clients and more
 * the heap holds one pending event per client and outgrows the cache; the binary heap it replaces kept five
 * parallel arrays, so each of its deep levels cost a cache miss per array, over twice as many levels.
 *
 * <p>Events scheduled a fixed delay ahead (client timeouts, error deliveries, polling ticks) arrive in time
 * order, so they go to a FIFO lane instead of the heap: O(1) each, and the heap stays small (most timeouts
 * are stale by the time they fire). Retries usually do too when the backoff is constant (in a storm of
 * fixed-delay clients every retry is one delay after a timeout): they go to a lane of their own whenever
 * that keeps it in order, and to the heap otherwise. The lanes and the heap share one sequence counter and
 * {@link #poll()} takes the earliest head by (time, sequence), so the order is exactly what a single heap
 * would give.
 * Not thread-safe.
 */
final class EventQueue {
  private static final int ARITY = 4;
  private static final int KIND_BITS = 8;
  private static final int KIND_MASK = (1 << KIND_BITS) - 1;
  // Heap entry i: entries[3i] = time, entries[3i + 1] = sequence << 8 | kind, entries[3i + 2] = datum;
  // targets[i] = target. Sequences are unique, so comparing the middle long compares the sequences.
  private long[] entries = new long[3 * 1024];
  private Object[] targets = new Object[1024];
  private int size;
  private long nextSequence;

  /** Lanes for events scheduled a fixed delay ahead: each lane's events arrive in time order. */
  static final int TIMEOUT_LANE = 0;
  static final int ERROR_LANE = 1;
  static final int TICK_LANE = 2;
  /**
   * A lane for events that usually, but not always, arrive in time order (retries after a constant
   * backoff): {@link #scheduleUsuallyInOrder} puts one here when that keeps the lane in order, else in the heap.
   */
  static final int RETRY_LANE = 3;
  private final Lane[] lanes = {new Lane(), new Lane(), new Lane(), new Lane()};

  /**
   * A ring buffer of events in non-decreasing time order, each event's time, sequence with kind and datum
   * side by side in one {@code long[]} (as in the heap) and its target in a parallel array: adding or taking
   * an event touches two cache lines, not one per field.
   */
  private static final class Lane {
    long[] entries = new long[3 * 256];
    Object[] targets = new Object[256];
    int head;
    int size;
    long lastTime = Long.MIN_VALUE;

    /** Whether an event at {@code at} may be added without breaking the lane's order. */
    boolean accepts(long at) {
      return size == 0 || at >= lastTime;
    }

    void add(long at, long key, Object target, long datum) {
      if (size != 0 && at < lastTime) {
        throw new IllegalStateException("event out of order in its lane: " + at + " after " + lastTime);
      }
      lastTime = at;
      if (size == targets.length) {
        grow();
      }
      int index = (head + size) & (targets.length - 1);
      long[] e = entries;
      e[3 * index] = at;
      e[3 * index + 1] = key;
      e[3 * index + 2] = datum;
      targets[index] = target;
      size++;
    }

    long headTime() {
      return entries[3 * head];
    }

    long headKey() {
      return entries[3 * head + 1];
    }

    private void grow() {
      int capacity = targets.length;
      int mask = capacity - 1;
      long[] newEntries = new long[6 * capacity];
      Object[] newTargets = new Object[2 * capacity];
      for (int i = 0; i < size; i++) {
        int from = (head + i) & mask;
        System.arraycopy(entries, 3 * from, newEntries, 3 * i, 3);
        newTargets[i] = targets[from];
      }
      entries = newEntries;
      targets = newTargets;
      head = 0;
    }
  }

  private int lastLane = -1; // the lane of the event last removed, -1 for the heap

  // The event last removed by poll().
  long time;
  int kind;
  Object target;
  long datum;

  /**
   * Schedules an event.
   *
   * @throws IllegalArgumentException if {@code eventKind} is not in 0..255
   */
  void schedule(long at, int eventKind, Object eventTarget, long eventDatum) {
    long key = nextKey(eventKind);
    if (size == targets.length) {
      targets = Arrays.copyOf(targets, size * 2);
      entries = Arrays.copyOf(entries, size * 6);
    }
    long[] e = entries;
    Object[] t = targets;
    int i = size++;
    // Sift up: a new event has the largest sequence so far, so it stops below any parent at its time.
    while (i > 0) {
      int parent = (i - 1) / ARITY;
      if (e[3 * parent] <= at) {
        break;
      }
      e[3 * i] = e[3 * parent];
      e[3 * i + 1] = e[3 * parent + 1];
      e[3 * i + 2] = e[3 * parent + 2];
      t[i] = t[parent];
      i = parent;
    }
    e[3 * i] = at;
    e[3 * i + 1] = key;
    e[3 * i + 2] = eventDatum;
    t[i] = eventTarget;
  }

  /**
   * Schedules an event in a lane: no earlier than any event still in that lane (a fixed delay from a
   * non-decreasing now).
   *
   * @throws IllegalStateException if the event would be out of order in its lane
   * @throws IllegalArgumentException if {@code eventKind} is not in 0..255
   */
  void scheduleInOrder(int lane, long at, int eventKind, Object eventTarget, long eventDatum) {
    lanes[lane].add(at, nextKey(eventKind), eventTarget, eventDatum);
  }

  /**
   * The target of the event {@code ahead} places after the head of a lane (0: the head), or null if the lane
   * holds fewer events.
   */
  Object laneTargetAhead(int lane, int ahead) {
    Lane l = lanes[lane];
    return ahead < l.size ? l.targets[(l.head + ahead) & (l.targets.length - 1)] : null;
  }

  /** {@link #laneTargetAhead} in the retry lane, if the last event taken came from it; else null. */
  Object targetAheadInRetryLane(int ahead) {
    return lastLane == RETRY_LANE ? laneTargetAhead(RETRY_LANE, ahead) : null;
  }

  /** The next sequence number with the kind in its low 8 bits. */
  private long nextKey(int eventKind) {
    if ((eventKind & ~KIND_MASK) != 0) {
      throw new IllegalArgumentException("event kind must be in 0..255, was " + eventKind);
    }
    return nextSequence++ << KIND_BITS | eventKind;
  }

  /**
   * Schedules an event in a lane if it is no earlier than the events still there, else in the heap: for
   * events that mostly come in time order (retries after a constant backoff), which then cost O(1) instead
   * of a heap's O(log n). The order events come out in is the same either way.
   *
   * @throws IllegalArgumentException if {@code eventKind} is not in 0..255
   */
  void scheduleUsuallyInOrder(int lane, long at, int eventKind, Object eventTarget, long eventDatum) {
    Lane l = lanes[lane];
    if (l.accepts(at)) {
      l.add(at, nextKey(eventKind), eventTarget, eventDatum);
    } else {
      schedule(at, eventKind, eventTarget, eventDatum);
    }
  }

  boolean isEmpty() {
    if (size != 0) {
      return false;
    }
    for (Lane lane : lanes) {
      if (lane.size != 0) {
        return false;
      }
    }
    return true;
  }

  int size() {
    int total = size;
    for (Lane lane : lanes) {
      total += lane.size;
    }
    return total;
  }

  /** The lane whose head comes first, or -1 if the heap's does (or everything is empty). */
  private int firstLane() {
    int best = -1;
    long bestTime = size == 0 ? Long.MAX_VALUE : entries[0];
    // Keys are sequence << 8 | kind and sequences are unique, so comparing keys compares sequences.
    long bestKey = size == 0 ? Long.MAX_VALUE : entries[1];
    Lane[] all = lanes;
    for (int i = 0; i < all.length; i++) {
      Lane lane = all[i];
      if (lane.size != 0) {
        long t = lane.headTime();
        if (t < bestTime || (t == bestTime && lane.headKey() < bestKey)) {
          best = i;
          bestTime = t;
          bestKey = lane.headKey();
        }
      }
    }
    return best;
  }

  /** The time of the next event; undefined when empty. */
  long peekTime() {
    int lane = firstLane();
    return lane < 0 ? entries[0] : lanes[lane].headTime();
  }

  /** Removes the next event into {@link #time}, {@link #kind}, {@link #target}, {@link #datum}. */
  void poll() {
    take(firstLane());
  }

  /**
   * Removes the next event if there is one before {@code limit}.
   *
   * @return false (removing nothing) if the queue is empty or the next event is at or after {@code limit}
   */
  boolean pollBefore(long limit) {
    int index = firstLane();
    if (index < 0) {
      if (size == 0 || entries[0] >= limit) {
        return false;
      }
    } else if (lanes[index].headTime() >= limit) {
      return false;
    }
    take(index);
    return true;
  }

  private void take(int index) {
    lastLane = index;
    if (index >= 0) {
      Lane lane = lanes[index];
      int head = lane.head;
      long[] e = lane.entries;
      time = e[3 * head];
      kind = (int) (e[3 * head + 1] & KIND_MASK);
      datum = e[3 * head + 2];
      target = lane.targets[head];
      lane.targets[head] = null;
      lane.head = (head + 1) & (lane.targets.length - 1);
      lane.size--;
      return;
    }
    pollHeap();
  }

  private void pollHeap() {
    long[] e = entries;
    Object[] t = targets;
    time = e[0];
    kind = (int) (e[1] & KIND_MASK);
    datum = e[2];
    target = t[0];
    int last = --size;
    Object lastTarget = t[last];
    t[last] = null;
    if (last == 0) {
      return;
    }
    // Sift the last entry down from the root, over the entries 0 .. last - 1.
    long lastTime = e[3 * last];
    long lastKey = e[3 * last + 1];
    long lastDatum = e[3 * last + 2];
    int i = 0;
    while (true) {
      int first = ARITY * i + 1;
      if (first >= last) {
        break;
      }
      int end = Math.min(first + ARITY, last);
      int child = first;
      long childTime = e[3 * first];
      long childKey = e[3 * first + 1];
      for (int c = first + 1; c < end; c++) {
        long candidate = e[3 * c];
        if (candidate < childTime || (candidate == childTime && e[3 * c + 1] < childKey)) {
          child = c;
          childTime = candidate;
          childKey = e[3 * c + 1];
        }
      }
      if (lastTime < childTime || (lastTime == childTime && lastKey < childKey)) {
        break;
      }
      e[3 * i] = childTime;
      e[3 * i + 1] = childKey;
      e[3 * i + 2] = e[3 * child + 2];
      t[i] = t[child];
      i = child;
    }
    e[3 * i] = lastTime;
    e[3 * i + 1] = lastKey;
    e[3 * i + 2] = lastDatum;
    t[i] = lastTarget;
  }
}
