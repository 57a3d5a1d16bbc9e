/**
 * The one spec language: strategies, presets, policies and budgets by name and parameters
 * ({@code exponential:100ms:2:20s:full}, {@code token-bucket:500:5:10}) and the one duration syntax, parsed
 * here for every command, scenario file and the lab, so a name means the same everywhere.
 *
 * <p>Thread-safety: the specs are immutable values and the parsers stateless; all are thread-safe. Bad
 * input raises {@link java.lang.IllegalArgumentException} naming what was wrong and the value.
 */
package dev.backoff.spec;
