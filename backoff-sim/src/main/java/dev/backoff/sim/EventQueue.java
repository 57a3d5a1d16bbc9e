package dev.backoff.sim;

import java.util.Arrays;

/**
 * The simulator's agenda: events ordered by virtual time, ties broken by the order in which they were
 * scheduled (a sequence number), so that a run is fully deterministic. (time, sequence) pairs are unique, so
 * any correct priority queue pops them in one and the same order; the layout below only decides how fast.
 *
 * <p><b>Calendar.</b> Events are sorted lazily, a bucket at a time: time is cut into buckets of 2^20 ns
 * (about a millisecond), and an event up to 2^15 buckets ahead (about 34 s) is put, unsorted, in its bucket's
 * list in O(1). Only the bucket being run, the current one, is sorted, in a small heap (the near heap); when
 * it runs out, the next non-empty bucket (found in a bitmap) becomes the current one and its events move to
 * the near heap. Events beyond the horizon wait in a second heap (the far heap) and move to their bucket as
 * the horizon reaches them. With 100 000 clients the pending events (one per client) no longer form one
 * heap of 100 000 entries, much larger than the cache, whose every pop walked eight levels of it: a pop
 * reads a heap of the few events of one millisecond, and a bucket's events are read once, when it becomes
 * current. An event scheduled at or before the current bucket goes to the near heap directly.
 *
 * <p>Both heaps are 4-ary, each entry three {@code long}s side by side in one array (time, sequence with the
 * event's kind in its low 8 bits, datum) plus the target in a parallel array; a bucket's events are a linked
 * list of nodes of the same three {@code long}s and a link, in one array, reused through a free list (so a
 * new event usually takes the node of an event just run, still in the cache).
 *
 * <p><b>Lanes.</b> Events scheduled a fixed delay ahead (client timeouts, error deliveries, polling ticks)
 * arrive in time order, so they go to a FIFO lane instead: O(1) each. Retries usually do too when the backoff
 * is constant (in a storm of fixed-delay clients every retry is one delay after a timeout): they go to a lane
 * of their own whenever that keeps it in order, and to the calendar otherwise. The lanes and the calendar share
 * one sequence counter and {@link #poll()} takes the earliest head by (time, sequence), so the order is
 * exactly what a single heap would give; a property test checks it against a {@link java.util.PriorityQueue}.
 * Not thread-safe.
 */
final class EventQueue {
  private static final int ARITY = 4;
  private static final int KIND_BITS = 8;
  private static final int KIND_MASK = (1 << KIND_BITS) - 1;
  /** The default bucket width, as a power of two: 2^20 ns, about 1 ms. */
  static final int BUCKET_BITS = 20;
  /** The default number of buckets, as a power of two: 2^15, a horizon of about 34 s. */
  static final int BUCKET_COUNT_BITS = 15;

  /** Lanes for events scheduled a fixed delay ahead: each lane's events arrive in time order. */
  static final int TIMEOUT_LANE = 0;
  static final int ERROR_LANE = 1;
  static final int TICK_LANE = 2;
  /**
   * A lane for events that usually, but not always, arrive in time order (retries after a constant
   * backoff): {@link #scheduleUsuallyInOrder} puts one here when that keeps the lane in order, else in the
   * calendar.
   */
  static final int RETRY_LANE = 3;
  private final Lane[] lanes = {new Lane(), new Lane(), new Lane(), new Lane()};

  private long nextSequence;
  /** The current bucket's events, and any scheduled before it; every other event is later than all of them. */
  private final Heap near = new Heap();
  /** Events beyond the buckets' horizon: at or after bucket {@code current + buckets}. */
  private final Heap far = new Heap();
  private final int bucketBits;
  private final int buckets;
  private final int slotMask;
  /** The bucket (time >> bucketBits) the near heap holds; buckets current + 1 .. current + buckets - 1 are in lists. */
  private long current;
  /** Per slot (bucket & slotMask): its list's first node + 1, 0 if the bucket is empty. */
  private final int[] bucketHead;
  /** One bit per slot: set if the bucket has events. */
  private final long[] occupied;
  /** Events in the buckets' lists. */
  private int bucketed;
  // Node n: nodes[4n] = time, nodes[4n + 1] = sequence << 8 | kind, nodes[4n + 2] = datum, nodes[4n + 3] = the
  // next node + 1 in its bucket or in the free list (0: none); nodeTargets[n] = target.
  private long[] nodes = new long[4 * 256];
  private Object[] nodeTargets = new Object[256];
  private int nodesUsed;
  private int freeNode; // first free node + 1, 0 if none


  // The event last removed by poll().
  long time;
  int kind;
  Object target;
  long datum;

  /** A queue with the default buckets. */
  EventQueue() {
    this(BUCKET_BITS, BUCKET_COUNT_BITS);
  }

  /**
   * A queue with buckets of {@code 2^bucketBits} ns, {@code 2^bucketCountBits} of them (tests use small ones
   * to reach the horizon and the far heap often).
   *
   * @throws IllegalArgumentException if {@code bucketBits} is not in 0..40 or {@code bucketCountBits} not in 1..20
   */
  EventQueue(int bucketBits, int bucketCountBits) {
    if (bucketBits < 0 || bucketBits > 40) {
      throw new IllegalArgumentException("bucketBits must be in 0..40, was " + bucketBits);
    }
    if (bucketCountBits < 1 || bucketCountBits > 20) {
      throw new IllegalArgumentException("bucketCountBits must be in 1..20, was " + bucketCountBits);
    }
    this.bucketBits = bucketBits;
    this.buckets = 1 << bucketCountBits;
    this.slotMask = buckets - 1;
    this.bucketHead = new int[buckets];
    this.occupied = new long[Math.max(1, buckets >>> 6)];
  }

  /**
   * Schedules an event.
   *
   * @throws IllegalArgumentException if {@code eventKind} is not in 0..255
   */
  void schedule(long at, int eventKind, Object eventTarget, long eventDatum) {
    insert(at, nextKey(eventKind), eventTarget, eventDatum);
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
   * Schedules an event in a lane if it is no earlier than the events still there, else in the calendar: for
   * events that mostly come in time order (retries after a constant backoff), which then cost the least.
   * The order events come out in is the same either way.
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

  /** The next sequence number with the kind in its low 8 bits. */
  private long nextKey(int eventKind) {
    if ((eventKind & ~KIND_MASK) != 0) {
      throw new IllegalArgumentException("event kind must be in 0..255, was " + eventKind);
    }
    return nextSequence++ << KIND_BITS | eventKind;
  }

  /** Puts an event in the near heap, its bucket or the far heap. */
  private void insert(long at, long key, Object eventTarget, long eventDatum) {
    long bucket = at >> bucketBits;
    if (bucket <= current) {
      near.push(at, key, eventTarget, eventDatum);
    } else if (bucket - current < buckets) {
      addToBucket((int) bucket & slotMask, at, key, eventTarget, eventDatum);
    } else {
      far.push(at, key, eventTarget, eventDatum);
    }
  }

  private void addToBucket(int slot, long at, long key, Object eventTarget, long eventDatum) {
    int n = freeNode - 1;
    if (n >= 0) {
      freeNode = (int) nodes[4 * n + 3];
    } else {
      if (nodesUsed == nodeTargets.length) {
        nodeTargets = Arrays.copyOf(nodeTargets, 2 * nodesUsed);
        nodes = Arrays.copyOf(nodes, 8 * nodesUsed);
      }
      n = nodesUsed++;
    }
    long[] ns = nodes;
    ns[4 * n] = at;
    ns[4 * n + 1] = key;
    ns[4 * n + 2] = eventDatum;
    ns[4 * n + 3] = bucketHead[slot];
    nodeTargets[n] = eventTarget;
    bucketHead[slot] = n + 1;
    occupied[slot >>> 6] |= 1L << slot;
    bucketed++;
  }

  /**
   * With the near heap empty and events in the buckets or the far heap: makes the first non-empty bucket the
   * current one, moves the far events the horizon now reaches to their buckets, and the current bucket's
   * events to the near heap.
   */
  private void advance() {
    long next = bucketed != 0 ? nextOccupied() : Long.MAX_VALUE;
    if (far.size != 0) {
      next = Math.min(next, far.entries[0] >> bucketBits);
    }
    current = next;
    while (far.size != 0 && (far.entries[0] >> bucketBits) - current < buckets) {
      long[] e = far.entries;
      long at = e[0];
      long key = e[1];
      long eventDatum = e[2];
      Object eventTarget = far.targets[0];
      far.removeMin();
      insert(at, key, eventTarget, eventDatum);
    }
    int slot = (int) current & slotMask;
    int n = bucketHead[slot];
    if (n == 0) {
      return; // the far heap's first event opened this bucket: it is in the near heap already
    }
    bucketHead[slot] = 0;
    occupied[slot >>> 6] &= ~(1L << slot);
    long[] ns = nodes;
    Object[] nt = nodeTargets;
    int free = freeNode;
    while (n != 0) {
      int i = n - 1;
      near.push(ns[4 * i], ns[4 * i + 1], nt[i], ns[4 * i + 2]);
      bucketed--;
      n = (int) ns[4 * i + 3];
      ns[4 * i + 3] = free;
      nt[i] = null;
      free = i + 1;
    }
    freeNode = free;
  }

  /** The first bucket after the current one that has events (there is one). */
  private long nextOccupied() {
    int start = (int) (current + 1) & slotMask;
    long[] bits = occupied;
    int wordMask = bits.length - 1;
    int word = start >>> 6;
    long candidates = bits[word] & (-1L << start);
    while (candidates == 0) {
      word = (word + 1) & wordMask;
      candidates = bits[word];
    }
    int slot = word << 6 | Long.numberOfTrailingZeros(candidates);
    return current + 1 + ((slot - start) & slotMask);
  }

  boolean isEmpty() {
    if (near.size != 0 || bucketed != 0 || far.size != 0) {
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
    int total = near.size + bucketed + far.size;
    for (Lane lane : lanes) {
      total += lane.size;
    }
    return total;
  }

  /** The lane whose head comes first, or -1 if the near heap's does (or everything is empty). */
  private int firstLane() {
    Heap h = near;
    if (h.size == 0 && (bucketed != 0 || far.size != 0)) {
      advance();
    }
    int best = -1;
    long bestTime = h.size == 0 ? Long.MAX_VALUE : h.entries[0];
    // Keys are sequence << 8 | kind and sequences are unique, so comparing keys compares sequences.
    long bestKey = h.size == 0 ? Long.MAX_VALUE : h.entries[1];
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
    return lane < 0 ? near.entries[0] : lanes[lane].headTime();
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
      if (near.size == 0 || near.entries[0] >= limit) {
        return false;
      }
    } else if (lanes[index].headTime() >= limit) {
      return false;
    }
    take(index);
    return true;
  }

  private void take(int index) {
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
    Heap h = near;
    long[] e = h.entries;
    time = e[0];
    kind = (int) (e[1] & KIND_MASK);
    datum = e[2];
    target = h.targets[0];
    h.removeMin();
  }

  /**
   * A 4-ary heap by (time, key); each entry's time, key and datum side by side in one array, its target in a
   * parallel one, so that the four children of a node lie in two adjacent cache lines.
   */
  private static final class Heap {
    long[] entries = new long[3 * 256];
    Object[] targets = new Object[256];
    int size;

    void push(long at, long key, Object eventTarget, long eventDatum) {
      if (size == targets.length) {
        targets = Arrays.copyOf(targets, size * 2);
        entries = Arrays.copyOf(entries, size * 6);
      }
      long[] e = entries;
      Object[] t = targets;
      int i = size++;
      while (i > 0) {
        int parent = (i - 1) / ARITY;
        long parentTime = e[3 * parent];
        if (parentTime < at || (parentTime == at && e[3 * parent + 1] < key)) {
          break;
        }
        e[3 * i] = parentTime;
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

    /** Removes the root (the caller read it first). */
    void removeMin() {
      long[] e = entries;
      Object[] t = targets;
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

  /**
   * A ring buffer of events in non-decreasing time order, each event's time, key and datum side by side in
   * one {@code long[]} and its target in a parallel array: adding or taking an event touches two cache lines,
   * not one per field.
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

    void add(long at, long key, Object eventTarget, long eventDatum) {
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
      e[3 * index + 2] = eventDatum;
      targets[index] = eventTarget;
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
}
