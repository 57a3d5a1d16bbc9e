/**
 * The driver SPI: a driver (an HTTP client adapter, the simulator) plugs an attempt and an outcome judge
 * into the core's one synchronous and one asynchronous retry loop ({@link dev.backoff.driver.RetryLoops}),
 * or calls the decision engine directly ({@link dev.backoff.driver.Engine}); it never owns a loop.
 *
 * <p>Not public API: the module exports this package only to the Backoff modules that drive the loops.
 * Thread-safety: the entry points are stateless and thread-safe; a driver's hooks are called by one
 * thread at a time for a given call.
 */
package dev.backoff.driver;
