package dev.backoff.sim;

import java.util.Arrays;

/**
 * The simulator's agenda: a binary min-heap of events ordered by virtual time, ties broken by the order in
 * which they were scheduled (a sequence number), so that a run is fully deterministic. Events are stored in
 * parallel primitive arrays (no object per event) because the heap is the simulator's hot path.
 *
 * <p>Events scheduled a fixed delay ahead (client timeouts, error deliveries, polling ticks) arrive in time
 * order, so they go to a FIFO lane instead of the heap: O(1) each, and the heap stays small (most timeouts
 * are stale by the time they fire). Both lanes share one sequence counter and {@link #poll()} takes the
 * earlier head by (time, sequence), so the order is exactly what a single heap would give.
 * Not thread-safe.
 */
final class EventQueue {
  private long[] times = new long[1024];
  private long[] sequences = new long[1024];
  private int[] kinds = new int[1024];
  private Object[] targets = new Object[1024];
  private long[] data = new long[1024];
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

  void schedule(long at, int eventKind, Object eventTarget, long eventDatum) {
    if (size == times.length) {
      grow();
    }
    long sequence = nextSequence++;
    int i = size++;
    // Sift up.
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      long parentTime = times[parent];
      if (parentTime < at || (parentTime == at && sequences[parent] < sequence)) {
        break;
      }
      move(parent, i);
      i = parent;
    }
    times[i] = at;
    sequences[i] = sequence;
    kinds[i] = eventKind;
    targets[i] = eventTarget;
    data[i] = eventDatum;
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
    long bestTime = size == 0 ? Long.MAX_VALUE : times[0];
    long bestSequence = size == 0 ? Long.MAX_VALUE : sequences[0];
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
    return lane < 0 ? times[0] : lanes[lane].times[lanes[lane].head];
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
      if (size == 0 || times[0] >= limit) {
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
    time = times[0];
    kind = kinds[0];
    target = targets[0];
    datum = data[0];
    int last = --size;
    long lastTime = times[last];
    long lastSequence = sequences[last];
    int lastKind = kinds[last];
    Object lastTarget = targets[last];
    long lastDatum = data[last];
    targets[last] = null;
    int i = 0;
    int half = last >>> 1;
    while (i < half) {
      int child = 2 * i + 1;
      int right = child + 1;
      if (right < last && (times[right] < times[child]
          || (times[right] == times[child] && sequences[right] < sequences[child]))) {
        child = right;
      }
      if (lastTime < times[child] || (lastTime == times[child] && lastSequence < sequences[child])) {
        break;
      }
      move(child, i);
      i = child;
    }
    if (last > 0) {
      times[i] = lastTime;
      sequences[i] = lastSequence;
      kinds[i] = lastKind;
      targets[i] = lastTarget;
      data[i] = lastDatum;
    }
  }

  private void move(int from, int to) {
    times[to] = times[from];
    sequences[to] = sequences[from];
    kinds[to] = kinds[from];
    targets[to] = targets[from];
    data[to] = data[from];
  }

  private void grow() {
    int capacity = times.length * 2;
    times = Arrays.copyOf(times, capacity);
    sequences = Arrays.copyOf(sequences, capacity);
    kinds = Arrays.copyOf(kinds, capacity);
    targets = Arrays.copyOf(targets, capacity);
    data = Arrays.copyOf(data, capacity);
  }
}
