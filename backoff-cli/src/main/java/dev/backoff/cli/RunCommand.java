package dev.backoff.cli;

import dev.backoff.FailureClass;
import dev.backoff.RetryEvent;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryListener;
import dev.backoff.RetryPolicy;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code backoff run}: runs a command and retries it under a policy while it fails, like the classic
 * {@code retry} tools but jittered, with an attempt limit and a deadline.
 */
@Command(name = "run", mixinStandardHelpOptions = true, versionProvider = BackoffCommand.Version.class,
    description = {"Run a command, retrying it under the policy while it fails (a non-zero exit status, or "
        + "only the statuses of --retry-on-exit).",
        "Its input and output pass through; one line per attempt goes to stderr. Exits with the last attempt's "
        + "status (130 when interrupted; an attempt that exits 130, as one stopped by Ctrl-C does, stops the run "
        + "as interrupted unless --retry-on-exit lists 130). Options after the command's name are the "
        + "command's.",
        "Example: backoff run --strategy full-jitter --initial 200ms --max-attempts 5 --deadline 30s -- "
        + "curl -fsS https://example.com/"})
final class RunCommand implements Callable<Integer> {
  /** The exit status of a run stopped by an interrupt (128 + SIGINT), as shells report it. */
  static final int INTERRUPTED = 130;

  @Spec
  CommandSpec spec;

  @Mixin
  PolicyOptions policy = new PolicyOptions();

  @Option(names = "--retry-on-exit", paramLabel = "<status>", split = ",",
      description = "Retry only on these exit statuses (1-255, comma-separated). Default: any non-zero.")
  List<Integer> retryOnExit;

  @Parameters(arity = "1..*", paramLabel = "<command>",
      description = "The command and its arguments; its options are its own (a -- before it is optional).")
  List<String> command;

  private final Object lock = new Object();
  private Process current; // guarded by lock
  private boolean stopped; // guarded by lock
  private int attempts; // the attempts started; only the running thread uses it
  private boolean retry130; // --retry-on-exit lists 130
  private volatile Thread runner;
  private final CountDownLatch finished = new CountDownLatch(1);

  @Override
  public Integer call() throws Exception {
    Set<Integer> codes = retryCodes();
    retry130 = codes != null && codes.contains(INTERRUPTED);
    PrintWriter err = spec.commandLine().getErr();
    RetryPolicy.Builder<Integer> builder = policy.builder();
    builder.retryOnResult(status -> status != 0 && (codes == null || codes.contains(status)));
    builder.abortOn(CannotStart.class);
    if (policy.adaptive) { // an exit status says nothing of throttling: every retried one counts as a throttle
      builder.rateLimiter(policy.rateLimiter(err)).classifyResults(status -> FailureClass.THROTTLED);
    }
    builder.listener(new RetryListener<Integer>() {
      @Override
      public void onRetryScheduled(RetryEvent<Integer> event) {
        report(err, "attempt " + event.attempts() + " exited " + event.result() + "; retrying in "
            + millis(event.delayNanos()));
      }

      @Override
      public void onExhausted(RetryEvent<Integer> event) {
        report(err, "attempt " + event.attempts() + " exited " + event.result() + "; giving up ("
            + event.stopReason() + ", " + millis(event.elapsedNanos()) + " elapsed)");
      }

      @Override
      public void onAborted(RetryEvent<Integer> event) {
        if (event.result() != null) {
          report(err, "attempt " + event.attempts() + " exited " + event.result() + "; not retried ("
              + event.stopReason() + ")");
        }
      }

      @Override
      public void onSuccess(RetryEvent<Integer> event) {
        Integer status = event.result();
        report(err, "attempt " + event.attempts() + (status == null || status == 0 ? " succeeded"
            : " exited " + status + "; not retried (not in --retry-on-exit)"));
      }
    });
    RetryPolicy<Integer> retryPolicy = builder.build();
    runner = Thread.currentThread();
    Thread hook = new Thread(this::stop, "backoff-run-interrupt");
    Runtime.getRuntime().addShutdownHook(hook); // SIGINT/SIGTERM: kill the child, stop waiting
    try {
      return RetryExecutor.of(retryPolicy).call(this::attempt);
    } catch (InterruptedException interrupted) {
      Thread.interrupted(); // the run is over; don't leak the flag into the caller's next blocking call
      report(err, "interrupted; stopped");
      return INTERRUPTED;
    } catch (CannotStart cannotStart) {
      throw new Errors.UsageException(cannotStart.getMessage());
    } finally {
      finished.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // The hook is already running; it ends on its own.
      }
    }
  }

  private Set<Integer> retryCodes() {
    if (retryOnExit == null) {
      return null;
    }
    Set<Integer> codes = new TreeSet<>();
    for (Integer code : retryOnExit) {
      if (code == null || code < 1 || code > 255) {
        throw new Errors.UsageException("--retry-on-exit takes exit statuses from 1 to 255, was " + code);
      }
      codes.add(code);
    }
    return codes;
  }

  /**
   * One attempt: runs the command to completion and returns its exit status. An attempt that ended because
   * the run was stopped, or that exited 130 (what a command stopped by Ctrl-C reports: the terminal sends
   * SIGINT to the command and to us, and the command may end before our own handler runs), is an interrupt,
   * thrown before the policy can schedule a retry, so no "retrying in" line precedes the stop. The exception:
   * {@code --retry-on-exit} lists 130, and the user asked for exactly that status to be retried.
   */
  private Integer attempt() throws InterruptedException {
    Process process;
    synchronized (lock) {
      if (stopped) {
        throw new InterruptedException("stopped before starting the command");
      }
      try {
        process = new ProcessBuilder(new ArrayList<>(command)).inheritIO().start();
      } catch (IOException e) {
        throw new CannotStart("cannot run '" + command.get(0) + "': " + e.getMessage());
      }
      current = process;
      attempts++;
    }
    int status;
    try {
      status = process.waitFor();
    } catch (InterruptedException interrupted) {
      kill(process);
      throw interrupted;
    } finally {
      synchronized (lock) {
        current = null;
      }
    }
    boolean wasStopped;
    synchronized (lock) {
      wasStopped = stopped; // stop() sets it before it kills the command
    }
    if (wasStopped || (status == INTERRUPTED && !retry130)) {
      report(spec.commandLine().getErr(), "attempt " + attempts + " exited " + status + "; not retried ("
          + dev.backoff.StopReason.INTERRUPTED + ")");
      throw new InterruptedException("attempt " + attempts + " exited " + status + " while the run was stopped");
    }
    return status;
  }

  /** Stops the run at once: kills the running command and interrupts the waiting thread. */
  void stop() {
    Process process;
    synchronized (lock) {
      stopped = true;
      process = current;
    }
    if (process != null) {
      kill(process);
    }
    Thread thread = runner;
    if (thread != null && thread != Thread.currentThread()) {
      thread.interrupt();
      try {
        finished.await(2, TimeUnit.SECONDS); // let it report before the JVM halts
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static void kill(Process process) {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }

  private static void report(PrintWriter err, String line) {
    err.println("backoff: " + line);
    err.flush();
  }

  /** A wait or elapsed time for a log line: the one duration format, to the millisecond (as {@code http}). */
  private static String millis(long nanos) {
    return HttpCommand.format(java.time.Duration.ofNanos(nanos));
  }

  /** The command could not be started (not found, not executable): not retried. */
  static final class CannotStart extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CannotStart(String message) {
      super(message);
    }
  }
}
