/**
 * Backoff for Spring's HTTP clients. {@link dev.backoff.spring.web.BackoffRestInterceptor} retries
 * {@code RestClient} and {@code RestTemplate} calls on the calling thread;
 * {@link dev.backoff.spring.web.BackoffExchangeFilter} retries {@code WebClient} exchanges without holding
 * a thread. Both judge by {@link dev.backoff.http.rules.HttpRules} and run on the core's retry loops.
 */
package dev.backoff.spring.web;
