package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.ConcurrencyLimiter.AttemptKind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The limiter's slots under threads, for a small limiter (its slots kept in one bitmap word) and a large one (a
 * stack of slots that shares a word with the count): threads racing to acquire and complete never hold more
 * attempts than the limit, nor more retries than the retry share allows, nor one slot twice; threads racing to
 * complete the same permits free each slot, and complete its breaker's permit, exactly once. Bounded: a few
 * hundred thousand operations, well under a second each.
 */
class ConcurrencyLimiterStressTest {
  private static final int THREADS = 4;

  /** Runs {@code worker} on {@link #THREADS} threads at once; the sum of what they return. */
  private static int onThreads(Callable<Integer> worker) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try {
      int sum = 0;
      for (Future<Integer> done : pool.invokeAll(Collections.nCopies(THREADS, worker))) {
        sum += done.get();
      }
      return sum;
    } finally {
      pool.shutdownNow();
    }
  }

  @ParameterizedTest(name = "limit {0}")
  @ValueSource(ints = {3, 64, 65})
  void racingThreadsStayWithinTheLimitAndTheRetryShare(int limit) throws Exception {
    // Released attempts give no sample, so even the adaptive limiter's limit stays where it starts.
    ConcurrencyLimiter limiter = limit <= 3 ? ConcurrencyLimiter.fixed(limit).retryShare(0.7).build()
        : ConcurrencyLimiter.aimd().bounds(1, limit).initialLimit(limit - 1).retryShare(0.7).build();
    int allowed = limiter.limit();
    int retriesAllowed = ConcurrencyLimiter.retryLimit(allowed, 0.7);
    int iterations = limit <= 3 ? 30_000 : 3_000;
    assertThat(mostHeldAtOnce(limiter, iterations, true)).as("attempts held at once").isBetween(1, allowed);
    assertThat(mostHeldAtOnce(limiter, iterations, false)).as("retries held at once").isBetween(1, retriesAllowed);
    assertThat(limiter.limit()).isEqualTo(allowed);
    assertGrantsExactly(limiter, allowed, retriesAllowed);
  }

  /**
   * Threads acquiring (first attempts and retries, or only retries) and completing: the most permits held at
   * once, counted by their holders. Each thread keeps up to a limit's worth before completing them, so that
   * the limit is reached whatever the interleaving; no permit is ever held by two threads.
   */
  private static int mostHeldAtOnce(ConcurrencyLimiter limiter, int iterations, boolean firsts) throws Exception {
    Set<ConcurrencyLimiter.Permit> held = ConcurrentHashMap.newKeySet();
    AtomicInteger holding = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger shared = new AtomicInteger();
    int keep = limiter.limit() + 1;
    int granted = onThreads(() -> {
      int mine = 0;
      List<ConcurrencyLimiter.Permit> kept = new ArrayList<>();
      for (int i = 0; i < iterations; i++) {
        ConcurrencyLimiter.Permit permit =
            limiter.tryAcquire(firsts && i % 3 != 0 ? AttemptKind.FIRST : AttemptKind.RETRY);
        if (permit != null) {
          mine++;
          most.accumulateAndGet(holding.incrementAndGet(), Math::max);
          shared.addAndGet(held.add(permit) ? 0 : 1);
          kept.add(permit);
        }
        if (permit == null || kept.size() > i % keep || i == iterations - 1) {
          for (ConcurrencyLimiter.Permit done : kept) {
            held.remove(done); // before the completion: once completed, another thread may be handed it
            holding.decrementAndGet();
            if (i % 2 == 0) {
              done.release();
            } else {
              ((CircuitBreaker.Permit) done).onFailure(FailureClass.TRANSIENT); // no sample
            }
          }
          kept.clear();
        }
      }
      return mine;
    });
    assertThat(granted).isPositive();
    assertThat(shared).as("a permit granted while another thread held it").hasValue(0);
    assertThat(limiter.inFlight()).isZero();
    return most.get();
  }

  @ParameterizedTest(name = "limit {0}")
  @ValueSource(ints = {8, 64, 100})
  void permitsCompletedByRacingThreadsAreFreedOnce(int limit) throws Exception {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.fixed(limit).build();
    AtomicIntegerArray breakerCompletions = new AtomicIntegerArray(limit);
    CyclicBarrier start = new CyclicBarrier(THREADS);
    List<ConcurrencyLimiter.Slot> round = Collections.synchronizedList(new ArrayList<>());
    for (int r = 0; r < 200; r++) {
      round.clear();
      for (int i = 0; i < limit; i++) {
        int index = i;
        round.add(limiter.acquire(AttemptKind.FIRST, new CountingPermit(breakerCompletions, index)));
      }
      assertThat(round).doesNotContainNull();
      assertThat(limiter.acquire(AttemptKind.FIRST, null)).as("a full limiter").isNull();
      int seed = r;
      // Every thread completes every permit of the round, each in its own order and way: one completion each
      // counts, the others change nothing.
      onThreads(() -> {
        int me = Math.floorMod(Thread.currentThread().getName().hashCode() + seed, THREADS);
        start.await();
        for (int k = 0; k < limit; k++) {
          ConcurrencyLimiter.Slot slot = round.get((k * (me + 1) + seed) % limit);
          switch ((k + me) % 3) {
            case 0 -> slot.onSuccess();
            case 1 -> slot.onFailure(FailureClass.THROTTLED);
            default -> slot.release();
          }
        }
        return 0;
      });
      assertThat(limiter.inFlight()).as("round %d", r).isZero();
      for (int i = 0; i < limit; i++) {
        assertThat(breakerCompletions.getAndSet(i, 0)).as("completions of breaker permit %d, round %d", i, r)
            .isEqualTo(1);
      }
    }
    assertGrantsExactly(limiter, limit, ConcurrencyLimiter.retryLimit(limit, 0.8));
  }

  /** A free limiter grants exactly {@code retries} retries, then first attempts up to {@code limit}, all distinct. */
  private static void assertGrantsExactly(ConcurrencyLimiter limiter, int limit, int retries) {
    Set<ConcurrencyLimiter.Permit> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
    for (int i = 0; i < limit; i++) {
      ConcurrencyLimiter.Permit permit = limiter.tryAcquire(i < retries ? AttemptKind.RETRY : AttemptKind.FIRST);
      assertThat(permit).as("grant %d of %d", i + 1, limit).isNotNull();
      distinct.add(permit);
    }
    assertThat(limiter.tryAcquire(AttemptKind.RETRY)).isNull();
    assertThat(limiter.tryAcquire(AttemptKind.FIRST)).isNull();
    assertThat(distinct).hasSize(limit);
    distinct.forEach(ConcurrencyLimiter.Permit::release);
    assertThat(limiter.inFlight()).isZero();
  }

  /** A breaker's permit that counts its completions in {@code counts[index]}. */
  private record CountingPermit(AtomicIntegerArray counts, int index) implements CircuitBreaker.Permit {
    @Override
    public void onSuccess() {
      counts.incrementAndGet(index);
    }

    @Override
    public void onFailure(FailureClass failureClass) {
      counts.incrementAndGet(index);
    }

    @Override
    public void release() {
      counts.incrementAndGet(index);
    }
  }
}
