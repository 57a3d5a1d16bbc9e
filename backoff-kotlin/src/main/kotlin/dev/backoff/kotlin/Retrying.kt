package dev.backoff.kotlin

import dev.backoff.AsyncRetryExecutor
import dev.backoff.NanoClock
import dev.backoff.RetryPolicy
import dev.backoff.RetryScheduler
import dev.backoff.StopReason
import dev.backoff.driver.AsyncAttempt
import dev.backoff.driver.AttemptContext
import dev.backoff.driver.OutcomeJudge
import dev.backoff.driver.RetryLoops
import dev.backoff.driver.Verdict
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionException
import java.util.concurrent.CompletionStage
import java.util.concurrent.Future
import java.util.concurrent.RejectedExecutionException
import java.util.concurrent.TimeUnit
import java.util.random.RandomGenerator
import kotlin.coroutines.cancellation.CancellationException
import kotlin.coroutines.resume
import kotlin.time.Duration.Companion.nanoseconds
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Job
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.isActive
import kotlinx.coroutines.launch
import kotlinx.coroutines.suspendCancellableCoroutine

/**
 * Calls [block], retrying it under this policy, and returns its first accepted result. The decisions are
 * the core asynchronous loop's, as for `AsyncRetryExecutor` (retry and abort rules, result rules, per-class
 * backoff, budget, pushback, deadline, listeners); the waits are [delay]s, so no thread is held and
 * `kotlinx-coroutines-test` virtual time drives them (`delay` waits whole milliseconds, rounding up).
 *
 * Each attempt runs [block] in a child coroutine of the caller (the first one at once, undispatched), so it
 * sees the caller's context and is cancelled with it.
 *
 * Outcomes: the accepted result; the last result if retries stop on results; or the last failure, unchanged,
 * with the earlier failures and a [dev.backoff.RetryHistory] attached as suppressed exceptions.
 *
 * Hedging: under a policy with [dev.backoff.Hedging], another attempt of [block] starts in its own child
 * coroutine when none has answered within the hedging delay (a [delay] too), or at once after a retryable
 * failure; the first accepted result is returned and the other attempts' coroutines are cancelled. `retrying`
 * returns once they have finished cancelling, so a block should suspend cancellably (as `delay` and suspending
 * clients do). A circuit breaker and a rate limiter on the policy apply to every attempt, the first included.
 *
 * Cancellation: if the calling coroutine is cancelled (during an attempt or a backoff), no further attempt
 * starts, the attempts in flight are cancelled, listeners hear [StopReason.CANCELLED], and the
 * [CancellationException] is rethrown untouched. A [CancellationException] that [block] throws while the
 * caller is still active (a `withTimeout` inside it) is an ordinary failure, judged by the policy's rules.
 *
 * @param clock the clock for the deadline and listeners' elapsed times; in a virtual-time test pass one
 *   reading the test scheduler (`NanoClock { testScheduler.currentTime * 1_000_000 }`)
 * @param random the jitter source
 * @throws Throwable the last failure, when retries stop on a failure
 * @throws CancellationException if the calling coroutine is cancelled
 */
suspend fun <T> RetryPolicy<T>.retrying(
    clock: NanoClock = clock(),
    random: RandomGenerator = random(),
    block: suspend () -> T,
): T {
    val policy = this
    val outcome = coroutineScope {
        val scope = this
        val executor = executor(policy, CoroutineRetryScheduler(scope), clock, random)
        val call = RetryLoops.async(executor, CoroutineAttempt(scope, block), CancellationAwareJudge(scope.coroutineContext[Job]!!))
        awaitOutcome(call)
    }
    if (outcome is Failed) {
        throw outcome.failure
    }
    @Suppress("UNCHECKED_CAST")
    return outcome as T
}

internal fun <R> executor(policy: RetryPolicy<R>, scheduler: RetryScheduler, clock: NanoClock, random: RandomGenerator):
    AsyncRetryExecutor<R> {
    var executor = AsyncRetryExecutor.of(policy, scheduler)
    if (clock !== policy.clock()) {
        executor = executor.withClock(clock)
    }
    if (random !== policy.random()) {
        executor = executor.withRandom(random)
    }
    return executor
}

/** A failed call's failure, as a value: thrown by the caller's own frame, so coroutines never copy it. */
internal class Failed(val failure: Throwable)

/**
 * Waits for the call's end, as a value ([Failed] for a failure); cancelling the waiting coroutine cancels
 * the call.
 */
internal suspend fun awaitOutcome(call: CompletableFuture<*>): Any? = suspendCancellableCoroutine { waiter ->
    call.whenComplete { result, failure ->
        waiter.resume(if (failure == null) result else Failed(unwrap(failure)))
    }
    waiter.invokeOnCancellation { call.cancel(false) }
}

internal fun unwrap(failure: Throwable): Throwable =
    if (failure is CompletionException && failure.cause != null) failure.cause!! else failure

/**
 * The policy's rules, except that a [CancellationException] once the caller's job is no longer active is the
 * caller's cancellation: the call stops without another attempt.
 */
internal class CancellationAwareJudge<R>(private val job: Job) : OutcomeJudge<R> {
    override fun judge(policy: RetryPolicy<R>, result: R?, failure: Throwable?): Verdict =
        if (failure is CancellationException && !job.isActive) {
            Verdict.stop(StopReason.CANCELLED)
        } else {
            OutcomeJudge.policyRules<R>().judge(policy, result, failure)
        }
}

/** Runs each attempt in a child coroutine of [scope], undispatched (the first one starts at once). */
internal class CoroutineAttempt<T>(private val scope: CoroutineScope, private val block: suspend () -> T) :
    AsyncAttempt<T> {
    override fun start(context: AttemptContext): CompletionStage<T> {
        val stage = JobStage<T>()
        stage.job = scope.launch(start = CoroutineStart.UNDISPATCHED) {
            try {
                stage.complete(block())
            } catch (failure: Throwable) {
                stage.completeExceptionally(failure) // the loop judges it; nothing escapes into the scope
            }
        }
        return stage
    }
}

/** An attempt's stage; cancelling it cancels the attempt's coroutine. */
internal class JobStage<T> : CompletableFuture<T>() {
    @Volatile
    var job: Job? = null

    override fun cancel(mayInterruptIfRunning: Boolean): Boolean {
        val cancelled = super.cancel(mayInterruptIfRunning)
        if (cancelled) {
            job?.cancel()
        }
        return cancelled
    }
}

/**
 * The async loop's timer over a coroutine scope: a retry is a child coroutine that [delay]s, then runs the
 * task. Refuses tasks once the scope is no longer active (the call then ends with its last failure).
 */
internal class CoroutineRetryScheduler(private val scope: CoroutineScope) : RetryScheduler {
    override fun schedule(task: Runnable, delayNanos: Long): Future<*> {
        if (!scope.isActive) {
            throw RejectedExecutionException("the coroutine scope is no longer active")
        }
        return JobFuture(scope.launch {
            delay(delayNanos.nanoseconds)
            task.run()
        })
    }
}

/** A [Job] seen as the [Future] the retry loop cancels. */
internal class JobFuture(private val job: Job) : Future<Any?> {
    override fun cancel(mayInterruptIfRunning: Boolean): Boolean {
        val wasActive = job.isActive
        job.cancel()
        return wasActive
    }

    override fun isCancelled(): Boolean = job.isCancelled

    override fun isDone(): Boolean = job.isCompleted

    override fun get(): Any? = throw UnsupportedOperationException("a retry's job cannot be waited on")

    override fun get(timeout: Long, unit: TimeUnit): Any? =
        throw UnsupportedOperationException("a retry's job cannot be waited on")
}
