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
 * are stale by the time they fire). Both lanes share one sequence counter and {@link #poll()} takes the
 * earlier head by (time, sequence), so the order is exactly what a single heap would give.
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
  private final Lane[] lanes = {new Lane(), new Lane(), new Lane()};

  /** A ring buffer of events in non-decreasing time order. */
  private static final class Lane {
    long[] times = new long[256];
    long[] sequences = new long[256];
    int[] kinds = new int[256];
    Object[] targets = new Object[256];
    long[] data = new long[256];
    int head;
    int size;
    long lastTime = Long.MIN_VALUE;

    void add(long at, long sequence, int kind, Object target, long datum) {
      if (at < lastTime) {
        throw new IllegalStateException("event out of order in its lane: " + at + " after " + lastTime);
      }
      lastTime = at;
      if (size == times.length) {
        grow();
      }
      int index = (head + size) & (times.length - 1);
      times[index] = at;
      sequences[index] = sequence;
      kinds[index] = kind;
      targets[index] = target;
      data[index] = datum;
      size++;
    }

    private void grow() {
      int capacity = times.length;
      int mask = capacity - 1;
      long[] newTimes = new long[capacity * 2];
      long[] newSequences = new long[capacity * 2];
      int[] newKinds = new int[capacity * 2];
      Object[] newTargets = new Object[capacity * 2];
      long[] newData = new long[capacity * 2];
      for (int i = 0; i < size; i++) {
        int from = (head + i) & mask;
        newTimes[i] = times[from];
        newSequences[i] = sequences[from];
        newKinds[i] = kinds[from];
        newTargets[i] = targets[from];
        newData[i] = data[from];
      }
      times = newTimes;
      sequences = newSequences;
      kinds = newKinds;
      targets = newTargets;
      data = newData;
      head = 0;
    }
  }

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
    if ((eventKind & ~KIND_MASK) != 0) {
      throw new IllegalArgumentException("event kind must be in 0..255, was " + eventKind);
    }
    if (size == targets.length) {
      targets = Arrays.copyOf(targets, size * 2);
      entries = Arrays.copyOf(entries, size * 6);
    }
    long key = nextSequence++ << KIND_BITS | eventKind;
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
   * Schedules an event in a lane: no earlier than any event scheduled in that lane before (a fixed delay
   * from a non-decreasing now).
   *
   * @throws IllegalStateException if the event would be out of order in its lane
   */
  void scheduleInOrder(int lane, long at, int eventKind, Object eventTarget, long eventDatum) {
    lanes[lane].add(at, nextSequence++, eventKind, eventTarget, eventDatum);
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
    long bestSequence = size == 0 ? Long.MAX_VALUE : entries[1] >>> KIND_BITS;
    for (int i = 0; i < lanes.length; i++) {
      Lane lane = lanes[i];
      if (lane.size != 0) {
        long t = lane.times[lane.head];
        long q = lane.sequences[lane.head];
        if (t < bestTime || (t == bestTime && q < bestSequence)) {
          best = i;
          bestTime = t;
          bestSequence = q;
        }
      }
    }
    return best;
  }

  /** The time of the next event; undefined when empty. */
  long peekTime() {
    int lane = firstLane();
    return lane < 0 ? entries[0] : lanes[lane].times[lanes[lane].head];
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
    } else if (lanes[index].times[lanes[index].head] >= limit) {
      return false;
    }
    take(index);
    return true;
  }

  private void take(int index) {
    if (index >= 0) {
      Lane lane = lanes[index];
      int head = lane.head;
      time = lane.times[head];
      kind = lane.kinds[head];
      target = lane.targets[head];
      datum = lane.data[head];
      lane.targets[head] = null;
      lane.head = (head + 1) & (lane.times.length - 1);
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
