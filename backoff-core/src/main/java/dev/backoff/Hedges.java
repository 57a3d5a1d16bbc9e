package dev.backoff;

/**
 * The call state machine's per-call hedge state ({@link CallMachine}'s hedge inputs): how many attempts the
 * call has started and how many are still in flight, whether a hedge is planned, and why no further one may
 * start. The call's {@link Execution} holds it (from its side object, so that a call that does not hedge
 * carries no room for it): one small object per hedged call, created when the machine first sees the
 * execution, which comes at the first failure or when the first hedge falls due (until then the call has
 * exactly its first attempt in flight). Not thread-safe: guarded as the execution is.
 */
final class Hedges {
  /** Attempts started, the first included; 0 until the machine first sees the execution. */
  int started;
  /** Attempts started and not yet answered (cancelled or abandoned ones are not counted once the call ends). */
  int inFlight;
  /** A hedge is planned: the driver's timer for it runs. */
  boolean planned;
  /** The planned hedge was brought forward by the last outcome (the budget is asked for its failure class). */
  boolean triggered;
  /** Why no further hedge may start (the call's stop reason once none is in flight), or null. */
  StopReason noMore;
}
