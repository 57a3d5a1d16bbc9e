package dev.backoff.lab;

import java.util.concurrent.CompletableFuture;

/**
 * Sends one logical request of a lab client, retrying it under a policy, asynchronously (no thread waits
 * for it). The lab's fleet talks only to this interface; the retrying comes from backoff-http's client
 * ({@link HttpSender}), and could come from any other driver of the same policies. Implementations report
 * every attempt to the observer they were made with, and are thread-safe.
 */
interface LogicalRequestSender {
  /**
   * Starts a logical request.
   *
   * @return completes with true when an attempt succeeded, false when the policy stopped retrying (or the
   *     sender was closed); never completes exceptionally
   */
  CompletableFuture<Boolean> send();

  /** Stops: no new attempt starts; pending logical requests complete with false. */
  void close();
}
