package io.servicehooks.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.util.Map;
import picocli.CommandLine;

/** Runs the command line in-process with an injected environment and captured output. */
final class Cli {

  /** The outcome of one run. */
  record Run(int exitCode, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exitCode + "\n--- out\n" + out + "--- err\n" + err;
    }
  }

  private Cli() {}

  static Run run(Map<String, String> environment, String... args) {
    return run(environment, Clock.systemUTC(), args);
  }

  /** Like {@link #run(Map, String...)}, with {@code clock} as the command line's "now". */
  static Run run(Map<String, String> environment, Clock clock, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = ServicehooksCli.commandLine(environment, clock);
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int exitCode = commandLine.execute(args);
    return new Run(exitCode, out.toString(), err.toString());
  }
}
