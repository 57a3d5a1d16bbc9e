package dev.backoff.kotlin

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
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.test.TestScope
import kotlinx.coroutines.test.advanceTimeBy
import kotlinx.coroutines.test.currentTime
import kotlinx.coroutines.test.runCurrent
import kotlinx.coroutines.test.runTest
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout

class RetryingTest {
    private val stops = CopyOnWriteArrayList<StopReason>()

    private fun recording() = object : RetryListener<String> {
        override fun onExhausted(event: RetryEvent<String>) {
            stops.add(event.stopReason())
        }

        override fun onAborted(event: RetryEvent<String>) {
            stops.add(event.stopReason())
        }
    }

    private fun policy(attempts: Int = 4): RetryPolicy<String> = retryPolicy {
        maxAttempts = attempts
        backoff = exponential(100.milliseconds, cap = 10.seconds)
        retryOn(IOException::class)
        listener(recording())
    }

    private fun TestScope.virtualClock() = NanoClock { currentTime * 1_000_000 }

    @Test
    fun retriesInVirtualTime() = runTest {
        // Example for docs/kotlin.md
        val policy = retryPolicy<String> {
            maxAttempts = 4
            backoff = exponential(100.milliseconds, cap = 10.seconds)
            retryOn(IOException::class)
        }
        val attemptTimes = mutableListOf<Long>()
        val body = policy.retrying {
            attemptTimes += currentTime
            if (attemptTimes.size < 3) throw IOException("connection refused")
            "ok"
        }
        assertEquals("ok", body)
        assertEquals(listOf(0L, 100L, 300L), attemptTimes) // waits of 100 ms, then 200 ms
    }

    @Test
    fun throwsTheLastFailureUntouchedWithTheEarlierOnesSuppressed() = runTest {
        val thrown = mutableListOf<IOException>()
        val failure = assertFailsWith<IOException> {
            policy(3).retrying<String> {
                throw IOException("attempt ${thrown.size + 1}").also { thrown += it }
            }
        }
        assertSame(thrown.last(), failure)
        assertEquals(listOf("attempt 1", "attempt 2"), failure.suppressed.filterNot { it is RetryHistory }.map { it.message })
        val history = RetryHistory.of(failure)
        assertEquals(3, history.attempts())
        assertEquals(StopReason.ATTEMPTS_EXHAUSTED, history.stopReason())
    }

    @Test
    fun cancellingDuringTheBackoffStopsWithNoFurtherAttempt() = runTest {
        var attempts = 0
        val cancellation = CancellationException("caller gave up")
        var caught: Throwable? = null
        val caller = launch {
            try {
                policy(10).retrying<String> {
                    attempts++
                    throw IOException("down")
                }
            } catch (e: CancellationException) {
                caught = e
                throw e
            }
        }
        advanceTimeBy(150) // attempts at 0 and 100 ms; the next is due at 300 ms
        assertEquals(2, attempts)
        caller.cancel(cancellation)
        advanceTimeBy(1.hours)
        runCurrent()
        assertEquals(2, attempts)
        assertEquals(listOf(StopReason.CANCELLED), stops)
        assertTrue(caller.isCancelled)
        assertTrue(caught is CancellationException, "caught $caught")
        assertEquals("caller gave up", caught.message)
    }

    @Test
    fun cancellingDuringAnAttemptCancelsIt() = runTest {
        var attemptCancelled = false
        val caller = launch {
            policy().retrying<String> {
                try {
                    kotlinx.coroutines.delay(1.hours)
                    "late"
                } catch (e: CancellationException) {
                    attemptCancelled = true
                    throw e
                }
            }
        }
        advanceTimeBy(10)
        caller.cancel()
        runCurrent()
        assertTrue(attemptCancelled)
        assertEquals(listOf(StopReason.CANCELLED), stops)
    }

    @Test
    fun aTimeoutInsideTheBlockIsAFailureThePolicyJudges() = runTest {
        val policy = retryPolicy<String> {
            maxAttempts = 3
            backoff = fixed(10.milliseconds)
            retryOn(TimeoutCancellationException::class)
        }
        var attempts = 0
        val result = policy.retrying {
            attempts++
            if (attempts < 3) withTimeout(5) { kotlinx.coroutines.delay(1.hours) }
            "ok"
        }
        assertEquals("ok", result)
        assertEquals(3, attempts)
    }

    @Test
    fun aDeadlineReadsTheClockItIsGiven() = runTest {
        val policy = policy(100).copy { maxElapsed = 500.milliseconds }
        var attempts = 0
        val failure = assertFailsWith<IOException> {
            policy.retrying<String>(clock = virtualClock()) {
                attempts++
                throw IOException("down")
            }
        }
        // 100 + 200 ms waited; the next wait (400 ms) would end past 500 ms.
        assertEquals(3, attempts)
        assertEquals(StopReason.DEADLINE_EXCEEDED, RetryHistory.of(failure).stopReason())
    }

    @Test
    fun runsOnRealThreads() = runBlocking {
        val policy = retryPolicy<String> {
            maxAttempts = 3
            backoff = fixed(1.milliseconds)
        }
        var attempts = 0
        val result = withContext(Dispatchers.Default) {
            policy.retrying {
                if (++attempts < 3) throw IOException("down")
                "ok"
            }
        }
        assertEquals("ok", result)
        assertEquals(3, attempts)
    }
}
