package io.servicehooks.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

/** Free TCP ports for servers a test starts itself (a jar, an embedded store). */
public final class Ports {

  private Ports() {}

  /** A port nothing listens on right now; the caller binds it soon after. */
  public static int free() {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
