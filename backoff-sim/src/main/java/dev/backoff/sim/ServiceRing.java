package dev.backoff.sim;

/**
 * The requests in a knee or linear server, oldest first: each request's service start time and, while its
 * client still waits for it, the attempt itself. A request whose client gave up keeps its place and its
 * start time (it still loads the server until it completes), but not its attempt: {@link #forget} drops the
 * reference, so a storm's abandoned requests cost the 12 bytes of a {@code long} and an empty reference
 * each, not an attempt object apiece (about 70 bytes with its place in a deque), and the collector has
 * nothing to trace in them. A storm leaves ~150 abandoned requests per client: at a million clients that is
 * the difference between 1.8 GB and 10 GB.
 *
 * <p>Entries live in fixed-size chunks (no copy of the whole ring when it grows, no array large enough to
 * be a humongous object for the collector), addressed by a ticket: the number of requests added before this
 * one. Mutable, owned by a single-threaded run.
 */
final class ServiceRing {
  static final int CHUNK_BITS = 12;
  private static final int CHUNK = 1 << CHUNK_BITS;
  private static final int MASK = CHUNK - 1;

  private long[][] starts = new long[4][];
  private Attempt[][] attempts = new Attempt[4][];
  private long firstChunk; // the chunk number of directory entry 0
  private long head; // the ticket of the oldest request
  private long tail; // the ticket the next request gets
  private long[] spareStarts; // a released chunk, reused when the ring next needs one
  private Attempt[] spareAttempts;

  /** Adds a request that started service at {@code startNanos}; returns its ticket. */
  long add(long startNanos, Attempt attempt) {
    long ticket = tail;
    int chunk = (int) ((ticket >>> CHUNK_BITS) - firstChunk);
    if (chunk == starts.length) {
      chunk = makeRoom(chunk);
    }
    if (starts[chunk] == null) {
      if (spareStarts != null) {
        starts[chunk] = spareStarts;
        attempts[chunk] = spareAttempts;
        spareStarts = null;
        spareAttempts = null;
      } else {
        starts[chunk] = new long[CHUNK];
        attempts[chunk] = new Attempt[CHUNK];
      }
    }
    int index = (int) (ticket & MASK);
    starts[chunk][index] = startNanos;
    attempts[chunk][index] = attempt;
    tail = ticket + 1;
    return ticket;
  }

  /** Shifts out the released chunks before the head's, or doubles the directory; returns the new index. */
  private int makeRoom(int chunk) {
    int released = (int) ((head >>> CHUNK_BITS) - firstChunk);
    if (released > 0) {
      int live = starts.length - released;
      System.arraycopy(starts, released, starts, 0, live);
      System.arraycopy(attempts, released, attempts, 0, live);
      java.util.Arrays.fill(starts, live, starts.length, null);
      java.util.Arrays.fill(attempts, live, attempts.length, null);
      firstChunk += released;
      return chunk - released;
    }
    starts = java.util.Arrays.copyOf(starts, starts.length * 2);
    attempts = java.util.Arrays.copyOf(attempts, attempts.length * 2);
    return chunk;
  }

  boolean isEmpty() {
    return head == tail;
  }

  /** Requests in the ring, abandoned ones included. */
  long size() {
    return tail - head;
  }

  /** The oldest request's start time; undefined when empty. */
  long firstStart() {
    return starts[(int) ((head >>> CHUNK_BITS) - firstChunk)][(int) (head & MASK)];
  }

  /** The oldest request's attempt, or null if its client gave up; undefined when empty. */
  Attempt first() {
    return attempts[(int) ((head >>> CHUNK_BITS) - firstChunk)][(int) (head & MASK)];
  }

  /** Removes the oldest request. */
  void removeFirst() {
    int chunk = (int) ((head >>> CHUNK_BITS) - firstChunk);
    int index = (int) (head & MASK);
    attempts[chunk][index] = null;
    head++;
    if (index == MASK) {
      // The head left this chunk: release it (the ring never goes back).
      spareStarts = starts[chunk];
      spareAttempts = attempts[chunk];
      starts[chunk] = null;
      attempts[chunk] = null;
    }
  }

  /** Drops the attempt of the request with this ticket (its client gave up); the request keeps its place. */
  void forget(long ticket) {
    if (ticket >= head && ticket < tail) {
      attempts[(int) ((ticket >>> CHUNK_BITS) - firstChunk)][(int) (ticket & MASK)] = null;
    }
  }

  /** Removes every request. */
  void clear() {
    while (head != tail) {
      removeFirst();
    }
  }
}
