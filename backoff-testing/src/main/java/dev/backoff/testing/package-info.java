/**
 * Test doubles for code that retries, so tests assert exact waits without real time: a manual
 * {@link dev.backoff.testing.FakeClock}, a {@link dev.backoff.testing.RecordingSleeper} that advances it, a
 * {@link dev.backoff.testing.FakeScheduler} run by hand and a {@link dev.backoff.testing.ScriptedRandom}.
 *
 * <p>Thread-safety: each type's Javadoc says whether it may be shared between threads; they are meant to
 * be created per test.
 */
package dev.backoff.testing;
