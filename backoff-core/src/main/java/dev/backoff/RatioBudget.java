package dev.backoff;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The Finagle/Linkerd retry budget: over a sliding window, retries may be at most {@code ratio} of the calls
 * plus a floor of {@code minRetriesPerSecond} for the window's length. Every call deposits {@code ratio}
 * of a retry, every retry withdraws one; deposits and withdrawals expire with the window, and the floor is
 * a reserve that never expires. Amounts are integers in thousandths of a retry.
 *
 * <h2>How it stays lock-free and exact</h2>
 * The window is {@value #SLOTS} slots. Each slot is one {@code long} holding a sealed bit, the slot's epoch
 * (22 bits) and its net amount (41 bits, signed). Only the newest slot (the head, whose epoch is in
 * {@link #head}) is ever written; when time moves on, the old head is sealed (one compare-and-set) before the
 * head moves, so every other slot in the window is immutable. A retry therefore reads the window and
 * withdraws with a compare-and-set on the head slot alone: if it succeeds, nothing it summed changed, and the
 * balance it saw (never below the retry's cost) was the true one. Expiry may later take the balance below
 * zero, which is right: retries granted inside a window then exceed what the remaining deposits allow, so
 * no retry is granted until withdrawals expire too.
 *
 * <p>Skipped slots are rewritten as empty with their own epoch whenever the head moves, so slot epochs never
 * lag far behind the head and the 22-bit epoch never aliases.
 */
final class RatioBudget implements RetryBudget {
  static final int SLOTS = 10;
  static final long MILLI = 1000;
  private static final int VALUE_BITS = 41;
  private static final int EPOCH_BITS = 22;
  private static final long VALUE_MASK = (1L << VALUE_BITS) - 1;
  private static final long EPOCH_MASK = (1L << EPOCH_BITS) - 1;
  private static final long SEALED = Long.MIN_VALUE;
  static final long MAX_SLOT_VALUE = (1L << (VALUE_BITS - 1)) - 1;
  static final long MIN_SLOT_VALUE = -(1L << (VALUE_BITS - 1));

  private final long milliRatio; // deposit per call
  private final long reserveMilli; // the floor, minRetriesPerSecond * window
  private final long slotNanos;
  private final Clock clock;
  private final long originNanos;
  private final AtomicLong head = new AtomicLong();
  private final AtomicLongArray slots = new AtomicLongArray(SLOTS);
  private final String description;

  RatioBudget(long milliRatio, long reserveMilli, long windowNanos, Clock clock, String description) {
    this.milliRatio = milliRatio;
    this.reserveMilli = reserveMilli;
    this.slotNanos = windowNanos / SLOTS;
    this.clock = clock;
    this.originNanos = clock.nanoTime();
    this.description = description;
  }

  static long pack(boolean sealed, long epoch, long value) {
    return (sealed ? SEALED : 0) | ((epoch & EPOCH_MASK) << VALUE_BITS) | (value & VALUE_MASK);
  }

  static long tag(long word) {
    return (word >>> VALUE_BITS) & EPOCH_MASK;
  }

  static boolean isSealed(long word) {
    return word < 0;
  }

  static long value(long word) {
    return (word << (64 - VALUE_BITS)) >> (64 - VALUE_BITS);
  }

  private static boolean holds(long word, long epoch) {
    return tag(word) == (epoch & EPOCH_MASK);
  }

  /** True if the word's epoch is before {@code epoch} (modulo the 22-bit wrap, within half the range). */
  private static boolean isOlder(long word, long epoch) {
    long distance = ((epoch & EPOCH_MASK) - tag(word)) & EPOCH_MASK;
    return distance != 0 && distance < (1L << (EPOCH_BITS - 1));
  }

  private static int index(long epoch) {
    return (int) Math.floorMod(epoch, (long) SLOTS);
  }

  private long epochNow() {
    return Math.floorDiv(clock.nanoTime() - originNanos, slotNanos);
  }

  @Override
  public void onCall() {
    for (;;) {
      long now = epochNow();
      long current = head.get();
      if (now > current) {
        advance(current, now);
        continue;
      }
      int i = index(current);
      long word = slots.get(i);
      long base = 0;
      if (holds(word, current)) {
        if (isSealed(word)) {
          advance(current, current + 1); // someone is moving the head on: help, then retry there
          continue;
        }
        base = value(word);
      }
      long next = Math.min(MAX_SLOT_VALUE, base + milliRatio); // a full slot keeps its credit, no more
      if (slots.compareAndSet(i, word, pack(false, current, next))) {
        return;
      }
    }
  }

  @Override
  public void onFailure(FailureClass failureClass) {}

  @Override
  public void onSuccess(int retries, FailureClass lastRetryClass) {}

  @Override
  public boolean tryAcquire(FailureClass failureClass) {
    for (;;) {
      long now = epochNow();
      long current = head.get();
      if (now > current) {
        advance(current, now);
        continue;
      }
      int i = index(current);
      long word = slots.get(i);
      long base = 0;
      if (holds(word, current)) {
        if (isSealed(word)) {
          advance(current, current + 1);
          continue;
        }
        base = value(word);
      }
      long balance = reserveMilli + base + sumOthers(current);
      if (balance < MILLI || base - MILLI < MIN_SLOT_VALUE) {
        // Refuse only on a consistent view: the head slot and the head unchanged means the rest was frozen.
        if (slots.get(i) == word && head.get() == current) {
          return false;
        }
        continue;
      }
      if (slots.compareAndSet(i, word, pack(false, current, base - MILLI))) {
        return true;
      }
    }
  }

  private long sumOthers(long current) {
    long sum = 0;
    for (int back = 1; back < SLOTS; back++) {
      long epoch = current - back;
      long word = slots.get(index(epoch));
      if (holds(word, epoch)) {
        sum += value(word);
      }
    }
    return sum;
  }

  /** Seals the head slot of {@code from}, moves the head to {@code to}, and empties the slots it skipped. */
  private void advance(long from, long to) {
    int i = index(from);
    for (;;) {
      long word = slots.get(i);
      if (holds(word, from)) {
        if (isSealed(word) || slots.compareAndSet(i, word, word | SEALED)) {
          break;
        }
      } else if (!isOlder(word, from)) {
        break; // the slot already serves a later head, so "from" is long gone
      } else if (slots.compareAndSet(i, word, pack(true, from, 0))) {
        break; // nothing happened during "from": seal it empty
      }
    }
    if (head.compareAndSet(from, to)) {
      for (long epoch = Math.max(from + 1, to - SLOTS + 1); epoch < to; epoch++) {
        int j = index(epoch);
        long word = slots.get(j);
        if (isOlder(word, epoch)) {
          slots.compareAndSet(j, word, pack(true, epoch, 0)); // failure: a newer head took it, fine
        }
      }
    }
  }

  /** The balance in thousandths of a retry: the reserve plus the window's deposits minus its withdrawals. */
  long balanceMilli() {
    long current = Math.max(head.get(), epochNow());
    long sum = reserveMilli;
    for (int back = 0; back < SLOTS; back++) {
      long epoch = current - back;
      long word = slots.get(index(epoch));
      if (holds(word, epoch)) {
        sum += value(word);
      }
    }
    return sum;
  }

  @Override
  public double level() {
    return balanceMilli() / (double) MILLI;
  }

  @Override
  public String toString() {
    return description + ", balance " + level() + " retries";
  }
}
