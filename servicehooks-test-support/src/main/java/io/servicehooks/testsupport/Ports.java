package io.servicehooks.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free TCP ports for servers a test starts itself (a jar, an embedded store, a consumer that must
 * come back at the same address).
 *
 * <p>A port is taken below the kernel's ephemeral range, never from it. The kernel hands ports of
 * that range to every outgoing connection and to every bind of port 0, so a port chosen there and
 * let go stays free only until the next connection anything on the machine opens: while the reactor
 * builds two modules at once, a test that closes its server and binds the same port again can find
 * it taken by another test's client. Below the range only an explicit bind can take it.
 */
public final class Ports {

  /** Above the well-known ports and the local services a test machine runs. */
  static final int LOWEST = 10_000;

  /** Linux's default first ephemeral port; the IANA dynamic range starts higher still. */
  static final int DEFAULT_EPHEMERAL_FIRST = 32_768;

  private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");

  private static final int ATTEMPTS = 200;

  private Ports() {}

  /**
   * A port nothing listens on right now, outside the ephemeral range; the caller binds it soon
   * after, and may close and bind it again.
   */
  public static int free() {
    int end = ephemeralFirst();
    if (end - LOWEST >= 1_000) {
      for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
        int port = ThreadLocalRandom.current().nextInt(LOWEST, end);
        if (bindable(port)) {
          return port;
        }
      }
    }
    // A machine whose ephemeral range leaves no room below it: the kernel's choice.
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The first port of the kernel's ephemeral range (Linux), else Linux's default. A sysctl file
   * answers only a read from its start: one buffered read takes the whole line, where {@code
   * Files.readString} reads a first byte alone and then finds nothing more.
   */
  static int ephemeralFirst() {
    try (BufferedReader reader = Files.newBufferedReader(EPHEMERAL_RANGE)) {
      String line = reader.readLine();
      int first = Integer.parseInt(line.trim().split("\\s+")[0]);
      return Math.min(first, DEFAULT_EPHEMERAL_FIRST);
    } catch (IOException | RuntimeException notLinux) {
      return DEFAULT_EPHEMERAL_FIRST;
    }
  }

  private static boolean bindable(int port) {
    try (ServerSocket probe = new ServerSocket()) {
      probe.setReuseAddress(true);
      probe.bind(new InetSocketAddress(port));
      return true;
    } catch (IOException taken) {
      return false;
    }
  }
}
