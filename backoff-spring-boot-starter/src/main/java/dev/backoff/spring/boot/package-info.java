/**
 * Backoff's Spring Boot starter: named policies and budgets from {@code backoff.*} properties
 * ({@link dev.backoff.spring.boot.BackoffProperties}), checked at startup; the
 * {@link dev.backoff.spring.boot.BackoffRetry} annotation on bean methods; Micrometer metrics, the
 * {@code backoff} Actuator endpoint and HTTP client customizers when their libraries are present.
 */
package dev.backoff.spring.boot;
