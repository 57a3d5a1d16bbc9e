/**
 * Retries for Spring's HTTP clients on Backoff's loops and HTTP rules: an interceptor for
 * {@code RestClient} and {@code RestTemplate}, and an exchange filter for {@code WebClient}. Spring and
 * Reactor are the application's: each is needed only by the class that uses it.
 */
// "exports": Spring's and Reactor's types appear in the public signatures; they come from the application.
@SuppressWarnings({"exports", "module"})
module dev.backoff.spring.web {
  exports dev.backoff.spring.web;

  requires transitive dev.backoff.core;
  requires transitive dev.backoff.http.rules;
  requires static spring.core;
  requires static spring.web;
  requires static spring.webflux;
  requires static reactor.core;
  requires static org.reactivestreams;
}
