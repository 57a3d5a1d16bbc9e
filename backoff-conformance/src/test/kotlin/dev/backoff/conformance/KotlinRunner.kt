package dev.backoff.conformance

import dev.backoff.NanoClock
import dev.backoff.kotlin.retrying
import kotlin.coroutines.cancellation.CancellationException
import kotlin.time.Duration.Companion.hours
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.launch
import kotlinx.coroutines.test.advanceTimeBy
import kotlinx.coroutines.test.runCurrent
import kotlinx.coroutines.test.runTest

/**
 * The Kotlin driver (`policy.retrying { ... }`) under `runTest`'s virtual time, which is also the policy's
 * clock; the caller cancels its coroutine.
 */
class KotlinRunner : DriverRunner {
    override fun name(): String = "kotlin"

    override fun timerResolution(): java.time.Duration = java.time.Duration.ofMillis(1)

    override fun notOffered(): Map<Mechanism, String> =
        mapOf(Mechanism.RECOVERY to DriverRunner.NO_RECOVERY_KOTLIN)

    override fun run(trial: Trial): DriverRunner.Outcome {
        var outcome = DriverRunner.Outcome(null, null)
        runTest {
            val policy = trial.policy(NanoClock { testScheduler.currentTime * 1_000_000 })
            val caller = launch {
                outcome = try {
                    DriverRunner.Outcome.of(policy.retrying { attemptOrHang(trial) })
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

/** The trial's attempt; one that never completes suspends until the driver cancels it, which it records. */
internal suspend fun attemptOrHang(trial: Trial): String =
    try {
        trial.attempt()
    } catch (hang: Trial.Hang) {
        try {
            awaitCancellation()
        } finally {
            trial.attemptCancelled()
        }
    }
