package dev.backoff.kotlin

import dev.backoff.Backoff
import dev.backoff.Jitter
import dev.backoff.testing.ScriptedRandom
import java.io.IOException
import java.time.Duration
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds

class PolicyDslTest {
    @Test
    fun buildsTheJavaPolicy() {
        val policy = retryPolicy<String> {
            name = "catalog"
            maxAttempts = 5
            backoff = exponential(100.milliseconds, cap = 20.seconds, jitter = FULL)
            maxElapsed = 30.seconds
            maxPushback = 2.seconds
            retryOn(IOException::class)
        }
        assertEquals("catalog", policy.name())
        assertEquals(5, policy.maxAttempts())
        assertEquals(Duration.ofSeconds(30), policy.maxElapsed())
        assertEquals(Duration.ofSeconds(2), policy.maxPushback())
        val expected = Backoff.exponential(Duration.ofMillis(100), 2.0, Duration.ofSeconds(20), Jitter.full())
        for (u in listOf(0.0, 0.3, 0.999)) {
            for (retry in 1..8) {
                assertEquals(
                    expected.delayNanos(retry, 0, 0, ScriptedRandom(u)),
                    policy.backoff().delayNanos(retry, 0, 0, ScriptedRandom(u)),
                )
            }
        }
        // Full jitter, exactly: u · min(cap, 100 ms · 2^(n − 1)).
        assertEquals(Duration.ofMillis(40).toNanos(), policy.backoff().delayNanos(2, 0, 0, ScriptedRandom(0.2)))
    }

    @Test
    fun aBadValueFailsWhereItIsWritten() {
        val tooFew = assertFailsWith<IllegalArgumentException> { retryPolicy<String> { maxAttempts = 0 } }
        assertEquals("maxAttempts must be at least 1, was 0", tooFew.message)
        val infinite = assertFailsWith<IllegalArgumentException> {
            retryPolicy<String> { maxElapsed = kotlin.time.Duration.INFINITE }
        }
        assertEquals("maxElapsed must be finite, was Infinity", infinite.message)
    }

    @Test
    fun copiesAPolicyWithChanges() {
        val base = retryPolicy<String> { maxAttempts = 5 }
        val changed = base.copy { maxAttempts = 2 }
        assertEquals(5, base.maxAttempts())
        assertEquals(2, changed.maxAttempts())
    }
}
