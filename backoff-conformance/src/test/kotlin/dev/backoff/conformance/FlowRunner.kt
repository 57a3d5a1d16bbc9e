package dev.backoff.conformance

import dev.backoff.NanoClock
import dev.backoff.kotlin.retry
import kotlin.coroutines.cancellation.CancellationException
import kotlin.time.Duration.Companion.hours
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.single
import kotlinx.coroutines.launch
import kotlinx.coroutines.test.advanceTimeBy
import kotlinx.coroutines.test.runCurrent
import kotlinx.coroutines.test.runTest

/**
 * The Kotlin driver for a Flow (`flow.retry(policy)`): each attempt is a one-value flow; a flow has no single
 * result, so the result-rule rows are skipped.
 */
class FlowRunner : DriverRunner {
    override fun name(): String = "kotlin flow"

    override fun judgesResults(): Boolean = false

    override fun timerResolution(): java.time.Duration = java.time.Duration.ofMillis(1)

    override fun notOffered(): Map<Mechanism, String> =
        mapOf(Mechanism.RECOVERY to DriverRunner.NO_RECOVERY_KOTLIN)

    override fun refusals(): Map<Mechanism, String> =
        mapOf(Mechanism.HEDGING to "a flow cannot be hedged")

    override fun run(trial: Trial): DriverRunner.Outcome {
        var outcome = DriverRunner.Outcome(null, null)
        runTest {
            val policy = trial.policy(NanoClock { testScheduler.currentTime * 1_000_000 })
            val caller = launch {
                outcome = try {
                    DriverRunner.Outcome.of(flow { emit(attemptOrHang(trial)) }.retry(policy).single())
                } catch (cancelled: CancellationException) {
                    throw cancelled
                } catch (failure: Throwable) {
                    DriverRunner.Outcome.failed(failure)
                }
            }
            trial.cancelAfter()?.let {
                advanceTimeBy(it.toMillis())
                caller.cancel()
            }
            advanceTimeBy(1.hours)
            runCurrent()
            check(caller.isCompleted) { "the call had not ended an hour later" }
        }
        return outcome
    }
}
