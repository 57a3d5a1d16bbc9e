package dev.backoff.kotlin

import dev.backoff.Hedging
import dev.backoff.RetryPolicy
import java.time.Duration
import kotlin.test.Test
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue
import kotlinx.coroutines.flow.flowOf

class FlowHedgingTest {
    @Test
    fun aFlowCannotBeHedged() {
        val policy = RetryPolicy.builder<Any?>().name("hedged").hedging(Hedging.after(Duration.ofMillis(10))).build()
        val refused = assertFailsWith<IllegalArgumentException> { flowOf(1, 2).retry(policy) }
        assertTrue(refused.message!!.contains("'hedged' hedges, and a flow cannot be hedged"), refused.message)
    }
}
