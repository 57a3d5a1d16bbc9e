package dev.backoff.kotlin

import dev.backoff.RetryHistory
import dev.backoff.StopReason
import java.io.IOException
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.time.Duration.Companion.hours
import kotlin.time.Duration.Companion.milliseconds
import kotlinx.coroutines.flow.catch
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.take
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.test.advanceTimeBy
import kotlinx.coroutines.test.currentTime
import kotlinx.coroutines.test.runCurrent
import kotlinx.coroutines.test.runTest

class FlowRetryTest {
    private val policy = retryPolicy<Any?> {
        maxAttempts = 3
        backoff = fixed(100.milliseconds)
    }

    @Test
    fun retriesAFlowThatFailsBeforeItsFirstValue() = runTest {
        // Example for docs/kotlin.md
        var collections = 0
        val prices = flow {
            if (++collections < 3) throw IOException("connection refused")
            emit(1)
            emit(2)
        }
        assertEquals(listOf(1, 2), prices.retry(policy).toList())
        assertEquals(3, collections)
        assertEquals(200, currentTime)
    }

    @Test
    fun anErrorAfterTheFirstValueIsNotRetried() = runTest {
        var collections = 0
        val seen = mutableListOf<Int>()
        val failure = assertFailsWith<IOException> {
            flow {
                collections++
                emit(1)
                throw IOException("reset mid-stream")
            }.retry(policy).collect { seen += it }
        }
        assertEquals("reset mid-stream", failure.message)
        assertEquals(listOf(1), seen)
        assertEquals(1, collections)
    }

    @Test
    fun endsWithTheLastFailureAndItsHistory() = runTest {
        var collections = 0
        val failure = assertFailsWith<IOException> {
            flow<Int> { throw IOException("down ${++collections}") }.retry(policy).toList()
        }
        assertEquals("down 3", failure.message)
        assertEquals(3, RetryHistory.of(failure).attempts())
        assertEquals(StopReason.ATTEMPTS_EXHAUSTED, RetryHistory.of(failure).stopReason())
    }

    @Test
    fun aDownstreamThatStopsEarlyEndsTheFlowQuietly() = runTest {
        var collections = 0
        val values = flow {
            collections++
            emit(1)
            emit(2)
            emit(3)
        }.retry(policy).take(2).toList()
        assertEquals(listOf(1, 2), values)
        assertEquals(1, collections)
    }

    @Test
    fun cancellingDuringTheBackoffStopsWithNoFurtherCollection() = runTest {
        var collections = 0
        val collector = launch {
            flow<Int> {
                collections++
                throw IOException("down")
            }.retry(policy.copy { maxAttempts = 10 }).catch { }.collect { }
        }
        advanceTimeBy(150)
        assertEquals(2, collections)
        collector.cancel()
        advanceTimeBy(1.hours)
        runCurrent()
        assertEquals(2, collections)
    }
}
