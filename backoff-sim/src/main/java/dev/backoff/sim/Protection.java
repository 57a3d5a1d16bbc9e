package dev.backoff.sim;

/**
 * What the storm-protection mechanisms of one policy did in one simulated second: its circuit breakers,
 * adaptive rate limiters, hedging and concurrency limiters. A value of a mechanism the policy does not use is
 * 0 (NaN for the limiter's fill rate); {@link PolicyResult#usesBreaker()} and its siblings say which are in
 * use. Immutable and thread-safe.
 *
 * @param t the second's start, in seconds from the start of the run
 * @param breakerOpen the fraction of the second's breaker time spent open: with one breaker shared by the
 *     run, the part of the second it was open; with one per client, the mean over the clients (0.25: a
 *     quarter of the clients' breakers open, on average over the second)
 * @param breakerHalfOpen the same for half-open
 * @param refused calls the breaker refused in the second: first attempts it did not permit (the call failed
 *     at once, without reaching the server) and retries the engine stopped because the breaker would refuse
 *     them when due
 * @param limiterFillRate the adaptive limiter's fill rate at the end of the second, in tokens (attempts) per
 *     second; with one limiter per client, their mean; NaN without a limiter
 * @param limiterWaits attempts the limiter delayed in the second (they were sent later)
 * @param limiterRefused attempts the limiter refused in the second (fail-fast mode, or a wait the policy
 *     would not take)
 * @param hedgesSent hedged attempts sent in the second (besides each call's first attempt)
 * @param hedgesInFlight hedged attempts awaiting an answer at the end of the second
 * @param hedgesWon calls in the second whose winning answer came from a hedge
 * @param concurrencyLimit the concurrency limiter's limit at the end of the second (attempts in flight it
 *     admits); 0 without one
 * @param concurrencyRefusedFirst first attempts the concurrency limiter refused in the second (each failed
 *     its call at once, never sent)
 * @param concurrencyRefusedRetries retries and hedges the concurrency limiter refused in the second (a
 *     refused retry stops its call, a refused hedge ends its call's hedging)
 */
public record Protection(int t, double breakerOpen, double breakerHalfOpen, long refused, double limiterFillRate,
    long limiterWaits, long limiterRefused, long hedgesSent, int hedgesInFlight, long hedgesWon,
    int concurrencyLimit, long concurrencyRefusedFirst, long concurrencyRefusedRetries) {}
