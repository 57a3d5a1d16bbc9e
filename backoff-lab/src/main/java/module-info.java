/** The live lab: an HTTP server (Netty) with the simulator's knee model, and a fleet of retrying clients. */
module dev.backoff.lab {
  exports dev.backoff.lab;

  requires transitive dev.backoff.core;
  requires transitive dev.backoff.http;
  requires transitive dev.backoff.sim;
  // Open-descriptor counts (com.sun.management.UnixOperatingSystemMXBean).
  requires java.management;
  requires jdk.management;
  // Netty's own module descriptors (from 4.2; io.netty.codec is the netty-codec-base jar). io.netty.common
  // requires jdk.unsupported itself, for the sun.misc.Unsafe it reaches for direct buffers.
  requires io.netty.buffer;
  requires io.netty.codec;
  requires io.netty.codec.http;
  requires io.netty.common;
  requires io.netty.transport;
}
