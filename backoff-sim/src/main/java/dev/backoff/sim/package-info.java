/**
 * The discrete-event retry-storm simulator: a scenario (flags or a YAML/JSON file, the same keys) of
 * server, client and fault models run in virtual time against the real decision engine, with table, CSV,
 * JSON and HTML reports.
 *
 * <p>Thread-safety: scenarios and results are immutable; one simulation runs on one thread and is
 * deterministic (the same seed gives the same output, byte for byte). {@link dev.backoff.sim.Runs} runs many
 * independent simulations in parallel (over seeds with {@link dev.backoff.sim.Confidence}, over parameter
 * ranges with {@link dev.backoff.sim.Sweep}), with the same results for any thread count.
 */
package dev.backoff.sim;
