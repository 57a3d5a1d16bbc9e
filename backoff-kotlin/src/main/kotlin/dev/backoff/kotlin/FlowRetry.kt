package dev.backoff.kotlin

import dev.backoff.NanoClock
import dev.backoff.RetryPolicy
import dev.backoff.RetryScheduler
import dev.backoff.driver.AsyncAttempt
import dev.backoff.driver.OutcomeJudge
import dev.backoff.driver.RetryLoops
import dev.backoff.driver.Verdict
import java.util.concurrent.CompletableFuture
import java.util.random.RandomGenerator
import kotlin.coroutines.cancellation.CancellationException
import kotlin.time.Duration.Companion.nanoseconds
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.isActive
import kotlinx.coroutines.job
import kotlinx.coroutines.launch

/**
 * Retries this flow under [policy] until it emits its first value: each attempt collects the flow afresh; an
 * attempt that fails before emitting anything is retried as the policy says (retry and abort rules, budget,
 * pushback, deadline, listeners: the core asynchronous loop's decisions), waiting with [delay].
 *
 * The first value (or an empty completion) commits the attempt: from then on values, completion and errors
 * pass straight through, and a later error is not retried, because collecting again would emit the values
 * the collector has already seen a second time. A flow that can resume after a failure should resume in its
 * own source (from the last value seen). The policy's result rules do not apply: a flow has no single result.
 *
 * Attempts are collected in the collector's coroutine (the flow's context is preserved): the loop's timers
 * (retries, attempt timeouts) are child coroutines, and a retry hands its attempt back to the collector.
 * Cancelling the collector during a backoff stops the call with no further attempt; the [CancellationException]
 * is rethrown untouched. An attempt that outlives the policy's attempt timeout before its first value is
 * cancelled (its collection stops) and fails with a `TimeoutException`, judged by the policy's rules like any
 * other failure.
 *
 * Outcomes: a failure before the first value ends the flow with the last failure, carrying the earlier ones
 * and a [dev.backoff.RetryHistory] as suppressed exceptions.
 *
 * A flow is not hedged (its values come from one committed attempt): a policy with hedging is refused with
 * an [IllegalArgumentException].
 */
fun <T> Flow<T>.retry(
    policy: RetryPolicy<*>,
    clock: NanoClock = policy.clock(),
    random: RandomGenerator = policy.random(),
): Flow<T> {
    require(policy.hedging() == null) {
        "policy '${policy.name()}' hedges, and a flow cannot be hedged (its values come from one attempt): " +
            "use a policy without hedging"
    }
    val upstream = this
    return flow {
        val downstream = this
        // The failure leaves the scope as a value and is thrown from this frame: a failure thrown out of a
        // suspended scope may reach the collector as a copy (coroutines' stack-trace recovery, on when
        // assertions are), without the history attached to the original.
        val failure: Throwable? = coroutineScope {
            // The collector's work: attempts to collect. The loop's timers (retries falling due, attempt
            // timeouts) run in child coroutines: a timeout must fire while the collector is busy collecting the
            // attempt it ends, and a retry only queues its attempt here.
            val work = Channel<AttemptStage>(Channel.UNLIMITED)
            val scheduler = RetryScheduler { task, delayNanos ->
                JobFuture(launch {
                    delay(delayNanos.nanoseconds)
                    task.run()
                })
            }
            val attempt = AsyncAttempt<Any?> { AttemptStage().also { stage -> work.trySend(stage) } }
            @Suppress("UNCHECKED_CAST")
            val call = RetryLoops.async(executor(policy as RetryPolicy<Any?>, scheduler, clock, random), attempt,
                FAILURES_ONLY)
            call.whenComplete { _, _ -> work.close() }
            var committed = false
            try {
                for (stage in work) {
                    if (stage.isDone) {
                        continue // cancelled before it ran
                    }
                    try {
                        // In a scope of its own, which the loop cancels when it cancels the attempt (its attempt
                        // timeout); the collector's coroutine, which emits, stays the same (a scope, not a child).
                        coroutineScope {
                            val attemptJob = coroutineContext.job
                            stage.whenComplete { _, _ ->
                                if (stage.isCancelled) {
                                    attemptJob.cancel()
                                }
                            }
                            upstream.collect { value ->
                                if (!committed) {
                                    committed = true
                                    stage.complete(null) // the loop accepts: the call is over, this attempt streams on
                                }
                                downstream.emit(value)
                            }
                        }
                        if (!committed) {
                            committed = true
                            stage.complete(null)
                        }
                    } catch (failure: Throwable) {
                        if (committed || (failure is CancellationException && !currentCoroutineContext().isActive)) {
                            throw failure
                        }
                        stage.completeExceptionally(failure) // the loop decides: retry, or end the call with it
                    }
                }
            } catch (failure: Throwable) {
                call.cancel(false) // cancelled while waiting or collecting: no further attempt
                if (failure is CancellationException && !currentCoroutineContext().isActive) {
                    throw failure
                }
                return@coroutineScope failure // after the first value: the stream's own failure
            }
            call.handle { _, failure -> failure }.getNow(null)?.let(::unwrap)
        }
        if (failure != null) {
            throw failure
        }
    }
}

/** A flow attempt: completes at its first signal. */
private class AttemptStage : CompletableFuture<Any?>()

/** A flow has no result to judge: an attempt failed before its first value, or it is committed. */
private val FAILURES_ONLY = OutcomeJudge<Any?> { _, _, failure ->
    if (failure == null) Verdict.ACCEPT else Verdict.RETRYABLE
}
