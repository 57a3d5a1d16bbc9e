package dev.backoff.kotlin

import dev.backoff.Hedging
import dev.backoff.NanoClock
import dev.backoff.RetryEvent
import dev.backoff.RetryHistory
import dev.backoff.RetryListener
import dev.backoff.RetryPolicy
import dev.backoff.StopReason
import java.io.IOException
import java.util.concurrent.CopyOnWriteArrayList
import kotlin.coroutines.cancellation.CancellationException
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertSame
import kotlin.test.assertTrue
import kotlin.time.Duration.Companion.hours
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.test.TestScope
import kotlinx.coroutines.test.advanceTimeBy
import kotlinx.coroutines.test.currentTime
import kotlinx.coroutines.test.runCurrent
import kotlinx.coroutines.test.runTest

/**
 * `retrying { }` under a hedging policy, in `runTest`'s virtual time with the test scheduler as the clock: the
 * hedges are the core asynchronous loop's, their delays [delay]s on the caller's dispatcher.
 */
class RetryingHedgingTest {
    private val events = CopyOnWriteArrayList<String>()

    private fun recording() = object : RetryListener<String> {
        override fun onHedgeSent(event: RetryEvent<String>) {
            events += "hedge ${event.attempts()} sent"
        }

        override fun onHedgeWon(event: RetryEvent<String>) {
            events += "hedge ${event.attempts()} won"
        }

        override fun onSuccess(event: RetryEvent<String>) {
            events += "success after ${event.attempts()}"
        }

        override fun onExhausted(event: RetryEvent<String>) {
            events += "exhausted: ${event.stopReason()}"
        }

        override fun onAborted(event: RetryEvent<String>) {
            events += "aborted: ${event.stopReason()}"
        }
    }

    /** Hedges after 100 ms; its long backoff must never be used by a hedged call. */
    private fun hedged(attempts: Int = 3): RetryPolicy<String> = retryPolicy {
        name = "hedged"
        maxAttempts = attempts
        backoff = fixed(10.seconds)
        hedging = hedgeAfter(100.milliseconds)
        retryOn(IOException::class)
        listener(recording())
    }

    private fun TestScope.virtualClock() = NanoClock { currentTime * 1_000_000 }

    @Test
    fun aSlowAttemptIsHedgedTheHedgeWinsAndTheLoserIsCancelled() = runTest {
        val starts = mutableListOf<Long>()
        var loserCancelled = false
        val result = hedged().retrying(clock = virtualClock()) {
            val attempt = starts.size + 1
            starts += currentTime
            if (attempt == 1) {
                try {
                    delay(10.seconds)
                    "slow"
                } catch (e: CancellationException) {
                    loserCancelled = true
                    throw e
                }
            } else {
                delay(30.milliseconds)
                "hedge $attempt"
            }
        }
        assertEquals("hedge 2", result)
        assertEquals(listOf(0L, 100L), starts)
        // The call returned when the hedge answered: neither the cancelled loser nor the third attempt's
        // pending hedge (due at 200 ms) held it.
        assertEquals(130L, currentTime)
        assertTrue(loserCancelled, "the slow attempt's coroutine was cancelled")
        assertEquals(listOf("hedge 2 sent", "hedge 2 won", "success after 2"), events)
    }

    @Test
    fun theExampleInTheDocs() = runTest {
        // Example for docs/kotlin.md
        val policy = retryPolicy<String> {
            maxAttempts = 3                       // the first attempt and at most two hedges
            hedging = hedgeAfter(100.milliseconds)
        }
        val starts = mutableListOf<Long>()
        val result = policy.retrying(clock = NanoClock { currentTime * 1_000_000 }) {
            val attempt = starts.size + 1
            starts += currentTime
            if (attempt == 1) delay(10.seconds) else delay(30.milliseconds) // a slow first attempt
            "answer $attempt"
        }
        assertEquals("answer 2", result)          // the hedge, started at 100 ms, answered at 130 ms
        assertEquals(listOf(0L, 100L), starts)
    }

    @Test
    fun theFirstAnswerInTimeNeedsNoHedge() = runTest {
        var attempts = 0
        val result = hedged().retrying(clock = virtualClock()) {
            attempts++
            delay(99.milliseconds)
            "fast"
        }
        assertEquals("fast", result)
        assertEquals(1, attempts)
        assertEquals(99L, currentTime) // the pending hedge was cancelled, not waited for
        assertEquals(listOf("success after 1"), events)
    }

    @Test
    fun aRetryableFailureHedgesAtOnceWithoutBackoff() = runTest {
        val starts = mutableListOf<Long>()
        val result = hedged().retrying(clock = virtualClock()) {
            val attempt = starts.size + 1
            starts += currentTime
            delay(20.milliseconds)
            if (attempt == 1) throw IOException("connection reset")
            "ok $attempt"
        }
        assertEquals("ok 2", result)
        assertEquals(listOf(0L, 20L), starts) // at the failure, not after the hedging delay or the backoff
        assertEquals(40L, currentTime)
    }

    @Test
    fun aFailureThePolicyDoesNotRetryEndsTheCallAndCancelsTheOtherAttempts() = runTest {
        var slowCancelled = false
        val fatal = IllegalStateException("bad request")
        val thrown = assertFailsWith<IllegalStateException> {
            hedged().retrying<String>(clock = virtualClock()) {
                if (currentTime == 0L) {
                    try {
                        awaitCancellation()
                    } catch (e: CancellationException) {
                        slowCancelled = true
                        throw e
                    }
                }
                delay(10.milliseconds)
                throw fatal
            }
        }
        assertSame(fatal, thrown)
        assertEquals(110L, currentTime)
        assertTrue(slowCancelled, "the attempt still in flight was cancelled")
        assertEquals(StopReason.NOT_RETRYABLE, RetryHistory.of(thrown).stopReason())
    }

    @Test
    fun whenEveryAttemptFailsTheLastFailureIsThrownWithTheOthersAttached() = runTest {
        val failures = mutableListOf<IOException>()
        val starts = mutableListOf<Long>()
        val thrown = assertFailsWith<IOException> {
            hedged().retrying<String>(clock = virtualClock()) {
                val failure = IOException("attempt ${failures.size + 1}")
                failures += failure
                starts += currentTime
                delay(150.milliseconds) // slower than the hedging delay: the attempts overlap
                throw failure
            }
        }
        assertSame(failures.last(), thrown)
        assertEquals(listOf("attempt 1", "attempt 2"), thrown.suppressed.filterNot { it is RetryHistory }.map { it.message })
        assertEquals(StopReason.ATTEMPTS_EXHAUSTED, RetryHistory.of(thrown).stopReason())
        assertEquals(3, RetryHistory.of(thrown).attempts())
        // The second after the hedging delay, the third at once when the first failed (not at 200 ms).
        assertEquals(listOf(0L, 100L, 150L), starts)
        assertEquals(300L, currentTime)
    }

    @Test
    fun cancellingTheCallerCancelsEveryAttemptInFlightAndStartsNoOther() = runTest {
        var started = 0
        var cancelled = 0
        val caller = launch {
            hedged(attempts = 5).retrying<String>(clock = virtualClock()) {
                started++
                try {
                    awaitCancellation()
                } catch (e: CancellationException) {
                    cancelled++
                    throw e
                }
            }
        }
        advanceTimeBy(150) // attempts at 0 and 100 ms; the third is due at 200 ms
        assertEquals(2, started)
        caller.cancel()
        advanceTimeBy(1.hours)
        runCurrent()
        assertEquals(2, started, "no attempt started after the cancellation")
        assertEquals(2, cancelled, "both attempts in flight were cancelled")
        assertTrue(caller.isCancelled)
        assertEquals(listOf("hedge 2 sent", "aborted: CANCELLED"), events)
    }

    @Test
    fun hedgeAfterBuildsTheCoresHedging() {
        val policy = retryPolicy<String> {
            maxAttempts = 3
            hedging = hedgeAfter(50.milliseconds, maxHedges = 2)
        }
        assertEquals(Hedging.after(java.time.Duration.ofMillis(50)).maxHedges(2), policy.hedging())
        val unbounded = retryPolicy<String> { hedging = hedgeAfter(50.milliseconds) }
        assertEquals(Hedging.UNBOUNDED, unbounded.hedging()!!.maxHedges())
        val tooMany = assertFailsWith<IllegalArgumentException> {
            retryPolicy<String> {
                maxAttempts = 2
                hedging = hedgeAfter(50.milliseconds, maxHedges = 2)
            }
        }
        assertTrue(tooMany.message!!.contains("maxHedges(2) needs maxAttempts of at least 3"), tooMany.message)
    }
}
