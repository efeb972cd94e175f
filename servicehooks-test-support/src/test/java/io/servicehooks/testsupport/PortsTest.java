package io.servicehooks.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

final class PortsTest {

  /**
   * The first port of the kernel's ephemeral range as the kernel states it, read here on its own.
   */
  private static int kernelsFirstEphemeralPort() throws Exception {
    Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    if (!Files.isReadable(range)) {
      return Ports.DEFAULT_EPHEMERAL_FIRST;
    }
    try (InputStream in = Files.newInputStream(range)) {
      String line = new String(in.readNBytes(64), StandardCharsets.US_ASCII); // one read
      return Integer.parseInt(line.trim().split("\\s+")[0]);
    }
  }

  @Test
  void free_isBelowTheKernelsEphemeralRange_soNoConnectionCanTakeIt() throws Exception {
    int first = kernelsFirstEphemeralPort();
    for (int i = 0; i < 20; i++) {
      int port = Ports.free();
      assertThat(port).isBetween(Ports.LOWEST, Math.min(first, Ports.DEFAULT_EPHEMERAL_FIRST) - 1);
    }
  }

  @Test
  void free_canBeBoundClosedAndBoundAgain_whileTheKernelHandsOutItsOwnPorts() throws Exception {
    int port = Ports.free();
    InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    try (ServerSocket server = new ServerSocket()) {
      server.setReuseAddress(true);
      server.bind(address);
      assertThat(server.getLocalPort()).isEqualTo(port);
    }
    // What took the port from a test that bound it again: anything else asking the kernel for a
    // port. Two hundred such sockets get none of ours.
    List<ServerSocket> others = new ArrayList<>();
    try {
      for (int i = 0; i < 200; i++) {
        ServerSocket other = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        others.add(other);
        assertThat(other.getLocalPort()).isNotEqualTo(port);
      }
      try (ServerSocket again = new ServerSocket()) {
        again.setReuseAddress(true);
        again.bind(address);
        assertThat(again.getLocalPort()).isEqualTo(port);
      }
    } finally {
      for (ServerSocket other : others) {
        other.close();
      }
    }
  }

  @Test
  void ephemeralFirst_isTheKernelsOwnFigure_orLinuxsDefault() throws Exception {
    assertThat(Ports.ephemeralFirst())
        .isEqualTo(Math.min(kernelsFirstEphemeralPort(), Ports.DEFAULT_EPHEMERAL_FIRST));
  }
}
