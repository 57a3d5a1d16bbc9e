/** The module-path example: a modular application using Backoff's java.net.http client. */
module example.modulepath {
  requires dev.backoff.http; // and through it dev.backoff.core, dev.backoff.http.rules and java.net.http
  requires jdk.httpserver; // the local server the example calls
}
