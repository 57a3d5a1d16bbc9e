/**
 * Backoff's Spring Boot starter: {@code backoff.*} properties, {@code @BackoffRetry}, metrics, the
 * Actuator endpoint and HTTP client customizers. Spring loads it from the class path in most
 * applications; on the module path its package is open to Spring's reflection and proxies.
 */
// "exports"/"module": Spring's types (automatic modules) appear in the public signatures.
@SuppressWarnings({"exports", "module"})
open module dev.backoff.spring.boot {
  exports dev.backoff.spring.boot;

  requires transitive dev.backoff.core;
  requires spring.aop;
  requires spring.beans;
  requires spring.boot;
  requires spring.boot.autoconfigure;
  requires spring.context;
  requires spring.core;

  // Used when present.
  requires static dev.backoff.micrometer;
  requires static micrometer.core;
  requires static dev.backoff.http.rules;
  requires static dev.backoff.spring.web;
  requires static spring.web;
  requires static spring.webflux;
  requires static reactor.core;
  requires static dev.backoff.reactor;
  requires static org.reactivestreams;
  requires static spring.boot.actuator;
  requires static spring.boot.actuator.autoconfigure;
  // Spring Boot 4's customizer types (absent on Spring Boot 3.5).
  requires static spring.boot.restclient;
  requires static spring.boot.webclient;
}
