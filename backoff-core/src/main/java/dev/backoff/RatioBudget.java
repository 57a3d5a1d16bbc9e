package dev.backoff;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The Finagle/Linkerd retry budget: over a sliding window, retries may be at most {@code ratio} of the calls
 * plus a floor of {@code minRetriesPerSecond} for the window's length. Every call deposits {@code ratio}
 * of a retry, every retry withdraws one; deposits and withdrawals expire with the window, and the floor is
 * a reserve that never expires. Amounts are integers in thousandths of a retry.
 *
 * <h2>How it stays lock-free and exact</h2>
 * The window is {@value #SLOTS} slots of a tenth of its length. The newest slot (open) is one {@code long}
 * (its net amount, plus a sealed bit) inside a {@code Window} object that also holds the clock reading at
 * which the open slot began and an immutable copy of the nine closed slots before it.
 * Calls and retries change only the open slot, with one compare-and-set. When time reaches a later slot,
 * the open slot is sealed first (its amount is then frozen) and a new {@code Window}, its closed slots
 * shifted from the old one, replaces the old by compare-and-set; any thread that meets a sealed slot helps.
 * A retry sums the closed copy and the open slot and withdraws with a compare-and-set on that same open
 * slot: if it succeeds the slot was not sealed, so its {@code Window} was still the current one and the
 * balance seen (never below the retry's cost) was the true one. A refusal is decided on an unsealed read of
 * the open slot, hence on a window that was current at that moment. Expiry may later take the balance below
 * zero, which is right: retries granted inside a window then exceed what the remaining deposits allow, so no
 * retry is granted until withdrawals expire too.
 *
 * <h2>Why nothing expired ever counts again</h2>
 * Slots carry no epoch number that could wrap or alias: a slot's age is its position in the current
 * {@code Window}, and a new {@code Window} is built from the old one shifted by the whole number of slots
 * that passed (any number: after a gap of a window or more every closed slot is zero). Objects are never
 * reused, so a compare-and-set on a replaced window's open slot fails (it is sealed) however long a thread
 * was suspended. Time is read only as the difference between the clock and the open slot's start, taken
 * after reading the window, so for a monotonic clock it is never negative; the one limit is the clock's own:
 * if {@code 2^63} ns (292 years) or more pass from the start of the slot of the last call or retry, the
 * difference wraps negative, and a negative difference is taken as no time passing (as for a clock that went
 * back). Any shorter silence, however many slots, windows or 22-bit epoch periods it spans, expires
 * everything it should; the number of silences in a budget's life is unlimited.
 *
 * <p>Calls and retries allocate nothing while time stays in the open slot; moving to a later slot allocates
 * one {@code Window} (128 bytes measured with compressed references; when nothing is left in the window the
 * closed slots are a shared empty array instead): at most once per slot length, plus one discarded
 * candidate per thread that loses the race to move it.
 */
final class RatioBudget implements RetryBudget {
  static final int SLOTS = 10;
  static final long MILLI = 1000;
  private static final int VALUE_BITS = 41;
  private static final long VALUE_MASK = (1L << VALUE_BITS) - 1;
  private static final long SEALED = Long.MIN_VALUE;
  static final long MAX_SLOT_VALUE = (1L << (VALUE_BITS - 1)) - 1;
  static final long MIN_SLOT_VALUE = -(1L << (VALUE_BITS - 1));
  private static final long[] NO_CLOSED_AMOUNTS = new long[SLOTS - 1];
  private static final VarHandle OPEN;
  private static final VarHandle CURRENT;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      OPEN = lookup.findVarHandle(Window.class, "open", long.class);
      CURRENT = lookup.findVarHandle(RatioBudget.class, "current", Window.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final long milliRatio; // deposit per call
  private final long reserveMilli; // the floor, minRetriesPerSecond * window
  private final long slotNanos;
  private final NanoClock clock;
  private final String description;
  private volatile Window current; // replaced only through CURRENT.compareAndSet

  /**
   * The open slot and an immutable copy of the closed slots before it. Only {@link #open} ever changes, and
   * only until it is sealed.
   */
  private static final class Window {
    /** The clock reading at which the open slot began; wraps like the clock. */
    final long startNanos;
    /** {@code closed[j - 1]}: the net amount of the slot {@code j} slots before the open one. */
    final long[] closed;
    final long closedSum;
    /** The open slot's net amount (low {@value #VALUE_BITS} bits, signed), with {@link #SEALED} once frozen. */
    @SuppressWarnings("unused") // read and written through OPEN
    volatile long open;

    Window(long startNanos, long[] closed) {
      this.startNanos = startNanos;
      this.closed = closed;
      long sum = 0;
      for (long amount : closed) {
        sum += amount;
      }
      this.closedSum = sum;
    }
  }

  RatioBudget(long milliRatio, long reserveMilli, long windowNanos, NanoClock clock, String description) {
    this.milliRatio = milliRatio;
    this.reserveMilli = reserveMilli;
    this.slotNanos = windowNanos / SLOTS;
    this.clock = clock;
    this.description = description;
    this.current = new Window(clock.nanoTime(), NO_CLOSED_AMOUNTS);
  }

  static long pack(boolean sealed, long value) {
    return (sealed ? SEALED : 0) | (value & VALUE_MASK);
  }

  static boolean isSealed(long word) {
    return word < 0;
  }

  static long value(long word) {
    return (word << (64 - VALUE_BITS)) >> (64 - VALUE_BITS);
  }

  /**
   * Whole slots from the start of the window's open slot to now. Call after reading the window, so that a
   * monotonic clock reads no earlier than the reading that created it.
   */
  private long slotsSince(Window window) {
    long elapsed = clock.nanoTime() - window.startNanos; // wraps like the clock; only the difference counts
    return elapsed <= 0 ? 0 : elapsed / slotNanos;
  }

  @Override
  public void onCall() {
    deposit(milliRatio);
  }

  /** Adds {@code milli} thousandths of a retry to the open slot; a full slot keeps its credit, no more. */
  private void deposit(long milli) {
    for (;;) {
      Window window = current;
      long passed = slotsSince(window);
      long word = (long) OPEN.getVolatile(window);
      if (passed > 0 || isSealed(word)) {
        advance(window, passed);
        continue;
      }
      long next = Math.min(MAX_SLOT_VALUE, value(word) + milli);
      if (OPEN.compareAndSet(window, word, pack(false, next))) {
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
      Window window = current;
      long passed = slotsSince(window);
      long word = (long) OPEN.getVolatile(window);
      if (passed > 0 || isSealed(word)) {
        advance(window, passed);
        continue;
      }
      long base = value(word);
      long balance = reserveMilli + window.closedSum + base;
      if (balance < MILLI || base - MILLI < MIN_SLOT_VALUE) {
        return false; // an unsealed open slot: this window was current when it was read
      }
      if (OPEN.compareAndSet(window, word, pack(false, base - MILLI))) {
        return true;
      }
    }
  }

  /**
   * Puts one retry back into the open slot. The withdrawal it undoes is in this slot or an earlier one; when
   * that one has already left the window (the call waited longer than the window), the window did not owe
   * the retry any more and the release adds a retry of credit, as a call would add its ratio.
   */
  @Override
  public void release(FailureClass failureClass) {
    deposit(MILLI);
  }

  /**
   * Seals the window's open slot and replaces the window by one whose open slot is {@code passed} slots later,
   * or one slot later when {@code passed} is 0: that happens only to a thread that found the slot sealed,
   * which it saw after the sealer read a clock in a later slot, so the next slot has begun. Returns once the
   * window is no longer current, whoever replaced it.
   */
  private void advance(Window window, long passed) {
    long word = (long) OPEN.getVolatile(window);
    while (!isSealed(word)) {
      if (OPEN.compareAndSet(window, word, word | SEALED)) {
        word |= SEALED;
        break;
      }
      word = (long) OPEN.getVolatile(window);
    }
    if (current != window) {
      return;
    }
    long shift = Math.max(1, passed);
    CURRENT.compareAndSet(this, window, shifted(window, value(word), shift));
  }

  /** The window {@code shift} slots later: the frozen open amount and the closed ones move back by that much. */
  private Window shifted(Window window, long openAmount, long shift) {
    // shift * slotNanos <= the elapsed time measured (below 2^63), or one slot: no overflow.
    long start = window.startNanos + shift * slotNanos;
    if (shift >= SLOTS || (openAmount == 0 && allZero(window.closed, SLOTS - 1 - (int) shift))) {
      return new Window(start, NO_CLOSED_AMOUNTS); // nothing left inside the window: share the empty array
    }
    int moved = (int) shift;
    long[] closed = new long[SLOTS - 1];
    closed[moved - 1] = openAmount; // the open slot is now `moved` slots back
    for (int back = moved + 1; back < SLOTS; back++) {
      closed[back - 1] = window.closed[back - moved - 1];
    }
    return new Window(start, closed);
  }

  /** True if the first {@code count} amounts are zero (those that stay inside the window after a shift). */
  private static boolean allZero(long[] amounts, int count) {
    for (int i = 0; i < count; i++) {
      if (amounts[i] != 0) {
        return false;
      }
    }
    return true;
  }

  /** The balance in thousandths of a retry: the reserve plus the window's deposits minus its withdrawals. */
  long balanceMilli() {
    Window window = current;
    long passed = slotsSince(window);
    long open = value((long) OPEN.getVolatile(window));
    if (passed == 0) {
      return reserveMilli + window.closedSum + open;
    }
    long sum = reserveMilli;
    if (passed < SLOTS) {
      sum += open;
      for (long back = passed + 1; back < SLOTS; back++) {
        sum += window.closed[(int) (back - passed - 1)];
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
