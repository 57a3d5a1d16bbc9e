/**
 * The live lab: the simulator's server model over real loopback sockets ({@link dev.backoff.lab.LabServer},
 * on Netty) and a fleet of retrying HTTP clients ({@link dev.backoff.lab.ClientFleet}), with the same
 * policies and reports as the simulator.
 *
 * <p>Thread-safety: the server and the fleet run their own threads and are started and closed by one owner;
 * each type's Javadoc says more.
 */
package dev.backoff.lab;
