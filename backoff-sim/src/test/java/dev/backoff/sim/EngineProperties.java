package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

class EngineProperties {

  @Property
  void eventsComeOutByTimeThenInSchedulingOrder(
      @ForAll @Size(max = 300) List<@LongRange(min = 0, max = 20) Long> times) {
    EventQueue queue = new EventQueue();
    List<long[]> expected = new ArrayList<>();
    for (int i = 0; i < times.size(); i++) {
      queue.schedule(times.get(i), 1, null, i);
      expected.add(new long[] {times.get(i), i});
    }
    expected.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
    for (long[] event : expected) {
      assertThat(queue.isEmpty()).isFalse();
      queue.poll();
      assertThat(queue.time).isEqualTo(event[0]);
      assertThat(queue.datum).isEqualTo(event[1]);
    }
    assertThat(queue.isEmpty()).isTrue();
  }

  @Property
  void lanesAndHeapTogetherGiveTheSingleHeapOrder(
      @ForAll @Size(max = 300) List<@LongRange(min = 0, max = 3) Long> steps,
      @ForAll @Size(max = 300) List<@LongRange(min = 0, max = 3) Long> lanes) {
    // Time advances by steps; each event goes to the heap (lane 3) at a random offset or to a lane at its
    // fixed offset, like a run's timeouts, error deliveries and ticks.
    EventQueue queue = new EventQueue();
    long[] offsets = {20, 1, 5};
    List<long[]> expected = new ArrayList<>();
    long now = 0;
    int n = Math.min(steps.size(), lanes.size());
    for (int i = 0; i < n; i++) {
      now += steps.get(i);
      int lane = lanes.get(i).intValue();
      long at = lane == 3 ? now + (i * 7L % 11) : now + offsets[lane];
      if (lane == 3) {
        queue.schedule(at, 1, null, i);
      } else {
        queue.scheduleInOrder(lane, at, 1, null, i);
      }
      expected.add(new long[] {at, i});
    }
    expected.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
    for (long[] event : expected) {
      assertThat(queue.pollBefore(Long.MAX_VALUE)).isTrue();
      assertThat(queue.time).isEqualTo(event[0]);
      assertThat(queue.datum).isEqualTo(event[1]);
    }
    assertThat(queue.pollBefore(Long.MAX_VALUE)).isFalse();
  }

  /**
   * The queue against the simplest correct reference, a {@link PriorityQueue} ordered by (time, sequence):
   * schedules and polls interleaved as in a run (time never goes back; many ties; lanes at fixed offsets;
   * enough pending events for a deep heap and reused payload positions), every event compared whole.
   */
  @Property(tries = 200)
  void theQueuePopsExactlyAsAPriorityQueueOfTimeThenSequence(
      @ForAll @Size(min = 1, max = 4000) List<@IntRange(min = 0, max = 9) Integer> operations, @ForAll long seed) {
    EventQueue queue = new EventQueue();
    PriorityQueue<Object[]> reference = new PriorityQueue<>(Comparator.<Object[]>comparingLong(e -> (long) e[0])
        .thenComparingLong(e -> (long) e[1]));
    SplittableRandom random = new SplittableRandom(seed);
    long[] laneOffsets = {2_000, 1, 50};
    long now = 0;
    long sequence = 0;
    for (int operation : operations) {
      if (operation < 6) {
        int choice = random.nextInt(8);
        long delay = choice < 2 ? 0 : choice < 6 ? random.nextLong(100) : random.nextLong(1_000_000);
        int kind = random.nextInt(256);
        long datum = random.nextLong();
        Long target = sequence;
        queue.schedule(now + delay, kind, target, datum);
        reference.add(new Object[] {now + delay, sequence++, kind, datum, target});
      } else if (operation < 8) {
        int lane = random.nextInt(3);
        long datum = random.nextLong();
        Long target = sequence;
        queue.scheduleInOrder(lane, now + laneOffsets[lane], 7, target, datum);
        reference.add(new Object[] {now + laneOffsets[lane], sequence++, 7, datum, target});
      } else {
        now = pollBoth(queue, reference, now);
      }
      assertThat(queue.size()).isEqualTo(reference.size());
    }
    while (!reference.isEmpty()) {
      now = pollBoth(queue, reference, now);
    }
    assertThat(queue.isEmpty()).isTrue();
    assertThat(queue.pollBefore(Long.MAX_VALUE)).isFalse();
  }

  /**
   * The retry lane against the same reference: events scheduled "usually in order" go to the lane when they
   * keep it in order and to the heap otherwise (a constant delay, a mostly constant one, or a random one,
   * mixed with the fixed lanes and the heap), and the queue still pops exactly by (time, sequence).
   */
  @Property(tries = 200)
  void eventsUsuallyInOrderPopExactlyAsAPriorityQueueOfTimeThenSequence(
      @ForAll @Size(min = 1, max = 4000) List<@IntRange(min = 0, max = 11) Integer> operations, @ForAll long seed) {
    EventQueue queue = new EventQueue();
    PriorityQueue<Object[]> reference = new PriorityQueue<>(Comparator.<Object[]>comparingLong(e -> (long) e[0])
        .thenComparingLong(e -> (long) e[1]));
    SplittableRandom random = new SplittableRandom(seed);
    long[] laneOffsets = {2_000, 1, 50};
    long now = 0;
    long sequence = 0;
    for (int operation : operations) {
      Long target = sequence;
      long datum = random.nextLong();
      int kind = random.nextInt(256);
      long at;
      if (operation < 3) {
        at = now + (random.nextInt(4) == 0 ? random.nextLong(1_000) : 0);
        queue.schedule(at, kind, target, datum);
      } else if (operation < 5) {
        int lane = random.nextInt(3);
        at = now + laneOffsets[lane];
        queue.scheduleInOrder(lane, at, kind, target, datum);
      } else if (operation < 8) {
        // Mostly one constant delay, sometimes shorter or longer: both sides of the lane's last event.
        int choice = random.nextInt(10);
        long delay = choice < 7 ? 100 : choice < 9 ? random.nextLong(200) : 0;
        at = now + delay;
        queue.scheduleUsuallyInOrder(EventQueue.RETRY_LANE, at, kind, target, datum);
      } else {
        now = pollBoth(queue, reference, now);
        assertThat(queue.size()).isEqualTo(reference.size());
        continue;
      }
      reference.add(new Object[] {at, sequence++, kind, datum, target});
      assertThat(queue.size()).isEqualTo(reference.size());
    }
    while (!reference.isEmpty()) {
      now = pollBoth(queue, reference, now);
    }
    assertThat(queue.isEmpty()).isTrue();
  }

  @Property(tries = 20)
  void aLaneRefusesAKindOutside0To255AndAnEventBeforeItsLast(@ForAll @IntRange(min = 0, max = 255) int kind) {
    EventQueue queue = new EventQueue();
    queue.scheduleInOrder(EventQueue.TIMEOUT_LANE, 10, kind, null, 3);
    assertThatThrownBy(() -> queue.scheduleInOrder(EventQueue.TIMEOUT_LANE, 9, kind, null, 0))
        .isInstanceOf(IllegalStateException.class).hasMessage("event out of order in its lane: 9 after 10");
    assertThatThrownBy(() -> queue.scheduleInOrder(EventQueue.ERROR_LANE, 10, 256 + kind, null, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("event kind must be in 0..255, was " + (256 + kind));
    assertThatThrownBy(() -> queue.scheduleUsuallyInOrder(EventQueue.RETRY_LANE, 10, -1 - kind, null, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("event kind must be in 0..255, was " + (-1 - kind));
    queue.poll();
    assertThat(new long[] {queue.time, queue.kind, queue.datum}).containsExactly(10, kind, 3);
    assertThat(queue.isEmpty()).isTrue();
  }

  /**
   * The calendar against the same reference, with buckets small enough that events land in the near heap,
   * in buckets all around the ring and beyond the horizon (the far heap), and move between them: delays from
   * zero to a hundred horizons, peeks that advance to a later bucket followed by events scheduled before it,
   * ties, the lanes and the retry lane mixed in.
   */
  @Property(tries = 300)
  void theCalendarPopsExactlyAsAPriorityQueueOfTimeThenSequence(
      @ForAll @Size(min = 1, max = 3000) List<@IntRange(min = 0, max = 11) Integer> operations, @ForAll long seed,
      @ForAll @IntRange(min = 0, max = 6) int bucketBits, @ForAll @IntRange(min = 1, max = 8) int bucketCountBits) {
    EventQueue queue = new EventQueue(bucketBits, bucketCountBits);
    PriorityQueue<Object[]> reference = new PriorityQueue<>(Comparator.<Object[]>comparingLong(e -> (long) e[0])
        .thenComparingLong(e -> (long) e[1]));
    SplittableRandom random = new SplittableRandom(seed);
    long horizon = (1L << bucketBits) << bucketCountBits;
    long[] laneOffsets = {3 * horizon / 2, 1, horizon / 3};
    long now = 0;
    long sequence = 0;
    for (int operation : operations) {
      Long target = sequence;
      long datum = random.nextLong();
      int kind = random.nextInt(256);
      long at;
      if (operation < 5) {
        int choice = random.nextInt(8);
        long delay = choice == 0 ? 0 : choice < 4 ? random.nextLong(1L << bucketBits) * random.nextInt(4)
            : choice < 7 ? random.nextLong(horizon + 1) : random.nextLong(100 * horizon);
        at = now + delay;
        queue.schedule(at, kind, target, datum);
      } else if (operation < 6) {
        int lane = random.nextInt(3);
        at = now + laneOffsets[lane];
        queue.scheduleInOrder(lane, at, kind, target, datum);
      } else if (operation < 7) {
        at = now + (random.nextInt(4) == 0 ? random.nextLong(2 * horizon) : horizon / 2);
        queue.scheduleUsuallyInOrder(EventQueue.RETRY_LANE, at, kind, target, datum);
      } else if (operation < 8 && !reference.isEmpty()) {
        // A peek (which may open a later bucket), then an event before the peeked one but not before now.
        long next = queue.peekTime();
        assertThat(next).isEqualTo((long) reference.peek()[0]);
        at = now + random.nextLong(next - now + 1);
        queue.schedule(at, kind, target, datum);
      } else {
        now = pollBoth(queue, reference, now);
        assertThat(queue.size()).isEqualTo(reference.size());
        continue;
      }
      reference.add(new Object[] {at, sequence++, kind, datum, target});
      assertThat(queue.size()).isEqualTo(reference.size());
    }
    while (!reference.isEmpty()) {
      now = pollBoth(queue, reference, now);
    }
    assertThat(queue.isEmpty()).isTrue();
    assertThat(queue.pollBefore(Long.MAX_VALUE)).isFalse();
  }

  /** Times near Long.MAX_VALUE (a saturated latency) and at both ends of a bucket, with the default buckets. */
  @Property(tries = 50)
  void farAndSaturatedTimesComeOutInOrder(@ForAll @Size(min = 1, max = 200) List<@LongRange(min = 0,
      max = Long.MAX_VALUE / 2) Long> delays, @ForAll long seed) {
    EventQueue queue = new EventQueue();
    List<long[]> expected = new ArrayList<>();
    SplittableRandom random = new SplittableRandom(seed);
    long base = 1L << 62;
    for (int i = 0; i < delays.size(); i++) {
      long at = switch (random.nextInt(4)) {
        case 0 -> delays.get(i);
        case 1 -> Math.min(Long.MAX_VALUE, base + delays.get(i));
        case 2 -> (delays.get(i) >> EventQueue.BUCKET_BITS << EventQueue.BUCKET_BITS) - 1 + random.nextInt(2);
        default -> delays.get(i) % 5_000_000_000L;
      };
      at = Math.max(0, at);
      queue.schedule(at, 1, null, i);
      expected.add(new long[] {at, i});
    }
    expected.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
    for (long[] event : expected) {
      assertThat(queue.isEmpty()).isFalse(); // (pollBefore cannot reach an event at Long.MAX_VALUE)
      queue.poll();
      assertThat(queue.time).isEqualTo(event[0]);
      assertThat(queue.datum).isEqualTo(event[1]);
    }
    assertThat(queue.isEmpty()).isTrue();
  }

  @Property(tries = 10)
  void badBucketSettingsAreRefusedWithTheirValue(@ForAll @IntRange(min = 41, max = 100) int bits) {
    assertThatThrownBy(() -> new EventQueue(bits, 15)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bucketBits must be in 0..40, was " + bits);
    assertThatThrownBy(() -> new EventQueue(-bits, 15)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bucketBits must be in 0..40, was " + -bits);
    assertThatThrownBy(() -> new EventQueue(20, bits - 20)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bucketCountBits must be in 1..20, was " + (bits - 20));
    assertThatThrownBy(() -> new EventQueue(20, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("bucketCountBits must be in 1..20, was 0");
  }

  private static long pollBoth(EventQueue queue, PriorityQueue<Object[]> reference, long now) {
    Object[] expected = reference.poll();
    if (expected == null) {
      assertThat(queue.pollBefore(Long.MAX_VALUE)).isFalse();
      return now;
    }
    assertThat(queue.peekTime()).isEqualTo((long) expected[0]);
    // pollBefore stops exactly at the next event's time.
    assertThat(queue.pollBefore((long) expected[0])).isFalse();
    assertThat(queue.pollBefore((long) expected[0] + 1)).isTrue();
    assertThat(new Object[] {queue.time, queue.kind, queue.datum, queue.target})
        .as("event %s", expected[1])
        .containsExactly(expected[0], expected[2], expected[3], expected[4]);
    return queue.time;
  }

  @Property(tries = 20)
  void everyKindFromZeroTo255SurvivesThePackingAndOthersAreRefused(@ForAll @IntRange(min = 0, max = 255) int kind) {
    EventQueue queue = new EventQueue();
    queue.schedule(5, kind, null, -1);
    queue.poll();
    assertThat(queue.kind).isEqualTo(kind);
    assertThat(queue.datum).isEqualTo(-1);
    assertThatThrownBy(() -> queue.schedule(5, 256 + kind, null, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("event kind must be in 0..255, was " + (256 + kind));
    assertThatThrownBy(() -> queue.schedule(5, -1 - kind, null, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("event kind must be in 0..255, was " + (-1 - kind));
  }

  /** The server's ring against a deque of (start, attempt): order, sizes and forgetting, across many chunks. */
  @Property(tries = 30)
  void theServiceRingIsAFifoThatForgetsAttemptsButKeepsTheirPlaces(
      @ForAll @Size(min = 1, max = 200) List<@IntRange(min = 0, max = 9) Integer> operations, @ForAll long seed) {
    ServiceRing ring = new ServiceRing();
    java.util.ArrayDeque<Object[]> reference = new java.util.ArrayDeque<>();
    java.util.Map<Attempt, Long> tickets = new java.util.HashMap<>();
    SplittableRandom random = new SplittableRandom(seed);
    List<Attempt> added = new ArrayList<>();
    long start = 0;
    for (int operation : operations) {
      if (operation < 5) {
        // Bursts, so the ring crosses chunk boundaries both ways.
        for (int i = random.nextInt(1 << (ServiceRing.CHUNK_BITS + 1)); i >= 0; i--) {
          Attempt attempt = new Attempt(null, start);
          start += random.nextInt(3);
          tickets.put(attempt, ring.add(start, attempt));
          Object[] entry = {start, attempt};
          reference.addLast(entry);
          added.add(attempt);
        }
      } else if (operation < 7 && !added.isEmpty()) {
        Attempt forgotten = added.get(random.nextInt(added.size()));
        ring.forget(tickets.get(forgotten));
        reference.forEach(e -> {
          if (e[1] == forgotten) {
            e[1] = null;
          }
        });
      } else if (operation < 9) {
        for (int i = random.nextInt(1 << (ServiceRing.CHUNK_BITS + 1)); i >= 0 && !reference.isEmpty(); i--) {
          Object[] expected = reference.pollFirst();
          assertThat(ring.firstStart()).isEqualTo((long) expected[0]);
          assertThat(ring.first()).isSameAs(expected[1]);
          ring.removeFirst();
        }
      } else {
        ring.clear();
        reference.clear();
      }
      assertThat(ring.size()).isEqualTo(reference.size());
      assertThat(ring.isEmpty()).isEqualTo(reference.isEmpty());
    }
  }

  @Property
  void histogramPercentilesAreWithinTwoPercent(@ForAll @Size(min = 1, max = 200) List<@LongRange(min = 0, max = 100_000_000_000L) Long> nanos) {
    Metrics.LatencyHistogram histogram = new Metrics.LatencyHistogram();
    nanos.forEach(histogram::record);
    List<Long> sorted = new ArrayList<>(nanos);
    sorted.sort(null);
    for (double q : new double[] {0.5, 0.99}) {
      long exact = sorted.get((int) Math.max(0, Math.ceil(q * sorted.size()) - 1)) / 1000 * 1000;
      long estimate = histogram.percentile(q);
      assertThat((double) Math.abs(estimate - exact)).isLessThanOrEqualTo(Math.max(1000, 0.02 * exact));
    }
  }

  @Property
  void exponentialThinkTimesAreNeverNegative(@ForAll long seed) {
    SplitMix64 random = new SplitMix64(seed);
    for (int i = 0; i < 100; i++) {
      assertThat(random.exponentialNanos(10_000_000_000L)).isNotNegative();
      double u = random.nextDouble();
      assertThat(u).isGreaterThanOrEqualTo(0.0).isLessThan(1.0);
    }
  }
}
