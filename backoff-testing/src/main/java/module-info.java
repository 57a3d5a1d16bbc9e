/**
 * Test doubles for code that retries: fake time, a recording sleeper, scripted randomness, a fake scheduler,
 * scripted budgets, a recording listener and a scripted loopback HTTP server.
 */
module dev.backoff.testing {
  exports dev.backoff.testing;

  requires transitive dev.backoff.core;
}
