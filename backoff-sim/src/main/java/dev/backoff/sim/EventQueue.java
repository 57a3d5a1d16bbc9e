package dev.backoff.sim;

import java.util.Arrays;

/**
 * The simulator's agenda: a binary min-heap of events ordered by virtual time, ties broken by the order in
 * which they were scheduled (a sequence number), so that a run is fully deterministic. Events are stored in
 * parallel primitive arrays (no object per event) because the heap is the simulator's hot path.
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

  boolean isEmpty() {
    return size == 0;
  }

  int size() {
    return size;
  }

  /** The time of the next event; undefined when empty. */
  long peekTime() {
    return times[0];
  }

  /** Removes the next event into {@link #time}, {@link #kind}, {@link #target}, {@link #datum}. */
  void poll() {
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
