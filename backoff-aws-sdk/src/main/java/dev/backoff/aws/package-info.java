/**
 * Backoff for the AWS SDK for Java v2: {@link dev.backoff.aws.AwsSdkRetryStrategy}, a {@code RetryStrategy}
 * whose decisions are a Backoff policy's, and {@link dev.backoff.aws.AwsRetryMode}, presets matching the SDK's
 * retry modes.
 */
package dev.backoff.aws;
