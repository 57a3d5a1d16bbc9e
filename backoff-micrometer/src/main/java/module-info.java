/** Retry metrics on a Micrometer registry. */
// Its API takes Micrometer's types, so readers of this module must read Micrometer (an automatic module).
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.backoff.micrometer {
  exports dev.backoff.micrometer;

  requires transitive dev.backoff.core;
  // "micrometer.core" is its jar's Automatic-Module-Name (Micrometer ships no descriptor).
  requires transitive micrometer.core;
}
