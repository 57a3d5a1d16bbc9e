package dev.backoff.lab;

import java.util.concurrent.CompletableFuture;

/**
 * Sends one logical request of a lab client, retrying it under a policy, asynchronously (no thread waits
 * for it). The lab's fleet talks only to this interface, so the retrying can come from the core's decision
 * engine ({@link EngineSender}) or from another driver of the same policies, such as backoff-http's client.
 * Implementations are thread-safe.
 */
interface LogicalRequestSender {
  /**
   * Starts a logical request.
   *
   * @param observer told about each attempt
   * @return completes with true when an attempt succeeded, false when the policy stopped retrying (or the
   *     sender was closed); never completes exceptionally
   */
  CompletableFuture<Boolean> send(AttemptObserver observer);

  /** Stops: no new attempt starts; pending logical requests complete with false. */
  void close();
}
