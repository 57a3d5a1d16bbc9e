package dev.backoff.sim;

/**
 * What happened in one simulated second of one run. Counters count events within the second; concurrency,
 * latency and budget level are samples taken at its end (the original experiment's server prints once per second). Immutable and thread-safe.
 *
 * @param t the second's start, in seconds from the start of the run
 * @param newRequests logical requests started
 * @param attempts attempts sent (first attempts and retries)
 * @param goodput successful requests
 * @param errors attempts answered with an error (refused, reset, shed)
 * @param timeouts attempts the client gave up waiting for
 * @param retries retries the policy scheduled
 * @param gaveUp logical requests the policy stopped retrying
 * @param concurrency requests in the server at the end of the second
 * @param peakConcurrency the most requests in the server during the second
 * @param latencySeconds the server latency a request arriving at the end of the second would see
 * @param clientP50Seconds median latency of the requests that succeeded in the second, first attempt to
 *     success, retries and waits included; NaN if none succeeded in the second
 * @param clientP99Seconds their 99th percentile; NaN if none succeeded in the second
 * @param budgetLevel the retry budget's level at the end of the second (NaN without a budget)
 */
public record Second(int t, long newRequests, long attempts, long goodput, long errors, long timeouts,
    long retries, long gaveUp, int concurrency, int peakConcurrency, double latencySeconds,
    double clientP50Seconds, double clientP99Seconds, double budgetLevel) {}
