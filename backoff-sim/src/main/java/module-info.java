/** The discrete-event retry-storm simulator: models, scenarios (JSON and YAML files), reports. */
module dev.backoff.sim {
  exports dev.backoff.sim;

  requires transitive dev.backoff.core;
  requires com.fasterxml.jackson.core;
  requires com.fasterxml.jackson.databind;
  requires com.fasterxml.jackson.dataformat.yaml;
}
