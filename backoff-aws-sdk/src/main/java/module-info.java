/**
 * Backoff for the AWS SDK for Java v2: a {@code RetryStrategy} whose every decision is a Backoff policy's, and
 * presets matching the SDK's retry modes.
 */
// The SDK ships no descriptors: its modules are the jars' Automatic-Module-Names, required transitively because
// the SDK's retry types are in this module's API.
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.backoff.aws {
  exports dev.backoff.aws;

  requires transitive dev.backoff.core;
  // x-amz-retry-after is read by its one parser (WaitHeader).
  requires dev.backoff.http.rules;
  requires transitive software.amazon.awssdk.retries.api;
  requires software.amazon.awssdk.core;
  requires software.amazon.awssdk.awscore;
  requires software.amazon.awssdk.utils;
  requires software.amazon.awssdk.http;
}
