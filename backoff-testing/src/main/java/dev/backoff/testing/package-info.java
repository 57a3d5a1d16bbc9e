/**
 * Test doubles for code that retries, so tests assert exact waits and events without real time: a manual
 * {@link dev.backoff.testing.FakeClock}, a {@link dev.backoff.testing.RecordingSleeper} that advances it, a
 * {@link dev.backoff.testing.FakeScheduler} run by hand, a {@link dev.backoff.testing.ScriptedRandom}, a
 * {@link dev.backoff.testing.ScriptedBudget} (scripted or counting a real budget), a
 * {@link dev.backoff.testing.RecordingListener} that keeps every event in order, and a
 * {@link dev.backoff.testing.ScriptedHttpServer}, a real HTTP/1.1 server on loopback that plays a script of
 * responses (statuses, headers, delays, huge or trickling bodies, resets) and records the requests.
 *
 * <p>Thread-safety: each type's Javadoc says whether it may be shared between threads; they are meant to
 * be created per test.
 *
 * <p>Where the core's tests live: {@code mvn -pl backoff-core test} runs the tests of the core that need no
 * test double (strategies, jitter, policy, the decision engine, budgets, the planner, the spec language and
 * the async executor's cancellation races). The tests of the core's executors and retry loops that drive
 * them with these doubles (fake time, a scheduler run by hand, scripted budgets, recording listeners) live
 * in this module's test tree instead, mostly in the core's own packages ({@code dev.backoff},
 * {@code dev.backoff.driver}) to reach package-private seams: this module depends on the core, so the
 * core's tests cannot depend on it (Maven refuses a cycle, whatever the scope). Run them with
 * {@code mvn -pl backoff-testing -am test}.
 */
package dev.backoff.testing;
