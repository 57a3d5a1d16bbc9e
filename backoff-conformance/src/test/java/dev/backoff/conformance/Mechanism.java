package dev.backoff.conformance;

/** The matrix's columns: what a row exercises beyond the basic retries. */
public enum Mechanism {
  RETRIES("retries"),
  DEADLINE("deadline"),
  ATTEMPT_TIMEOUT("attempt timeout"),
  BUDGET("budget"),
  BREAKER("breaker"),
  LIMITER("rate limiter"),
  CONCURRENCY("concurrency limiter"),
  HEDGING("hedging"),
  RECOVERY("recovery"),
  PUSHBACK("pushback"),
  CANCEL("cancel");

  final String title;

  Mechanism(String title) {
    this.title = title;
  }
}
