package dev.backoff.kotlin

import dev.backoff.AdaptiveRateLimiter
import dev.backoff.Backoff
import dev.backoff.CircuitBreaker
import dev.backoff.FailureClass
import dev.backoff.Hedging
import dev.backoff.Jitter
import dev.backoff.NanoClock
import dev.backoff.Pushback
import dev.backoff.RetryBudget
import dev.backoff.RetryListener
import dev.backoff.RetryPolicy
import java.util.random.RandomGenerator
import kotlin.reflect.KClass
import kotlin.time.Duration
import kotlin.time.toJavaDuration

/**
 * Builds a [RetryPolicy] with a Kotlin DSL over the Java builder, which validates every value as it is set
 * (an [IllegalArgumentException] naming the setting and the value):
 *
 * ```
 * val policy = retryPolicy<String> {
 *     name = "catalog"
 *     maxAttempts = 5
 *     backoff = exponential(100.milliseconds, cap = 20.seconds, jitter = FULL)
 *     maxElapsed = 30.seconds
 *     retryOn(IOException::class)
 *     abortOn(IllegalArgumentException::class)
 *     retryOnResult { it == "busy" }
 * }
 * ```
 *
 * Settings left alone keep the Java builder's defaults (3 attempts, its default backoff, no deadline).
 */
fun <T> retryPolicy(configure: RetryPolicyBuilder<T>.() -> Unit): RetryPolicy<T> =
    RetryPolicyBuilder<T>(RetryPolicy.builder()).apply(configure).build()

/**
 * Copies this policy into the DSL to change some settings.
 */
fun <T> RetryPolicy<T>.copy(configure: RetryPolicyBuilder<T>.() -> Unit): RetryPolicy<T> =
    RetryPolicyBuilder(toBuilder()).apply(configure).build()

/** Marks the policy DSL, so that nested lambdas cannot reach an outer builder by accident. */
@DslMarker
annotation class RetryPolicyDsl

/**
 * The receiver of [retryPolicy]'s block. Each setting goes to the Java builder at once, so a bad value fails
 * where it is written. Not thread-safe (a builder is used by one thread).
 */
@RetryPolicyDsl
class RetryPolicyBuilder<T> internal constructor(private val builder: RetryPolicy.Builder<T>) {
    /** Names the policy (events, metrics, messages). Must not be blank. */
    var name: String = "default"
        set(value) {
            builder.name(value)
            field = value
        }

    /** The maximum number of attempts, the first included; at least 1. */
    var maxAttempts: Int = 3
        set(value) {
            builder.maxAttempts(value)
            field = value
        }

    /** The longest a call may take, retries and waits included; positive and finite. */
    var maxElapsed: Duration = Duration.INFINITE
        set(value) {
            builder.maxElapsed(value.toJava("maxElapsed"))
            field = value
        }

    /** The longest pushback ("retry after") the policy honours; longer ones stop the call. */
    var maxPushback: Duration = Duration.INFINITE
        set(value) {
            builder.maxPushback(value.toJava("maxPushback"))
            field = value
        }

    /** The backoff between attempts; see [exponential], [fixed], [linear], [decorrelated]. */
    var backoff: Backoff? = null
        set(value) {
            builder.backoff(value)
            field = value
        }

    /** A retry budget shared by the calls under this policy, or null for none. */
    var budget: RetryBudget? = null
        set(value) {
            builder.budget(value)
            field = value
        }

    /**
     * A circuit breaker, usually shared by every call to one dependency, or null for none: every attempt asks
     * it for a permit and reports its outcome (see [CircuitBreaker]).
     */
    var circuitBreaker: CircuitBreaker? = null
        set(value) {
            builder.circuitBreaker(value)
            field = value
        }

    /**
     * An adaptive client-side rate limiter, usually shared by every call to one service, or null for none:
     * every attempt, the first included, takes a token from it (see [AdaptiveRateLimiter]).
     */
    var rateLimiter: AdaptiveRateLimiter? = null
        set(value) {
            builder.rateLimiter(value)
            field = value
        }

    /**
     * Hedging, or null for none: another attempt starts when none has answered within the delay, and the
     * first accepted result wins (see [Hedging] and [hedgeAfter]). [retrying] hedges; [retry] on a flow
     * refuses a hedging policy. `maxAttempts` bounds the hedges, the first attempt included.
     */
    var hedging: Hedging? = null
        set(value) {
            builder.hedging(value)
            field = value
        }

    /** The clock (default: the system's monotonic clock). */
    var clock: NanoClock? = null
        set(value) {
            builder.clock(value)
            field = value
        }

    /** The jitter source (default: the calling thread's random source). */
    var random: RandomGenerator? = null
        set(value) {
            builder.random(value)
            field = value
        }

    /** Full jitter: a delay uniform in `[0, d)`. */
    val FULL: Jitter get() = Jitter.full()

    /** Equal jitter: a delay uniform in `[d/2, d)`. */
    val EQUAL: Jitter get() = Jitter.equal()

    /** No jitter. */
    val NONE: Jitter get() = Jitter.none()

    /** `min(cap, initial·multiplier^(n − 1))`, jittered; see [Backoff.exponential]. */
    fun exponential(initial: Duration, multiplier: Double = 2.0, cap: Duration, jitter: Jitter = NONE): Backoff =
        Backoff.exponential(initial.toJava("initial"), multiplier, cap.toJava("cap"), jitter)

    /** The same delay before every retry, jittered; see [Backoff.fixed]. */
    fun fixed(delay: Duration, jitter: Jitter = NONE): Backoff = Backoff.fixed(delay.toJava("delay"), jitter)

    /** `initial + increment·(n − 1)`, capped and jittered; see [Backoff.linear]. */
    fun linear(initial: Duration, increment: Duration, cap: Duration, jitter: Jitter = NONE): Backoff =
        Backoff.linear(initial.toJava("initial"), increment.toJava("increment"), cap.toJava("cap"), jitter)

    /** Decorrelated jitter; see [Backoff.decorrelated]. */
    fun decorrelated(base: Duration, cap: Duration): Backoff =
        Backoff.decorrelated(base.toJava("base"), cap.toJava("cap"))

    /**
     * Hedging after [delay] without an answer, with at most [maxHedges] hedges besides the first attempt
     * (default: as many as `maxAttempts` allows); see [Hedging.after]. A policy needs `maxAttempts` of at least
     * `maxHedges + 1`.
     *
     * @throws IllegalArgumentException if [delay] is negative or infinite, or [maxHedges] is below 1
     */
    fun hedgeAfter(delay: Duration, maxHedges: Int = Hedging.UNBOUNDED): Hedging {
        val hedging = Hedging.after(delay.toJava("hedging delay"))
        return if (maxHedges == Hedging.UNBOUNDED) hedging else hedging.maxHedges(maxHedges)
    }

    /** Uses [backoff] for failures of [failureClass]. */
    fun backoff(failureClass: FailureClass, backoff: Backoff) {
        builder.backoff(failureClass, backoff)
    }

    /** Retries failures of these types (and their subtypes). */
    fun retryOn(vararg types: KClass<out Throwable>) {
        builder.retryOn(*types.map { it.java }.toTypedArray())
    }

    /** Retries failures that match [predicate]. */
    fun retryIf(predicate: (Throwable) -> Boolean) {
        builder.retryIf(predicate)
    }

    /** Stops at once on failures of these types. */
    fun abortOn(vararg types: KClass<out Throwable>) {
        builder.abortOn(*types.map { it.java }.toTypedArray())
    }

    /** Stops at once on failures that match [predicate]. */
    fun abortIf(predicate: (Throwable) -> Boolean) {
        builder.abortIf(predicate)
    }

    /** Retries results that match [predicate]. */
    fun retryOnResult(predicate: (T) -> Boolean) {
        builder.retryOnResult(predicate)
    }

    /** Reads a pushback hint from an attempt's result or failure (nanoseconds, [Pushback.NONE] or [Pushback.STOP]). */
    fun pushback(extractor: Pushback.Extractor<in T>) {
        builder.pushback(extractor)
    }

    /** Adds a listener. */
    fun listener(listener: RetryListener<in T>) {
        builder.listener(listener)
    }

    internal fun build(): RetryPolicy<T> = builder.build()
}

private fun Duration.toJava(name: String): java.time.Duration {
    require(isFinite()) { "$name must be finite, was $this" }
    return toJavaDuration()
}
