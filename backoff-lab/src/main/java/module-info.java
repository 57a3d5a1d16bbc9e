/** The live lab: an HTTP server (Netty) with the simulator's knee model, and a fleet of retrying clients. */
// Netty ships no descriptors: requiring its automatic modules is the only way to use it from a module.
@SuppressWarnings("requires-automatic")
module dev.backoff.lab {
  exports dev.backoff.lab;

  requires transitive dev.backoff.core;
  requires transitive dev.backoff.http;
  requires transitive dev.backoff.sim;
  // Open-descriptor counts (com.sun.management.UnixOperatingSystemMXBean).
  requires java.management;
  requires jdk.management;
  // Netty reaches sun.misc.Unsafe for direct buffers; its automatic modules cannot require the module that
  // holds it, so on the module path (where only required modules are resolved) it would fall back to heap buffers.
  requires jdk.unsupported;
  // Netty ships no module descriptors; these are its Automatic-Module-Names.
  requires io.netty.buffer;
  requires io.netty.codec;
  requires io.netty.codec.http;
  requires io.netty.common;
  requires io.netty.transport;
}
